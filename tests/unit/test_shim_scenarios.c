/*
 * test_shim_scenarios.c - libcordon.so live: programs run under the shim
 * (LD_PRELOAD, configured by CORDON_* variables or CORDON_POLICY_FD) try to
 * escape their write root, and we check from this (un-preloaded) process
 * afterwards what they managed.
 *
 * The programs are the drivers tests/helpers/scen_ops.c (a list of
 * operations from the command line, one result line "PID OP RET ERRNO"
 * each) and tests/helpers/scen_storm.c (threads). Each test runs in its own
 * process with its own tree, removed afterwards:
 *
 *   $T/                    mkdtemp("/dev/shm/cordon-XXXXXX"), canonical;
 *                          the drivers' working directory
 *     root/                the write root (CORDON_WRITE=$T/root)
 *       file               "root"
 *       sub/
 *         keep             "keep"
 *       out -> ../outside  a symlink inside the root pointing out
 *     rootlink -> root     the write root named through a symlink
 *     outside/             beneath no write root: canaries only; tests run
 *       canary             "canary"   as root, so nothing but these may
 *       dir/                          ever be the target of a refusal
 *     stdout, stderr       the driver's output (opened here, inherited)
 *     log                  CORDON_LOG_FILE where a test asks for it
 *
 * A refusal is proven twice: by the driver's result (-1, EACCES or the
 * error the kernel would give first) and by the canaries, read here after
 * the driver exited. errno parity is checked against the kernel itself: the
 * same call under a Landlock ruleset (applied in a forked child, no shim)
 * that grants the write rights beneath root/ only.
 *
 * Environment (set by `make check`): CORDON_BUILD (build directory,
 * relative to CORDON_SRC), CORDON_SRC (the repository), CORDON_PRELOAD_FIRST
 * (SANITIZE=1: the ASan runtime, which must precede the shim in LD_PRELOAD).
 */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#define FIXTURE_PROGRAM  /* program() */
#include "fixture.h"

#define SENTINEL 4242  /* errno the driver sets before each call (scen_ops.c) */
#define ANY_ERRNO -1

/* --- Landlock, by raw system call (constants defined here: the build
 * host's headers may predate them; values from linux/landlock.h) --------- */

#ifndef SYS_landlock_create_ruleset
#define SYS_landlock_create_ruleset 444
#endif
#ifndef SYS_landlock_add_rule
#define SYS_landlock_add_rule 445
#endif
#ifndef SYS_landlock_restrict_self
#define SYS_landlock_restrict_self 446
#endif
#define LL_CREATE_RULESET_VERSION (1U << 0)
#define LL_RULE_PATH_BENEATH 1
#define LL_FS_WRITE_FILE  (1ULL << 1)
#define LL_FS_REMOVE_DIR  (1ULL << 4)
#define LL_FS_REMOVE_FILE (1ULL << 5)
#define LL_FS_MAKE_CHAR   (1ULL << 6)
#define LL_FS_MAKE_DIR    (1ULL << 7)
#define LL_FS_MAKE_REG    (1ULL << 8)
#define LL_FS_MAKE_SOCK   (1ULL << 9)
#define LL_FS_MAKE_FIFO   (1ULL << 10)
#define LL_FS_MAKE_BLOCK  (1ULL << 11)
#define LL_FS_MAKE_SYM    (1ULL << 12)
#define LL_FS_REFER       (1ULL << 13)  /* ABI 2 */
#define LL_FS_TRUNCATE    (1ULL << 14)  /* ABI 3 */
#define LL_WRITE_RIGHTS                                                                    \
	(LL_FS_WRITE_FILE | LL_FS_REMOVE_DIR | LL_FS_REMOVE_FILE | LL_FS_MAKE_CHAR |       \
	 LL_FS_MAKE_DIR | LL_FS_MAKE_REG | LL_FS_MAKE_SOCK | LL_FS_MAKE_FIFO |             \
	 LL_FS_MAKE_BLOCK | LL_FS_MAKE_SYM | LL_FS_REFER | LL_FS_TRUNCATE)

/* The first field of struct landlock_ruleset_attr: the kernel accepts the
 * short form (extensible struct, copy_struct_from_user). */
struct ll_ruleset_attr {
	uint64_t handled_access_fs;
};

struct ll_path_beneath_attr {
	uint64_t allowed_access;
	int32_t parent_fd;
} __attribute__((packed));

/* The Landlock ABI version, or -errno (ENOSYS, EOPNOTSUPP: not enabled). */
static int landlock_abi(void)
{
	long abi = syscall(SYS_landlock_create_ruleset, NULL, 0, LL_CREATE_RULESET_VERSION);
	return abi < 0 ? -errno : (int)abi;
}

/* Restrict this process (a child about to exec): the write rights are
 * handled, and granted beneath @dir only. Returns 0 or -errno. */
static int landlock_restrict(const char *dir)
{
	struct ll_ruleset_attr attr = { .handled_access_fs = LL_WRITE_RIGHTS };
	struct ll_path_beneath_attr pb = { .allowed_access = LL_WRITE_RIGHTS };
	int rs, err = 0;

	rs = (int)syscall(SYS_landlock_create_ruleset, &attr, sizeof(attr), 0);
	if (rs < 0)
		return -errno;
	pb.parent_fd = open(dir, O_PATH | O_CLOEXEC);
	if (pb.parent_fd < 0 ||
	    syscall(SYS_landlock_add_rule, rs, LL_RULE_PATH_BENEATH, &pb, 0) < 0 ||
	    prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 ||
	    syscall(SYS_landlock_restrict_self, rs, 0) < 0)
		err = -errno;
	if (pb.parent_fd >= 0)
		close(pb.parent_fd);
	close(rs);
	return err;
}

/* --- fixture ------------------------------------------------------------------ */

static char T[128];                      /* the tree, canonical */
static char drv[PATH_MAX];               /* scen_ops, canonical */
static char storm[PATH_MAX];             /* scen_storm, canonical */
static char preload[2 * PATH_MAX + 16];  /* "LD_PRELOAD=[asan:]libcordon.so" */
static char env_write[PATH_MAX + 16];    /* "CORDON_WRITE=$T/root" */

/* $T/@rel in one of a ring of buffers: several may be live in one call. */
static const char *tp(const char *rel)
{
	static char ring[24][PATH_MAX];
	static unsigned next;
	char *b = ring[next++ % 24];

	snprintf(b, PATH_MAX, "%s/%s", T, rel);
	return b;
}

