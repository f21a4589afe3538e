/*
 * pathset.c - uthash-backed set of canonical paths.
 *
 * A lookup hashes the query once, in place, and probes each prefix that ends
 * at a component boundary and lies between the shortest and the longest
 * member with the hash so far: nothing is copied, allocated or hashed twice.
 */
#include <stdint.h>
#include <stddef.h>

/*
 * FNV-1a, so that a lookup can hash the query once, byte by byte, and probe
 * each prefix with the hash computed so far (HASH_FIND_BYHASHVALUE) instead
 * of hashing every prefix again.
 */
#define FNV_INIT 2166136261u
#define FNV_STEP(h, c) (((h) ^ (unsigned char)(c)) * 16777619u)

static inline unsigned pathset_hash(const void *key, size_t len)
{
	const unsigned char *k = key;
	uint32_t h = FNV_INIT;

	for (size_t i = 0; i < len; i++)
		h = FNV_STEP(h, k[i]);
	return h;
}

#define HASH_FUNCTION(keyptr, keylen, hashv) ((hashv) = pathset_hash(keyptr, keylen))

#include "pathset.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static int is_canonical(const char *p, size_t len)
{
	if (len == 0 || p[0] != '/')
		return 0;
	if (len == 1)
		return 1;
	if (p[len - 1] == '/')
		return 0;
	for (const char *c = p; c < p + len; c++) {
		if (*c != '/')
			continue;
		/* c points at a separator: the component after it. */
		const char *e = c + 1;
		size_t n = strcspn(e, "/");
		if (n == 0 || (n == 1 && e[0] == '.') || (n == 2 && e[0] == '.' && e[1] == '.'))
			return 0;
	}
	return 1;
}

int pathset_add(struct pathset *set, const char *path, unsigned kind, const void *data)
{
	struct pathset_entry *e;
	size_t len;

	if (!set || !path || kind >= PATHSET_KINDS)
		return -EINVAL;
	len = strlen(path);
	if (!is_canonical(path, len))
		return -EINVAL;

	HASH_FIND(hh, set->head, path, len, e);
	if (!e) {
		e = calloc(1, sizeof(*e) + len + 1);
		if (!e)
			return -ENOMEM;
		e->fd = -1;
		e->len = len;
		memcpy(e->path, path, len + 1);
		HASH_ADD_KEYPTR(hh, set->head, e->path, len, e);
		if (set->count == 0 || len < set->min_len)
			set->min_len = len;
		if (len > set->max_len)
			set->max_len = len;
		set->count++;
	}
	if (!(e->kinds & (1u << kind)))
		e->data[kind] = data;
	e->kinds |= 1u << kind;
	return 0;
}

const struct pathset_entry *pathset_get(const struct pathset *set, const char *path, size_t len)
{
	struct pathset_entry *e = NULL;

	if (set->count)
		HASH_FIND(hh, set->head, path, len, e);
	return e;
}

const struct pathset_entry *pathset_nearest(const struct pathset *set, const char *path,
					    size_t len, unsigned kind_mask)
{
	const struct pathset_entry *best = NULL;
	struct pathset_entry *e;
	uint32_t h = FNV_INIT;
	size_t stop;

	if (!set->count || len == 0 || path[0] != '/')
		return NULL;
	/* Walk forward over the path once, hashing as we go, and probe at
	 * each component boundary ("/" itself, then before each '/', then the
	 * whole path), keeping the deepest match: no member is longer than
	 * max_len, so nothing past it can match, and a deep path under a
	 * shallow root costs what a short one does. */
	stop = len < set->max_len ? len : set->max_len;
	for (size_t n = 1; n <= stop; n++) {
		h = FNV_STEP(h, path[n - 1]);
		if (n < set->min_len || (n > 1 && n != len && path[n] != '/'))
			continue;
		HASH_FIND_BYHASHVALUE(hh, set->head, path, n, h, e);
		if (e && (e->kinds & kind_mask))
			best = e;
	}
	return best;
}

void pathset_free(struct pathset *set)
{
	struct pathset_entry *e, *tmp;

	HASH_ITER(hh, set->head, e, tmp) {
		HASH_DEL(set->head, e);
		free(e);
	}
	set->count = set->min_len = set->max_len = 0;
}
