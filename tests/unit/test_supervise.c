/*
 * test_supervise.c - the supervisor of `cordon run` (jail/supervise.c): the
 * calls Landlock cannot see (chmod, chown, utimes, extended attributes, and
 * connect to a unix socket), sent by the seccomp filter to cordon, which
 * decides them with the policy and makes them itself. The real build/cordon runs the driver
 * tests/helpers/run_ops.c, statically linked (run_ops-static: no shim, the
 * supervisor is the only layer that sees these calls), or ordinary tools
 * (dynamically linked: the shim is loaded too), and we check from this
 * process, outside the sandbox, what they changed: mode, owner, times and
 * extended attributes, read with stat(2) and getxattr(2).
 *
 * Each test runs in its own process with its own tree, removed afterwards:
 *
 *   $T/                    mkdtemp("/dev/shm/cordon-sup-XXXXXX"), canonical;
 *                          cordon's working directory
 *     p.policy             `write $T/root`, `net none`, `private-tmp no`,
 *                          `subprocess yes`, ...
 *     root/                the write root, the only one
 *     outside/             beneath no write root: canaries only (the tests
 *       canary             run as root, so every change would go through
 *                          were it not refused): mode 0644, owner 0:0, mtime
 *                          CANARY_TIME, user.keep="1"
 *     tmp/                 cordon's TMPDIR
 *     stdout, stderr       cordon's (and the program's) output
 *
 * A refusal is proven twice: by the driver's result line ("NAME -1 13 STEP":
 * EACCES, the supervisor's answer) and by the canary, whose whole inode
 * state (mode, owner, mtime, ctime, extended attributes) must be what it was
 * before the run: any change that got through would at least move its
 * ctime. An allowed call must have had exactly its effect. The credential
 * tests run the driver as uid 1234 (setpriv(1)) and want the errnos the
 * same run gets without cordon: the supervisor, root here, must act with
 * the program's rights and no more.
 *
 * Environment (set by `make check`): CORDON_BUILD (build directory,
 * relative to CORDON_SRC), CORDON_SRC (the repository), CORDON_PRELOAD_FIRST
 * (SANITIZE=1: the ASan runtime; dynamically linked programs then get
 * ASAN_OPTIONS=verify_asan_link_order=0:detect_leaks=0, as in test_run.c).
 */
#include <criterion/criterion.h>
#include <elf.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <sys/xattr.h>
#include <time.h>
#include <unistd.h>
#define FIXTURE_TREE     /* T, tp(), fmt() */
#define FIXTURE_RUN_OPS  /* struct res, R's type, EXPECT(), fixture_expect_exit() */
#define FIXTURE_PROGRAM  /* program() */
#include "fixture.h"

#define GUARD_SECONDS 20          /* a cordon still running after this is killed */
/* Criterion's limit, the same for every test: the flood needs a generous
 * one, and with limits that differ, Criterion (BoxFort) leaks a timeout
 * record now and then, which SANITIZE=1 reports. */
#define TIMEOUT 120
#define CANARY_TIME 1500000000L   /* the canary's atime and mtime */
#define NEW_TIME 1000000000L      /* what the programs try to set */

extern char **environ;

/* --- fixture ---------------------------------------------------------------------- */

static char cordon_bin[PATH_MAX];     /* build/cordon */
static char ops_static[PATH_MAX];     /* build/tests/helpers/run_ops-static */

/* $T/@rel with @text, mode exactly @mode. */
static void put_file(const char *rel, const char *text, mode_t mode)
{
	int fd = open(tp(rel), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);

	cr_assert_geq(fd, 0, "create %s: %s", rel, strerror(errno));
	cr_assert_eq(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	cr_assert_eq(fchmod(fd, mode), 0);
	close(fd);
}

static void put_dir(const char *rel, mode_t mode)
{
	cr_assert_eq(mkdir(tp(rel), mode), 0, "mkdir %s: %s", rel, strerror(errno));
	cr_assert_eq(chmod(tp(rel), mode), 0);
}

static void set_times(const char *rel, long sec, int flags)
{
	struct timespec ts[2] = { { sec, 0 }, { sec, 0 } };

	cr_assert_eq(utimensat(AT_FDCWD, tp(rel), ts, flags), 0, "utimensat %s: %s", rel,
		     strerror(errno));
}

/* The content of $T/@rel (the first 64 KiB), or NULL when it does not exist. */
static const char *content(const char *rel)
{
	static char ring[4][1 << 16];
	static unsigned next;
	char *b = ring[next++ % 4];
	int fd = open(tp(rel), O_RDONLY | O_CLOEXEC);
	size_t got = 0;
	ssize_t n;

	if (fd < 0)
		return NULL;
	while (got < sizeof(ring[0]) - 1 && (n = read(fd, b + got, sizeof(ring[0]) - 1 - got)) > 0)
		got += (size_t)n;
	close(fd);
	b[got] = '\0';
	return b;
}

static struct stat st_of(const char *rel)
{
	struct stat st;

	cr_assert_eq(stat(tp(rel), &st), 0, "stat %s: %s", rel, strerror(errno));
	return st;
}

static struct stat lst_of(const char *rel)
{
	struct stat st;

	cr_assert_eq(lstat(tp(rel), &st), 0, "lstat %s: %s", rel, strerror(errno));
	return st;
}

/* The value of extended attribute @name of $T/@rel (not following a last
 * symlink), or "(none)". */
static const char *xattr_of(const char *rel, const char *name)
{
	static char ring[4][256];
	static unsigned next;
	char *b = ring[next++ % 4];
	ssize_t n = lgetxattr(tp(rel), name, b, sizeof(ring[0]) - 1);

	if (n < 0)
		return errno == ENODATA ? "(none)" : "(error)";
	b[n] = '\0';
	return b;
}

/* The canary as it was before the run, to compare with after. */
static struct stat canary_before;

static void make_canary(void)
{
	put_file("outside/canary", "canary", 0644);
	set_times("outside/canary", CANARY_TIME, 0);
	cr_assert_eq(setxattr(tp("outside/canary"), "user.keep", "1", 1, 0), 0,
		     "user xattrs on %s: %s", T, strerror(errno));
	canary_before = st_of("outside/canary");
}

/* outside/canary is exactly as make_canary() left it. */
static void expect_canary_intact(void)
{
	struct stat b = canary_before, a;

	cr_assert_eq(lstat(tp("outside/canary"), &a), 0, "outside/canary is gone");
	cr_expect(S_ISREG(a.st_mode), "outside/canary is no longer a file");
	cr_expect_eq(a.st_mode & 07777, 0644, "canary mode %04o, want 0644", a.st_mode & 07777);
	cr_expect(a.st_uid == 0 && a.st_gid == 0, "canary owner %d:%d, want 0:0", (int)a.st_uid,
		  (int)a.st_gid);
	cr_expect_eq(a.st_mtim.tv_sec, CANARY_TIME, "canary mtime %ld, want %ld",
		     (long)a.st_mtim.tv_sec, CANARY_TIME);
	cr_expect(a.st_ctim.tv_sec == b.st_ctim.tv_sec && a.st_ctim.tv_nsec == b.st_ctim.tv_nsec,
		  "canary ctime moved: something changed its inode");
	cr_expect_str_eq(xattr_of("outside/canary", "user.keep"), "1", "canary's user.keep");
	cr_expect_str_eq(xattr_of("outside/canary", "user.x"), "(none)", "canary's user.x");
	cr_expect_str_eq(content("outside/canary") ? content("outside/canary") : "(missing)",
			 "canary");
}


/* $T/p.policy: one write root, no network, every setting that matters
 * explicit; then @extra. */
static void policy(const char *extra)
{
	put_file("p.policy",
		 fmt("# test_supervise.c: one write root\n"
		     "write %s\n"
		     "net none\n"
		     "private-tmp no\n"
		     "subprocess yes\n"
		     "env inherit\n"
		     "mode enforce\n"
		     "log deny\n"
		     "log-format text\n"
		     "%s",
		     tp("root"), extra ? extra : ""),
		 0644);
}

static void setup(void)
{
	fixture_mktree("/dev/shm/cordon-sup-XXXXXX");
	program(cordon_bin, "cordon");
	program(ops_static, "tests/helpers/run_ops-static");
	put_dir("root", 0755);
	put_dir("outside", 0755);
	put_dir("tmp", 0755);
	make_canary();
	policy(NULL);
}

static void teardown(void)
{
	if (strncmp(T, "/dev/shm/cordon-sup-", 20) == 0)
		fixture_rmtree(T);
	T[0] = '\0';
}

static void need_seccomp(void)
{
	if (prctl(PR_GET_SECCOMP, 0, 0, 0, 0) < 0)
		SKIP("seccomp is not in this kernel: %s", strerror(errno));
}

/* The absolute path of tool @name, or NULL. */
static const char *tool(const char *name)
{
	static char ring[4][PATH_MAX];
	static unsigned next;
	static const char *const dirs[] = { "/usr/bin", "/bin", "/usr/local/bin" };
	char *b = ring[next++ % 4];

	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		snprintf(b, PATH_MAX, "%s/%s", dirs[i], name);
		if (access(b, X_OK) == 0)
			return b;
	}
	return NULL;
}

