/*
 * test_run.c - `cordon run` end to end: the real build/cordon runs the
 * driver tests/helpers/run_ops.c (dynamically linked: the shim sees it) or
 * run_ops-static (the shim cannot see it) under a policy written for the
 * test, and we check from this process, outside the sandbox, what the
 * program managed: escape attempts against both layers, the supervisor
 * (exit statuses, signals, timeout, leftover processes, environment,
 * private TMPDIR), the kernel layer without the shim, the self-test and
 * on-unsupported, and the sealed policy descriptor.
 *
 * Each test runs in its own process with its own tree, removed afterwards:
 *
 *   $T/                    mkdtemp("/dev/shm/cordon-run-XXXXXX"), canonical;
 *                          cordon's working directory
 *     policy               the test's policy: `write $T/root`, `net none`, ...
 *     root/                the write root
 *     outside/             beneath no write root: canaries only (the tests
 *       canary "canary"    run as root, so nothing else may ever be the
 *                          target of a refusal)
 *     tmp/                 cordon's TMPDIR: its self-test probe and private
 *                          TMPDIRs are made here, and must be gone after
 *     stdout, stderr       cordon's (and the program's) output
 *     log                  --log-file, where a test asks for it
 *
 * A refusal is proven twice: by the driver's result line (-1 and the errno
 * the layer gives: EACCES for Landlock and the shim, EPERM or ENOSYS for
 * seccomp, EXDEV for Landlock's REFER) and by what we find afterwards: the
 * canaries unchanged, no new name, no connection at our listener, our
 * process alive. Where a refusal could be the host's doing rather than
 * cordon's (io_uring, TIOCSTI), the same operation runs once outside the
 * sandbox first and must work there.
 *
 * Environment (set by `make check`): CORDON_BUILD (build directory,
 * relative to CORDON_SRC), CORDON_SRC (the repository), CORDON_PRELOAD_FIRST
 * (SANITIZE=1: the ASan runtime). Under SANITIZE=1 cordon puts the
 * instrumented shim first in LD_PRELOAD, before the runtime, and the jail
 * refuses the ptrace LeakSanitizer needs at exit: every run gets
 * ASAN_OPTIONS=verify_asan_link_order=0:detect_leaks=0, except the one test
 * that checks cordon's own leaks with a static program (which loads no shim).
 */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <mqueue.h>
#include <netinet/in.h>
#include <sched.h>
#include <seccomp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/shm.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <grp.h>
#include <time.h>
#include <unistd.h>
#define FIXTURE_TREE     /* T, tp(), fmt() */
#define FIXTURE_RUN_OPS  /* struct res, R's type, EXPECT(), fixture_expect_exit() */
#define FIXTURE_PROGRAM  /* program() */
#include "fixture.h"

#ifndef SYS_landlock_create_ruleset
#define SYS_landlock_create_ruleset 444
#endif

#define GUARD_SECONDS 20  /* a cordon still running after this is killed: a failure */

extern char **environ;

/* --- fixture ---------------------------------------------------------------------- */

static char cordon_bin[PATH_MAX];     /* build/cordon */
static char ops_dyn[PATH_MAX];        /* build/tests/helpers/run_ops */
static char ops_static[PATH_MAX];     /* build/tests/helpers/run_ops-static */
static char shim_lib[PATH_MAX];       /* build/libcordon.so */
static pid_t victim = -1;             /* a process outside the sandbox (kill, ptrace) */

static void put_file(const char *rel, const char *text, mode_t mode)
{
	int fd = open(tp(rel), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);

	cr_assert_geq(fd, 0, "create %s: %s", rel, strerror(errno));
	cr_assert_eq(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
}

/* The content of $T/@rel (the first 64 KiB), or NULL when it does not exist. */
static const char *content(const char *rel)
{
	static char ring[4][1 << 16];
	static unsigned next;
	char *b = ring[next++ % 4];

	return fixture_slurp(tp(rel), b, sizeof(ring[0])) < 0 ? NULL : b;
}

static bool exists(const char *rel)
{
	struct stat st;
	return lstat(tp(rel), &st) == 0;
}

/* $T/tmp, cordon's TMPDIR, is empty again: the self-test's probe directory
 * and the private TMPDIR were removed. */
static void expect_tmp_empty(void)
{
	DIR *d = opendir(tp("tmp"));

	cr_assert_not_null(d);
	for (struct dirent *e; (e = readdir(d));)
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			cr_expect_fail("tmp/%s was left behind", e->d_name);
	closedir(d);
}

/* The canaries in outside/: name and content, checked by outside_intact(). */
static struct {
	const char *name;
	const char *text;
} canaries[8];
static size_t n_canaries;

static void canary(const char *name, const char *text)
{
	cr_assert_lt(n_canaries, sizeof(canaries) / sizeof(canaries[0]));
	put_file(fmt("outside/%s", name), text, 0644);
	canaries[n_canaries].name = name;
	canaries[n_canaries++].text = text;
}

/* outside/ holds exactly its canaries, unchanged. */
static void expect_outside_intact(void)
{
	DIR *d = opendir(tp("outside"));
	size_t n = 0;

	for (size_t i = 0; i < n_canaries; i++) {
		const char *c = content(fmt("outside/%s", canaries[i].name));
		cr_expect_str_eq(c ? c : "(missing)", canaries[i].text, "outside/%s was changed",
				 canaries[i].name);
	}
	cr_assert_not_null(d);
	for (struct dirent *e; (e = readdir(d));) {
		bool known = !strcmp(e->d_name, ".") || !strcmp(e->d_name, "..");
		for (size_t i = 0; i < n_canaries; i++)
			known = known || !strcmp(e->d_name, canaries[i].name);
		if (!known)
			cr_expect_fail("outside/%s was created", e->d_name);
		n++;
	}
	closedir(d);
	cr_expect_eq(n, n_canaries + 2, "outside/ has %zu entries, want %zu", n, n_canaries + 2);
}


static const char *policy_path(void)
{
	return tp("policy");
}

/* $T/policy: the write root, nothing else, every setting explicit; then
 * @extra (later lines win for scalars). on-unsupported warn: on a kernel
 * with an older Landlock ABI, cordon still runs the tests that do not
 * depend on what is missing (those skip, saying why); the tests of
 * on-unsupported itself say what they want. */
static void policy(const char *extra)
{
	put_file("policy",
		 fmt("# test_run.c: one write root, no network, everything spelled out\n"
		     "write %s\n"
		     "net none\n"
		     "subprocess yes\n"
		     "private-tmp no\n"
		     "env inherit\n"
		     "mode enforce\n"
		     "backend auto\n"
		     "on-unsupported warn\n"
		     "log deny\n"
		     "log-format text\n"
		     "%s",
		     tp("root"), extra ? extra : ""),
		 0644);
}

static void setup(void)
{
	fixture_mktree("/dev/shm/cordon-run-XXXXXX");
	program(cordon_bin, "cordon");
	program(ops_dyn, "tests/helpers/run_ops");
	program(ops_static, "tests/helpers/run_ops-static");
	program(shim_lib, "libcordon.so");
	cr_assert_eq(mkdir(tp("root"), 0755), 0);
	cr_assert_eq(mkdir(tp("outside"), 0755), 0);
	cr_assert_eq(mkdir(tp("tmp"), 0755), 0);
	canary("canary", "canary");
	policy(NULL);
}

static void teardown(void)
{
	if (victim > 0) {
		kill(victim, SIGKILL);
		waitpid(victim, NULL, 0);
		victim = -1;
	}
	if (strncmp(T, "/dev/shm/cordon-run-", 20) == 0) {
		/* Should a mount ever get through, do not leave it behind. */
		umount2(tp("root/mnt"), MNT_DETACH);
		fixture_rmtree(T);
	}
	T[0] = '\0';
}

/* Skip the test with a reason. Criterion runs no .fini after a skip, so
 * the tree goes first. */
#define SKIP(...)                                                                       \
	do {                                                                            \
		teardown();                                                             \
		cr_skip_test(__VA_ARGS__);                                      \
	} while (0)

/* --- what the host offers ---------------------------------------------------------- */

static int landlock_abi(void)
{
	long abi = syscall(SYS_landlock_create_ruleset, NULL, 0, 1U /* _VERSION */);
	return abi < 0 ? 0 : (int)abi;
}

static void need_landlock(int abi, const char *what)
{
	int have = landlock_abi();

	if (have < abi)
		SKIP("%s needs Landlock ABI %d; this kernel has %d", what, abi, have);
}

static void need_seccomp(void)
{
	if (prctl(PR_GET_SECCOMP, 0, 0, 0, 0) < 0)
		SKIP("seccomp is not in this kernel: %s", strerror(errno));
}

/* --- running cordon ------------------------------------------------------------------ */

/* Make the kernel layer fail in a way cordon must notice, for the process
 * that execs cordon and everything below it (a seccomp filter: inherited). */
enum fake {
	FAKE_NONE,
	FAKE_NO_LANDLOCK,     /* landlock_create_ruleset: ENOSYS, as a kernel without it */
	FAKE_LYING_LANDLOCK,  /* landlock_restrict_self: 0, and nothing restricted */
	FAKE_USER,            /* cordon started as uid and gid 1234, no groups */
};

/* In the child before cordon's exec (fixture_spawn): @arg, an enum fake. */
static int apply_fake(int arg)
{
	enum fake fake = (enum fake)arg;
	scmp_filter_ctx ctx;
	int rc = 0;

	switch (fake) {
	case FAKE_NONE:
		return 0;
	case FAKE_USER:
		return setgroups(0, NULL) < 0 || setresgid(1234, 1234, 1234) < 0 ||
				       setresuid(1234, 1234, 1234) < 0
			       ? -1
			       : 0;
	case FAKE_NO_LANDLOCK:
	case FAKE_LYING_LANDLOCK:
		break;
	}
	ctx = seccomp_init(SCMP_ACT_ALLOW);
	if (!ctx)
		return -1;
	if (fake == FAKE_NO_LANDLOCK)
		rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(ENOSYS),
				      seccomp_syscall_resolve_name("landlock_create_ruleset"), 0);
	else
		rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(0),
				      seccomp_syscall_resolve_name("landlock_restrict_self"), 0);
	if (rc == 0)
		rc = seccomp_load(ctx);
	seccomp_release(ctx);
	return rc;
}

static struct fixture_run_result R;

#define ARGS(...) ((const char *const[]){ __VA_ARGS__, NULL })

/* Criterion may hand a parameter to a test in another address space (it
 * re-executes the suite): parameters are indices into static tables of
 * variants, never pointers. */
#define INDEX_PARAMS(table)                                                             \
	do {                                                                            \
		static size_t idx_[sizeof(table) / sizeof(table[0])];                   \
		for (size_t i_ = 0; i_ < sizeof(idx_) / sizeof(idx_[0]); i_++)         \
			idx_[i_] = i_;                                                  \
		return cr_make_param_array(size_t, idx_, sizeof(idx_) / sizeof(idx_[0])); \
	} while (0)

static double started;

/* Start @argv in $T (fixture_spawn), faking what @fake says. */
static pid_t spawn(const char *const *argv, const char *const *env, enum fake fake)
{
	return fixture_spawn(argv, env, apply_fake, (int)fake, &started);
}

/* Wait for @pid (killed after GUARD_SECONDS: a failure); R holds the rest. */
static void finish(pid_t pid)
{
	fixture_finish(pid, started, GUARD_SECONDS, &R);
}

/* argv for `cordon CMD --policy $T/policy OPTS... -- PROG...` (PROG may be NULL). */
static const char *const *cordon_argv(const char *cmd, const char *const *opts,
				      const char *const *prog)
{
	static const char *argv[256];
	size_t a = 0;

	argv[a++] = cordon_bin;
	argv[a++] = cmd;
	argv[a++] = "--policy";
	argv[a++] = policy_path();
	for (size_t i = 0; opts && opts[i]; i++)
		argv[a++] = opts[i];
	if (prog) {
		argv[a++] = "--";
		for (size_t i = 0; prog[i]; i++) {
			cr_assert_lt(a, 250);
			argv[a++] = prog[i];
		}
	}
	argv[a] = NULL;
	return argv;
}

/* cordon run OPTS -- PROG..., to the end. */
static void run_env(const char *const *opts, const char *const *prog, const char *const *env,
		    enum fake fake)
{
	finish(spawn(cordon_argv("run", opts, prog), env, fake));
}

static void run(const char *const *opts, const char *const *prog)
{
	run_env(opts, prog, NULL, FAKE_NONE);
}

/* @prog..., without cordon: the control experiment. */
static void run_bare(const char *const *prog)
{
	finish(spawn(prog, NULL, FAKE_NONE));
}

static void expect_exit(int code)
{
	fixture_expect_exit(&R, code);
}

/* --- the driver's result lines ---------------------------------------------------- */

/* The lines "NAME RET ERRNO [INFO]" of R.out, in order. */
static size_t results(struct res *v, size_t max)
{
	return fixture_results(R.out, v, max);
}

static struct res got[64];

/* --- listeners outside the sandbox -------------------------------------------------- */

/* A socket of ours, bound on 127.0.0.1 (port chosen by the kernel). */
static int inet_socket(int type, unsigned *port)
{
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t len = sizeof(sa);
	int s = socket(AF_INET, type | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);

	cr_assert_geq(s, 0, "socket: %s", strerror(errno));
	cr_assert_eq(bind(s, (struct sockaddr *)&sa, sizeof(sa)), 0, "bind: %s", strerror(errno));
	if (type == SOCK_STREAM)
		cr_assert_eq(listen(s, 16), 0);
	cr_assert_eq(getsockname(s, (struct sockaddr *)&sa, &len), 0);
	*port = ntohs(sa.sin_port);
	return s;
}

/* A listener of ours on the abstract unix name @name. */
static int abstract_listener(const char *name)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	int s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);

	cr_assert_geq(s, 0);
	memcpy(sun.sun_path + 1, name, strlen(name));
	cr_assert_eq(bind(s, (struct sockaddr *)&sun,
			  (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + strlen(name))),
		     0, "bind @%s: %s", name, strerror(errno));
	cr_assert_eq(listen(s, 16), 0);
	return s;
}

/* How many connections wait at listener @s (taken and closed). */
static int accepted(int s)
{
	int n = 0, c;

	while ((c = accept4(s, NULL, NULL, SOCK_CLOEXEC)) >= 0) {
		close(c);
		n++;
	}
	return n;
}

/* A process of ours, outside the sandbox, that only waits. */
static pid_t start_victim(void)
{
	victim = fork();
	cr_assert_geq(victim, 0);
	if (victim == 0) {
		for (;;)
			pause();
	}
	return victim;
}

static bool victim_alive(void)
{
	return waitpid(victim, NULL, WNOHANG) == 0 && kill(victim, 0) == 0;
}

/* ==================================================================================== */
/* Escapes: each refused, checked from outside.                                         */
/* ==================================================================================== */

struct writer {
	const char *binary;  /* "dynamic" (run_ops) or "static" (run_ops-static) */
	const char *op;      /* the driver's write operation */
};

static const struct writer writers[] = {
	{ "dynamic", "write" },        /* libc: the shim refuses first */
	{ "dynamic", "sys-write" },    /* raw syscall(SYS_openat) */
	{ "dynamic", "rtld-write" },   /* dlsym(RTLD_NEXT, "open") */
	{ "dynamic", "dlopen-write" }, /* dlopen("libc.so.6") + dlsym */
	{ "static", "sys-write" },     /* no shim at all */
	{ "static", "write" },
};

ParameterizedTestParameters(escape, write_outside_refused_inside_allowed)
{
	INDEX_PARAMS(writers);
}

