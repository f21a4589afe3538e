/*
 * pathset.c - uthash-backed set of canonical paths.
 *
 * A lookup hashes prefixes of the query in place (uthash takes a key pointer
 * and a length), so nothing is copied or allocated. Only prefixes that end
 * at a component boundary and lie between the shortest and the longest
 * member are hashed.
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
	const struct pathset_entry *best = NULL, *e;
	size_t stop, i;

	if (!set->count || len == 0 || path[0] != '/')
		return NULL;
	if (set->min_len == 1) {
		e = pathset_get(set, "/", 1);
		if (e && (e->kinds & kind_mask))
			best = e;
	}
	/* Walk forward over the component boundaries, keeping the deepest
	 * match: no member is longer than max_len, so nothing past it can
	 * match, and a deep path under a shallow root costs what a short one
	 * does. */
	stop = len < set->max_len ? len : set->max_len;
	for (i = set->min_len > 1 ? set->min_len : 2; i <= stop; i++) {
		if (i != len && path[i] != '/')
			continue;
		e = pathset_get(set, path, i);
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
