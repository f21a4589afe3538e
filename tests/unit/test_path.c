/*
 * test_path.c - path_normalize, path_absolute, path_resolve, path_is_under.
 *
 * The lexical functions are tested as tables (input -> output or -errno).
 * path_resolve is tested against a real tree in a private temporary directory
 * (see the drawing above resolve_setup), with stat(2)/realpath(3) as the
 * kernel's own answer wherever the two are expected to agree.
 */
#include <criterion/criterion.h>

#include <errno.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../shim/path.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* snprintf into a path buffer; a truncated fixture path is a test bug. */
#define xsnprintf(buf, size, ...)                                              \
	do {                                                                   \
		int n_ = snprintf(buf, size, __VA_ARGS__);                     \
		cr_assert(n_ >= 0 && (size_t)n_ < (size_t)(size),              \
			  "fixture path too long");                            \
	} while (0)

/* An errno value none of the code under test sets, to prove it is kept. */
#define ERRNO_SENTINEL EXDEV

/* Fill @buf with a canonical path of exactly @len bytes ("/aaa/aaa/..."),
 * components of @clen bytes; NUL-terminated unless @nul is 0. */
static void fill_path(char *buf, size_t len, size_t clen, int nul)
{
	for (size_t i = 0; i < len; i++)
		buf[i] = i % (clen + 1) == 0 ? '/' : 'a';
	cr_assert_neq(buf[len - 1], '/', "fill_path: %zu bytes would end in '/'", len);
	if (nul)
		buf[len] = '\0';
}

/* --- path_normalize ------------------------------------------------------- */

static const struct {
	const char *in;
	const char *out;
} normalize_cases[] = {
	{ "/",                  "/" },
	{ "///",                "/" },
	{ "/.",                 "/" },
	{ "/..",                "/" },
	{ "/../..",             "/" },
	{ "/../a",              "/a" },
	{ "/a",                 "/a" },
	{ "/a/b/../c",          "/a/c" },
	{ "//a//b/",            "/a/b" },
	{ "/a/./b/.",           "/a/b" },
	{ "/a/b/..",            "/a" },
	{ "/a/b/c/../../..",    "/" },
	{ "/a/b/../../../c",    "/c" },
	{ "/a/..b",             "/a/..b" },
	{ "/a/b..",             "/a/b.." },
	{ "/a/...",             "/a/..." },
	{ "/a/.b",              "/a/.b" },
	{ "/..a/b",             "/..a/b" },
	{ "/a/b/",              "/a/b" },
	{ "/a/b///",            "/a/b" },
	{ "/a/b/./",            "/a/b" },
	{ "/a/b/../",           "/a" },
	/* lexical: "link" is never looked at */
	{ "/a/link/..",         "/a" },
};

Test(path_normalize, table_cases_normalized)
{
	for (size_t i = 0; i < ARRAY_SIZE(normalize_cases); i++) {
		char out[PATH_MAX];
		const char *in = normalize_cases[i].in, *want = normalize_cases[i].out;
		int ret = path_normalize(in, out);

		cr_expect_eq(ret, (int)strlen(want), "path_normalize(\"%s\") returned %d, want %zu",
			     in, ret, strlen(want));
		if (ret >= 0)
			cr_expect_str_eq(out, want, "path_normalize(\"%s\") = \"%s\", want \"%s\"",
					 in, out, want);
	}
}

Test(path_normalize, invalid_input_einval)
{
	static const char *const bad[] = { NULL, "", "a", "a/b", "./a", "../a", ".", "..", "a/" };

	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		char out[PATH_MAX];
		int ret = path_normalize(bad[i], out);

		cr_expect_eq(ret, -EINVAL, "path_normalize(%s%s%s) returned %d, want -EINVAL",
			     bad[i] ? "\"" : "", bad[i] ? bad[i] : "NULL", bad[i] ? "\"" : "", ret);
	}
}

