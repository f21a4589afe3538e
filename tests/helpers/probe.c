/*
 * probe.c - call one libc function, named on the command line, and say in
 * one line how it went: the hands of the shim suites inside a process that
 * runs under LD_PRELOAD=libcordon.so.
 *
 *   probe SYMBOL ARG...
 *
 * calls exactly SYMBOL (open64 is open64, __openat_2 is __openat_2; the
 * file is built without _FORTIFY_SOURCE so that no call is redirected),
 * prints one line on stdout (one per call of a chain, see below) and exits:
 *   ok              the call succeeded                          exit 0
 *   ok VALUE        ... and VALUE is worth seeing (see below)   exit 0
 *   err NAME        it failed; NAME is errno's symbolic name    exit 1
 *                   (EACCES, EEXIST, ...), or the error number
 *                   that posix_fallocate/posix_spawn returned
 *   (nothing)       a usage or set-up error, told on stderr    exit 2
 * A program probe starts (fork, vfork, system, popen, posix_spawn*) prints
 * its own lines first: probe waits for it, then prints "ok STATUS", its
 * exit status (128+N if killed by signal N). After a successful exec the
 * line comes from the new image; "err NAME" means exec returned.
 *
 * Arguments, by kind:
 *   PATH     a path, passed as given (relative: from probe's cwd)
 *   DIRFD    "cwd" for AT_FDCWD, or a directory that probe opens with
 *            O_PATH|O_DIRECTORY by the raw system call (not a wrapped one)
 *   FD       a file that probe opens O_RDWR by the raw system call, as a
 *            descriptor a program holds from before the policy began
 *   FLAGS    names joined by '|' and/or numbers: O_*, AT_*, RENAME_*,
 *            S_IF*, XATTR_*, FALLOC_FL_*, FTW_*, FTS_*, CLONE_*;
 *            e.g. "O_WRONLY|O_CREAT", "0"
 *   MODE     a number (0644: octal), or FLAGS form: "S_IFIFO|0644"
 *   N        a number (strtoll base 0)
 *   TIME     seconds since the epoch, set as both access and modification
 *   SMODE    a stdio mode: "w", "a+", "r", ...
 *   ADDR     tcp:HOST:PORT, udp:HOST:PORT (HOST numeric, IPv6 in [..]),
 *            unix:PATH (stream), unixdg:PATH (datagram), abstract:NAME
 *            (stream, abstract namespace); probe makes a fresh socket of
 *            that family and type
 *   ENV      the environment an exec or posix_spawn passes: "inherit"
 *            (environ), "empty" (none at all, as env -i; calls without an
 *            envp parameter run after clearenv()), or "clean" (environ
 *            without LD_PRELOAD and CORDON_*)
 *   PROG ARG...  the program to run and its arguments (argv[0] = PROG)
 *
 * Symbols and their arguments (VALUE printed after "ok" in brackets):
 *   open open64 PATH FLAGS [MODE]          openat openat64 DIRFD PATH FLAGS [MODE]
 *   __open_2 __open64_2 PATH FLAGS         __openat_2 __openat64_2 DIRFD PATH FLAGS
 *   creat creat64 PATH MODE                fopen fopen64 PATH SMODE
 *   freopen freopen64 PATH SMODE           (reopens a stream on /dev/null)
 *   opendir PATH
 *   mkdir PATH MODE        mkdirat DIRFD PATH MODE
 *   mknod PATH MODE N      mknodat DIRFD PATH MODE N
 *   mkfifo PATH MODE       mkfifoat DIRFD PATH MODE
 *   symlink TARGET PATH    symlinkat TARGET DIRFD PATH
 *   unlink PATH   unlinkat DIRFD PATH FLAGS   rmdir PATH   remove PATH
 *   rename PATH PATH       renameat DIRFD PATH DIRFD PATH
 *   renameat2 DIRFD PATH DIRFD PATH FLAGS
 *   link PATH PATH         linkat DIRFD PATH DIRFD PATH FLAGS
 *   truncate truncate64 PATH N             ftruncate ftruncate64 FD N
 *   fallocate fallocate64 FD FLAGS N N     posix_fallocate posix_fallocate64 FD N N
 *   chmod lchmod PATH MODE   fchmodat DIRFD PATH MODE FLAGS   fchmod FD MODE
 *   chown lchown PATH N N    fchownat DIRFD PATH N N FLAGS    fchown FD N N
 *   utime utimes lutimes PATH TIME         futimesat DIRFD PATH TIME
 *   utimensat DIRFD PATH TIME FLAGS        futimens futimes FD TIME
 *   setxattr lsetxattr PATH NAME VALUE FLAGS    fsetxattr FD NAME VALUE FLAGS
 *   removexattr lremovexattr PATH NAME          fremovexattr FD NAME
 *   mkstemp mkstemp64 mkdtemp TEMPLATE                     [the name made]
 *   mkstemps mkstemps64 TEMPLATE N                         [the name made]
 *   mkostemp mkostemp64 TEMPLATE FLAGS                     [the name made]
 *   mkostemps mkostemps64 TEMPLATE N FLAGS                 [the name made]
 *   tmpfile tmpfile64
 *   shm_open NAME FLAGS MODE       shm_unlink sem_unlink NAME
 *   sem_open NAME FLAGS [MODE VALUE]   then sem_post          [its value after]
 *   sem_close                 the semaphore the chain's last sem_open opened
 *                             ["unmapped" when its page is gone, else "mapped"]
 *   sem_close page            an unnamed semaphore (sem_init) at the start of a
 *                             page of probe's own: ["einval-kept" when refused
 *                             with EINVAL and the page still there]
 *            NAME "%cwd": "/" and the last component of the working
 *            directory (the fixture's own name)
 *   connect ADDR   bind ADDR   sendto ADDR [bytes]   sendmsg ADDR [bytes]
 *   sendmmsg ADDR N         (N messages of "probe")        [messages sent]
 *   execve execv execvp execvpe execl execle execlp ENV PROG ARG...
 *   execveat ENV DIRFD PATH FLAGS ARG...   (argv[0] = PATH)
 *   fexecve ENV PROG ARG...                (PROG opened by the raw call)
 *   posix_spawn posix_spawnp ENV PROG ARG...               [exit status]
 *   fork SYMBOL ARG...     the child runs "probe SYMBOL ARG..." in-process
 *                          (under the forked shim), the parent waits
 *                                                          [exit status]
 *   vfork PROG ARG...      the child execv()s PROG; a line "copied" comes
 *                          first if its memory was not its parent's (a
 *                          vfork carried out by fork)      [exit status]
 *   vfork -C DIR NAME      the child chdir()s to DIR and mkdir()s NAME (0755)
 *                          there, through libc, then _exit()s: 0, or the
 *                          errno as a number               [exit status]
 *   system CMD                                             [exit status]
 *   popen CMD              (its output copied to stdout)   [exit status]
 *
 *   chdir DIR   fchdir DIR  (DIR opened O_RDONLY|O_DIRECTORY by the raw call)
 *   nftw nftw64 DIR FLAGS [SYMBOL ARG...]
 *                          walk DIR (FLAGS: FTW_* names) and run "probe
 *                          SYMBOL ARG..." in-process at the first entry of
 *                          depth 1 and again at the first entry of depth 2:
 *                          with FTW_CHDIR, libc has made their directories
 *                          the working directory behind the shim's back
 *   fts_open fts64_open DIR[:DIR...] FLAGS [SYMBOL ARG...]
 *                          walk the DIRs in that order (FLAGS: FTS_* names)
 *                          and run "probe SYMBOL ARG..." in-process at the
 *                          first entry of depth 1 under each DIR: without
 *                          FTS_NOCHDIR, fts has made that DIR the working
 *                          directory behind the shim's back
 *                          (the inner calls' lines come before the walk's
 *                          own "ok")
 *   unshare FLAGS [DIR SYMBOL ARG...]
 *                          alone: unshare(FLAGS). With DIR: a second thread
 *                          calls unshare(FLAGS) (its line first) and
 *                          chdir(DIR); then the main thread, still in its
 *                          own working directory, calls mkdir("d", 0755)
 *                          (its line next), a relative call the shim decides,
 *                          so that the shim's cached working directory is
 *                          the main thread's; then the second thread runs
 *                          "probe SYMBOL ARG..." in-process, relative to DIR
 *                          (its line last; the exit status is its)
 *
 * Chains: "probe CALL -- CALL -- ..." runs the calls in turn in the same
 * process, each printing its line (and continuing after an error); the exit
 * status is that of the last. "--" cannot itself be an argument.
 *
 * Every datagram and stream message is the 5 bytes "probe".
 */