static const char *need_tool(const char *name)
{
	const char *t = tool(name);

	if (!t)
		SKIP("%s is not installed", name);
	return t;
}

/* --- running cordon ------------------------------------------------------------------ */

static struct fixture_run_result R;

#define ARGS(...) ((const char *const[]){ __VA_ARGS__, NULL })

/* Run @argv in $T to its end (killed after @guard seconds: a failure),
 * its output into R (fixture_spawn, fixture_finish). */
static void exec_guarded(const char *const *argv, const char *const *env, int guard)
{
	double started;
	pid_t pid = fixture_spawn(argv, env, NULL, 0, &started);

	fixture_finish(pid, started, guard, &R);
}

/* cordon run --policy $T/p.policy -- PROG..., to the end. */
static void run_guarded(const char *const *prog, const char *const *env, int guard)
{
	const char *argv[256];
	size_t a = 0;

	argv[a++] = cordon_bin;
	argv[a++] = "run";
	argv[a++] = "--policy";
	argv[a++] = tp("p.policy");
	argv[a++] = "--";
	for (size_t i = 0; prog[i]; i++) {
		cr_assert_lt(a, 250);
		argv[a++] = prog[i];
	}
	argv[a] = NULL;
	exec_guarded(argv, env, guard);
}

static void run(const char *const *prog)
{
	run_guarded(prog, NULL, GUARD_SECONDS);
}

/* @prog..., without cordon: the control experiment. */
static void run_bare(const char *const *prog)
{
	exec_guarded(prog, NULL, GUARD_SECONDS);
}

static bool exited(int code)
{
	return WIFEXITED(R.raw) && WEXITSTATUS(R.raw) == code;
}

