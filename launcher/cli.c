/*
 * cli.c - command-line parsing and policy compilation for the commands.
 *
 * cli_parse() only classifies arguments and bounds their number; it does
 * not touch the file system, so every error it reports is about the
 * command line itself. cli_compile() does the loading.
 */
#include "cli.h"

#include <stdio.h>
#include <stddef.h>
#include <string.h>

#include "util.h"

/* Options that are shorthand for a directive with a fixed value. */
static const struct {
	const char *option;
	const char *directive;
	const char *value;
} aliases[] = {
	{ "no-subprocess", "subprocess", "no" },  /* --subprocess no */
};

void cli_usage(FILE *out)
{
	fputs("usage: cordon run [OPTIONS] [--] PROGRAM [ARGS]...\n"
	      "       cordon explain [OPTIONS] [OP TARGET]...\n"
	      "       cordon explain [OPTIONS] --last\n"
	      "       cordon learn [OPTIONS] [-o FILE] [--] PROGRAM [ARGS]...\n"
	      "       cordon status [OPTIONS]\n"
	      "       cordon seatbelt [OPTIONS]\n"
	      "       cordon selftest [OPTIONS]\n"
	      "       cordon --help | --version\n"
	      "\n"
	      "run: run PROGRAM under the policy: the shim (libcordon.so) loaded, the\n"
	      "kernel layer (Landlock, seccomp, namespaces) applied, cordon supervising.\n"
	      "Exit status: the program's; 124 timeout, 125 cordon failed, 126 not\n"
	      "executable, 127 not found.\n"
	      "\n"
	      "status: what this host enforces, and which layer enforces each feature\n"
	      "of the policy. selftest: prove the kernel layer refuses, verbosely.\n"
	      "\n"
	      "explain: print the compiled policy, or for each OP TARGET the decision and\n"
	      "the rule that made it. OP is read, write, connect or bind; TARGET is a path\n"
	      "(relative to the working directory), HOST:PORT, [IPV6]:PORT, udp:HOST:PORT,\n"
	      "unix:PATH or unix:@ABSTRACT. With --last: each target the last run was\n"
	      "refused, decided again under the policy given, and the lines that would\n"
	      "allow what it still refuses (exit 1 while something is still refused).\n"
	      "\n"
	      "seatbelt: print the Seatbelt profile (macOS's sandbox language) a run\n"
	      "under the policy applies on macOS; on any platform, for review.\n"
	      "\n"
	      "learn: run PROGRAM in mode warn (the shim records, nothing is refused,\n"
	      "the kernel layer is off) and write the policy that would let that run\n"
	      "pass: the policies given, plus a commented line for each access they\n"
	      "refused. Exit status: the program's.\n"
	      "\n"
	      "options:\n"
	      "  --policy NAME|FILE     policy to load (repeatable; default: default)\n"
	      "  --workspace DIR        value of ${WORKSPACE} (default: working directory)\n"
	      "  --no-subprocess        same as --subprocess no\n"
	      "  -v, -vv                -v: --log all (allowed calls too); -vv: also the calls\n"
	      "                         the supervisor made for the program\n"
	      "  --last                 explain: the last run's refusals (see FILES in cordon(1))\n"
	      "  -o, --output FILE      learn: write the policy to FILE (default: stdout)\n",
	      out);
	for (const struct directive *d = directives; d->name; d++) {
		char left[64];
		if (d->type == ARG_INCLUDE)
			continue;
		snprintf(left, sizeof(left), "--%s %s", d->name, d->metavar);
		fprintf(out, "  %-22s %s\n", left, d->help);
	}
	fputs("\nEvery option is also a policy directive; options apply after all policies.\n"
	      "See cordon(1) and docs/policy.md.\n",
	      out);
}

/* "--name=value" or "--name value": split into @name (copied) and @value. */
static int option_value(int argc, char **argv, int *i, const char *arg, char *name,
			size_t namesize, const char **value, char *err, size_t errsize)
{
	const char *eq = strchr(arg, '=');
	size_t n = eq ? (size_t)(eq - arg) : strlen(arg);

	if (n >= namesize)
		return errf(err, errsize, "unknown option '--%.32s...'", arg);
	memcpy(name, arg, n);
	name[n] = '\0';
	if (eq) {
		*value = eq + 1;
		return 0;
	}
	*value = NULL;
	if (*i + 1 < argc) {
		*value = argv[++*i];
		return 0;
	}
	return 0;
}

