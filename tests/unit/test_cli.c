/*
 * test_cli.c - the command line (launcher/cli.c) and the real binary.
 *
 * cli_parse() is called directly with argument vectors; cli_compile() with
 * policy files in a temporary tree; then "$CORDON_BUILD/cordon" is run
 * (fork + exec) with its working directory, HOME and output files in that
 * tree, and its exit status and output are checked exactly:
 *
 *   $R/             mkdtemp("/tmp/cordon-cli-XXXXXX"), canonical
 *     home/         HOME of the child
 *     ws/           the child's working directory: the workspace
 *     out, err      the child's stdout and stderr
 *     *.policy      policies written by the tests
 */
#include <criterion/criterion.h>

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../../launcher/cli.h"
#include "fixture.h"

static char root[512], home[600], ws[600], bin[PATH_MAX], src[PATH_MAX];
static struct cli cli;
static char err[512];

/* --- fixture ------------------------------------------------------------------ */

static void setup(void)
{
	char tmpl[] = "/tmp/cordon-cli-XXXXXX";
	const char *build = getenv("CORDON_BUILD");
	const char *s = getenv("CORDON_SRC");
	char rel[PATH_MAX];

	cr_assert_not_null(mkdtemp(tmpl), "mkdtemp: %s", strerror(errno));
	cr_assert_not_null(realpath(tmpl, root));
	snprintf(home, sizeof(home), "%s/home", root);
	snprintf(ws, sizeof(ws), "%s/ws", root);
	cr_assert_eq(mkdir(home, 0755), 0);
	cr_assert_eq(mkdir(ws, 0755), 0);
	/* CORDON_BUILD is relative to the repository root, the cwd of make. */
	snprintf(rel, sizeof(rel), "%s/cordon", build && *build ? build : "build");
	cr_assert_not_null(realpath(rel, bin), "no binary %s: %s", rel, strerror(errno));
	cr_assert_not_null(realpath(s && *s ? s : ".", src));
	memset(err, 0, sizeof(err));
}

static void teardown(void)
{
	if (strncmp(root, "/tmp/cordon-cli-", 16) == 0)
		fixture_rmtree(root);
}

static void write_policy(char out[PATH_MAX], const char *name, const char *text)
{
	FILE *f;

	snprintf(out, PATH_MAX, "%s/%s", root, name);
	f = fopen(out, "w");
	cr_assert_not_null(f);
	fputs(text, f);
	cr_assert_eq(fclose(f), 0);
}

#define ARGC(v) ((int)(sizeof(v) / sizeof((v)[0])))

/* --- cli_parse ------------------------------------------------------------------ */

Test(cli_parse, no_command_fails)
{
	char *argv[] = { "cordon", NULL };

	cr_expect_eq(cli_parse(1, argv, &cli, err, sizeof(err)), -1);
	cr_expect_str_eq(err, "no command given (try cordon --help)");
}

Test(cli_parse, null_command_fails)
{
	char *argv[] = { "cordon", NULL, "explain" };

	cr_expect_eq(cli_parse(3, argv, &cli, err, sizeof(err)), -1);
	cr_expect_str_eq(err, "no command given (try cordon --help)");
}

Test(cli_parse, unknown_command_named)
{
	char *argv[] = { "cordon", "frobnicate", "--write", "/x" };

	cr_expect_eq(cli_parse(ARGC(argv), argv, &cli, err, sizeof(err)), -1);
	cr_expect_str_eq(err, "unknown command 'frobnicate' (try cordon --help)");
}

Test(cli_parse, help_in_every_spelling)
{
	static const char *const spellings[][3] = {
		{ "--help", NULL }, { "-h", NULL }, { "help", NULL },
		{ "explain", "--help" }, { "explain", "-h" },
	};

	for (size_t i = 0; i < sizeof(spellings) / sizeof(spellings[0]); i++) {
		char *argv[] = { "cordon", (char *)spellings[i][0], (char *)spellings[i][1] };
		int argc = spellings[i][1] ? 3 : 2;
		cr_expect_eq(cli_parse(argc, argv, &cli, err, sizeof(err)), 0, "%s %s",
			     spellings[i][0], spellings[i][1] ? spellings[i][1] : "");
		cr_expect_eq(cli.cmd, CMD_HELP, "%s", spellings[i][0]);
	}
}