ParameterizedTest(size_t *variant, escape, write_outside_refused_inside_allowed,
		  .init = setup, .fini = teardown, .timeout = 30)
{
	const struct writer *w = &writers[*variant];
	bool dyn = strcmp(w->binary, "dynamic") == 0;

	need_landlock(1, "a static or raw write");
	run(NULL, ARGS(dyn ? ops_dyn : ops_static, "shim-loaded", w->op, "outside/canary", "x",
		       w->op, "outside/new", "x", w->op, "root/new", "inside"));
	expect_exit(0);
	EXPECT(VAL("shim-loaded", dyn ? 0 : -1), NO(w->op, EACCES), NO(w->op, EACCES),
	       OK(w->op));
	cr_expect_str_eq(got[1].info, "open", "refused at %s, want at open", got[1].info);
	expect_outside_intact();
	cr_expect_str_eq(content("root/new") ? content("root/new") : "(missing)", "inside");
}

static const char *const binaries[] = { "dynamic", "static" };

ParameterizedTestParameters(escape, io_uring_setup_enosys)
{
	INDEX_PARAMS(binaries);
}

ParameterizedTest(size_t *variant, escape, io_uring_setup_enosys, .init = setup,
		  .fini = teardown, .timeout = 30)
{
	const char *ops = strcmp(binaries[*variant], "dynamic") == 0 ? ops_dyn : ops_static;
	unsigned port;
	int l = inet_socket(SOCK_STREAM, &port);

	need_seccomp();
	/* Outside the sandbox the driver's io_uring writes and connects. */
	run_bare(ARGS(ops, "uring-write", "root/control", "written", "uring-connect", "127.0.0.1",
		      fmt("%u", port)));
	results(got, 64);
	if (got[0].ret < 0 && strcmp(got[0].info, "setup") == 0)
		SKIP("io_uring does not work here even outside the sandbox: %s",
			     strerror(got[0].err));
	EXPECT(OK("uring-write"), OK("uring-connect"));
	cr_expect_str_eq(content("root/control") ? content("root/control") : "(missing)",
			 "written");
	cr_expect_eq(accepted(l), 1);

	run(NULL, ARGS(ops, "uring-write", "outside/canary", "x", "uring-write", "root/x", "x",
		       "uring-connect", "127.0.0.1", fmt("%u", port)));
	expect_exit(0);
	EXPECT(NO("uring-write", ENOSYS), NO("uring-write", ENOSYS), NO("uring-connect", ENOSYS));
	for (int i = 0; i < 3; i++)
		cr_expect_str_eq(got[i].info, "setup", "result %d refused at %s", i, got[i].info);
	expect_outside_intact();
	cr_expect_not(exists("root/x"));
	cr_expect_eq(accepted(l), 0, "a connection reached the listener");
	close(l);
}

Test(escape, truncate_outside_refused, .init = setup, .fini = teardown, .timeout = 30)
{
	need_landlock(3, "refusing truncate(2)");
	run(NULL, ARGS(ops_dyn, "sys-truncate", "outside/canary"));
	expect_exit(0);
	EXPECT(NO("sys-truncate", EACCES));
	expect_outside_intact();
}

Test(escape, link_and_rename_into_root_refused, .init = setup, .fini = teardown, .timeout = 30)
{
	need_landlock(2, "refusing links and renames across directories");
	run(NULL, ARGS(ops_dyn, "sys-link", "outside/canary", "root/linked", "sys-rename",
		       "outside/canary", "root/renamed"));
	expect_exit(0);
	/* Landlock answers EXDEV for a reparenting it refuses (REFER),
	 * EACCES for a name it may not remove or make. */
	EXPECT(NO2("sys-link", EXDEV, EACCES), NO2("sys-rename", EXDEV, EACCES));
	expect_outside_intact();
	cr_expect_not(exists("root/linked"), "root/linked was made");
	cr_expect_not(exists("root/renamed"), "root/renamed was made");
}

Test(escape, write_through_symlink_out_of_root_refused, .init = setup, .fini = teardown,
     .timeout = 30)
{
	need_landlock(1, "a raw write");
	cr_assert_eq(symlink("../outside", tp("root/out")), 0);
	run(NULL, ARGS(ops_dyn, "sys-symlink", "../outside/canary", "root/esc", "sys-write",
		       "root/esc", "x", "sys-write", "root/out/canary", "x", "sys-write",
		       "root/out/new", "x", "write", "root/out/new", "x"));
	expect_exit(0);
	/* Making the link is a write inside the root: allowed. */
	EXPECT(OK("sys-symlink"), NO("sys-write", EACCES), NO("sys-write", EACCES),
	       NO("sys-write", EACCES), NO("write", EACCES));
	expect_outside_intact();
}

Test(escape, tcp_connect_unlisted_port_refused, .init = setup, .fini = teardown, .timeout = 30)
{
	unsigned port;
	int l = inet_socket(SOCK_STREAM, &port);
	const char *p = fmt("%u", port);

	need_landlock(4, "refusing TCP connect");
	run(NULL, ARGS(ops_dyn, "connect", "127.0.0.1", p, "sys-connect", "127.0.0.1", p));
	expect_exit(0);
	EXPECT(NO("connect", EACCES), NO("sys-connect", EACCES));
	run(NULL, ARGS(ops_static, "sys-connect", "127.0.0.1", p));
	expect_exit(0);
	EXPECT(NO("sys-connect", EACCES));
	cr_expect_eq(accepted(l), 0, "a connection reached the listener");
	close(l);
}

Test(escape, udp_send_refused, .init = setup, .fini = teardown, .timeout = 30)
{
	unsigned port;
	int u = inet_socket(SOCK_DGRAM, &port);
	char buf[64];

	need_seccomp();
	run(NULL, ARGS(ops_dyn, "sys-udp", "127.0.0.1", fmt("%u", port), "hello"));
	expect_exit(0);
	EXPECT(NO("sys-udp", EACCES));
	cr_expect_str_eq(got[0].info, "socket");
	run(NULL, ARGS(ops_static, "sys-udp", "127.0.0.1", fmt("%u", port), "hello"));
	expect_exit(0);
	EXPECT(NO("sys-udp", EACCES));
	cr_expect_eq(recv(u, buf, sizeof(buf), MSG_DONTWAIT), -1, "a datagram arrived");
	close(u);
}

/* The control for the test above: with net all the same datagram arrives. */
Test(escape, udp_send_net_all_received, .init = setup, .fini = teardown, .timeout = 30)
{
	unsigned port;
	int u = inet_socket(SOCK_DGRAM, &port);
	char buf[64] = "";

	policy("net all\n");
	run(NULL, ARGS(ops_static, "sys-udp", "127.0.0.1", fmt("%u", port), "hello"));
	expect_exit(0);
	EXPECT(OK("sys-udp"));
	cr_expect_eq(recv(u, buf, sizeof(buf) - 1, MSG_DONTWAIT), 5, "no datagram: %s",
		     strerror(errno));
	cr_expect_str_eq(buf, "hello");
	close(u);
}

/* TCP Fast Open: a send with MSG_FASTOPEN and an address connects the
 * socket without connect(2), which Landlock's port rule and the supervisor
 * watch. With net none it fails as on a host where it is off, for each
 * call that can carry it; the program's fallback, connect, is decided. */
static bool host_tfo_client(void)
{
	FILE *f = fopen("/proc/sys/net/ipv4/tcp_fastopen", "r");
	int v = 0;

	if (f) {
		if (fscanf(f, "%d", &v) != 1)
			v = 0;
		fclose(f);
	}
	return v & 1;
}

#define TFO_ALL(p)                                                                     \
	"sys-tfo", "127.0.0.1", p, "sendto", "sys-tfo", "127.0.0.1", p, "sendmsg", "sys-tfo", \
		"127.0.0.1", p, "sendmmsg"

Test(escape, tcp_fast_open_refused, .init = setup, .fini = teardown, .timeout = 30)
{
	unsigned port;
	int l = inet_socket(SOCK_STREAM, &port);
	const char *p = fmt("%u", port);

	if (!host_tfo_client())
		SKIP("TCP Fast Open is off for clients here (net.ipv4.tcp_fastopen): nothing to refuse");
	need_seccomp();
	run(NULL, ARGS(ops_static, TFO_ALL(p)));
	expect_exit(0);
	EXPECT(NO("sys-tfo", EOPNOTSUPP), NO("sys-tfo", EOPNOTSUPP), NO("sys-tfo", EOPNOTSUPP));
	cr_expect_eq(accepted(l), 0, "a connection reached the listener");
	/* A listed port: the fallback connects. */
	policy(fmt("net-connect %s\n", p));
	run(NULL, ARGS(ops_static, "sys-tfo", "127.0.0.1", p, "sendto", "sys-connect", "127.0.0.1", p));
	expect_exit(0);
	EXPECT(NO("sys-tfo", EOPNOTSUPP), OK("sys-connect"));
	cr_expect_eq(accepted(l), 1);
	close(l);
}

/* The control: with net all each of the three connects. */
Test(escape, tcp_fast_open_net_all_connects, .init = setup, .fini = teardown, .timeout = 30)
{
	unsigned port;
	int l = inet_socket(SOCK_STREAM, &port);

	if (!host_tfo_client())
		SKIP("TCP Fast Open is off for clients here (net.ipv4.tcp_fastopen)");
	policy("net all\n");
	run(NULL, ARGS(ops_static, TFO_ALL(fmt("%u", port))));
	expect_exit(0);
	EXPECT(OK("sys-tfo"), OK("sys-tfo"), OK("sys-tfo"));
	cr_expect_eq(accepted(l), 3);
	close(l);
}

/* MPTCP (and SCTP) sockets are TCP's type with another protocol, which
 * Landlock's port rules do not cover: an MPTCP socket binds any port. */
Test(escape, tcp_other_protocols_refused, .init = setup, .fini = teardown, .timeout = 30)
{
	int m = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 262);

	if (m < 0)
		SKIP("no MPTCP here (socket: %s): nothing to refuse", strerror(errno));
	close(m);
	need_seccomp();
	run(NULL, ARGS(ops_static, "sys-socket-proto", "262", "sys-socket-proto", "6",
		       "sys-socket-proto", "0"));
	expect_exit(0);
	EXPECT(NO("sys-socket-proto", EPROTONOSUPPORT), OK("sys-socket-proto"),
	       OK("sys-socket-proto"));
	policy("net all\n");
	run(NULL, ARGS(ops_static, "sys-socket-proto", "262"));
	expect_exit(0);
	EXPECT(OK("sys-socket-proto"));
}

/* A TCP bind to a port net-bind does not list: the shim refuses it and
 * says which line would allow it; Landlock refuses a static program's. */
Test(escape, tcp_bind_unlisted_port_refused, .init = setup, .fini = teardown, .timeout = 30)
{
	unsigned port;
	int s = inet_socket(SOCK_STREAM, &port);  /* a port that was free */
	const char *p = fmt("%u", port);

	close(s);
	need_landlock(4, "refusing TCP bind");
	run(NULL, ARGS(ops_dyn, "bind", "127.0.0.1", p));
	expect_exit(0);
	EXPECT(NO("bind", EACCES));
	cr_expect(strstr(R.err, fmt("deny bind 127.0.0.1:%s/tcp (bind)", p)) &&
			  strstr(R.err, "to allow: net-bind PORT or net all [shim]"),
		  "stderr:\n%s", R.err);
	run(NULL, ARGS(ops_static, "sys-listen", "127.0.0.1", p));
	expect_exit(0);
	EXPECT(NO("sys-listen", EACCES));
	cr_expect_str_eq(got[0].info, "bind");
}

/* listen(2) on a socket bound to no port binds one at random, a bind
 * Landlock does not see: refused and said as a bind; a socket bound to a
 * listed port listens. */
Test(escape, listen_on_unbound_socket_refused, .init = setup, .fini = teardown, .timeout = 30)
{
	unsigned port;
	int s = inet_socket(SOCK_STREAM, &port);  /* a port that was free */

	close(s);
	need_landlock(4, "refusing TCP bind");
	run(NULL, ARGS(ops_static, "sys-listen", "127.0.0.1", "-"));
	expect_exit(0);
	EXPECT(NO("sys-listen", EACCES));
	cr_expect_str_eq(got[0].info, "listen");
	cr_expect(strstr(R.err, "deny bind 0.0.0.0:0/tcp (listen)"), "stderr:\n%s", R.err);
	cr_expect(strstr(R.err, "a port taken at random (port 0) cannot be listed") &&
			  strstr(R.err, "to allow: net isolated or net all"),
		  "stderr:\n%s", R.err);
	policy(fmt("net-bind %u\n", port));
	run(NULL, ARGS(ops_static, "sys-listen", "127.0.0.1", fmt("%u", port), "sys-listen",
		       "127.0.0.1", "-"));
	expect_exit(0);
	EXPECT(OK("sys-listen"), NO("sys-listen", EACCES));
	cr_expect_str_eq(got[0].info, fmt("%u", port));
	policy("net all\n");
	run(NULL, ARGS(ops_static, "sys-listen", "127.0.0.1", "-"));
	expect_exit(0);
	EXPECT(OK("sys-listen"));
	cr_expect_str_neq(got[0].info, "0");
}

/* Connect to the abstract unix name @name, for up to @ms milliseconds:
 * whether a connection was made. */
static bool abstract_connects(const char *name, int ms)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	socklen_t len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + strlen(name));

	memcpy(sun.sun_path + 1, name, strlen(name));
	for (int t = 0; t < ms; t += 10) {
		int s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
		int r = connect(s, (struct sockaddr *)&sun, len);
		close(s);
		if (r == 0)
			return true;
		usleep(10000);
	}
	return false;
}

/* Send datagrams to the abstract unix name @name for up to @ms
 * milliseconds: whether one was taken (sendto returned). */
static bool abstract_datagram_sent(const char *name, int ms)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	socklen_t len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + strlen(name));
	int s = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	bool sent = false;

	memcpy(sun.sun_path + 1, name, strlen(name));
	for (int t = 0; t < ms && !sent; t += 10) {
		sent = sendto(s, "squat", 5, MSG_DONTWAIT, (struct sockaddr *)&sun, len) == 5;
		if (!sent)
			usleep(10000);
	}
	close(s);
	return sent;
}

/* Abstract unix names are the host's under net none (it keeps the host's
 * network namespace): a program's socket bound to one would take what
 * programs outside send to that name, meant for the service whose name it
 * took: a listener their connections, a datagram socket (which needs no
 * listen) their datagrams. A static program's bind to the name is refused
 * by the supervisor; with net all (the control) our connection or
 * datagram reaches the program. */
struct squatter {
	const char *op;                       /* the driver's: bind, then count */
	bool (*reach)(const char *name, int ms);
};

static const struct squatter squatters[] = {
	{ "sys-abstract-listen", abstract_connects },
	{ "sys-abstract-dgram", abstract_datagram_sent },
};

ParameterizedTestParameters(escape, abstract_name_squatter_refused)
{
	INDEX_PARAMS(squatters);
}

ParameterizedTest(size_t *variant, escape, abstract_name_squatter_refused, .init = setup,
		  .fini = teardown, .timeout = 30)
{
	const struct squatter *q = &squatters[*variant];
	const char *name = fmt("cordon-run-squat-%d", (int)getpid());

	need_seccomp();
	pid_t pid = spawn(cordon_argv("run", NULL, ARGS(ops_static, q->op, name, "2")), NULL,
			  FAKE_NONE);
	bool reached = q->reach(name, 1500);
	finish(pid);
	expect_exit(0);
	EXPECT(NO(q->op, EACCES));
	cr_expect_str_eq(got[0].info, "bind");
	cr_expect_not(reached, "%s: we reached the program's socket", q->op);
	cr_expect(strstr(R.err, fmt("deny bind unix:@%s (bind)", name)) &&
			  strstr(R.err, "[supervisor]"),
		  "stderr:\n%s", R.err);

	policy("net all\n");
	pid = spawn(cordon_argv("run", NULL, ARGS(ops_static, q->op, name, "2")), NULL, FAKE_NONE);
	reached = q->reach(name, 1500);
	finish(pid);
	expect_exit(0);
	cr_expect(reached, "the control: %s: we did not reach the program's socket", q->op);
	cr_assert_eq(results(got, 64), 1, "stdout:\n%s", R.out);
	cr_expect_eq(got[0].ret, 1, "%s: the program took %ld", q->op, got[0].ret);
}

