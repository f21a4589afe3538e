/*
 * alloc.c - the allocator of cordon's musl build.
 *
 * musl's allocator gives each size class pages of its own, mapped when the
 * class is first used and unmapped as soon as it is empty again: a run
 * allocates a few hundred small blocks across a dozen classes and paid a
 * dozen mmap/munmap pairs for them, each with the page faults after it,
 * some 20 us a pair on the test machines. cordon allocates little and lives
 * as long as the program it runs, so this allocator keeps what it takes:
 * blocks are powers of two from 16 bytes to 32 KiB, carved from 64 KiB
 * slabs of one size each, and a freed block goes on its size's free list
 * for the next allocation of that size. A slab starts on a 64 KiB boundary
 * with a header naming its size, so free() finds a block's size from its
 * address, and a block of size 2^k is aligned to 2^k. Larger blocks are
 * mapped one by one, with the same header, and unmapped when freed.
 *
 * One lock: the supervisor's connect threads allocate too. cordon forks
 * only while it is single-threaded (before the program starts), so no
 * fork can copy the lock held.
 *
 * Only cordon's musl build defines malloc and its kin with these (musl lets
 * a static program replace them, CORDON_ALLOC_REPLACE); the unit test
 * calls them by their own names.
 */
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>

#include "alloc.h"

#define SLAB_SIZE ((size_t)64 * 1024)
#define MIN_SHIFT 4                 /* 16 bytes, malloc's alignment */
#define MAX_SHIFT 15                /* 32 KiB: larger blocks are mapped alone */
#define N_CLASSES (MAX_SHIFT - MIN_SHIFT + 1)
#define LARGE 0xffu
#define LARGE_OFFSET 64             /* a large block's offset from its header */
#define ARENA_SIZE ((size_t)1 << 20)  /* slabs are carved from this much at a time */

struct slab {
	uint32_t shift;     /* log2 of the block size, or LARGE */
	uint32_t unused;
	size_t map_len;     /* LARGE: the mapping, which starts at map */
	void *map;
};
_Static_assert(sizeof(struct slab) <= LARGE_OFFSET, "a large block's header fits before it");

struct block {
	struct block *next;
};

static struct {
	pthread_mutex_t lock;
	struct block *free[N_CLASSES];
	char *next[N_CLASSES], *end[N_CLASSES];  /* the slab being carved, per class */
	char *arena, *arena_end;                  /* where new slabs come from */
} a = { .lock = PTHREAD_MUTEX_INITIALIZER };

static struct slab *slab_of(const void *p)
{
	return (struct slab *)((uintptr_t)p & ~(uintptr_t)(SLAB_SIZE - 1));
}