Test(cli_parse, version)
{
	char *argv[] = { "cordon", "--version" };

	cr_expect_eq(cli_parse(ARGC(argv), argv, &cli, err, sizeof(err)), 0);
	cr_expect_eq(cli.cmd, CMD_VERSION);
}

Test(cli_parse, explain_policies_kept_in_order)
{
	char *argv[] = { "cordon", "explain", "--policy", "x", "--policy=y", "--policy", "z",
			 "read", "/a" };

	cr_assert_eq(cli_parse(ARGC(argv), argv, &cli, err, sizeof(err)), 0, "%s", err);
	cr_expect_eq(cli.cmd, CMD_EXPLAIN);
	cr_assert_eq(cli.n_policies, 3);
	cr_expect_str_eq(cli.policies[0], "x");
	cr_expect_str_eq(cli.policies[1], "y");
	cr_expect_str_eq(cli.policies[2], "z");
	cr_expect_eq(cli.n_opts, 0);
	cr_assert_eq(cli.n_args, 2);
	cr_expect_str_eq(cli.args[0], "read");
	cr_expect_str_eq(cli.args[1], "/a");
}

Test(cli_parse, explain_without_arguments)
{
	char *argv[] = { "cordon", "explain" };

	cr_assert_eq(cli_parse(ARGC(argv), argv, &cli, err, sizeof(err)), 0, "%s", err);
	cr_expect_eq(cli.cmd, CMD_EXPLAIN);
	cr_expect_eq(cli.n_policies, 0);
	cr_expect_eq(cli.n_opts, 0);
	cr_expect_eq(cli.n_args, 0);
	cr_expect_null(cli.workspace);
}

