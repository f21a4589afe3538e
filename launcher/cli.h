/*
 * cli.h - the command line, parsed by a function the tests call.
 *
 * cordon COMMAND [OPTIONS] [ARGS...]. Every policy directive is also an
 * option (--write PATH, --net MODE, ...), looked up in the same table
 * (launcher/parse.c); options apply after every --policy, in the order
 * given, so the command line always has the last word.
 */
#ifndef CORDON_CLI_H
#define CORDON_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "parse.h"

#define CLI_MAX_POLICIES 64
#define CLI_MAX_OPTIONS 1024

enum command { CMD_HELP, CMD_VERSION, CMD_EXPLAIN, CMD_RUN, CMD_STATUS, CMD_SELFTEST, CMD_LEARN,
	       CMD_SEATBELT };

struct cli_option {
	const char *name;             /* directive name */
	const char *value;
};

struct cli {
	enum command cmd;
	size_t n_policies;
	size_t n_opts;
	const char *workspace;        /* NULL: the working directory */
	const char *output;           /* learn -o FILE; NULL: stdout */
	bool last;                    /* explain --last */
	int verbose;                  /* -v 1, -vv 2 */
	char **args;                  /* what follows the options */
	int n_args;
	/* Last, and not cleared by cli_parse (n_policies and n_opts say how
	 * much is used): 17 KiB of stack zeroed would be five page faults
	 * at every start. */
	const char *policies[CLI_MAX_POLICIES];
	struct cli_option opts[CLI_MAX_OPTIONS];
};

/* Parse @argv. Returns 0, or -1 with a one-line reason in @err. */
int cli_parse(int argc, char **argv, struct cli *cli, char *err, size_t errsize);

/* Where policies and their variables come from. */
struct load_env {
	const char *home;
	const char *workspace;        /* canonical */
	const char *tmpdir;
	const char *const *search;    /* NULL-terminated policy directories */
};

/*
 * Compile the policies and options of @cli (the policy "default" when none
 * is named) into @pol through @ctx, whose error callback the caller may
 * have set. Returns 0, or -1 when any error was reported: the policy must
 * then not be used.
 */
int cli_compile(const struct cli *cli, const struct load_env *env, struct policy *pol,
		struct parse_ctx *ctx);

void cli_usage(FILE *out);

#endif /* CORDON_CLI_H */
