/*
 * test_kaudit.c - what Landlock refused programs the shim does not see,
 * read back from the kernel's audit records (jail/kaudit.c).
 *
 * Landlock logs a denial only when the audit subsystem is on, which it is
 * not by default. This suite turns it on before its first test and back
 * to what it was after the last (Criterion's PRE_ALL and POST_ALL hooks,
 * in the runner), which needs CAP_AUDIT_CONTROL; it is a binary of its own
 * so that no other suite runs while audit is on. Without the capability,
 * or without Landlock ABI 7, each test is skipped and says why.
 *
 *   $T/
 *     ws/              the workspace: the one write root (policy below)
 *     outside/canary   "keep": refused targets, checked from outside
 */
#include <criterion/criterion.h>
#include <criterion/hooks.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/netlink.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#define FIXTURE_TREE
#define FIXTURE_PROGRAM
#include "fixture.h"
#include "../../jail/jail.h"
#include "../../jail/layers.h"

#ifndef AUDIT_LANDLOCK_ACCESS
#define AUDIT_LANDLOCK_ACCESS 1423  /* Linux 6.15's uapi, newer than the installed one */
#define AUDIT_LANDLOCK_DOMAIN 1424
#endif
#ifndef SYS_landlock_create_ruleset
#define SYS_landlock_create_ruleset 444
#endif

/* --- the audit subsystem: asked and set over its netlink socket -------------- */

static int audit_request(int type, const struct audit_status *set, struct audit_status *got)
{
	struct {
		struct nlmsghdr h;
		struct audit_status s;
	} m = { { NLMSG_LENGTH(set ? sizeof(*set) : 0), (unsigned short)type,
		  (unsigned short)(NLM_F_REQUEST | (set ? NLM_F_ACK : 0)), 1, 0 },
		{ 0 } };
	struct sockaddr_nl kernel = { .nl_family = AF_NETLINK };
	char buf[1024];
	int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_AUDIT), r = -EIO;

	if (fd < 0)
		return -errno;
	if (set)
		m.s = *set;
	if (sendto(fd, &m, m.h.nlmsg_len, 0, (struct sockaddr *)&kernel, sizeof(kernel)) < 0) {
		r = -errno;
		goto out;
	}
	ssize_t n = recv(fd, buf, sizeof(buf), 0);
	struct nlmsghdr *h = (struct nlmsghdr *)buf;
	if (n < (ssize_t)NLMSG_HDRLEN)
		goto out;
	if (h->nlmsg_type == NLMSG_ERROR)
		r = ((struct nlmsgerr *)NLMSG_DATA(h))->error;
	else if (h->nlmsg_type == AUDIT_GET && got)
		memcpy(got, NLMSG_DATA(h), sizeof(*got)), r = 0;
out:
	close(fd);
	return r;
}

/* The state found, restored at the end (in the runner: the tests run in
 * processes of their own, which ask the kernel again). */
static int audit_was = -1;

static int audit_set(unsigned enabled)
{
	struct audit_status s = { .mask = AUDIT_STATUS_ENABLED, .enabled = enabled };
	return audit_request(AUDIT_SET, &s, NULL);
}

ReportHook(PRE_ALL)(struct criterion_test_set *set)
{
	struct audit_status s;
	int r;

	(void)set;
	if (audit_request(AUDIT_GET, NULL, &s) < 0)
		return;
	audit_was = (int)s.enabled;
	if (!s.enabled && (r = audit_set(1)) < 0) {
		fprintf(stderr, "test_kaudit: unable to turn audit on: %s\n", strerror(-r));
		audit_was = -1;
	}
}

ReportHook(POST_ALL)(struct criterion_global_stats *stats)
{
	(void)stats;
	if (audit_was == 0)
		audit_set(0);
}

/* --- the tree and the runs --------------------------------------------------- */

static char cordon_bin[PATH_MAX], ops_static[PATH_MAX], ops_dyn[PATH_MAX];
static char out[1 << 16], err[1 << 16];
static int status;