/* Nothing was refused (the run's stderr has no deny line). */
static void expect_no_refusal(void)
{
	cr_expect(strstr(R.err, "deny") == NULL, "a refusal:\n%.4000s", R.err);
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

/* ==================================================================================== */
/* A static program (no shim): the supervisor alone.                                   */
/* ==================================================================================== */

Test(refused, metadata_of_outside_canary, .init = setup, .fini = teardown, .timeout = TIMEOUT)
{
	need_seccomp();
	run(ARGS(ops_static, "sys-chmod", "outside/canary", "777", "sys-chown", "outside/canary",
		 "1234", "1234", "sys-lchown", "outside/canary", "1234", "1234", "sys-utimens",
		 "outside/canary", fmt("%ld", NEW_TIME), "sys-setxattr", "outside/canary", "user.x",
		 "v", "sys-removexattr", "outside/canary", "user.keep", "sys-fchmodat", "outside",
		 "canary", "777", "0", "sys-chmod", tp("outside/canary"), "4755"));
	expect_exit(0);
	EXPECT(NO("sys-chmod", EACCES), NO("sys-chown", EACCES), NO("sys-lchown", EACCES),
	       NO("sys-utimens", EACCES), NO("sys-setxattr", EACCES),
	       NO("sys-removexattr", EACCES), NO("sys-fchmodat", EACCES),
	       NO("sys-chmod", EACCES));
	expect_canary_intact();
}

Test(allowed, metadata_inside_root_has_its_effect, .init = setup, .fini = teardown,
     .timeout = TIMEOUT)
{
	need_seccomp();
	put_file("root/a", "a", 0644);
	put_file("root/b", "b", 0644);
	put_file("root/c", "c", 0644);
	cr_assert_eq(symlink("c", tp("root/l")), 0);
	put_file("root/d", "d", 0644);
	set_times("root/d", CANARY_TIME, 0);
	put_file("root/e", "e", 0644);
	cr_assert_eq(setxattr(tp("root/e"), "user.keep", "1", 1, 0), 0);
	put_file("root/g", "g", 0644);
	run(ARGS(ops_static, "sys-chmod", "root/a", "4751", "sys-chown", "root/b", "1234", "1234",
		 "sys-lchown", "root/l", "4321", "4321", "sys-utimens", "root/d",
		 fmt("%ld", NEW_TIME), "sys-setxattr", "root/e", "user.x", "hello",
		 "sys-removexattr", "root/e", "user.keep", "sys-fchmodat", "root", "g", "600", "0",
		 "sys-chown", "root/g", "1234", "4321"));
	expect_exit(0);
	EXPECT(OK("sys-chmod"), OK("sys-chown"), OK("sys-lchown"), OK("sys-utimens"),
	       OK("sys-setxattr"), OK("sys-removexattr"), OK("sys-fchmodat"), OK("sys-chown"));
	expect_no_refusal();

	struct stat a = st_of("root/a"), b = st_of("root/b"), c = st_of("root/c"),
		    l = lst_of("root/l"), d = st_of("root/d"), g = st_of("root/g");
	cr_expect_eq(a.st_mode & 07777, 04751, "root/a mode %04o", a.st_mode & 07777);
	cr_expect(b.st_uid == 1234 && b.st_gid == 1234, "root/b owner %d:%d", (int)b.st_uid,
		  (int)b.st_gid);
	cr_expect_eq(b.st_mode & 07777, 0644, "root/b mode %04o", b.st_mode & 07777);
	cr_expect(l.st_uid == 4321 && l.st_gid == 4321, "the link root/l: owner %d:%d",
		  (int)l.st_uid, (int)l.st_gid);
	cr_expect(c.st_uid == 0 && c.st_gid == 0, "lchown followed the link: root/c %d:%d",
		  (int)c.st_uid, (int)c.st_gid);
	cr_expect(d.st_mtim.tv_sec == NEW_TIME && d.st_mtim.tv_nsec == 0 &&
			  d.st_atim.tv_sec == NEW_TIME && d.st_atim.tv_nsec == 0,
		  "root/d atime %ld.%09ld mtime %ld.%09ld", (long)d.st_atim.tv_sec,
		  d.st_atim.tv_nsec, (long)d.st_mtim.tv_sec, d.st_mtim.tv_nsec);
	cr_expect_str_eq(xattr_of("root/e", "user.x"), "hello");
	cr_expect_str_eq(xattr_of("root/e", "user.keep"), "(none)");
	/* The root is the program's; chown by root keeps the mode of a
	 * file without set-id bits. */
	cr_expect_eq(g.st_mode & 07777, 0600, "root/g mode %04o", g.st_mode & 07777);
	cr_expect(g.st_uid == 1234 && g.st_gid == 4321, "root/g owner %d:%d", (int)g.st_uid,
		  (int)g.st_gid);
	expect_canary_intact();
}

Test(refused, through_symlinks_in_root_to_outside, .init = setup, .fini = teardown,
     .timeout = TIMEOUT)
{
	need_seccomp();
	cr_assert_eq(symlink("../outside/canary", tp("root/esc")), 0);
	cr_assert_eq(symlink(tp("outside/canary"), tp("root/abs")), 0);
	cr_assert_eq(symlink("../outside", tp("root/out")), 0);
	run(ARGS(ops_static, "sys-chmod", "root/esc", "777", "sys-chmod", "root/abs", "777",
		 "sys-chmod", "root/out/canary", "777", "sys-fchmodat", "root", "esc", "777", "0",
		 "sys-chown", "root/abs", "1234", "1234", "sys-utimens", "root/esc",
		 fmt("%ld", NEW_TIME), "sys-setxattr", "root/out/canary", "user.x", "v",
		 "sys-removexattr", "root/esc", "user.keep",
		 /* The link itself is inside the root: changing it is allowed,
		  * and must not reach its target. */
		 "sys-lchown", "root/esc", "1234", "1234"));
	expect_exit(0);
	EXPECT(NO("sys-chmod", EACCES), NO("sys-chmod", EACCES), NO("sys-chmod", EACCES),
	       NO("sys-fchmodat", EACCES), NO("sys-chown", EACCES), NO("sys-utimens", EACCES),
	       NO("sys-setxattr", EACCES), NO("sys-removexattr", EACCES), OK("sys-lchown"));
	struct stat l = lst_of("root/esc");
	cr_expect(l.st_uid == 1234 && l.st_gid == 1234, "the link root/esc: owner %d:%d",
		  (int)l.st_uid, (int)l.st_gid);
	expect_canary_intact();
}

Test(allowed, fchmodat2_nofollow_on_symlink_eopnotsupp, .init = setup, .fini = teardown,
     .timeout = TIMEOUT)
{
	need_seccomp();
	put_file("root/f", "f", 0644);
	cr_assert_eq(symlink("f", tp("root/lnk")), 0);
	cr_assert_eq(symlink("../outside/canary", tp("root/esc")), 0);
	/* The control: what the kernel says without cordon. */
	run_bare(ARGS(ops_static, "sys-fchmodat", "-", "root/lnk", "600", "nofollow"));
	results(got, 64);
	cr_assert_str_eq(got[0].op, "sys-fchmodat", "stdout:\n%s", R.out);
	if (got[0].ret == -1 && got[0].err == ENOSYS)
		SKIP("this kernel has no fchmodat2");
	cr_assert(got[0].ret == -1 && got[0].err == EOPNOTSUPP,
		  "without cordon: %ld errno %d, want EOPNOTSUPP", got[0].ret, got[0].err);

	run(ARGS(ops_static, "sys-fchmodat", "-", "root/lnk", "600", "nofollow", "sys-fchmodat",
		 "root", "lnk", "600", "nofollow", "sys-fchmodat", "root", "esc", "600", "nofollow",
		 "sys-fchmodat", "root", "f", "600", "nofollow"));
	expect_exit(0);
	EXPECT(NO("sys-fchmodat", EOPNOTSUPP), NO("sys-fchmodat", EOPNOTSUPP),
	       NO("sys-fchmodat", EOPNOTSUPP), OK("sys-fchmodat"));
	cr_expect_eq(st_of("root/f").st_mode & 07777, 0600);
	expect_canary_intact();
}

Test(allowed, descriptor_forms, .init = setup, .fini = teardown, .timeout = TIMEOUT)
{
	need_seccomp();
	put_file("root/rw", "rw", 0644);
	put_file("root/ro", "ro", 0644);
	run(ARGS(ops_static,
		 /* open for writing: allowed by the descriptor */
		 "open-rw", "root/rw", "fd-chmod", "${FOUND_FD}", "600",
		 /* open for reading: decided on its path, inside the root */
		 "open-ro", "root/ro", "fd-chmod", "${FOUND_FD}", "640",
		 /* open for reading, outside: refused */
		 "open-ro", "outside/canary", "fd-chmod", "${FOUND_FD}", "777"));
	expect_exit(0);
	EXPECT(FD("open-rw"), OK("fd-chmod"), FD("open-ro"), OK("fd-chmod"), FD("open-ro"),
	       NO("fd-chmod", EACCES));
	cr_expect_eq(st_of("root/rw").st_mode & 07777, 0600, "root/rw mode %04o",
		     st_of("root/rw").st_mode & 07777);
	cr_expect_eq(st_of("root/ro").st_mode & 07777, 0640, "root/ro mode %04o",
		     st_of("root/ro").st_mode & 07777);
	expect_canary_intact();
}

/* --- ioctls that change a file's attributes ----------------------------------------- */

#define FS_IOC_GETFLAGS_ 0x80086601UL  /* <linux/fs.h>, which clashes with <sys/mount.h> */
#define FS_IOC_SETFLAGS_ 0x40086602UL
#define FS_IOC_GETVERSION_ 0x80087601UL
#define FS_NODUMP_FL_ 0x40
#define FS_IMMUTABLE_FL_ 0x10

/* The inode flags of @rel (chattr's), or -1. */
static int flags_of(const char *rel)
{
	int fd = open(tp(rel), O_RDONLY | O_CLOEXEC), fl = -1;

	if (fd >= 0 && ioctl(fd, FS_IOC_GETFLAGS_, &fl) < 0)
		fl = -1;
	if (fd >= 0)
		close(fd);
	return fl;
}

/* chattr's ioctl and its kin need only a descriptor open for reading, and
 * Landlock governs ioctls on devices only: the supervisor decides them on
 * the file's path. btrfs's subvolume ioctls, which make directories, are
 * refused everywhere, and said so (on tmpfs they would fail ENOTTY). */
Test(refused, inode_attributes_of_outside_canary, .init = setup, .fini = teardown,
     .timeout = TIMEOUT)
{
	need_seccomp();
	int before = flags_of("outside/canary");
	if (before < 0)
		SKIP("no inode flags on %s's file system", T);
	run(ARGS(ops_static, "sys-fsioctl", "outside/canary", "nodump", "sys-fsioctl",
		 "outside/canary", "fsxattr", "sys-fsioctl", "outside/canary", "version",
		 "sys-fsioctl", "outside/canary", "verity", "sys-fsioctl", "outside", "subvol",
		 "sys-fsioctl", "root", "subvol"));
	expect_exit(0);
	EXPECT(NO("sys-fsioctl", EACCES), NO("sys-fsioctl", EACCES), NO("sys-fsioctl", EACCES),
	       NO("sys-fsioctl", EACCES), NO("sys-fsioctl", EPERM), NO("sys-fsioctl", EPERM));
	cr_expect_str_eq(got[0].info, "setflags");
	cr_expect(strstr(R.err, "deny metadata ") && strstr(R.err, "(FS_IOC_SETFLAGS)") &&
			  strstr(R.err, "(FS_IOC_ENABLE_VERITY)"),
		  "stderr:\n%.4000s", R.err);
	cr_expect(strstr(R.err, fmt("deny metadata %s (BTRFS_IOC_SUBVOL_CREATE)", tp("root"))) &&
			  strstr(R.err, "btrfs subvolumes are made and removed out of the kernel"),
		  "stderr:\n%.4000s", R.err);
	cr_expect_eq(flags_of("outside/canary"), before, "the canary's flags changed");
	expect_canary_intact();
}

/* ext4 has ioctls of its own for an inode's generation and its migration
 * to extents, each from a read-only descriptor: refused outside the roots.
 * The canary is on the file system of /var/tmp, when that is ext4. */
Test(refused, ext4_inode_ioctls_outside, .init = setup, .fini = teardown, .timeout = TIMEOUT)
{
	char dir[] = "/var/tmp/cordon-ext4-XXXXXX", file[64];
	struct statfs sf;
	unsigned gen = 0, gen_after = 0;

	need_seccomp();
	if (statfs("/var/tmp", &sf) < 0 || sf.f_type != 0xEF53)
		SKIP("/var/tmp is not ext4 here");
	cr_assert_not_null(mkdtemp(dir));
	snprintf(file, sizeof(file), "%s/canary", dir);
	int fd = open(file, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	cr_assert_geq(fd, 0);
	cr_assert_eq(ioctl(fd, FS_IOC_GETVERSION_, &gen), 0, "FS_IOC_GETVERSION: %s",
		     strerror(errno));
	close(fd);
	run(ARGS(ops_static, "sys-fsioctl", file, "ext4version", "sys-fsioctl", file, "migrate"));
	fd = open(file, O_RDONLY | O_CLOEXEC);
	cr_assert_geq(fd, 0);
	cr_expect_eq(ioctl(fd, FS_IOC_GETVERSION_, &gen_after), 0);
	close(fd);
	unlink(file);
	rmdir(dir);
	expect_exit(0);
	EXPECT(NO("sys-fsioctl", EACCES), NO("sys-fsioctl", EACCES));
	cr_expect_eq(gen_after, gen, "the generation went from %u to %u", gen, gen_after);
	cr_expect(strstr(R.err, "(EXT4_IOC_SETVERSION)") && strstr(R.err, "(EXT4_IOC_MIGRATE)"),
		  "stderr:\n%.4000s", R.err);
}

/* Inside the root each has the answer it has without cordon (on tmpfs:
 * no inode version, no fs-verity) and its effect. */
Test(allowed, inode_attributes_inside_root_as_without_cordon, .init = setup, .fini = teardown,
     .timeout = TIMEOUT)
{
	need_seccomp();
	put_file("root/bare", "b", 0644);
	put_file("root/f", "f", 0644);
	if (flags_of("root/f") < 0)
		SKIP("no inode flags on %s's file system", T);
#define ATTR_OPS(f)                                                                        \
	"sys-fsioctl", f, "nodump", "sys-fsioctl", f, "fsxattr", "sys-fsioctl", f, "version", \
		"sys-fsioctl", f, "verity"
	struct res want[4];
	run_bare(ARGS(ops_static, ATTR_OPS("root/bare")));
	cr_assert_eq(results(want, 4), 4, "stdout:\n%s", R.out);
	cr_assert_eq(want[0].ret, 0, "nodump without cordon: errno %d", want[0].err);
	run(ARGS(ops_static, ATTR_OPS("root/f")));
	expect_exit(0);
	cr_assert_eq(results(got, 64), 4, "stdout:\n%s", R.out);
	for (int i = 0; i < 4; i++)
		cr_expect(got[i].ret == want[i].ret && got[i].err == want[i].err,
			  "result %d: %ld errno %d under cordon, %ld errno %d without", i, got[i].ret,
			  got[i].err, want[i].ret, want[i].err);
	expect_no_refusal();
	cr_expect(flags_of("root/f") & FS_NODUMP_FL_, "root/f has no nodump flag");
	expect_canary_intact();
}

/* The supervisor, root with every capability, must not lend the program
 * one it lacks: CAP_LINUX_IMMUTABLE is taken from it (jail/caps.c). */
Test(refused, immutable_flag_needs_the_programs_capability, .init = setup, .fini = teardown,
     .timeout = TIMEOUT)
{
	need_seccomp();
	put_file("root/f", "f", 0644);
	int before = flags_of("root/f");
	if (before < 0)
		SKIP("no inode flags on %s's file system", T);
	run(ARGS(ops_static, "sys-fsioctl", "root/f", "immutable", "sys-fsioctl", "root/f",
		 "nodump"));
	int after = flags_of("root/f");
	if (after >= 0 && (after & FS_IMMUTABLE_FL_)) {
		/* undone, so that the tree can be removed */
		int fd = open(tp("root/f"), O_RDONLY | O_CLOEXEC), fl = after & ~FS_IMMUTABLE_FL_;
		ioctl(fd, FS_IOC_SETFLAGS_, &fl);
		close(fd);
	}
	expect_exit(0);
	EXPECT(NO("sys-fsioctl", EPERM), OK("sys-fsioctl"));
	cr_expect_eq(after & FS_IMMUTABLE_FL_, 0, "root/f was made immutable");
}

/* The run's log has a line naming the canary, and it ends with [@layer]. */
static void expect_refused_by(const char *layer)
{
	char tag[32];
	const char *line = strstr(R.err, tp("outside/canary"));
	const char *eol = line ? strchr(line, '\n') : NULL;

	snprintf(tag, sizeof(tag), "[%s]", layer);
	cr_expect(line != NULL, "the canary is not named:\n%s", R.err);
	cr_expect(line && eol && memmem(line, (size_t)(eol - line), tag, strlen(tag)),
		  "the line naming the canary is not the %s's:\n%s", layer, R.err);
}

Test(refused, refusal_is_logged, .init = setup, .fini = teardown, .timeout = TIMEOUT)
{
	need_seccomp();
	run(ARGS(ops_static, "sys-chmod", "outside/canary", "777"));
	expect_exit(0);
	EXPECT(NO("sys-chmod", EACCES));
	expect_refused_by("supervisor");
	/* The program is named, though it exits at once: read while it
	 * was still stopped in its call. */
	cr_expect(strstr(R.err, fmt(" %s: ", ops_static)) != NULL, "the program is not named:\n%s",
		  R.err);
	expect_canary_intact();
}

/* A dynamic program's metadata calls go past the shim to cordon's supervisor,
 * which refuses and says so; the canary keeps its mode. */
Test(refused, dynamic_program_metadata_answered_by_supervisor, .init = setup,
     .fini = teardown, .timeout = TIMEOUT)
{
	const char *chmod_ = need_tool("chmod");

	need_seccomp();
	run(ARGS(chmod_, "777", "outside/canary"));
	cr_expect(!exited(0), "chmod outside the root succeeded:\n%s", R.err);
	expect_refused_by("supervisor");
	expect_canary_intact();
}

/* Is @path a dynamically linked program (it has an interpreter)? */
static bool dynamic_program(const char *path)
{
	Elf64_Ehdr eh;
	Elf64_Phdr ph;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	bool interp = false;

	cr_assert_geq(fd, 0, "%s: %s", path, strerror(errno));
	cr_assert_eq(pread(fd, &eh, sizeof(eh), 0), (ssize_t)sizeof(eh));
	for (unsigned i = 0; i < eh.e_phnum; i++) {
		cr_assert_eq(pread(fd, &ph, sizeof(ph), (off_t)(eh.e_phoff + i * eh.e_phentsize)),
			     (ssize_t)sizeof(ph));
		interp |= ph.p_type == PT_INTERP;
	}
	close(fd);
	return interp;
}

/* cordon run inside cordon run: the inner cordon gets no supervisor of its
 * own (the outer one answers metadata calls, with the outer policy), so
 * its shim keeps deciding them with the inner policy. The outer policy
 * allows the whole tree; the inner one only root/. */
Test(refused, inner_policy_decides_under_an_outer_supervisor, .init = setup,
     .fini = teardown, .timeout = TIMEOUT)
{
	const char *chmod_ = need_tool("chmod");

	need_seccomp();
	/* A dynamically linked cordon (SANITIZE=1, STATIC=0) runs under the
	 * outer shim, which hands the program the outer policy again. */
	if (dynamic_program(cordon_bin))
		SKIP("cordon is dynamically linked: the outer shim decides for the inner run");
	put_file("outer.policy",
		 fmt("write %s\nnet none\nprivate-tmp no\nsubprocess yes\nenv inherit\n"
		     "mode enforce\nlog deny\nlog-format text\n", T),
		 0644);
	exec_guarded(ARGS(cordon_bin, "run", "--policy", tp("outer.policy"), "--", cordon_bin, "run",
			  "--policy", tp("p.policy"), "--", chmod_, "777", "outside/canary"),
		     NULL, GUARD_SECONDS);
	cr_expect(!exited(0), "chmod outside the inner root succeeded:\n%s", R.err);
	cr_expect(strstr(R.err, "an outer supervisor answers") != NULL,
		  "the inner cordon had a supervisor of its own (not the case tested):\n%s", R.err);
	expect_refused_by("shim");
	expect_canary_intact();
}

/* After a chroot the program's absolute paths name other files than the
 * supervisor's: its calls are refused (the supervisor is told of every
 * chroot), and neither file is touched. Here root/cr holds a copy of the
 * tree's own layout, so $T/root/target names a file inside the root from
 * either side. Before the chroot, the same call is made. */
Test(refused, metadata_after_chroot, .init = setup, .fini = teardown, .timeout = TIMEOUT)
{
	need_seccomp();
	if (geteuid() != 0)
		SKIP("chroot needs CAP_SYS_CHROOT");
	put_file("root/target", "host", 0644);
	put_file("root/before", "host", 0644);
	const char *inner = fmt("root/cr%s/root", T);
	char cmd[PATH_MAX * 2];
	snprintf(cmd, sizeof(cmd), "mkdir -p '%s' && printf jail > '%s/target'", tp(inner), tp(inner));
	cr_assert_eq(system(cmd), 0);
	cr_assert_eq(chmod(tp(fmt("%s/target", inner)), 0644), 0);
	run(ARGS(ops_static, "sys-chmod", tp("root/before"), "600", "sys-chroot", tp("root/cr"),
		 "sys-chmod", tp("root/target"), "600"));
	expect_exit(0);
	EXPECT(OK("sys-chmod"), OK("sys-chroot"), NO("sys-chmod", EACCES));
	cr_expect_eq(st_of("root/before").st_mode & 07777, 0600);
	cr_expect_eq(st_of("root/target").st_mode & 07777, 0644, "the host's file was changed");
	cr_expect_eq(st_of(fmt("%s/target", inner)).st_mode & 07777, 0644);
	cr_expect(strstr(R.err, "changed its root directory") != NULL, "stderr:\n%s", R.err);
	expect_canary_intact();
}

/* ==================================================================================== */
/* Races: what the program changes after the supervisor read it changes nothing.       */
/* ==================================================================================== */

/* "ok=A,denied=B,other=C,flips=D,errno=E" */
static void race_tally(const char *info, long *ok, long *denied, long *other, long *flips)
{
	int e;

	cr_assert_eq(sscanf(info, "ok=%ld,denied=%ld,other=%ld,flips=%ld,errno=%d", ok, denied,
			    other, flips, &e),
		     5, "not a tally: %s", info);
}

/* Run the race @prog (its results: @n tallies of 2000 calls) up to 5 times,
 * the canary checked after each, until a run met both targets in every
 * tally (what the program's threads get is up to the scheduler). */
static void race_runs(const char *const *prog, size_t n)
{
	bool both = false;
	char last[2][PATH_MAX] = { "", "" };

	cr_assert_leq(n, 2);
	for (int attempt = 0; attempt < 5 && !both; attempt++) {
		run(prog);
		expect_exit(0);
		cr_assert_eq(results(got, 64), n, "stdout:\n%s\nstderr:\n%.4000s", R.out, R.err);
		both = true;
		for (size_t i = 0; i < n; i++) {
			long ok, denied, other, flips;
			cr_expect_eq(got[i].ret, 0, "%s %ld %d %s", got[i].op, got[i].ret,
				     got[i].err, got[i].info);
			race_tally(got[i].info, &ok, &denied, &other, &flips);
			cr_expect_eq(ok + denied + other, 2000, "%s", got[i].info);
			/* symlinks: the link always exists, and names one file
			 * or the other; bytes: other is a mixture of both paths,
			 * which names nothing (ENOENT) */
			if (strcmp(got[i].op, "chmod-race") == 0)
				cr_expect_eq(other, 0, "errors other than EACCES: %s", got[i].info);
			both = both && ok > 0 && denied > 0;
			snprintf(last[i], sizeof(last[i]), "%s", got[i].info);
		}
		expect_canary_intact();
	}
	cr_expect(both, "no run met both targets: last %s %s", last[0], last[1]);
}

Test(race, symlink_swapped_during_chmod, .init = setup, .fini = teardown, .timeout = TIMEOUT)
{
	need_seccomp();
	put_file("root/f", "f", 0644);
	race_runs(ARGS(ops_static, "chmod-race", tp("root/f"), tp("outside/canary"), "root/link",
		       "2000"),
		  1);
	cr_expect_eq(st_of("root/f").st_mode & 07777, 0777);
}

Test(race, path_bytes_rewritten_during_chmod, .init = setup, .fini = teardown, .timeout = TIMEOUT)
{
	need_seccomp();
	put_file("root/f", "f", 0644);
	race_runs(ARGS(ops_static, "chmod-bytes-race", "root/f", "outside/canary", "2000",
		       "chmod-bytes-race", tp("root/f"), tp("outside/canary"), "2000"),
		  2);
	cr_expect_eq(st_of("root/f").st_mode & 07777, 0777);
}

/* 100,000 supervised calls from 4 threads: every one answered, none lost. */
Test(load, chmod_flood_4_threads, .init = setup, .fini = teardown, .timeout = TIMEOUT)
{
	need_seccomp();
	put_file("root/f", "f", 0644);
	run_guarded(ARGS(ops_static, "chmod-flood", "root/f", "4", "25000"), NULL, 110);
	expect_exit(0);
	results(got, 64);
	cr_assert_str_eq(got[0].op, "chmod-flood", "stdout:\n%s\nstderr:\n%.4000s", R.out, R.err);
	/* Calls from threads other than the leader: the notification names
	 * the thread, whose descriptors are its process's (pidfd_open of a
	 * TID fails; the supervisor opens the thread group). */
	EXPECT(VAL("chmod-flood", 0));
	struct stat f = st_of("root/f");
	cr_expect((f.st_mode & 07777) == 0600 || (f.st_mode & 07777) == 0640, "root/f mode %04o",
		  f.st_mode & 07777);
	expect_canary_intact();
}

/* ==================================================================================== */
/* Ordinary tools inside the root, under plain `cordon run` (shim loaded).              */
/* ==================================================================================== */

Test(tools, cp_a_preserves_everything, .init = setup, .fini = teardown, .timeout = TIMEOUT)
{
	const char *cp = need_tool("cp");

	need_seccomp();
	put_dir("root/src", 0750);
	put_file("root/src/x", "x", 04751);
	cr_assert_eq(chown(tp("root/src/x"), 1234, 4321), 0);
	cr_assert_eq(chmod(tp("root/src/x"), 04751), 0);  /* chown cleared set-uid */
	cr_assert_eq(setxattr(tp("root/src/x"), "user.x", "kept", 4, 0), 0);
	cr_assert_eq(symlink("x", tp("root/src/l")), 0);
	cr_assert_eq(lchown(tp("root/src/l"), 1234, 1234), 0);
	set_times("root/src/x", NEW_TIME, 0);
	set_times("root/src/l", NEW_TIME + 7, AT_SYMLINK_NOFOLLOW);
	set_times("root/src", NEW_TIME + 1, 0);
	run(ARGS(cp, "-a", "root/src", "root/dst"));
	expect_exit(0);
	expect_no_refusal();

	struct stat x = st_of("root/dst/x"), l = lst_of("root/dst/l"), d = st_of("root/dst");
	cr_expect_eq(x.st_mode & 07777, 04751, "dst/x mode %04o", x.st_mode & 07777);
	cr_expect(x.st_uid == 1234 && x.st_gid == 4321, "dst/x owner %d:%d", (int)x.st_uid,
		  (int)x.st_gid);
	cr_expect_eq(x.st_mtim.tv_sec, NEW_TIME, "dst/x mtime %ld", (long)x.st_mtim.tv_sec);
	cr_expect_str_eq(xattr_of("root/dst/x", "user.x"), "kept");
	cr_expect(S_ISLNK(l.st_mode) && l.st_uid == 1234 && l.st_gid == 1234,
		  "dst/l: a link owned by %d:%d", (int)l.st_uid, (int)l.st_gid);
	cr_expect_eq(l.st_mtim.tv_sec, NEW_TIME + 7, "dst/l (the link) mtime %ld",
		     (long)l.st_mtim.tv_sec);
	cr_expect_eq(d.st_mode & 07777, 0750, "dst mode %04o", d.st_mode & 07777);
	cr_expect_eq(d.st_mtim.tv_sec, NEW_TIME + 1, "dst mtime %ld", (long)d.st_mtim.tv_sec);
	expect_canary_intact();
}

Test(tools, tar_xpf_restores_modes_owners_times, .init = setup, .fini = teardown,
     .timeout = TIMEOUT)
{
	const char *tar = need_tool("tar");

	need_seccomp();
	/* The archive is made outside the sandbox, from a tree in tmp/. */
	put_dir("tmp/t", 0710);
	put_file("tmp/t/x", "x", 0751);
	put_file("tmp/t/y", "y", 0600);
	cr_assert_eq(chown(tp("tmp/t/y"), 1234, 4321), 0);
	set_times("tmp/t/x", NEW_TIME, 0);
	set_times("tmp/t", NEW_TIME + 1, 0);
	run_bare(ARGS(tar, "-C", tp("tmp"), "-cf", tp("t.tar"), "t"));
	cr_assert(exited(0), "tar cf (outside the sandbox) failed:\n%s", R.err);
	fixture_rmtree(tp("tmp/t"));

	put_dir("root/x", 0755);
	run(ARGS(tar, "-x", "-p", "-f", tp("t.tar"), "-C", "root/x"));
	expect_exit(0);
	expect_no_refusal();
	struct stat d = st_of("root/x/t"), x = st_of("root/x/t/x"), y = st_of("root/x/t/y");
	cr_expect_eq(d.st_mode & 07777, 0710, "t mode %04o", d.st_mode & 07777);
	cr_expect_eq(d.st_mtim.tv_sec, NEW_TIME + 1, "t mtime %ld", (long)d.st_mtim.tv_sec);
	cr_expect_eq(x.st_mode & 07777, 0751, "t/x mode %04o", x.st_mode & 07777);
	cr_expect_eq(x.st_mtim.tv_sec, NEW_TIME, "t/x mtime %ld", (long)x.st_mtim.tv_sec);
	cr_expect_eq(y.st_mode & 07777, 0600, "t/y mode %04o", y.st_mode & 07777);
	cr_expect(y.st_uid == 1234 && y.st_gid == 4321, "t/y owner %d:%d", (int)y.st_uid,
		  (int)y.st_gid);
	expect_canary_intact();
}

Test(tools, install_m, .init = setup, .fini = teardown, .timeout = TIMEOUT)
{
	const char *install = need_tool("install");

	need_seccomp();
	put_file("root/src", "#!/bin/sh\n", 0600);
	run(ARGS(install, "-m", "0755", "root/src", "root/bin"));
	expect_exit(0);
	expect_no_refusal();
	cr_expect_eq(st_of("root/bin").st_mode & 07777, 0755, "root/bin mode %04o",
		     st_of("root/bin").st_mode & 07777);
	cr_expect_str_eq(content("root/bin") ? content("root/bin") : "(missing)", "#!/bin/sh\n");
	run(ARGS(install, "-m", "0750", "-d", "root/dir/sub"));
	expect_exit(0);
	cr_expect_eq(st_of("root/dir/sub").st_mode & 07777, 0750, "root/dir/sub mode %04o",
		     st_of("root/dir/sub").st_mode & 07777);
	expect_canary_intact();
}

Test(tools, chmod_R, .init = setup, .fini = teardown, .timeout = TIMEOUT)
{
	const char *chmod_ = need_tool("chmod");

	need_seccomp();
	put_dir("root/t", 0755);
	put_dir("root/t/d", 0755);
	put_file("root/t/a", "a", 0644);
	put_file("root/t/d/b", "b", 0755);
	run(ARGS(chmod_, "-R", "u=rwX,go=", "root/t"));
	expect_exit(0);
	expect_no_refusal();
	cr_expect_eq(st_of("root/t").st_mode & 07777, 0700);
	cr_expect_eq(st_of("root/t/d").st_mode & 07777, 0700);
	cr_expect_eq(st_of("root/t/a").st_mode & 07777, 0600);
	cr_expect_eq(st_of("root/t/d/b").st_mode & 07777, 0700);
	expect_canary_intact();
}

Test(tools, touch_d, .init = setup, .fini = teardown, .timeout = TIMEOUT)
{
	const char *touch = need_tool("touch");

	need_seccomp();
	put_file("root/f", "f", 0644);
	run(ARGS(touch, "-d", fmt("@%ld", NEW_TIME), "root/f", "root/new"));
	expect_exit(0);
	expect_no_refusal();
	cr_expect_eq(st_of("root/f").st_mtim.tv_sec, NEW_TIME);
	cr_expect_eq(st_of("root/f").st_atim.tv_sec, NEW_TIME);
	cr_expect_eq(st_of("root/new").st_mtim.tv_sec, NEW_TIME);
	run(ARGS(touch, "-h", "-d", fmt("@%ld", NEW_TIME + 5), "root/f"));
	expect_exit(0);
	cr_expect_eq(st_of("root/f").st_mtim.tv_sec, NEW_TIME + 5);
	expect_canary_intact();
}

Test(tools, git_init_add_commit, .init = setup, .fini = teardown, .timeout = TIMEOUT)
{
	const char *git = need_tool("git");
	const char *const env[] = { fmt("HOME=%s", tp("root")), "GIT_CONFIG_NOSYSTEM=1",
				    "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.invalid",
				    "GIT_COMMITTER_NAME=t",
				    "GIT_COMMITTER_EMAIL=t@example.invalid", NULL };

	need_seccomp();
	put_dir("root/repo", 0755);
	put_file("root/repo/a", "a\n", 0644);
	put_file("root/repo/run.sh", "#!/bin/sh\n", 0755);
	run_guarded(ARGS(git, "-C", "root/repo", "init", "-q"), env, GUARD_SECONDS);
	expect_exit(0);
	run_guarded(ARGS(git, "-C", "root/repo", "add", "."), env, GUARD_SECONDS);
	expect_exit(0);
	run_guarded(ARGS(git, "-C", "root/repo", "commit", "-q", "-m", "supervised"), env,
		    GUARD_SECONDS);
	expect_exit(0);
	expect_no_refusal();
	/* Outside the sandbox: the commit is there, the executable bit too. */
	exec_guarded(ARGS(git, "-C", tp("root/repo"), "log", "--format=%s"), env, GUARD_SECONDS);
	cr_expect(exited(0) && strcmp(R.out, "supervised\n") == 0, "git log: %s%s", R.out,
		  R.err);
	exec_guarded(ARGS(git, "-C", tp("root/repo"), "ls-files", "-s", "run.sh"), env,
		     GUARD_SECONDS);
	cr_expect(strncmp(R.out, "100755 ", 7) == 0, "git ls-files: %s%s", R.out, R.err);
	expect_canary_intact();
}

Test(tools, touch_d_outside_refused, .init = setup, .fini = teardown, .timeout = TIMEOUT)
{
	const char *touch = need_tool("touch");

	need_seccomp();
	run(ARGS(touch, "-d", fmt("@%ld", NEW_TIME), "outside/canary"));
	cr_expect(!exited(0), "touch outside/canary exited 0\nstderr:\n%s", R.err);
	cr_expect(strstr(R.err, tp("outside/canary")) != NULL, "no refusal logged:\n%s", R.err);
	expect_canary_intact();
}

/* ==================================================================================== */
/* Credentials: the supervisor (root here) acts with the program's rights, no more.     */
/* ==================================================================================== */

#define SETPRIV_ARGS "--reuid=1234", "--regid=1234", "--clear-groups", "--inh-caps=-all"

/* A program that dropped root: uid and gid 1234, no capabilities. */
static const char *unprivileged(void)
{
	const char *setpriv = need_tool("setpriv");

	if (geteuid() != 0)
		SKIP("the credential tests need root");
	cr_assert_eq(chmod(T, 0755), 0);  /* mkdtemp made it 0700 */
	return setpriv;
}

/* The results of the same run without cordon (its errnos are the ones to
 * give), then with: both must be @n results long. */
static void control(const char *const *prog, size_t n)
{
	run_bare(prog);
	if (results(got, 64) != n)
		SKIP("uid 1234 cannot run the driver here:\n%s%s", R.out, R.err);
}

Test(creds, unprivileged_program_has_only_its_rights, .init = setup, .fini = teardown,
     .timeout = TIMEOUT)
{
	const char *setpriv = unprivileged();
	struct res bare[64];

	need_seccomp();
	put_file("root/rootf", "f", 0644);
	put_file("root/rootw", "w", 0666);
	put_file("root/own", "o", 0644);
	cr_assert_eq(chown(tp("root/own"), 1234, 1234), 0);
	const char *const *prog = ARGS(setpriv, SETPRIV_ARGS, ops_static, "sys-chmod",
				       "root/rootf", "4777", "sys-chown", "root/rootf", "1234",
				       "1234", "sys-utimens", "root/rootf", fmt("%ld", NEW_TIME),
				       "open-rw", "root/rootw", "fd-chmod", "${FOUND_FD}", "4777",
				       "sys-chmod", "root/own", "600", "sys-chown", "root/own", "0",
				       "0");
	control(prog, 7);
	memcpy(bare, got, sizeof(bare));
	/* Control: as the kernel answers uid 1234 (and the files are restored). */
	cr_assert_eq(chmod(tp("root/own"), 0644), 0);
	cr_assert(bare[0].err == EPERM && bare[4].ret == -1 && bare[4].err == EPERM &&
			  bare[5].ret == 0 && bare[6].err == EPERM,
		  "unexpected control:\n%s", R.out);

	run(prog);
	expect_exit(0);
	EXPECT(NO("sys-chmod", bare[0].err), NO("sys-chown", bare[1].err),
	       NO("sys-utimens", bare[2].err), FD("open-rw"), NO("fd-chmod", EPERM),
	       OK("sys-chmod"), NO("sys-chown", bare[6].err));
	struct stat f = st_of("root/rootf"), w = st_of("root/rootw"), o = st_of("root/own");
	cr_expect(f.st_uid == 0 && (f.st_mode & 07777) == 0644, "root/rootf %d %04o",
		  (int)f.st_uid, f.st_mode & 07777);
	cr_expect_neq(f.st_mtim.tv_sec, NEW_TIME, "root/rootf mtime was set");
	cr_expect(w.st_uid == 0 && (w.st_mode & 07777) == 0666, "root/rootw %d %04o",
		  (int)w.st_uid, w.st_mode & 07777);
	cr_expect(o.st_uid == 1234 && (o.st_mode & 07777) == 0600, "root/own %d %04o",
		  (int)o.st_uid, o.st_mode & 07777);
	expect_canary_intact();
}

/* A program that keeps uid 0 but gives up a capability acts without it:
 * the supervisor, which has it, must not lend it. One run for each, so
 * that the call lacks that capability alone (with those cordon took:
 * CAP_SYS_ADMIN and others): CAP_SYS_ADMIN for a trusted.* xattr,
 * CAP_CHOWN for chown, CAP_FOWNER for chmod of another user's file. */
Test(creds, root_program_without_a_capability_is_refused_what_it_needs, .init = setup,
     .fini = teardown, .timeout = TIMEOUT)
{
	static const struct {
		const char *cap, *call, *args[3];
	} cases[] = {
		{ "21", "sys-setxattr", { "root/theirs", "trusted.cordon", "x" } },
		{ "0", "sys-chown", { "root/theirs", "0", "0" } },
		{ "3", "sys-chmod", { "root/theirs", "600", NULL } },
	};

	if (geteuid() != 0)
		SKIP("the credential tests need root");
	need_seccomp();
	put_file("root/theirs", "t", 0644);
	cr_assert_eq(chown(tp("root/theirs"), 1234, 1234), 0);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *const *prog = ARGS(ops_static, "sys-capdrop", cases[i].cap,
					       cases[i].call, cases[i].args[0], cases[i].args[1],
					       cases[i].args[2]);
		/* Control: the kernel's answer. */
		run_bare(prog);
		EXPECT(OK("sys-capdrop"), NO(cases[i].call, EPERM));
		run(prog);
		expect_exit(0);
		EXPECT(OK("sys-capdrop"), NO(cases[i].call, EPERM));
	}
	struct stat t = st_of("root/theirs");
	cr_expect(t.st_uid == 1234 && t.st_gid == 1234 && (t.st_mode & 07777) == 0644,
		  "root/theirs %d:%d %04o", (int)t.st_uid, (int)t.st_gid, t.st_mode & 07777);
	cr_expect_str_eq(xattr_of("root/theirs", "trusted.cordon"), "(none)");
	expect_canary_intact();
}

Test(creds, path_looked_up_with_program_rights, .init = setup, .fini = teardown,
     .timeout = TIMEOUT)
{
	const char *setpriv = unprivileged();

	need_seccomp();
	/* The supervisor (root) looks the path up with the program's
	 * rights: uid 1234 may not search a 0700 directory of root's, so
	 * neither its own file there nor a missing name is within reach
	 * (EACCES for both, as without cordon; the mode is unchanged). */
	put_dir("root/locked", 0755);
	put_file("root/locked/own", "o", 0644);
	cr_assert_eq(chown(tp("root/locked/own"), 1234, 1234), 0);
	cr_assert_eq(chmod(tp("root/locked"), 0700), 0);
	const char *const *prog = ARGS(setpriv, SETPRIV_ARGS, ops_static, "sys-chmod",
				       "root/locked/own", "600", "sys-chmod", "root/locked/none",
				       "600");
	control(prog, 2);
	cr_assert(got[0].err == EACCES && got[1].err == EACCES, "unexpected control:\n%s",
		  R.out);
	run(prog);
	expect_exit(0);
	EXPECT(NO("sys-chmod", EACCES), NO("sys-chmod", EACCES));
	cr_expect_eq(st_of("root/locked/own").st_mode & 07777, 0644);
}

Test(creds, user_namespace_gives_no_capability_outside_it, .init = setup, .fini = teardown,
     .timeout = TIMEOUT)
{
	const char *setpriv = unprivileged();

	need_seccomp();
	/* With `userns yes`, a program of uid 1234 that makes a user
	 * namespace has CapEff all ones in /proc/PID/status: capabilities
	 * in its own namespace, none over root's files. The supervisor
	 * (root) must not lend it its own, and must map chown's ids through
	 * the namespace (0 there is unmapped: EINVAL). Otherwise the
	 * program makes a file of root's set-uid (-rwsrwxrwx root). */
	policy("userns yes\n");
	put_file("root/rootf", "f", 0644);
	put_file("root/rootw", "w", 0666);
	const char *const *prog = ARGS(setpriv, SETPRIV_ARGS, ops_static, "sys-unshare",
				       "sys-chmod", "root/rootf", "4777", "sys-chown", "root/rootf",
				       "1234", "1234", "sys-chown", "root/rootw", "0", "0",
				       "sys-chmod", "root/rootw", "4777");
	control(prog, 5);
	struct res bare[64];
	memcpy(bare, got, sizeof(bare));
	cr_assert(bare[0].ret == 0, "unshare(CLONE_NEWUSER) fails here:\n%s", R.out);
	run(prog);
	expect_exit(0);
	EXPECT(OK("sys-unshare"), NO("sys-chmod", bare[1].err), NO("sys-chown", bare[2].err),
	       NO("sys-chown", bare[3].err), NO("sys-chmod", bare[4].err));
	struct stat f = st_of("root/rootf"), w = st_of("root/rootw");
	cr_expect(f.st_uid == 0 && f.st_gid == 0 && (f.st_mode & 07777) == 0644,
		  "root/rootf %d:%d %04o", (int)f.st_uid, (int)f.st_gid, f.st_mode & 07777);
	cr_expect(w.st_uid == 0 && (w.st_mode & 07777) == 0666, "root/rootw %d %04o",
		  (int)w.st_uid, w.st_mode & 07777);
}

/* ==================================================================================== */
/* connect(2) to unix sockets: by path, as the policy lists them.                       */
/* ==================================================================================== */

/* A unix socket of @type bound at $T/@rel, not blocking; a stream one
 * listens with @backlog. */
static int unix_listener(const char *rel, int type, int backlog)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	int s = socket(AF_UNIX, type | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);

	cr_assert_geq(s, 0, "socket: %s", strerror(errno));
	cr_assert_lt(strlen(tp(rel)), sizeof(sun.sun_path), "too long for a socket: %s", tp(rel));
	strcpy(sun.sun_path, tp(rel));
	cr_assert_eq(bind(s, (struct sockaddr *)&sun, sizeof(sun)), 0, "bind %s: %s", rel,
		     strerror(errno));
	if (type == SOCK_STREAM)
		cr_assert_eq(listen(s, backlog), 0, "listen %s: %s", rel, strerror(errno));
	return s;
}

