/*
 * test_pathset.c - the uthash set of canonical paths: nearest ancestor-or-self
 * lookup at component boundaries, kinds and their data, canonical-only adds,
 * 10,000 members, and reuse after pathset_free.
 *
 * Pure in-memory code: no file system, no fixtures beyond the set itself,
 * which every test frees (LeakSanitizer checks under SANITIZE=1).
 */
#include <criterion/criterion.h>

#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "../../shim/pathset.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define ALL_KINDS ((1u << PATHSET_KINDS) - 1)

static const struct pathset_entry *nearest(const struct pathset *set, const char *path, unsigned mask)
{
	return pathset_nearest(set, path, strlen(path), mask);
}

/* One row: query -> the member expected to answer, or NULL for none. */
struct lookup_case {
	const char *query;
	const char *member;
};

static void check_lookups(const struct pathset *set, const struct lookup_case *cases, size_t n,
			  unsigned mask)
{
	for (size_t i = 0; i < n; i++) {
		const struct pathset_entry *e = nearest(set, cases[i].query, mask);
		const char *want = cases[i].member;

		if (!want) {
			cr_expect_null(e, "nearest(\"%s\") = \"%s\", want none", cases[i].query,
				       e ? e->path : "");
			continue;
		}
		cr_expect_not_null(e, "nearest(\"%s\") = none, want \"%s\"", cases[i].query, want);
		if (e) {
			cr_expect_str_eq(e->path, want, "nearest(\"%s\") = \"%s\", want \"%s\"",
					 cases[i].query, e->path, want);
			cr_expect_eq(e->len, strlen(e->path));
		}
	}
}

/* --- nearest-ancestor lookup --------------------------------------------- */

Test(pathset_nearest, single_root_matches_at_component_boundaries)
{
	static const struct lookup_case cases[] = {
		{ "/a/b",       "/a/b" },
		{ "/a/b/c",     "/a/b" },
		{ "/a/b/c/d",   "/a/b" },
		{ "/a/bc",      NULL },
		{ "/a/bc/d",    NULL },
		{ "/a/b.",      NULL },
		{ "/a",         NULL },
		{ "/ab",        NULL },
		{ "/",          NULL },
		{ "/x/a/b",     NULL },
	};
	struct pathset set = PATHSET_INIT;

	cr_assert_eq(pathset_add(&set, "/a/b", 0, NULL), 0);
	check_lookups(&set, cases, ARRAY_SIZE(cases), ALL_KINDS);
	pathset_free(&set);
}

Test(pathset_nearest, root_slash_matches_everything)
{
	static const struct lookup_case cases[] = {
		{ "/",                   "/" },
		{ "/a",                  "/" },
		{ "/a/b/c",              "/" },
		{ "/very/long/path/x/y", "/" },
	};
	struct pathset set = PATHSET_INIT;

	cr_assert_eq(pathset_add(&set, "/", 0, NULL), 0);
	check_lookups(&set, cases, ARRAY_SIZE(cases), ALL_KINDS);
	pathset_free(&set);
}

/* A file root matches itself; what is "beneath" a file cannot exist, so
 * matching it lexically is harmless. */
Test(pathset_nearest, file_root_matches_itself_only)
{
	static const struct lookup_case cases[] = {
		{ "/a/file",        "/a/file" },
		{ "/a/file/x",      "/a/file" },
		{ "/a/filex",       NULL },
		{ "/a/fil",         NULL },
		{ "/a/file.bak",    NULL },
		{ "/a",             NULL },
		{ "/a/other",       NULL },
	};
	struct pathset set = PATHSET_INIT;

	cr_assert_eq(pathset_add(&set, "/a/file", 1, NULL), 0);
	check_lookups(&set, cases, ARRAY_SIZE(cases), ALL_KINDS);
	pathset_free(&set);
}

Test(pathset_nearest, empty_set_null)
{
	struct pathset set = PATHSET_INIT;

	cr_assert_null(nearest(&set, "/", ALL_KINDS));
	cr_assert_null(nearest(&set, "/a/b", ALL_KINDS));
	cr_assert_null(pathset_get(&set, "/a", 2));
}

