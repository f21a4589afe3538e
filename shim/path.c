/*
 * path.c - lexical normalisation and symlink resolution into fixed buffers.
 *
 * The output buffer doubles as the stack of resolved components: appending
 * writes "/name", ".." truncates back to the previous '/'. Nothing is
 * allocated; path_resolve() makes one readlink(2) per component, and a
 * stat(2) only where "." or ".." or a trailing "/" follows a non-directory
 * candidate. errno is preserved across every function here.
 */
#include "path.h"

#include <errno.h>
#include <stdbool.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Bytes of @s before its NUL, or PATH_MAX if there are PATH_MAX or more:
 * the kernel refuses such a path argument with ENAMETOOLONG. */
static size_t bounded_len(const char *s)
{
	return strnlen(s, PATH_MAX);
}

/* Append one component (not "." or "..") to the canonical @out of @len. */
static int push(char *out, size_t *len, const char *c, size_t clen)
{
	size_t sep = *len > 1;

	if (*len + sep + clen >= PATH_MAX)
		return -ENAMETOOLONG;
	if (sep)
		out[(*len)++] = '/';
	memcpy(out + *len, c, clen);
	*len += clen;
	out[*len] = '\0';
	return 0;
}

/* Drop the last component of @out; "/" stays "/". */
static void pop(char *out, size_t *len)
{
	while (*len > 1 && out[*len - 1] != '/')
		(*len)--;
	if (*len > 1)
		(*len)--;
	out[*len] = '\0';
}

/* Next component of @p: returns its start, sets *@clen, skips slashes. */
static const char *next_component(const char *p, size_t *clen)
{
	while (*p == '/')
		p++;
	*clen = strcspn(p, "/");
	return p;
}

static int is_dot(const char *c, size_t clen)
{
	return clen == 1 && c[0] == '.';
}

static int is_dotdot(const char *c, size_t clen)
{
	return clen == 2 && c[0] == '.' && c[1] == '.';
}

/* Apply the components of @p, lexically, to the canonical @out. */
static int walk_lexical(char *out, size_t *len, const char *p)
{
	size_t clen;

	for (p = next_component(p, &clen); clen; p = next_component(p + clen, &clen)) {
		if (is_dot(p, clen))
			continue;
		if (is_dotdot(p, clen)) {
			pop(out, len);
			continue;
		}
		int err = push(out, len, p, clen);
		if (err)
			return err;
	}
	return 0;
}

/*
 * Is @p (length @n) already in canonical form, apart from a leading '/':
 * no empty, "." or ".." component and no trailing '/'? Most paths are, and
 * copying them is cheaper than walking them.
 */
static bool is_clean(const char *p, size_t n)
{
	const char *end = p + n, *c = p;

	if (n == 0 || p[n - 1] == '/')
		return n == 1 && p[0] == '/';
	if (*c == '/')
		c++;
	for (;;) {
		/* @c starts a component */
		if (c == end || *c == '/')
			return false;
		if (c[0] == '.' && (c + 1 == end || c[1] == '/' ||
				    (c[1] == '.' && (c + 2 == end || c[2] == '/'))))
			return false;
		const char *slash = memchr(c, '/', (size_t)(end - c));
		if (!slash)
			return true;
		c = slash + 1;
	}
}

int path_absolute(const char *base, const char *in, char *out)
{
	size_t len = 1, inlen;
	int err;

	if (!in || !*in || !out)
		return -EINVAL;
	inlen = bounded_len(in);
	if (inlen >= PATH_MAX)
		return -ENAMETOOLONG;
	if (in[0] == '/' && is_clean(in, inlen)) {
		memcpy(out, in, inlen + 1);
		return (int)inlen;
	}
	if (in[0] != '/' && base && base[0] == '/' && is_clean(in, inlen)) {
		size_t blen = bounded_len(base);
		if (blen < PATH_MAX && is_clean(base, blen)) {
			size_t sep = blen > 1;
			if (blen + sep + inlen >= PATH_MAX)
				return -ENAMETOOLONG;
			memcpy(out, base, blen);
			out[blen] = '/';
			memcpy(out + blen + sep, in, inlen + 1);
			return (int)(blen + sep + inlen);
		}
	}
	out[0] = '/';
	out[1] = '\0';
	if (in[0] != '/') {
		if (!base || base[0] != '/')
			return -EINVAL;
		if (bounded_len(base) >= PATH_MAX)
			return -ENAMETOOLONG;
		err = walk_lexical(out, &len, base);
		if (err)
			return err;
	}
	err = walk_lexical(out, &len, in);
	return err ? err : (int)len;
}