/* What reached listener @l: the bytes of each connection it has queued (a
 * stream) or each datagram, in order, joined with ','; "" for none. */
static const char *received(int l, int type)
{
	static char ring[4][1024];
	static unsigned next;
	char *b = ring[next++ % 4], msg[256];
	size_t n = 0;
	ssize_t len;

	b[0] = '\0';
	for (;;) {
		int c = l;
		if (type == SOCK_STREAM && (c = accept4(l, NULL, NULL, SOCK_CLOEXEC)) < 0)
			break;
		len = recv(c, msg, sizeof(msg) - 1, MSG_DONTWAIT);
		if (c != l)
			close(c);
		if (len < 0 && c == l)
			break;
		msg[len > 0 ? len : 0] = '\0';
		n += (size_t)snprintf(b + n, sizeof(ring[0]) - n, "%s%s", n ? "," : "", msg);
		if (n >= sizeof(ring[0]))
			break;
	}
	return b;
}

/* How many connections listener @l has queued (accepted and closed here). */
static long connections(int l)
{
	long n = 0;

	for (int c; (c = accept4(l, NULL, NULL, SOCK_CLOEXEC)) >= 0; n++)
		close(c);
	return n;
}

Test(unix_socket, unlisted_refused_listed_and_in_root_connect, .init = setup, .fini = teardown,
     .timeout = TIMEOUT)
{
	need_seccomp();
	int listed = unix_listener("outside/listed.sock", SOCK_STREAM, 8);
	int unlisted = unix_listener("outside/unlisted.sock", SOCK_STREAM, 8);
	int inroot = unix_listener("root/in.sock", SOCK_STREAM, 8);
	policy(fmt("unix-socket %s\n", tp("outside/listed.sock")));
	/* Blocking sockets are connected by a thread of the supervisor's,
	 * non-blocking ones at once: both ways, and relative and absolute. */
	run(ARGS(ops_static, "sys-unix", "outside/listed.sock", "block", "sys-unix",
		 tp("outside/listed.sock"), "nonblock", "sys-unix", "outside/unlisted.sock", "block",
		 "sys-unix", tp("outside/unlisted.sock"), "nonblock", "sys-unix", "root/in.sock",
		 "block"));
	expect_exit(0);
	EXPECT(OK("sys-unix"), OK("sys-unix"), NO("sys-unix", EACCES), NO("sys-unix", EACCES),
	       OK("sys-unix"));
	cr_expect_str_eq(got[2].info, "connect");
	/* The program's own socket was connected: what it wrote arrived. */
	cr_expect_str_eq(received(listed, SOCK_STREAM), "hello,hello");
	cr_expect_str_eq(received(unlisted, SOCK_STREAM), "");
	cr_expect_str_eq(received(inroot, SOCK_STREAM), "hello");
	const char *line = strstr(R.err, fmt("cordon: deny connect %s (connect) pid ",
					     tp("outside/unlisted.sock")));
	cr_expect(line && strstr(line, fmt("outside write roots [%s]; to allow: unix-socket %s "
					   "[supervisor]\n", tp("root"), tp("outside/unlisted.sock"))),
		  "no refusal line for the unlisted socket:\n%s", R.err);
	close(listed);
	close(unlisted);
	close(inroot);
}