#undef _FORTIFY_SOURCE

#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fts.h>
#include <ftw.h>
#include <limits.h>
#include <linux/falloc.h>
#include <pthread.h>
#include <sched.h>
#include <semaphore.h>
#include <setjmp.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/types.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <sys/xattr.h>
#include <unistd.h>
#include <utime.h>

/* _FORTIFY_SOURCE entry points, which no header declares without it. */
int __open_2(const char *path, int flags);
int __open64_2(const char *path, int flags);
int __openat_2(int dirfd, const char *path, int flags);
int __openat64_2(int dirfd, const char *path, int flags);

extern char **environ;

#define MSG "probe"
#define ARGS_MAX 64

static __thread const char *sym;   /* the symbol being probed, for messages */

/* Where a call run in-process (a chain, a walk's callback) returns to once
 * it has reported; NULL: the report ends the process. Per thread: a
 * longjmp never crosses threads. */
static __thread jmp_buf *resume;

/* What a call returned, kept reachable so that no leak checker counts it. */
static const void *volatile kept;

/* --- the one line ---------------------------------------------------------- */

/* The call has reported: return to the chain, or exit with @status. */
static _Noreturn void finish(int status)
{
	fflush(stdout);
	if (resume)
		longjmp(*resume, status + 1);
	exit(status);
}

/* Print the line for a call that returned @r (< 0: failed with errno)
 * without finishing; its status. */
static int say(long r)
{
	if (r >= 0) {
		printf("ok\n");
		return 0;
	}
	int e = errno;
	const char *name = strerrorname_np(e);
	if (name)
		printf("err %s\n", name);
	else
		printf("err %d\n", e);
	fflush(stdout);
	return 1;
}

static _Noreturn void ok(void)
{
	finish(say(0));
}

static _Noreturn void ok_long(long v)
{
	printf("ok %ld\n", v);
	finish(0);
}

static _Noreturn void ok_str(const char *s)
{
	printf("ok %s\n", s);
	finish(0);
}

static _Noreturn void err(int e)
{
	errno = e;
	finish(say(-1));
}

/* A call that returns -1 (or any negative value) and sets errno. */
static _Noreturn void done(long r)
{
	finish(say(r));
}

static _Noreturn void done_ptr(const void *p)
{
	kept = p;
	done(p ? 0 : -1);
}

__attribute__((format(printf, 1, 2)))
static _Noreturn void usage(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "probe: %s: ", sym ? sym : "?");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(2);
}

/* The exit status of a waited-for child, as a number. */
static long status_of(int st)
{
	if (WIFEXITED(st))
		return WEXITSTATUS(st);
	if (WIFSIGNALED(st))
		return 128 + WTERMSIG(st);
	return -1;
}

static _Noreturn void wait_child(pid_t pid)
{
	int st;

	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			usage("waitpid: %s", strerror(errno));
	ok_long(status_of(st));
}

/* --- arguments ------------------------------------------------------------- */