/* Under net none the supervisor makes every bind (the filter cannot tell
 * an abstract name from a path): a static program's unix socket files are
 * made inside the root as the kernel would make them (the program's
 * umask, its working directory, its errors), and refused outside, through
 * a symlink too, leaving nothing there. */
Test(escape, unix_socket_bind_decided_as_a_write, .init = setup, .fini = teardown,
     .timeout = 30)
{
	struct stat st;

	need_seccomp();
	cr_assert_eq(symlink("../outside", tp("root/away")), 0);
	run(NULL, ARGS(ops_static, "sys-unix-bind", "root/s1", "027", "sys-unix-bind", tp("root/s2"),
		       "0", "sys-unix-bind", "root/s1", "0", "sys-unix-bind", "root/no/s", "0",
		       "sys-unix-bind", "root/s3/", "0", "sys-unix-bind", "-", "0", "sys-unix-bind",
		       "outside/s4", "0", "sys-unix-bind", tp("outside/s5"), "0", "sys-unix-bind",
		       "root/away/s6", "0"));
	expect_exit(0);
	EXPECT(OK("sys-unix-bind"), OK("sys-unix-bind"), NO("sys-unix-bind", EADDRINUSE),
	       NO("sys-unix-bind", ENOENT), NO("sys-unix-bind", ENOENT), OK("sys-unix-bind"),
	       NO("sys-unix-bind", EACCES), NO("sys-unix-bind", EACCES), NO("sys-unix-bind", EACCES));
	cr_assert_eq(lstat(tp("root/s1"), &st), 0, "root/s1 was not made");
	cr_expect(S_ISSOCK(st.st_mode));
	cr_expect_eq(st.st_mode & 07777, 0750, "mode %o, want 0750 (umask 027)", st.st_mode & 07777);
	cr_expect_eq(st.st_uid, geteuid());
	cr_assert_eq(lstat(tp("root/s2"), &st), 0, "root/s2 was not made");
	cr_expect_eq(st.st_mode & 07777, 0777, "mode %o, want 0777 (umask 0)", st.st_mode & 07777);
	expect_outside_intact();
	cr_expect(strstr(R.err, fmt("deny bind %s (bind)", tp("outside/s4"))) &&
			  strstr(R.err, fmt("deny bind %s (bind)", tp("outside/s6"))) &&
			  strstr(R.err, "[supervisor]"),
		  "stderr:\n%s", R.err);
}

/* System V IPC and POSIX message queues are reached by no path Landlock
 * sees: a program run as root could remove any of the host's. With
 * private-ipc (the default) it has its own, and ours are out of its reach;
 * with private-ipc no (the control) the same operations reach ours. */
Test(escape, host_ipc_objects_out_of_reach, .init = setup, .fini = teardown, .timeout = 30)
{
	const key_t key = (key_t)(0x43000000 | (getpid() & 0xffffff));
	const char *q = fmt("cordon-run-%d", (int)getpid()), *made = fmt("cordon-made-%d", (int)getpid());
	const char *k = fmt("%ld", (long)key);
	char slash_q[64], slash_made[64];
	mqd_t m;

	if (geteuid() != 0)
		SKIP("an IPC namespace needs root (or net isolated)");
	snprintf(slash_q, sizeof(slash_q), "/%s", q);
	snprintf(slash_made, sizeof(slash_made), "/%s", made);
	int shm = shmget(key, 4096, IPC_CREAT | IPC_EXCL | 0600);
	cr_assert_geq(shm, 0, "shmget: %s", strerror(errno));
	m = mq_open(slash_q, O_CREAT | O_EXCL | O_RDWR, 0600, NULL);
	if (m == (mqd_t)-1) {
		shmctl(shm, IPC_RMID, NULL);
		SKIP("no POSIX message queues here: %s", strerror(errno));
	}
	mq_close(m);

	run(NULL, ARGS(ops_static, "sys-shm-rm", k, "sys-mq-unlink", q, "sys-mq-create", made));
	expect_exit(0);
	EXPECT(NO("sys-shm-rm", ENOENT), NO("sys-mq-unlink", ENOENT), OK("sys-mq-create"));
	cr_expect_eq(shmget(key, 0, 0), shm, "our shared memory segment is gone");
	m = mq_open(slash_q, O_RDONLY);
	cr_expect_neq(m, (mqd_t)-1, "our message queue is gone: %s", strerror(errno));
	if (m != (mqd_t)-1)
		mq_close(m);
	cr_expect_eq(mq_open(slash_made, O_RDONLY), (mqd_t)-1, "the program's queue is ours");

	policy("private-ipc no\n");
	run(NULL, ARGS(ops_static, "sys-shm-rm", k, "sys-mq-unlink", q, "sys-mq-create", made));
	expect_exit(0);
	EXPECT(OK("sys-shm-rm"), OK("sys-mq-unlink"), OK("sys-mq-create"));
	cr_expect_eq(shmget(key, 0, 0), -1, "the control did not reach our segment");
	m = mq_open(slash_made, O_RDONLY);
	cr_expect_neq(m, (mqd_t)-1, "the control's queue is not ours: %s", strerror(errno));
	if (m != (mqd_t)-1)
		mq_close(m);
	if (shmget(key, 0, 0) >= 0)
		shmctl(shm, IPC_RMID, NULL);
	mq_unlink(slash_q);
	mq_unlink(slash_made);
}

/* Under net none cordon makes a program's binds and connects itself (the
 * filter cannot tell a netlink socket from a unix one): it must make them
 * as the program would have. A netlink socket bound to port id 0 (or
 * bound by a connect or a send) takes the program's pid (the kernel's
 * choice for its own binds), not cordon's; and joining a multicast group,
 * or sending to another port, which need CAP_NET_ADMIN, which a program
 * run as root under cordon does not have, fails EPERM as it would for the
 * program, where cordon's own capabilities let it through (found so).
 * The control: the same, bare, as root, gets past that check. */
Test(escape, netlink_binds_made_as_the_program, .init = setup, .fini = teardown,
     .timeout = 30)
{
	need_seccomp();
	run(NULL, ARGS(ops_static, "sys-netlink", "0", "0", "bind", "sys-netlink", "0", "0",
		       "connect", "sys-netlink", "0", "0", "sendto"));
	expect_exit(0);
	EXPECT(OK("sys-netlink"), OK("sys-netlink"), OK("sys-netlink"));
	for (int i = 0; i < 3; i++)
		cr_expect_str_eq(got[i].info, "self", "call %d", i);

	if (geteuid() != 0)
		return;  /* without CAP_NET_ADMIN, bare fails too: no control */
	/* XFRM's groups, and its sends to another port, need CAP_NET_ADMIN
	 * (a send to a port nobody holds is refused after that check). */
	run_bare(ARGS(ops_static, "sys-netlink", "6", "1", "bind", "sys-netlink", "6", "1",
		      "connect", "sys-netlink", "6", "4242", "sendto"));
	results(got, 64);
	if (got[0].ret != 0)
		return;  /* no XFRM netlink here */
	EXPECT(OK("sys-netlink"), OK("sys-netlink"), NO("sys-netlink", ECONNREFUSED));
	run(NULL, ARGS(ops_static, "sys-netlink", "6", "1", "bind", "sys-netlink", "6", "1",
		       "connect", "sys-netlink", "6", "4242", "sendto"));
	expect_exit(0);
	EXPECT(NO("sys-netlink", EPERM), NO("sys-netlink", EPERM), NO("sys-netlink", EPERM));
}

/* POSIX named semaphores and shared memory are files of the host's
 * /dev/shm, made by glibc out of the shim's sight: with private-ipc (and a
 * private TMPDIR), the shim makes them in the run's own directory, so a
 * program's sem_open and shm_open work (Python's multiprocessing locks and
 * process pools) and nothing of them reaches the host's /dev/shm; with
 * private-ipc no (the control), they are the host's, refused outside the
 * roots, and the refusal is logged, naming the call. */
Test(escape, posix_ipc_objects_kept_in_the_run, .init = setup, .fini = teardown,
     .timeout = 30)
{
	const char *name = fmt("cordon-run-%d", (int)getpid());
	const char *sem = fmt("/dev/shm/sem.%s", name), *shm = fmt("/dev/shm/%s", name);

	need_landlock(1, "refusing /dev/shm");
	policy("private-tmp yes\n");
	run(NULL, ARGS(ops_dyn, "sem", name, "shm", name, "kept", "sem-unlink", name));
	expect_exit(0);
	EXPECT(VAL("sem", 1), OK("shm"), OK("sem-unlink"));
	cr_expect_str_eq(got[1].info, "kept");
	cr_expect_neq(access(sem, F_OK), 0, "%s was made in the host's /dev/shm", sem);
	cr_expect_neq(access(shm, F_OK), 0, "%s was made in the host's /dev/shm", shm);

	policy("private-tmp yes\nprivate-ipc no\n");
	run(NULL, ARGS(ops_dyn, "sem", name, "shm", name, "kept"));
	expect_exit(0);
	EXPECT(NO("sem", EACCES), NO("shm", EACCES));
	cr_expect_str_eq(got[0].info, "sem_open");
	cr_expect(strstr(R.err, fmt("deny create %s (sem_open", sem)) &&
			  strstr(R.err, fmt("deny create %s (shm_open", shm)),
		  "stderr:\n%s", R.err);
	cr_expect_neq(access(sem, F_OK), 0);
	cr_expect_neq(access(shm, F_OK), 0);
}

/* net isolated: a loopback of its own; our listeners are not on it. */
Test(escape, net_isolated_reaches_only_its_own_loopback, .init = setup, .fini = teardown,
     .timeout = 30)
{
	unsigned tcp_port, udp_port;
	int l = inet_socket(SOCK_STREAM, &tcp_port), u = inet_socket(SOCK_DGRAM, &udp_port);
	const char *name = fmt("cordon-run-%d", (int)getpid());
	int a = abstract_listener(name);
	char buf[64];

	policy("net isolated\n");
	run(NULL, ARGS(ops_static, "sys-connect", "127.0.0.1", fmt("%u", tcp_port), "sys-udp",
		       "127.0.0.1", fmt("%u", udp_port), "hello", "sys-abstract", name));
	if (WIFEXITED(R.raw) && WEXITSTATUS(R.raw) == 125 && strstr(R.err, "network namespace"))
		SKIP("no network namespace here: %s", R.err);
	expect_exit(0);
	/* The datagram leaves, into the sandbox's own loopback. */
	EXPECT(NO("sys-connect", ECONNREFUSED), OK("sys-udp"), NO("sys-abstract", ECONNREFUSED));
	cr_expect_eq(accepted(l), 0, "a TCP connection reached our listener");
	cr_expect_eq(accepted(a), 0, "a connection reached our abstract socket");
	cr_expect_eq(recv(u, buf, sizeof(buf), MSG_DONTWAIT), -1, "a datagram reached us");
	close(l);
	close(u);
	close(a);
}

struct abstract_case {
	const char *net;
	long ret;
	int err;
	int connections;
};

static const struct abstract_case abstract_cases[] = {
	{ "none", -1, EACCES, 0 },  /* the supervisor: abstract names are the host's */
	{ "all", 0, 0, 1 },          /* the control: it does connect */
};

ParameterizedTestParameters(escape, abstract_unix_connect)
{
	INDEX_PARAMS(abstract_cases);
}

ParameterizedTest(size_t *variant, escape, abstract_unix_connect, .init = setup,
		  .fini = teardown, .timeout = 30)
{
	const struct abstract_case *c = &abstract_cases[*variant];
	const char *name = fmt("cordon-run-%d", (int)getpid());
	int l = abstract_listener(name);

	need_seccomp();
	policy(fmt("net %s\n", c->net));
	run(NULL, ARGS(ops_static, "sys-abstract", name));
	expect_exit(0);
	EXPECT({ "sys-abstract", c->ret, c->err, c->err });
	cr_expect_eq(accepted(l), c->connections, "net %s", c->net);
	close(l);
}

Test(escape, kill_outside_refused, .init = setup, .fini = teardown, .timeout = 30)
{
	pid_t pid = start_victim();

	need_landlock(6, "scoping signals");
	run(NULL, ARGS(ops_static, "sys-kill", fmt("%d", (int)pid), fmt("%d", SIGKILL), "sys-kill",
		       fmt("%d", (int)pid), fmt("%d", SIGTERM)));
	expect_exit(0);
	EXPECT(NO("sys-kill", EPERM), NO("sys-kill", EPERM));
	cr_expect(victim_alive(), "the process outside the sandbox was killed");
}

/* A tracer, "t (tracing stop)" or "T (stopped)": an attach got through. */
static bool victim_traced(void)
{
	char path[64], status[4096];
	int fd;
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)victim);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	n = fd >= 0 ? read(fd, status, sizeof(status) - 1) : -1;
	if (fd >= 0)
		close(fd);
	status[n > 0 ? n : 0] = '\0';
	return !strstr(status, "TracerPid:\t0\n") || strstr(status, "State:\tt") ||
	       strstr(status, "State:\tT");
}

Test(escape, ptrace_outside_refused, .init = setup, .fini = teardown, .timeout = 30)
{
	pid_t pid = start_victim();

	need_seccomp();
	run(NULL, ARGS(ops_static, "sys-ptrace", fmt("%d", (int)pid)));
	expect_exit(0);
	EXPECT(NO("sys-ptrace", EPERM));
	cr_expect(victim_alive(), "the process outside the sandbox is gone");
	cr_expect_not(victim_traced(), "the process outside the sandbox is traced or stopped");
}

Test(escape, tiocsti_refused, .init = setup, .fini = teardown, .timeout = 30)
{
	need_seccomp();
	/* Outside the sandbox, root may type into a terminal. */
	run_bare(ARGS(ops_dyn, "tiocsti"));
	results(got, 64);
	if (got[0].ret != 0)
		SKIP("TIOCSTI fails even outside the sandbox (%s at %s): "
			     "dev.tty.legacy_tiocsti is 0?", strerror(got[0].err), got[0].info);
	run(NULL, ARGS(ops_dyn, "tiocsti"));
	expect_exit(0);
	EXPECT(NO("tiocsti", EPERM));
	cr_expect_str_eq(got[0].info, "ioctl", "failed at %s, want at the ioctl", got[0].info);
}

Test(escape, unshare_and_mount_refused, .init = setup, .fini = teardown, .timeout = 30)
{
	struct stat root, mnt;

	need_seccomp();
	cr_assert_eq(mkdir(tp("root/mnt"), 0755), 0);
	run(NULL, ARGS(ops_static, "sys-unshare", "sys-mount", "root/mnt"));
	expect_exit(0);
	EXPECT(NO("sys-unshare", EPERM), NO("sys-mount", EPERM));
	cr_assert_eq(stat(tp("root"), &root), 0);
	cr_assert_eq(stat(tp("root/mnt"), &mnt), 0);
	cr_expect_eq(root.st_dev, mnt.st_dev, "root/mnt became a mount point");
}

ParameterizedTestParameters(escape, fork_refused_without_subprocess_threads_work)
{
	INDEX_PARAMS(binaries);
}

ParameterizedTest(size_t *variant, escape, fork_refused_without_subprocess_threads_work,
		  .init = setup, .fini = teardown, .timeout = 30)
{
	const char *ops = strcmp(binaries[*variant], "dynamic") == 0 ? ops_dyn : ops_static;

	need_seccomp();
	run(ARGS("--no-subprocess"), ARGS(ops, "fork", "root/forked", "sys-fork", "root/sys-forked",
					 "thread", "write", "root/after", "ok"));
	expect_exit(0);
	EXPECT(NO("fork", EACCES), NO("sys-fork", EACCES), OK("thread"), OK("write"));
	cr_expect_not(exists("root/forked"), "a forked child ran");
	cr_expect_not(exists("root/sys-forked"), "a forked child ran");
	cr_expect(exists("root/after"));
}

