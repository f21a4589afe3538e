/*
 * test_worktree.c - git-worktree yes: a linked worktree's git directory and
 * the main repository's .git become write roots; the main checkout does not.
 *
 * Fixture:
 *   T/
 *   ├── main/           a repository (outside the workspace)
 *   │   ├── .git/       objects and refs: writable with git-worktree yes
 *   │   └── tracked     must stay unwritable
 *   └── wt/             the workspace: `git worktree add ../wt`
 *       └── .git        a file: "gitdir: T/main/.git/worktrees/wt"
 */
#include <criterion/criterion.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../launcher/cli.h"

static char T[64];

__attribute__((format(printf, 1, 2)))
static void sh(const char *fmt, ...)
{
	char cmd[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	cr_assert_eq(system(cmd), 0, "%s", cmd);
}

static void setup(void)
{
	snprintf(T, sizeof(T), "/dev/shm/cordon-wt-XXXXXX");
	cr_assert_not_null(mkdtemp(T));
	if (system("command -v git >/dev/null") != 0)
		cr_skip_test("git is not installed");
	sh("cd %s && git init -q main && cd main && echo x > tracked && git add tracked && "
	   "git -c user.email=t@t -c user.name=t commit -qm init && git worktree add -q ../wt",
	   T);
}

static void teardown(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", T);
	cr_expect_eq(system(cmd), 0);
}

static void quiet(void *arg, const char *file, unsigned line, const char *msg)
{
	(void)file;
	(void)line;
	snprintf(arg, 512, "%s", msg);
}

/* Compile "write ${WORKSPACE}" (and @extra) and git-worktree @on with T/wt
 * as workspace. */
static int compile_with(struct policy *pol, const char *on, const char *extra, char *err)
{
	char ws[PATH_MAX], polfile[PATH_MAX];
	static const char *const search[] = { NULL };
	struct parse_ctx ctx;
	struct cli cli;
	char *argv[] = { "cordon", "explain", "--policy", polfile, "--git-worktree", (char *)on,
			 NULL };
	char perr[256];

	snprintf(ws, sizeof(ws), "%s/wt", T);
	snprintf(polfile, sizeof(polfile), "%s/policy", T);
	FILE *f = fopen(polfile, "w");
	cr_assert_not_null(f);
	fputs("write ${WORKSPACE}\n", f);
	fputs(extra, f);
	fclose(f);
	cr_assert_eq(cli_parse(6, argv, &cli, perr, sizeof(perr)), 0, "%s", perr);
	char real[PATH_MAX];
	cr_assert_not_null(realpath(ws, real));
	struct load_env env = { "/root", real, "/tmp", search };
	policy_init(pol);
	parse_ctx_init(&ctx, pol);
	ctx.error = quiet;
	ctx.error_arg = err;
	return cli_compile(&cli, &env, pol, &ctx);
}

static int compile(struct policy *pol, const char *on, char *err)
{
	return compile_with(pol, on, "", err);
}

static bool writable(const struct policy *pol, const char *rel)
{
	char p[PATH_MAX], real[PATH_MAX];
	struct decision d;

	snprintf(p, sizeof(p), "%s/%s", T, rel);
	cr_assert_not_null(realpath(p, real), "%s", p);
	policy_decide_path(pol, OP_WRITE, real, strlen(real), &d);
	return d.allow;
}

Test(git_worktree, on_makes_main_git_writable_not_checkout, .init = setup, .fini = teardown)
{
	struct policy pol;
	char err[512] = "";

	cr_assert_eq(compile(&pol, "yes", err), 0, "%s", err);
	cr_expect(writable(&pol, "wt"));
	cr_expect(writable(&pol, "main/.git/objects"));
	cr_expect(writable(&pol, "main/.git/worktrees/wt"));
	cr_expect(!writable(&pol, "main/tracked"), "the main checkout became writable");
	cr_expect(!writable(&pol, "main"));
	policy_free(&pol);
}

/* The agent policy's write-deny of ${WORKSPACE}/.git/hooks and config: in
 * a linked worktree the hooks and config git runs are the main
 * repository's, made writable by git-worktree: denied there too. */
Test(git_worktree, write_deny_of_dot_git_follows_to_main_repository, .init = setup,
     .fini = teardown)
{
	struct policy pol;
	char err[512] = "";

	cr_assert_eq(compile_with(&pol, "yes",
				  "write-deny ${WORKSPACE}/.git/hooks ${WORKSPACE}/.git/config\n", err),
		     0, "%s", err);
	cr_expect(!writable(&pol, "main/.git/hooks"), "the main repository's hooks are writable");
	cr_expect(!writable(&pol, "main/.git/config"), "the main repository's config is writable");
	cr_expect(writable(&pol, "main/.git/objects"));
	cr_expect(writable(&pol, "main/.git/worktrees/wt"));
	cr_expect(writable(&pol, "wt"));
	policy_free(&pol);
}

/* The agent policy's patterns for the submodules' git directories
 * (${WORKSPACE}/.git/modules/\*): in a linked worktree they are the
 * worktree's own (main/.git/worktrees/wt/modules) and the main worktree's
 * (main/.git/modules), both writable with git-worktree: denied in each. */
Test(git_worktree, write_deny_patterns_follow_to_both_git_directories, .init = setup,
     .fini = teardown)
{
	struct policy pol;
	char err[512] = "";

	sh("mkdir -p %s/main/.git/worktrees/wt/modules/s/hooks "
	   "%s/main/.git/worktrees/wt/modules/s/objects "
	   "%s/main/.git/modules/m/hooks && touch %s/main/.git/modules/m/config",
	   T, T, T, T);
	cr_assert_eq(compile_with(&pol, "yes",
				  "write-deny ${WORKSPACE}/.git/modules/*/hooks "
				  "${WORKSPACE}/.git/modules/*/config\n",
				  err),
		     0, "%s", err);
	cr_expect(!writable(&pol, "main/.git/worktrees/wt/modules/s/hooks"),
		  "the worktree's submodule hooks are writable");
	cr_expect(!writable(&pol, "main/.git/modules/m/hooks"),
		  "the main worktree's submodule hooks are writable");
	cr_expect(!writable(&pol, "main/.git/modules/m/config"));
	cr_expect(writable(&pol, "main/.git/worktrees/wt/modules/s/objects"));
	cr_expect(writable(&pol, "main/.git/objects"));
	policy_free(&pol);
}

Test(git_worktree, off_leaves_main_git_outside, .init = setup, .fini = teardown)
{
	struct policy pol;
	char err[512] = "";

	cr_assert_eq(compile(&pol, "no", err), 0, "%s", err);
	cr_expect(!writable(&pol, "main/.git/objects"));
	policy_free(&pol);
}

Test(git_worktree, bad_link_file_is_an_error, .init = setup, .fini = teardown)
{
	struct policy pol;
	char err[512] = "";

	sh("printf 'not a link\\n' > %s/wt/.git", T);
	cr_expect_eq(compile(&pol, "yes", err), -1);
	cr_expect(strstr(err, "is not a worktree link (expected 'gitdir: PATH')"), "%s", err);
	policy_free(&pol);
}