static const struct { const char *name; long value; } flag_names[] = {
	{ "O_RDONLY", O_RDONLY }, { "O_WRONLY", O_WRONLY }, { "O_RDWR", O_RDWR },
	{ "O_CREAT", O_CREAT }, { "O_EXCL", O_EXCL }, { "O_TRUNC", O_TRUNC },
	{ "O_APPEND", O_APPEND }, { "O_NOFOLLOW", O_NOFOLLOW }, { "O_DIRECTORY", O_DIRECTORY },
	{ "O_CLOEXEC", O_CLOEXEC }, { "O_TMPFILE", O_TMPFILE }, { "O_PATH", O_PATH },
	{ "O_NONBLOCK", O_NONBLOCK }, { "O_SYNC", O_SYNC }, { "O_NOCTTY", O_NOCTTY },
	{ "AT_SYMLINK_NOFOLLOW", AT_SYMLINK_NOFOLLOW }, { "AT_SYMLINK_FOLLOW", AT_SYMLINK_FOLLOW },
	{ "AT_REMOVEDIR", AT_REMOVEDIR }, { "AT_EMPTY_PATH", AT_EMPTY_PATH },
	{ "RENAME_NOREPLACE", RENAME_NOREPLACE }, { "RENAME_EXCHANGE", RENAME_EXCHANGE },
	{ "S_IFREG", S_IFREG }, { "S_IFIFO", S_IFIFO }, { "S_IFCHR", S_IFCHR },
	{ "S_IFBLK", S_IFBLK }, { "S_IFSOCK", S_IFSOCK },
	{ "XATTR_CREATE", XATTR_CREATE }, { "XATTR_REPLACE", XATTR_REPLACE },
	{ "FALLOC_FL_KEEP_SIZE", FALLOC_FL_KEEP_SIZE },
	{ "FALLOC_FL_PUNCH_HOLE", FALLOC_FL_PUNCH_HOLE },
	{ "FTW_PHYS", FTW_PHYS }, { "FTW_MOUNT", FTW_MOUNT }, { "FTW_CHDIR", FTW_CHDIR },
	{ "FTW_DEPTH", FTW_DEPTH },
	{ "FTS_PHYSICAL", FTS_PHYSICAL }, { "FTS_LOGICAL", FTS_LOGICAL },
	{ "FTS_NOCHDIR", FTS_NOCHDIR }, { "FTS_NOSTAT", FTS_NOSTAT },
	{ "CLONE_FS", CLONE_FS }, { "CLONE_FILES", CLONE_FILES },
};

static long long num(const char *s)
{
	char *end;
	long long v;

	errno = 0;
	v = strtoll(s, &end, 0);
	if (!*s || *end || errno)
		usage("not a number: '%s'", s);
	return v;
}

static int flags(const char *s)
{
	long v = 0;

	for (const char *p = s; *p;) {
		size_t n = strcspn(p, "|");
		bool found = false;
		for (size_t i = 0; i < sizeof(flag_names) / sizeof(flag_names[0]); i++) {
			if (strlen(flag_names[i].name) == n && strncmp(p, flag_names[i].name, n) == 0) {
				v |= flag_names[i].value;
				found = true;
			}
		}
		if (!found) {
			char word[64];
			if (n >= sizeof(word))
				usage("unknown flag in '%s'", s);
			memcpy(word, p, n);
			word[n] = '\0';
			v |= (long)num(word);
		}
		p += n;
		if (*p == '|')
			p++;
	}
	return (int)v;
}

static int dirfd_arg(const char *s)
{
	if (strcmp(s, "cwd") == 0)
		return AT_FDCWD;
	long fd = syscall(SYS_openat, AT_FDCWD, s, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		usage("unable to open directory %s: %s", s, strerror(errno));
	return (int)fd;
}

static int fd_arg(const char *s)
{
	long fd = syscall(SYS_openat, AT_FDCWD, s, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		usage("unable to open %s: %s", s, strerror(errno));
	return (int)fd;
}

static struct timeval tv_pair[2];
static struct timespec ts_pair[2];

static void times_arg(const char *s)
{
	long long t = num(s);

	tv_pair[0].tv_sec = tv_pair[1].tv_sec = (time_t)t;
	tv_pair[0].tv_usec = tv_pair[1].tv_usec = 0;
	ts_pair[0].tv_sec = ts_pair[1].tv_sec = (time_t)t;
	ts_pair[0].tv_nsec = ts_pair[1].tv_nsec = 0;
}

struct addr {
	struct sockaddr_storage ss;
	socklen_t len;
	int family, type;
};

static void addr_arg(const char *s, struct addr *a)
{
	memset(a, 0, sizeof(*a));
	if (strncmp(s, "unix:", 5) == 0 || strncmp(s, "unixdg:", 7) == 0 ||
	    strncmp(s, "abstract:", 9) == 0) {
		struct sockaddr_un *un = (struct sockaddr_un *)&a->ss;
		bool abstract = s[0] == 'a';
		const char *p = strchr(s, ':') + 1;
		size_t n = strlen(p);
		if (n + 1 + abstract > sizeof(un->sun_path))
			usage("socket path too long: %s", p);
		un->sun_family = AF_UNIX;
		memcpy(un->sun_path + abstract, p, n);
		a->len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + abstract + n +
				     !abstract);
		a->family = AF_UNIX;
		a->type = strncmp(s, "unixdg:", 7) == 0 ? SOCK_DGRAM : SOCK_STREAM;
		return;
	}
	bool tcp = strncmp(s, "tcp:", 4) == 0;
	if (!tcp && strncmp(s, "udp:", 4) != 0)
		usage("unknown address '%s'", s);
	a->type = tcp ? SOCK_STREAM : SOCK_DGRAM;
	const char *host = s + 4, *colon = strrchr(host, ':');
	char h[INET6_ADDRSTRLEN + 2];
	if (!colon || (size_t)(colon - host) >= sizeof(h))
		usage("bad address '%s'", s);
	memcpy(h, host, (size_t)(colon - host));
	h[colon - host] = '\0';
	long long port = num(colon + 1);
	if (port < 0 || port > 65535)
		usage("bad port in '%s'", s);
	if (h[0] == '[') {
		struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)&a->ss;
		size_t hl = strlen(h);
		if (hl < 2 || h[hl - 1] != ']')
			usage("bad address '%s'", s);
		h[hl - 1] = '\0';
		in6->sin6_family = AF_INET6;
		in6->sin6_port = htons((uint16_t)port);
		if (inet_pton(AF_INET6, h + 1, &in6->sin6_addr) != 1)
			usage("bad address '%s'", s);
		a->len = sizeof(*in6);
		a->family = AF_INET6;
	} else {
		struct sockaddr_in *in = (struct sockaddr_in *)&a->ss;
		in->sin_family = AF_INET;
		in->sin_port = htons((uint16_t)port);
		if (inet_pton(AF_INET, h, &in->sin_addr) != 1)
			usage("bad address '%s'", s);
		a->len = sizeof(*in);
		a->family = AF_INET;
	}
}

