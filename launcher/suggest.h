/*
 * suggest.h - from what a run was refused, the policy lines that would
 * have let it pass.
 *
 * `cordon learn` writes them as a policy; `cordon explain --last` prints
 * them for the last run. Each refused target is decided again under the
 * policy at hand (what it now allows needs no line), then:
 *
 *   - a file written in place needs `write FILE`; an entry created,
 *     removed, renamed or linked needs `write DIR` on its directory (that
 *     is what the kernel checks); a path that no longer exists is replaced
 *     by its nearest existing ancestor, since a root must exist;
 *   - roots beneath another root go; three or more roots in one directory
 *     become that directory, unless it is /, a directory directly under /,
 *     ~ or above it, or holds a read-deny entry;
 *   - a unix socket needs `unix-socket PATH`, a TCP port `net-connect` or
 *     `net-bind`, anything else on the network `net all`, a subprocess
 *     `subprocess yes`;
 *   - a read-deny, write-deny or device refusal needs the policy changed,
 *     not extended: it is listed as such, never "learned".
 */
#ifndef CORDON_SUGGEST_H
#define CORDON_SUGGEST_H

#include <stdbool.h>
#include <stdio.h>

#include "../shim/policy.h"
#include "tally.h"

struct suggest_line {
	char directive[16];           /* write, unix-socket, net-connect, net-bind, net, subprocess */
	char *arg;                    /* canonical path, port or value */
	char *shown;                  /* arg as a policy writes it (~, ${WORKSPACE}, quotes) */
	char *because;                /* which accesses put it there */
	bool broad;                   /* /, ~ or an ancestor of ~ */
	char *contains_read_deny;     /* a read-deny entry beneath it, or NULL */
};

struct suggest_entry {
	const struct tally_target *t;
	struct decision d;            /* under the policy at hand */
	bool decided;                 /* false: the target could not be decided again */
	int line;                     /* the line that allows it, or -1 */
	const char *unlearnable;      /* why no added line allows it, or NULL */
};

struct suggest {
	struct suggest_line *lines;
	size_t n_lines;
	struct suggest_entry *entries; /* one per target, most refused first */
	size_t n_entries;
	size_t n_allowed;             /* targets the policy at hand allows */
	size_t n_unlearnable;
};

/*
 * Build the lines that would allow every target of @t that @pol refuses.
 * @home and @workspace (canonical; either may be NULL) shorten the paths
 * shown. Returns 0, or -1 when out of memory.
 */
int suggest_build(struct suggest *s, const struct tally *t, const struct policy *pol,
		  const char *home, const char *workspace);

/* Each line as a policy directive, with what put it there in a comment
 * above (@comments) and, always, a NOTE for a line that opens ~ or / or
 * holds a read-deny entry; every line starts with @indent. */
void suggest_print(const struct suggest *s, FILE *out, const char *indent, bool comments);

/* @s inside a comment line: line breaks shown as '?', so it stays one. */
void suggest_put_comment(FILE *out, const char *s);

void suggest_free(struct suggest *s);

#endif /* CORDON_SUGGEST_H */