Test(unix_socket, symlinks_to_unlisted_socket_refused, .init = setup, .fini = teardown,
     .timeout = TIMEOUT)
{
	need_seccomp();
	int unlisted = unix_listener("outside/unlisted.sock", SOCK_STREAM, 8);
	cr_assert_eq(symlink(tp("outside/unlisted.sock"), tp("root/link.sock")), 0);
	cr_assert_eq(symlink("../outside", tp("root/out")), 0);
	/* The names are in the root; the socket they lead to is not. */
	run(ARGS(ops_static, "sys-unix", "root/link.sock", "block", "sys-unix",
		 "root/out/unlisted.sock", "nonblock"));
	expect_exit(0);
	EXPECT(NO("sys-unix", EACCES), NO("sys-unix", EACCES));
	cr_expect_str_eq(received(unlisted, SOCK_STREAM), "");
	close(unlisted);
}

Test(unix_socket, datagram_connect_decided_by_path, .init = setup, .fini = teardown,
     .timeout = TIMEOUT)
{
	need_seccomp();
	int listed = unix_listener("outside/listed.dgram", SOCK_DGRAM, 0);
	int unlisted = unix_listener("outside/unlisted.dgram", SOCK_DGRAM, 0);
	policy(fmt("unix-socket %s\n", tp("outside/listed.dgram")));
	run(ARGS(ops_static, "sys-unix-dgram", "outside/listed.dgram", "sys-unix-dgram",
		 "outside/unlisted.dgram"));
	expect_exit(0);
	EXPECT(OK("sys-unix-dgram"), NO("sys-unix-dgram", EACCES));
	cr_expect_str_eq(received(listed, SOCK_DGRAM), "hello");
	cr_expect_str_eq(received(unlisted, SOCK_DGRAM), "");
	close(listed);
	close(unlisted);
}