static void setup(void)
{
	fixture_mktree("/tmp/cordon-kaudit-XXXXXX");
	cr_assert_eq(mkdir(tp("ws"), 0755), 0);
	cr_assert_eq(mkdir(tp("outside"), 0755), 0);
	cr_assert_eq(mkdir(tp("state"), 0755), 0);
	cr_assert_eq(mkdir(tp("home"), 0755), 0);
	cr_assert_eq(mkdir(tp("tmp"), 0755), 0);
	int fd = open(tp("outside/canary"), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	cr_assert(fd >= 0 && write(fd, "keep", 4) == 4);
	close(fd);
	program(cordon_bin, "cordon");
	program(ops_static, "tests/helpers/run_ops-static");
	program(ops_dyn, "tests/helpers/run_ops");
}

static void teardown(void)
{
	fixture_rmtree(T);
}

static void need_audit(void)
{
	long abi = syscall(SYS_landlock_create_ruleset, NULL, 0, 1);
	if (abi < 7)
		SKIP("Landlock logs its refusals from ABI 7 on; this kernel has %ld", abi);
	struct audit_status s;
	int r = audit_request(AUDIT_GET, NULL, &s);
	if (r < 0)
		SKIP("unable to ask the audit subsystem its state: %s", strerror(-r));
	if (!s.enabled)
		SKIP("the audit subsystem is off, and this suite could not turn it on "
		     "(CAP_AUDIT_CONTROL)");
}

/* cordon run --workspace $T/ws OPTS -- PROG... under the default policy,
 * as fixture_run() runs it; stdout and stderr into out and err. */
static void run(const char *const *opts, const char *const *prog)
{
	const char *argv[64];
	size_t a = 0;

	argv[a++] = cordon_bin;
	argv[a++] = "run";
	argv[a++] = "--workspace";
	argv[a++] = tp("ws");
	for (size_t i = 0; opts[i]; i++)
		argv[a++] = opts[i];
	argv[a++] = "--";
	for (size_t i = 0; prog[i] && a < 63; i++)
		argv[a++] = prog[i];
	argv[a] = NULL;

	status = fixture_run(argv, NULL);
	fixture_slurp(tp("stdout"), out, sizeof(out));
	fixture_slurp(tp("stderr"), err, sizeof(err));
}

#define ARGS(...) ((const char *const[]){ __VA_ARGS__, NULL })

static int count(const char *hay, const char *needle)
{
	int n = 0;
	for (const char *p = hay; (p = strstr(p, needle)); p += strlen(needle))
		n++;
	return n;
}

static void expect_canary(void)
{
	char buf[64];
	cr_expect_eq(fixture_slurp(tp("outside/canary"), buf, sizeof(buf)), 4);
	cr_expect_str_eq(buf, "keep", "the canary was changed");
	struct stat st;
	cr_expect_neq(stat(tp("outside/new"), &st), 0, "outside/new was created");
}

TestSuite(kaudit, .init = setup, .fini = teardown, .timeout = 60);

/* A static program's raw creates, writes and renames outside the roots:
 * Landlock refuses each, and each is logged as the kernel's, with the
 * program, the call, and the line that would allow it; the summary counts
 * exactly those. */
Test(kaudit, static_program_refusals_are_logged_and_counted)
{
	need_audit();
	run(ARGS("--summary", tp("summary.json")),
	    ARGS(ops_static, "sys-write", tp("outside/new"), "x", "sys-reopen", tp("outside/canary"),
		 "x", "sys-rename", tp("outside/canary"), tp("ws/moved")));
	expect_canary();
	cr_expect(WIFEXITED(status) && WEXITSTATUS(status) == 0, "status %d\n%s", status, err);
	cr_expect_eq(count(out, " -1 13 "), 3, "the three calls did not all fail EACCES:\n%s", out);

	const char *want[] = {
		fmt("cordon: deny create %s/* (openat) pid ", tp("outside")),
		fmt("cordon: deny write %s (openat) pid ", tp("outside/canary")),
		fmt("cordon: deny rename %s/* (renameat2) pid ", tp("outside")),
	};
	for (size_t i = 0; i < 3; i++) {
		const char *line = strstr(err, want[i]);
		cr_expect_not_null(line, "no line %s\nstderr:\n%s", want[i], err);
		if (!line)
			continue;
		size_t len = strcspn(line, "\n");
		const char *l = fmt("%.*s", (int)len, line);
		cr_expect(strstr(l, fmt(" %s: outside write roots", ops_static)) &&
			  strstr(l, fmt("to allow: write %s [kernel]", tp("outside"))),
			  "line: %s", l);
	}
	cr_expect_eq(count(err, "cordon: deny "), 3, "stderr:\n%s", err);

	char s[8192];
	cr_assert_geq(fixture_slurp(tp("summary.json"), s, sizeof(s)), 0, "no summary");
	cr_expect(strncmp(s, "{\"v\":1,\"refused\":3,", 19) == 0, "summary:\n%s", s);
	cr_expect(strstr(s, fmt("{\"op\":\"create\",\"target\":\"%s/*\",\"count\":1,\"reason\":"
				"\"outside write roots\",\"layer\":\"kernel\",\"allow\":\"write %s\"}",
				tp("outside"), tp("outside"))),
		  "summary:\n%s", s);
}

/* A dynamic program's read of a read-deny file: Landlock refuses it, the
 * shim finds that out after the call and hands its line to cordon, and the
 * kernel's log has the refusal too. Told once, counted once, as the
 * kernel's; the file next to it reads. */
Test(kaudit, a_kernel_refusal_the_shim_saw_is_told_once)
{
	need_audit();
	int fd = open(tp("outside/secret"), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	cr_assert(fd >= 0 && write(fd, "secret", 6) == 6);
	close(fd);
	run(ARGS("--read-deny", tp("outside/secret"), "--summary", tp("summary.json")),
	    ARGS(ops_dyn, "read", tp("outside/secret"), "read", tp("outside/canary")));
	expect_canary();
	cr_expect_eq(count(out, " -1 13 "), 1, "the read was not refused EACCES:\n%s", out);
	cr_expect(strstr(out, "keep"), "the sibling did not read:\n%s", out);
	cr_expect_eq(count(err, "cordon: deny "), 1, "stderr:\n%s", err);
	cr_expect(strstr(err, fmt("cordon: deny read %s (", tp("outside/secret"))), "stderr:\n%s",
		  err);
	cr_expect_eq(count(err, "[kernel]"), 1, "stderr:\n%s", err);
	char s[8192];
	cr_assert_geq(fixture_slurp(tp("summary.json"), s, sizeof(s)), 0, "no summary");
	cr_expect(strncmp(s, "{\"v\":1,\"refused\":1,", 19) == 0, "summary:\n%s", s);
}

/* The refusals cordon's own self-test provokes between applying the jail
 * and exec are not the program's, and are neither logged nor counted. */
Test(kaudit, a_run_without_refusals_reports_none)
{
	need_audit();
	run(ARGS("--summary", tp("summary.json")), ARGS(ops_static, "sys-write", tp("ws/f"), "x"));
	cr_expect(WIFEXITED(status) && WEXITSTATUS(status) == 0, "status %d\n%s", status, err);
	cr_expect_str_eq(err, "", "cordon said something");
	char s[8192];
	cr_assert_geq(fixture_slurp(tp("summary.json"), s, sizeof(s)), 0, "no summary");
	cr_expect(strncmp(s, "{\"v\":1,\"refused\":0,", 19) == 0, "summary:\n%s", s);
}

/* A program under the shim is refused by the shim before the kernel sees
 * the call; one that goes around it with a raw call is refused by the
 * kernel. Each refusal is counted once, by the layer that made it. */
Test(kaudit, each_refusal_counted_once_by_its_layer)
{
	need_audit();
	run(ARGS("--summary", tp("summary.json")),
	    ARGS(ops_dyn, "write", tp("outside/new"), "x", "sys-reopen", tp("outside/canary"), "x"));
	expect_canary();
	cr_expect_eq(count(err, "cordon: deny "), 2, "stderr:\n%s", err);
	cr_expect_eq(count(err, "[shim]"), 1, "stderr:\n%s", err);
	cr_expect_eq(count(err, "[kernel]"), 1, "stderr:\n%s", err);
	char s[8192];
	cr_assert_geq(fixture_slurp(tp("summary.json"), s, sizeof(s)), 0, "no summary");
	cr_expect(strncmp(s, "{\"v\":1,\"refused\":2,", 19) == 0, "summary:\n%s", s);
}

/* The record of the run holds the kernel's refusals too: explain --last
 * gives the line that allows them. */
Test(kaudit, explain_last_answers_for_the_kernels_refusals)
{
	need_audit();
	run(ARGS("--log", "off"), ARGS(ops_static, "sys-write", tp("outside/new"), "x"));
	expect_canary();

	const char *argv[] = { cordon_bin, "explain", "--last", NULL };
	status = fixture_run(argv, NULL);
	fixture_slurp(tp("stdout"), out, sizeof(out));
	cr_expect(WIFEXITED(status) && WEXITSTATUS(status) == 1, "status %d\n%s", status, out);
	cr_expect(strstr(out, fmt("create %s/*", tp("outside"))), "explain --last:\n%s", out);
	cr_expect(strstr(out, fmt("to allow: write %s", tp("outside"))), "explain --last:\n%s", out);
}

/* --- records as they come: the reader, fed through a socket of our own ------- */

static void send_record(int fd, int type, const char *text)
{
	char buf[1024];
	struct nlmsghdr *h = (struct nlmsghdr *)buf;
	size_t n = strlen(text);

	cr_assert_lt(NLMSG_HDRLEN + n, sizeof(buf));
	memset(h, 0, NLMSG_HDRLEN);
	h->nlmsg_len = (unsigned)(NLMSG_HDRLEN + n);
	h->nlmsg_type = (unsigned short)type;
	memcpy(buf + NLMSG_HDRLEN, text, n);
	cr_assert_eq(send(fd, buf, NLMSG_HDRLEN + n, 0), (ssize_t)(NLMSG_HDRLEN + n));
}

/* Every process's records come to the reader, and another event's can
 * arrive between a denial's LANDLOCK_ACCESS and its SYSCALL record: the
 * denial is still told with its own process and call, and the other
 * event's are not mixed into it. */
Test(records, interleaved_events_are_told_apart)
{
	int sv[2];
	struct policy pol;
	struct supervise_event ev;

	policy_init(&pol);
	cr_assert_eq(socketpair(AF_UNIX, SOCK_DGRAM | SOCK_NONBLOCK, 0, sv), 0);
	send_record(sv[1], AUDIT_LANDLOCK_ACCESS,
		    "audit(1796044237.676:20): domain=1a2b3c blockers=fs.make_reg "
		    "path=\"/outside\" dev=\"tmpfs\" ino=7");
	send_record(sv[1], AUDIT_LANDLOCK_DOMAIN,
		    "audit(1796044237.676:20): domain=1a2b3c status=allocated mode=enforcing "
		    "pid=4242 uid=0 exe=\"/prog\" comm=\"prog\"");
	send_record(sv[1], AUDIT_SYSCALL,
		    "audit(1796044237.677:21): arch=c000003e syscall=3 success=yes exit=0 a0=3 "
		    "ppid=1 pid=999 auid=0 uid=0 comm=\"other\" exe=\"/other\" key=(null)");
	send_record(sv[1], AUDIT_SYSCALL,
		    "audit(1796044237.676:20): arch=c000003e syscall=257 success=no exit=-13 "
		    "a0=ffffff9c ppid=4241 pid=4242 auid=0 uid=0 comm=\"prog\" exe=\"/prog\" "
		    "key=(null)");
	send_record(sv[1], AUDIT_EOE, "audit(1796044237.677:21): ");
	send_record(sv[1], AUDIT_EOE, "audit(1796044237.676:20): ");

	cr_assert_eq(kaudit_read(sv[0], &pol, 4242, &ev), 1, "the denial was not told");
	cr_expect_eq(ev.pid, 4242);
	cr_expect_str_eq(ev.call ? ev.call : "(none)", "openat");
	cr_expect_str_eq(ev.exe ? ev.exe : "(none)", "/prog");
	cr_expect_str_eq(ev.op, "create");
	cr_expect_str_eq(ev.path, "/outside/*");
	cr_expect_eq(kaudit_read(sv[0], &pol, 4242, &ev), 0, "a second event was told");
	close(sv[0]);
	close(sv[1]);
	policy_free(&pol);
}
