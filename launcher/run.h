/*
 * run.h - the commands that involve the kernel layer.
 */
#ifndef CORDON_RUN_H
#define CORDON_RUN_H

#include <stdio.h>

#include "../shim/policy.h"
#include "parse.h"

struct tally;

/* -vv: cmd_run also logs the calls the supervisor made for the program. */
extern int run_verbose;

/* Run @argv under @pol; returns the exit status to leave with. @tmpdir is
 * where the private TMPDIR is made. What the run refused is recorded for
 * `explain --last` (lastrun.h) and, when @keep is not NULL, handed over
 * there (tally_free it). Dies (125) on cordon's own failures. */
int cmd_run(struct policy *pol, char **argv, const char *tmpdir, struct tally *keep);

/* Print what this host enforces of @pol, layer by layer. */
int cmd_status(const struct policy *pol, FILE *out);

#endif /* CORDON_RUN_H */