/* A datagram sent with an address, on a socket connected to nothing:
 * decided as a connect to that socket, and sent as asked where allowed
 * (the count is the call's). */
Test(unix_socket, datagram_sent_with_an_address_decided_by_path, .init = setup,
     .fini = teardown, .timeout = TIMEOUT)
{
	need_seccomp();
	int listed = unix_listener("outside/listed.dgram", SOCK_DGRAM, 0);
	int unlisted = unix_listener("outside/unlisted.dgram", SOCK_DGRAM, 0);
	int mine = unix_listener("root/mine.dgram", SOCK_DGRAM, 0);
	policy(fmt("unix-socket %s\n", tp("outside/listed.dgram")));
	cr_assert_eq(symlink(tp("outside/unlisted.dgram"), tp("root/link.dgram")), 0);
	run(ARGS(ops_static, "sys-unix-sendto", "outside/listed.dgram", "one",
		 "sys-unix-sendto", "outside/unlisted.dgram", "two",
		 "sys-unix-sendto", "root/mine.dgram", "three",
		 "sys-unix-sendto", "root/link.dgram", "four",
		 "sys-unix-sendto", "root/none.dgram", "five"));
	expect_exit(0);
	cr_assert_eq(results(got, 64), 5, "stdout:\n%s", R.out);
	cr_expect(got[0].ret == 3 && got[0].err == 0, "listed: %ld errno %d", got[0].ret,
		  got[0].err);
	cr_expect(got[1].ret == -1 && got[1].err == EACCES, "unlisted: %ld errno %d", got[1].ret,
		  got[1].err);
	cr_expect(got[2].ret == 5 && got[2].err == 0, "in the root: %ld errno %d", got[2].ret,
		  got[2].err);
	cr_expect(got[3].ret == -1 && got[3].err == EACCES, "a link in the root: %ld errno %d",
		  got[3].ret, got[3].err);
	cr_expect(got[4].ret == -1 && got[4].err == ENOENT, "no socket: %ld errno %d", got[4].ret,
		  got[4].err);
	cr_expect_str_eq(received(listed, SOCK_DGRAM), "one");
	cr_expect_str_eq(received(unlisted, SOCK_DGRAM), "");
	cr_expect_str_eq(received(mine, SOCK_DGRAM), "three");
	cr_expect(strstr(R.err, fmt("deny connect %s (sendto)", tp("outside/unlisted.dgram"))),
		  "stderr:\n%.4000s", R.err);
	close(listed);
	close(unlisted);
	close(mine);
}