Test(path_normalize, errno_untouched)
{
	char out[PATH_MAX];

	errno = ERRNO_SENTINEL;
	cr_assert_eq(path_normalize("/a/../b", out), 2);
	cr_assert_eq(errno, ERRNO_SENTINEL);
	cr_assert_eq(path_normalize("rel", out), -EINVAL);
	cr_assert_eq(errno, ERRNO_SENTINEL);
}

/* --- path_absolute ------------------------------------------------------- */

static const struct {
	const char *base, *in, *out;
} absolute_cases[] = {
	{ "/base/dir",    "x/../y",      "/base/dir/y" },
	{ "/base/dir",    "x",           "/base/dir/x" },
	{ "/base/dir",    ".",           "/base/dir" },
	{ "/base/dir",    "./",          "/base/dir" },
	{ "/base/dir",    "..",          "/base" },
	{ "/base/dir",    "../../../..", "/" },
	{ "/base//dir/",  "./x/",        "/base/dir/x" },
	{ "/base/a/../dir", "y",         "/base/dir/y" },
	{ "/",            "x",           "/x" },
	/* an absolute @in ignores @base, whatever it is */
	{ "/base/dir",    "/abs/p",      "/abs/p" },
	{ "/base/dir",    "/abs/../p",   "/p" },
	{ NULL,           "/abs/./p",    "/abs/p" },
	{ "relative",     "/abs",        "/abs" },
	{ "",             "/abs",        "/abs" },
};

Test(path_absolute, table_cases_normalized)
{
	for (size_t i = 0; i < ARRAY_SIZE(absolute_cases); i++) {
		char out[PATH_MAX];
		const char *base = absolute_cases[i].base, *in = absolute_cases[i].in;
		const char *want = absolute_cases[i].out;
		int ret = path_absolute(base, in, out);

		cr_expect_eq(ret, (int)strlen(want), "path_absolute(\"%s\", \"%s\") returned %d, want %zu",
			     base ? base : "(null)", in, ret, strlen(want));
		if (ret >= 0)
			cr_expect_str_eq(out, want, "path_absolute(\"%s\", \"%s\") = \"%s\", want \"%s\"",
					 base ? base : "(null)", in, out, want);
	}
}

Test(path_absolute, relative_input_without_absolute_base_einval)
{
	static const struct {
		const char *base, *in;
	} bad[] = {
		{ NULL,        "x" },
		{ "rel/base",  "x" },
		{ "",          "x" },
		{ "./base",    "../x" },
		{ "/base",     NULL },
		{ "/base",     "" },
		{ NULL,        NULL },
	};

	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		char out[PATH_MAX];
		int ret = path_absolute(bad[i].base, bad[i].in, out);

		cr_expect_eq(ret, -EINVAL, "path_absolute(\"%s\", \"%s\") returned %d, want -EINVAL",
			     bad[i].base ? bad[i].base : "(null)", bad[i].in ? bad[i].in : "(null)", ret);
	}
}

/* --- length limits ------------------------------------------------------- */

/* An argument of PATH_MAX bytes with no NUL inside them: the kernel refuses
 * it, and so must we, without reading past the PATH_MAX bytes (exactly
 * PATH_MAX are allocated, so ASan catches an over-read). */
Test(path_normalize, input_of_path_max_bytes_enametoolong)
{
	char *in = malloc(PATH_MAX);
	char out[PATH_MAX];

	cr_assert_not_null(in);
	fill_path(in, PATH_MAX, 99, 0);
	cr_expect_eq(path_normalize(in, out), -ENAMETOOLONG);

	/* Too long even though it would normalise to "/a". */
	memset(in, '/', PATH_MAX);
	in[PATH_MAX - 1] = 'a';
	cr_expect_eq(path_normalize(in, out), -ENAMETOOLONG);
	free(in);
}

