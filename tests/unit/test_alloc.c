/*
 * test_alloc.c - the allocator cordon's musl build uses (launcher/alloc.c),
 * called by its own names: what malloc, calloc, realloc, free and
 * aligned_alloc promise, blocks kept apart, and freed blocks used again.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../launcher/alloc.h"

static void fill(unsigned char *p, size_t n, unsigned seed)
{
	for (size_t i = 0; i < n; i++)
		p[i] = (unsigned char)(seed * 31 + i);
}

static bool intact(const unsigned char *p, size_t n, unsigned seed)
{
	for (size_t i = 0; i < n; i++)
		if (p[i] != (unsigned char)(seed * 31 + i))
			return false;
	return true;
}

/* Every size from nothing to past the largest class, all alive at once:
 * aligned for any type, as large as asked, and none overlapping another
 * (each keeps what was written into it until the end). */
Test(alloc, blocks_are_aligned_big_enough_and_apart)
{
	enum { N = 600 };
	unsigned char *p[N];
	size_t size[N];

	for (unsigned i = 0; i < N; i++) {
		size[i] = i < 300 ? i : (size_t)i * 117;  /* up to ~70 KB: mapped alone */
		p[i] = cordon_malloc(size[i]);
		cr_assert_not_null(p[i], "malloc(%zu)", size[i]);
		cr_expect_eq((uintptr_t)p[i] % 16, 0, "malloc(%zu) = %p", size[i], (void *)p[i]);
		cr_expect_geq(cordon_malloc_usable_size(p[i]), size[i]);
		fill(p[i], size[i], i);
	}
	for (unsigned i = 0; i < N; i++) {
		cr_expect(intact(p[i], size[i], i), "block %u (%zu bytes) was overwritten", i, size[i]);
		cordon_free(p[i]);
	}
	cordon_free(NULL);
}

/* A freed block serves the next allocation of its size: a loop that
 * allocates and frees takes no more memory. */
Test(alloc, freed_blocks_are_used_again)
{
	void *first = cordon_malloc(100);

	cr_assert_not_null(first);
	cordon_free(first);
	for (int i = 0; i < 1000; i++) {
		void *p = cordon_malloc(100);
		cr_assert_eq(p, first, "round %d: %p, not the freed %p", i, p, first);
		cordon_free(p);
	}
}

Test(alloc, realloc_keeps_the_contents)
{
	unsigned char *p = cordon_realloc(NULL, 10);

	cr_assert_not_null(p);
	fill(p, 10, 7);
	for (size_t n = 20; n < 200000; n *= 3) {
		p = cordon_realloc(p, n);
		cr_assert_not_null(p, "realloc to %zu", n);
		cr_expect(intact(p, 10, 7), "grown to %zu: the first bytes changed", n);
	}
	p = cordon_realloc(p, 5);
	cr_assert_not_null(p);
	cr_expect(intact(p, 5, 7), "shrunk to 5: the first bytes changed");
	cordon_free(p);
}

Test(alloc, calloc_zeroes_reused_blocks_and_refuses_overflow)
{
	unsigned char *dirty = cordon_malloc(256);

	cr_assert_not_null(dirty);
	memset(dirty, 0xa5, 256);
	cordon_free(dirty);
	unsigned char *p = cordon_calloc(16, 16);
	cr_assert_not_null(p);
	for (int i = 0; i < 256; i++)
		cr_assert_eq(p[i], 0, "byte %d is %#x", i, p[i]);
	cordon_free(p);

	errno = 0;
	cr_expect_null(cordon_calloc(SIZE_MAX / 2, 3));
	cr_expect_eq(errno, ENOMEM);
}

Test(alloc, aligned_alloc_aligns_or_says_why_not)
{
	for (size_t align = 1; align <= 4096; align *= 2) {
		for (size_t n = 1; n <= 5000; n = n * 5 + 3) {
			void *p = cordon_aligned_alloc(align, n);
			cr_assert_not_null(p, "aligned_alloc(%zu, %zu)", align, n);
			cr_expect_eq((uintptr_t)p % align, 0, "aligned_alloc(%zu, %zu) = %p", align, n, p);
			cr_expect_geq(cordon_malloc_usable_size(p), n);
			cordon_free(p);
		}
	}
	errno = 0;
	cr_expect_null(cordon_aligned_alloc(24, 8));
	cr_expect_eq(errno, EINVAL);
}

/* The supervisor's threads allocate and free at once: no block is handed
 * to two of them. */
static void *churn(void *arg)
{
	unsigned seed = (unsigned)(uintptr_t)arg, bad = 0;
	unsigned char *live[64] = { 0 };
	size_t size[64] = { 0 };

	for (unsigned i = 0; i < 100000; i++) {
		unsigned k = (seed + i * 7919u) % 64;
		if (live[k]) {
			bad += !intact(live[k], size[k], seed + k);
			cordon_free(live[k]);
		}
		size[k] = (i * 2654435761u >> 20) % 3000;
		live[k] = cordon_malloc(size[k]);
		if (!live[k])
			return (void *)(uintptr_t)1;
		fill(live[k], size[k], seed + k);
	}
	for (unsigned k = 0; k < 64; k++) {
		bad += !intact(live[k], size[k], seed + k);
		cordon_free(live[k]);
	}
	return (void *)(uintptr_t)bad;
}

Test(alloc, threads_never_share_a_block)
{
	pthread_t t[4];

	for (uintptr_t i = 0; i < 4; i++)
		cr_assert_eq(pthread_create(&t[i], NULL, churn, (void *)(i * 1000)), 0);
	for (int i = 0; i < 4; i++) {
		void *bad;
		pthread_join(t[i], &bad);
		cr_expect_eq((uintptr_t)bad, 0, "thread %d found %lu blocks overwritten", i,
			     (unsigned long)(uintptr_t)bad);
	}
}