/* A mapping of @len bytes starting on a SLAB_SIZE boundary, or NULL. */
static void *map_aligned(size_t len, void **map, size_t *map_len)
{
	size_t total = len + SLAB_SIZE;
	char *m = mmap(NULL, total, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (m == MAP_FAILED)
		return NULL;
	*map = m;
	*map_len = total;
	return (void *)(((uintptr_t)m + SLAB_SIZE - 1) & ~(uintptr_t)(SLAB_SIZE - 1));
}

/* A new slab for blocks of 2^@shift bytes; with the lock held. */
static bool slab_new(unsigned shift)
{
	if (a.arena == a.arena_end) {
		void *map;
		size_t map_len;
		char *start = map_aligned(ARENA_SIZE, &map, &map_len);
		if (!start)
			return false;
		a.arena = start;
		a.arena_end = start + ARENA_SIZE;  /* the mapping's ends are left unused */
	}
	struct slab *s = (struct slab *)a.arena;
	a.arena += SLAB_SIZE;
	s->shift = shift;
	/* The first block lies past the header, on its own size's boundary. */
	size_t size = (size_t)1 << shift;
	size_t first = (sizeof(struct slab) + size - 1) & ~(size - 1);
	unsigned c = shift - MIN_SHIFT;
	a.next[c] = (char *)s + first;
	a.end[c] = (char *)s + SLAB_SIZE;
	return true;
}

static unsigned shift_for(size_t n)
{
	unsigned shift = MIN_SHIFT;

	while (((size_t)1 << shift) < n)
		shift++;
	return shift;
}

static void *large_alloc(size_t n)
{
	void *map;
	size_t map_len;

	if (n > SIZE_MAX - LARGE_OFFSET - SLAB_SIZE) {
		errno = ENOMEM;
		return NULL;
	}
	struct slab *s = map_aligned(n + LARGE_OFFSET, &map, &map_len);
	if (!s) {
		errno = ENOMEM;
		return NULL;
	}
	s->shift = LARGE;
	s->map = map;
	s->map_len = map_len;
	return (char *)s + LARGE_OFFSET;
}

void *cordon_malloc(size_t n)
{
	if (n > ((size_t)1 << MAX_SHIFT))
		return large_alloc(n);
	unsigned shift = shift_for(n ? n : 1), c = shift - MIN_SHIFT;
	void *p = NULL;

	pthread_mutex_lock(&a.lock);
	if (a.free[c]) {
		p = a.free[c];
		a.free[c] = a.free[c]->next;
	} else if ((a.next[c] && a.next[c] + ((size_t)1 << shift) <= a.end[c]) || slab_new(shift)) {
		p = a.next[c];
		a.next[c] += (size_t)1 << shift;
	}
	pthread_mutex_unlock(&a.lock);
	if (!p)
		errno = ENOMEM;
	return p;
}

/* How many bytes the block at @p holds. */
size_t cordon_malloc_usable_size(void *p)
{
	const struct slab *s;

	if (!p)
		return 0;
	s = slab_of(p);
	if (s->shift == LARGE)
		return s->map_len - (size_t)((char *)p - (char *)s->map);
	return (size_t)1 << s->shift;
}

void cordon_free(void *p)
{
	struct slab *s;

	if (!p)
		return;
	s = slab_of(p);
	if (s->shift == LARGE) {
		munmap(s->map, s->map_len);
		return;
	}
	struct block *b = p;
	unsigned c = s->shift - MIN_SHIFT;
	pthread_mutex_lock(&a.lock);
	b->next = a.free[c];
	a.free[c] = b;
	pthread_mutex_unlock(&a.lock);
}

void *cordon_calloc(size_t count, size_t size)
{
	size_t n;
	void *p;

	if (__builtin_mul_overflow(count, size, &n)) {
		errno = ENOMEM;
		return NULL;
	}
	p = cordon_malloc(n);
	/* A large block is a fresh mapping, zero already. */
	if (p && slab_of(p)->shift != LARGE)
		memset(p, 0, n);
	return p;
}

void *cordon_realloc(void *p, size_t n)
{
	if (!p)
		return cordon_malloc(n);
	size_t have = cordon_malloc_usable_size(p);
	if (n <= have && (n > have / 2 || have <= ((size_t)1 << MIN_SHIFT)))
		return p;  /* fits, and not much smaller */
	void *q = cordon_malloc(n);
	if (!q)
		return NULL;
	memcpy(q, p, n < have ? n : have);
	cordon_free(p);
	return q;
}

/* A block of size 2^k is aligned to 2^k within its slab: asking for at
 * least @align bytes aligns it, up to the largest class; a large block is
 * aligned to LARGE_OFFSET. */
void *cordon_aligned_alloc(size_t align, size_t n)
{
	if (!align || (align & (align - 1))) {
		errno = EINVAL;
		return NULL;
	}
	if (align <= ((size_t)1 << MIN_SHIFT))
		return cordon_malloc(n);
	if (n < align)
		n = align;
	if (n > ((size_t)1 << MAX_SHIFT) && align > LARGE_OFFSET) {
		errno = EINVAL;
		return NULL;
	}
	return cordon_malloc(n);
}

#ifdef CORDON_ALLOC_REPLACE
/* The C library's own names, in the static cordon only. */
#include <malloc.h>
#include <stdlib.h>

void *malloc(size_t n)
{
	return cordon_malloc(n);
}

void free(void *p)
{
	cordon_free(p);
}

void *calloc(size_t count, size_t size)
{
	return cordon_calloc(count, size);
}

void *realloc(void *p, size_t n)
{
	return cordon_realloc(p, n);
}

void *aligned_alloc(size_t align, size_t n)
{
	return cordon_aligned_alloc(align, n);
}

int posix_memalign(void **out, size_t align, size_t n)
{
	void *p;

	if (align < sizeof(void *))
		return EINVAL;
	p = cordon_aligned_alloc(align, n);
	if (!p)
		return errno;
	*out = p;
	return 0;
}

void *memalign(size_t align, size_t n)
{
	return cordon_aligned_alloc(align, n);
}

size_t malloc_usable_size(void *p)
{
	return cordon_malloc_usable_size(p);
}
#endif