static int socket_for(const struct addr *a)
{
	int fd = socket(a->family, a->type | SOCK_CLOEXEC, 0);
	if (fd < 0)
		usage("socket: %s", strerror(errno));
	return fd;
}

/* --- environments for exec and posix_spawn --------------------------------- */

static char *no_env[] = { NULL };
static char *clean_env[1024];

/* The envp to pass for @mode; with @set, environ itself becomes it, for
 * the calls that take no envp. */
static char **env_arg(const char *mode, bool set)
{
	char **env;

	if (strcmp(mode, "inherit") == 0)
		return environ;
	if (strcmp(mode, "empty") == 0) {
		if (set && clearenv() != 0)
			usage("clearenv failed");
		return set ? environ : no_env;
	}
	if (strcmp(mode, "clean") != 0)
		usage("ENV is inherit, empty or clean, not '%s'", mode);
	size_t k = 0;
	for (char **e = environ; e && *e && k < sizeof(clean_env) / sizeof(clean_env[0]) - 1; e++)
		if (strncmp(*e, "LD_PRELOAD=", 11) != 0 && strncmp(*e, "CORDON_", 7) != 0)
			clean_env[k++] = *e;
	clean_env[k] = NULL;
	env = clean_env;
	if (set)
		environ = env;
	return env;
}

/* argv for PROG ARG...: the arguments from @a on, NULL-terminated. */
static char **argv_from(char **a, int n)
{
	static char *v[ARGS_MAX + 1];

	if (n < 1 || n > ARGS_MAX)
		usage("PROG and at most %d arguments", ARGS_MAX - 1);
	for (int i = 0; i < n; i++)
		v[i] = a[i];
	v[n] = NULL;
	return v;
}

/* --- the calls --------------------------------------------------------------- */

static bool is(const char *name)
{
	return strcmp(sym, name) == 0;
}

static void run(char **a, int n);

/* Run "probe SYMBOL ARG..." (@a[0] the symbol) in this process and come
 * back: its line is printed; its status returned. */
static int call(char **a, int n)
{
	jmp_buf here;
	jmp_buf *volatile outer = resume;
	const char *volatile outer_sym = sym;
	int j;

	if (n < 1)
		usage("an empty call");
	j = setjmp(here);
	if (j == 0) {
		resume = &here;
		sym = a[0];
		run(a + 1, n - 1);
	}
	resume = outer;
	sym = outer_sym;
	return j - 1;
}

static _Noreturn void run_open(char **a, int n)
{
	mode_t m = n > 2 ? (mode_t)flags(a[2]) : 0;

	if (is("open"))
		done(open(a[0], flags(a[1]), m));
	done(open64(a[0], flags(a[1]), m));
}

static _Noreturn void run_openat(char **a, int n)
{
	int d = dirfd_arg(a[0]);
	mode_t m = n > 3 ? (mode_t)flags(a[3]) : 0;

	if (is("openat"))
		done(openat(d, a[1], flags(a[2]), m));
	done(openat64(d, a[1], flags(a[2]), m));
}

static _Noreturn void run_open2(char **a, int n)
{
	(void)n;
	if (is("__open_2"))
		done(__open_2(a[0], flags(a[1])));
	done(__open64_2(a[0], flags(a[1])));
}

static _Noreturn void run_openat2(char **a, int n)
{
	int d = dirfd_arg(a[0]);

	(void)n;
	if (is("__openat_2"))
		done(__openat_2(d, a[1], flags(a[2])));
	done(__openat64_2(d, a[1], flags(a[2])));
}

static _Noreturn void run_creat(char **a, int n)
{
	(void)n;
	if (is("creat"))
		done(creat(a[0], (mode_t)flags(a[1])));
	done(creat64(a[0], (mode_t)flags(a[1])));
}

static _Noreturn void run_fopen(char **a, int n)
{
	FILE *f;

	(void)n;
	if (is("fopen") || is("fopen64")) {
		f = is("fopen") ? fopen(a[0], a[1]) : fopen64(a[0], a[1]);
	} else {
		FILE *s = fopen("/dev/null", "r");
		if (!s)
			usage("unable to open /dev/null: %s", strerror(errno));
		f = is("freopen") ? freopen(a[0], a[1], s) : freopen64(a[0], a[1], s);
	}
	done_ptr(f);
}

static _Noreturn void run_opendir(char **a, int n)
{
	(void)n;
	done_ptr(opendir(a[0]));
}

static _Noreturn void run_create(char **a, int n)
{
	(void)n;
	if (is("mkdir"))
		done(mkdir(a[0], (mode_t)flags(a[1])));
	if (is("mkdirat"))
		done(mkdirat(dirfd_arg(a[0]), a[1], (mode_t)flags(a[2])));
	if (is("mknod"))
		done(mknod(a[0], (mode_t)flags(a[1]), (dev_t)num(a[2])));
	if (is("mknodat"))
		done(mknodat(dirfd_arg(a[0]), a[1], (mode_t)flags(a[2]), (dev_t)num(a[3])));
	if (is("mkfifo"))
		done(mkfifo(a[0], (mode_t)flags(a[1])));
	if (is("mkfifoat"))
		done(mkfifoat(dirfd_arg(a[0]), a[1], (mode_t)flags(a[2])));
	if (is("symlink"))
		done(symlink(a[0], a[1]));
	done(symlinkat(a[0], dirfd_arg(a[1]), a[2]));
}