/* What the policy allows still works, in both layers. */
Test(allowed, write_connect_fork_succeed, .init = setup, .fini = teardown, .timeout = 30)
{
	unsigned port;
	int l = inet_socket(SOCK_STREAM, &port);
	const char *p = fmt("%u", port);

	policy(fmt("net-connect %u\n", port));
	run(NULL, ARGS(ops_dyn, "write", "root/a", "a", "sys-write", "root/b", "b", "connect",
		       "127.0.0.1", p, "sys-connect", "127.0.0.1", p, "fork", "root/c", "thread"));
	expect_exit(0);
	EXPECT(OK("write"), OK("sys-write"), OK("connect"), OK("sys-connect"), OK("fork"),
	       OK("thread"));
	run(NULL, ARGS(ops_static, "sys-write", "root/d", "d", "sys-connect", "127.0.0.1", p));
	expect_exit(0);
	EXPECT(OK("sys-write"), OK("sys-connect"));
	cr_expect_eq(accepted(l), 3);
	cr_expect(exists("root/a") && exists("root/b") && exists("root/c") && exists("root/d"));
	expect_outside_intact();
	close(l);
}

/* ==================================================================================== */
/* The kernel layer without the shim, the self-test, on-unsupported.                     */
/* ==================================================================================== */

struct reexec {
	const char *exec;   /* execv (libc: the shim puts itself back) or sys-execve (raw) */
	long shim;          /* shim-loaded in the new image */
};

static const struct reexec reexecs[] = { { "execv", 0 }, { "sys-execve", -1 } };

ParameterizedTestParameters(kernel, unsetenv_ld_preload_then_exec_still_confined)
{
	INDEX_PARAMS(reexecs);
}

ParameterizedTest(size_t *variant, kernel, unsetenv_ld_preload_then_exec_still_confined,
		  .init = setup, .fini = teardown, .timeout = 30)
{
	const struct reexec *x = &reexecs[*variant];

	need_landlock(1, "confining a program without the shim");
	run(ARGS("--backend", "landlock"),
	    ARGS(ops_dyn, "unsetenv", "LD_PRELOAD", x->exec, ops_dyn, "shim-loaded", "write",
		 "outside/canary", "x", "sys-write", "outside/canary", "x", "write", "root/ok",
		 "ok"));
	expect_exit(0);
	EXPECT(OK("unsetenv"), VAL("shim-loaded", x->shim), NO("write", EACCES),
	       NO("sys-write", EACCES), OK("write"));
	expect_outside_intact();
	cr_expect(exists("root/ok"));
}

/* read-deny outside the roots: a raw read of the denied file is refused by
 * the kernel; its siblings, and the files of its parent's siblings, stay
 * readable. */
Test(escape, read_deny_raw_read_refused_siblings_readable, .init = setup, .fini = teardown,
     .timeout = 30)
{
	need_landlock(1, "refusing a raw read");
	canary("secret", "secret");
	canary("sibling", "sibling");
	policy(fmt("read-deny %s\n", tp("outside/secret")));
	put_file("root/mine", "mine", 0644);
	run(NULL, ARGS(ops_static, "sys-read", "outside/secret", "sys-read", "outside/sibling",
		       "sys-read", "outside/canary", "sys-read", "root/mine", "sys-read",
		       tp("outside/secret")));
	expect_exit(0);
	EXPECT(NO("sys-read", EACCES), VAL("sys-read", 7), VAL("sys-read", 6),
	       VAL("sys-read", 4), NO("sys-read", EACCES));
	cr_expect_str_eq(got[1].info, "sibling");
	cr_expect_str_eq(got[3].info, "mine");
	expect_outside_intact();
}

/* A block device in /dev that we can read outside the sandbox (a disk,
 * a loop device, swap), or NULL. */
static const char *readable_block_device(void)
{
	static char path[PATH_MAX];
	DIR *d = opendir("/dev");
	const char *found = NULL;

	if (!d)
		return NULL;
	for (struct dirent *e; !found && (e = readdir(d));) {
		struct stat st;
		snprintf(path, sizeof(path), "/dev/%s", e->d_name);
		if (lstat(path, &st) < 0 || !S_ISBLK(st.st_mode))
			continue;
		int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
		if (fd >= 0) {
			close(fd);
			found = path;
		}
	}
	closedir(d);
	return found;
}

/* A block device holds the bytes of every file on it, read-deny's too:
 * with read-deny in force, reading one is refused (a static program by
 * the kernel layer, a dynamic one by the shim first, logged), and so is
 * any device of /dev beyond the common ones (/dev/kmsg), while /dev/null,
 * /dev/urandom and a file of /dev/shm stay readable. Without read-deny
 * (the control) the device is read. Nothing is written anywhere. */
Test(escape, read_deny_keeps_block_devices_and_other_devices, .init = setup,
     .fini = teardown, .timeout = 30)
{
	const char *dev = readable_block_device();
	const char *shm = fmt("/dev/shm/cordon-run-%d", (int)getpid());

	need_landlock(1, "refusing a raw read");
	if (!dev)
		SKIP("no block device in /dev is readable here, even outside the sandbox");
	canary("secret", "secret");
	policy(fmt("read-deny %s\n", tp("outside/secret")));
	FILE *f = fopen(shm, "w");
	cr_assert_not_null(f);
	fputs("shared", f);
	fclose(f);
	for (int dyn = 0; dyn < 2; dyn++) {
		const char *rd = dyn ? "read" : "sys-read";
		run(NULL, ARGS(dyn ? ops_dyn : ops_static, rd, dev, rd, "/dev/kmsg", rd, "/dev/null",
			       rd, "/dev/zero", rd, shm, rd, "outside/secret"));
		expect_exit(0);
		EXPECT(NO(rd, EACCES), NO(rd, EACCES), VAL(rd, 0), VAL(rd, 255), VAL(rd, 6),
		       NO(rd, EACCES));
		cr_expect_str_eq(got[0].info, "open", "%s: refused at %s", rd, got[0].info);
		cr_expect_str_eq(got[4].info, "shared");
		if (dyn)
			cr_expect(strstr(R.err, fmt("deny read %s", dev)) &&
					  strstr(R.err, "only the devices every program uses are read"),
				  "stderr:\n%s", R.err);
	}
	policy(NULL);
	run(NULL, ARGS(ops_static, "sys-read", dev));
	expect_exit(0);
	EXPECT(OK("sys-read"));
	unlink(shm);
	expect_outside_intact();
}

/* Not root: a read-deny entry that the program's file permissions close
 * (another user's, unreadable to it) is left to them, and its directory
 * is not carved into rules, so a file put there during the run is
 * readable; an entry they leave open is refused by Landlock. */
