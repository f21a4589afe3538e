/*
 * main.c - the cordon command: gather the environment, parse the command
 * line, compile the policy, dispatch. Only this file exits.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../jail/sbpl.h"
#include "../shim/mem.h"
#include "../shim/path.h"
#include "cli.h"
#include "explain.h"
#include "learn.h"
#include "run.h"
#include "util.h"

#ifndef CORDON_VERSION
#define CORDON_VERSION "0.0.0"
#endif
#ifndef CORDON_SYSCONFDIR
#define CORDON_SYSCONFDIR "/etc/cordon"
#endif
#ifndef CORDON_DATADIR
#define CORDON_DATADIR "/usr/local/share/cordon"
#endif

/* Policy directories, in search order: next to an uninstalled binary
 * (build/../policy.d; for SANITIZE=1's build/san/cordon the same one, beside
 * build/), the administrator's, the installed ones. launcher/cordon.bash
 * offers the names of the same directories. */
static void search_dirs(const char *dirs[4], char exe_rel[PATH_MAX])
{
	static const char san[] = "/build/san";
	const size_t san_len = sizeof(san) - 1;
	char exe[PATH_MAX], joined[PATH_MAX];
	struct stat st;
	size_t n = 0;
	ssize_t len = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

	if (len > 0) {
		exe[len] = '\0';
		char *slash = strrchr(exe, '/');
		size_t dir = slash ? (size_t)(slash - exe) : 0;
		/* /proc/self/exe is canonical: no symbolic link to see through. */
		if (dir >= san_len && memcmp(exe + dir - san_len, san, san_len) == 0)
			dir -= sizeof("/san") - 1;
		if (slash && (size_t)snprintf(joined, sizeof(joined), "%.*s/../policy.d", (int)dir,
					      exe) < sizeof(joined) &&
		    path_normalize(joined, exe_rel) > 0 && stat(exe_rel, &st) == 0 &&
		    S_ISDIR(st.st_mode))
			dirs[n++] = exe_rel;
	}
	dirs[n++] = CORDON_SYSCONFDIR "/policy.d";
	dirs[n++] = CORDON_DATADIR "/policy.d";
	dirs[n] = NULL;
}

static int cmd_explain(const struct cli *cli, const struct policy *pol, const char *cwd,
		       const char *home, const char *workspace)
{
	char err[PATH_MAX + 256];

	if (cli->last) {
		if (cli->n_args)
			die("unable to explain '%s' with --last: give either OP TARGET pairs or --last",
			    cli->args[0]);
		int r = explain_last(pol, home, workspace, stdout, err, sizeof(err));
		if (r < 0)
			die("unable to explain the last run: %s", err);
		return r ? 0 : 1;
	}
	if (cli->n_args == 0) {
		explain_policy(pol, stdout);
		return 0;
	}
	if (cli->n_args % 2)
		die("unable to explain '%s': expected OP TARGET pairs (OP: read, write, connect, bind)",
		    cli->args[cli->n_args - 1]);
	for (int i = 0; i < cli->n_args; i += 2) {
		if (explain_query(pol, cli->args[i], cli->args[i + 1], cwd, home, stdout, err,
				  sizeof(err)) < 0)
			die("unable to explain %s %s: %s", cli->args[i], cli->args[i + 1], err);
	}
	return 0;
}

/* The profile a macOS run would apply, to stdout. */
static int cmd_seatbelt(const struct cli *cli, const struct policy *pol)
{
	char err[256];

	if (cli->n_args)
		die("unable to use '%s': cordon seatbelt takes options only", cli->args[0]);
	/* Whole or not at all: nothing on stdout when it cannot be made. */
	char *text = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&text, &len);
	if (!m)
		die_errno("unable to make the Seatbelt profile");
	int r = sbpl_profile(pol, sbpl_stat_is_dir, m, err, sizeof(err));
	if (fclose(m) != 0 && r == 0)
		die_errno("unable to make the Seatbelt profile");
	if (r < 0)
		die("unable to make the Seatbelt profile: %s", err);
	if (fwrite(text, 1, len, stdout) != len || fflush(stdout) != 0)
		die_errno("unable to print the Seatbelt profile");
	free(text);
	return 0;
}

