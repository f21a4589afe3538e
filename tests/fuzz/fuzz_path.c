/*
 * fuzz_path.c - libFuzzer target for the lexical path functions and the
 * path set.
 *
 * The input is split at its first NUL into a base and a path. Checked
 * properties (abort on violation, so libFuzzer reports them):
 *   - path_absolute() output is canonical: absolute, no "//", no "." or
 *     ".." component, no trailing '/', length as returned, < PATH_MAX;
 *   - normalising the output again is the identity;
 *   - the output is found in a path set holding it, and every proper
 *     ancestor of it is not (a set with one member).
 */
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../shim/path.h"
#include "../../shim/pathset.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_canonical(const char *p, int len)
{
	if (len <= 0 || len >= PATH_MAX || (size_t)len != strlen(p) || p[0] != '/')
		abort();
	if (len > 1 && p[len - 1] == '/')
		abort();
	if (strstr(p, "//") || strstr(p, "/./") || strstr(p, "/../"))
		abort();
	if ((len >= 2 && strcmp(p + len - 2, "/.") == 0) ||
	    (len >= 3 && strcmp(p + len - 3, "/..") == 0))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char buf[2 * PATH_MAX + 2], out[PATH_MAX], again[PATH_MAX];
	struct pathset set = PATHSET_INIT;
	const char *base, *path;

	if (size >= sizeof(buf))
		return 0;
	memcpy(buf, data, size);
	buf[size] = '\0';
	base = buf;
	path = memchr(buf, '\0', size) ? buf + strlen(buf) + 1 : buf;
	if (path > buf + size)
		return 0;

	int n = path_absolute(base[0] == '/' ? base : "/b", path, out);
	if (n < 0) {
		if (n != -EINVAL && n != -ENAMETOOLONG)
			abort();
		return 0;
	}
	check_canonical(out, n);
	if (path_normalize(out, again) != n || strcmp(out, again) != 0)
		abort();

	if (pathset_add(&set, out, 0, out) != 0)
		abort();
	if (!pathset_nearest(&set, out, (size_t)n, 1))
		abort();
	for (int i = n - 1; i > 0; i--) {
		if (out[i] == '/' && pathset_nearest(&set, out, (size_t)i, 1))
			abort();
	}
	if (n > 1 && pathset_nearest(&set, "/", 1, 1))
		abort();
	pathset_free(&set);
	return 0;
}