Test(escape, read_deny_closed_by_permissions_left_to_them, .init = setup, .fini = teardown,
     .timeout = 40)
{
	need_landlock(1, "refusing a raw read");
	cr_assert_eq(mkdir(tp("closed"), 0755), 0);
	cr_assert_eq(mkdir(tp("open"), 0755), 0);
	put_file("closed/secret", "closed", 0600);
	put_file("open/secret", "open", 0644);
	put_file("open/sibling", "sibling", 0644);
	policy(fmt("read-deny %s %s\n", tp("closed/secret"), tp("open/secret")));
	const char *own[] = { "", "policy", "root", "tmp" };
	for (size_t i = 0; i < sizeof(own) / sizeof(own[0]); i++)
		cr_assert_eq(chown(*own[i] ? tp(own[i]) : T, 1234, 1234), 0, "chown %s", own[i]);
	/* Once the program runs, a file appears beside the closed entry. */
	pid_t helper = fork();
	cr_assert_geq(helper, 0);
	if (helper == 0) {
		for (int i = 0; i < 2000 && !exists("root/ready"); i++)
			usleep(10 * 1000);
		int fd = open(tp("closed/late"), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
		_exit(fd >= 0 && write(fd, "late", 4) == 4 ? 0 : 1);
	}
	run_env(NULL,
		ARGS(ops_static, "pidfile", "root/ready", "wait", "closed/late", "sys-read",
		     "closed/late", "sys-read", "closed/secret", "sys-read", "open/secret",
		     "sys-read", "open/sibling"),
		ARGS(fmt("XDG_STATE_HOME=%s", tp("tmp")), fmt("HOME=%s", tp("tmp"))), FAKE_USER);
	int hs;
	cr_assert_eq(waitpid(helper, &hs, 0), helper);
	cr_assert(WIFEXITED(hs) && WEXITSTATUS(hs) == 0, "the helper could not create closed/late");
	expect_exit(0);
	EXPECT(OK("pidfile"), OK("wait"), VAL("sys-read", 4), NO("sys-read", EACCES),
	       NO("sys-read", EACCES), VAL("sys-read", 7));
	cr_expect_str_eq(got[2].info, "late");
	cr_expect_str_eq(content("closed/secret") ?: "(gone)", "closed");
	cr_expect_str_eq(content("open/secret") ?: "(gone)", "open");
}

/* A read-deny entry inside a write root is more than Landlock can do
 * (files made there later would be unreadable): by default cordon refuses
 * to run, naming the entry and the root; with on-unsupported warn it runs,
 * the root whole, and the shim refuses the denied file. */
Test(kernel, read_deny_inside_write_root_is_unsupported, .init = setup, .fini = teardown,
     .timeout = 30)
{
	put_file("root/secret", "secret", 0644);
	policy(fmt("read-deny %s\non-unsupported error\n", tp("root/secret")));
	run(NULL, ARGS(ops_dyn, "write", "root/marker", "x"));
	expect_exit(125);
	cr_expect_not(exists("root/marker"), "the program ran");
	cr_expect(strstr(R.err, fmt("cordon: no kernel layer here enforces: read-deny inside a "
				    "write root (%s in %s;",
				    tp("root/secret"), tp("root"))),
		  "stderr:\n%s", R.err);

	policy(fmt("read-deny %s\non-unsupported warn\n", tp("root/secret")));
	run(NULL, ARGS(ops_dyn, "write", "root/new", "new", "sys-read", "root/new", "sys-read",
		       "root/secret"));
	expect_exit(0);
	/* A file made in the root after the start is the program's to read;
	 * the denied one is refused (by the shim: a raw read above it). */
	EXPECT(OK("write"), VAL("sys-read", 3), VAL("sys-read", 6));
	cr_expect(strstr(R.err, "cordon: not enforced by the kernel here, only by the shim: "
				"read-deny inside a write root"),
		  "no warning; stderr:\n%s", R.err);
	run(NULL, ARGS(ops_dyn, "read", "root/secret"));
	expect_exit(0);
	EXPECT(NO("read", EACCES));
	cr_expect_str_eq(content("root/secret") ? content("root/secret") : "(missing)", "secret");
}

Test(kernel, noop_backend_on_unsupported_error_refuses, .init = setup, .fini = teardown,
     .timeout = 30)
{
	run(ARGS("--backend", "noop", "--on-unsupported", "error"),
	    ARGS(ops_dyn, "write", "root/marker", "x"));
	expect_exit(125);
	cr_expect_not(exists("root/marker"), "the program ran");
	cr_expect(strstr(R.err, "cordon: unable to run"), "stderr:\n%s", R.err);
	cr_expect(strstr(R.err, "every restriction"), "stderr:\n%s", R.err);
}

Test(kernel, noop_backend_on_unsupported_warn_runs_with_warning, .init = setup,
     .fini = teardown, .timeout = 30)
{
	run(ARGS("--backend", "noop", "--on-unsupported", "warn"),
	    ARGS(ops_dyn, "write", "root/marker", "x", "write", "outside/canary", "x"));
	expect_exit(0);
	/* The shim alone still refuses what it sees. */
	EXPECT(OK("write"), NO("write", EACCES));
	cr_expect(exists("root/marker"), "the program did not run");
	cr_expect(strstr(R.err, "cordon: not enforced by the kernel here, only by the shim: "
				"every restriction"),
		  "no warning; stderr:\n%s", R.err);
	expect_outside_intact();
}

/* Lines on stderr from cordon itself: "cordon: " but not the shim's "cordon: deny". */
static int cordon_said(void)
{
	int n = 0;

	for (const char *p = R.err; *p;) {
		if (strncmp(p, "cordon: ", 8) == 0 && strncmp(p, "cordon: deny ", 13) != 0)
			n++;
		p += strcspn(p, "\n");
		if (*p)
			p++;
	}
	return n;
}

struct unsupported {
	const char *on;       /* on-unsupported */
	int code;             /* cordon's exit status */
	const char *message;  /* on stderr, or NULL: nothing from cordon at all */
};

static const struct unsupported unsupported_cases[] = {
	{ "error", 125, "cordon: unable to run: the policy asks for" },
	{ "warn", 0, "cordon: not enforced by the kernel here, only by the shim: "
		     "writes outside the write roots" },
	{ "ignore", 0, NULL },
};

ParameterizedTestParameters(kernel, landlock_missing_follows_on_unsupported)
{
	INDEX_PARAMS(unsupported_cases);
}

/* A kernel without Landlock (simulated: landlock_create_ruleset fails
 * ENOSYS for cordon and its tree): on-unsupported decides, and with warn or
 * ignore the program runs, confined by the shim (and seccomp) only. */
ParameterizedTest(size_t *variant, kernel, landlock_missing_follows_on_unsupported,
		  .init = setup, .fini = teardown, .timeout = 30)
{
	const struct unsupported *u = &unsupported_cases[*variant];

	need_seccomp();
	run_env(ARGS("--on-unsupported", u->on),
		ARGS(ops_dyn, "write", "root/marker", "x", "write", "outside/canary", "x"), NULL,
		FAKE_NO_LANDLOCK);
	expect_exit(u->code);
	if (u->code == 0) {
		EXPECT(OK("write"), NO("write", EACCES));
		cr_expect(exists("root/marker"), "the program did not run");
	} else {
		cr_expect_not(exists("root/marker"), "the program ran");
	}
	if (u->message)
		cr_expect(strstr(R.err, u->message), "want \"%s\" on stderr:\n%s", u->message, R.err);
	else
		cr_expect_eq(cordon_said(), 0, "on-unsupported ignore, yet cordon said:\n%s",
			     R.err);
	expect_outside_intact();
}

static const char *const on_unsupported[] = { "error", "warn" };

ParameterizedTestParameters(kernel, selftest_fails_when_landlock_does_not_enforce)
{
	INDEX_PARAMS(on_unsupported);
}

/* A backend that claims to enforce and does not (simulated: the Landlock
 * ruleset is "enforced" by a landlock_restrict_self that returns 0 and does
 * nothing): the self-test catches it and cordon fails closed, whatever
 * on-unsupported says (docs/threat-model.md, "Failing closed"). */
ParameterizedTest(size_t *variant, kernel, selftest_fails_when_landlock_does_not_enforce,
		  .init = setup, .fini = teardown, .timeout = 30)
{
	const char *on = on_unsupported[*variant];

	need_landlock(1, "the self-test");
	run_env(ARGS("--on-unsupported", on), ARGS(ops_dyn, "write", "root/marker", "x"), NULL,
		FAKE_LYING_LANDLOCK);
	expect_exit(125);
	cr_expect_not(exists("root/marker"), "the program ran");
	cr_expect(strstr(R.err, "self-test failed: a write outside the write roots went through"),
		  "stderr:\n%s", R.err);
	expect_tmp_empty();
}

Test(kernel, status_lists_landlock_abi_and_features, .init = setup, .fini = teardown,
     .timeout = 30)
{
	int abi = landlock_abi();
	const char *row;

	need_landlock(1, "cordon status showing Landlock");
	finish(spawn(cordon_argv("status", NULL, NULL), NULL, FAKE_NONE));
	expect_exit(0);
	cr_expect(strstr(R.out, fmt("\nlandlock        ABI %d\n", abi)), "stdout:\n%s", R.out);
	cr_expect(strstr(R.out, "\nbackend         landlock\n"), "stdout:\n%s", R.out);
	cr_expect(strstr(R.out, "\nseccomp         yes\n"), "stdout:\n%s", R.out);
	row = strstr(R.out, "\n* writes outside the write roots ");
	cr_expect(row && strstr(fmt("%.*s", (int)strcspn(row + 1, "\n"), row + 1),
				fmt("Landlock ABI %d", abi)),
		  "no row for writes, enforced by Landlock ABI %d:\n%s", abi, R.out);
	cr_expect(strstr(R.out, "\n* UDP, raw and other sockets (net none)  seccomp"),
		  "stdout:\n%s", R.out);
	cr_expect(strstr(R.out, "\n  new processes (subprocess no)"),
		  "subprocess yes, yet the row is marked:\n%s", R.out);
}

Test(kernel, selftest_exits_0, .init = setup, .fini = teardown, .timeout = 30)
{
	need_landlock(1, "cordon selftest");
	finish(spawn(cordon_argv("selftest", NULL, NULL), NULL, FAKE_NONE));
	expect_exit(0);
	cr_expect(strstr(R.out, "selftest: the kernel layer refused a write outside the write "
				"roots\n"),
		  "stdout:\n%s", R.out);
	finish(spawn(cordon_argv("selftest", ARGS("--no-subprocess"), NULL), NULL, FAKE_NONE));
	expect_exit(0);
	cr_expect(strstr(R.out, "write roots and a fork\n"), "stdout:\n%s", R.out);
	expect_tmp_empty();
}

/* With every directory writable there is nothing outside the write roots
 * for the self-test to be refused in; the other layers still hold (here:
 * net none) and the program should run. */
Test(kernel, write_everywhere_still_runs_and_refuses_network, .init = setup, .fini = teardown,
     .timeout = 30)
{
	unsigned port;
	int l = inet_socket(SOCK_STREAM, &port);

	need_landlock(4, "refusing TCP connect");
	policy("write /\n");
	run(NULL, ARGS(ops_static, "sys-connect", "127.0.0.1", fmt("%u", port)));
	expect_exit(0);
	EXPECT(NO("sys-connect", EACCES));
	cr_expect_eq(accepted(l), 0, "a connection reached the listener");
	close(l);
}

/* ==================================================================================== */
/* The policy: sealed, handed over, not widened from inside.                            */
/* ==================================================================================== */

Test(policy, memfd_sealed_cannot_be_widened, .init = setup, .fini = teardown, .timeout = 30)
{
	const char *fd = "${CORDON_POLICY_FD}";

	run(NULL, ARGS(ops_dyn, "fd-sum", fd, "fd-write", fd, "\nwrite /\n", "fd-truncate", fd,
		       "sys-reopen", "/proc/self/fd/${CORDON_POLICY_FD}", "\nwrite /\n", "fd-sum",
		       fd, "write", "outside/canary", "x"));
	expect_exit(0);
	results(got, 64);
	long size = got[0].ret;
	/* Reopened through /proc, the memfd may be refused at the open
	 * (EACCES) or, sealed, at the write (EPERM). */
	EXPECT(VAL("fd-sum", size), NO("fd-write", EPERM), NO("fd-truncate", EPERM),
	       NO2("sys-reopen", EPERM, EACCES), VAL("fd-sum", size), NO("write", EACCES));
	cr_expect_gt(got[0].ret, 0, "the policy descriptor is empty");
	cr_expect_str_eq(got[4].info, got[0].info, "the policy descriptor changed");
	expect_outside_intact();
}

struct widen {
	const char *exec;  /* execv: the shim restores its descriptor; sys-execve: */
	bool drop_fd;      /* ...without CORDON_POLICY_FD the shim reads CORDON_WRITE */
};

static const struct widen widens[] = { { "execv", false }, { "sys-execve", true } };

ParameterizedTestParameters(policy, cordon_write_in_child_env_still_confined)
{
	INDEX_PARAMS(widens);
}

ParameterizedTest(size_t *variant, policy, cordon_write_in_child_env_still_confined,
		  .init = setup, .fini = teardown, .timeout = 30)
{
	const struct widen *x = &widens[*variant];

	need_landlock(1, "confining a program whose shim was widened");
	run(NULL, ARGS(ops_dyn, "setenv", "CORDON_WRITE", "/", "unsetenv",
		       x->drop_fd ? "CORDON_POLICY_FD" : "UNSET_NOTHING", x->exec, ops_dyn, "env",
		       "write", "outside/canary", "x", "sys-write", "outside/new", "x", "write",
		       "root/ok", "ok"));
	expect_exit(0);
	EXPECT(OK("setenv"), OK("unsetenv"), OK("env"), NO("write", EACCES),
	       NO("sys-write", EACCES), OK("write"));
	cr_expect(strstr(R.out, "\nenv:CORDON_WRITE=/\n"), "the child lost CORDON_WRITE:\n%s",
		  R.out);
	expect_outside_intact();
}

Test(policy, log_file_receives_json_refusal, .init = setup, .fini = teardown, .timeout = 30)
{
	run(ARGS("--log-format", "json", "--log-file", tp("log")),
	    ARGS(ops_dyn, "write", "outside/canary", "x"));
	expect_exit(0);
	EXPECT(NO("write", EACCES));
	const char *log = content("log");
	cr_assert_not_null(log, "no log file");
	cr_expect(strstr(log, "\"decision\":\"deny\""), "log:\n%s", log);
	cr_expect(strstr(log, fmt("\"target\":\"%s\"", tp("outside/canary"))), "log:\n%s", log);
	cr_expect_not(strstr(R.err, "cordon: deny"), "the refusal went to stderr too:\n%s", R.err);
}

/* Python's subprocess vforks, and its child closes every descriptor before
 * the exec (the policy memfd, the log pipe, the tally's socket among them)
 * in its parent's memory; this one is also refused a write before the exec.
 * The child gets a policy of its own and is confined, and the parent still
 * logs to the log file and is still counted. */
Test(policy, vfork_child_closing_descriptors_leaves_parent_as_it_was, .init = setup,
     .fini = teardown, .timeout = 30)
{
	run(ARGS("--log-file", tp("log"), "--summary", tp("summary.json")),
	    ARGS(ops_dyn, "vfork-exec", "outside/vfork", "8", ops_dyn, "write", "root/child", "c", "write",
		 "outside/canary", "x", "shim-loaded", "write", "outside/new", "y", "write",
		 "root/parent", "p"));
	expect_exit(0);
	EXPECT(OK("write"), NO("write", EACCES), OK("shim-loaded"), VAL("vfork-exec", 0),
	       NO("write", EACCES), OK("write"));
	cr_expect(exists("root/child") && exists("root/parent"));
	const char *log = content("log");
	cr_assert_not_null(log, "no log file");
	cr_expect(strstr(log, fmt("deny create %s ", tp("outside/new"))),
		  "the parent's refusal is not in the log file:\n%s\nstderr:\n%s", log, R.err);
	cr_expect_not(strstr(R.err, fmt("deny create %s ", tp("outside/new"))),
		      "the parent's refusal went to stderr:\n%s", R.err);
	/* the child lost the pipe: its own lines go to stderr */
	cr_expect(strstr(R.err, fmt("deny create %s ", tp("outside/vfork"))), "stderr:\n%s",
		  R.err);
	cr_expect(strstr(R.err, fmt("deny write %s ", tp("outside/canary"))), "stderr:\n%s",
		  R.err);
	cr_expect_not(exists("outside/vfork"));
	const char *sum = content("summary.json");
	cr_assert_not_null(sum, "no summary file");
	cr_expect(strstr(sum, fmt("\"target\":\"%s\"", tp("outside/new"))),
		  "the parent's refusal was not counted:\n%s", sum);
	expect_outside_intact();
}

/* A vfork child that writes beneath a root the parent has not used yet
 * opens that root's descriptor in its own table: the parent must not take
 * the number for its own (it is the policy's there, or another root's). */
Test(policy, vfork_child_write_leaves_parent_descriptors_alone, .init = setup,
     .fini = teardown, .timeout = 30)
{
	cr_assert_eq(mkdir(tp("root2"), 0755), 0);
	run(ARGS("--write", tp("root2")),
	    ARGS(ops_dyn, "vfork-exec", "root/vf", "1", "/bin/true", "write", "root2/a", "a",
		 "write", "root/b", "b"));
	expect_exit(0);
	EXPECT(VAL("vfork-exec", 0), OK("write"), OK("write"));
	cr_expect(exists("root/vf") && exists("root2/a") && exists("root/b"));
	cr_expect_not(exists("root2/b"), "the parent wrote root/b into root2");
	expect_outside_intact();
}

/* Threads that vfork at once, each child closing every descriptor before
 * its exec (Python's subprocess from a thread pool): every child gets a
 * policy of its own, none runs under a policy it could not read. */
Test(policy, vfork_children_of_threads_each_get_the_policy, .init = setup, .fini = teardown,
     .timeout = 60)
{
	cr_assert_eq(mkdir(tp("root/s"), 0755), 0);
	run(NULL, ARGS(ops_dyn, "vfork-threads", "4", "100", "root/s", "count", "root/s"));
	expect_exit(0);
	/* the children's own 400 "write" lines come first */
	cr_expect(strstr(R.out, "\nvfork-threads 0 0\ncount 400 0 root/s\n"),
		  "children failed:\n%.2000s\nstderr:\n%.2000s", R.out + (strlen(R.out) > 2000 ?
									 strlen(R.out) - 2000 : 0),
		  R.err);
	cr_expect_not(strstr(R.err, "could not be read"), "a child lost its policy:\n%.2000s", R.err);
	expect_outside_intact();
}

/* log-format short: verdict, operation, target, program, why, and the fix;
 * no pid, call or roots. */
Test(policy, log_short_form, .init = setup, .fini = teardown, .timeout = 30)
{
	run(ARGS("--log-format", "short"), ARGS(ops_dyn, "write", "outside/canary", "x"));
	expect_exit(0);
	cr_expect(strstr(R.err, fmt("cordon: deny write %s (run_ops): outside write roots; to allow: "
				    "write %s\n", tp("outside/canary"), tp("outside"))),
		  "stderr:\n%s", R.err);
	expect_outside_intact();
}

/* log-format auto: on a terminal, the short form in colour (plain with
 * NO_COLOR set); into a pipe, the full text. */
Test(policy, log_auto_colour_on_a_terminal_only, .init = setup, .fini = teardown, .timeout = 30)
{
	const char *cmd = fmt("%s run --policy %s --log-format auto -- %s write %s x", cordon_bin,
			      policy_path(), ops_dyn, tp("outside/canary"));

	run_bare(ARGS("/usr/bin/script", "-qec", cmd, "/dev/null"));
	cr_expect(strstr(R.out, fmt("cordon: \033[1;31mdeny\033[0m write %s (run_ops): outside "
				    "write roots; to allow: \033[1mwrite %s\033[0m",
				    tp("outside/canary"), tp("outside"))),
		  "on a terminal:\n%s", R.out);
	run_bare(ARGS("/usr/bin/env", "NO_COLOR=1", "/usr/bin/script", "-qec", cmd, "/dev/null"));
	cr_expect(strstr(R.out, fmt("cordon: deny write %s (write, as", tp("outside/canary"))) ||
			  strstr(R.out, fmt("cordon: deny write %s (open", tp("outside/canary"))),
		  "NO_COLOR:\n%s", R.out);
	cr_expect_not(strstr(R.out, "\033["), "NO_COLOR:\n%s", R.out);
	run(ARGS("--log-format", "auto"), ARGS(ops_dyn, "write", "outside/canary", "x"));
	cr_expect(strstr(R.err, fmt("cordon: deny write %s (open", tp("outside/canary"))),
		  "into a pipe:\n%s", R.err);
	cr_expect_not(strstr(R.err, "\033["), "into a pipe:\n%s", R.err);
	expect_outside_intact();
}

/* The log lies outside the write roots "so the program cannot rewrite it"
 * (docs/policy.md, log-file): not even through the descriptor it inherits. */
Test(policy, log_file_cannot_be_truncated_by_program, .init = setup, .fini = teardown,
     .timeout = 30)
{
	/* cordon keeps the file and relays a pipe into it: the program holds
	 * no descriptor of the log file to truncate or rewrite. */
	run(ARGS("--log-file", tp("log")),
	    ARGS(ops_dyn, "write", "outside/canary", "x", "fd-find", tp("log"), "write",
		 "outside/canary", "y"));
	cr_expect(strstr(R.out, "fd-find -1 "), "the program found a descriptor of the log:\n%s",
		  R.out);
	const char *log = content("log");
	cr_assert_not_null(log, "no log file");
	int lines = 0;
	for (const char *p = log; (p = strstr(p, "cordon: deny write")); p++)
		lines++;
	cr_expect_eq(lines, 2, "the log holds %d refusals, want 2\nlog:\n%s", lines, log);
	expect_outside_intact();
}

/* ==================================================================================== */
/* The supervisor.                                                                      */
/* ==================================================================================== */

static const int exit_codes[] = { 0, 3, 42 };

ParameterizedTestParameters(supervisor, exit_status_passes_through)
{
	INDEX_PARAMS(exit_codes);
}

ParameterizedTest(size_t *variant, supervisor, exit_status_passes_through, .init = setup,
		  .fini = teardown, .timeout = 30)
{
	int code = exit_codes[*variant];

	run(NULL, ARGS(ops_dyn, "exit", fmt("%d", code)));
	expect_exit(code);
}

static const int fatal_signals[] = { SIGKILL, SIGTERM, SIGSEGV };

ParameterizedTestParameters(supervisor, fatal_signal_reraised)
{
	INDEX_PARAMS(fatal_signals);
}

ParameterizedTest(size_t *variant, supervisor, fatal_signal_reraised, .init = setup,
		  .fini = teardown, .timeout = 30)
{
	int sig = fatal_signals[*variant];

	run(ARGS("--private-tmp", "yes"), ARGS(ops_static, "raise", fmt("%d", sig)));
	cr_expect(WIFSIGNALED(R.raw) && WTERMSIG(R.raw) == sig,
		  "cordon %s %d, want killed by signal %d\nstderr:\n%s",
		  WIFSIGNALED(R.raw) ? "was killed by signal" : "exited",
		  WIFSIGNALED(R.raw) ? WTERMSIG(R.raw) : WEXITSTATUS(R.raw), sig, R.err);
	cr_expect_not(WIFSIGNALED(R.raw) && WCOREDUMP(R.raw), "cordon dumped core");
	expect_tmp_empty();
}

Test(supervisor, program_not_found_127, .init = setup, .fini = teardown, .timeout = 30)
{
	run(ARGS("--private-tmp", "yes"), ARGS(tp("no-such-program")));
	expect_exit(127);
	expect_tmp_empty();
	cr_expect(strstr(R.err, "cordon: unable to run ") && strstr(R.err, "no-such-program"),
		  "stderr:\n%s", R.err);
	run(NULL, ARGS("cordon-run-no-such-program-in-path"));
	expect_exit(127);
	cr_expect(strstr(R.err, "cordon-run-no-such-program-in-path"), "stderr:\n%s", R.err);
}

Test(supervisor, not_executable_126, .init = setup, .fini = teardown, .timeout = 30)
{
	put_file("root/not-executable", "#!/bin/sh\ntouch root/marker\n", 0644);
	run(NULL, ARGS(tp("root/not-executable")));
	expect_exit(126);
	cr_expect(strstr(R.err, "cordon: unable to run ") && strstr(R.err, "not-executable"),
		  "stderr:\n%s", R.err);
	cr_expect_not(exists("root/marker"));
}

/* A script without a "#!" line is run by /bin/sh, as a shell and glibc's
 * execvp run it (POSIX): by its path and found in PATH, with its
 * arguments. */
Test(supervisor, script_without_interpreter_line_runs_with_sh, .init = setup,
     .fini = teardown, .timeout = 30)
{
	char path_var[PATH_MAX + 16];

	put_file("root/plain-script", "echo \"$0 $1 $2\" > root/marker\n", 0755);
	run(NULL, ARGS(tp("root/plain-script"), "one", "two"));
	expect_exit(0);
	cr_expect_str_eq(content("root/marker"), tp("root/plain-script one two\n"));

	snprintf(path_var, sizeof(path_var), "PATH=/usr/bin:/bin:%s", tp("root"));
	run_env(NULL, ARGS("plain-script", "three"), (const char *const[]){ path_var, NULL },
		FAKE_NONE);
	expect_exit(0);
	cr_expect_str_eq(content("root/marker"), tp("root/plain-script three \n"));
}

struct bad {
	const char *policy_extra;  /* appended to the policy file */
	const char *option[3];     /* or given on the command line */
	const char *message;       /* on stderr */
};

static const struct bad bads[] = {
	{ "wirte /tmp\n", { NULL }, "policy:12: unknown directive 'wirte'" },
	{ "net sometimes\n", { NULL }, "policy:12: bad value 'sometimes' for net" },
	{ "write /cordon-run-does-not-exist\n", { NULL },
	  "policy:12: write root '/cordon-run-does-not-exist' does not exist" },
	{ NULL, { "--net", "sometimes", NULL }, "<command line>: bad value 'sometimes' for net" },
	{ NULL, { "--timeout", "soon", NULL }, "<command line>: bad value 'soon' for timeout" },
};

ParameterizedTestParameters(supervisor, bad_policy_125_nothing_run)
{
	INDEX_PARAMS(bads);
}

ParameterizedTest(size_t *variant, supervisor, bad_policy_125_nothing_run, .init = setup,
		  .fini = teardown, .timeout = 30)
{
	const struct bad *b = &bads[*variant];

	policy(b->policy_extra);
	run(b->option[0] ? b->option : NULL, ARGS(ops_dyn, "write", "root/marker", "x"));
	expect_exit(125);
	cr_expect_not(exists("root/marker"), "the program ran");
	cr_expect(strstr(R.err, b->message), "want \"%s\" on stderr:\n%s", b->message, R.err);
	cr_expect(strstr(R.err, "nothing was run"), "stderr:\n%s", R.err);
}

/* The pid in $T/root/@name.pid, which must be gone (ESRCH). */
static void expect_gone(const char *name)
{
	const char *text = content(fmt("root/%s.pid", name));
	long pid;

	cr_assert_not_null(text, "no root/%s.pid: the tree was not made\nstdout:\n%s\nstderr:\n%s",
			   name, R.out, R.err);
	pid = strtol(text, NULL, 10);
	cr_assert_gt(pid, 1);
	errno = 0;
	cr_expect(kill((pid_t)pid, 0) == -1 && errno == ESRCH,
		  "%s (pid %ld) is still there after cordon exited", name, pid);
	if (kill((pid_t)pid, 0) == 0)
		kill((pid_t)pid, SIGKILL);  /* not ours to leave behind either */
}

Test(supervisor, timeout_ends_whole_tree_124, .init = setup, .fini = teardown, .timeout = 30)
{
	run(ARGS("--timeout", "1", "--private-tmp", "yes"),
	    ARGS(ops_dyn, "spawn-tree", "root", "wait"));
	expect_exit(124);
	cr_expect(strstr(R.out, "spawn-tree 0 0\n"), "the tree was not made:\n%s\n%s", R.out,
		  R.err);
	cr_expect(strstr(R.err, "timeout"), "stderr:\n%s", R.err);
	/* 1 s, then SIGTERM, a grace period (the daemon ignores SIGTERM), SIGKILL. */
	cr_expect_lt(R.seconds, 6.0, "cordon took %.1f s", R.seconds);
	cr_expect_geq(R.seconds, 0.9, "cordon took %.1f s", R.seconds);
	expect_gone("program");
	expect_gone("child");
	expect_gone("daemon");
	expect_tmp_empty();
}

Test(supervisor, program_exit_ends_leftovers, .init = setup, .fini = teardown, .timeout = 30)
{
	run(NULL, ARGS(ops_dyn, "spawn-tree", "root", "exit", "exit", "7"));
	expect_exit(7);
	cr_expect(strstr(R.out, "spawn-tree 0 0\n"), "the tree was not made:\n%s\n%s", R.out,
		  R.err);
	cr_expect_lt(R.seconds, 6.0, "cordon took %.1f s", R.seconds);
	expect_gone("program");
	expect_gone("child");
	expect_gone("daemon");
}

Test(supervisor, sigterm_forwarded_to_program, .init = setup, .fini = teardown, .timeout = 30)
{
	pid_t pid = spawn(cordon_argv("run", NULL,
				      ARGS(ops_dyn, "trap-term", "root/got-term", "pidfile",
					   "root/ready", "sleep", "20")),
			  NULL, FAKE_NONE);
	for (int i = 0; i < 1000 && !exists("root/ready"); i++)
		usleep(10 * 1000);
	cr_expect(exists("root/ready"), "the program did not start");
	cr_assert_eq(kill(pid, SIGTERM), 0);
	finish(pid);
	expect_exit(0);
	cr_expect(exists("root/got-term"), "the program's handler did not run");
	cr_expect_lt(R.seconds, 10.0, "cordon took %.1f s", R.seconds);
}

/* Under SANITIZE=1: cordon itself leaks nothing (LeakSanitizer on for
 * cordon; the program is static, so no instrumented shim runs in the jail). */
Test(supervisor, cordon_leaks_nothing_under_sanitizer, .init = setup, .fini = teardown,
     .timeout = 30)
{
	const char *first = getenv("CORDON_PRELOAD_FIRST");

	if (!first || !*first)
		SKIP("cordon's own leaks are checked under SANITIZE=1 only");
	run_env(NULL, ARGS(ops_static, "exit", "0"), ARGS("ASAN_OPTIONS=detect_leaks=1"),
		FAKE_NONE);
	expect_exit(0);
	cr_expect_not(strstr(R.err, "Sanitizer"), "stderr:\n%s", R.err);
}

/* The variables of the program's environment, from the driver's "env:" lines. */
static const char *env_of(const char *name)
{
	static char value[PATH_MAX];
	const char *p = strstr(R.out, fmt("env:%s=", name));

	if (!p || (p != R.out && p[-1] != '\n'))
		return NULL;
	p += 4 + strlen(name) + 1;
	snprintf(value, sizeof(value), "%.*s", (int)strcspn(p, "\n"), p);
	return value;
}

static int env_count(void)
{
	int n = 0;

	for (const char *p = R.out; (p = strstr(p, "env:")); p++)
		if (p == R.out || p[-1] == '\n')
			n++;
	return n;
}

static const char *const test_env[] = {
	"PATH=/usr/bin:/bin", "FOO=foo", "BAR=bar", "SECRET_X=x", "SECRET_KEEP=keep",
	"CORDON_WRITE=/", NULL,
};

Test(supervisor, env_clean_passes_env_pass_and_path_only, .init = setup, .fini = teardown,
     .timeout = 30)
{
	run_env(ARGS("--env", "clean", "--env-pass", "FOO"), ARGS(ops_dyn, "env"), test_env,
		FAKE_NONE);
	expect_exit(0);
	cr_expect_str_eq(env_of("FOO") ? env_of("FOO") : "(unset)", "foo");
	cr_expect_str_eq(env_of("PATH") ? env_of("PATH") : "(unset)", "/usr/bin:/bin");
	cr_expect_str_eq(env_of("LD_PRELOAD") ? env_of("LD_PRELOAD") : "(unset)", shim_lib);
	cr_expect(env_of("CORDON_POLICY_FD") && *env_of("CORDON_POLICY_FD") >= '0' &&
			  *env_of("CORDON_POLICY_FD") <= '9',
		  "CORDON_POLICY_FD: %s", env_of("CORDON_POLICY_FD"));
	cr_expect(env_of("CORDON_EVENT_FD") && *env_of("CORDON_EVENT_FD") >= '0' &&
			  *env_of("CORDON_EVENT_FD") <= '9',
		  "CORDON_EVENT_FD: %s", env_of("CORDON_EVENT_FD"));
	cr_expect_eq(env_count(), 5,
		     "want FOO PATH LD_PRELOAD CORDON_POLICY_FD CORDON_EVENT_FD only:\n%s", R.out);
}

Test(supervisor, env_deny_removes_matching, .init = setup, .fini = teardown, .timeout = 30)
{
	run_env(ARGS("--env-deny", "SECRET_*", "--env-pass", "SECRET_KEEP"), ARGS(ops_dyn, "env"),
		test_env, FAKE_NONE);
	expect_exit(0);
	cr_expect_null(env_of("SECRET_X"), "SECRET_X passed:\n%s", R.out);
	cr_expect_str_eq(env_of("SECRET_KEEP") ? env_of("SECRET_KEEP") : "(unset)", "keep");
	cr_expect_str_eq(env_of("FOO") ? env_of("FOO") : "(unset)", "foo");
	cr_expect_str_eq(env_of("BAR") ? env_of("BAR") : "(unset)", "bar");
	cr_expect_str_eq(env_of("TMPDIR") ? env_of("TMPDIR") : "(unset)", tp("tmp"));
	/* CORDON_* are cordon's to set: ours did not pass. */
	cr_expect_null(env_of("CORDON_WRITE"), "CORDON_WRITE passed:\n%s", R.out);
	cr_expect_str_eq(env_of("LD_PRELOAD") ? env_of("LD_PRELOAD") : "(unset)", shim_lib);
}

Test(supervisor, private_tmp_fresh_writable_and_removed, .init = setup, .fini = teardown,
     .timeout = 30)
{
	char dir[PATH_MAX];
	struct stat st;

	run(ARGS("--private-tmp", "yes"),
	    ARGS(ops_dyn, "count", "${TMPDIR}", "write", "${TMPDIR}/file", "x", "sys-write",
		 "${TMPDIR}/raw", "y", "count", "${TMPDIR}"));
	expect_exit(0);
	EXPECT(VAL("count", 0), OK("write"), OK("sys-write"), VAL("count", 2));
	snprintf(dir, sizeof(dir), "%s", got[0].info);
	cr_expect(strncmp(dir, fmt("%s/", tp("tmp")), strlen(tp("tmp")) + 1) == 0,
		  "TMPDIR %s is not made in cordon's TMPDIR %s", dir, tp("tmp"));
	cr_expect_neq(lstat(dir, &st), 0, "the private TMPDIR %s is still there", dir);
	expect_tmp_empty();
}

/* ==================================================================================== */
/* shim no: the kernel layer alone.                                                     */
/* ==================================================================================== */

/* The caller's LD_PRELOAD (none, or one of its own) reaches the program as
 * it was; no libcordon.so, no policy descriptor. */
static const char *const caller_preloads[] = { NULL, "LD_PRELOAD=libc.so.6" };

ParameterizedTestParameters(kernel, shim_no_program_gets_no_shim_nor_policy)
{
	INDEX_PARAMS(caller_preloads);
}

ParameterizedTest(size_t *variant, kernel, shim_no_program_gets_no_shim_nor_policy,
		  .init = setup, .fini = teardown, .timeout = 30)
{
	const char *pre = caller_preloads[*variant];
	const char *want = pre ? pre + strlen("LD_PRELOAD=") : getenv("LD_PRELOAD");

	run_env(ARGS("--shim", "no"),
		ARGS(ops_dyn, "shim-loaded", "fd-find", "/memfd:cordon-policy (deleted)", "env"),
		pre ? ARGS(pre) : NULL, FAKE_NONE);
	expect_exit(0);
	EXPECT(VAL("shim-loaded", -1), NO("fd-find", ENOENT), OK("env"));
	cr_expect_str_eq(env_of("LD_PRELOAD") ? env_of("LD_PRELOAD") : "(unset)",
			 want ? want : "(unset)", "stdout:\n%s", R.out);
	cr_expect_null(env_of("CORDON_POLICY_FD"), "stdout:\n%s", R.out);
	cr_expect_not(strstr(R.out, "libcordon.so"), "stdout:\n%s", R.out);
}

/* The control: with the shim, the descriptor fd-find looks for is there. */
Test(kernel, shim_yes_program_gets_policy_memfd, .init = setup, .fini = teardown,
     .timeout = 30)
{
	run(NULL, ARGS(ops_dyn, "fd-find", "/memfd:cordon-policy (deleted)"));
	expect_exit(0);
	cr_expect_eq(results(got, 64), 1, "stdout:\n%s", R.out);
	cr_expect(got[0].ret > 2 && !strcmp(got[0].op, "fd-find"), "stdout:\n%s\nstderr:\n%s",
		  R.out, R.err);
}

/* The same writes outside the roots, with the shim (the control: refused
 * and logged) and without: refused by Landlock alone, and not logged. */
/* The kernel's rule for a root is on the directory that was there at
 * launch: a directory put in its place during the run is no root to the
 * kernel, though the shim (which decides by path) allows it. The program's
 * mkdir there comes back EACCES, and cordon says the kernel refused what
 * the shim allowed, instead of nothing. */
Test(kernel, refusal_after_the_shim_allowed_is_said_to_be_the_kernels, .init = setup,
     .fini = teardown, .timeout = 30)
{
	cr_assert_eq(mkfifo(tp("go"), 0600), 0);
	pid_t mover = fork();
	cr_assert_geq(mover, 0);
	if (mover == 0) {
		/* Opening blocks until the program opens its end. */
		int fd = open(tp("go"), O_WRONLY);
		int ok = fd >= 0 && rename(tp("root"), tp("root.old")) == 0 &&
			 mkdir(tp("root"), 0755) == 0 && write(fd, "go\n", 3) == 3;
		_exit(ok ? 0 : 1);
	}
	run(NULL, ARGS("/bin/sh", "-c", fmt("read x < %s && exec mkdir %s", tp("go"), tp("root/d"))));
	int st;
	cr_assert_eq(waitpid(mover, &st, 0), mover);
	cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0, "the mover failed");
	expect_exit(1);
	cr_expect(strstr(R.err, fmt("cordon: deny create %s (mkdir) pid ", tp("root/d"))) &&
			  strstr(R.err, ": the kernel layer refused what the shim allowed") &&
			  strstr(R.err, "[kernel]\n"),
		  "stderr:\n%s", R.err);
	cr_expect(strstr(R.err, "1 call refused (create 1)"), "stderr:\n%s", R.err);
	struct stat sb;
	cr_expect_neq(stat(tp("root/d"), &sb), 0, "the mkdir was made");
	cr_expect_neq(stat(tp("root.old/d"), &sb), 0, "the mkdir was made in the old root");
	/* An ordinary failure, the file's own, is not the kernel layer's. */
	cr_assert_eq(chmod(T, 0755), 0);
	cr_assert_eq(chmod(tp("root"), 0555), 0);
	run(NULL, ARGS("/usr/bin/setpriv", "--reuid=1234", "--regid=1234", "--clear-groups", "mkdir",
		       tp("root/e")));
	expect_exit(1);
	cr_expect(strstr(R.err, "Permission denied"), "stderr:\n%s", R.err);
	cr_expect_not(strstr(R.err, "[kernel]"), "stderr:\n%s", R.err);
	expect_outside_intact();
}

