/*
 * bench_pathset.c - cost of one write decision against the path set, by
 * number of roots and by depth of the queried path.
 *
 * For each (roots, depth) cell it times policy_decide_path() on a path
 * beneath one of the roots (allow) and on a path beneath none (deny), in
 * rounds that visit every cell in turn (interleaved, so machine noise
 * spreads over all cells alike), and prints the median ns per decision.
 * The claim to check: the cost does not move with the number of roots and
 * grows at most linearly with depth. Roots are named with a fixed width
 * (/bench/root00042) so that every cell hashes the same number of prefixes
 * and only the size of the table differs between rows; depth counts the
 * components beneath the root (/bench/root00000/d/d: depth 2).
 *
 *   build/bench/bench_pathset [ROUNDS [ITERS]]
 *
 * Besides the table, one line per cell for the bench driver:
 *   @decide ROOTS DEPTH ALLOW_NS DENY_NS
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench.h"

#include "../shim/policy.h"

static long iters = 200000;

static const size_t root_counts[] = { 1, 10, 100, 1000, 10000 };
static const size_t depths[] = { 1, 2, 4, 8, 16, 32, 64 };
#define NR (sizeof(root_counts) / sizeof(root_counts[0]))
#define ND (sizeof(depths) / sizeof(depths[0]))

/* "/bench/root00000/d/d..." with @depth components beneath @prefix. */
static size_t make_path(char *buf, size_t size, const char *prefix, size_t depth)
{
	size_t len = (size_t)snprintf(buf, size, "%s", prefix);

	for (size_t i = 0; i < depth && len + 3 < size; i++)
		len += (size_t)snprintf(buf + len, size - len, "/d");
	return len;
}

static volatile int sink;

static double time_cell(const struct policy *p, const char *path, size_t len)
{
	struct decision d;
	double t0 = now_ns();

	for (long i = 0; i < iters; i++) {
		policy_decide_path(p, OP_WRITE, path, len, &d);
		sink += d.allow;
	}
	return (now_ns() - t0) / (double)iters;
}

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 9;
	if (argc > 2)
		iters = atol(argv[2]);
	static struct policy pol[NR];
	static char allow_path[ND][4096], deny_path[ND][4096];
	static size_t allow_len[ND], deny_len[ND];
	double *t = calloc(NR * ND * 2 * (size_t)(rounds > 0 ? rounds : 1), sizeof(double));

	if (rounds <= 0 || iters <= 0 || !t)
		return 2;
	for (size_t r = 0; r < NR; r++) {
		policy_init(&pol[r]);
		for (size_t i = 0; i < root_counts[r]; i++) {
			char root[64];
			snprintf(root, sizeof(root), "/bench/root%05zu", i);
			pathset_add(&pol[r].paths, root, PATH_WRITE, NULL);
		}
	}
	for (size_t d = 0; d < ND; d++) {
		allow_len[d] = make_path(allow_path[d], sizeof(allow_path[d]), "/bench/root00000", depths[d]);
		deny_len[d] = make_path(deny_path[d], sizeof(deny_path[d]), "/elsewhere/x", depths[d]);
	}

	for (int k = 0; k < rounds; k++)
		for (size_t r = 0; r < NR; r++)
			for (size_t d = 0; d < ND; d++) {
				size_t cell = (r * ND + d) * 2;
				t[(cell + 0) * (size_t)rounds + (size_t)k] =
					time_cell(&pol[r], allow_path[d], allow_len[d]);
				t[(cell + 1) * (size_t)rounds + (size_t)k] =
					time_cell(&pol[r], deny_path[d], deny_len[d]);
			}

	printf("policy_decide_path(OP_WRITE): median ns per decision over %d interleaved rounds\n",
	       rounds);
	printf("%8s %6s %10s %10s\n", "roots", "depth", "allow", "deny");
	for (size_t r = 0; r < NR; r++)
		for (size_t d = 0; d < ND; d++) {
			size_t cell = (r * ND + d) * 2;
			double *a = &t[cell * (size_t)rounds], *b = &t[(cell + 1) * (size_t)rounds];
			qsort(a, (size_t)rounds, sizeof(double), cmp_double);
			qsort(b, (size_t)rounds, sizeof(double), cmp_double);
			printf("%8zu %6zu %10.1f %10.1f\n", root_counts[r], depths[d], a[rounds / 2],
			       b[rounds / 2]);
		}
	for (size_t r = 0; r < NR; r++)
		for (size_t d = 0; d < ND; d++) {
			size_t cell = (r * ND + d) * 2;
			printf("@decide %zu %zu %.2f %.2f\n", root_counts[r], depths[d],
			       t[cell * (size_t)rounds + (size_t)rounds / 2],
			       t[(cell + 1) * (size_t)rounds + (size_t)rounds / 2]);
		}
	for (size_t r = 0; r < NR; r++)
		policy_free(&pol[r]);
	free(t);
	return 0;
}