static _Noreturn void run_delete(char **a, int n)
{
	(void)n;
	if (is("unlink"))
		done(unlink(a[0]));
	if (is("unlinkat"))
		done(unlinkat(dirfd_arg(a[0]), a[1], flags(a[2])));
	if (is("rmdir"))
		done(rmdir(a[0]));
	done(remove(a[0]));
}

static _Noreturn void run_rename(char **a, int n)
{
	(void)n;
	if (is("rename"))
		done(rename(a[0], a[1]));
	if (is("link"))
		done(link(a[0], a[1]));
	int da = dirfd_arg(a[0]), db = dirfd_arg(a[2]);
	if (is("renameat"))
		done(renameat(da, a[1], db, a[3]));
	if (is("renameat2"))
		done(renameat2(da, a[1], db, a[3], (unsigned)flags(a[4])));
	done(linkat(da, a[1], db, a[3], flags(a[4])));
}

static _Noreturn void run_truncate(char **a, int n)
{
	(void)n;
	if (is("truncate"))
		done(truncate(a[0], (off_t)num(a[1])));
	done(truncate64(a[0], (off64_t)num(a[1])));
}

static _Noreturn void run_fd_write(char **a, int n)
{
	int fd = fd_arg(a[0]), r;

	(void)n;
	if (is("ftruncate"))
		done(ftruncate(fd, (off_t)num(a[1])));
	if (is("ftruncate64"))
		done(ftruncate64(fd, (off64_t)num(a[1])));
	if (is("fallocate"))
		done(fallocate(fd, flags(a[1]), (off_t)num(a[2]), (off_t)num(a[3])));
	if (is("fallocate64"))
		done(fallocate64(fd, flags(a[1]), (off64_t)num(a[2]), (off64_t)num(a[3])));
	/* posix_fallocate returns an error number, errno is unspecified */
	if (is("posix_fallocate"))
		r = posix_fallocate(fd, (off_t)num(a[1]), (off_t)num(a[2]));
	else
		r = posix_fallocate64(fd, (off64_t)num(a[1]), (off64_t)num(a[2]));
	if (r)
		err(r);
	ok();
}

static _Noreturn void run_metadata(char **a, int n)
{
	(void)n;
	if (is("chmod"))
		done(chmod(a[0], (mode_t)flags(a[1])));
	if (is("lchmod"))
		done(lchmod(a[0], (mode_t)flags(a[1])));
	if (is("fchmodat"))
		done(fchmodat(dirfd_arg(a[0]), a[1], (mode_t)flags(a[2]), flags(a[3])));
	if (is("fchmod"))
		done(fchmod(fd_arg(a[0]), (mode_t)flags(a[1])));
	if (is("chown"))
		done(chown(a[0], (uid_t)num(a[1]), (gid_t)num(a[2])));
	if (is("lchown"))
		done(lchown(a[0], (uid_t)num(a[1]), (gid_t)num(a[2])));
	if (is("fchownat"))
		done(fchownat(dirfd_arg(a[0]), a[1], (uid_t)num(a[2]), (gid_t)num(a[3]),
			      flags(a[4])));
	if (is("fchown"))
		done(fchown(fd_arg(a[0]), (uid_t)num(a[1]), (gid_t)num(a[2])));
	if (is("utime")) {
		struct utimbuf ub;
		times_arg(a[1]);
		ub.actime = ub.modtime = tv_pair[0].tv_sec;
		done(utime(a[0], &ub));
	}
	if (is("utimes")) {
		times_arg(a[1]);
		done(utimes(a[0], tv_pair));
	}
	if (is("lutimes")) {
		times_arg(a[1]);
		done(lutimes(a[0], tv_pair));
	}
	if (is("futimesat")) {
		int d = dirfd_arg(a[0]);
		times_arg(a[2]);
		done(futimesat(d, a[1], tv_pair));
	}
	if (is("utimensat")) {
		int d = dirfd_arg(a[0]);
		times_arg(a[2]);
		done(utimensat(d, a[1], ts_pair, flags(a[3])));
	}
	if (is("futimens")) {
		int fd = fd_arg(a[0]);
		times_arg(a[1]);
		done(futimens(fd, ts_pair));
	}
	if (is("futimes")) {
		int fd = fd_arg(a[0]);
		times_arg(a[1]);
		done(futimes(fd, tv_pair));
	}
	if (is("setxattr"))
		done(setxattr(a[0], a[1], a[2], strlen(a[2]), flags(a[3])));
	if (is("lsetxattr"))
		done(lsetxattr(a[0], a[1], a[2], strlen(a[2]), flags(a[3])));
	if (is("fsetxattr"))
		done(fsetxattr(fd_arg(a[0]), a[1], a[2], strlen(a[2]), flags(a[3])));
	if (is("removexattr"))
		done(removexattr(a[0], a[1]));
	if (is("lremovexattr"))
		done(lremovexattr(a[0], a[1]));
	done(fremovexattr(fd_arg(a[0]), a[1]));
}

static _Noreturn void run_temp(char **a, int n)
{
	char tmpl[PATH_MAX];
	int fd;

	if (is("tmpfile") || is("tmpfile64")) {
		FILE *f = is("tmpfile") ? tmpfile() : tmpfile64();
		done_ptr(f);
	}
	if (strlen(a[0]) >= sizeof(tmpl))
		usage("template too long");
	strcpy(tmpl, a[0]);
	if (is("mkdtemp")) {
		if (!mkdtemp(tmpl))
			err(errno);
		ok_str(tmpl);
	}
	if (is("mkstemp"))
		fd = mkstemp(tmpl);
	else if (is("mkstemp64"))
		fd = mkstemp64(tmpl);
	else if (is("mkstemps"))
		fd = mkstemps(tmpl, (int)num(a[1]));
	else if (is("mkstemps64"))
		fd = mkstemps64(tmpl, (int)num(a[1]));
	else if (is("mkostemp"))
		fd = mkostemp(tmpl, flags(a[1]));
	else if (is("mkostemp64"))
		fd = mkostemp64(tmpl, flags(a[1]));
	else if (is("mkostemps"))
		fd = mkostemps(tmpl, (int)num(a[1]), n > 2 ? flags(a[2]) : 0);
	else
		fd = mkostemps64(tmpl, (int)num(a[1]), n > 2 ? flags(a[2]) : 0);
	if (fd < 0)
		err(errno);
	ok_str(tmpl);
}