/* A receiver that does not read fills its queue: the next send on a
 * blocking socket waits, as it would without cordon (a thread of the
 * supervisor's makes it), and goes once there is room; every datagram
 * arrives, in order. */
Test(unix_socket, datagram_send_waits_for_room, .init = setup, .fini = teardown,
     .timeout = TIMEOUT)
{
	char qlen_s[32] = "";
	need_seccomp();
	if (fixture_slurp("/proc/sys/net/unix/max_dgram_qlen", qlen_s, sizeof(qlen_s)) < 0)
		SKIP("no net.unix.max_dgram_qlen here");
	int total = atoi(qlen_s) + 30;  /* the queue's length, and more */
	int l = unix_listener("root/slow.dgram", SOCK_DGRAM, 0);
	const char *const prog[] = { cordon_bin, "run", "--policy", tp("p.policy"), "--",
				     ops_static, "sys-unix-sendto-n", "root/slow.dgram",
				     fmt("%d", total), NULL };
	double started;
	pid_t pid = fixture_spawn(prog, NULL, NULL, 0, &started);
	char buf[32];
	int got_n = 0, wrong = 0;
	usleep(300 * 1000);
	/* Still waiting: the queue is full and nobody read. */
	cr_expect_eq(waitpid(pid, NULL, WNOHANG), 0, "every send went without waiting");
	for (int tries = 0; got_n < total && tries < 4000; tries++) {
		ssize_t n = recv(l, buf, sizeof(buf) - 1, MSG_DONTWAIT);
		if (n < 0) {
			usleep(5000);
			continue;
		}
		buf[n] = '\0';
		wrong += atoi(buf) != got_n;
		got_n++;
	}
	fixture_finish(pid, started, GUARD_SECONDS, &R);
	expect_exit(0);
	cr_expect_eq(got_n, total, "%d of %d datagrams arrived", got_n, total);
	cr_expect_eq(wrong, 0, "out of order");
	cr_assert_eq(results(got, 64), 1, "stdout:\n%s", R.out);
	cr_expect_eq(got[0].ret, total);
	close(l);
}