Test(path_normalize, input_of_path_max_minus_one_bytes_accepted)
{
	char in[PATH_MAX], out[PATH_MAX];

	/* one component of PATH_MAX - 2 bytes */
	memset(in, 'a', PATH_MAX - 1);
	in[0] = '/';
	in[PATH_MAX - 1] = '\0';
	cr_assert_eq(path_normalize(in, out), PATH_MAX - 1);
	cr_assert_str_eq(out, in);

	/* many components */
	fill_path(in, PATH_MAX - 1, 99, 1);
	cr_assert_eq(path_normalize(in, out), PATH_MAX - 1);
	cr_assert_str_eq(out, in);
}

Test(path_absolute, input_or_base_of_path_max_bytes_enametoolong)
{
	char *big = malloc(PATH_MAX);
	char out[PATH_MAX];

	cr_assert_not_null(big);
	memset(big, 'a', PATH_MAX);                /* relative, no NUL */
	cr_expect_eq(path_absolute("/base", big, out), -ENAMETOOLONG);
	fill_path(big, PATH_MAX, 99, 0);           /* absolute, no NUL */
	cr_expect_eq(path_absolute(big, "x", out), -ENAMETOOLONG);
	free(big);
}

/* base of 4000 bytes + a relative path of 200: 4201 bytes do not fit. */
Test(path_absolute, result_longer_than_path_max_minus_one_enametoolong)
{
	char base[PATH_MAX], in[PATH_MAX], out[PATH_MAX];
	int ret;

	fill_path(base, 4000, 99, 1);
	memset(in, 'b', 200);
	in[100] = '/';
	in[200] = '\0';
	ret = path_absolute(base, in, out);
	cr_assert_eq(ret, -ENAMETOOLONG, "returned %d: a truncated result is not an answer", ret);
}

/* The boundary: a result of PATH_MAX - 1 bytes fits, one more does not. */
Test(path_absolute, result_at_boundary_accepted_one_more_enametoolong)
{
	char base[PATH_MAX], in[PATH_MAX], out[PATH_MAX], want[PATH_MAX];
	const size_t blen = 2000;
	size_t ilen = PATH_MAX - 1 - blen - 1;  /* "/" between base and in */

	fill_path(base, blen, 99, 1);
	memset(in, 'b', ilen);
	in[ilen] = '\0';
	xsnprintf(want, sizeof(want), "%s/%s", base, in);
	cr_assert_eq(strlen(want), PATH_MAX - 1);
	cr_assert_eq(path_absolute(base, in, out), PATH_MAX - 1);
	cr_assert_str_eq(out, want);

	in[ilen] = 'b';
	in[ilen + 1] = '\0';
	cr_assert_eq(path_absolute(base, in, out), -ENAMETOOLONG);
}

/* --- path_is_under -------------------------------------------------------- */

static const struct {
	const char *path, *root;
	int under;
} under_cases[] = {
	{ "/src/proj",        "/src/proj", 1 },
	{ "/src/proj/x",      "/src/proj", 1 },
	{ "/src/proj/x/y",    "/src/proj", 1 },
	{ "/src/project",     "/src/proj", 0 },
	{ "/src/proj-x",      "/src/proj", 0 },
	{ "/src/pro",         "/src/proj", 0 },
	{ "/src",             "/src/proj", 0 },
	{ "/",                "/src/proj", 0 },
	{ "/a/bc",            "/a/b",      0 },
	{ "/a/b/c",           "/a/b",      1 },
	{ "/a/b",             "/a/bc",     0 },
	{ "/",                "/",         1 },
	{ "/a",               "/",         1 },
	{ "/anything/at/all", "/",         1 },
};

Test(path_is_under, table_cases_component_boundaries)
{
	for (size_t i = 0; i < ARRAY_SIZE(under_cases); i++) {
		const char *p = under_cases[i].path, *r = under_cases[i].root;
		int got = path_is_under(p, strlen(p), r, strlen(r));

		cr_expect_eq(!!got, under_cases[i].under, "path_is_under(\"%s\", \"%s\") = %d, want %d",
			     p, r, got, under_cases[i].under);
	}
}