Test(kernel, shim_no_write_outside_refused_unlogged, .init = setup, .fini = teardown,
     .timeout = 30)
{
	const char *const *prog = ARGS(ops_dyn, "write", "outside/canary", "x", "sys-write",
				       "outside/new", "x");

	need_landlock(1, "refusing writes without the shim");
	run(NULL, prog);
	expect_exit(0);
	EXPECT(NO("write", EACCES), NO("sys-write", EACCES));
	cr_expect(strstr(R.err, "cordon: deny write "), "the shim did not log:\n%s", R.err);
	run(ARGS("--shim", "no"), prog);
	expect_exit(0);
	EXPECT(NO("write", EACCES), NO("sys-write", EACCES));
	cr_expect_not(strstr(R.err, "cordon: deny"), "a refusal was logged without the shim:\n%s",
		      R.err);
	expect_outside_intact();
}

Test(kernel, shim_no_write_inside_root_works, .init = setup, .fini = teardown, .timeout = 30)
{
	run(ARGS("--shim", "no"),
	    ARGS(ops_dyn, "write", "root/new", "inside", "sys-write", "root/raw", "raw"));
	expect_exit(0);
	EXPECT(OK("write"), OK("sys-write"));
	cr_expect_str_eq(content("root/new") ? content("root/new") : "(missing)", "inside");
	cr_expect_str_eq(content("root/raw") ? content("root/raw") : "(missing)", "raw");
	expect_outside_intact();
}

