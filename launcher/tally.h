/*
 * tally.h - what a `cordon run` refused, summed up for the whole run.
 *
 * Every shim in the run sends each refusal to cordon over one datagram
 * socket (CORDON_EVENT_FD; shim.c's report()), whatever the log level, and
 * the supervisor adds its own. At exit cordon says what was refused: a
 * one-line hint when the program failed, the counts by operation and the
 * ten most refused targets (log-summary yes), and the same as JSON for
 * callers (summary FILE), so that "the program failed" and "the program
 * was refused something" can be told apart.
 */
#ifndef CORDON_TALLY_H
#define CORDON_TALLY_H

#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <uthash.h>

#include "../shim/policy.h"

#define TALLY_TOP 10

/* One refused target: every refusal of one operation on one path or
 * address. */
struct tally_target {
	UT_hash_handle hh;
	long count;
	size_t seq;                   /* first seen: ties keep that order */
	enum reason reason;
	const char *why;              /* instead of reason, or NULL */
	const char *layer;            /* "shim" or "supervisor" */
	char *target;                 /* into key, after the op's NUL */
	size_t keylen;
	char key[];                   /* "OP\0TARGET": key is the op */
};

struct tally {
	long denied, warned;          /* refusals enforced; logged only (mode warn) */
	long dropped;                 /* malformed records, or targets past the table's size */
	struct tally_op {
		char name[16];
		long count;
	} ops[16];
	size_t n_ops, n_targets;
	struct tally_target *targets; /* uthash, by op and target */
};

/* One refusal: @verdict "deny", "warn", or "also" (the second end of a
 * rename or link the first end's refusal already counted), @op as logged ("create",
 * "connect"), @target the resolved path or address, @reason why (or @why,
 * a string that outlives the tally, for a refusal that is not the
 * policy's). */
void tally_add(struct tally *t, const char *verdict, const char *op, const char *target,
	       enum reason reason, const char *why, const char *layer);

/* Read every record queued on the datagram socket @fd (not blocking). A
 * refusal a shim held back (the kernel layer's, which the kernel's own log
 * may tell of too: shim.c's kernel_refused) is counted only if @keep(@arg,
 * LINE) says so, having logged LINE ("" when the shim logs nothing); with
 * no @keep, always. */
typedef bool (*tally_keep_fn)(void *arg, const char *line);
void tally_recv(struct tally *t, int fd, tally_keep_fn keep, void *arg);

/* "3 calls refused (create 2, connect 1)" into @buf; "" when nothing was. */
size_t tally_brief(const struct tally *t, char *buf, size_t size);

/* The summary lines (log-summary yes), each starting "cordon: ". */
void tally_print(const struct tally *t, FILE *out);

/* The summary as one JSON object on one line, with the run's outcome
 * (@status the exit status, or -1; @signal, or 0). */
void tally_json(const struct tally *t, FILE *out, int status, int signal, bool timed_out);

/* Every target, most refused first, in a new array of *@n (free it, not
 * its elements); NULL with *@n 0 when there is none or no memory. */
struct tally_target **tally_list(const struct tally *t, size_t *n);

/* What the last run was, for `cordon explain --last`. */
struct tally_run {
	char cmd[1024];               /* the command line, quoted for a shell */
	char cwd[PATH_MAX];
	char when[32];                /* UTC, ISO 8601 */
	char mode[16];                /* enforce, warn */
	int status, signal;           /* -1, 0: unknown */
	bool timed_out;
};

/* Write @t and @run as JSON lines to @out: the run, then one object per
 * target (the format is in docs/cordon.1, FILES). */
void tally_save(const struct tally *t, const struct tally_run *run, FILE *out);

/* Read what tally_save() wrote. Returns 0, or -1 with the reason in @err
 * (a line that is not as tally_save writes it). */
int tally_load(struct tally *t, struct tally_run *run, FILE *in, char *err, size_t errsize);

void tally_free(struct tally *t);

#endif /* CORDON_TALLY_H */
