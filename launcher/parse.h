/*
 * parse.h - the policy language: files of one directive a line, compiled
 * into a struct policy (shim/policy.h).
 *
 * The same table of directives serves policy files and the command line
 * (`write PATH` in a file is `--write PATH` on the command line). Every
 * error is reported through the context's callback as FILE:LINE: message,
 * parsing goes on so that one run shows all of them, and the caller must
 * reject the policy whole when ctx->errors is not zero.
 *
 * Language (docs/policy.md is the reference):
 *   - one directive a line; `#` at the start of a token begins a comment;
 *   - arguments are separated by blanks; "double quotes" keep blanks, with
 *     \" and \\ as the only escapes;
 *   - paths expand a leading `~`, ${HOME}, ${WORKSPACE}, ${TMPDIR}, and
 *     ${NAME} for variables named by an earlier `expand NAME`; `$$` is `$`;
 *   - lists (write, read-deny, ports, patterns) extend, scalars override.
 */
#ifndef CORDON_PARSE_H
#define CORDON_PARSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>

#include "../shim/policy.h"

#define POLICY_LINE_MAX 8192          /* bytes in one line, newline excluded */
#define POLICY_FILE_MAX (1 << 20)     /* bytes in one policy file */
#define POLICY_INCLUDE_DEPTH 16

typedef void (*policy_error_fn)(void *arg, const char *file, unsigned line, const char *msg);

struct parse_ctx {
	struct policy *pol;
	const char *home;             /* ~ and ${HOME}; NULL: not set */
	const char *workspace;        /* ${WORKSPACE} */
	const char *tmpdir;           /* ${TMPDIR} */
	const char *const *search;    /* policy directories, NULL-terminated */
	char *(*getenv)(const char *name); /* for `expand` variables */
	policy_error_fn error;
	void *error_arg;
	const char *option_origin;    /* "file" of policy_apply_option's rules;
	                                 NULL: "<command line>" */
	bool canonical;               /* paths were resolved already (the
	                                 policy cordon compiled): normalise only */
	unsigned errors;
	/* include stack, for cycles */
	struct {
		dev_t dev;
		ino_t ino;
		const char *name;
	} stack[POLICY_INCLUDE_DEPTH];
	unsigned depth;
};

/* One directive of the language. */
enum arg_type {
	ARG_INCLUDE,      /* one policy name or file */
	ARG_PATHS,        /* one or more paths, `?` prefix: optional */
	ARG_ENUM,         /* one of names[] */
	ARG_PORTS,        /* one or more TCP ports or ranges A-B */
	ARG_PATTERNS,     /* one or more fnmatch(3) patterns */
	ARG_VARS,         /* one or more variable names */
	ARG_DURATION,     /* one duration: N, Ns, Nm, Nh */
	ARG_LOGFILE,      /* one absolute path, or "stderr" */
};

struct directive {
	const char *name;
	enum arg_type type;
	const char *const *names;     /* ARG_ENUM values */
	size_t offset;                /* offsetof(struct policy, ...) of the target */
	int kind;                     /* ARG_PATHS: enum path_kind */
	const char *metavar;
	const char *help;
};

extern const struct directive directives[];

/* The directive called @name (without leading dashes), or NULL. */
const struct directive *directive_find(const char *name);

/* Initialise @ctx to parse into @pol; errors go to stderr unless
 * ctx->error is set afterwards. */
void parse_ctx_init(struct parse_ctx *ctx, struct policy *pol);

/* Load the policy @name: a file when it contains '/', else a name looked up
 * in ctx->search. Returns 0 or -1 (errors reported, ctx->errors counted). */
int policy_load(struct parse_ctx *ctx, const char *name);

/* Parse @len bytes of policy text named @file (used for includes relative
 * to its directory). Returns 0 or -1 as policy_load(). */
int policy_parse_buffer(struct parse_ctx *ctx, const char *file, const char *buf, size_t len);

/* @s as one argument the tokenizer reads back: in quotes (@always, or
 * when it needs them) with \" \\ escaped, and $ as $$ so any path survives
 * the round trip, or left to expand (@vars: a value as the command line
 * gave it). */
void policy_put_arg(FILE *out, const char *s, bool always, bool vars);

/*
 * Write what the shim enforces of @p (write roots, read-deny, sockets,
 * network, subprocess, mode, log) in the policy language, every path
 * resolved and quoted, so that parsing it back gives the same decisions;
 * and the shim setting, so that the audit's digest of it tells a run
 * without the shim from one with it.
 */
int policy_serialize(const struct policy *p, FILE *out);

/*
 * With git-worktree yes and @workspace a linked git worktree (its .git a
 * file "gitdir: X"), add X and the main repository's .git (X/commondir) as
 * write roots: a commit there writes objects and refs into them, and
 * nothing else of the main repository becomes writable.
 */
int policy_add_git_worktree(struct parse_ctx *ctx, const char *workspace);

/* Apply one directive given on the command line as --@name @value. */
int policy_apply_option(struct parse_ctx *ctx, const char *name, const char *value);

#endif /* CORDON_PARSE_H */