struct shim_conflict {
	const char *policy_extra;  /* appended to the policy file (line 12) */
	const char *option[5];     /* and on the command line */
	const char *message;       /* on stderr */
};

static const struct shim_conflict shim_conflicts[] = {
	{ NULL, { "--shim", "no", "--mode", "warn", NULL },
	  "cordon: unable to run: shim no and mode warn contradict each other" },
	{ "shim no\n", { "--mode", "warn", NULL },
	  "/policy:12: shim no; command line: --mode warn)" },
	{ NULL, { "--shim", "no", "--backend", "noop", NULL },
	  "cordon: unable to run: shim no and backend noop leave nothing to enforce the policy" },
};

ParameterizedTestParameters(kernel, shim_no_without_kernel_layer_125_nothing_run)
{
	INDEX_PARAMS(shim_conflicts);
}

/* shim no where the kernel layer is off (mode warn) or absent (backend
 * noop; on-unsupported warn in the test policy does not let it through):
 * refused before the program starts. */
ParameterizedTest(size_t *variant, kernel, shim_no_without_kernel_layer_125_nothing_run,
		  .init = setup, .fini = teardown, .timeout = 30)
{
	const struct shim_conflict *c = &shim_conflicts[*variant];

	policy(c->policy_extra);
	run(c->option, ARGS(ops_dyn, "write", "root/marker", "x", "write", "outside/canary", "x"));
	expect_exit(125);
	cr_expect_str_eq(R.out, "", "the program ran");
	cr_expect_not(exists("root/marker"), "the program ran");
	cr_expect(strstr(R.err, c->message), "want \"%s\" on stderr:\n%s", c->message, R.err);
	expect_outside_intact();
	expect_tmp_empty();
}

Test(kernel, status_with_shim_no_says_shim_off, .init = setup, .fini = teardown, .timeout = 30)
{
	const char *row;

	need_landlock(1, "cordon status listing the features");
	finish(spawn(cordon_argv("status", ARGS("--shim", "no"), NULL), NULL, FAKE_NONE));
	expect_exit(0);
	cr_expect(strstr(R.out, "\nshim            no\n"), "stdout:\n%s", R.out);
	row = strstr(R.out, "\n* writes outside the write roots ");
	cr_expect(row && strstr(fmt("%.*s", (int)strcspn(row + 1, "\n"), row + 1),
				"off (shim no)"),
		  "the shim column does not say it is off:\n%s", R.out);
	cr_expect_not(strstr(R.out, "refuses"), "a shim feature is listed:\n%s", R.out);
}

/* ==================================================================================== */
/* The run's summary: what was refused, exactly, said at exit.                          */
/* ==================================================================================== */

/* 4 processes x 3 threads x 50 refused write-opens through the shim, and 3
 * supervised chmods of a static program, all at once: the summary counts
 * every one (the log is off: counting does not depend on it). */
Test(summary, counts_exact_across_processes_and_threads, .init = setup, .fini = teardown,
     .timeout = 60)
{
	need_seccomp();
	const char *flood = fmt("%s write-flood %s 3 50", ops_dyn, tp("outside/new"));
	run(ARGS("--log", "off", "--summary", tp("summary.json")),
	    ARGS("/bin/sh", "-c",
		 fmt("%s & %s & %s & %s & %s sys-chmod outside/canary 777 sys-chmod outside/canary "
		     "777 sys-chmod outside/canary 777; wait",
		     flood, flood, flood, flood, ops_static)));
	expect_exit(0);
	const char *s = content("summary.json");
	cr_assert_not_null(s, "no summary file");
	cr_expect(strncmp(s, "{\"v\":1,\"refused\":603,\"warned\":0,\"refused_by_op\":{", 47) == 0,
		  "summary:\n%s", s);
	cr_expect(strstr(s, "\"create\":600") && strstr(s, "\"metadata\":3"), "summary:\n%s", s);
	cr_expect(strstr(s, "\"targets\":2,\"top\":[{\"op\":\"create\",\"target\":"), "summary:\n%s",
		  s);
	cr_expect(strstr(s, fmt("\"target\":\"%s\",\"count\":600,\"reason\":\"outside write "
				"roots\",\"layer\":\"shim\",\"allow\":\"write %s\"}",
				tp("outside/new"), tp("outside"))),
		  "summary:\n%s", s);
	cr_expect(strstr(s, fmt("{\"op\":\"metadata\",\"target\":\"%s\",\"count\":3,\"reason\":"
				"\"outside write roots\",\"layer\":\"supervisor\"",
				tp("outside/canary"))),
		  "summary:\n%s", s);
	cr_expect(strstr(s, "\"status\":0,\"signal\":null,\"timed_out\":false}\n"), "summary:\n%s",
		  s);
	cr_expect_not(strstr(R.err, "cordon:"), "cordon said something:\n%s", R.err);
	expect_outside_intact();
}

/* Two cordon runs at once append to one JSON log file, each with 4
 * processes x 3 threads of refused write-opens through the shim and 3
 * supervised chmods: every refusal is one whole line of its own, none torn,
 * none lost, whichever process or run wrote it. */
Test(summary, one_log_file_two_runs_no_torn_lines, .init = setup, .fini = teardown,
     .timeout = 90)
{
	need_seccomp();
	const char *flood = fmt("%s write-flood %s 3 200", ops_dyn, tp("outside/new"));
	const char *prog = fmt("%s & %s & %s & %s & %s sys-chmod outside/canary 777 sys-chmod "
			       "outside/canary 777 sys-chmod outside/canary 777; wait",
			       flood, flood, flood, flood, ops_static);
	const char *one = fmt("%s run --policy %s --log-file %s --log-format json -- /bin/sh -c '%s'",
			      cordon_bin, policy_path(), tp("log.jsonl"), prog);
	run_bare(ARGS("/bin/sh", "-c", fmt("%s & %s & wait", one, one)));
	expect_exit(0);

	static char log[8 << 20];
	ssize_t len = fixture_slurp(tp("log.jsonl"), log, sizeof(log));
	cr_assert_geq(len, 0, "no log file: %s", strerror(errno));
	cr_assert_lt(len, (ssize_t)sizeof(log) - 1, "log larger than the buffer");

	int lines = 0, flood_lines = 0, chmod_lines = 0, bad = 0;
	const char *want_flood = fmt("\"target\":\"%s\"", tp("outside/new"));
	const char *want_chmod = fmt("\"target\":\"%s\"", tp("outside/canary"));
	for (char *p = log, *nl; *p; p = nl + 1) {
		nl = strchr(p, '\n');
		cr_assert_not_null(nl, "the log ends inside a line: %s", p);
		*nl = '\0';
		lines++;
		/* One object per line: it opens and closes once, says deny once. */
		bool whole = p[0] == '{' && nl[-1] == '}' && !strchr(p + 1, '{') &&
			     strstr(p, "\"decision\":\"deny\"") &&
			     !strstr(strstr(p, "\"decision\":\"deny\"") + 1, "\"decision\"");
		if (!whole && bad++ < 3)
			cr_log_error("not one whole JSON line: %s", p);
		flood_lines += whole && strstr(p, want_flood);
		chmod_lines += whole && strstr(p, want_chmod);
	}
	cr_expect_eq(bad, 0, "%d torn or extra lines of %d", bad, lines);
	cr_expect_eq(flood_lines, 2 * 4 * 3 * 200, "refused write-opens logged: %d", flood_lines);
	cr_expect_eq(chmod_lines, 2 * 3, "refused chmods logged: %d", chmod_lines);
	cr_expect_eq(lines, 2 * (4 * 3 * 200 + 3), "lines in the log: %d", lines);
	expect_outside_intact();
}

/* The shim reads the policy cordon compiled, yet its log names each rule
 * where the user wrote it: the policy file and line, or the option. */
Test(summary, shim_log_names_the_rule_as_written, .init = setup, .fini = teardown, .timeout = 30)
{
	cr_assert_eq(mkdir(tp("root/keep"), 0755), 0);
	cr_assert_eq(mkdir(tp("root/cli"), 0755), 0);
	policy(fmt("write-deny %s\n", tp("root/keep")));
	run(ARGS("--write-deny", tp("root/cli")),
	    ARGS(ops_dyn, "write", "root/keep/x", "x", "write", "root/cli/y", "x"));
	expect_exit(0);
	cr_expect(strstr(R.err, fmt(": inside write-deny %s (%s:12) [shim]\n", tp("root/keep"),
				    tp("policy"))),
		  "stderr:\n%s", R.err);
	cr_expect(strstr(R.err, fmt(": inside write-deny %s (--write-deny %s) [shim]\n",
				    tp("root/cli"), tp("root/cli"))),
		  "stderr:\n%s", R.err);
	cr_expect_not(strstr(R.err, "policy descriptor"), "stderr:\n%s", R.err);
	struct stat sb;
	cr_expect_neq(stat(tp("root/keep/x"), &sb), 0);
	cr_expect_neq(stat(tp("root/cli/y"), &sb), 0);
}

/* A program that fails after a refusal is told so in one line; one that
 * succeeds, or fails with nothing refused, is not. */
Test(summary, hint_only_when_the_program_failed_after_a_refusal, .init = setup,
     .fini = teardown, .timeout = 30)
{
	const char *hint = "cordon: the program exited 3; 1 call refused (write 1), which may be "
			   "why (--log-summary yes lists the most refused; cordon explain --last says "
			   "how to allow each)\n";

	run(NULL, ARGS(ops_dyn, "write", "outside/canary", "x", "exit", "3"));
	expect_exit(3);
	cr_expect(strstr(R.err, hint), "stderr:\n%s", R.err);
	run(NULL, ARGS(ops_dyn, "write", "outside/canary", "x", "exit", "0"));
	expect_exit(0);
	cr_expect_not(strstr(R.err, "the program exited"), "stderr:\n%s", R.err);
	run(NULL, ARGS(ops_dyn, "write", "root/fine", "x", "exit", "3"));
	expect_exit(3);
	cr_expect_not(strstr(R.err, "the program exited"), "stderr:\n%s", R.err);
	expect_outside_intact();
}

/* log-summary yes: the counts and the most refused targets, each with the
 * line that would allow it, most refused first. */
Test(summary, log_summary_lists_targets_with_what_allows_them, .init = setup,
     .fini = teardown, .timeout = 30)
{
	run(ARGS("--log-summary", "yes"),
	    ARGS(ops_dyn, "write", "outside/a", "x", "write", "outside/b", "x", "write",
		 "outside/b", "x", "connect", "127.0.0.1", "9"));
	expect_exit(0);
	const char *s = strstr(R.err, "cordon: summary: ");
	cr_assert_not_null(s, "no summary:\n%s", R.err);
	cr_expect_str_eq(s, fmt("cordon: summary: 4 calls refused (create 3, connect 1)\n"
				"cordon:      2  create %s: outside write roots; to allow: write %s\n"
				"cordon:      1  create %s: outside write roots; to allow: write %s\n"
				"cordon:      1  connect 127.0.0.1:9/tcp: network is none and the "
				"port is not listed; to allow: net-connect PORT or net all\n",
				tp("outside/b"), tp("outside"), tp("outside/a"), tp("outside")));
	expect_outside_intact();
}

/* --- descriptors handed down ------------------------------------------------------ */

/* Descriptors cordon's caller leaves open (not close-on-exec) reach the
 * program: one open for writing on a file outside the roots, or on a file
 * inside read-deny, would carry a write or a read past every check made
 * at open. Those are held back, and said so; one inside a root, a pipe
 * and a memfd (no place to decide on) go on as they are. */
Test(escape, inherited_descriptors_held_back, .init = setup, .fini = teardown, .timeout = 30)
{
	int p[2];

	canary("secret", "secret");
	put_file("root/mine", "", 0644);
	policy(fmt("read-deny %s\n", tp("outside/secret")));
	int w = open(tp("outside/canary"), O_WRONLY | O_APPEND);
	int r = open(tp("outside/secret"), O_RDONLY);
	int m = open(tp("root/mine"), O_WRONLY | O_APPEND);
	int mem = (int)syscall(SYS_memfd_create, "cordon-test", 0);
	cr_assert(w >= 0 && r >= 0 && m >= 0 && mem >= 0 && pipe(p) == 0);
	cr_assert(dup2(w, 57) == 57 && dup2(r, 58) == 58 && dup2(m, 59) == 59 &&
		  dup2(p[1], 60) == 60 && dup2(mem, 62) == 62);
	/* It fails (exit 3), as a program that met EBADF would: then cordon
	 * names what it held back (at once only with -v: a leak is common,
	 * a test runner's, and a run that succeeds says nothing of it). */
	run(NULL, ARGS(ops_static, "fd-write", "57", "evil", "fd-sum", "58", "fd-write", "59",
		       "mine", "fd-write", "60", "piped", "fd-write", "62", "anon", "exit", "3"));
	close(62);
	close(mem);
	close(57);
	close(58);
	close(59);
	close(60);
	close(p[1]);
	expect_exit(3);
	EXPECT(NO("fd-write", EBADF), NO("fd-sum", EBADF), OK("fd-write"), OK("fd-write"),
	       OK("fd-write"));
	cr_expect(strstr(R.err, fmt("cordon: descriptor 57 (%s) is open for writing outside the "
				    "write roots: not passed to the program",
				    tp("outside/canary"))),
		  "stderr:\n%s", R.err);
	cr_expect(strstr(R.err, fmt("cordon: descriptor 58 (%s) lies inside read-deny: not "
				    "passed to the program",
				    tp("outside/secret"))),
		  "stderr:\n%s", R.err);
	cr_expect_null(strstr(R.err, "descriptor 59"), "stderr:\n%s", R.err);
	cr_expect_str_eq(content("root/mine") ?: "(gone)", "mine");
	char buf[16] = "";
	cr_expect_eq(read(p[0], buf, sizeof(buf) - 1), 5);
	cr_expect_str_eq(buf, "piped");
	close(p[0]);
	close(w);
	close(r);
	close(m);
	expect_outside_intact();
}

/* log-file fd:N: the shims in the program write the log to that
 * descriptor, outside the roots as it may be: it is passed on. */
Test(escape, log_file_descriptor_is_passed, .init = setup, .fini = teardown, .timeout = 30)
{
	put_file("log", "", 0644);
	int l = open(tp("log"), O_WRONLY | O_APPEND);
	cr_assert(l >= 0 && dup2(l, 61) == 61);
	run(ARGS("--log-file", "fd:61"), ARGS(ops_dyn, "write", "outside/canary", "x"));
	close(61);
	close(l);
	expect_exit(0);
	EXPECT(NO("write", EACCES));
	cr_expect(strstr(content("log") ?: "", fmt("deny write %s", tp("outside/canary"))),
		  "log:\n%s\nstderr:\n%s", content("log") ?: "", R.err);
	expect_outside_intact();
}

/* --- write-deny in the kernel layer: read-only mounts ------------------------------- */

/* A repository in the root, its hooks and config protected:
 *   root/.git/hooks/pre-commit "hook"   write-deny root/.git/hooks
 *   root/.git/config           "cfg"    write-deny root/.git/config
 *   root/.git/objects/                  writable, as all of .git */
static void protected_repo(void)
{
	cr_assert_eq(mkdir(tp("root/.git"), 0755), 0);
	cr_assert_eq(mkdir(tp("root/.git/hooks"), 0755), 0);
	cr_assert_eq(mkdir(tp("root/.git/objects"), 0755), 0);
	put_file("root/.git/hooks/pre-commit", "hook", 0755);
	put_file("root/.git/config", "cfg", 0644);
	policy(fmt("write-deny %s %s\n", tp("root/.git/hooks"), tp("root/.git/config")));
}

