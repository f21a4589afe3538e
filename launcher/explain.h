/*
 * explain.h - `cordon explain`: the decision the policy makes on one
 * operation, and the directive that made it.
 */
#ifndef CORDON_EXPLAIN_H
#define CORDON_EXPLAIN_H

#include <stddef.h>
#include <stdio.h>

#include "../shim/policy.h"

/*
 * Decide @op ("read", "write", "connect", "bind") on @target and print the
 * answer to @out. Paths are taken relative to @cwd, `~` is @home.
 * Returns 1 allowed, 0 denied, -1 for a query that cannot be answered
 * (reason in @err).
 */
int explain_query(const struct policy *pol, const char *op, const char *target, const char *cwd,
		  const char *home, FILE *out, char *err, size_t errsize);

/*
 * `cordon explain --last`: each target the last run (lastrun.h) was
 * refused, decided again under @pol, and the lines that would allow what
 * @pol still refuses. Returns 1 when @pol allows them all, 0 when it does
 * not, -1 when there is no readable record (reason in @err).
 */
int explain_last(const struct policy *pol, const char *home, const char *workspace, FILE *out,
		 char *err, size_t errsize);

/* Print the compiled policy: every root and setting with its origin. */
void explain_policy(const struct policy *pol, FILE *out);

/* "FILE:LINE: TEXT", "command line: TEXT" or "built-in default". */
void rule_describe(const struct rule *r, char *buf, size_t size);

#endif /* CORDON_EXPLAIN_H */