/* /a (kind 0, &data_a) and /a/b/c (kind 1, &data_c): the deepest wins. */
Test(pathset_nearest, nested_members_deepest_wins)
{
	static const int data_a = 'a', data_c = 'c';
	static const struct lookup_case cases[] = {
		{ "/a/b/c/x",   "/a/b/c" },
		{ "/a/b/c",     "/a/b/c" },
		{ "/a/b/x",     "/a" },
		{ "/a/b",       "/a" },
		{ "/a/b/cx",    "/a" },
		{ "/a",         "/a" },
		{ "/b",         NULL },
	};
	struct pathset set = PATHSET_INIT;
	const struct pathset_entry *e;

	cr_assert_eq(pathset_add(&set, "/a", 0, &data_a), 0);
	cr_assert_eq(pathset_add(&set, "/a/b/c", 1, &data_c), 0);
	check_lookups(&set, cases, ARRAY_SIZE(cases), ALL_KINDS);

	e = nearest(&set, "/a/b/c/x", ALL_KINDS);
	cr_assert_not_null(e);
	cr_assert_eq(e->kinds, 1u << 1);
	cr_assert_eq(e->data[1], &data_c);
	cr_assert_null(e->data[0]);

	e = nearest(&set, "/a/b/x", ALL_KINDS);
	cr_assert_not_null(e);
	cr_assert_eq(e->kinds, 1u << 0);
	cr_assert_eq(e->data[0], &data_a);
	cr_assert_null(e->data[1]);
	pathset_free(&set);
}

/* A member whose kinds miss the mask is skipped; a shallower one matches. */
Test(pathset_nearest, kind_mask_skips_nonmatching_members)
{
	static const int data_root = 0, data_a = 1, data_c = 2;
	struct pathset set = PATHSET_INIT;
	const struct pathset_entry *e;
	static const struct {
		const char *query;
		unsigned mask;
		const char *member;
		unsigned kind;  /* whose data to check */
		const int *data;
	} cases[] = {
		{ "/a/b/c/x", 1u << 1,              "/a/b/c", 1, &data_c },
		{ "/a/b/c/x", 1u << 0,              "/a",     0, &data_a },
		{ "/a/b/c",   1u << 0,              "/a",     0, &data_a },
		{ "/a/b/c/x", 1u << 2,              "/",      2, &data_root },
		{ "/a/b/c/x", (1u << 0) | (1u << 1), "/a/b/c", 1, &data_c },
		{ "/a/b/c/x", (1u << 0) | (1u << 2), "/a",     0, &data_a },
		{ "/a/b/c/x", 1u << 3,              NULL,     0, NULL },
		{ "/a/b/c/x", 0,                    NULL,     0, NULL },
		{ "/z",       1u << 0,              NULL,     0, NULL },
		{ "/z",       1u << 2,              "/",      2, &data_root },
	};

	cr_assert_eq(pathset_add(&set, "/", 2, &data_root), 0);
	cr_assert_eq(pathset_add(&set, "/a", 0, &data_a), 0);
	cr_assert_eq(pathset_add(&set, "/a/b/c", 1, &data_c), 0);

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		e = nearest(&set, cases[i].query, cases[i].mask);
		if (!cases[i].member) {
			cr_expect_null(e, "nearest(\"%s\", %#x) = \"%s\", want none", cases[i].query,
				       cases[i].mask, e ? e->path : "");
			continue;
		}
		cr_expect(e && strcmp(e->path, cases[i].member) == 0 &&
			  e->data[cases[i].kind] == cases[i].data,
			  "nearest(\"%s\", %#x) = \"%s\", want \"%s\" with its kind-%u data",
			  cases[i].query, cases[i].mask, e ? e->path : "none", cases[i].member,
			  cases[i].kind);
	}
	pathset_free(&set);
}

/* Members of very different lengths: lookups skip prefixes outside
 * [min_len, max_len] without missing one inside. */
Test(pathset_nearest, members_of_different_lengths_all_found)
{
	static const struct lookup_case cases[] = {
		{ "/ab",                         "/ab" },
		{ "/ab/x",                       "/ab" },
		{ "/very/long/path/to/root",     "/very/long/path/to/root" },
		{ "/very/long/path/to/root/x/y", "/very/long/path/to/root" },
		{ "/very/long/path/to/rootx",    NULL },
		{ "/very/long/path/to",          NULL },
		{ "/very",                       NULL },
		{ "/a",                          NULL },
		{ "/",                           NULL },
		{ "/mid/dle",                    "/mid/dle" },
		{ "/mid/dle/" "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", "/mid/dle" },
	};
	struct pathset set = PATHSET_INIT;

	cr_assert_eq(pathset_add(&set, "/very/long/path/to/root", 0, NULL), 0);
	cr_assert_eq(pathset_add(&set, "/ab", 0, NULL), 0);
	cr_assert_eq(pathset_add(&set, "/mid/dle", 0, NULL), 0);
	check_lookups(&set, cases, ARRAY_SIZE(cases), ALL_KINDS);
	pathset_free(&set);
}

/* --- pathset_add ---------------------------------------------------------- */

