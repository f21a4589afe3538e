/*
 * pathset.h - a set of canonical paths answering "which member is the
 * nearest ancestor-or-self of P?" in one hash probe per component of P.
 *
 * Built once (pathset_add allocates), then read-only: pathset_nearest()
 * allocates nothing, takes no lock and costs the same for 1 or 10,000
 * members. Each member carries a bit mask of kinds and one opaque pointer
 * per kind (the rule that put it there), so one set serves write roots,
 * read-deny entries and allowed sockets at once.
 */
#ifndef CORDON_PATHSET_H
#define CORDON_PATHSET_H

#include <stddef.h>

#include <uthash.h>

#define PATHSET_KINDS 5

struct pathset_entry {
	UT_hash_handle hh;
	unsigned kinds;                      /* bit (1u << kind) per kind */
	const void *data[PATHSET_KINDS];     /* first data added per kind */
	int fd;                              /* the shim's O_PATH descriptor of
	                                        a write root, opened on first
	                                        use; -1 until then */
	size_t len;
	char path[];                         /* canonical, NUL-terminated */
};

struct pathset {
	struct pathset_entry *head;
	size_t count;
	size_t min_len, max_len;             /* bounds the probes of a lookup */
};

#define PATHSET_INIT { NULL, 0, 0, 0 }

/*
 * Add the canonical absolute @path under @kind (< PATHSET_KINDS) with @data.
 * Adding an existing path merges the kind; the first @data of a kind is kept.
 * Returns 0, -EINVAL for a non-canonical path or bad kind, -ENOMEM.
 */
int pathset_add(struct pathset *set, const char *path, unsigned kind, const void *data);

/*
 * The deepest member that is @path itself or one of its ancestors and has
 * any kind in @kind_mask, or NULL. @path is canonical, of length @len.
 */
const struct pathset_entry *pathset_nearest(const struct pathset *set, const char *path,
					    size_t len, unsigned kind_mask);

/* The member equal to @path, or NULL. */
const struct pathset_entry *pathset_get(const struct pathset *set, const char *path, size_t len);

void pathset_free(struct pathset *set);

#endif /* CORDON_PATHSET_H */