/* POSIX shared memory and named semaphores (the shim makes them). */
static sem_t *last_sem;

static const char *ipc_name(const char *a)
{
	static char name[NAME_MAX + 2];
	char cwd[PATH_MAX];

	if (strcmp(a, "%cwd") != 0)
		return a;
	if (!getcwd(cwd, sizeof(cwd)) || !strrchr(cwd, '/'))
		usage("no working directory");
	snprintf(name, sizeof(name), "/%s", strrchr(cwd, '/') + 1);
	return name;
}

static _Noreturn void run_ipc(char **a, int n)
{
	if (is("sem_close") && n == 1) {
		unsigned char in;
		sem_t *own = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
				  -1, 0);
		if (own == MAP_FAILED || sem_init(own, 0, 0) != 0)
			usage("sem_close page: no page");
		if (sem_close(own) == 0)
			ok_str("closed");
		if (errno != EINVAL)
			err(errno);
		ok_str(mincore(own, 1, &in) == 0 ? "einval-kept" : "einval-unmapped");
	}
	if (is("sem_close")) {
		unsigned char page;
		uintptr_t at = (uintptr_t)last_sem & ~(uintptr_t)(sysconf(_SC_PAGESIZE) - 1);
		if (!last_sem)
			usage("sem_close: no sem_open before it in the chain");
		if (sem_close(last_sem) != 0)
			err(errno);
		ok_str(mincore((void *)at, 1, &page) < 0 && errno == ENOMEM ? "unmapped" : "mapped");
	}
	const char *name = ipc_name(a[0]);
	if (is("shm_open")) {
		int fd = shm_open(name, flags(a[1]), (mode_t)num(a[2]));
		if (fd < 0)
			err(errno);
		ok();
	}
	if (is("shm_unlink"))
		done(shm_unlink(name));
	if (is("sem_unlink"))
		done(sem_unlink(name));
	sem_t *s = n > 2 ? sem_open(name, flags(a[1]), (mode_t)num(a[2]), (unsigned)num(a[3]))
			 : sem_open(name, flags(a[1]));
	int v = -1;
	if (s == SEM_FAILED)
		err(errno);
	last_sem = s;
	if (sem_post(s) != 0 || sem_getvalue(s, &v) != 0)
		err(errno);
	ok_long(v);
}

static _Noreturn void run_net(char **a, int n)
{
	struct addr ad;
	struct sockaddr *sa = (struct sockaddr *)&ad.ss;
	struct iovec iov = { (void *)MSG, sizeof(MSG) - 1 };
	struct mmsghdr v[8];
	int fd;

	addr_arg(a[0], &ad);
	fd = socket_for(&ad);
	if (is("listen")) {
		/* Bound first, raw (the shim decides the listen alone), but for a
		 * TCP port 0: left unbound, for listen to bind one at random. */
		const struct sockaddr_in *in = (const struct sockaddr_in *)sa;
		bool unbound = ad.type == SOCK_STREAM && ad.family != AF_UNIX && in->sin_port == 0;
		if (!unbound && syscall(SYS_bind, fd, sa, ad.len) < 0)
			usage("bind: %s", strerror(errno));
		done(listen(fd, 4));
	}
	if (is("connect"))
		done(connect(fd, sa, ad.len));
	if (is("bind"))
		done(bind(fd, sa, ad.len));
	if (is("sendto")) {
		ssize_t r = sendto(fd, MSG, sizeof(MSG) - 1, 0, sa, ad.len);
		if (r < 0)
			err(errno);
		ok_long(r);
	}
	struct msghdr m = { .msg_name = sa, .msg_namelen = ad.len, .msg_iov = &iov, .msg_iovlen = 1 };
	if (is("sendmsg")) {
		ssize_t r = sendmsg(fd, &m, 0);
		if (r < 0)
			err(errno);
		ok_long(r);
	}
	long long count = n > 1 ? num(a[1]) : 1;
	if (count < 1 || count > (long long)(sizeof(v) / sizeof(v[0])))
		usage("1 to %zu messages", sizeof(v) / sizeof(v[0]));
	for (long long i = 0; i < count; i++)
		v[i] = (struct mmsghdr){ .msg_hdr = m };
	int r = sendmmsg(fd, v, (unsigned)count, 0);
	if (r < 0)
		err(errno);
	ok_long(r);
}

/* execl, execle, execlp take the arguments as a list: spelled out here for
 * up to 8 of them (argv[0] included). */
