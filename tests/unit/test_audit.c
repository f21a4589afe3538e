/*
 * test_audit.c - cordon run --audit-file: one JSON line per event.
 *
 * Fixture: T/ (workspace and write root), T/audit.log, T/deny.log; the
 * refused write targets /dev/shm/<T>-canary, checked from outside.
 */
#include <criterion/criterion.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static char T[64], cordon[PATH_MAX];

static void setup(void)
{
	char rel[PATH_MAX];

	snprintf(T, sizeof(T), "/dev/shm/cordon-audit-XXXXXX");
	cr_assert_not_null(mkdtemp(T));
	snprintf(rel, sizeof(rel), "%s/cordon", getenv("CORDON_BUILD") ? getenv("CORDON_BUILD") : "build");
	cr_assert_not_null(realpath(rel, cordon));
}

static void teardown(void)
{
	char cmd[256];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s' '%s-canary'", T, T);
	cr_expect_eq(system(cmd), 0);
}

/* cordon run with an explicit policy and the audit and deny logs in T. */
static int run(const char *extra, const char *script)
{
	char cmd[3 * PATH_MAX];

	/* Under SANITIZE=1 the shim carries ASan, whose runtime is not first
	 * in the programs it is preloaded into. */
	const char *san = getenv("CORDON_PRELOAD_FIRST");
	snprintf(cmd, sizeof(cmd),
		 "cd '%s' && printf 'write %s\\nnet none\\non-unsupported warn\\n' > policy && "
		 "%s'%s' run --policy ./policy --audit-file '%s/audit.log' --log-file '%s/deny.log' %s "
		 "-- sh -c '%s' 2>/dev/null",
		 T, T, san && *san ? "ASAN_OPTIONS=verify_asan_link_order=0:detect_leaks=0 " : "",
		 cordon, T, T, extra, script);
	int st = system(cmd);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static char *slurp(const char *name)
{
	static char buf[16384];
	char p[PATH_MAX];
	FILE *f;
	size_t n;

	snprintf(p, sizeof(p), "%s/%s", T, name);
	f = fopen(p, "r");
	cr_assert_not_null(f, "no %s", name);
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	return buf;
}

Test(audit, started_then_completed_with_status_and_denies, .init = setup, .fini = teardown)
{
	char script[256];
	struct stat st;

	snprintf(script, sizeof(script), "echo x > %s-canary; echo y > inside; exit 3", T);
	cr_assert_eq(run("", script), 3);
	char canary[128];
	snprintf(canary, sizeof(canary), "%s-canary", T);
	cr_expect_neq(stat(canary, &st), 0, "the refused write went through");
	const char *a = slurp("audit.log");
	const char *started = strstr(a, "{\"v\":1,\"event\":\"started\"");
	const char *completed = strstr(a, "{\"v\":1,\"event\":\"completed\"");
	cr_assert_not_null(started, "%s", a);
	cr_assert_not_null(completed, "%s", a);
	cr_expect(started < completed);
	cr_expect(strstr(started, "\"argv\":[\"sh\",\"-c\","), "%s", a);
	cr_expect(strstr(started, "\"policy_digest\":\"fnv1a64:"), "%s", a);
	cr_expect(strstr(started, "\"backend\":\"landlock\""), "%s", a);
	cr_expect(strstr(completed, "\"status\":3,\"signal\":null,\"denies\":1}"), "%s", a);
	cr_expect_null(strstr(a, "cancelled"), "%s", a);
}

Test(audit, timeout_is_cancelled, .init = setup, .fini = teardown)
{
	cr_assert_eq(run("--timeout 1", "sleep 30"), 124);
	const char *a = slurp("audit.log");
	cr_expect(strstr(a, "\"event\":\"cancelled\"") &&
		  strstr(a, "\"reason\":\"timeout\",\"signal\":15"), "%s", a);
	cr_expect_null(strstr(a, "\"event\":\"completed\""), "%s", a);
}

/* The program puts a file of its own on the number of the log pipe: the
 * refusal must not be written into it (it goes to stderr instead). */
Test(audit, log_pipe_reused_by_program_gets_no_log_line, .init = setup, .fini = teardown)
{
	char script[1024], mine[PATH_MAX];
	struct stat st;

	if (system("command -v bash >/dev/null") != 0)
		cr_skip_test("bash is not installed");
	snprintf(script, sizeof(script),
		 "bash -c \"n=\\$(grep -o \\\"fd:[0-9]*\\\" /proc/self/fd/\\$CORDON_POLICY_FD | "
		 "cut -d: -f2); exec 9>mine.txt; eval \\\"exec \\$n>&9\\\"; "
		 "echo x > %s-canary; true\"",
		 T);
	cr_assert_eq(run("", script), 0);
	snprintf(mine, sizeof(mine), "%s/mine.txt", T);
	cr_assert_eq(stat(mine, &st), 0, "the script did not run");
	cr_expect_eq(st.st_size, 0, "a log line was written into the program's own file");
	char canary[128];
	snprintf(canary, sizeof(canary), "%s-canary", T);
	cr_expect_neq(stat(canary, &st), 0, "the refused write went through");
}