Test(pathset_add, non_canonical_path_einval)
{
	static const char *const bad[] = {
		"", "a", "a/b", ".", "..", "./a",
		"/a/", "/a/b/", "//", "//a", "/a//b", "/a/b//",
		"/.", "/./a", "/a/./b", "/a/.",
		"/..", "/../a", "/a/../b", "/a/..",
	};
	struct pathset set = PATHSET_INIT;

	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		int ret = pathset_add(&set, bad[i], 0, NULL);

		cr_expect_eq(ret, -EINVAL, "pathset_add(\"%s\") returned %d, want -EINVAL", bad[i], ret);
	}
	cr_expect_eq(pathset_add(&set, NULL, 0, NULL), -EINVAL);
	cr_expect_eq(set.count, 0);
	cr_expect_null(set.head);
	cr_expect_null(nearest(&set, "/a/b", ALL_KINDS));
	pathset_free(&set);
}

Test(pathset_add, canonical_lookalikes_accepted)
{
	static const char *const good[] = { "/", "/a", "/a/..b", "/a/b..", "/a/...", "/.a", "/..a/b",
					    "/a/.b/c" };
	struct pathset set = PATHSET_INIT;

	for (size_t i = 0; i < ARRAY_SIZE(good); i++) {
		int ret = pathset_add(&set, good[i], 0, NULL);
		const struct pathset_entry *e;

		cr_expect_eq(ret, 0, "pathset_add(\"%s\") returned %d, want 0", good[i], ret);
		e = pathset_get(&set, good[i], strlen(good[i]));
		cr_expect(e && strcmp(e->path, good[i]) == 0, "pathset_get(\"%s\") after add", good[i]);
	}
	cr_expect_eq(set.count, ARRAY_SIZE(good));
	pathset_free(&set);
}

Test(pathset_add, kind_out_of_range_einval)
{
	static const unsigned bad[] = { PATHSET_KINDS, PATHSET_KINDS + 1, 31, 32, UINT_MAX };
	struct pathset set = PATHSET_INIT;

	for (size_t i = 0; i < ARRAY_SIZE(bad); i++)
		cr_expect_eq(pathset_add(&set, "/a", bad[i], NULL), -EINVAL, "kind %u", bad[i]);
	cr_expect_eq(set.count, 0);
	cr_expect_null(nearest(&set, "/a", ~0u));
	cr_expect_eq(pathset_add(&set, "/a", PATHSET_KINDS - 1, NULL), 0);
	pathset_free(&set);
}

Test(pathset_add, same_path_twice_merges_kinds_keeps_first_data)
{
	static const int x = 1, y = 2, z = 3, w = 4;
	struct pathset set = PATHSET_INIT;
	const struct pathset_entry *e;

	cr_assert_eq(pathset_add(&set, "/a", 0, &x), 0);
	cr_assert_eq(pathset_add(&set, "/a", 0, &y), 0);
	cr_assert_eq(pathset_add(&set, "/a", 2, &z), 0);
	cr_assert_eq(pathset_add(&set, "/a", 2, &w), 0);
	cr_assert_eq(set.count, 1);

	e = pathset_get(&set, "/a", 2);
	cr_assert_not_null(e);
	cr_assert_str_eq(e->path, "/a");
	cr_assert_eq(e->len, 2);
	cr_assert_eq(e->kinds, (1u << 0) | (1u << 2));
	cr_assert_eq(e->data[0], &x);
	cr_assert_eq(e->data[2], &z);
	cr_assert_null(e->data[1]);
	cr_assert_null(e->data[3]);
	cr_assert_eq(nearest(&set, "/a/q", 1u << 2), e);
	cr_assert_null(nearest(&set, "/a/q", 1u << 1));
	pathset_free(&set);
}

/* A NULL first data is still "the first data" of that kind. */
Test(pathset_add, first_data_null_kept)
{
	static const int y = 2;
	struct pathset set = PATHSET_INIT;
	const struct pathset_entry *e;

	cr_assert_eq(pathset_add(&set, "/a", 1, NULL), 0);
	cr_assert_eq(pathset_add(&set, "/a", 1, &y), 0);
	e = pathset_get(&set, "/a", 2);
	cr_assert_not_null(e);
	cr_assert_null(e->data[1]);
	pathset_free(&set);
}

/* --- scale ------------------------------------------------------------------ */

#define MANY 10000

/* /r/0 ... /r/9999 (kind i % PATHSET_KINDS, data i + 1), plus /r/<i>/d/e
 * (kind 0, data MANY + i + 1) for every hundredth i. Correctness only: how
 * fast a lookup is gets measured in bench/, never asserted. */