/* A program that a signal takes out of a send waiting for room sees it
 * fail (EINTR), and the datagram is not sent behind its back when room
 * comes, while the program still runs. */
Test(unix_socket, datagram_send_interrupted_is_not_sent, .init = setup, .fini = teardown,
     .timeout = TIMEOUT)
{
	need_seccomp();
	int l = unix_listener("root/q.dgram", SOCK_DGRAM, 0);
	const char *const prog[] = { cordon_bin, "run", "--policy", tp("p.policy"), "--",
				     ops_static, "sys-unix-fill", "root/q.dgram",
				     "sys-unix-sendto-alarm", "root/q.dgram", "sleep", "3", NULL };
	double started;
	pid_t pid = fixture_spawn(prog, NULL, NULL, 0, &started);
	char buf[16], last[16] = "";
	long n = 0;
	usleep(1500 * 1000);  /* the alarm has gone off; the program sleeps */
	for (int t = 0; t < 50; t++) {
		ssize_t k;
		while ((k = recv(l, buf, sizeof(buf) - 1, MSG_DONTWAIT)) >= 0) {
			buf[k] = '\0';
			snprintf(last, sizeof(last), "%s", buf);
			n++;
		}
		usleep(20 * 1000);
	}
	fixture_finish(pid, started, GUARD_SECONDS, &R);
	expect_exit(0);
	cr_assert_eq(results(got, 64), 3, "stdout:\n%s", R.out);
	cr_expect_gt(got[0].ret, 0, "the queue took nothing");
	cr_expect(got[1].ret == -1 && got[1].err == EINTR, "the send: %ld errno %d", got[1].ret,
		  got[1].err);
	cr_expect_eq(n, got[0].ret, "%ld datagrams arrived, %ld were sent", n, got[0].ret);
	cr_expect_str_neq(last, "late");
	close(l);
}

Test(unix_socket, connect_made_with_program_rights, .init = setup, .fini = teardown,
     .timeout = TIMEOUT)
{
	const char *setpriv = unprivileged();

	need_seccomp();
	/* Connecting takes write permission on the socket file: uid 1234
	 * has none on a 0600 socket of root's, listed or not, and the
	 * supervisor (root) must not lend it its own. */
	int mine = unix_listener("root/root-only.sock", SOCK_STREAM, 8);
	int open_ = unix_listener("root/open.sock", SOCK_STREAM, 8);
	cr_assert_eq(chmod(tp("root/root-only.sock"), 0600), 0);
	cr_assert_eq(chmod(tp("root/open.sock"), 0666), 0);
	const char *const *prog = ARGS(setpriv, SETPRIV_ARGS, ops_static, "sys-unix",
				       "root/root-only.sock", "block", "sys-unix", "root/open.sock",
				       "block");
	control(prog, 2);
	cr_assert(got[0].err == EACCES && got[1].ret == 0, "unexpected control:\n%s", R.out);
	cr_assert_str_eq(received(open_, SOCK_STREAM), "hello");
	run(prog);
	expect_exit(0);
	EXPECT(NO("sys-unix", EACCES), OK("sys-unix"));
	cr_expect_str_eq(received(mine, SOCK_STREAM), "");
	cr_expect_str_eq(received(open_, SOCK_STREAM), "hello");
	expect_no_refusal();
	close(mine);
	close(open_);
}

Test(unix_socket, blocked_connect_stalls_nothing_else, .init = setup, .fini = teardown,
     .timeout = TIMEOUT)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };

	need_seccomp();
	/* A listener that never accepts, its backlog (0: one connection)
	 * filled from here: the program's blocking connect waits, and a
	 * supervisor that waited with it would leave the chmod unanswered. */
	int full = unix_listener("root/full.sock", SOCK_STREAM, 0);
	int c = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	strcpy(sun.sun_path, tp("root/full.sock"));
	cr_assert_eq(connect(c, (struct sockaddr *)&sun, sizeof(sun)), 0);
	put_file("root/f", "f", 0644);
	run(ARGS("/bin/sh", "-c",
		 fmt("%s sys-unix root/full.sock block & sleep 0.5; exec %s sys-chmod root/f 600",
		     ops_static, ops_static)));
	expect_exit(0);
	EXPECT(OK("sys-chmod"));
	cr_expect_eq(st_of("root/f").st_mode & 07777, 0600);
	cr_expect_lt(R.seconds, GUARD_SECONDS / 2, "the run took %.1f s", R.seconds);
	close(c);
	close(full);
}

/* A thread swaps a symlink between a socket in the root and one outside
 * while the program connects through it: the supervisor connects to the
 * socket file it checked, so not one connection reaches the outside. */
Test(unix_socket, symlink_swapped_during_connect, .init = setup, .fini = teardown,
     .timeout = TIMEOUT)
{
	bool both = false;

	need_seccomp();
	int inroot = unix_listener("root/in.sock", SOCK_STREAM, 4096);
	int outside = unix_listener("outside/out.sock", SOCK_STREAM, 4096);
	for (int attempt = 0; attempt < 5 && !both; attempt++) {
		long ok, denied, other, flips;
		run(ARGS(ops_static, "connect-race", tp("root/in.sock"), tp("outside/out.sock"),
			 "root/link", "2000"));
		expect_exit(0);
		cr_assert_eq(results(got, 64), 1, "stdout:\n%s\nstderr:\n%.4000s", R.out, R.err);
		race_tally(got[0].info, &ok, &denied, &other, &flips);
		cr_expect_eq(other, 0, "errors other than EACCES: %s", got[0].info);
		long escaped = connections(outside), reached = connections(inroot);
		cr_expect_eq(escaped, 0, "%ld connections reached the outside socket (%s)",
			     escaped, got[0].info);
		/* Every connect that succeeded reached the root's socket. */
		cr_expect_eq(reached, ok, "%ld connections in the root, %ld connects succeeded",
			     reached, ok);
		both = ok > 0 && denied > 0;
	}
	cr_expect(both, "no run both connected and was refused");
	close(inroot);
	close(outside);
}