Test(cli_parse, option_value_forms)
{
	char *argv[] = { "cordon", "explain", "--write=/a", "--write", "/b", "--net", "all",
			 "--write=", "--workspace=/w", "--timeout=1=2" };

	cr_assert_eq(cli_parse(ARGC(argv), argv, &cli, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(cli.n_opts, 5);
	static const char *const want[][2] = {
		{ "write", "/a" }, { "write", "/b" }, { "net", "all" }, { "write", "" },
		{ "timeout", "1=2" },
	};
	for (size_t i = 0; i < 5; i++) {
		cr_expect_str_eq(cli.opts[i].name, want[i][0], "option %zu", i);
		cr_expect_str_eq(cli.opts[i].value, want[i][1], "option %zu", i);
	}
	cr_expect_str_eq(cli.workspace, "/w");
	cr_expect_eq(cli.n_args, 0);
}

Test(cli_parse, no_subprocess_alias)
{
	char *argv[] = { "cordon", "explain", "--no-subprocess", "write", "x" };

	cr_assert_eq(cli_parse(ARGC(argv), argv, &cli, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(cli.n_opts, 1);
	cr_expect_str_eq(cli.opts[0].name, "subprocess");
	cr_expect_str_eq(cli.opts[0].value, "no");
	cr_expect_eq(cli.n_args, 2);
}

Test(cli_parse, unknown_option_named)
{
	static const struct {
		const char *arg;
		const char *want;
	} cases[] = {
		{ "--bogus", "unknown option '--bogus' (try cordon --help)" },
		{ "--bogus=1", "unknown option '--bogus' (try cordon --help)" },
		{ "--include", "unknown option '--include' (try cordon --help)" },
		{ "-w", "unknown option '-w' (options are long: --name)" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *argv[] = { "cordon", "explain", (char *)cases[i].arg, "value" };
		cr_expect_eq(cli_parse(ARGC(argv), argv, &cli, err, sizeof(err)), -1, "%s",
			     cases[i].arg);
		cr_expect_str_eq(err, cases[i].want);
	}
}

Test(cli_parse, option_missing_value)
{
	static const struct {
		const char *arg;
		const char *want;
	} cases[] = {
		{ "--write", "option --write needs PATH..." },
		{ "--net", "option --net needs none|isolated|all" },
		{ "--policy", "option --policy needs a NAME or FILE" },
		{ "--workspace", "option --workspace needs a DIR" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *argv[] = { "cordon", "explain", (char *)cases[i].arg };
		cr_expect_eq(cli_parse(ARGC(argv), argv, &cli, err, sizeof(err)), -1, "%s",
			     cases[i].arg);
		cr_expect_str_eq(err, cases[i].want);
	}
}

Test(cli_parse, double_dash_ends_options)
{
	char *argv[] = { "cordon", "explain", "--write", "/a", "--", "--net", "all" };

	cr_assert_eq(cli_parse(ARGC(argv), argv, &cli, err, sizeof(err)), 0, "%s", err);
	cr_expect_eq(cli.n_opts, 1);
	cr_assert_eq(cli.n_args, 2);
	cr_expect_str_eq(cli.args[0], "--net");
	cr_expect_str_eq(cli.args[1], "all");
}

Test(cli_parse, first_argument_ends_options)
{
	char *argv[] = { "cordon", "explain", "read", "--write", "-" };

	cr_assert_eq(cli_parse(ARGC(argv), argv, &cli, err, sizeof(err)), 0, "%s", err);
	cr_expect_eq(cli.n_opts, 0);
	cr_assert_eq(cli.n_args, 3);
	cr_expect_str_eq(cli.args[1], "--write");
}

Test(cli_parse, most_policies_accepted_one_more_refused)
{
	char *argv[2 + 2 * (CLI_MAX_POLICIES + 1)];
	int argc = 2;

	argv[0] = "cordon";
	argv[1] = "explain";
	for (int i = 0; i < CLI_MAX_POLICIES; i++) {
		argv[argc++] = "--policy";
		argv[argc++] = "p";
	}
	cr_expect_eq(cli_parse(argc, argv, &cli, err, sizeof(err)), 0, "%s", err);
	cr_expect_eq(cli.n_policies, CLI_MAX_POLICIES);
	argv[argc++] = "--policy";
	argv[argc++] = "p";
	cr_expect_eq(cli_parse(argc, argv, &cli, err, sizeof(err)), -1);
	cr_expect_str_eq(err, "too many --policy (at most 64)");
}

Test(cli_parse, too_many_options_refused)
{
	static char *argv[2 + CLI_MAX_OPTIONS + 1];
	int argc = 2;

	argv[0] = "cordon";
	argv[1] = "explain";
	for (int i = 0; i < CLI_MAX_OPTIONS; i++)
		argv[argc++] = i % 2 ? "--no-subprocess" : "--net=all";
	cr_expect_eq(cli_parse(argc, argv, &cli, err, sizeof(err)), 0, "%s", err);
	cr_expect_eq(cli.n_opts, CLI_MAX_OPTIONS);
	argv[argc++] = "--no-subprocess";
	cr_expect_eq(cli_parse(argc, argv, &cli, err, sizeof(err)), -1);
	cr_expect_str_eq(err, "too many options (at most 1024)");
}

Test(cli_parse, null_argument_refused)
{
	char *argv[] = { "cordon", "explain", "--write", "/a", NULL, "x" };

	cr_expect_eq(cli_parse(ARGC(argv), argv, &cli, err, sizeof(err)), -1);
	cr_expect_str_eq(err, "argument 4 is NULL");
}

Test(cli_parse, null_option_value_refused)
{
	char *argv[] = { "cordon", "explain", "--policy", NULL };
	char *argv2[] = { "cordon", "explain", "--write", NULL, "x" };

	cr_expect_eq(cli_parse(ARGC(argv), argv, &cli, err, sizeof(err)), -1);
	cr_expect_str_eq(err, "option --policy needs a NAME or FILE");
	cr_expect_eq(cli_parse(ARGC(argv2), argv2, &cli, err, sizeof(err)), -1);
	cr_expect_str_eq(err, "option --write needs PATH...");
}

/* --- cli_compile ----------------------------------------------------------------- */

static unsigned compile_errors;

static void count_error(void *arg, const char *file, unsigned line, const char *msg)
{
	(void)arg;
	(void)file;
	(void)line;
	(void)msg;
	compile_errors++;
}

Test(cli_compile, policies_in_order_then_options, .init = setup, .fini = teardown)
{
	char p1[PATH_MAX], p2[PATH_MAX];
	char *argv[] = { "cordon", "explain", "--policy", p1, "--net", "none", "--policy", p2,
			 "--timeout", "5m" };
	const char *dirs[] = { NULL };
	struct load_env env = { .home = home, .workspace = ws, .tmpdir = root, .search = dirs };
	struct policy pol;
	struct parse_ctx ctx;

	write_policy(p1, "p1.policy", "net all\ntimeout 1m\n");
	write_policy(p2, "p2.policy", "net isolated\n");
	cr_assert_eq(cli_parse(ARGC(argv), argv, &cli, err, sizeof(err)), 0, "%s", err);
	policy_init(&pol);
	parse_ctx_init(&ctx, &pol);
	ctx.error = count_error;
	cr_expect_eq(cli_compile(&cli, &env, &pol, &ctx), 0);
	cr_expect_eq(compile_errors, 0);
	/* --net none, although given between the policies, applies after both. */
	cr_expect_eq(pol.net.value, NET_NONE);
	cr_expect_str_eq(pol.net.rule->text, "--net none");
	cr_expect_eq(pol.timeout.value, 300);
	cr_expect_eq(pol.n_files, 2);
	cr_expect_str_eq(pol.files[0], p1);
	cr_expect_str_eq(pol.files[1], p2);
	policy_free(&pol);
}

Test(cli_compile, later_policy_wins, .init = setup, .fini = teardown)
{
	char p1[PATH_MAX], p2[PATH_MAX];
	char *argv[] = { "cordon", "explain", "--policy", p2, "--policy", p1 };
	const char *dirs[] = { NULL };
	struct load_env env = { .home = home, .workspace = ws, .tmpdir = root, .search = dirs };
	struct policy pol;
	struct parse_ctx ctx;

	write_policy(p1, "p1.policy", "net all\n");
	write_policy(p2, "p2.policy", "net isolated\n");
	cr_assert_eq(cli_parse(ARGC(argv), argv, &cli, err, sizeof(err)), 0, "%s", err);
	policy_init(&pol);
	parse_ctx_init(&ctx, &pol);
	ctx.error = count_error;
	cr_expect_eq(cli_compile(&cli, &env, &pol, &ctx), 0);
	cr_expect_eq(pol.net.value, NET_ALL);
	cr_expect_str_eq(pol.net.rule->file, p1);
	policy_free(&pol);
}

Test(cli_compile, no_policy_means_default, .init = setup, .fini = teardown)
{
	char dir[PATH_MAX + 16];
	char *argv[] = { "cordon", "explain" };
	const char *dirs[] = { dir, NULL };
	struct load_env env = { .home = home, .workspace = ws, .tmpdir = root, .search = dirs };
	struct policy pol;
	struct parse_ctx ctx;

	snprintf(dir, sizeof(dir), "%s/policy.d", src);
	cr_assert_eq(cli_parse(ARGC(argv), argv, &cli, err, sizeof(err)), 0, "%s", err);
	policy_init(&pol);
	parse_ctx_init(&ctx, &pol);
	ctx.error = count_error;
	cr_expect_eq(cli_compile(&cli, &env, &pol, &ctx), 0);
	cr_expect_eq(compile_errors, 0);
	cr_expect_not_null(pathset_get(&pol.paths, ws, strlen(ws)));
	cr_assert_geq(pol.n_files, 1);
	cr_expect_str_eq(pol.files[0] + strlen(pol.files[0]) - 8, "/default");
	policy_free(&pol);
}

Test(cli_compile, errors_in_options_counted, .init = setup, .fini = teardown)
{
	char p1[PATH_MAX];
	char *argv[] = { "cordon", "explain", "--policy", p1, "--net", "sideways", "--write",
			 "relative" };
	const char *dirs[] = { NULL };
	struct load_env env = { .home = home, .workspace = ws, .tmpdir = root, .search = dirs };
	struct policy pol;
	struct parse_ctx ctx;

	write_policy(p1, "p1.policy", "frobnicate\n");
	cr_assert_eq(cli_parse(ARGC(argv), argv, &cli, err, sizeof(err)), 0, "%s", err);
	policy_init(&pol);
	parse_ctx_init(&ctx, &pol);
	ctx.error = count_error;
	cr_expect_eq(cli_compile(&cli, &env, &pol, &ctx), -1);
	cr_expect_eq(ctx.errors, 3);
	cr_expect_eq(compile_errors, 3);
	policy_free(&pol);
}

/* --- the binary ---------------------------------------------------------------------- */

struct run {
	int status;          /* exit status, or -1 if it did not exit */
	char out[16384];
	char err[16384];
};

static void slurp(const char *path, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	size_t got = 0;
	ssize_t n;

	cr_assert_geq(fd, 0, "open %s: %s", path, strerror(errno));
	while (got < size - 1 && (n = read(fd, buf + got, size - 1 - got)) > 0)
		got += (size_t)n;
	buf[got] = '\0';
	close(fd);
}

/* Run $CORDON_BUILD/cordon with @args (NULL-terminated, without argv[0]) in
 * the workspace, with HOME set to the fixture's. */
static void run_cordon(struct run *r, const char *const *args)
{
	char outp[PATH_MAX], errp[PATH_MAX];
	char *argv[64];
	int n = 0, status;
	pid_t pid;

	argv[n++] = bin;
	for (; *args; args++) {
		cr_assert_lt(n, 63);
		argv[n++] = (char *)*args;
	}
	argv[n] = NULL;
	snprintf(outp, sizeof(outp), "%s/out", root);
	snprintf(errp, sizeof(errp), "%s/err", root);

	fflush(NULL);
	pid = fork();
	cr_assert_geq(pid, 0, "fork: %s", strerror(errno));
	if (pid == 0) {
		int o = open(outp, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		int e = open(errp, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (o < 0 || e < 0 || dup2(o, 1) < 0 || dup2(e, 2) < 0 || chdir(ws) < 0 ||
		    setenv("HOME", home, 1) < 0)
			_exit(126);
		unsetenv("TMPDIR");
		execv(bin, argv);
		_exit(127);
	}
	cr_assert_eq(waitpid(pid, &status, 0), pid);
	r->status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
	slurp(outp, r->out, sizeof(r->out));
	slurp(errp, r->err, sizeof(r->err));
}

/* The lines of @text that do not start with a blank: one per decision. */
static void decision_lines(const char *text, char *buf, size_t size)
{
	size_t o = 0;

	buf[0] = '\0';
	for (const char *p = text; *p;) {
		const char *nl = strchr(p, '\n');
		size_t n = nl ? (size_t)(nl - p) : strlen(p);
		if (n && p[0] != ' ' && o + n + 2 < size) {
			memcpy(buf + o, p, n);
			o += n;
			buf[o++] = '\n';
			buf[o] = '\0';
		}
		p += n + (nl != NULL);
	}
}

static unsigned count_lines(const char *text)
{
	unsigned n = 0;

	for (; *text; text++)
		n += *text == '\n';
	return n;
}

Test(binary, explain_default_policy_decisions, .init = setup, .fini = teardown, .timeout = 30)
{
	char policy[PATH_MAX + 32], got[4096], want[4096];
	struct run *r = malloc(sizeof(*r));

	cr_assert_not_null(r);
	snprintf(policy, sizeof(policy), "%s/policy.d/default", src);
	const char *args[] = { "explain", "--policy", policy, "write", "~/.bashrc", "write",
			       "./src/x.c", "read", "~/.ssh/id_rsa", "connect", "1.2.3.4:443", NULL };
	run_cordon(r, args);
	cr_expect_eq(r->status, 0, "status %d, stderr:\n%s", r->status, r->err);
	decision_lines(r->out, got, sizeof(got));
	snprintf(want, sizeof(want),
		 "deny   write %s/.bashrc\n"
		 "allow  write %s/src/x.c\n"
		 "deny   read %s/.ssh/id_rsa\n"
		 "deny   connect 1.2.3.4:443 (tcp)\n",
		 home, ws, home);
	cr_expect_str_eq(got, want, "stdout:\n%s", r->out);
	cr_expect_str_eq(r->err, "");
	free(r);
}

Test(binary, explain_names_deciding_rule, .init = setup, .fini = teardown, .timeout = 30)
{
	char policy[PATH_MAX + 32], want[2 * PATH_MAX];
	struct run *r = malloc(sizeof(*r));

	cr_assert_not_null(r);
	snprintf(policy, sizeof(policy), "%s/policy.d/default", src);
	const char *args[] = { "explain", "--policy", policy, "read", "~/.ssh/id_rsa", NULL };
	run_cordon(r, args);
	cr_expect_eq(r->status, 0, "stderr:\n%s", r->err);
	/* The reason line names the read-deny entry and the line of secrets. */
	snprintf(want, sizeof(want), "       inside read-deny %s/.ssh (%s/policy.d/secrets:", home,
		 src);
	cr_expect_not_null(strstr(r->out, want), "want %s in:\n%s", want, r->out);
	free(r);
}

Test(binary, explain_prints_shim_setting_with_origin, .init = setup, .fini = teardown,
     .timeout = 30)
{
	char policy[PATH_MAX + 32], want[256];
	struct run *r = malloc(sizeof(*r));

	cr_assert_not_null(r);
	snprintf(policy, sizeof(policy), "%s/policy.d/default", src);
	const char *builtin[] = { "explain", "--policy", policy, NULL };
	run_cordon(r, builtin);
	cr_expect_eq(r->status, 0, "stderr:\n%s", r->err);
	snprintf(want, sizeof(want), "\n%-15s %-16s %s\n", "shim", "yes", "built-in default");
	cr_expect_not_null(strstr(r->out, want), "want \"%s\" in:\n%s", want + 1, r->out);

	const char *option[] = { "explain", "--policy", policy, "--shim", "no", NULL };
	run_cordon(r, option);
	cr_expect_eq(r->status, 0, "stderr:\n%s", r->err);
	snprintf(want, sizeof(want), "\n%-15s %-16s %s\n", "shim", "no", "command line: --shim no");
	cr_expect_not_null(strstr(r->out, want), "want \"%s\" in:\n%s", want + 1, r->out);
	free(r);
}

Test(binary, policy_errors_all_reported_and_nothing_run, .init = setup, .fini = teardown,
     .timeout = 30)
{
	char policy[PATH_MAX], want[4 * PATH_MAX];
	struct run *r = malloc(sizeof(*r));

	cr_assert_not_null(r);
	write_policy(policy, "bad.policy",
		     "# three mistakes\n"
		     "net sideways\n"
		     "write relative\n"
		     "write ${WORKSPACE}\n"
		     "wirte /x\n");
	const char *args[] = { "explain", "--policy", policy, "write", "./x", NULL };
	run_cordon(r, args);
	cr_expect_eq(r->status, 125, "status %d", r->status);
	snprintf(want, sizeof(want),
		 "%s:2: bad value 'sideways' for net: expected none, isolated or all\n"
		 "%s:3: 'relative' is relative: expected an absolute path (start it with /, ~ or ${WORKSPACE})\n"
		 "%s:5: unknown directive 'wirte' (did you mean 'write'?)\n"
		 "cordon: unable to use the policy: 3 errors above; nothing was run\n",
		 policy, policy, policy);
	cr_expect_str_eq(r->err, want);
	cr_expect_eq(count_lines(r->err), 4);
	cr_expect_str_eq(r->out, "", "a decision was printed:\n%s", r->out);
	free(r);
}

Test(binary, unknown_option_exits_125, .init = setup, .fini = teardown, .timeout = 30)
{
	struct run *r = malloc(sizeof(*r));

	cr_assert_not_null(r);
	const char *args[] = { "explain", "--bogus", NULL };
	run_cordon(r, args);
	cr_expect_eq(r->status, 125);
	cr_expect_str_eq(r->err, "cordon: unknown option '--bogus' (try cordon --help)\n");
	cr_expect_str_eq(r->out, "");
	free(r);
}

Test(binary, odd_query_words_exit_125, .init = setup, .fini = teardown, .timeout = 30)
{
	char policy[PATH_MAX + 32];
	struct run *r = malloc(sizeof(*r));

	cr_assert_not_null(r);
	snprintf(policy, sizeof(policy), "%s/policy.d/default", src);
	const char *args[] = { "explain", "--policy", policy, "write", "./a", "read", NULL };
	run_cordon(r, args);
	cr_expect_eq(r->status, 125);
	cr_expect_str_eq(r->err,
			 "cordon: unable to explain 'read': expected OP TARGET pairs (OP: read, write, connect, bind)\n");
	cr_expect_str_eq(r->out, "");
	free(r);
}

Test(binary, no_command_exits_125, .init = setup, .fini = teardown, .timeout = 30)
{
	struct run *r = malloc(sizeof(*r));

	cr_assert_not_null(r);
	const char *args[] = { NULL };
	run_cordon(r, args);
	cr_expect_eq(r->status, 125);
	cr_expect_str_eq(r->err, "cordon: no command given (try cordon --help)\n");
	free(r);
}

Test(binary, version_and_help_exit_0, .init = setup, .fini = teardown, .timeout = 30)
{
	struct run *r = malloc(sizeof(*r));

	cr_assert_not_null(r);
	const char *version[] = { "--version", NULL };
	run_cordon(r, version);
	cr_expect_eq(r->status, 0);
	cr_expect_eq(strncmp(r->out, "cordon ", 7), 0, "%s", r->out);
	cr_expect_eq(count_lines(r->out), 1);

	const char *help[] = { "--help", NULL };
	run_cordon(r, help);
	cr_expect_eq(r->status, 0);
	cr_expect_not_null(strstr(r->out, "\n  --write PATH...  "), "%s", r->out);
	cr_expect_not_null(strstr(r->out, "\n  --shim yes|no          "), "%s", r->out);
	cr_expect_null(strstr(r->out, "--include"), "%s", r->out);
	cr_expect_str_eq(r->err, "");
	free(r);
}

/* --- documentation ------------------------------------------------------------------ */

/* The whole of @rel (in the repository), or a failed assertion. */
static char *doc(const char *rel)
{
	char path[PATH_MAX + 64];
	static char buf[1 << 18];

	snprintf(path, sizeof(path), "%s/%s", src, rel);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	cr_assert_geq(fd, 0, "no %s: %s", path, strerror(errno));
	ssize_t n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	cr_assert(n > 0 && n < (ssize_t)sizeof(buf) - 1, "%s: unreadable or too long", path);
	buf[n] = '\0';
	return buf;
}

/* Every directive but include is an option: each must be in cordon(1) (as
 * "\-\-NAME", roff's hyphens), and every directive must have its section in
 * docs/policy.md ("### NAME"). */
Test(docs, every_option_in_the_man_page_and_policy_md, .init = setup, .fini = teardown)
{
	char want[128];
	size_t n = 0;

	char *man = strdup(doc("docs/cordon.1"));
	char *md = strdup(doc("docs/policy.md"));
	for (const struct directive *d = directives; d->name; d++, n++) {
		char roff[96] = "\\-\\-";
		size_t k = strlen(roff);
		for (const char *p = d->name; *p && k + 3 < sizeof(roff); p++) {
			if (*p == '-')
				roff[k++] = '\\';
			roff[k++] = *p;
		}
		roff[k] = '\0';
		if (d->type != ARG_INCLUDE)  /* the one directive that is no option */
			cr_expect(strstr(man, roff), "docs/cordon.1 does not mention %s", roff);
		snprintf(want, sizeof(want), "\n### %s", d->name);
		cr_expect(strstr(md, want), "docs/policy.md has no section for %s", d->name);
	}
	cr_expect_gt(n, 20, "only %zu directives", n);
	/* The options that are no directive, the subcommands, and every
	 * environment variable cordon or the shim reads. */
	static const char *const more[] = {
		".SS run", ".SS explain", ".SS learn", ".SS status", ".SS selftest",
		"\\-\\-policy", "\\-\\-workspace", "\\-\\-no\\-subprocess", ".BR \\-v ",
		"\\-vv", ".B \\-\\-last", "\\-\\-output", ".B HOME", ".B XDG_STATE_HOME",
		".B TMPDIR", ".B NO_COLOR", "CORDON_POLICY_FD", "CORDON_EVENT_FD", "CORDON_WRITE",
		"last\\-run.jsonl",
	};
	for (size_t i = 0; i < sizeof(more) / sizeof(more[0]); i++)
		cr_expect(strstr(man, more[i]), "docs/cordon.1 does not mention %s", more[i]);
	free(man);
	free(md);
}

/* What launcher/cordon.bash offers after @line (words split at spaces; a
 * trailing space starts an empty word), completing build/cordon. */
static const char *complete(const char *line)
{
	static char out[4096];
	char script[2 * PATH_MAX + 512];
	int p[2];

	snprintf(script, sizeof(script),
		 "source '%s/launcher/cordon.bash'; read -ra W <<< \"$1\"; "
		 "[[ $1 == *' ' ]] && W+=(''); COMP_WORDS=('%s' \"${W[@]}\"); "
		 "COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); _cordon; echo \"${COMPREPLY[*]}\"",
		 src, bin);
	cr_assert_eq(pipe(p), 0);
	pid_t pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		dup2(p[1], 1);
		if (chdir(ws) < 0)
			_exit(120);
		execl("/bin/bash", "bash", "--norc", "-c", script, "_", line, (char *)NULL);
		_exit(121);
	}
	close(p[1]);
	ssize_t n, got = 0;
	while ((n = read(p[0], out + got, sizeof(out) - 1 - (size_t)got)) > 0)
		got += n;
	close(p[0]);
	int st;
	waitpid(pid, &st, 0);
	cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0, "bash failed on '%s'", line);
	out[got] = '\0';
	out[strcspn(out, "\n")] = '\0';
	return out;
}

Test(docs, bash_completion_offers_what_the_binary_has, .init = setup, .fini = teardown)
{
	if (access("/bin/bash", X_OK) != 0)
		cr_skip_test("no /bin/bash");
	cr_expect_str_eq(complete("ex"), "explain");
	cr_expect_str_eq(complete("run --ne"), "--net --net-bind --net-connect");
	cr_expect_str_eq(complete("run --net "), "none isolated all");
	cr_expect_str_eq(complete("explain --on-unsupported "), "error warn ignore");
	cr_expect_str_eq(complete("run --summ"), "--summary");
	cr_expect_str_eq(complete("le"), "learn");
	cr_expect_str_eq(complete("explain --la"), "--last");
	cr_expect_str_eq(complete("run --log-format "), "text json short auto");
	/* Policy names from the policy.d/ beside the uninstalled binary. */
	const char *p = complete("run --policy off");
	cr_expect(strncmp(p, "offline-build", 13) == 0, "--policy off: '%s'", p);
	cr_expect_str_eq(complete("run --timeout "), "");
}