/* --- path_resolve --------------------------------------------------------- */

/*
 * The tree, built fresh in a private temporary directory T for each test
 * (T is canonicalised with realpath(3) first):
 *
 * T/
 * ├── a/
 * │   ├── b/
 * │   │   ├── c/
 * │   │   └── uplink -> ../../x/y     relative, ".." inside a subdirectory
 * │   └── file                        regular file
 * ├── x/
 * │   └── y/
 * ├── link_b     -> a/b               relative symlink to a directory
 * ├── link_x     -> a/b/../../x       relative, ".." inside the target
 * ├── link_y     -> x/y               for ".." after a symlink
 * ├── link_abs   -> T/x/y             absolute symlink
 * ├── link_root  -> /
 * ├── link_file  -> a/file
 * ├── s          -> a/b/c             a symlink longer than its name
 * ├── chain1 -> chain2 -> chain3 -> a/b/c
 * ├── loop1 -> loop2 -> loop1
 * ├── self -> self
 * └── dangling   -> nowhere/new
 */
static char tmp_raw[PATH_MAX];  /* as mkdtemp returned it */
static char T[PATH_MAX];        /* realpath(3) of it */
static int tmp_made;

static void mk_dir(const char *rel)
{
	char p[PATH_MAX];

	xsnprintf(p, sizeof(p), "%s/%s", T, rel);
	cr_assert_eq(mkdir(p, 0755), 0, "mkdir %s: %s", p, strerror(errno));
}

static void mk_file(const char *rel)
{
	char p[PATH_MAX];
	FILE *f;

	xsnprintf(p, sizeof(p), "%s/%s", T, rel);
	f = fopen(p, "w");
	cr_assert_not_null(f, "create %s: %s", p, strerror(errno));
	fclose(f);
}

static void mk_link(const char *target, const char *rel)
{
	char p[PATH_MAX];

	xsnprintf(p, sizeof(p), "%s/%s", T, rel);
	cr_assert_eq(symlink(target, p), 0, "symlink %s -> %s: %s", p, target, strerror(errno));
}

static void resolve_setup(void)
{
	char abs_target[PATH_MAX];

	strcpy(tmp_raw, "/tmp/cordon-test-path.XXXXXX");
	cr_assert_not_null(mkdtemp(tmp_raw), "mkdtemp: %s", strerror(errno));
	tmp_made = 1;
	cr_assert_not_null(realpath(tmp_raw, T), "realpath %s: %s", tmp_raw, strerror(errno));

	mk_dir("a");
	mk_dir("a/b");
	mk_dir("a/b/c");
	mk_link("../../x/y", "a/b/uplink");
	mk_file("a/file");
	mk_dir("x");
	mk_dir("x/y");
	mk_link("a/b", "link_b");
	mk_link("a/b/../../x", "link_x");
	mk_link("x/y", "link_y");
	xsnprintf(abs_target, sizeof(abs_target), "%s/x/y", T);
	mk_link(abs_target, "link_abs");
	mk_link("/", "link_root");
	mk_link("a/file", "link_file");
	mk_link("a/b/c", "s");
	mk_link("chain2", "chain1");
	mk_link("chain3", "chain2");
	mk_link("a/b/c", "chain3");
	mk_link("loop2", "loop1");
	mk_link("loop1", "loop2");
	mk_link("self", "self");
	mk_link("nowhere/new", "dangling");
}

static int rm_one(const char *p, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(p);
}