Test(pathset_nearest, ten_thousand_roots_all_found)
{
	struct pathset set = PATHSET_INIT;
	char p[64], q[64];
	const struct pathset_entry *e;
	size_t deep = 0;

	for (int i = 0; i < MANY; i++) {
		snprintf(p, sizeof(p), "/r/%d", i);
		cr_assert_eq(pathset_add(&set, p, (unsigned)i % PATHSET_KINDS, (const void *)(uintptr_t)(i + 1)),
			     0, "%s", p);
		if (i % 100 == 0) {
			snprintf(p, sizeof(p), "/r/%d/d/e", i);
			cr_assert_eq(pathset_add(&set, p, 0, (const void *)(uintptr_t)(MANY + i + 1)), 0);
			deep++;
		}
	}
	cr_assert_eq(set.count, MANY + deep);

	for (int i = 0; i < MANY; i++) {
		const void *want = (const void *)(uintptr_t)(i + 1);
		unsigned kind = (unsigned)i % PATHSET_KINDS;

		snprintf(p, sizeof(p), "/r/%d", i);
		e = nearest(&set, p, ALL_KINDS);
		cr_assert(e && strcmp(e->path, p) == 0 && e->data[kind] == want, "nearest(%s) = %s", p,
			  e ? e->path : "none");
		cr_assert_eq(pathset_get(&set, p, strlen(p)), e);

		snprintf(q, sizeof(q), "/r/%d/x/y", i);
		cr_assert_eq(nearest(&set, q, ALL_KINDS), e, "nearest(%s)", q);
		/* only this member's kind */
		cr_assert_eq(nearest(&set, q, 1u << kind), e, "nearest(%s, kind %u)", q, kind);
		cr_assert_null(nearest(&set, q, ALL_KINDS & ~(1u << kind)), "nearest(%s, not kind %u)", q,
			       kind);

		if (i % 100 == 0) {
			const void *dwant = (const void *)(uintptr_t)(MANY + i + 1);

			snprintf(q, sizeof(q), "/r/%d/d/e/f", i);
			e = nearest(&set, q, ALL_KINDS);
			snprintf(p, sizeof(p), "/r/%d/d/e", i);
			cr_assert(e && strcmp(e->path, p) == 0 && e->data[0] == dwant, "nearest(%s)", q);
			snprintf(q, sizeof(q), "/r/%d/d", i);
			e = nearest(&set, q, ALL_KINDS);
			snprintf(p, sizeof(p), "/r/%d", i);
			cr_assert(e && strcmp(e->path, p) == 0, "nearest(%s) = %s", q, e ? e->path : "none");
		}
	}

	e = nearest(&set, "/r/5000/x/y", ALL_KINDS);
	cr_assert(e && strcmp(e->path, "/r/5000") == 0);
	cr_assert_null(nearest(&set, "/r/10000", ALL_KINDS));
	cr_assert_null(nearest(&set, "/r/99999", ALL_KINDS));
	cr_assert_null(nearest(&set, "/r/99999/x", ALL_KINDS));
	cr_assert_null(nearest(&set, "/r/50000", ALL_KINDS));
	cr_assert_null(nearest(&set, "/r/0x", ALL_KINDS));
	cr_assert_null(nearest(&set, "/r", ALL_KINDS));
	cr_assert_null(pathset_get(&set, "/r", 2));
	cr_assert_null(nearest(&set, "/", ALL_KINDS));
	cr_assert_null(nearest(&set, "/s/1", ALL_KINDS));
	pathset_free(&set);
}

/* --- pathset_free ----------------------------------------------------------- */

Test(pathset_free, freed_set_empty_and_reusable)
{
	struct pathset set = PATHSET_INIT;
	const struct pathset_entry *e;

	pathset_free(&set);  /* freeing an empty set is fine */
	cr_assert_eq(pathset_add(&set, "/a/b", 0, NULL), 0);
	cr_assert_eq(pathset_add(&set, "/c", 1, NULL), 0);
	cr_assert_eq(pathset_add(&set, "/", 2, NULL), 0);
	pathset_free(&set);

	cr_assert_eq(set.count, 0);
	cr_assert_null(set.head);
	cr_assert_null(nearest(&set, "/a/b/x", ALL_KINDS));
	cr_assert_null(nearest(&set, "/", ALL_KINDS));
	cr_assert_null(pathset_get(&set, "/c", 2));

	/* Reuse: the old members, bounds and kinds are gone. */
	cr_assert_eq(pathset_add(&set, "/zzzzzzz", 3, &set), 0);
	cr_assert_eq(set.count, 1);
	e = nearest(&set, "/zzzzzzz/q", ALL_KINDS);
	cr_assert(e && strcmp(e->path, "/zzzzzzz") == 0 && e->kinds == 1u << 3 && e->data[3] == &set);
	cr_assert_null(nearest(&set, "/a/b/x", ALL_KINDS));
	cr_assert_null(nearest(&set, "/c", ALL_KINDS));
	cr_assert_null(nearest(&set, "/x", ALL_KINDS));

	/* and a shorter member than before still works (min_len reset) */
	cr_assert_eq(pathset_add(&set, "/a", 0, NULL), 0);
	e = nearest(&set, "/a/b/x", ALL_KINDS);
	cr_assert(e && strcmp(e->path, "/a") == 0);
	pathset_free(&set);
	cr_assert_eq(set.count, 0);
}