/* Whether @mountinfo (a /proc/PID/mountinfo) has a mount point at $T/@rel,
 * and whether that mount is read-only. */
static bool mounted_at(const char *mountinfo, const char *rel, bool *ro)
{
	static char buf[1 << 16];
	char want[PATH_MAX + 4];

	cr_assert_geq(fixture_slurp(mountinfo, buf, sizeof(buf)), 0, "%s", mountinfo);
	snprintf(want, sizeof(want), " %s ", tp(rel));
	for (char *line = buf, *nl; *line; line = nl + 1) {
		nl = strchr(line, '\n');
		if (!nl)
			break;
		*nl = '\0';
		/* ID PARENT MAJ:MIN ROOT MOUNTPOINT OPTIONS ... */
		char *p = line;
		for (int field = 0; field < 4 && p; field++)
			p = strchr(p + 1, ' ');
		if (p && strncmp(p, want, strlen(want)) == 0) {
			*ro = strncmp(p + strlen(want), "ro", 2) == 0;
			return true;
		}
	}
	return false;
}

/* What the shim would refuse, a program it cannot see is refused too:
 * rewriting a hook, adding one, rewriting or replacing the config, undoing
 * the mounts; while git's own writes in .git go on. Checked afterwards
 * from here. */
Test(write_deny, static_program_cannot_rewrite_protected_paths, .init = setup,
     .fini = teardown, .timeout = 30)
{
	protected_repo();
	run(NULL, ARGS(ops_static, "sys-write", "root/.git/hooks/pre-commit", "evil",
		       "sys-write", "root/.git/hooks/post-checkout", "evil",
		       "sys-reopen", "root/.git/config", "evil",
		       "sys-truncate", "root/.git/config",
		       "sys-write", "root/.git/index.lock", "index",
		       "sys-rename", "root/.git/index.lock", "root/.git/config",
		       "sys-rename", "root/.git/hooks", "root/.git/old-hooks",
		       "sys-umount", "root/.git/hooks",
		       "sys-write", "root/.git/hooks/pre-commit", "evil",
		       "sys-write", "root/.git/objects/ab", "object",
		       "sys-chmod", "root/.git/hooks/pre-commit", "777"));
	expect_exit(0);
	EXPECT(NO("sys-write", EROFS), NO("sys-write", EROFS), NO("sys-reopen", EROFS),
	       NO("sys-truncate", EROFS), OK("sys-write"), NO("sys-rename", EBUSY),
	       NO("sys-rename", EBUSY), NO2("sys-umount", EPERM, EACCES), NO("sys-write", EROFS),
	       OK("sys-write"), NO("sys-chmod", EACCES));
	cr_expect_str_eq(content("root/.git/hooks/pre-commit") ?: "(gone)", "hook");
	cr_expect_str_eq(content("root/.git/config") ?: "(gone)", "cfg");
	cr_expect_not(exists("root/.git/hooks/post-checkout"));
	cr_expect_not(exists("root/.git/old-hooks"));
	cr_expect_str_eq(content("root/.git/index.lock") ?: "(gone)", "index");
	cr_expect_str_eq(content("root/.git/objects/ab") ?: "(gone)", "object");
	struct stat st;
	cr_assert_eq(stat(tp("root/.git/hooks/pre-commit"), &st), 0);
	cr_expect_eq(st.st_mode & 07777, 0755, "the hook was re-moded: %o", st.st_mode & 07777);
	expect_outside_intact();
}

/* Moving .git aside (or removing it) would leave its place free for a new
 * .git with hooks of the program's making: refused by the shim, and for a
 * program it cannot see by the mount each directory above an entry
 * becomes (EBUSY). What .git holds besides stays movable. */
Test(write_deny, repository_cannot_be_moved_aside, .init = setup, .fini = teardown,
     .timeout = 30)
{
	protected_repo();
	run(NULL, ARGS(ops_static, "sys-rename", "root/.git", "root/.git-old",
		       "sys-write", "root/.git/hooks/pre-commit", "evil",
		       "sys-rename", "root/.git/objects", "root/.git/objects-old"));
	expect_exit(0);
	EXPECT(NO("sys-rename", EBUSY), NO("sys-write", EROFS), OK("sys-rename"));
	cr_expect_not(exists("root/.git-old"));
	cr_expect_str_eq(content("root/.git/hooks/pre-commit") ?: "(gone)", "hook");
	cr_expect(exists("root/.git/objects-old"));

	const char *mv = "/bin/mv", *rmdir_ = "/bin/rmdir";
	run(NULL, ARGS("/bin/sh", "-c",
		       fmt("%s %s %s; %s %s; exit 0", mv, tp("root/.git"), tp("root/moved"), rmdir_,
			   tp("root/.git"))));
	expect_exit(0);
	cr_expect_not(exists("root/moved"));
	cr_expect(exists("root/.git/hooks/pre-commit"));
	cr_expect(strstr(R.err, fmt("deny rename %s (", tp("root/.git"))) &&
			  strstr(R.err, fmt("it would take with it write-deny %s", tp("root/.git/hooks"))),
		  "stderr:\n%s", R.err);
	expect_outside_intact();
}

/* Submodules keep hooks and config of their own in .git/modules/NAME (and
 * NAME/modules/NAME for theirs): a write-deny pattern covers each that
 * exists when the run starts, in both layers, while their objects stay
 * writable. The shipped agent policy has the patterns. */
Test(write_deny, submodule_git_dirs_by_pattern, .init = setup, .fini = teardown,
     .timeout = 30)
{
	static const char *const dirs[] = { "root/.git", "root/.git/modules", "root/.git/modules/a",
					    "root/.git/modules/a/hooks", "root/.git/modules/a/objects",
					    "root/.git/modules/a/modules", "root/.git/modules/a/modules/b",
					    "root/.git/modules/a/modules/b/hooks" };

	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++)
		cr_assert_eq(mkdir(tp(dirs[i]), 0755), 0, "%s", dirs[i]);
	put_file("root/.git/modules/a/config", "cfg", 0644);
	policy(fmt("write-deny %s/.git/modules/*/hooks %s/.git/modules/*/config\n"
		   "write-deny %s/.git/modules/*/modules/*/hooks\n",
		   tp("root"), tp("root"), tp("root")));
	run(NULL, ARGS(ops_static, "sys-write", "root/.git/modules/a/hooks/post-checkout", "evil",
		       "sys-reopen", "root/.git/modules/a/config", "evil",
		       "sys-write", "root/.git/modules/a/modules/b/hooks/pre-commit", "evil",
		       "sys-write", "root/.git/modules/a/objects/ab", "object"));
	expect_exit(0);
	EXPECT(NO("sys-write", EROFS), NO("sys-reopen", EROFS), NO("sys-write", EROFS),
	       OK("sys-write"));
	run(NULL, ARGS(ops_dyn, "write", "root/.git/modules/a/hooks/post-checkout", "evil"));
	expect_exit(0);
	EXPECT(NO("write", EACCES));
	cr_expect_not(exists("root/.git/modules/a/hooks/post-checkout"));
	cr_expect_not(exists("root/.git/modules/a/modules/b/hooks/pre-commit"));
	cr_expect_str_eq(content("root/.git/modules/a/config") ?: "(gone)", "cfg");
	cr_expect_str_eq(content("root/.git/modules/a/objects/ab") ?: "(gone)", "object");

	run_bare(ARGS(cordon_bin, "explain", "--policy", "agent", "--workspace", tp("root"), "--", "write",
			tp("root/.git/modules/a/hooks/x"), "write",
			tp("root/.git/modules/a/modules/b/config"), "write",
			tp("root/.git/modules/a/objects/x")));
	cr_expect(strstr(R.out, fmt("deny   write %s", tp("root/.git/modules/a/hooks/x"))) &&
			  strstr(R.out, fmt("allow  write %s", tp("root/.git/modules/a/objects/x"))),
		  "explain --policy agent:\n%s%s", R.out, R.err);
	expect_outside_intact();
}

/* In a linked worktree (`git worktree add`) .git is a file, and the hooks
 * and config git runs are the main repository's, which git-worktree makes
 * writable: the write-deny entries of the workspace's .git apply there
 * (the agent policy's), and an entry beneath the .git file is no error. */
Test(write_deny, linked_worktree_protects_main_repository, .init = setup, .fini = teardown,
     .timeout = 30)
{
	if (system("command -v git >/dev/null 2>&1") != 0)
		SKIP("git is not installed");
	cr_assert_eq(system(fmt("cd %s && git init -q main && cd main && echo x > f && git add f && "
				"git -c user.email=t@t -c user.name=t commit -qm i && "
				"git worktree add -q %s",
				tp("root"), tp("root/wt"))),
		     0);
	put_file("policy", fmt("write %s\nwrite-deny %s %s\ngit-worktree yes\nnet none\n"
			       "private-tmp no\non-unsupported warn\n",
			       tp("root/wt"), tp("root/wt/.git/hooks"), tp("root/wt/.git/config")),
		 0644);
	run(ARGS("--workspace", tp("root/wt")),
	    ARGS(ops_static, "sys-write", "root/main/.git/hooks/pre-commit", "evil", "sys-write",
		 "root/main/.git/config", "evil", "sys-write", "root/main/.git/objects/x", "ok"));
	expect_exit(0);
	EXPECT(NO2("sys-write", EROFS, EACCES), NO2("sys-write", EROFS, EACCES), OK("sys-write"));
	cr_expect_not(exists("root/main/.git/hooks/pre-commit"), "a hook was planted");
	cr_expect(strstr(content("root/main/.git/config") ?: "", "evil") == NULL,
		  "the main repository's config was rewritten");
}

/* The mounts are the program's: it sees its protected paths read-only,
 * and nothing of them reaches the host's mount table, during the run or
 * after it. So that propagation can be seen at all, this test runs in a
 * mount namespace of its own where $T is a shared mount (as / is under
 * systemd): a mount made beneath it in a peer would appear here. */
Test(write_deny, mounts_are_the_programs_alone, .init = setup, .fini = teardown,
     .timeout = 30)
{
	bool ro = false;

	cr_assert_eq(unshare(CLONE_NEWNS), 0, "unshare: %s", strerror(errno));
	cr_assert_eq(mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL), 0);
	cr_assert_eq(mount(T, T, NULL, MS_BIND, NULL), 0, "bind: %s", strerror(errno));
	cr_assert_eq(mount(NULL, T, NULL, MS_SHARED, NULL), 0);
	protected_repo();
	pid_t pid = spawn(cordon_argv("run", NULL,
				      ARGS(ops_static, "pidfile", "root/pid", "sleep", "20")),
			  NULL, FAKE_NONE);
	for (int i = 0; i < 1000 && !content("root/pid"); i++)
		usleep(10 * 1000);
	const char *text = content("root/pid");
	cr_assert_not_null(text, "the program did not start");
	pid_t prog = (pid_t)atol(text);
	char mi[64];
	snprintf(mi, sizeof(mi), "/proc/%d/mountinfo", (int)prog);
	cr_expect(mounted_at(mi, "root/.git/hooks", &ro) && ro,
		  "the program's hooks are not a read-only mount");
	cr_expect(mounted_at(mi, "root/.git/config", &ro) && ro,
		  "the program's config is not a read-only mount");
	/* .git itself: kept in place by a mount of itself, writable. */
	cr_expect(mounted_at(mi, "root/.git", &ro) && !ro,
		  ".git is not a writable mount of itself");
	cr_expect_not(mounted_at("/proc/self/mountinfo", "root/.git", &ro),
		      "the mount of .git reached the host");
	cr_expect_not(mounted_at("/proc/self/mountinfo", "root/.git/hooks", &ro),
		      "the mount reached the host");
	cr_assert_eq(kill(pid, SIGTERM), 0);
	finish(pid);
	cr_expect_not(mounted_at("/proc/self/mountinfo", "root/.git/hooks", &ro),
		      "the mount outlived the run");
	cr_expect_not(mounted_at("/proc/self/mountinfo", "root/.git/config", &ro),
		      "the mount outlived the run");
	umount2(T, MNT_DETACH);
}

/* A write root inside a write-deny entry opens its part again, and an
 * entry denied inside that one is denied again: the nearest entry decides,
 * as in the shim. */
Test(write_deny, nearest_entry_decides_in_the_kernel_too, .init = setup, .fini = teardown,
     .timeout = 30)
{
	cr_assert_eq(mkdir(tp("root/ro"), 0755), 0);
	cr_assert_eq(mkdir(tp("root/ro/open"), 0755), 0);
	cr_assert_eq(mkdir(tp("root/ro/open/wd"), 0755), 0);
	policy(fmt("write-deny %s %s\nwrite %s\n", tp("root/ro"), tp("root/ro/open/wd"),
		   tp("root/ro/open")));
	run(NULL, ARGS(ops_static, "sys-write", "root/ro/x", "x", "sys-write", "root/ro/open/y",
		       "y", "sys-write", "root/ro/open/wd/z", "z", "sys-write", "root/free", "f"));
	expect_exit(0);
	EXPECT(NO("sys-write", EROFS), OK("sys-write"), NO("sys-write", EROFS), OK("sys-write"));
	cr_expect_not(exists("root/ro/x"));
	cr_expect_str_eq(content("root/ro/open/y") ?: "(gone)", "y");
	cr_expect_not(exists("root/ro/open/wd/z"));
	expect_outside_intact();
}

/* An entry that does not exist yet cannot be mounted: the run goes on,
 * the shim refuses it, and `cordon status` says which layer does what. */
Test(write_deny, missing_entry_left_to_the_shim, .init = setup, .fini = teardown,
     .timeout = 30)
{
	policy(fmt("write-deny %s\n", tp("root/later")));
	run(NULL, ARGS(ops_dyn, "write", "root/later", "x", "write", "root/fine", "x"));
	expect_exit(0);
	EXPECT(NO("write", EACCES), OK("write"));
	cr_expect_not(exists("root/later"));
	finish(spawn(cordon_argv("status", NULL, NULL), NULL, FAKE_NONE));
	expect_exit(0);
	cr_expect(strstr(R.out, "read-only mounts (mount namespace)"), "status:\n%s", R.out);
}

/* Not root: with net isolated, the user namespace it makes gives the right
 * to mount, and the protected paths are read-only mounts there too. */
Test(write_deny, unprivileged_with_net_isolated_too, .init = setup, .fini = teardown,
     .timeout = 30)
{
	protected_repo();
	const char *own[] = { "", "policy", "root", "root/.git", "root/.git/hooks",
			      "root/.git/hooks/pre-commit", "root/.git/config", "root/.git/objects",
			      "tmp", "outside" };
	for (size_t i = 0; i < sizeof(own) / sizeof(own[0]); i++)
		cr_assert_eq(chown(*own[i] ? tp(own[i]) : T, 1234, 1234), 0, "chown %s", own[i]);
	run_env(ARGS("--net", "isolated"),
		ARGS(ops_static, "sys-write", "root/.git/hooks/pre-commit", "evil", "sys-reopen",
		     "root/.git/config", "evil", "sys-write", "root/.git/index.lock", "index"),
		ARGS(fmt("XDG_STATE_HOME=%s", tp("tmp")), fmt("HOME=%s", tp("tmp"))), FAKE_USER);
	if (strstr(R.err, "unable to create a user and network namespace"))
		cr_skip("no unprivileged user namespaces here:\n%s", R.err);
	expect_exit(0);
	EXPECT(NO("sys-write", EROFS), NO("sys-reopen", EROFS), OK("sys-write"));
	cr_expect_str_eq(content("root/.git/hooks/pre-commit") ?: "(gone)", "hook");
	cr_expect_str_eq(content("root/.git/config") ?: "(gone)", "cfg");
	expect_outside_intact();
}