static void resolve_teardown(void)
{
	if (tmp_made)
		nftw(tmp_raw, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

TestSuite(path_resolve, .init = resolve_setup, .fini = resolve_teardown);

/* T followed by @suffix ("" or "/..."). */
static const char *in_tree(char *buf, const char *suffix)
{
	xsnprintf(buf, PATH_MAX, "%s%s", T, suffix);
	return buf;
}

/* Existing paths: the result must be the expected one and realpath(3)'s. */
static const struct {
	const char *in, *out;  /* both relative to T; out "" is T itself */
} resolve_existing[] = {
	{ "",                   "" },
	{ "/",                  "" },
	{ "/.",                 "" },
	{ "/a/./b/../b//c/",    "/a/b/c" },
	{ "/link_b",            "/a/b" },
	{ "/link_b/",           "/a/b" },
	{ "/link_b/c",          "/a/b/c" },
	{ "/link_b/c/..",       "/a/b" },
	{ "/link_x",            "/x" },
	{ "/link_x/y",          "/x/y" },
	{ "/a/b/uplink",        "/x/y" },
	{ "/link_b/uplink",     "/x/y" },
	{ "/link_abs",          "/x/y" },
	{ "/link_abs/..",       "/x" },
	{ "/chain1",            "/a/b/c" },
	{ "/chain1/..",         "/a/b" },
	{ "/chain1/../../file", "/a/file" },
	{ "/link_file",         "/a/file" },
	/* ".." after a symlink is the TARGET's parent, not the lexical one */
	{ "/link_y/..",         "/x" },
	{ "/link_y/../y",       "/x/y" },
	{ "/link_b/../..",      "" },
	{ "/a/b/uplink/..",     "/x" },
	{ "/s/../c/../../file", "/a/file" },
};

Test(path_resolve, existing_paths_match_realpath)
{
	for (size_t i = 0; i < ARRAY_SIZE(resolve_existing); i++) {
		char in[PATH_MAX], want[PATH_MAX], out[PATH_MAX], rp[PATH_MAX];
		const char *sfx = resolve_existing[i].in;
		int ret;

		in_tree(in, sfx);
		in_tree(want, resolve_existing[i].out);
		cr_assert_not_null(realpath(in, rp), "realpath(T%s): %s", sfx, strerror(errno));
		cr_assert_str_eq(rp, want, "fixture: realpath(T%s) = %s", sfx, rp);

		ret = path_resolve(in, out, PATH_MISSING_ERROR);
		cr_expect_eq(ret, (int)strlen(want), "path_resolve(T%s) returned %d, want %zu",
			     sfx, ret, strlen(want));
		if (ret >= 0)
			cr_expect_str_eq(out, want, "path_resolve(T%s) = %s, want %s", sfx, out, want);

		/* the mode only matters for missing components */
		ret = path_resolve(in, out, PATH_MISSING_ALLOW);
		cr_expect_eq(ret, (int)strlen(want), "ALLOW: path_resolve(T%s) returned %d", sfx, ret);
		if (ret >= 0)
			cr_expect_str_eq(out, want, "ALLOW: path_resolve(T%s) = %s", sfx, out);
	}
}

Test(path_resolve, temp_dir_itself_equals_realpath)
{
	char out[PATH_MAX], rp[PATH_MAX];

	cr_assert_not_null(realpath(tmp_raw, rp));
	cr_assert_eq(path_resolve(tmp_raw, out, PATH_MISSING_ERROR), (int)strlen(rp));
	cr_assert_str_eq(out, rp);
}

Test(path_resolve, dotdot_after_symlink_differs_from_lexical)
{
	char in[PATH_MAX], out[PATH_MAX], lex[PATH_MAX], want[PATH_MAX];

	in_tree(in, "/link_y/..");
	cr_assert_gt(path_normalize(in, lex), 0);
	cr_assert_str_eq(lex, T, "lexically, link_y/.. is T");
	cr_assert_eq(path_resolve(in, out, PATH_MISSING_ERROR), (int)strlen(in_tree(want, "/x")));
	cr_assert_str_eq(out, want);
}

Test(path_resolve, symlink_to_root_resolves_to_root)
{
	char in[PATH_MAX], out[PATH_MAX];

	cr_assert_eq(path_resolve(in_tree(in, "/link_root"), out, PATH_MISSING_ERROR), 1);
	cr_assert_str_eq(out, "/");
	cr_assert_eq(path_resolve(in_tree(in, "/link_root/.."), out, PATH_MISSING_ERROR), 1);
	cr_assert_str_eq(out, "/");
}

static const char *const loop_cases[] = { "/loop1", "/loop2/x", "/self", "/self/..", "/link_b/../../loop1/y" };

Test(path_resolve, symlink_loop_eloop)
{
	for (size_t i = 0; i < ARRAY_SIZE(loop_cases); i++) {
		char in[PATH_MAX], out[PATH_MAX];
		struct stat st;

		in_tree(in, loop_cases[i]);
		cr_assert(stat(in, &st) == -1 && errno == ELOOP, "fixture: stat(T%s) is not ELOOP",
			  loop_cases[i]);
		cr_expect_eq(path_resolve(in, out, PATH_MISSING_ERROR), -ELOOP, "T%s", loop_cases[i]);
		cr_expect_eq(path_resolve(in, out, PATH_MISSING_ALLOW), -ELOOP, "ALLOW: T%s",
			     loop_cases[i]);
	}
}

/* A chain of @n symlinks T/n<n>/l0 -> l1 -> ... -> l<n-1> -> T/a; returns
 * the path of l0 in @buf. */
static const char *make_chain(char *buf, int n)
{
	char rel[64], target[64];

	xsnprintf(rel, sizeof(rel), "n%d", n);
	mk_dir(rel);
	for (int i = 0; i < n; i++) {
		if (i == n - 1)
			xsnprintf(target, sizeof(target), "../a");
		else
			xsnprintf(target, sizeof(target), "l%d", i + 1);
		xsnprintf(rel, sizeof(rel), "n%d/l%d", n, i);
		mk_link(target, rel);
	}
	xsnprintf(buf, PATH_MAX, "%s/n%d/l0", T, n);
	return buf;
}

/* path_resolution(7): at most 40 symlinks, as the kernel counts them. */
Test(path_resolve, chain_of_40_symlinks_resolves_41_eloop)
{
	char in[PATH_MAX], out[PATH_MAX], want[PATH_MAX];
	struct stat st;

	make_chain(in, 40);
	cr_assert_eq(stat(in, &st), 0, "fixture: kernel follows 40 links: %s", strerror(errno));
	cr_assert_eq(path_resolve(in, out, PATH_MISSING_ERROR), (int)strlen(in_tree(want, "/a")));
	cr_assert_str_eq(out, want);

	make_chain(in, 41);
	cr_assert(stat(in, &st) == -1 && errno == ELOOP, "fixture: kernel refuses 41 links");
	cr_assert_eq(path_resolve(in, out, PATH_MISSING_ERROR), -ELOOP);
}

/* Missing components: -ENOENT, or with ALLOW the existing prefix resolved
 * and the rest appended lexically. */
static const struct {
	const char *in, *allow_out;
} missing_cases[] = {
	{ "/missing",                   "/missing" },
	{ "/a/missing",                 "/a/missing" },
	{ "/a/missing/more",            "/a/missing/more" },
	{ "/link_b/new",                "/a/b/new" },
	{ "/link_b/m1/m2/../m3/./m4/",  "/a/b/m1/m3/m4" },
	{ "/link_y/new/..",             "/x/y" },
	{ "/link_y/../new",             "/x/new" },
	{ "/chain1/new",                "/a/b/c/new" },
	{ "/dangling",                  "/nowhere/new" },
	{ "/dangling/deeper",           "/nowhere/new/deeper" },
};

Test(path_resolve, missing_component_error_enoent_allow_appends)
{
	for (size_t i = 0; i < ARRAY_SIZE(missing_cases); i++) {
		char in[PATH_MAX], want[PATH_MAX], out[PATH_MAX];
		const char *sfx = missing_cases[i].in;
		int ret;

		in_tree(in, sfx);
		in_tree(want, missing_cases[i].allow_out);

		ret = path_resolve(in, out, PATH_MISSING_ERROR);
		cr_expect_eq(ret, -ENOENT, "ERROR: path_resolve(T%s) returned %d, want -ENOENT", sfx, ret);

		ret = path_resolve(in, out, PATH_MISSING_ALLOW);
		cr_expect_eq(ret, (int)strlen(want), "ALLOW: path_resolve(T%s) returned %d, want %zu",
			     sfx, ret, strlen(want));
		if (ret >= 0)
			cr_expect_str_eq(out, want, "ALLOW: path_resolve(T%s) = %s, want %s", sfx, out, want);
	}
}

static const char *const notdir_cases[] = { "/a/file/x", "/a/file/x/y", "/link_file/x", "/a/file/x/../.." };

Test(path_resolve, component_under_regular_file_enotdir)
{
	for (size_t i = 0; i < ARRAY_SIZE(notdir_cases); i++) {
		char in[PATH_MAX], out[PATH_MAX];
		const char *sfx = notdir_cases[i];

		in_tree(in, sfx);
		cr_expect_eq(path_resolve(in, out, PATH_MISSING_ERROR), -ENOTDIR, "ERROR: T%s", sfx);
		cr_expect_eq(path_resolve(in, out, PATH_MISSING_ALLOW), -ENOTDIR, "ALLOW: T%s", sfx);
	}
}

/*
 * "." or ".." (or a trailing "/") after a regular file: the kernel and
 * realpath(3) fail with ENOTDIR, since only a directory has those entries.
 * The header promises the kernel's walk, "like realpath(3)".
 */
static const char *const file_dot_cases[] = { "/a/file/..", "/a/file/.", "/a/file/", "/link_file/..",
					      "/a/file/../file" };

Test(path_resolve, dot_or_dotdot_after_regular_file_enotdir)
{
	for (size_t i = 0; i < ARRAY_SIZE(file_dot_cases); i++) {
		char in[PATH_MAX], out[PATH_MAX], rp[PATH_MAX];
		const char *sfx = file_dot_cases[i];
		struct stat st;
		int ret;

		in_tree(in, sfx);
		cr_assert(stat(in, &st) == -1 && errno == ENOTDIR, "fixture: stat(T%s) is not ENOTDIR", sfx);
		cr_assert(realpath(in, rp) == NULL && errno == ENOTDIR,
			  "fixture: realpath(T%s) is not ENOTDIR", sfx);
		ret = path_resolve(in, out, PATH_MISSING_ERROR);
		cr_expect_eq(ret, -ENOTDIR, "path_resolve(T%s) returned %d (\"%s\"), want -ENOTDIR",
			     sfx, ret, ret >= 0 ? out : "");
	}
}

Test(path_resolve, invalid_input_einval)
{
	char out[PATH_MAX];

	cr_expect_eq(path_resolve(NULL, out, PATH_MISSING_ERROR), -EINVAL);
	cr_expect_eq(path_resolve("", out, PATH_MISSING_ERROR), -EINVAL);
	cr_expect_eq(path_resolve("a/b", out, PATH_MISSING_ERROR), -EINVAL);
	cr_expect_eq(path_resolve("./a", out, PATH_MISSING_ALLOW), -EINVAL);
}

Test(path_resolve, input_of_path_max_bytes_enametoolong)
{
	char *in = malloc(PATH_MAX);
	char out[PATH_MAX];

	cr_assert_not_null(in);
	fill_path(in, PATH_MAX, 99, 0);
	cr_expect_eq(path_resolve(in, out, PATH_MISSING_ERROR), -ENAMETOOLONG);
	cr_expect_eq(path_resolve(in, out, PATH_MISSING_ALLOW), -ENAMETOOLONG);
	free(in);
}

/* T/<filler> of exactly PATH_MAX - 1 bytes, all of it missing: accepted
 * with ALLOW; through T/s (-> a/b/c, 4 bytes longer) it no longer fits. */
Test(path_resolve, allow_result_at_boundary_accepted_longer_enametoolong)
{
	char in[PATH_MAX], out[PATH_MAX];
	size_t tlen = strlen(T);
	int ret;

	memcpy(in, T, tlen);
	fill_path(in + tlen, PATH_MAX - 1 - tlen, 99, 1);
	cr_assert_eq(strlen(in), PATH_MAX - 1);
	ret = path_resolve(in, out, PATH_MISSING_ALLOW);
	cr_assert_eq(ret, PATH_MAX - 1, "returned %d", ret);
	cr_assert_str_eq(out, in);

	memcpy(in + tlen, "/s/", 3);  /* T/s/aaa...: same length, longer result */
	ret = path_resolve(in, out, PATH_MISSING_ALLOW);
	cr_assert_eq(ret, -ENAMETOOLONG, "returned %d: a truncated result is not an answer", ret);
}

/*
 * T/lt -> "./././..." (4001 bytes, resolves to T) followed by a rest that
 * fills the input to PATH_MAX - 1: target and rest together exceed the walk's
 * buffer although the result (T/<rest>) would fit. Either answer is
 * acceptable - the right path or -ENAMETOOLONG - but never a truncated path
 * and never a buffer overrun (ASan, SANITIZE=1).
 */
Test(path_resolve, long_symlink_target_and_long_rest_not_truncated)
{
	char target[PATH_MAX], in[PATH_MAX], out[PATH_MAX], want[PATH_MAX];
	const size_t target_len = 4001;
	size_t tlen = strlen(T);
	int ret;

	target[0] = '.';
	for (size_t i = 1; i < target_len; i += 2)
		memcpy(target + i, "/.", 2);
	target[target_len] = '\0';
	mk_link(target, "lt");

	memcpy(in, T, tlen);
	fill_path(in + tlen, PATH_MAX - 1 - tlen, 99, 1);
	xsnprintf(want, sizeof(want), "%s", in);        /* T/aaa.../aaa... */
	memmove(in + tlen + 3, in + tlen, PATH_MAX - 1 - tlen - 3);
	memcpy(in + tlen, "/lt", 3);                     /* T/lt/aaa.../a.. */
	in[PATH_MAX - 1] = '\0';
	want[PATH_MAX - 1 - 3] = '\0';
	cr_assert_eq(strlen(in), PATH_MAX - 1);
	cr_assert_neq(want[strlen(want) - 1], '/');

	ret = path_resolve(in, out, PATH_MISSING_ALLOW);
	cr_assert(ret == -ENAMETOOLONG || (ret == (int)strlen(want) && strcmp(out, want) == 0),
		  "returned %d, want -ENAMETOOLONG or %zu", ret, strlen(want));
}

/* errno is preserved on success (readlink failed with EINVAL on every
 * component that was not a link) and on every failure. */
Test(path_resolve, errno_preserved_on_success_and_failure)
{
	static const struct {
		const char *in;
		enum path_missing missing;
		int ret_errno;  /* 0: success */
	} cases[] = {
		{ "/link_b/c",   PATH_MISSING_ERROR, 0 },
		{ "/a/missing/x", PATH_MISSING_ALLOW, 0 },
		{ "/a/missing",  PATH_MISSING_ERROR, ENOENT },
		{ "/a/file/x",   PATH_MISSING_ERROR, ENOTDIR },
		{ "/loop1",      PATH_MISSING_ERROR, ELOOP },
	};

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		char in[PATH_MAX], out[PATH_MAX];
		int ret;

		in_tree(in, cases[i].in);
		errno = ERRNO_SENTINEL;
		ret = path_resolve(in, out, cases[i].missing);
		cr_expect(errno == ERRNO_SENTINEL &&
			  (cases[i].ret_errno ? ret == -cases[i].ret_errno : ret > 0),
			  "path_resolve(T%s): ret %d errno %d, want %d and errno %d", cases[i].in, ret,
			  errno, -cases[i].ret_errno, ERRNO_SENTINEL);
	}
}
