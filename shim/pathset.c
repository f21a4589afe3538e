/*
 * pathset.c - uthash-backed set of canonical paths.
 *
 * A lookup hashes prefixes of the query in place (uthash takes a key pointer
 * and a length), deepest first, so nothing is copied or allocated. Prefixes
 * shorter than the shortest member or longer than the longest are skipped
 * without hashing.
 */
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
	const struct pathset_entry *e;
	size_t n = len;

	if (!set->count || len == 0 || path[0] != '/')
		return NULL;
	/* Prefixes at component boundaries, deepest first: the path itself,
	 * then each position of a '/' (excluding the leading one), then "/". */
	for (;;) {
		if (n >= set->min_len && n <= set->max_len) {
			e = pathset_get(set, path, n);
			if (e && (e->kinds & kind_mask))
				return e;
		}
		if (n == 1)
			return NULL;
		do
			n--;
		while (n > 1 && path[n] != '/');
		if (n < set->min_len)
			return NULL;
	}
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