static void put_file(const char *rel, const char *text)
{
	int fd = open(tp(rel), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);

	cr_assert_geq(fd, 0, "create %s: %s", rel, strerror(errno));
	cr_assert_eq(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
}

/* The content of $T/@rel (the first 4 KiB), or NULL when it does not exist. */
static const char *content(const char *rel)
{
	static char ring[4][4096];
	static unsigned next;
	char *b = ring[next++ % 4];
	int fd = open(tp(rel), O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return NULL;
	n = read(fd, b, sizeof(ring[0]) - 1);
	close(fd);
	b[n > 0 ? n : 0] = '\0';
	return b;
}

static bool exists(const char *rel)
{
	struct stat st;
	return lstat(tp(rel), &st) == 0;
}

/* outside/ holds exactly its canaries, unchanged. */
static void expect_outside_intact(void)
{
	int n = 0;

	cr_expect_str_eq(content("outside/canary") ? content("outside/canary") : "(missing)",
			 "canary", "outside/canary was changed");
	cr_expect(exists("outside/dir"), "outside/dir was removed");
	DIR *d = opendir(tp("outside"));
	cr_assert_not_null(d);
	for (struct dirent *e; (e = readdir(d));) {
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..") &&
		    strcmp(e->d_name, "canary") && strcmp(e->d_name, "dir")) {
			cr_expect_fail("outside/%s was created", e->d_name);
		}
		n++;
	}
	closedir(d);
	cr_expect_eq(n, 4, "outside/ has %d entries, want . .. canary dir", n);
}


static void setup(void)
{
	char tmpl[] = "/dev/shm/cordon-XXXXXX", lib[PATH_MAX];
	const char *first = getenv("CORDON_PRELOAD_FIRST");

	cr_assert_not_null(mkdtemp(tmpl), "mkdtemp: %s", strerror(errno));
	cr_assert_not_null(realpath(tmpl, lib));
	cr_assert_lt(strlen(lib), sizeof(T));
	strcpy(T, lib);
	program(drv, "tests/helpers/scen_ops");
	program(storm, "tests/helpers/scen_storm");
	program(lib, "libcordon.so");
	snprintf(preload, sizeof(preload), "LD_PRELOAD=%s%s%s", first && *first ? first : "",
		 first && *first ? ":" : "", lib);
	snprintf(env_write, sizeof(env_write), "CORDON_WRITE=%s/root", T);

	cr_assert_eq(mkdir(tp("root"), 0755), 0);
	cr_assert_eq(mkdir(tp("root/sub"), 0755), 0);
	cr_assert_eq(mkdir(tp("outside"), 0755), 0);
	cr_assert_eq(mkdir(tp("outside/dir"), 0755), 0);
	put_file("root/file", "root");
	put_file("root/sub/keep", "keep");
	put_file("outside/canary", "canary");
	cr_assert_eq(symlink("../outside", tp("root/out")), 0);
	cr_assert_eq(symlink("root", tp("rootlink")), 0);
}

static void teardown(void)
{
	if (strncmp(T, "/dev/shm/cordon-", 16) == 0)
		fixture_rmtree(T);
}

/* --- running a driver ------------------------------------------------------------ */

struct opts {
	const char *const *env;  /* CORDON_* entries; NULL: { CORDON_WRITE=$T/root } */
	bool bare;               /* without the shim */
	bool landlock;           /* under Landlock granting writes beneath root/ */
};

static struct {
	int status;              /* exit status, or 128 + signal */
	pid_t pid;
	char out[1 << 16], err[1 << 16];
} R;

#define ENV(...) ((const char *const[]){ __VA_ARGS__, NULL })
#define ARGS(...) ((const char *const[]){ __VA_ARGS__, NULL })

static void slurp(const char *rel, char *buf, size_t size)
{
	int fd = open(tp(rel), O_RDONLY | O_CLOEXEC);
	size_t got = 0;
	ssize_t n;

	cr_assert_geq(fd, 0);
	while (got < size - 1 && (n = read(fd, buf + got, size - 1 - got)) > 0)
		got += (size_t)n;
	buf[got] = '\0';
	close(fd);
}

/* Run @prog with @args (argv[1..]) in $T as @o says; R holds what happened.
 * The child exits 120 if it cannot set up, 121 if Landlock refused. */
static void run(const struct opts *o, const char *prog, const char *const *args)
{
	const char *argv[256], *envp[64];
	size_t a = 0, e = 0;
	int st;

	argv[a++] = prog;
	for (size_t i = 0; args && args[i]; i++) {
		cr_assert_lt(a, 255);
		argv[a++] = args[i];
	}
	argv[a] = NULL;
	envp[e++] = "PATH=/usr/bin:/bin";
	if (!o->bare)
		envp[e++] = preload;
	for (const char *const *v = o->env ? o->env : ENV(env_write); *v; v++) {
		cr_assert_lt(e, 63);
		envp[e++] = *v;
	}
	envp[e] = NULL;

	int out = open(tp("stdout"), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	int err = open(tp("stderr"), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	cr_assert(out >= 0 && err >= 0);
	fflush(NULL);
	pid_t pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		int null = open("/dev/null", O_RDONLY);
		if (null < 0 || dup2(null, 0) < 0 || dup2(out, 1) < 0 || dup2(err, 2) < 0 ||
		    chdir(T) < 0)
			_exit(120);
		if (o->landlock && landlock_restrict(tp("root")) < 0)
			_exit(121);
		execve(prog, (char *const *)argv, (char *const *)envp);
		_exit(122);
	}
	close(out);
	close(err);
	cr_assert_eq(waitpid(pid, &st, 0), pid);
	R.pid = pid;
	R.status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
	slurp("stdout", R.out, sizeof(R.out));
	slurp("stderr", R.err, sizeof(R.err));
	cr_assert_eq(R.status, 0, "%s exited %d\nstdout:\n%s\nstderr:\n%s", prog, R.status, R.out,
		     R.err);
}

static void ops(const struct opts *o, const char *const *args)
{
	run(o, drv, args);
}

/* One result line of scen_ops. */
struct res {
	int pid;
	char op[32];
	int ret, err;
};

static size_t results(struct res *v, size_t max)
{
	size_t n = 0;

	for (const char *p = R.out; *p && n < max;) {
		if (sscanf(p, "%d %31s %d %d", &v[n].pid, v[n].op, &v[n].ret, &v[n].err) == 4)
			n++;
		p = strchr(p, '\n');
		if (!p)
			break;
		p++;
	}
	return n;
}

struct want {
	const char *op;
	int ret;             /* 0 success, -1 failure */
	int err;             /* errno after; ANY_ERRNO: not checked */
};

#define OK(op) { op, 0, ANY_ERRNO }
#define OK_KEEP(op) { op, 0, SENTINEL }   /* success, errno untouched */
#define NO(op, e) { op, -1, e }

/* The driver's results are exactly @w, in order. */
static void expect_results(const struct want *w, size_t n)
{
	struct res v[64];
	size_t got = results(v, 64);

	cr_expect_eq(got, n, "%zu results, want %zu\nstdout:\n%s\nstderr:\n%s", got, n, R.out,
		     R.err);
	for (size_t i = 0; i < n && i < got; i++) {
		cr_expect_str_eq(v[i].op, w[i].op, "result %zu", i);
		cr_expect(v[i].ret == w[i].ret && (w[i].err == ANY_ERRNO || v[i].err == w[i].err),
			  "result %zu (%s): %d errno %d (%s), want %d errno %d (%s)\nstderr:\n%s", i,
			  v[i].op, v[i].ret, v[i].err, v[i].err == SENTINEL ? "sentinel" :
			  strerror(v[i].err), w[i].ret, w[i].err,
			  w[i].err == SENTINEL ? "sentinel" : w[i].err == ANY_ERRNO ? "any" :
			  strerror(w[i].err), R.err);
	}
}

#define EXPECT(...)                                                                     \
	do {                                                                            \
		const struct want w_[] = { __VA_ARGS__ };                               \
		expect_results(w_, sizeof(w_) / sizeof(w_[0]));                         \
	} while (0)

/* How many lines of @text start with @prefix. */
static int count_lines(const char *text, const char *prefix)
{
	int n = 0;

	for (const char *p = text; *p;) {
		if (strncmp(p, prefix, strlen(prefix)) == 0)
			n++;
		p = strchr(p, '\n');
		if (!p)
			break;
		p++;
	}
	return n;
}

static int count_str(const char *text, const char *needle)
{
	int n = 0;

	for (const char *p = text; (p = strstr(p, needle)); p += strlen(needle))
		n++;
	return n;
}

/* --- escapes through paths -------------------------------------------------------- */

TestSuite(shim_paths, .init = setup, .fini = teardown);

Test(shim_paths, symlink_in_root_pointing_out_refused)
{
	ops(&(struct opts){ 0 }, ARGS("write", tp("root/out/canary"), "pwned",
				      "open", tp("root/out/new"), "O_WRONLY|O_CREAT",
				      "mkdir", tp("root/out/newdir"),
				      "unlink", tp("root/out/canary"),
				      "truncate", tp("root/out/canary")));
	EXPECT(NO("write", EACCES), NO("open", EACCES), NO("mkdir", EACCES), NO("unlink", EACCES),
	       NO("truncate", EACCES));
	expect_outside_intact();
	cr_expect_eq(count_lines(R.err, "cordon: deny "), 5, "stderr:\n%s", R.err);
	cr_expect(strstr(R.err, fmt("cordon: deny write %s/outside/canary (open ", T)),
		  "the log names the resolved target\nstderr:\n%s", R.err);
}

Test(shim_paths, dotdot_out_of_root_refused)
{
	ops(&(struct opts){ 0 }, ARGS("write", tp("root/../outside/x"), "x",
				      "write", tp("root/sub/../../outside/canary"), "pwned",
				      "mkdir", tp("root/sub/../../outside/d"),
				      "write", tp("root/sub/../file"), "new"));
	EXPECT(NO("write", EACCES), NO("write", EACCES), NO("mkdir", EACCES), OK("write"));
	expect_outside_intact();
	cr_expect_str_eq(content("root/file"), "new", "a '..' that stays inside is allowed");
}

Test(shim_paths, relative_after_chdir_into_root_allowed)
{
	ops(&(struct opts){ 0 }, ARGS("chdir", tp("root"),
				      "write", "x", "x",
				      "mkdir", "d",
				      "rename", "x", "d/y",
				      "unlink", "file",
				      "write", "../outside/x", "x"));
	EXPECT(OK("chdir"), OK("write"), OK("mkdir"), OK("rename"), OK("unlink"),
	       NO("write", EACCES));
	cr_expect_str_eq(content("root/d/y") ? content("root/d/y") : "(missing)", "x");
	cr_expect(!exists("root/file"));
	expect_outside_intact();
}

Test(shim_paths, relative_after_chdir_into_outside_refused)
{
	ops(&(struct opts){ 0 }, ARGS("chdir", tp("outside"),
				      "write", "x", "x",
				      "write", "canary", "pwned",
				      "mkdir", "d",
				      "unlink", "canary",
				      "rmdir", "dir",
				      "write", "../root/ok", "ok"));
	EXPECT(OK("chdir"), NO("write", EACCES), NO("write", EACCES), NO("mkdir", EACCES),
	       NO("unlink", EACCES), NO("rmdir", EACCES), OK("write"));
	expect_outside_intact();
	cr_expect_str_eq(content("root/ok") ? content("root/ok") : "(missing)", "ok");
}

/* The shim caches the working directory: fchdir must move it too. */
Test(shim_paths, relative_after_fchdir_follows_new_directory)
{
	ops(&(struct opts){ 0 }, ARGS("dir", "0", tp("root"),
				      "dir", "1", tp("outside"),
				      "chdir", tp("root"),
				      "write", "a", "a",
				      "fchdir", "1",
				      "write", "x", "x",
				      "write", "canary", "pwned",
				      "fchdir", "0",
				      "write", "b", "b",
				      "chdir", tp("outside/dir"),
				      "mkdir", "d"));
	EXPECT(OK("dir"), OK("dir"), OK("chdir"), OK("write"), OK("fchdir"), NO("write", EACCES),
	       NO("write", EACCES), OK("fchdir"), OK("write"), OK("chdir"), NO("mkdir", EACCES));
	cr_expect(exists("root/a") && exists("root/b"));
	cr_expect(!exists("root/x") && !exists("root/canary") && !exists("root/d"),
		  "a relative call went to the old directory");
	expect_outside_intact();
}

Test(shim_paths, dirfd_inside_root_allowed)
{
	ops(&(struct opts){ 0 }, ARGS("dir", "0", tp("root"),
				      "openat", "0", "a", "O_WRONLY|O_CREAT",
				      "mkdirat", "0", "d",
				      "openat", "0", "d/b", "O_WRONLY|O_CREAT",
				      "unlinkat", "0", "a", "0",
				      "unlinkat", "0", "d/b", "0",
				      "unlinkat", "0", "d", "AT_REMOVEDIR",
				      "mkdirat", "0", "e",
				      "dir", "1", tp("root/sub"),
				      "openat", "1", "../c", "O_WRONLY|O_CREAT"));
	EXPECT(OK("dir"), OK("openat"), OK("mkdirat"), OK("openat"), OK("unlinkat"), OK("unlinkat"),
	       OK("unlinkat"), OK("mkdirat"), OK("dir"), OK("openat"));
	cr_expect(!exists("root/a") && !exists("root/d"));
	cr_expect(exists("root/e") && exists("root/c"));
	expect_outside_intact();
}

Test(shim_paths, dirfd_outside_root_refused)
{
	ops(&(struct opts){ 0 }, ARGS("dir", "1", tp("outside"),
				      "openat", "1", "x", "O_WRONLY|O_CREAT",
				      "openat", "1", "canary", "O_WRONLY|O_TRUNC",
				      "mkdirat", "1", "d",
				      "unlinkat", "1", "canary", "0",
				      "unlinkat", "1", "dir", "AT_REMOVEDIR",
				      "dir", "0", tp("root"),
				      "openat", "0", "../outside/y", "O_WRONLY|O_CREAT",
				      "openat", "0", "out/y", "O_WRONLY|O_CREAT",
				      "mkdirat", "0", "out/d"));
	EXPECT(OK("dir"), NO("openat", EACCES), NO("openat", EACCES), NO("mkdirat", EACCES),
	       NO("unlinkat", EACCES), NO("unlinkat", EACCES), OK("dir"), NO("openat", EACCES),
	       NO("openat", EACCES), NO("mkdirat", EACCES));
	expect_outside_intact();
}

Test(shim_paths, proc_self_fd_outside_refused)
{
	ops(&(struct opts){ 0 }, ARGS("dir", "1", tp("outside"),
				      "open", "/proc/self/fd/%1/x", "O_WRONLY|O_CREAT",
				      "open", "/proc/self/fd/%1/canary", "O_WRONLY|O_TRUNC",
				      "mkdir", "/proc/self/fd/%1/d",
				      "unlink", "/proc/self/fd/%1/canary",
				      "rmdir", "/proc/self/fd/%1/dir"));
	EXPECT(OK("dir"), NO("open", EACCES), NO("open", EACCES), NO("mkdir", EACCES),
	       NO("unlink", EACCES), NO("rmdir", EACCES));
	expect_outside_intact();
	cr_expect(strstr(R.err, fmt("cordon: deny create %s/outside/x (open ", T)),
		  "the log names the resolved target\nstderr:\n%s", R.err);
}

Test(shim_paths, proc_self_fd_inside_allowed)
{
	ops(&(struct opts){ 0 }, ARGS("dir", "0", tp("root"),
				      "open", "/proc/self/fd/%0/x", "O_WRONLY|O_CREAT",
				      "mkdir", "/proc/self/fd/%0/d",
				      "unlink", "/proc/self/fd/%0/file"));
	EXPECT(OK("dir"), OK("open"), OK("mkdir"), OK("unlink"));
	cr_expect(exists("root/x"));
	cr_expect(exists("root/d"));
	cr_expect(!exists("root/file"));
	cr_expect_str_eq(R.err, "");
}

Test(shim_paths, write_root_through_symlink_resolved)
{
	const char *env_link = fmt("CORDON_WRITE=%s/rootlink", T);

	ops(&(struct opts){ .env = ENV(env_link) },
	    ARGS("write", tp("rootlink/a"), "a",
		 "mkdir", tp("rootlink/d"),
		 "write", tp("root/b"), "b",
		 "rename", tp("rootlink/a"), tp("root/d/a"),
		 "open", tp("outside/x"), "O_WRONLY|O_CREAT"));
	EXPECT(OK("write"), OK("mkdir"), OK("write"), OK("rename"), NO("open", EACCES));
	cr_expect_str_eq(content("root/d/a") ? content("root/d/a") : "(missing)", "a");
	cr_expect_str_eq(content("root/b") ? content("root/b") : "(missing)", "b");
	expect_outside_intact();
	cr_expect(strstr(R.err, fmt(": outside write roots [%s/root]; ", T)),
		  "the log names the resolved root\nstderr:\n%s", R.err);
	cr_expect(!strstr(R.err, "rootlink"), "stderr:\n%s", R.err);
}

/* Across the boundary, either direction: refused with EACCES (the call
 * would succeed without cordon, so no other error comes first), and both
 * ends as they were. */
struct cross {
	const char *op, *from, *to;
};

static const struct cross crossings[] = {
	{ "rename", "root/file", "outside/new" },      /* out of the root, new name */
	{ "rename", "root/file", "outside/canary" },   /* out, over a file */
	{ "rename", "outside/canary", "root/new" },    /* into the root */
	{ "rename", "outside/canary", "root/file" },   /* into the root, over a file */
	{ "link", "root/file", "outside/new" },
	{ "link", "outside/canary", "root/new" },
	{ "exchange", "root/file", "outside/canary" },
	{ "exchange", "outside/canary", "root/file" },
};
#define N_CROSSINGS (sizeof(crossings) / sizeof(crossings[0]))

ParameterizedTestParameters(shim_paths, across_boundary_refused_both_intact)
{
	static size_t idx[N_CROSSINGS];

	for (size_t i = 0; i < N_CROSSINGS; i++)
		idx[i] = i;
	return cr_make_param_array(size_t, idx, N_CROSSINGS);
}

/* (The suite's .init and .fini apply: naming them again would run them twice.) */
ParameterizedTest(size_t *i, shim_paths, across_boundary_refused_both_intact)
{
	const struct cross *c = &crossings[*i];

	struct res r;

	ops(&(struct opts){ 0 }, ARGS(c->op, tp(c->from), tp(c->to)));
	cr_assert_eq(results(&r, 1), 1, "stdout:\n%s\nstderr:\n%s", R.out, R.err);
	cr_expect(r.ret == -1 && r.err == EACCES, "%s %s %s: %d errno %d (%s), want -1 EACCES",
		  c->op, c->from, c->to, r.ret, r.err, r.ret ? strerror(r.err) : "success");
	cr_expect_str_eq(content("root/file") ? content("root/file") : "(missing)", "root");
	cr_expect(!exists("root/new"), "root/new was created");
	expect_outside_intact();
	cr_expect_eq(count_lines(R.err, "cordon: deny "), 1, "stderr:\n%s", R.err);
}

Test(shim_paths, rename_and_link_inside_root_allowed)
{
	ops(&(struct opts){ 0 }, ARGS("rename", tp("root/file"), tp("root/sub/moved"),
				      "link", tp("root/sub/moved"), tp("root/hard"),
				      "rename", tp("root/sub/keep"), tp("root/hard")));
	EXPECT(OK("rename"), OK("link"), OK("rename"));
	cr_expect(!exists("root/file") && !exists("root/sub/keep"));
	cr_expect_str_eq(content("root/sub/moved") ? content("root/sub/moved") : "(missing)", "root");
	cr_expect_str_eq(content("root/hard") ? content("root/hard") : "(missing)", "keep");
	cr_expect_str_eq(R.err, "");
}

Test(shim_paths, exchange_inside_root_swaps)
{
	put_file("root/sub/a", "A");
	ops(&(struct opts){ 0 }, ARGS("exchange", tp("root/file"), tp("root/sub/a")));
	EXPECT(OK("exchange"));
	cr_expect_str_eq(content("root/file"), "A");
	cr_expect_str_eq(content("root/sub/a"), "root");
	cr_expect_str_eq(R.err, "");
}

/* --- errno parity with the kernel ------------------------------------------------- */

/* One call refused (or not) by the policy: the shim must fail it exactly as
 * the kernel does under an equivalent Landlock ruleset. @expect is the
 * kernel's answer (0: success), written down to document the row. */
struct parity {
	const char *op, *a, *b, *c;
	int expect;
};

static const struct parity parities[] = {
	{ "mkdir", "outside/dir", NULL, NULL, EEXIST },
	{ "mkdir", "outside/missing/sub", NULL, NULL, ENOENT },
	{ "open", "outside/missing/f", "O_WRONLY|O_CREAT", NULL, ENOENT },
	{ "open", "outside/canary", "O_RDONLY|O_CREAT", NULL, 0 },
	{ "unlink", "outside/missing", NULL, NULL, ENOENT },
	{ "rmdir", "outside/missing", NULL, NULL, ENOENT },
	{ "rename", "outside/missing", "outside/new", NULL, ENOENT },
	{ "open", "outside/canary", "O_WRONLY", NULL, EACCES },
	{ "open", "outside/canary", "O_WRONLY|O_CREAT|O_EXCL", NULL, EEXIST },
	/* more of the same kind */
	{ "open", "outside/missing", "O_WRONLY", NULL, ENOENT },
	{ "open", "outside/new", "O_WRONLY|O_CREAT", NULL, EACCES },
	{ "open", "outside/canary", "O_RDONLY|O_TRUNC", NULL, EACCES },
	{ "creat", "outside/missing/f", NULL, NULL, ENOENT },
	{ "mkdir", "outside/canary/sub", NULL, NULL, ENOTDIR },
	{ "unlink", "outside/canary", NULL, NULL, EACCES },
	{ "rmdir", "outside/dir", NULL, NULL, EACCES },
	{ "truncate", "outside/missing", NULL, NULL, ENOENT },
	{ "truncate", "outside/canary", NULL, NULL, EACCES },
	{ "symlink", "x", "outside/canary", NULL, EEXIST },
	{ "rename", "outside/missing", "root/new", NULL, ENOENT },
	{ "rename", "root/missing", "outside/new", NULL, ENOENT },
	{ "link", "outside/missing", "root/new", NULL, ENOENT },
	{ "link", "root/missing", "outside/new", NULL, ENOENT },
};
#define N_PARITIES (sizeof(parities) / sizeof(parities[0]))

static const char *row_text(const struct parity *p)
{
	return fmt("%s %s%s%s%s%s", p->op, p->a, p->b ? " " : "", p->b ? p->b : "",
		   p->c ? " " : "", p->c ? p->c : "");
}

/* Paths are relative to $T (the drivers' working directory), except a
 * symlink's target and open flags. */
static void parity_run(const struct parity *p, bool landlock, struct res *r)
{
	bool a_path = strcmp(p->op, "symlink") != 0;
	bool b_path = p->b && strcmp(p->op, "open") != 0;
	const char *a = a_path ? tp(p->a) : p->a, *b = p->b ? (b_path ? tp(p->b) : p->b) : NULL;
	const char *args[] = { p->op, a, b, p->c, NULL };

	run(&(struct opts){ .bare = landlock, .landlock = landlock }, drv, args);
	cr_assert_eq(results(r, 1), 1, "%s: no result\nstdout:\n%s\nstderr:\n%s", row_text(p),
		     R.out, R.err);
}

ParameterizedTestParameters(shim_errno, refusal_fails_as_kernel_does)
{
	static size_t idx[N_PARITIES];

	for (size_t i = 0; i < N_PARITIES; i++)
		idx[i] = i;
	return cr_make_param_array(size_t, idx, N_PARITIES);
}

ParameterizedTest(size_t *i, shim_errno, refusal_fails_as_kernel_does, .init = setup,
		  .fini = teardown)
{
	const struct parity *p = &parities[*i];
	struct res kernel, shim;
	int abi = landlock_abi();

	if (abi < 0)
		cr_skip_test("Landlock is not available: %s", strerror(-abi));
	if (abi < 3)
		cr_skip_test("Landlock ABI %d lacks TRUNCATE (ABI 3)", abi);

	parity_run(p, true, &kernel);
	expect_outside_intact();
	parity_run(p, false, &shim);
	expect_outside_intact();

	int kerr = kernel.ret == 0 ? 0 : kernel.err, serr = shim.ret == 0 ? 0 : shim.err;
	cr_expect_eq(serr, kerr, "%s: shim %s (%d), kernel %s (%d)\nshim stderr:\n%s",
		     row_text(p), serr ? strerror(serr) : "success", serr,
		     kerr ? strerror(kerr) : "success", kerr, R.err);
	cr_expect_eq(kerr, p->expect, "fixture: %s: the kernel answered %s (%d), the row says %s",
		     row_text(p), kerr ? strerror(kerr) : "success", kerr,
		     p->expect ? strerror(p->expect) : "success");
	/* A refusal is logged; a failure the kernel would give first is not. */
	cr_expect_eq(count_lines(R.err, "cordon: deny "), serr == EACCES ? 1 : 0,
		     "%s: stderr:\n%s", row_text(p), R.err);
}

/* errno on the allowed paths: untouched when the call succeeds, libc's own
 * when it fails. */
Test(shim_errno, allowed_success_keeps_errno, .init = setup, .fini = teardown)
{
	ops(&(struct opts){ 0 }, ARGS("mkdir", tp("root/d"),
				      "write", tp("root/d/f"), "f",
				      "open", tp("root/file"), "O_WRONLY|O_TRUNC",
				      "open", tp("root/file"), "O_RDONLY",
				      "creat", tp("root/c"),
				      "rename", tp("root/d/f"), tp("root/g"),
				      "link", tp("root/g"), tp("root/h"),
				      "symlink", "g", tp("root/s"),
				      "exchange", tp("root/g"), tp("root/c"),
				      "truncate", tp("root/g"),
				      "unlink", tp("root/h"),
				      "rmdir", tp("root/d"),
				      "dir", "0", tp("root"),
				      "openat", "0", "n", "O_WRONLY|O_CREAT",
				      "mkdirat", "0", "e",
				      "unlinkat", "0", "e", "AT_REMOVEDIR",
				      "write", tp("rootlink/via-link"), "v",
				      "write", tp("root/sub/../dd"), "dd"));
	EXPECT(OK_KEEP("mkdir"), OK_KEEP("write"), OK_KEEP("open"), OK_KEEP("open"),
	       OK_KEEP("creat"), OK_KEEP("rename"), OK_KEEP("link"), OK_KEEP("symlink"),
	       OK_KEEP("exchange"), OK_KEEP("truncate"), OK_KEEP("unlink"), OK_KEEP("rmdir"),
	       OK_KEEP("dir"), OK_KEEP("openat"), OK_KEEP("mkdirat"), OK_KEEP("unlinkat"),
	       OK_KEEP("write"), OK_KEEP("write"));
	cr_expect(exists("root/n") && exists("root/via-link") && exists("root/dd"));
}

Test(shim_errno, allowed_failure_reports_libc_errno, .init = setup, .fini = teardown)
{
	const char *const list[] = {
		"mkdir", tp("root/sub"),
		"open", tp("root/missing/f"), "O_WRONLY|O_CREAT",
		"open", tp("root/file"), "O_WRONLY|O_CREAT|O_EXCL",
		"open", tp("root/sub"), "O_WRONLY",
		"unlink", tp("root/missing"),
		"rmdir", tp("root/file"),
		"rmdir", tp("root/sub"),
		"rename", tp("root/missing"), tp("root/x"),
		"link", tp("root/file"), tp("root/sub"),
		"mkdir", tp("root/file/x"),
		"dir", "0", tp("root"),
		"mkdirat", "0", "sub",
		"unlinkat", "0", "missing", "0",
		NULL,
	};
	char bare[sizeof(R.out)];

	ops(&(struct opts){ .bare = true }, list);
	EXPECT(NO("mkdir", EEXIST), NO("open", ENOENT), NO("open", EEXIST), NO("open", EISDIR),
	       NO("unlink", ENOENT), NO("rmdir", ENOTDIR), NO("rmdir", ENOTEMPTY),
	       NO("rename", ENOENT), NO("link", EEXIST), NO("mkdir", ENOTDIR), OK("dir"),
	       NO("mkdirat", EEXIST), NO("unlinkat", ENOENT));
	memcpy(bare, R.out, sizeof(bare));
	ops(&(struct opts){ 0 }, list);
	/* Same lines but for the pid. */
	struct res s[32], b[32];
	size_t ns = results(s, 32);
	memcpy(R.out, bare, sizeof(bare));
	size_t nb = results(b, 32);
	cr_assert_eq(ns, nb);
	for (size_t k = 0; k < ns; k++)
		cr_expect(strcmp(s[k].op, b[k].op) == 0 && s[k].ret == b[k].ret &&
			  s[k].err == b[k].err, "%s: shim %d errno %d, libc %d errno %d",
			  s[k].op, s[k].ret, s[k].err, b[k].ret, b[k].err);
}

/* --- threads ---------------------------------------------------------------------- */

Test(shim_threads, storm_every_call_decided_every_refusal_logged_once, .init = setup,
     .fini = teardown, .timeout = 120)
{
	long allowed = -1, allowed_failed = -1, refused = -1, refused_wrong = -1;
	const char *env_log = fmt("CORDON_LOG_FILE=%s", tp("log"));
	static char log[16 << 20];

	run(&(struct opts){ .env = ENV(env_write, env_log) }, storm,
	    ARGS(tp("root"), tp("outside"), "8", "10000"));
	cr_assert_eq(sscanf(R.out, "allowed %ld allowed_failed %ld refused %ld refused_wrong %ld",
			    &allowed, &allowed_failed, &refused, &refused_wrong), 4,
		     "stdout:\n%s\nstderr:\n%s", R.out, R.err);
	cr_expect_eq(allowed, 8 * (1 + 6000), "allowed calls made: %ld", allowed);
	cr_expect_eq(allowed_failed, 0, "allowed calls that failed: %ld\nstderr:\n%s",
		     allowed_failed, R.err);
	cr_expect_eq(refused, 8 * 4000, "refused calls made: %ld", refused);
	cr_expect_eq(refused_wrong, 0, "refusals that did not fail EACCES: %ld\nstderr:\n%s",
		     refused_wrong, R.err);
	expect_outside_intact();

	ssize_t got = fixture_slurp(tp("log"), log, sizeof(log));
	cr_assert_geq(got, 0, "no log file: %s", strerror(errno));
	cr_assert_lt(got, (ssize_t)sizeof(log) - 1, "log larger than the buffer");
	int lines = count_str(log, "\n"), deny = count_lines(log, "cordon: deny ");
	int whole = count_lines(log, fmt("cordon: deny create %s/outside/t", T));
	cr_expect_eq(deny, refused, "%d deny lines in the log, want one per refused call (%ld)",
		     deny, refused);
	cr_expect_eq(lines, refused, "%d lines in the log, want %ld (torn or extra lines?)",
		     lines, refused);
	cr_expect_eq(whole, refused, "%d lines whole and naming their target, want %ld", whole,
		     refused);
	cr_expect_str_eq(R.err, "", "nothing on stderr with a log file");
}

/* --- exec keeps the shim ------------------------------------------------------------ */

TestSuite(shim_exec, .init = setup, .fini = teardown);

/* The results of processes other than the driver itself. */
static size_t child_results(struct res *v, size_t max)
{
	struct res all[64];
	size_t n = results(all, 64), k = 0;

	for (size_t i = 0; i < n && k < max; i++)
		if (all[i].pid != R.pid)
			v[k++] = all[i];
	return k;
}

Test(shim_exec, fork_exec_empty_environment_still_confined)
{
	struct res c[8];

	ops(&(struct opts){ 0 }, ARGS("spawn-empty", drv,
				      "write", tp("outside/canary"), "pwned",
				      "write", tp("outside/new"), "x",
				      "write", tp("root/ok"), "ok"));
	cr_assert_eq(child_results(c, 8), 3, "stdout:\n%s\nstderr:\n%s", R.out, R.err);
	cr_expect(c[0].ret == -1 && c[0].err == EACCES, "child's write over the canary: %d %d",
		  c[0].ret, c[0].err);
	cr_expect(c[1].ret == -1 && c[1].err == EACCES, "child's new file outside: %d %d",
		  c[1].ret, c[1].err);
	cr_expect(c[2].ret == 0, "child's write inside the root (the policy came along): %d %d",
		  c[2].ret, c[2].err);
	cr_expect(strstr(R.out, fmt("%d spawn-empty 0 ", R.pid)), "stdout:\n%s", R.out);
	expect_outside_intact();
	cr_expect(exists("root/ok"));
	cr_expect_eq(count_lines(R.err, "cordon: deny "), 2, "stderr:\n%s", R.err);
	cr_expect(strstr(R.err, fmt(" pid %d %s: outside write roots [%s/root]", c[0].pid, drv,
				    T)),
		  "the child logs with its own pid\nstderr:\n%s", R.err);
}

Test(shim_exec, execvp_after_unsetenv_preload_still_confined)
{
	struct res v[8];

	ops(&(struct opts){ 0 }, ARGS("unsetenv", "LD_PRELOAD",
				      "unsetenv", "CORDON_WRITE",
				      "execvp", drv,
				      "write", tp("outside/canary"), "pwned",
				      "mkdir", tp("outside/d"),
				      "write", tp("root/ok"), "ok"));
	cr_assert_eq(results(v, 8), 5, "stdout:\n%s\nstderr:\n%s", R.out, R.err);
	cr_expect(v[2].ret == -1 && v[2].err == EACCES, "new image's write: %d %d", v[2].ret,
		  v[2].err);
	cr_expect(v[3].ret == -1 && v[3].err == EACCES, "new image's mkdir: %d %d", v[3].ret,
		  v[3].err);
	cr_expect(v[4].ret == 0, "new image's write inside the root: %d %d", v[4].ret, v[4].err);
	expect_outside_intact();
	cr_expect(exists("root/ok"));
}

Test(shim_exec, execvp_after_widening_write_root_still_confined)
{
	struct res v[8];
	const char *wide = tp("outside");

	ops(&(struct opts){ 0 }, ARGS("setenv", "CORDON_WRITE", wide,
				      "execvp", drv,
				      "write", tp("outside/canary"), "pwned"));
	cr_assert_eq(results(v, 8), 2, "stdout:\n%s\nstderr:\n%s", R.out, R.err);
	cr_expect(v[1].ret == -1 && v[1].err == EACCES, "new image's write: %d %d", v[1].ret,
		  v[1].err);
	expect_outside_intact();
}

/* --- the log line --------------------------------------------------------------------- */

TestSuite(shim_log, .init = setup, .fini = teardown);

Test(shim_log, text_refused_open_exact_line)
{
	ops(&(struct opts){ 0 }, ARGS("open", "outside/x", "O_WRONLY|O_CREAT"));
	EXPECT(NO("open", EACCES));
	cr_expect_str_eq(R.err,
			 fmt("cordon: deny create %s/outside/x (open O_WRONLY|O_CREAT, as "
			     "\"outside/x\") pid %d %s: outside write roots [%s/root]; "
			     "to allow: write %s/outside [shim]\n", T, R.pid, drv, T, T));
	expect_outside_intact();
}

Test(shim_log, text_refused_mkdir_absolute_exact_line)
{
	ops(&(struct opts){ 0 }, ARGS("mkdir", tp("outside/d")));
	EXPECT(NO("mkdir", EACCES));
	cr_expect_str_eq(R.err,
			 fmt("cordon: deny create %s/outside/d (mkdir) pid %d %s: outside write "
			     "roots [%s/root]; to allow: write %s/outside [shim]\n", T, R.pid, drv,
			     T, T));
}

/* A flat JSON object: keys in order, values as raw JSON text, strings decoded. */
struct jfield {
	char key[32];
	char raw[PATH_MAX + 64];   /* the value as written */
	char str[PATH_MAX + 64];   /* decoded, for a string */
	bool is_str;
};

static const char *jstring(const char *p, char *out, size_t size)
{
	size_t o = 0;

	if (*p != '"')
		return NULL;
	for (p++; *p != '"'; p++) {
		char c = *p;
		if (!c || (unsigned char)c < 0x20)
			return NULL;
		if (c == '\\') {
			p++;
			switch (*p) {
			case '"': c = '"'; break;
			case '\\': c = '\\'; break;
			case '/': c = '/'; break;
			case 'n': c = '\n'; break;
			case 't': c = '\t'; break;
			case 'u': {
				unsigned v;
				if (sscanf(p + 1, "%4x", &v) != 1 || v > 0xff)
					return NULL;
				c = (char)v;
				p += 4;
				break;
			}
			default: return NULL;
			}
		}
		if (o + 1 >= size)
			return NULL;
		out[o++] = c;
	}
	out[o] = '\0';
	return p + 1;
}

/* Parse @line (one object and "\n"); returns the number of fields, -1 if bad. */
static int jparse(const char *line, struct jfield *f, int max)
{
	const char *p = line;
	int n = 0;

	if (*p++ != '{')
		return -1;
	while (*p != '}') {
		if (n == max)
			return -1;
		if (n && *p++ != ',')
			return -1;
		p = jstring(p, f[n].key, sizeof(f[n].key));
		if (!p || *p++ != ':')
			return -1;
		const char *start = p;
		f[n].is_str = *p == '"';
		if (f[n].is_str) {
			p = jstring(p, f[n].str, sizeof(f[n].str));
			if (!p)
				return -1;
		} else if (*p == '[') {
			char tmp[PATH_MAX];
			for (p++; *p != ']';) {
				p = jstring(p, tmp, sizeof(tmp));
				if (!p || (*p != ',' && *p != ']'))
					return -1;
				if (*p == ',')
					p++;
			}
			p++;
		} else {
			while (*p && *p != ',' && *p != '}')
				p++;
		}
		if ((size_t)(p - start) >= sizeof(f[n].raw))
			return -1;
		memcpy(f[n].raw, start, (size_t)(p - start));
		f[n].raw[p - start] = '\0';
		n++;
	}
	return strcmp(p, "}\n") == 0 ? n : -1;
}

static void expect_json(const char *line, const char *const (*want)[2], int n)
{
	struct jfield f[32];
	int got = jparse(line, f, 32);

	cr_assert_geq(got, 0, "not one JSON object and a newline:\n%s", line);
	cr_expect_eq(got, n, "%d keys, want %d:\n%s", got, n, line);
	for (int i = 0; i < n && i < got; i++) {
		cr_expect_str_eq(f[i].key, want[i][0], "key %d", i);
		cr_expect_str_eq(f[i].raw, want[i][1], "value of \"%s\"", f[i].key);
	}
}

/* JSON text of a string value (paths here are plain ASCII, no escapes). */
static const char *js(const char *s)
{
	return fmt("\"%s\"", s);
}

Test(shim_log, json_refused_open_every_key)
{
	const char *env_json = "CORDON_LOG_FORMAT=json";

	ops(&(struct opts){ .env = ENV(env_write, env_json) },
	    ARGS("open", "outside/x", "O_WRONLY|O_CREAT"));
	EXPECT(NO("open", EACCES));
	const char *const want[][2] = {
		{ "v", "1" },
		{ "decision", "\"deny\"" },
		{ "op", "\"create\"" },
		{ "call", "\"open\"" },
		{ "flags", "\"O_WRONLY|O_CREAT\"" },
		{ "path", "\"outside/x\"" },
		{ "target", js(tp("outside/x")) },
		{ "reason", "\"outside write roots\"" },
		{ "matched", "null" },
		{ "rule", "null" },
		{ "roots", fmt("[\"%s/root\"]", T) },
		{ "hint", fmt("\"write %s/outside\"", T) },
		{ "pid", fmt("%d", R.pid) },
		{ "exe", js(drv) },
		{ "layer", "\"shim\"" },
		{ "mode", "\"enforce\"" },
	};
	expect_json(R.err, want, (int)(sizeof(want) / sizeof(want[0])));
	cr_expect_eq(count_str(R.err, "\n"), 1, "one line:\n%s", R.err);
}

Test(shim_log, json_allowed_open_names_root_and_rule)
{
	ops(&(struct opts){ .env = ENV(env_write, "CORDON_LOG_FORMAT=json", "CORDON_LOG=all") },
	    ARGS("mkdir", tp("root/d")));
	EXPECT(OK("mkdir"));
	const char *const want[][2] = {
		{ "v", "1" },
		{ "decision", "\"allow\"" },
		{ "op", "\"create\"" },
		{ "call", "\"mkdir\"" },
		{ "flags", "\"\"" },
		{ "path", js(tp("root/d")) },
		{ "target", js(tp("root/d")) },
		{ "reason", "\"inside write root\"" },
		{ "matched", js(tp("root")) },
		{ "rule", fmt("\"--write %s/root\"", T) },
		{ "pid", fmt("%d", R.pid) },
		{ "exe", js(drv) },
		{ "layer", "\"shim\"" },
		{ "mode", "\"enforce\"" },
	};
	expect_json(R.err, want, (int)(sizeof(want) / sizeof(want[0])));
}

Test(shim_log, newline_in_path_stays_one_line)
{
	const char *env_json = "CORDON_LOG_FORMAT=json";
	struct jfield f[32];

	ops(&(struct opts){ 0 }, ARGS("open", "outside/a\nb", "O_WRONLY|O_CREAT"));
	EXPECT(NO("open", EACCES));
	cr_expect_eq(count_str(R.err, "\n"), 1, "text: one line:\n%s", R.err);
	cr_expect(strncmp(R.err, fmt("cordon: deny create \"%s/outside/a\\012b\" (open ", T),
			  strlen(fmt("cordon: deny create \"%s/outside/a\\012b\" (open ", T))) == 0,
		  "text: the target quoted with the newline escaped:\n%s", R.err);

	ops(&(struct opts){ .env = ENV(env_write, env_json) },
	    ARGS("open", "outside/a\nb", "O_WRONLY|O_CREAT"));
	EXPECT(NO("open", EACCES));
	cr_expect_eq(count_str(R.err, "\n"), 1, "json: one line:\n%s", R.err);
	int n = jparse(R.err, f, 32);
	cr_assert_gt(n, 6, "json: not an object:\n%s", R.err);
	cr_expect_str_eq(f[5].key, "path");
	cr_expect_str_eq(f[5].str, "outside/a\nb");
	cr_expect_str_eq(f[6].raw, fmt("\"%s/outside/a\\u000ab\"", T));
	expect_outside_intact();
}

Test(shim_log, text_control_char_path_quoted_once)
{
	ops(&(struct opts){ 0 }, ARGS("open", "outside/a\nb", "O_WRONLY|O_CREAT"));
	EXPECT(NO("open", EACCES));
	cr_expect(strstr(R.err, ", as \"outside/a\\012b\") pid "),
		  "the path as given, quoted once:\n%s", R.err);
}

/* --- modes -------------------------------------------------------------------------- */

TestSuite(shim_mode, .init = setup, .fini = teardown);

Test(shim_mode, warn_refused_call_succeeds_and_logged)
{
	ops(&(struct opts){ .env = ENV(env_write, "CORDON_MODE=warn") },
	    ARGS("open", tp("outside/w"), "O_WRONLY|O_CREAT",
		 "mkdir", tp("outside/wd"),
		 "write", tp("root/in"), "in"));
	EXPECT(OK_KEEP("open"), OK_KEEP("mkdir"), OK_KEEP("write"));
	cr_expect(exists("outside/w"), "mode warn: the file is created");
	cr_expect(exists("outside/wd"), "mode warn: the directory is created");
	cr_expect_str_eq(R.err,
			 fmt("cordon: warn create %s/outside/w (open O_WRONLY|O_CREAT) pid %d %s: "
			     "outside write roots [%s/root]; to allow: write %s/outside [shim]\n"
			     "cordon: warn create %s/outside/wd (mkdir) pid %d %s: "
			     "outside write roots [%s/root]; to allow: write %s/outside [shim]\n",
			     T, R.pid, drv, T, T, T, R.pid, drv, T, T));
}

Test(shim_mode, off_nothing_logged_call_succeeds)
{
	ops(&(struct opts){ .env = ENV(env_write, "CORDON_MODE=off", "CORDON_LOG=all") },
	    ARGS("open", tp("outside/o"), "O_WRONLY|O_CREAT",
		 "mkdir", tp("outside/od"),
		 "write", tp("root/in"), "in"));
	EXPECT(OK_KEEP("open"), OK_KEEP("mkdir"), OK_KEEP("write"));
	cr_expect(exists("outside/o") && exists("outside/od") && exists("root/in"));
	cr_expect_str_eq(R.err, "", "mode off logs nothing");
}

/* docs/policy.md: "off neither refuses nor logs"; the summary is a log line. */
Test(shim_mode, off_with_summary_nothing_logged)
{
	ops(&(struct opts){ .env = ENV(env_write, "CORDON_MODE=off", "CORDON_LOG_SUMMARY=yes") },
	    ARGS("mkdir", tp("outside/od")));
	EXPECT(OK("mkdir"));
	cr_expect(exists("outside/od"));
	cr_expect_str_eq(R.err, "", "mode off logs nothing, not even the summary");
}

/* --- the policy from a descriptor --------------------------------------------------- */

TestSuite(shim_policy_fd, .init = setup, .fini = teardown);

static int policy_memfd(const char *text)
{
	/* Sealed, as cordon run makes it: the shim takes nothing else. */
	int fd = memfd_create("cordon-policy", MFD_ALLOW_SEALING);  /* inherited across exec */

	cr_assert_geq(fd, 3, "memfd_create: %s", strerror(errno));
	cr_assert_eq(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	cr_assert_eq(fcntl(fd, F_ADD_SEALS, F_SEAL_WRITE | F_SEAL_GROW | F_SEAL_SHRINK | F_SEAL_SEAL),
		     0);
	return fd;
}

Test(shim_policy_fd, memfd_write_root_works_env_ignored)
{
	int fd = policy_memfd(fmt("# compiled\nwrite %s/root\n", T));
	const char *env_fd = fmt("CORDON_POLICY_FD=%d", fd);
	const char *env_wide = fmt("CORDON_WRITE=%s/outside", T);

	ops(&(struct opts){ .env = ENV(env_fd, env_wide)},
	    ARGS("write", tp("root/a"), "a",
		 "mkdir", tp("root/d"),
		 "write", tp("outside/x"), "x",
		 "write", tp("outside/canary"), "pwned"));
	EXPECT(OK("write"), OK("mkdir"), NO("write", EACCES), NO("write", EACCES));
	cr_expect(exists("root/a") && exists("root/d"));
	expect_outside_intact();
	cr_expect(strstr(R.err, fmt(": outside write roots [%s/root]; ", T)), "stderr:\n%s", R.err);
	close(fd);
}

Test(shim_policy_fd, malformed_policy_refuses_every_write_error_once)
{
	int fd = policy_memfd(fmt("write %s/root\nwrte %s/outside\n", T, T));
	const char *env_fd = fmt("CORDON_POLICY_FD=%d", fd);

	ops(&(struct opts){ .env = ENV(env_fd)},
	    ARGS("write", tp("root/a"), "a",
		 "mkdir", tp("root/d"),
		 "write", tp("outside/x"), "x",
		 "open", tp("root/file"), "O_RDONLY"));
	EXPECT(NO("write", EACCES), NO("mkdir", EACCES), NO("write", EACCES), OK("open"));
	cr_expect(!exists("root/a") && !exists("root/d"), "nothing written inside the root");
	expect_outside_intact();
	const char *problem = fmt("cordon: policy descriptor %d:2: unknown directive 'wrte' "
				  "(did you mean 'write'?)\n", fd);
	cr_expect_eq(count_str(R.err, problem), 1, "the problem named once, as\n%s\nstderr:\n%s",
		     problem, R.err);
	cr_expect_eq(count_str(R.err, "cordon: the policy could not be read: every write"), 1,
		     "announced once; stderr:\n%s", R.err);
	close(fd);
}

/* The refusals under a policy that could not be read say so: "outside write
 * roots [R]; to allow: write R" for a target beneath R would send the reader
 * the wrong way. */
Test(shim_policy_fd, malformed_policy_deny_lines_name_the_cause)
{
	int fd = policy_memfd(fmt("write %s/root\nwrte %s/outside\n", T, T));
	const char *env_fd = fmt("CORDON_POLICY_FD=%d", fd);

	ops(&(struct opts){ .env = ENV(env_fd) }, ARGS("mkdir", tp("root/d")));
	EXPECT(NO("mkdir", EACCES));
	const char *line = strstr(R.err, "cordon: deny create ");
	cr_assert_not_null(line, "stderr:\n%s", R.err);
	cr_expect(strstr(line, ": the policy could not be read"), "the deny line names the cause:\n%s",
		  line);
	cr_expect(!strstr(line, "to allow: write"), "no hint to add a root that is there:\n%s",
		  line);
	close(fd);
}

/* --- the summary at exit -------------------------------------------------------------- */

struct pair {
	const char *op1, *path1, *flags1, *op2, *path2;
};

static const struct pair creates[] = {
	{ "mkdir", "outside/a", NULL, "mkdir", "outside/b" },
	{ "mkdir", "outside/a", NULL, "creat", "outside/b" },
	{ "open", "outside/a", "O_WRONLY|O_CREAT", "mkdir", "outside/b" },
};
#define N_CREATES (sizeof(creates) / sizeof(creates[0]))

ParameterizedTestParameters(shim_summary, two_refused_creates_counted)
{
	static size_t idx[N_CREATES];

	for (size_t i = 0; i < N_CREATES; i++)
		idx[i] = i;
	return cr_make_param_array(size_t, idx, N_CREATES);
}

ParameterizedTest(size_t *i, shim_summary, two_refused_creates_counted, .init = setup,
		  .fini = teardown)
{
	const struct pair *p = &creates[*i];
	const char *args[8] = { p->op1, tp(p->path1) };
	size_t k = 2;

	if (p->flags1)
		args[k++] = p->flags1;
	args[k++] = p->op2;
	args[k++] = tp(p->path2);
	args[k] = NULL;
	ops(&(struct opts){ .env = ENV(env_write, "CORDON_LOG_SUMMARY=yes") }, args);
	cr_expect_eq(count_lines(R.err, "cordon: deny create "), 2, "stderr:\n%s", R.err);
	cr_expect(strstr(R.err, fmt("cordon: summary pid %d %s: refused create 2\n", R.pid, drv)),
		  "%s + %s: want \"cordon: summary pid %d %s: refused create 2\"\nstderr:\n%s",
		  p->op1, p->op2, R.pid, drv, R.err);
	expect_outside_intact();
}