int main(int argc, char **argv)
{
	char err[512], cwd[PATH_MAX], workspace[PATH_MAX], exe_rel[PATH_MAX];
	const char *dirs[4];
	struct cli cli;
	struct policy pol;
	struct parse_ctx ctx;
	int n, ret;

	if (cli_parse(argc, argv, &cli, err, sizeof(err)) < 0)
		die("%s", err);
	if (cli.cmd == CMD_HELP) {
		cli_usage(stdout);
		return 0;
	}
	if (cli.cmd == CMD_VERSION) {
		printf("cordon %s\n", CORDON_VERSION);
		return 0;
	}
	/* Parsing a policy reaches about 110 KiB down (util.c). */
	/* The policy parser nests deep (do_include, policy_parse_buffer,
	 * add_path, path_resolve: a dozen PATH_MAX buffers at once): 126
	 * page faults per `cordon run` became 112, `cordon explain` 2.64 ->
	 * 2.57 ms. */
	stack_populate(argv, 112 * 1024);

	if (!getcwd(cwd, sizeof(cwd)))
		die_errno("unable to get the working directory");
	n = path_resolve(cli.workspace ? cli.workspace : cwd, workspace, PATH_MISSING_ERROR);
	if (cli.workspace && cli.workspace[0] != '/' && n == -EINVAL)
		n = path_absolute(cwd, cli.workspace, err) < 0
			    ? -EINVAL : path_resolve(err, workspace, PATH_MISSING_ERROR);
	if (n < 0)
		die("unable to use workspace '%s': %s", cli.workspace ? cli.workspace : cwd,
		    strerror(-n));

	const char *tmpdir = getenv("TMPDIR");
	struct load_env env = {
		.home = getenv("HOME"),
		.workspace = workspace,
		.tmpdir = tmpdir && *tmpdir ? tmpdir : "/tmp",
		.search = dirs,
	};
	search_dirs(dirs, exe_rel);

	policy_init(&pol);
	parse_ctx_init(&ctx, &pol);
	if (cli_compile(&cli, &env, &pol, &ctx) < 0)
		die("unable to use the policy: %u error%s above; nothing was run", ctx.errors,
		    ctx.errors == 1 ? "" : "s");
	if (policy_add_devices(&pol) < 0)
		die("unable to use the policy: out of memory");

	/* learn and explain --last compare paths with ~: the canonical one. */
	char home_real[PATH_MAX];
	const char *home = env.home && realpath(env.home, home_real) ? home_real : env.home;
	run_verbose = cli.verbose;
	switch (cli.cmd) {
	case CMD_RUN:
		ret = cmd_run(&pol, cli.args, env.tmpdir, NULL);
		break;
	case CMD_LEARN:
		ret = cmd_learn(&cli, &pol, home, workspace, env.tmpdir);
		break;
	case CMD_STATUS:
		ret = cmd_status(&pol, stdout);
		break;
	case CMD_SEATBELT:
		ret = cmd_seatbelt(&cli, &pol);
		break;
	case CMD_SELFTEST:
		ret = cmd_run(&pol, (char *[]){ "true", NULL }, env.tmpdir, NULL);
		if (ret == 0)
			printf("selftest: the kernel layer refused a write outside the write roots%s\n",
			       pol.subprocess.value ? "" : " and a fork");
		break;
	case CMD_EXPLAIN:
	case CMD_HELP:
	case CMD_VERSION:
	default:
		ret = cmd_explain(&cli, &pol, cwd, home, workspace);
		break;
	}
	policy_free(&pol);
	return ret;
}