#define L1(v) v[0]
#define L2(v) L1(v), v[1]
#define L3(v) L2(v), v[2]
#define L4(v) L3(v), v[3]
#define L5(v) L4(v), v[4]
#define L6(v) L5(v), v[5]
#define L7(v) L6(v), v[6]
#define L8(v) L7(v), v[7]
#define EXECL_N(call, path, v, n, ...)                                         \
	switch (n) {                                                           \
	case 1: call(path, L1(v), (char *)NULL, ##__VA_ARGS__); break;         \
	case 2: call(path, L2(v), (char *)NULL, ##__VA_ARGS__); break;         \
	case 3: call(path, L3(v), (char *)NULL, ##__VA_ARGS__); break;         \
	case 4: call(path, L4(v), (char *)NULL, ##__VA_ARGS__); break;         \
	case 5: call(path, L5(v), (char *)NULL, ##__VA_ARGS__); break;         \
	case 6: call(path, L6(v), (char *)NULL, ##__VA_ARGS__); break;         \
	case 7: call(path, L7(v), (char *)NULL, ##__VA_ARGS__); break;         \
	case 8: call(path, L8(v), (char *)NULL, ##__VA_ARGS__); break;         \
	default: usage("execl* take at most 8 arguments here");                \
	}

static _Noreturn void run_exec(char **a, int n)
{
	bool takes_envp = is("execve") || is("execvpe") || is("execveat") || is("fexecve") ||
			  is("execle");
	char **env = env_arg(a[0], !takes_envp);

	/* Nothing buffered may be lost or doubled by the new image. */
	fflush(stdout);
	if (is("execveat")) {
		if (n < 4)
			usage("ENV DIRFD PATH FLAGS ARG...");
		int d = dirfd_arg(a[1]);
		int fl = flags(a[3]);
		char **v = argv_from(a + 2, n - 2);
		v[1] = v[0];  /* argv: PATH ARG... (FLAGS is not passed on) */
		execveat(d, a[2], v + 1, env, fl);
		err(errno);
	}
	char **v = argv_from(a + 1, n - 1);
	if (is("execve"))
		execve(v[0], v, env);
	else if (is("execv"))
		execv(v[0], v);
	else if (is("execvp"))
		execvp(v[0], v);
	else if (is("execvpe"))
		execvpe(v[0], v, env);
	else if (is("fexecve")) {
		long fd = syscall(SYS_openat, AT_FDCWD, v[0], O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			usage("unable to open %s: %s", v[0], strerror(errno));
		fexecve((int)fd, v, env);
	} else if (is("execl")) {
		EXECL_N(execl, v[0], v, n - 1)
	} else if (is("execle")) {
		EXECL_N(execle, v[0], v, n - 1, env)
	} else {
		EXECL_N(execlp, v[0], v, n - 1)
	}
	err(errno);
}

static _Noreturn void run_spawn(char **a, int n)
{
	pid_t pid;
	int r;

	fflush(stdout);
	if (is("posix_spawn") || is("posix_spawnp")) {
		char **env = env_arg(a[0], false);
		char **v = argv_from(a + 1, n - 1);
		if (is("posix_spawn"))
			r = posix_spawn(&pid, v[0], NULL, NULL, v, env);
		else
			r = posix_spawnp(&pid, v[0], NULL, NULL, v, env);
		if (r)
			err(r);
		wait_child(pid);
	}
	if (is("fork")) {
		pid = fork();
		if (pid < 0)
			err(errno);
		if (pid == 0) {
			resume = NULL;
			sym = a[0];
			run(a + 1, n - 1);
		}
		wait_child(pid);
	}
	if (is("vfork")) {
		static volatile sig_atomic_t borrowed;
		bool in_dir = strcmp(a[0], "-C") == 0;
		char **v = argv_from(a, n);
		if (in_dir && n != 3)
			usage("vfork -C DIR NAME");
		borrowed = 0;
		pid = vfork();
		if (pid < 0)
			err(errno);
		if (pid == 0) {
			/* vfork(2): the child may only exec or _exit; it does
			 * what shells and Python's subprocess do before that */
			borrowed = 1;
			if (in_dir)
				_exit(chdir(a[1]) == 0 && mkdir(a[2], 0755) == 0 ? 0 : errno);
			execv(v[0], v);
			_exit(127);
		}
		if (!borrowed)
			puts("copied");
		wait_child(pid);
	}
	if (is("system")) {
		r = system(a[0]);
		if (r == -1)
			err(errno);
		ok_long(status_of(r));
	}
	FILE *p = popen(a[0], "r");
	char buf[4096];
	size_t got;
	if (!p)
		err(errno);
	while ((got = fread(buf, 1, sizeof(buf), p)) > 0)
		fwrite(buf, 1, got, stdout);
	r = pclose(p);
	if (r == -1)
		err(errno);
	ok_long(status_of(r));
}

/* --- the working directory ----------------------------------------------------- */

static char **inner;      /* the call a walk runs */
static int inner_n;
static bool inner_done[3];

/* nftw: once at depth 1, once at depth 2. */
static void walk_inner(int level)
{
	if (level >= 1 && level <= 2 && inner_n > 0 && !inner_done[level]) {
		inner_done[level] = true;
		call(inner, inner_n);
	}
}

static int walk_fn(const char *p, const struct stat *st, int type, struct FTW *f)
{
	(void)p, (void)st, (void)type;
	walk_inner(f->level);
	return 0;
}

static int walk_fn64(const char *p, const struct stat64 *st, int type, struct FTW *f)
{
	(void)p, (void)st, (void)type;
	walk_inner(f->level);
	return 0;
}

/* fts: the DIRs, split at ':' */
static char *fts_paths[ARGS_MAX + 1];

static char **fts_dirs(char *list)
{
	size_t k = 0;

	for (char *save = NULL, *d = strtok_r(list, ":", &save); d; d = strtok_r(NULL, ":", &save)) {
		if (k == ARGS_MAX)
			usage("too many directories");
		fts_paths[k++] = d;
	}
	if (!k)
		usage("no directory to walk");
	fts_paths[k] = NULL;
	return fts_paths;
}

/* fts: once at the first entry of depth 1 under each root. */
static void fts_inner(const void *parent, int level, int info)
{
	static const void *last;

	if (level == 1 && info != FTS_DP && inner_n > 0 && parent != last) {
		last = parent;
		call(inner, inner_n);
	}
}

static struct {
	int flags;
	const char *dir;
	sem_t moved, primed;
	int status;
} us;

/* The second thread of "unshare FLAGS DIR SYMBOL ARG...". */
static void *unshare_thread(void *arg)
{
	(void)arg;
	if (say(unshare(us.flags)) != 0)
		exit(1);
	if (chdir(us.dir) != 0)
		usage("chdir %s: %s", us.dir, strerror(errno));
	sem_post(&us.moved);
	while (sem_wait(&us.primed) != 0)
		;
	us.status = call(inner, inner_n);
	return NULL;
}

static _Noreturn void run_cwd(char **a, int n)
{
	if (is("chdir"))
		done(chdir(a[0]));
	if (is("fchdir")) {
		long fd = syscall(SYS_openat, AT_FDCWD, a[0], O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (fd < 0)
			usage("unable to open %s: %s", a[0], strerror(errno));
		done(fchdir((int)fd));
	}
	if (is("unshare")) {
		pthread_t t;
		if (n == 1)
			done(unshare(flags(a[0])));
		if (n < 3)
			usage("FLAGS [DIR SYMBOL ARG...]");
		us.flags = flags(a[0]);
		us.dir = a[1];
		inner = a + 2;
		inner_n = n - 2;
		fflush(stdout);
		if (sem_init(&us.moved, 0, 0) || sem_init(&us.primed, 0, 0) ||
		    pthread_create(&t, NULL, unshare_thread, NULL))
			usage("unable to start a thread");
		while (sem_wait(&us.moved) != 0)
			;
		say(mkdir("d", 0755));
		fflush(stdout);
		sem_post(&us.primed);
		pthread_join(t, NULL);
		finish(us.status);
	}
	inner = a + 2;
	inner_n = n - 2;
	fflush(stdout);
	if (is("nftw"))
		done(nftw(a[0], walk_fn, 16, flags(a[1])));
	if (is("nftw64"))
		done(nftw64(a[0], walk_fn64, 16, flags(a[1])));
	char **paths = fts_dirs(a[0]);
	if (is("fts_open")) {
		FTS *f = fts_open(paths, flags(a[1]), NULL);
		FTSENT *e;
		if (!f)
			err(errno);
		errno = 0;
		while ((e = fts_read(f)))
			fts_inner(e->fts_parent, e->fts_level, e->fts_info);
		if (errno)
			err(errno);
		done(fts_close(f));
	}
	FTS64 *f = fts64_open(paths, flags(a[1]), NULL);
	FTSENT64 *e;
	if (!f)
		err(errno);
	errno = 0;
	while ((e = fts64_read(f)))
		fts_inner(e->fts_parent, e->fts_level, e->fts_info);
	if (errno)
		err(errno);
	done(fts64_close(f));
}

/* --- the table --------------------------------------------------------------- */

static const struct cmd {
	const char *names;        /* space-separated symbols */
	int min, max;             /* argument counts (max -1: unbounded) */
	void (*run)(char **a, int n);
} cmds[] = {
	{ "open open64", 2, 3, run_open },
	{ "openat openat64", 3, 4, run_openat },
	{ "__open_2 __open64_2", 2, 2, run_open2 },
	{ "__openat_2 __openat64_2", 3, 3, run_openat2 },
	{ "creat creat64", 2, 2, run_creat },
	{ "fopen fopen64 freopen freopen64", 2, 2, run_fopen },
	{ "opendir", 1, 1, run_opendir },
	{ "mkdir mkfifo symlink", 2, 2, run_create },
	{ "mkdirat mknod mkfifoat symlinkat", 3, 3, run_create },
	{ "mknodat", 4, 4, run_create },
	{ "unlink rmdir remove", 1, 1, run_delete },
	{ "unlinkat", 3, 3, run_delete },
	{ "rename link", 2, 2, run_rename },
	{ "renameat", 4, 4, run_rename },
	{ "renameat2 linkat", 5, 5, run_rename },
	{ "truncate truncate64", 2, 2, run_truncate },
	{ "ftruncate ftruncate64", 2, 2, run_fd_write },
	{ "fallocate fallocate64", 4, 4, run_fd_write },
	{ "posix_fallocate posix_fallocate64", 3, 3, run_fd_write },
	{ "chmod lchmod fchmod utime utimes lutimes futimens futimes", 2, 2, run_metadata },
	{ "removexattr lremovexattr fremovexattr", 2, 2, run_metadata },
	{ "fchmodat utimensat", 4, 4, run_metadata },
	{ "chown lchown fchown futimesat", 3, 3, run_metadata },
	{ "fchownat", 5, 5, run_metadata },
	{ "setxattr lsetxattr fsetxattr", 4, 4, run_metadata },
	{ "mkstemp mkstemp64 mkdtemp", 1, 1, run_temp },
	{ "mkstemps mkstemps64 mkostemp mkostemp64", 2, 2, run_temp },
	{ "mkostemps mkostemps64", 2, 3, run_temp },
	{ "tmpfile tmpfile64", 0, 0, run_temp },
	{ "shm_open", 3, 3, run_ipc },
	{ "shm_unlink sem_unlink", 1, 1, run_ipc },
	{ "sem_open", 2, 4, run_ipc },
	{ "sem_close", 0, 1, run_ipc },
	{ "connect bind listen sendto sendmsg", 1, 1, run_net },
	{ "sendmmsg", 1, 2, run_net },
	{ "execve execv execvp execvpe execl execle execlp fexecve", 2, -1, run_exec },
	{ "execveat", 4, -1, run_exec },
	{ "posix_spawn posix_spawnp", 2, -1, run_spawn },
	{ "fork", 1, -1, run_spawn },
	{ "vfork", 1, -1, run_spawn },
	{ "system popen", 1, 1, run_spawn },
	{ "chdir fchdir", 1, 1, run_cwd },
	{ "nftw nftw64 fts_open fts64_open", 2, -1, run_cwd },
	{ "unshare", 1, -1, run_cwd },
};

static bool in_list(const char *list, const char *name)
{
	size_t n = strlen(name);

	for (const char *p = list; *p;) {
		size_t l = strcspn(p, " ");
		if (l == n && strncmp(p, name, n) == 0)
			return true;
		p += l;
		p += strspn(p, " ");
	}
	return false;
}

static void run(char **a, int n)
{
	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
		if (!in_list(cmds[i].names, sym))
			continue;
		if (n < cmds[i].min || (cmds[i].max >= 0 && n > cmds[i].max))
			usage("wrong number of arguments (%d); see the comment atop probe.c", n);
		cmds[i].run(a, n);
	}
	usage("unknown symbol");
}

int main(int argc, char **argv)
{
	int start = 1;

	if (argc < 2) {
		fprintf(stderr, "usage: probe SYMBOL ARG... [-- SYMBOL ARG...]... "
			"(see tests/helpers/probe.c)\n");
		return 2;
	}
	/* all calls of a chain but the last come back here */
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--") == 0) {
			call(argv + start, i - start);
			start = i + 1;
		}
	}
	if (start >= argc)
		usage("an empty call at the end of the chain");
	sym = argv[start];
	run(argv + start + 1, argc - start - 1);
	return 2;
}