int path_normalize(const char *in, char *out)
{
	if (!in || in[0] != '/')
		return -EINVAL;
	return path_absolute(NULL, in, out);
}

/* -ENOTDIR unless @path is a directory (errno is restored by the caller). */
static int check_dir(const char *path)
{
	struct stat st;

	if (stat(path, &st) < 0)
		return -errno;
	return S_ISDIR(st.st_mode) ? 0 : -ENOTDIR;
}

int path_resolve(const char *in, char *out, enum path_missing missing)
{
	char pending[PATH_MAX];  /* what is left to walk; rewritten at symlinks */
	char target[PATH_MAX];
	const int saved_errno = errno;
	const char *p;
	size_t len = 1, clen, inlen;
	int links = 0, ret = 0;
	/* The last component exists, is not a symlink, and something follows
	 * it ("/", "." or ".."): it must be a directory, which readlink(2)
	 * does not tell. A following name checks it for free (ENOTDIR). */
	bool unverified = false;

	if (!in || in[0] != '/' || !out)
		return -EINVAL;
	inlen = bounded_len(in);
	if (inlen >= PATH_MAX)
		return -ENAMETOOLONG;
	memcpy(pending, in, inlen + 1);
	out[0] = '/';
	out[1] = '\0';

	for (p = next_component(pending, &clen); clen; p = next_component(p + clen, &clen)) {
		if (is_dot(p, clen) || is_dotdot(p, clen)) {
			if (unverified && (ret = check_dir(out)))
				goto out;
			unverified = false;
			/* @out has no symlinks, so ".." is its lexical parent. */
			if (is_dotdot(p, clen))
				pop(out, &len);
			continue;
		}
		unverified = false;
		size_t before = len;
		ret = push(out, &len, p, clen);
		if (ret)
			goto out;

		ssize_t n = readlink(out, target, sizeof(target));
		if (n < 0) {
			if (errno == EINVAL) {  /* exists, not a symlink */
				unverified = p[clen] == '/';
				continue;
			}
			if (errno == ENOENT && missing == PATH_MISSING_ALLOW) {
				ret = walk_lexical(out, &len, p + clen);
				goto out;
			}
			ret = -errno;
			goto out;
		}
		if (++links > 40) {
			ret = -ELOOP;
			goto out;
		}
		if ((size_t)n >= sizeof(target)) {
			ret = -ENAMETOOLONG;
			goto out;
		}
		/* pending := target rest; the rest is empty or starts with '/',
		 * and may overlap either end. */
		const char *rest = p + clen;
		size_t restlen = strlen(rest);
		if ((size_t)n + restlen >= sizeof(pending)) {
			ret = -ENAMETOOLONG;
			goto out;
		}
		memmove(pending + n, rest, restlen + 1);
		memcpy(pending, target, (size_t)n);
		if (target[0] == '/') {
			len = 1;
			out[1] = '\0';
		} else {
			len = before;
			out[len] = '\0';
		}
		/* Restart the walk at the front of the rewritten pending. */
		p = pending;
		clen = 0;
	}
	if (unverified)  /* a trailing "/" */
		ret = check_dir(out);
out:
	errno = saved_errno;
	return ret ? ret : (int)len;
}

int path_is_under(const char *path, size_t len, const char *root, size_t rlen)
{
	if (rlen == 1 && root[0] == '/')
		return path[0] == '/';
	if (len < rlen || memcmp(path, root, rlen) != 0)
		return 0;
	return len == rlen || path[rlen] == '/';
}

size_t path_parent_len(const char *path)
{
	const char *slash = strrchr(path, '/');

	return !slash || slash == path ? 1 : (size_t)(slash - path);
}