int cli_parse(int argc, char **argv, struct cli *cli, char *err, size_t errsize)
{
	int i = 1;

	memset(cli, 0, offsetof(struct cli, policies));
	if (argc < 2 || !argv[1])
		return errf(err, errsize, "no command given (try cordon --help)");
	if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 ||
	    strcmp(argv[1], "help") == 0) {
		cli->cmd = CMD_HELP;
		return 0;
	}
	if (strcmp(argv[1], "--version") == 0) {
		cli->cmd = CMD_VERSION;
		return 0;
	}
	static const struct {
		const char *name;
		enum command cmd;
	} commands[] = {
		{ "explain", CMD_EXPLAIN },
		{ "run", CMD_RUN },
		{ "status", CMD_STATUS },
		{ "selftest", CMD_SELFTEST },
		{ "learn", CMD_LEARN },
		{ "seatbelt", CMD_SEATBELT },
	};
	size_t c;
	for (c = 0; c < sizeof(commands) / sizeof(commands[0]); c++)
		if (strcmp(argv[1], commands[c].name) == 0)
			break;
	if (c == sizeof(commands) / sizeof(commands[0]))
		return errf(err, errsize, "unknown command '%s' (try cordon --help)", argv[1]);
	cli->cmd = commands[c].cmd;

	for (i = 2; i < argc; i++) {
		const char *arg = argv[i];
		char name[64];
		const char *value = NULL;

		if (!arg)
			return errf(err, errsize, "argument %d is NULL", i);
		if (strcmp(arg, "--") == 0) {
			i++;
			break;
		}
		if (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0) {
			cli->cmd = CMD_HELP;
			return 0;
		}
		if (arg[0] != '-' || arg[1] == '\0')
			break;
		if (strcmp(arg, "-v") == 0 || strcmp(arg, "-vv") == 0) {
			if (cli->n_opts == CLI_MAX_OPTIONS)
				return errf(err, errsize, "too many options (at most %d)", CLI_MAX_OPTIONS);
			cli->verbose += arg[2] ? 2 : 1;
			cli->opts[cli->n_opts].name = "log";
			cli->opts[cli->n_opts++].value = "all";
			continue;
		}
		if (strcmp(arg, "--last") == 0) {
			if (cli->cmd != CMD_EXPLAIN)
				return errf(err, errsize, "option --last is for cordon explain");
			cli->last = true;
			continue;
		}
		if (strcmp(arg, "-o") == 0 || strcmp(arg, "--output") == 0 ||
		    strncmp(arg, "--output=", 9) == 0) {
			const char *v = arg[1] == 'o' ? argv[++i] : arg[8] == '=' ? arg + 9 : argv[++i];
			if (cli->cmd != CMD_LEARN)
				return errf(err, errsize, "option %.8s is for cordon learn", arg);
			if (i >= argc || !v || !*v)
				return errf(err, errsize, "option %.8s needs a FILE", arg);
			cli->output = v;
			continue;
		}
		if (arg[1] != '-')
			return errf(err, errsize, "unknown option '%s' (options are long: --name)", arg);

		size_t a;
		for (a = 0; a < sizeof(aliases) / sizeof(aliases[0]); a++)
			if (strcmp(arg + 2, aliases[a].option) == 0)
				break;
		if (a < sizeof(aliases) / sizeof(aliases[0])) {
			if (cli->n_opts == CLI_MAX_OPTIONS)
				return errf(err, errsize, "too many options (at most %d)", CLI_MAX_OPTIONS);
			cli->opts[cli->n_opts].name = aliases[a].directive;
			cli->opts[cli->n_opts++].value = aliases[a].value;
			continue;
		}

		if (option_value(argc, argv, &i, arg + 2, name, sizeof(name), &value, err, errsize) < 0)
			return -1;
		if (strcmp(name, "policy") == 0) {
			if (!value)
				return errf(err, errsize, "option --policy needs a NAME or FILE");
			if (cli->n_policies == CLI_MAX_POLICIES)
				return errf(err, errsize, "too many --policy (at most %d)",
					    CLI_MAX_POLICIES);
			cli->policies[cli->n_policies++] = value;
			continue;
		}
		if (strcmp(name, "workspace") == 0) {
			if (!value)
				return errf(err, errsize, "option --workspace needs a DIR");
			cli->workspace = value;
			continue;
		}
		const struct directive *d = directive_find(name);
		if (!d || d->type == ARG_INCLUDE)
			return errf(err, errsize, "unknown option '--%s' (try cordon --help)", name);
		if (!value)
			return errf(err, errsize, "option --%s needs %s", name, d->metavar);
		if (cli->n_opts == CLI_MAX_OPTIONS)
			return errf(err, errsize, "too many options (at most %d)", CLI_MAX_OPTIONS);
		cli->opts[cli->n_opts].name = d->name;
		cli->opts[cli->n_opts++].value = value;
	}
	cli->args = argv + i;
	cli->n_args = argc - i;
	return 0;
}

int cli_compile(const struct cli *cli, const struct load_env *env, struct policy *pol,
		struct parse_ctx *ctx)
{
	ctx->pol = pol;
	ctx->home = env->home;
	ctx->workspace = env->workspace;
	ctx->tmpdir = env->tmpdir;
	ctx->search = env->search;

	if (cli->n_policies == 0)
		policy_load(ctx, "default");
	for (size_t i = 0; i < cli->n_policies; i++)
		policy_load(ctx, cli->policies[i]);
	for (size_t i = 0; i < cli->n_opts; i++)
		policy_apply_option(ctx, cli->opts[i].name, cli->opts[i].value);
	if (!ctx->errors)
		policy_add_git_worktree(ctx, env->workspace);
	return ctx->errors ? -1 : 0;
}
