/*
 * learn.c - `cordon learn`: run a program once in mode warn and write the
 * policy that would have let that run pass (suggest.h says how the lines
 * are chosen).
 *
 * The learned policy includes the policies the command line named (or
 * `default`), repeats its options, and adds one commented line per need.
 * It is as good as what the shim saw: a statically linked program, or one
 * that makes its system calls itself, is not seen (docs/debugging.md).
 */
#include "learn.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../shim/path.h"
#include "run.h"
#include "suggest.h"
#include "tally.h"
#include "util.h"

/* Options learn sets itself, not repeated in the learned policy. */
static bool learn_own(const char *name)
{
	return strcmp(name, "mode") == 0 || strcmp(name, "log") == 0 ||
	       strcmp(name, "log-summary") == 0 || strcmp(name, "summary") == 0;
}

static void write_policy(FILE *out, const struct cli *cli, const struct suggest *s,
			 const struct tally *t, char **argv, int status, const char *cwd)
{
	char cmd[1024], when[32] = "?", brief[512];
	time_t now = time(NULL);
	struct tm tm;

	shell_join(argv, cmd, sizeof(cmd));
	if (gmtime_r(&now, &tm))
		strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%SZ", &tm);
	tally_brief(t, brief, sizeof(brief));
	fprintf(out, "# Learned by cordon learn, %s, from one run of\n#   ", when);
	suggest_put_comment(out, cmd);
	fputs("\n# in ", out);
	suggest_put_comment(out, cwd);
	fprintf(out, " (exit status %d).\n", status);
	fprintf(out, "# %s.\n", brief[0] ? brief : "The policies below refused nothing");
	fputs("# Every line below the includes is there because that run needed it.\n\n", out);
	if (cli->n_policies == 0)
		fputs("include default\n", out);
	for (size_t i = 0; i < cli->n_policies; i++) {
		char abs[PATH_MAX];
		const char *name = cli->policies[i];
		/* A file named on the command line is taken from the working
		 * directory; the learned policy may live elsewhere. */
		if (strchr(name, '/') && !strchr(name, '$') && path_absolute(cwd, name, abs) >= 0)
			name = abs;
		fputs("include ", out);
		policy_put_arg(out, name, false, true);
		fputc('\n', out);
	}
	bool header = false;
	for (size_t i = 0; i < cli->n_opts; i++) {
		if (learn_own(cli->opts[i].name))
			continue;
		if (!header)
			fputs("\n# From the command line.\n", out);
		header = true;
		fprintf(out, "%s ", cli->opts[i].name);
		policy_put_arg(out, cli->opts[i].value, false, true);
		fputc('\n', out);
	}
	if (s->n_lines) {
		fputs("\n", out);
		suggest_print(s, out, "", true);
	}
	if (s->n_unlearnable) {
		fputs("\n# Refused, and not learned: no added line allows these.\n", out);
		for (size_t i = 0; i < s->n_entries; i++) {
			const struct suggest_entry *e = &s->entries[i];
			if (!e->unlearnable)
				continue;
			fprintf(out, "#   %s ", e->t->key);
			suggest_put_comment(out, e->t->target);
			fprintf(out, " (%ld): %s\n", e->t->count, e->unlearnable);
		}
	}
}

/* The policy being written, until it is renamed into place. */
static char tmp[PATH_MAX + 16];

static void remove_tmp(void)
{
	if (tmp[0])
		unlink(tmp);
}

int cmd_learn(const struct cli *cli, struct policy *pol, const char *home, const char *workspace,
	      const char *tmpdir)
{
	char cwd[PATH_MAX];
	struct tally t = { 0 };
	struct suggest s;
	bool log_given = false;
	int status;

	if (!cli->args || !cli->args[0])
		die("unable to learn: no program given (cordon learn [OPTIONS] [-o FILE] -- PROGRAM)");
	if (!pol->shim.value)
		die("unable to learn with shim no: the shim is what records the accesses");
	if (!getcwd(cwd, sizeof(cwd)))
		die_errno("unable to get the working directory");
	for (size_t i = 0; i < cli->n_opts; i++)
		log_given |= strcmp(cli->opts[i].name, "log") == 0;
	/* Open the output first: a run that cannot be written down is not
	 * worth making. */
	FILE *out = stdout;
	if (cli->output) {
		if (snprintf(tmp, sizeof(tmp), "%s.learn-%ld", cli->output, (long)getpid()) >=
		    (int)sizeof(tmp))
			die("unable to write the policy to '%.64s...': name too long", cli->output);
		if (!(out = fopen(tmp, "wxe")))
			die_errno("unable to write the policy to %s", tmp);
		/* cordon may die (125) before the policy is renamed into place:
		 * leave nothing half-written behind. */
		atexit(remove_tmp);
	}
	pol->mode.value = MODE_WARN;
	pol->log_summary.value = false;
	if (!log_given)
		pol->log.value = LOG_OFF;
	warn("learn: %s runs in mode warn: nothing is refused, the kernel layer is off, "
	     "and the shim records what the policy would refuse", cli->args[0]);

	status = cmd_run(pol, cli->args, tmpdir, &t);
	if (suggest_build(&s, &t, pol, home, workspace) < 0)
		die("out of memory");
	write_policy(out, cli, &s, &t, cli->args, status, cwd);
	if (cli->output) {
		if (fflush(out) != 0 || ferror(out) || fclose(out) != 0 ||
		    rename(tmp, cli->output) < 0)
			die_errno("unable to write the policy to %s", cli->output);
		tmp[0] = '\0';
	} else if (fflush(out) != 0) {
		die_errno("unable to write the policy");
	}

	size_t learned = s.n_entries - s.n_allowed - s.n_unlearnable;
	warn("learn: %zu refused target%s, %zu line%s%s%s", learned, learned == 1 ? "" : "s",
	     s.n_lines, s.n_lines == 1 ? "" : "s", cli->output ? " written to " : "",
	     cli->output ? cli->output : "");
	for (size_t i = 0; i < s.n_lines; i++) {
		if (s.lines[i].broad)
			warn("learn: `write %s` makes all of %s writable: the program changed entries "
			     "directly in it", s.lines[i].shown, s.lines[i].arg);
		if (s.lines[i].contains_read_deny)
			warn("learn: `write %s` holds read-deny %s: cordon run refuses that policy "
			     "unless on-unsupported is warn", s.lines[i].shown,
			     s.lines[i].contains_read_deny);
	}
	if (s.n_unlearnable)
		warn("learn: %zu target%s refused that no added line allows (listed at the end of "
		     "the policy): the policy itself must change", s.n_unlearnable,
		     s.n_unlearnable == 1 ? "" : "s");
	suggest_free(&s);
	tally_free(&t);
	return status;
}
