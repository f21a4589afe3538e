/*
 * shim.c - the core of libcordon.so: initialisation, the policy snapshot,
 * and the decisions the generated wrappers (wrappers.c) ask for.
 *
 * Contract with the program it lives in:
 *   - the policy is read once, at the first wrapped call or the
 *     constructor, whichever comes first, and never changes afterwards:
 *     decisions read it without locks;
 *   - no malloc after initialisation; decisions use the caller's stack and
 *     raw system calls (syscall(2)), never a wrapped symbol, so the shim
 *     never re-enters itself;
 *   - errno is saved on entry and restored on every path that lets the
 *     call proceed; EACCES is set in refuse() only;
 *   - nothing is printed unless the log asks for it, or the policy could
 *     not be read (then the shim refuses every write and network call and
 *     says why once: it never runs a program unconfined by accident).
 *
 * Where a write is allowed, the shim performs it itself from a descriptor
 * held for the write root: openat2(root, rel, RESOLVE_BENEATH |
 * RESOLVE_NO_MAGICLINKS) for opens, the *at call on the parent opened the
 * same way for the rest, so that a symlink or ".." cannot carry the call out
 * of the root between the check and the use (see openat2(2)).
 */
#include "shim.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <semaphore.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <unistd.h>

#include "../launcher/parse.h"
#include "fd.h"
#include "log.h"
#include "mem.h"
#include "path.h"
#include "policy.h"

#ifndef SYS_fchmodat2
#define SYS_fchmodat2 452  /* Linux 6.6; one number on every architecture */
#endif

#define TLS_IE __attribute__((tls_model("initial-exec")))

/* Root descriptors the shim keeps open at most; roots beyond take the
 * resolving path. They live high (fd_move_high), out of the program's way. */
#define ROOT_FDS_MAX 64

const struct shim_symbol shim_symbols[SYM__COUNT] = {
#define SYM(name, shape, cls, ...) [SYM_##name] = { #name, CLASS_##cls },
#include "syms.def"
#undef SYM
};

const char *const shim_class_names[CLASS__COUNT] = {
	"create", "write", "delete", "rename", "link", "metadata",
	"read", "connect", "bind", "exec", "spawn", "cwd", "state",
};

static struct policy pol;
/* Where POSIX shared memory and named semaphores are made (shim_ipc_path):
 * /dev/shm, or under cordon run with private-ipc the run's own directory
 * ("#@shm-dir", run.c's policy_memfd). */
static char shm_dir[PATH_MAX] = "/dev/shm";
static bool shm_dir_made_here;        /* cordon run's: made when first needed */
static atomic_int state;              /* 0 new, 1 initialising, 2 ready */
static pid_t init_pid;
/* The process whose memory this is: set at start and in a fork's child. A
 * vfork child runs on its parent's memory with another pid until it execs,
 * and must leave the parent's state as it found it (not_owner()). */
static pid_t owner_pid;
static __thread TLS_IE int in_init;
static bool broken;                   /* policy unreadable: refuse all */
static bool kernel_audited;           /* cordon reads the kernel layer's own
                                         log: its refusals go to cordon, which
                                         says them if that log does not */
static bool supervised;               /* cordon's supervisor answers metadata
                                         calls and connects: they go to it */
static int run_mode;
static int log_level, log_format;
static int log_fd = STDERR_FILENO;
static bool no_openat2;
static atomic_int root_fds_open;
/* Set once by shim_init(), on the heap: two PATH_MAX arrays here would be
 * two more pages of this library written at every exec, at ~12 us a page
 * fault on the VMs it was measured on. */
static const char *exe_path = "?";
static void *real_fn[SYM__COUNT];
static atomic_ulong refusals[CLASS__COUNT];

/* exec propagation: "LD_PRELOAD=..." and the CORDON_* entries at start */
#define SAVED_ENV_MAX 64
static char *saved_env[SAVED_ENV_MAX];
static size_t n_saved_env;
static const char *lib_path = "";

/* --- small raw helpers ------------------------------------------------- */

static long sys_openat2(int dirfd, const char *path, int flags, mode_t mode, unsigned long resolve)
{
	struct open_how how = {
		.flags = (unsigned long long)(unsigned)flags,
		.mode = (flags & O_CREAT) || (flags & __O_TMPFILE) == __O_TMPFILE ? mode : 0,
		.resolve = resolve,
	};
	return syscall(SYS_openat2, dirfd, path, &how, sizeof(how));
}

static void close_keep_errno(int fd)
{
	int e = errno;
	syscall(SYS_close, fd);
	errno = e;
}

static size_t utoa(char *buf, unsigned long v)
{
	char tmp[24];
	size_t i = sizeof(tmp), n;

	do
		tmp[--i] = (char)('0' + v % 10);
	while ((v /= 10));
	n = sizeof(tmp) - i;
	memcpy(buf, tmp + i, n);
	buf[n] = '\0';
	return n;
}

/* The path of what @fd refers to, from /proc/self/fd. */
static int fd_path(int fd, char buf[PATH_MAX])
{
	char proc[40] = "/proc/self/fd/";
	long n;

	if (fd < 0)
		return -EBADF;
	utoa(proc + 14, (unsigned long)fd);
	n = syscall(SYS_readlinkat, AT_FDCWD, proc, buf, PATH_MAX - 1);
	if (n < 0)
		return errno == ENOENT ? -EBADF : -errno;
	buf[n] = '\0';
	return (int)n;
}

/*
 * The working directory, cached: a relative path would otherwise cost a
 * getcwd(2) per call, as much as the call itself on these machines. The
 * cache is a seqlock (readers copy and retry, never wait) refilled lazily
 * after chdir/fchdir. libc's own nftw(FTW_CHDIR) and fts change directory
 * through internal calls the shim cannot see: once one of them runs, the
 * cache is never trusted again in that process.
 *
 * The cache only ever decides; the kernel still walks from the real working
 * directory (openat2(AT_FDCWD, path, RESOLVE_BENEATH)), so a stale cache can
 * never make a call act on another file than the one the program named.
 */
static struct {
	atomic_uint seq;                /* odd while being written */
	bool valid;
	atomic_bool untrusted;
	size_t len;
	char path[PATH_MAX];
} cwd_cache;

/*
 * A vfork child shares the cache with its parent but not the working
 * directory: once it changes directory, the cache is not its own (it never
 * reads it, even refilled by the parent's other threads meanwhile) and it
 * never fills it. So a thread that changed directory reads the cache again
 * only once its own getcwd has shown it is the cache's process (one getpid
 * then, none in chdir). The flag lives in the vforking thread's slot, which
 * the child borrows; that thread, resumed, clears it at its next getcwd.
 */
static __thread TLS_IE bool cwd_not_mine;

/* True in a process running on memory that is not its own: a vfork child
 * before its exec (or a raw clone(2) child, whose fork handlers never ran).
 * One getpid(2): for the rare paths that change process-wide state. */
static bool not_owner(void)
{
	return (pid_t)syscall(SYS_getpid) != owner_pid;
}

void shim_cwd_changed(bool untrusted)
{
	unsigned s = atomic_load(&cwd_cache.seq);

	cwd_not_mine = true;
	if (untrusted)
		atomic_store(&cwd_cache.untrusted, true);
	/* Become the writer, or let the writer at work finish: it bumps the
	 * sequence again, and a reader seeing an odd number falls back. */
	for (;;) {
		while (s & 1)
			s = atomic_load(&cwd_cache.seq);
		if (atomic_compare_exchange_weak(&cwd_cache.seq, &s, s + 1))
			break;
	}
	cwd_cache.valid = false;
	atomic_store(&cwd_cache.seq, s + 2);
}

/* Copy the cached working directory into @buf: its length, or 0. */
static size_t cwd_cached(char buf[PATH_MAX])
{
	if (cwd_not_mine || atomic_load_explicit(&cwd_cache.untrusted, memory_order_relaxed))
		return 0;
	for (int tries = 0; tries < 4; tries++) {
		unsigned s = atomic_load_explicit(&cwd_cache.seq, memory_order_acquire);
		if (s & 1)
			continue;
		if (!cwd_cache.valid)
			return 0;
		size_t n = cwd_cache.len;
		if (n >= PATH_MAX)
			return 0;
		memcpy(buf, cwd_cache.path, n);
		buf[n] = '\0';
		atomic_thread_fence(memory_order_acquire);
		if (atomic_load_explicit(&cwd_cache.seq, memory_order_relaxed) == s)
			return n;
	}
	return 0;
}

static void cwd_fill(const char *cwd)
{
	unsigned s;

	if (cwd_not_mine) {
		if (not_owner())
			return;
		cwd_not_mine = false;
	}
	s = atomic_load(&cwd_cache.seq);
	if ((s & 1) || cwd_cache.valid || atomic_load(&cwd_cache.untrusted))
		return;
	if (!atomic_compare_exchange_strong(&cwd_cache.seq, &s, s + 1))
		return;  /* another thread is at it */
	size_t n = strlen(cwd);
	memcpy(cwd_cache.path, cwd, n + 1);
	cwd_cache.len = n;
	cwd_cache.valid = true;
	atomic_store_explicit(&cwd_cache.seq, s + 2, memory_order_release);
}

/* The directory a relative path is taken from; *@cached tells whether it
 * came from the cache rather than the kernel. */
static int base_dir(int dirfd, char buf[PATH_MAX], bool *cached)
{
	*cached = false;
	if (dirfd == AT_FDCWD) {
		if (cwd_cached(buf)) {
			*cached = true;
			return 0;
		}
		if (syscall(SYS_getcwd, buf, PATH_MAX) < 0)
			return -errno;
		if (buf[0] != '/')
			return -ENOENT;  /* "(unreachable)" */
		cwd_fill(buf);
		return 0;
	}
	int n = fd_path(dirfd, buf);
	if (n < 0)
		return n;
	return buf[0] == '/' ? 0 : -ENOTDIR;
}

static bool has_dotdot(const char *p)
{
	for (;;) {
		while (*p == '/')
			p++;
		if (!*p)
			return false;
		size_t n = strcspn(p, "/");
		if (n == 2 && p[0] == '.' && p[1] == '.')
			return true;
		p += n;
	}
}

static bool lexists(const char *path)
{
	struct stat st;
	int e = errno;
	bool r = syscall(SYS_newfstatat, AT_FDCWD, path, &st, AT_SYMLINK_NOFOLLOW) == 0;
	errno = e;
	return r;
}

static bool parent_exists(const char *path)
{
	char parent[PATH_MAX];
	size_t n = path_parent_len(path);

	memcpy(parent, path, n);
	parent[n] = '\0';
	return lexists(parent);
}

/* --- initialisation -------------------------------------------------------- */

void *shim_real(enum shim_sym sym)
{
	void *p = __atomic_load_n(&real_fn[sym], __ATOMIC_ACQUIRE);

	if (!p) {
		p = dlsym(RTLD_NEXT, shim_symbols[sym].name);
		if (!p) {
			static const char msg[] = "cordon: libc has no ";
			(void)!write(STDERR_FILENO, msg, sizeof(msg) - 1);
			(void)!write(STDERR_FILENO, shim_symbols[sym].name,
				     strlen(shim_symbols[sym].name));
			(void)!write(STDERR_FILENO, "\n", 1);
			abort();
		}
		__atomic_store_n(&real_fn[sym], p, __ATOMIC_RELEASE);
	}
	return p;
}

static bool log_fd_lost(void);

static void emit(const char *line, size_t n)
{
	/* The program may have closed the log pipe cordon handed over, and
	 * its number may now be one of the program's files: never write a
	 * log line into that. */
	int fd = log_fd_lost() ? STDERR_FILENO : log_fd;
	while (n) {
		long w = syscall(SYS_write, fd, line, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return;
		line += w;
		n -= (size_t)w;
	}
}

static void config_error(void *arg, const char *file, unsigned line, const char *msg)
{
	char buf[LOG_LINE_MAX], num[24];
	size_t n = 0;

	(void)arg;
#define ADD(s)                                                              \
	do {                                                                \
		size_t l_ = strlen(s);                                      \
		if (n + l_ > sizeof(buf) - 2)                               \
			l_ = sizeof(buf) - 2 - n;                           \
		memcpy(buf + n, s, l_);                                     \
		n += l_;                                                    \
	} while (0)
	ADD("cordon: ");
	if (file) {
		ADD(file);
		if (line) {
			utoa(num, line);
			ADD(":");
			ADD(num);
		}
		ADD(": ");
	}
	ADD(msg);
#undef ADD
	buf[n++] = '\n';
	emit(buf, n);
}

/* CORDON_WRITE for "write": the directive table names the variables. */
static void env_name(const char *directive, char *buf, size_t size)
{
	size_t n = 0;

	memcpy(buf, "CORDON_", 7);
	n = 7;
	for (const char *c = directive; *c && n < size - 1; c++)
		buf[n++] = *c == '-' ? '_' : (char)(*c >= 'a' && *c <= 'z' ? *c - 32 : *c);
	buf[n] = '\0';
}

/* Standalone mode: one variable per directive; lists split at ':' (paths)
 * or ',' (ports, patterns, names). */
static void load_env_config(struct parse_ctx *ctx)
{
	char name[64];

	ctx->option_origin = "environment";
	for (const struct directive *d = directives; d->name; d++) {
		if (d->type == ARG_INCLUDE)
			continue;
		env_name(d->name, name, sizeof(name));
		const char *v = getenv(name);
		if (!v)
			continue;
		char *copy = strdup(v), *save = NULL;
		if (!copy) {
			broken = true;
			continue;
		}
		const char *sep = d->type == ARG_PATHS ? ":" : d->type == ARG_ENUM ||
				  d->type == ARG_DURATION || d->type == ARG_LOGFILE ? "" : ", ";
		if (!*sep) {
			policy_apply_option(ctx, d->name, copy);
		} else {
			for (char *tok = strtok_r(copy, sep, &save); tok; tok = strtok_r(NULL, sep, &save))
				policy_apply_option(ctx, d->name, tok);
		}
		free(copy);
	}
}

/*
 * Under `cordon run`: the compiled policy, in the policy language, in a
 * sealed memfd whose number is in CORDON_POLICY_FD. Only a sealed memfd is
 * taken: a program cannot hand its children a policy of its own by opening
 * a file on that number. The text is kept to hand on (hand_on_policy()).
 */
static char *policy_text;
static size_t policy_len;
static int policy_fd = -1;
static dev_t policy_dev;
static ino_t policy_ino;
static int log_fd_handed = -1;          /* log-file fd:N: the pipe cordon reads */
/* CORDON_EVENT_FD: cordon run's tally of refusals, a datagram socket. */
static int event_fd = -1;
static dev_t event_dev;
static ino_t event_ino;
static dev_t log_dev;
static ino_t log_ino;

#define POLICY_SEALS (F_SEAL_WRITE | F_SEAL_GROW | F_SEAL_SHRINK)

static void load_fd_config(struct parse_ctx *ctx, const char *num)
{
	char *end, name[64] = "policy descriptor ";
	long fd = strtol(num, &end, 10);
	struct stat st;
	int seals;

	utoa(name + strlen(name), fd >= 0 && fd < INT_MAX ? (unsigned long)fd : 0);
	if (*num == '\0' || *end || fd < 0 || fd > INT_MAX || fstat((int)fd, &st) < 0 ||
	    !S_ISREG(st.st_mode) || st.st_size > POLICY_FILE_MAX) {
		config_error(NULL, "CORDON_POLICY_FD", 0, "not a readable policy descriptor");
		broken = true;
		return;
	}
	seals = fcntl((int)fd, F_GET_SEALS);
	if (seals < 0 || (seals & POLICY_SEALS) != POLICY_SEALS) {
		config_error(NULL, "CORDON_POLICY_FD", 0,
			     "not a sealed policy descriptor (cordon run makes one)");
		broken = true;
		return;
	}
	char *buf = malloc((size_t)st.st_size + 1);
	size_t got = 0;
	while (buf && got < (size_t)st.st_size) {
		ssize_t n = pread((int)fd, buf + got, (size_t)st.st_size - got, (off_t)got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		got += (size_t)n;
	}
	if (!buf || got != (size_t)st.st_size) {
		config_error(NULL, name, 0, "unable to read the policy");
		broken = true;
		free(buf);
		return;
	}
	/* cordon compiled it: every path is resolved (the launcher did that
	 * once; a readlink per component again would slow every exec). */
	ctx->canonical = true;
	policy_parse_buffer(ctx, name, buf, got);
	ctx->canonical = false;
	policy_text = buf;
	policy_len = got;
	/* cordon run's lines about this run come first (run.c's policy_memfd). */
	for (const char *p = buf, *stop = buf + got; stop - p >= 2 && p[0] == '#' && p[1] == '@';) {
		const char *nl = memchr(p, '\n', (size_t)(stop - p));
		if (!nl)
			break;
		size_t n = (size_t)(nl - p) + 1;
		if (n == 15 && memcmp(p, "#@kernel-audit\n", 15) == 0)
			kernel_audited = true;
		else if (n == 17 && memcmp(p, "#@supervisor yes\n", 17) == 0)
			supervised = true;
		else if (n > 11 && n - 11 < sizeof(shm_dir) && memcmp(p, "#@shm-dir /", 11) == 0) {
			memcpy(shm_dir, p + 10, n - 11);
			shm_dir[n - 11] = '\0';
			shm_dir_made_here = true;
		}
		p = nl + 1;
	}
	policy_fd = (int)fd;
	policy_dev = st.st_dev;
	policy_ino = st.st_ino;
}

static bool same_file(int fd, dev_t dev, ino_t ino)
{
	struct stat st;

	return syscall(SYS_fstat, fd, &st) == 0 && st.st_dev == dev && st.st_ino == ino;
}

/* The log pipe is gone: from now on stderr. A vfork child says so for
 * itself only: the pipe is still its parent's. */
static bool log_fd_lost(void)
{
	if (log_fd_handed < 0 || log_fd != log_fd_handed)
		return false;
	if (same_file(log_fd_handed, log_dev, log_ino))
		return false;
	if (!not_owner()) {
		log_fd_handed = -1;
		log_fd = STDERR_FILENO;
	}
	return true;
}

static char policy_env[40];
static atomic_flag handing_on = ATOMIC_FLAG_INIT;

/*
 * Before an exec: the new image's shim must find the policy where
 * CORDON_POLICY_FD says. A program that closed its descriptors (Python's
 * subprocess, closefrom) or reused the number would leave its children
 * without a policy (refusing everything) or with another one; so when the
 * descriptor is not ours any more, a new sealed memfd is made from the text
 * read at start, and the environment points at it. Without the log pipe,
 * the copy logs to stderr. Costs one or two fstat(2) per exec.
 *
 * A vfork child (Python's subprocess again) closes its descriptors in its
 * parent's memory: its new memfd is its own, named in @env_out (returned),
 * and the parent's record of the policy and the log pipe stays as it was.
 * Otherwise the record is updated and NULL returned.
 */
static const char *hand_on_policy(char env_out[40])
{
	const char *own = NULL;
	bool log_ok, ok, child;
	int e = errno;

	if (!policy_text)
		return NULL;
	/* A vfork child touches nothing shared, so needs no turn: its
	 * descriptors are not its parent's, and another child's check (or
	 * the parent's) says nothing of them. The parent's threads share
	 * one table: if another is at it (or was, in the parent we were
	 * forked from), go on; at worst this exec repeats the check. */
	child = not_owner();
	if (!child && atomic_flag_test_and_set(&handing_on))
		return NULL;
	log_ok = log_fd_handed < 0 || same_file(log_fd_handed, log_dev, log_ino);
	ok = same_file(policy_fd, policy_dev, policy_ino) && log_ok;
	if (!ok) {
		int fd = (int)syscall(SYS_memfd_create, "cordon-policy", MFD_ALLOW_SEALING);
		const char *skip = log_ok ? NULL : strstr(policy_text, "\nlog-file ");
		size_t first = skip ? (size_t)(skip - policy_text) + 1 : policy_len;
		const char *rest = skip ? strchr(skip + 1, '\n') : NULL;
		struct stat st;
		if (fd >= 0 &&
		    syscall(SYS_write, fd, policy_text, first) == (long)first &&
		    (!rest || syscall(SYS_write, fd, rest + 1,
				      policy_len - (size_t)(rest + 1 - policy_text)) >= 0) &&
		    syscall(SYS_fcntl, fd, F_ADD_SEALS, POLICY_SEALS | F_SEAL_SEAL) == 0) {
			fd = fd_move_high(fd, false);
			char *env = child ? env_out : policy_env;
			memcpy(env, "CORDON_POLICY_FD=", 17);
			utoa(env + 17, (unsigned long)fd);
			if (child) {
				own = env;
			} else {
				syscall(SYS_fstat, fd, &st);
				policy_fd = fd;
				policy_dev = st.st_dev;
				policy_ino = st.st_ino;
				if (!log_ok) {
					log_fd_handed = -1;
					log_fd = STDERR_FILENO;
				}
				for (size_t i = 0; i < n_saved_env; i++)
					if (strncmp(saved_env[i], "CORDON_POLICY_FD=", 17) == 0)
						saved_env[i] = policy_env;
			}
		} else if (fd >= 0) {
			syscall(SYS_close, fd);
		}
	}
	if (!child)
		atomic_flag_clear(&handing_on);
	errno = e;
	return own;
}

static void save_env(void)
{
	Dl_info info;

	if (dladdr((void *)shim_active, &info) && info.dli_fname && info.dli_fname[0] == '/') {
		char *copy = strdup(info.dli_fname);
		if (copy)
			lib_path = copy;
	}
	for (char **e = environ; e && *e && n_saved_env < SAVED_ENV_MAX; e++) {
		if (strncmp(*e, "CORDON_", 7) == 0) {
			char *copy = strdup(*e);
			if (copy)
				saved_env[n_saved_env++] = copy;
		}
	}
}

/* In a fork's child: the memory is its own now, and refusals are counted
 * per process, from zero. (A vfork child runs no fork handlers.) */
static void after_fork_child(void)
{
	owner_pid = (pid_t)syscall(SYS_getpid);
	for (int c = 0; c < CLASS__COUNT; c++)
		atomic_store_explicit(&refusals[c], 0, memory_order_relaxed);
}

static void shim_init(void)
{
	struct parse_ctx ctx;
	char cwd[PATH_MAX];
	const char *fdnum = getenv("CORDON_POLICY_FD");
	long n;

	/* The parse below reaches ~20 KiB deeper and fills some 3 pages of
	 * heap: mapped ahead, in two calls instead of ~8 page faults at some
	 * 10 µs each, in every program started (mem.h). */
	stack_populate(cwd, 24 * 1024);
	/* cwd is free until getcwd below: the program's path goes through it. */
	n = syscall(SYS_readlinkat, AT_FDCWD, "/proc/self/exe", cwd, sizeof(cwd) - 1);
	if (n > 0) {
		char *copy = malloc((size_t)n + 1);
		if (copy) {
			mem_populate(copy, 16 * 1024);
			memcpy(copy, cwd, (size_t)n);
			copy[n] = '\0';
			exe_path = copy;
		}
	}
	save_env();

	policy_init(&pol);
	parse_ctx_init(&ctx, &pol);
	ctx.error = config_error;
	ctx.home = getenv("HOME");
	ctx.workspace = syscall(SYS_getcwd, cwd, sizeof(cwd)) > 0 && cwd[0] == '/' ? cwd : NULL;
	ctx.tmpdir = getenv("TMPDIR") && *getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
	if (fdnum)
		load_fd_config(&ctx, fdnum);
	else
		load_env_config(&ctx);
	/* Set by hand, as the other variables (cordon run writes its own
	 * into the policy descriptor). */
	const char *sd = fdnum ? NULL : getenv("CORDON_SHM_DIR");
	if (sd && sd[0] == '/' && strlen(sd) < sizeof(shm_dir))
		memcpy(shm_dir, sd, strlen(sd) + 1);
	if (ctx.errors)
		broken = true;
	if (policy_add_devices(&pol) < 0)
		broken = true;

	if (pol.log_file.value && strncmp(pol.log_file.value, "fd:", 3) == 0) {
		/* Handed over open (and kept across exec) by whoever started us;
		 * if it is not open, stderr. */
		struct stat st;
		int fd = atoi(pol.log_file.value + 3);
		if (fstat(fd, &st) == 0) {
			log_fd = log_fd_handed = fd;
			log_dev = st.st_dev;
			log_ino = st.st_ino;
		}
	} else if (pol.log_file.value) {
		int fd = (int)syscall(SYS_openat, AT_FDCWD, pol.log_file.value,
				      O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOCTTY, 0600);
		if (fd >= 0) {
			log_fd = fd_move_high(fd, true);
		} else {
			config_error(NULL, pol.log_file.value, 0, "unable to open the log file; logging to stderr");
		}
	}
	const char *ev = getenv("CORDON_EVENT_FD");
	if (ev && *ev) {
		struct stat st;
		char *end;
		long fd = strtol(ev, &end, 10);
		if (!*end && fd >= 0 && fd < INT_MAX && fstat((int)fd, &st) == 0 &&
		    S_ISSOCK(st.st_mode)) {
			event_fd = (int)fd;
			event_dev = st.st_dev;
			event_ino = st.st_ino;
		}
	}
	pthread_atfork(NULL, NULL, after_fork_child);
	run_mode = pol.mode.value;
	log_level = pol.log.value;
	const char *nc = getenv("NO_COLOR");
	int e = errno;
	log_format = log_format_for(pol.log_format.value, log_fd, nc && *nc);
	errno = e;
	if (broken) {
		run_mode = MODE_ENFORCE;
		config_error(NULL, NULL, 0,
			     "the policy could not be read: every write, network call and "
			     "subprocess is refused");
	}
}

/* Run shim_init() exactly once per process image; a thread that finds
 * another initialising waits, unless that one was lost to fork(). */
static bool ensure_ready(void)
{
	int s = atomic_load_explicit(&state, memory_order_acquire);

	if (s == 2)
		return true;
	if (in_init)
		return false;
	for (;;) {
		int expected = 0;
		if (atomic_compare_exchange_strong(&state, &expected, 1)) {
			int e = errno;
			init_pid = owner_pid = getpid();
			in_init = 1;
			shim_init();
			in_init = 0;
			atomic_store_explicit(&state, 2, memory_order_release);
			errno = e;
			return true;
		}
		if (expected == 2)
			return true;
		if (init_pid && init_pid != getpid()) {
			/* forked while another thread was initialising */
			atomic_compare_exchange_strong(&state, &expected, 0);
			continue;
		}
		sched_yield();
	}
}

__attribute__((constructor)) static void shim_ctor(void)
{
	ensure_ready();
}

static void shim_summary(void)
{
	char line[LOG_LINE_MAX], num[24];
	size_t n = 0;
	bool any = false;

#define ADD(s)                                                             \
	do {                                                               \
		size_t l_ = strlen(s);                                     \
		if (n + l_ < sizeof(line) - 1) {                           \
			memcpy(line + n, s, l_);                           \
			n += l_;                                           \
		}                                                          \
	} while (0)
	ADD("cordon: summary pid ");
	utoa(num, (unsigned long)getpid());
	ADD(num);
	ADD(" ");
	ADD(exe_path);
	ADD(":");
	for (int c = 0; c < CLASS__COUNT; c++) {
		unsigned long v = atomic_load(&refusals[c]);
		if (!v)
			continue;
		ADD(any ? ", " : " refused ");
		ADD(shim_class_names[c]);
		ADD(" ");
		utoa(num, v);
		ADD(num);
		any = true;
	}
	if (!any)
		ADD(" nothing refused");
#undef ADD
	line[n++] = '\n';
	emit(line, n);
}

__attribute__((destructor)) static void shim_dtor(void)
{
	/* Under cordon run, cordon sums up the whole run instead. */
	if (atomic_load(&state) == 2 && pol.log_summary.value && run_mode != MODE_OFF &&
	    event_fd < 0)
		shim_summary();
}

bool shim_active(void)
{
	return ensure_ready() && run_mode != MODE_OFF;
}

/* --- decisions and refusals -------------------------------------------- */

struct call {
	enum shim_sym sym;
	const char *op;
	int flags;
	enum log_flags_kind flags_kind;
	const char *given;
};

static void log_event_by(const struct call *c, const char *verdict, const char *target,
			 const struct decision *d, const char *layer);

static void log_event(const struct call *c, const char *verdict, const char *target,
		      const struct decision *d)
{
	log_event_by(c, verdict, target, d,
		     d && d->reason == REASON_KERNEL_LAYER ? "kernel" : "shim");
}

/* The log line of @c into @buf (of @size); its length. */
static size_t format_line(char *buf, size_t size, const struct call *c, const char *verdict,
			  const char *target, const struct decision *d, const char *layer)
{
	struct log_event ev = {
		.verdict = verdict,
		.op = c->op,
		.call = shim_symbols[c->sym].name,
		.flags = c->flags,
		.flags_kind = c->flags_kind,
		.given = c->given,
		.target = target,
		.d = d,
		.reason = d ? NULL : "the policy could not be read",
		.pid = (pid_t)syscall(SYS_getpid),
		.exe = exe_path,
		.layer = layer,
		.mode = run_mode,
	};
	return log_format_event(buf, size, &ev, &pol, log_format);
}

static void log_event_by(const struct call *c, const char *verdict, const char *target,
			 const struct decision *d, const char *layer)
{
	char line[LOG_LINE_MAX];
	int e = errno;
	size_t n = format_line(line, sizeof(line), c, verdict, target, d, layer);

	emit(line, n);
	errno = e;
}

/*
 * Tell cordon run of a refusal, whatever is logged: one datagram
 * "1\0VERDICT\0OP\0REASON\0TARGET\0LAYER\0" (REASON: enum reason as a
 * number), or for a refusal held back (kernel_refused) "2\0...\0LINE\0"
 * with the line as it would be logged. Sent only while the descriptor is
 * still the socket cordon handed over: a program that closed it, or put
 * something else at its number, is told nothing (and cordon counts less,
 * never more).
 */
static void report_by(const struct call *c, const char *verdict, const char *target,
		      const struct decision *d, const char *layer);

static void report(const struct call *c, const char *verdict, const char *target,
		   const struct decision *d)
{
	report_by(c, verdict, target, d,
		  d && d->reason == REASON_KERNEL_LAYER ? "kernel" : "shim");
}

/* The fields of the record into @rec (of @size); its length. */
static size_t record(char *rec, size_t size, const char *version, const struct call *c,
		     const char *verdict, const char *target, const struct decision *d,
		     const char *layer)
{
	char num[24];
	const char *parts[6] = { version, verdict, c->op, num, target ? target : "", layer };
	size_t n = 0;

	utoa(num, (unsigned long)(d ? d->reason : REASON_POLICY_UNREADABLE));
	for (size_t i = 0; i < 6; i++) {
		size_t l = strnlen(parts[i], size - n - 1);
		memcpy(rec + n, parts[i], l);
		n += l;
		rec[n++] = '\0';
	}
	return n;
}

/* The record @rec of @n bytes, and @tail_n bytes of @tail after it, in
 * one datagram; true when sent. */
static bool send_record(const char *rec, size_t n, const char *tail, size_t tail_n)
{
	struct iovec iov[2] = { { (void *)rec, n }, { (void *)tail, tail_n } };
	struct msghdr m = { .msg_iov = iov, .msg_iovlen = tail_n ? 2 : 1 };

	if (event_fd < 0)
		return false;
	if (!same_file(event_fd, event_dev, event_ino)) {
		if (!not_owner())  /* a vfork child's loss is its own */
			event_fd = -1;
		return false;
	}
	return syscall(SYS_sendmsg, event_fd, &m, MSG_NOSIGNAL) == (long)(n + tail_n);
}

static void report_by(const struct call *c, const char *verdict, const char *target,
		      const struct decision *d, const char *layer)
{
	char rec[64 + PATH_MAX];
	int e = errno;

	if (event_fd >= 0)
		send_record(rec, record(rec, sizeof(rec), "1", c, verdict, target, d, layer), NULL, 0);
	errno = e;
}

/*
 * A call the shim let through and the kernel layer refused (@d says why):
 * counted and logged as the kernel's. Where cordon reads the kernel's own
 * log (kernel_audited), that log may tell of it too, or may not be kept at
 * all (the audit subsystem off), which cordon finds out only when it must:
 * so the shim hands cordon the line instead of writing it, and cordon
 * writes it unless the kernel's log has the refusal (run.c, held).
 */
static void kernel_refused(const struct call *c, const char *target, const struct decision *d,
			   int cls)
{
	char line[LOG_LINE_MAX];
	size_t len = 0;
	int e = errno;

	atomic_fetch_add_explicit(&refusals[cls], 1, memory_order_relaxed);
	if (log_level != LOG_OFF)
		len = format_line(line, sizeof(line) - 1, c, "deny", target, d, "kernel");
	line[len] = '\0';
	if (kernel_audited && event_fd >= 0) {
		char rec[64 + PATH_MAX];
		size_t n = record(rec, sizeof(rec), "2", c, "deny", target, d, "kernel");
		if (send_record(rec, n, line, len + 1)) {
			errno = e;
			return;
		}
	}
	report_by(c, "deny", target, d, "kernel");
	if (len)
		emit(line, len);
	errno = e;
}

/*
 * The policy refused @c on @target: log, count, and return SHIM_DENY with
 * EACCES, or SHIM_PASS with errno restored in mode warn.
 */
static enum shim_verdict refuse(const struct call *c, const char *target,
				const struct decision *d, int saved_errno)
{
	int cls = shim_symbols[c->sym].cls;
	for (int i = 0; i < CLASS__COUNT; i++)
		if (strcmp(shim_class_names[i], c->op) == 0)
			cls = i;  /* open counts as create or write, as logged */
	atomic_fetch_add_explicit(&refusals[cls], 1, memory_order_relaxed);
	report(c, run_mode == MODE_WARN ? "warn" : "deny", target, d);
	if (run_mode == MODE_WARN) {
		if (log_level != LOG_OFF)
			log_event(c, "warn", target, d);
		errno = saved_errno;
		return SHIM_PASS;
	}
	if (log_level != LOG_OFF)
		log_event(c, "deny", target, d);
	errno = EACCES;
	return SHIM_DENY;
}

static enum shim_verdict allow(const struct call *c, const char *target,
			       const struct decision *d, int saved_errno, enum shim_verdict v)
{
	if (log_level == LOG_ALL)
		log_event(c, "allow", target, d);
	errno = saved_errno;
	return v;
}

/* Fail as the kernel would, before any permission check: not a refusal. */
static enum shim_verdict fail(int err)
{
	errno = err;
	return SHIM_DENY;
}

static void decide_path(enum op op, const char *path, struct decision *d)
{
	if (broken) {
		d->allow = op == OP_READ;
		d->reason = op == OP_READ ? REASON_READ_DEFAULT : REASON_POLICY_UNREADABLE;
		d->rule = NULL;
		d->matched = NULL;
		return;
	}
	policy_decide_path(&pol, op, path, strlen(path), d);
	/* A directory of /dev is listed, not read: as the kernel layer,
	 * which decides file reads only. The path is resolved already. */
	struct stat st;
	int saved = errno;
	if (!d->allow && d->reason == REASON_DEVICE_READ &&
	    syscall(SYS_newfstatat, AT_FDCWD, path, &st, 0) == 0 && S_ISDIR(st.st_mode)) {
		d->allow = true;
		d->reason = REASON_READ_DEFAULT;
	}
	errno = saved;
}

static struct pathset_entry *entry_of(const struct decision *d)
{
	if (!d->matched)
		return NULL;
	return (struct pathset_entry *)(void *)(d->matched - offsetof(struct pathset_entry, path));
}

/* The O_PATH descriptor of write root @e, opened on first use; -1 if it
 * is a file, gone, or the budget of descriptors is spent. A vfork child
 * opens none: its descriptor table is its own, the record its parent's. */
static int root_fd(struct pathset_entry *e)
{
	int fd = __atomic_load_n(&e->fd, __ATOMIC_ACQUIRE);

	if (fd >= 0 || fd == -2)
		return fd >= 0 ? fd : -1;
	if (atomic_load(&root_fds_open) >= ROOT_FDS_MAX || not_owner())
		return -1;
	int e_ = errno;
	fd = (int)syscall(SYS_openat, AT_FDCWD, e->path, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0) {
		errno = e_;
		__atomic_store_n(&e->fd, -2, __ATOMIC_RELEASE);
		return -1;
	}
	fd = fd_move_high(fd, true);
	errno = e_;
	int expected = -1;
	if (!__atomic_compare_exchange_n(&e->fd, &expected, fd, false, __ATOMIC_ACQ_REL,
					 __ATOMIC_ACQUIRE)) {
		close_keep_errno(fd);
		return expected >= 0 ? expected : -1;
	}
	atomic_fetch_add(&root_fds_open, 1);
	return fd;
}

/* The program closed our descriptor (closefrom, close_range): open the
 * root again on next use. (A vfork child closed its copy only.) */
static void forget_root_fd(struct pathset_entry *e, int fd)
{
	int expected = fd;

	if (not_owner())
		return;
	if (__atomic_compare_exchange_n(&e->fd, &expected, -1, false, __ATOMIC_ACQ_REL,
					__ATOMIC_ACQUIRE))
		atomic_fetch_sub(&root_fds_open, 1);
}

/*
 * Build the lexical absolute form of @path (relative to @dirfd) into
 * t->abs and its raw, unnormalised form into @raw. Returns 0 or -errno.
 */
static int absolute(int dirfd, const char *path, int atflags, struct shim_target *t,
		    char raw[PATH_MAX])
{
	char base[PATH_MAX];
	bool cached;
	int n;

	t->cwd_len = 0;
	if (path[0] == '/') {
		n = path_normalize(path, t->abs);
		if (n < 0)
			return n;
		size_t len = strnlen(path, PATH_MAX);
		memcpy(raw, path, len + 1);
		return 0;
	}
	if (path[0] == '\0' && !(atflags & AT_EMPTY_PATH))
		return -ENOENT;
	n = base_dir(dirfd, base, &cached);
	if (n < 0)
		return n;
	if (cached)
		t->cwd_len = strlen(base);
	n = path_absolute(base, path[0] ? path : ".", t->abs);
	if (n < 0)
		return n;
	size_t bl = strlen(base), pl = strlen(path);
	if (bl + 1 + pl >= PATH_MAX)
		return -ENAMETOOLONG;
	memcpy(raw, base, bl);
	raw[bl] = '/';
	memcpy(raw + bl + 1, path, pl + 1);
	return 0;
}

/*
 * Resolve @raw as the kernel will: following a final symlink when @follow,
 * else resolving only the parent. Missing components are fine (creates).
 */
static int resolve(const char *raw, bool follow, char out[PATH_MAX])
{
	char parent[PATH_MAX];
	const char *last;
	size_t len = strlen(raw);

	while (len > 1 && raw[len - 1] == '/')
		len--;
	last = raw + len;
	while (last > raw && last[-1] != '/')
		last--;
	size_t llen = (size_t)(raw + len - last);
	if (follow || llen == 0 || (llen == 1 && last[0] == '.') ||
	    (llen == 2 && last[0] == '.' && last[1] == '.'))
		return path_resolve(raw, out, PATH_MISSING_ALLOW);

	size_t plen = (size_t)(last - raw);
	memcpy(parent, raw, plen);
	parent[plen ? plen : 0] = '\0';
	if (plen == 0)
		return -EINVAL;
	int n = path_resolve(parent, out, PATH_MISSING_ALLOW);
	if (n < 0)
		return n;
	if ((size_t)n + 1 + llen >= PATH_MAX)
		return -ENAMETOOLONG;
	if (n > 1)
		out[n++] = '/';
	memcpy(out + n, last, llen);
	out[n + (int)llen] = '\0';
	return n + (int)llen;
}

/* Where a path really is, found with as few system calls as possible. */
struct where {
	const char *path;             /* the physical path decided on */
	bool exists;                  /* the target exists */
	bool parent_exists;           /* its directory exists (when asked) */
	struct decision d;
	char res[PATH_MAX];
};

/* Open @path O_PATH with no symlink allowed anywhere: 0 exists, 1 a symlink
 * is on the way, -errno otherwise (-ENOENT: missing). */
static int probe_plain(const char *path, int extra)
{
	long fd = sys_openat2(AT_FDCWD, path, O_PATH | O_CLOEXEC | extra, 0,
			      RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS);

	if (fd >= 0) {
		close_keep_errno((int)fd);
		return 0;
	}
	if (errno == ELOOP)
		return 1;
	if (errno == ENOSYS || errno == EINVAL || errno == EPERM)
		return 2;  /* no openat2: resolve the slow way */
	return -errno;
}

/*
 * Locate @abs (the lexical form of @raw, which had no ".." when !@dotdot)
 * and decide @op on it. The common refusal, a path outside every root
 * with no symlink on the way, costs one openat2 (and a stat when a created
 * file's directory must be shown to exist); a symlink or ".." costs a full
 * resolution, one readlink per component. Returns 0 or the -errno with
 * which the kernel's own walk would fail.
 */
static int locate(enum op op, const char *abs, const char *raw, bool dotdot, bool follow,
		  bool want_parent, struct where *w)
{
	int r, e = errno;

	w->parent_exists = true;
	if (!dotdot) {
		r = probe_plain(abs, follow ? 0 : O_NOFOLLOW);
		if (r == 0 || r == -ENOENT) {
			w->exists = r == 0;
			if (!w->exists && want_parent) {
				char parent[PATH_MAX];
				const char *slash = strrchr(abs, '/');
				size_t n = slash == abs ? 1 : (size_t)(slash - abs);
				memcpy(parent, abs, n);
				parent[n] = '\0';
				/* The walk met no symlink before the missing
				 * component: if that was the last one, the parent
				 * was walked plain, and a stat says it is there. */
				struct stat st;
				w->parent_exists = syscall(SYS_newfstatat, AT_FDCWD, parent, &st, 0) == 0 &&
						   S_ISDIR(st.st_mode);
				r = 0;
			}
			if (r <= 0) {
				errno = e;
				w->path = abs;
				decide_path(op, abs, &w->d);
				return 0;
			}
		} else if (r < 0) {
			errno = e;
			return r;
		}
	}
	r = resolve(raw, follow, w->res);
	errno = e;
	if (r < 0)
		return r;
	w->path = w->res;
	w->exists = lexists(w->res);
	if (!w->exists && want_parent)
		w->parent_exists = parent_exists(w->res);
	decide_path(op, w->res, &w->d);
	return 0;
}

/* Which end of a call a path is: its only path, or the source or the
 * destination of a rename or link. The kernel looks every end up before
 * it checks permission, and fails differently for each. */
enum role { ROLE_ONLY, ROLE_SOURCE, ROLE_DEST };

/* How a refused call would fail first in the kernel (0: it would not). */
static int first_errno(enum shim_class cls, enum role role, const struct where *w)
{
	if (role == ROLE_SOURCE)
		return w->exists ? 0 : ENOENT;
	if (role == ROLE_DEST && cls == CLASS_rename)
		return w->parent_exists ? 0 : ENOENT;
	switch (cls) {
	case CLASS_create:
	case CLASS_link:
		if (w->exists)
			return EEXIST;
		return w->parent_exists ? 0 : ENOENT;
	case CLASS_write:
	case CLASS_delete:
	case CLASS_rename:
	case CLASS_metadata:
	case CLASS_read:
		return w->exists ? 0 : ENOENT;
	case CLASS_connect:
	case CLASS_bind:
	case CLASS_exec:
	case CLASS_spawn:
	case CLASS_cwd:
	case CLASS_state:
	case CLASS__COUNT:
		break;
	}
	return 0;
}

static bool wants_parent(enum shim_class cls, enum role role)
{
	return role == ROLE_DEST || (role == ROLE_ONLY && (cls == CLASS_create || cls == CLASS_link));
}

/* A refusal held back until both ends of a rename or link are looked up. */
struct pending {
	bool set;
	struct decision d;
	char path[PATH_MAX];
};

static enum shim_verdict refuse_or_hold(const struct call *c, const char *target,
					const struct decision *d, int saved, struct pending *hold)
{
	if (!hold)
		return refuse(c, target, d, saved);
	hold->set = true;
	hold->d = *d;
	size_t n = strlen(target);
	memcpy(hold->path, target, n < PATH_MAX ? n + 1 : PATH_MAX);
	hold->path[PATH_MAX - 1] = '\0';
	errno = saved;
	return SHIM_PASS;
}

/*
 * The resolving path: decide on where @abs really is. Used when the lexical
 * form is outside every root (a symlink may lead into one), when it has a
 * "..", or when the fast path met a symlink (@dotdot true forces the full
 * resolution).
 */
static enum shim_verdict decide_resolved(const struct call *c, enum op op, enum shim_class cls,
					 enum role role, const char *abs, const char *raw,
					 bool dotdot, bool follow, int saved_errno,
					 struct pending *hold)
{
	struct where w;
	int n = locate(op, abs, raw, dotdot, follow, wants_parent(cls, role), &w);

	if (n < 0)
		return fail(-n);
	if (w.d.allow)
		return allow(c, w.path, &w.d, saved_errno, SHIM_PASS);
	int err = first_errno(cls, role, &w);
	if (err)
		return fail(err);
	return refuse_or_hold(c, w.path, &w.d, saved_errno, hold);
}

static enum op op_of(enum shim_class cls)
{
	return cls == CLASS_read		    ? OP_READ
	       : cls == CLASS_write		    ? OP_WRITE_DATA
	       : cls == CLASS_delete || cls == CLASS_rename ? OP_REMOVE
						    : OP_WRITE;
}

/* Classes whose operation changes the directory entry of the target. */
static bool changes_entry(enum shim_class cls)
{
	return cls == CLASS_create || cls == CLASS_delete || cls == CLASS_rename ||
	       cls == CLASS_link;
}

static bool ends_with_slash(const char *p)
{
	size_t n = strlen(p);
	return n > 1 && p[n - 1] == '/';
}

/*
 * Where the kernel walks from for an allowed call, and what it walks: the
 * real working directory and the path as given, when the cached working
 * directory decided and lies within the root; otherwise the root's
 * descriptor and the lexical remainder beneath it. Returns the descriptor
 * (possibly AT_FDCWD), or -1 for "take the resolving path".
 */
static int anchor(const struct decision *d, const struct shim_target *t, const char *given,
		  char rel[PATH_MAX], struct pathset_entry **ep)
{
	struct pathset_entry *e = entry_of(d);
	size_t n;

	*ep = e;
	if (!e || no_openat2)
		return -1;
	if (t->cwd_len && e->len <= t->cwd_len && given[0] != '/') {
		n = strlen(given);
		memcpy(rel, given, n + 1);
		return AT_FDCWD;
	}
	int rfd = root_fd(e);
	if (rfd < 0)
		return -1;
	size_t alen = strlen(t->abs);
	const char *r = alen == e->len ? "." : t->abs + (e->len == 1 ? 1 : e->len + 1);
	n = strlen(r);
	memcpy(rel, r, n + 1);
	if (ends_with_slash(given) && n + 1 < PATH_MAX) {
		rel[n] = '/';
		rel[n + 1] = '\0';
	}
	return rfd;
}

/* openat2() said no for a reason that is not about the file: fall back. */
static bool walk_failed(struct pathset_entry *e, int afd)
{
	if (errno == ENOSYS)
		no_openat2 = true;
	if (errno == EBADF && afd >= 0)
		forget_root_fd(e, afd);
	return errno == EXDEV || errno == ELOOP || errno == ENOSYS || errno == EBADF ||
	       errno == EINVAL || errno == EPERM || errno == EAGAIN;
}

/*
 * The fast path for one allowed path: open its directory beneath the
 * anchor and name the last component. Returns SHIM_VIA, SHIM_DENY (errno
 * set: the directory is not there), or SHIM_PASS: take the resolving path.
 */
static enum shim_verdict prepare_target(const struct decision *d, const char *given, bool follow,
					struct shim_target *t)
{
	char rel[PATH_MAX];
	struct pathset_entry *e;
	int afd = anchor(d, t, given, rel, &e);
	size_t n = strlen(rel);
	bool slash = false;

	if (afd == -1)
		return SHIM_PASS;
	while (n > 1 && rel[n - 1] == '/') {
		rel[--n] = '\0';
		slash = true;
	}
	char *last = strrchr(rel, '/');
	const char *leaf = last ? last + 1 : rel;
	size_t llen = strlen(leaf);
	if (!llen || llen + 2 > sizeof(t->rel) || (llen == 1 && leaf[0] == '.') ||
	    (llen == 2 && leaf[0] == '.' && leaf[1] == '.'))
		return SHIM_PASS;

	t->close_pfd = false;
	if (!last) {
		t->pfd = afd;
	} else {
		*last = '\0';
		long fd = sys_openat2(afd, last == rel ? "/" : rel, O_PATH | O_DIRECTORY | O_CLOEXEC, 0,
				      RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS);
		if (fd < 0)
			return walk_failed(e, afd) ? SHIM_PASS : SHIM_DENY;
		t->pfd = (int)fd;
		t->close_pfd = true;
	}
	memcpy(t->rel, leaf, llen);
	if (slash)
		t->rel[llen++] = '/';
	t->rel[llen] = '\0';
	t->leaf = t->rel;
	if (follow && !t->leaf_by_via) {
		struct stat st;
		if (syscall(SYS_newfstatat, t->pfd, leaf, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
		    S_ISLNK(st.st_mode)) {
			shim_end(t);
			return SHIM_PASS;
		}
	}
	return SHIM_VIA;
}

/*
 * A relative path whose absolute form the shim cannot spell: the working
 * directory (or @dirfd) lies deeper than PATH_MAX, or was removed. The
 * kernel still walks it, so the shim lets the kernel open the directory the
 * call acts in, and decides on that directory's nearest ancestor that has a
 * path: no entry of the policy can lie deeper (entries are paths shorter
 * than PATH_MAX, and a removed directory holds none). The call is then made
 * on that descriptor, so what was decided is what is acted on. Costs two
 * system calls per level climbed: only these rare calls pay it.
 * Returns SHIM_VIA (t->pfd, t->leaf set, t->abs describes the target),
 * SHIM_DENY with errno (the walk failed, or the refusal), or SHIM_PASS in
 * mode warn.
 */
static enum shim_verdict decide_by_descriptor(const struct call *c, enum op op, int dirfd,
					      const char *path, bool follow, struct shim_target *t,
					      int saved)
{
	char parent[PATH_MAX], where[PATH_MAX];
	size_t len = strnlen(path, PATH_MAX);
	struct decision d;
	int cur, n = -1;

	if (len >= PATH_MAX)
		return fail(ENAMETOOLONG);
	while (len > 1 && path[len - 1] == '/')
		len--;
	const char *leaf = path + len;
	while (leaf > path && leaf[-1] != '/')
		leaf--;
	size_t llen = (size_t)(path + len - leaf), plen = (size_t)(leaf - path);
	if (llen > NAME_MAX)
		return fail(ENAMETOOLONG);  /* as the kernel answers a too long name */
	if (!llen || (llen == 1 && leaf[0] == '.') || (llen == 2 && leaf[0] == '.' && leaf[1] == '.'))
		return fail(ENAMETOOLONG);
	memcpy(parent, path, plen);
	parent[plen] = '\0';
	if (!plen)
		memcpy(parent, ".", 2);
	cur = (int)syscall(SYS_openat, dirfd, parent, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (cur < 0)
		return fail(errno);
	t->pfd = cur;
	t->close_pfd = true;
	memcpy(t->rel, leaf, llen);
	t->rel[llen] = '\0';
	t->leaf = t->rel;

	/* Climb to the nearest ancestor with a path. */
	int up = cur;
	for (int depth = 0; depth < PATH_MAX / 2; depth++) {
		n = fd_path(up, where);
		if (n > 0 && where[0] == '/' &&
		    !(n > 10 && strcmp(where + n - 10, " (deleted)") == 0))
			break;
		int next = (int)syscall(SYS_openat, up, "..", O_PATH | O_DIRECTORY | O_CLOEXEC);
		if (up != cur)
			close_keep_errno(up);
		if (next < 0) {
			shim_end(t);
			return fail(errno);
		}
		up = next;
		n = -1;
	}
	if (up != cur)
		close_keep_errno(up);
	if (n <= 0) {
		shim_end(t);
		return fail(ENAMETOOLONG);
	}
	decide_path(op, where, &d);
	/* For the log: the ancestor decided on, and the name acted on. */
	{
		size_t wl = (size_t)n, ll = strlen(t->leaf);
		if (wl + 5 + ll >= sizeof(t->abs))
			wl = sizeof(t->abs) - 6 - ll;  /* ll <= NAME_MAX: fits */
		memcpy(t->abs, where, wl);
		memcpy(t->abs + wl, "/.../", 5);
		memcpy(t->abs + wl + 5, t->leaf, ll + 1);
	}
	if (d.allow && follow) {
		struct stat st;
		if (syscall(SYS_newfstatat, t->pfd, t->leaf, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
		    S_ISLNK(st.st_mode)) {
			/* Where the link leads is not decided here: refuse. */
			d.allow = false;
			d.reason = REASON_OUTSIDE_ROOTS;
		}
	}
	if (d.allow)
		return allow(c, t->abs, &d, saved, SHIM_VIA);
	/* Fail as the kernel's lookup would first (mkdir of an existing
	 * directory: EEXIST), as on every other path. */
	struct where w;
	struct stat st;
	w.exists = syscall(SYS_newfstatat, t->pfd, t->leaf, &st, AT_SYMLINK_NOFOLLOW) == 0;
	w.parent_exists = true;
	shim_end(t);
	int err;
	if (c->flags_kind == LOGF_OPEN)  /* an open: O_CREAT makes a missing file fine */
		err = !w.exists && !(c->flags & O_CREAT) ? ENOENT
		      : w.exists && (c->flags & O_CREAT) && (c->flags & O_EXCL) ? EEXIST : 0;
	else
		err = first_errno(shim_symbols[c->sym].cls, ROLE_ONLY, &w);
	if (err)
		return fail(err);
	return refuse(c, t->abs, &d, saved);
}

static bool spell_failed(int err, int dirfd, const char *path)
{
	/* getcwd: ENAMETOOLONG/ERANGE deep, ENOENT removed; /proc/self/fd:
	 * ENAMETOOLONG deep. */
	return path[0] != '/' && (err == -ENAMETOOLONG || err == -ERANGE ||
				  (err == -ENOENT && dirfd == AT_FDCWD && path[0]));
}

/*
 * The calls cordon's supervisor answers itself (jail/supervise.c): the
 * metadata calls and connect. When cordon run has a supervisor of its own,
 * the shim leaves them to it, rather than decide and then act beneath a
 * write root's descriptor that the supervisor must look up in the program
 * again (a chmod: 18.6 times bare through the shim, 16.3 without it). The
 * supervisor decides with the same policy and logs what it refuses; with
 * `log all` the shim still records what it allows.
 */
static bool to_supervisor(enum shim_sym sym)
{
	return supervised && log_level != LOG_ALL &&
	       (shim_symbols[sym].cls == CLASS_metadata || sym == SYM_connect);
}

static enum shim_verdict begin_path(enum shim_sym sym, enum role role, int dirfd,
				    const char *path, int atflags, bool follow, bool via,
				    struct shim_target *t, struct pending *hold)
{
	enum shim_class cls = shim_symbols[sym].cls;
	enum op op = op_of(cls);
	struct call c = { sym, shim_class_names[cls], atflags, LOGF_AT, path };
	char raw[PATH_MAX];
	struct decision d;
	int saved = errno, n;

	t->close_pfd = false;
	t->pfd = -1;
	if (!shim_active() || to_supervisor(sym))
		return SHIM_PASS;
	if (op == OP_READ && pol.n_read_deny == 0 && !broken)
		return SHIM_PASS;
	if (!path) {
		/* utimensat(fd, NULL, ...) acts on the descriptor itself. */
		if (sym == SYM_utimensat || sym == SYM_futimesat)
			return shim_begin_fd(sym, dirfd);
		return fail(EFAULT);
	}
	if (atflags & AT_SYMLINK_NOFOLLOW)
		follow = false;
	n = absolute(dirfd, path, atflags, t, raw);
	if (n < 0 && via && !hold && spell_failed(n, dirfd, path))
		return decide_by_descriptor(&c, op, dirfd, path, follow, t, saved);
	if (n < 0)
		return fail(-n);
	decide_path(op, t->abs, &d);

	bool dotdot = has_dotdot(path);
	if (!d.allow || dotdot || !via || op == OP_READ) {
		/* Reads get here only with read-deny entries: a symlink may
		 * lead into one. */
		return decide_resolved(&c, op, cls, role, t->abs, raw, dotdot, follow, saved, hold);
	}
	if (d.reason == REASON_DEVICE)
		return allow(&c, t->abs, &d, saved, SHIM_PASS);
	if (strlen(t->abs) == strlen(d.matched) && changes_entry(cls)) {
		/* The root itself: its entry lives in the parent, outside. It
		 * exists, so a create fails as the kernel's lookup would. */
		if (cls == CLASS_create && role == ROLE_ONLY)
			return fail(EEXIST);
		d.allow = false;
		d.reason = REASON_OUTSIDE_ROOTS;
		return refuse_or_hold(&c, t->abs, &d, saved, hold);
	}
	enum shim_verdict v = prepare_target(&d, path, follow, t);
	if (v == SHIM_PASS)
		return decide_resolved(&c, op, cls, role, t->abs, raw, true, follow, saved, hold);
	if (v == SHIM_DENY)
		return SHIM_DENY;
	return allow(&c, t->abs, &d, saved, SHIM_VIA);
}

enum shim_verdict shim_begin_path(enum shim_sym sym, int dirfd, const char *path, int atflags,
				  enum shim_follow how, bool via, struct shim_target *t)
{
	t->sym = sym;
	t->leaf_by_via = how == SHIM_FOLLOW_VIA;
	return begin_path(sym, ROLE_ONLY, dirfd, path, atflags, how != SHIM_NOFOLLOW, via, t, NULL);
}

/* Does the end @t, allowed and prepared (VIA) or not, exist? */
static bool end_exists(const struct shim_target *t, enum shim_verdict v)
{
	struct stat st;
	int e = errno;
	bool r = v == SHIM_VIA
		? syscall(SYS_newfstatat, t->pfd, t->leaf, &st, AT_SYMLINK_NOFOLLOW) == 0
		: lexists(t->abs);

	errno = e;
	return r;
}

enum shim_verdict shim_begin_path2(enum shim_sym sym, int da, const char *a, int db,
				   const char *b, int atflags, struct shim_target *ta,
				   struct shim_target *tb)
{
	bool follow_a = sym == SYM_linkat && (atflags & AT_SYMLINK_FOLLOW);
	bool link = shim_symbols[sym].cls == CLASS_link;
	struct pending pa, pb;
	enum shim_verdict va, vb;
	int saved = errno;

	ta->close_pfd = tb->close_pfd = false;
	ta->sym = tb->sym = sym;
	ta->leaf_by_via = tb->leaf_by_via = false;
	if (!shim_active())
		return SHIM_PASS;
	pa.set = pb.set = false;
	/* linkat(AT_EMPTY_PATH) names the source by descriptor. */
	va = begin_path(sym, ROLE_SOURCE, da, a, link ? (atflags & AT_EMPTY_PATH) : 0, follow_a,
			true, ta, &pa);
	if (va == SHIM_DENY)
		return SHIM_DENY;
	vb = begin_path(sym, ROLE_DEST, db, b, 0, false, true, tb, &pb);
	if (vb == SHIM_DENY) {
		shim_end(ta);
		return SHIM_DENY;
	}
	if (pa.set || pb.set) {
		/* Both ends are looked up before permission is checked. */
		int err = 0;
		if (!pa.set && !end_exists(ta, va))
			err = ENOENT;
		else if (!pb.set && link && end_exists(tb, vb))
			err = EEXIST;
		shim_end(ta);
		shim_end(tb);
		if (err)
			return fail(err);
		struct call c = { sym, shim_class_names[shim_symbols[sym].cls], atflags,
				  sym == SYM_renameat2 ? LOGF_RENAME : LOGF_AT, pa.set ? a : b };
		struct pending *p = pa.set ? &pa : &pb;
		if (pa.set && pb.set) {
			/* One refusal, but both ends need a rule: the run's
			 * tally (explain --last, learn) hears of the second. */
			struct call cb = c;
			cb.given = b;
			report(&cb, "also", pb.path, &pb.d);
		}
		return refuse(&c, p->path, &p->d, saved);
	}
	if (va == SHIM_VIA && vb == SHIM_VIA)
		return SHIM_VIA;
	/* One end took the resolving path: let libc do the call. */
	shim_end(ta);
	shim_end(tb);
	return SHIM_PASS;
}

void shim_end(struct shim_target *t)
{
	if (t->close_pfd) {
		close_keep_errno(t->pfd);
		t->close_pfd = false;
	}
}

/* --- opens ----------------------------------------------------------------- */

static bool is_tmpfile(int flags)
{
	return (flags & __O_TMPFILE) == __O_TMPFILE;
}

/* A read open: only read-deny can refuse it, and only once it is open do
 * we know what it is: the caller opens, then asks shim_check_opened_read. */
static enum shim_verdict read_open(int saved)
{
	if (pol.n_read_deny == 0)
		return SHIM_PASS;
	errno = saved;
	return SHIM_VERIFY;
}

/*
 * If @abs names one of this process's descriptors (/dev/stdout, /dev/fd/N,
 * /proc/self/fd/N, ...), the descriptor's number, else -1. Such an open
 * reaches what the descriptor holds: a pipe or a socket is no file system
 * object to write, and a file is decided by its own path.
 */
static int own_fd(const char *abs)
{
	static const char *const prefixes[] = { "/dev/fd/", "/proc/self/fd/",
						"/proc/thread-self/fd/" };
	const char *num = NULL;

	if (strncmp(abs, "/dev/", 5) != 0 && strncmp(abs, "/proc/", 6) != 0)
		return -1;  /* the common case, on the write-open path */
	if (strcmp(abs, "/dev/stdin") == 0)
		return 0;
	if (strcmp(abs, "/dev/stdout") == 0)
		return 1;
	if (strcmp(abs, "/dev/stderr") == 0)
		return 2;
	for (size_t i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]) && !num; i++)
		if (strncmp(abs, prefixes[i], strlen(prefixes[i])) == 0)
			num = abs + strlen(prefixes[i]);
	if (!num || *num < '0' || *num > '9')
		return -1;
	long v = 0;
	for (; *num >= '0' && *num <= '9' && v < INT_MAX / 10; num++)
		v = v * 10 + (*num - '0');
	return *num ? -1 : (int)v;
}

enum shim_verdict shim_begin_open(enum shim_sym sym, int dirfd, const char *path, int flags,
				  mode_t mode, int *result)
{
	struct call c = { sym, "write", flags, LOGF_OPEN, path };
	struct shim_target t;
	char raw[PATH_MAX];
	struct decision d;
	int saved = errno, acc = flags & O_ACCMODE, n;
	bool write, creat;

	if (!shim_active() || !path || (flags & O_PATH))
		return SHIM_PASS;
	write = acc != O_RDONLY || (flags & O_TRUNC) || is_tmpfile(flags);
	creat = (flags & O_CREAT) && !is_tmpfile(flags);
	if (!write && !creat)
		return read_open(saved);

	n = absolute(dirfd, path, 0, &t, raw);
	if (n < 0 && result && spell_failed(n, dirfd, path)) {
		c.op = creat ? "create" : "write";
		enum shim_verdict v = decide_by_descriptor(&c, OP_WRITE_DATA, dirfd, path,
							   !(flags & O_NOFOLLOW), &t, saved);
		if (v != SHIM_VIA)
			return v;
		long fd = sys_openat2(t.pfd, t.leaf, flags, mode,
				      RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS);
		*result = (int)fd;
		shim_end(&t);
		if (fd >= 0)
			errno = saved;
		return SHIM_DONE;
	}
	if (n < 0)
		return fail(-n);
	c.op = creat ? "create" : "write";
	int own = own_fd(t.abs);
	if (own >= 0) {
		char target[PATH_MAX];
		if (fd_path(own, target) > 0 && target[0] != '/') {
			errno = saved;
			return SHIM_PASS;  /* a pipe, socket or terminal end */
		}
	}
	decide_path(OP_WRITE_DATA, t.abs, &d);
	if (d.allow && d.reason == REASON_DEVICE && !has_dotdot(path))
		return allow(&c, t.abs, &d, saved, SHIM_PASS);

	/* Decide-only callers (freopen: libc must open into its stream) take
	 * the resolving path: the kernel will walk the path after us. */
	if (d.allow && !has_dotdot(path) && result) {
		char rel[PATH_MAX];
		struct pathset_entry *e;
		int afd = anchor(&d, &t, path, rel, &e);
		if (afd != -1) {
			long fd = sys_openat2(afd, rel, flags, mode,
					      RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS);
			if (fd >= 0) {
				*result = (int)fd;
				return allow(&c, t.abs, &d, saved, SHIM_DONE);
			}
			if (!walk_failed(e, afd)) {
				*result = -1;
				return SHIM_DONE;
			}
		}
	}

	/* The resolving path. */
	struct where w;
	n = locate(OP_WRITE_DATA, t.abs, raw, has_dotdot(path) || d.allow, !(flags & O_NOFOLLOW),
		   creat, &w);
	if (n < 0)
		return fail(-n);
	if (w.d.allow)
		return allow(&c, w.path, &w.d, saved, SHIM_PASS);
	if (creat && w.exists && (flags & O_EXCL))
		return fail(EEXIST);
	if (creat && w.exists && !write) {
		/* O_CREAT on an existing file, opened read-only: a read. */
		return read_open(saved);
	}
	if (!w.exists && (!creat || !w.parent_exists))
		return fail(ENOENT);
	c.op = w.exists ? "write" : "create";
	return refuse(&c, w.path, &w.d, saved);
}

bool shim_check_opened_read(enum shim_sym sym, const char *path, int fd)
{
	struct call c = { sym, "read", O_RDONLY, LOGF_OPEN, path };
	char real[PATH_MAX];
	struct decision d;
	int saved = errno;

	if (fd < 0 || fd_path(fd, real) < 0 || real[0] != '/') {
		errno = saved;
		return true;
	}
	decide_path(OP_READ, real, &d);
	if (d.allow) {
		allow(&c, real, &d, saved, SHIM_PASS);
		return true;
	}
	return refuse(&c, real, &d, saved) == SHIM_PASS;
}

/* fopen(3) modes: "r", "w", "a", "r+", ... with "x", "e" as extensions. */
static int fopen_flags(const char *mode)
{
	int flags;

	switch (mode[0]) {
	case 'r': flags = O_RDONLY; break;
	case 'w': flags = O_WRONLY | O_CREAT | O_TRUNC; break;
	case 'a': flags = O_WRONLY | O_CREAT | O_APPEND; break;
	default: return -1;
	}
	for (const char *m = mode + 1; *m && *m != ','; m++) {
		if (*m == '+')
			flags = (flags & ~O_ACCMODE) | O_RDWR;
		else if (*m == 'x')
			flags |= O_EXCL;
		else if (*m == 'e')
			flags |= O_CLOEXEC;
	}
	return flags;
}

enum shim_verdict shim_begin_fopen(enum shim_sym sym, const char *path, const char *mode,
				   int *fd)
{
	int flags;

	if (!shim_active() || !path || !mode)
		return SHIM_PASS;
	flags = fopen_flags(mode);
	if (flags < 0)
		return SHIM_PASS;  /* libc answers EINVAL */
	/* freopen must reuse its stream: decide only, let libc open. */
	if (sym == SYM_freopen || sym == SYM_freopen64)
		return shim_begin_open(sym, AT_FDCWD, path, flags, 0666, NULL);
	return shim_begin_open(sym, AT_FDCWD, path, flags, 0666, fd);
}

/* --- descriptors, temporary files, network, processes ---------------------- */

enum shim_verdict shim_begin_fd(enum shim_sym sym, int fd)
{
	enum shim_class cls = shim_symbols[sym].cls;
	struct call c = { sym, shim_class_names[cls], 0, LOGF_NONE, NULL };
	char p[PATH_MAX];
	struct decision d;
	int saved = errno, n;

	if (!shim_active() || to_supervisor(sym))
		return SHIM_PASS;
	n = fd_path(fd, p);
	if (n < 0)
		return fail(-n);
	/* Pipes, sockets, anonymous inodes, memfds and unlinked files have
	 * no name a write could reach again. */
	if (p[0] != '/' || strncmp(p, "/memfd:", 7) == 0 ||
	    (n > 10 && strcmp(p + n - 10, " (deleted)") == 0))
		return SHIM_PASS;
	decide_path(op_of(cls), p, &d);
	if (d.allow)
		return allow(&c, p, &d, saved, SHIM_PASS);
	return refuse(&c, p, &d, saved);
}

enum shim_verdict shim_begin_temp(enum shim_sym sym, const char *path)
{
	struct shim_target t;
	char raw[PATH_MAX];
	struct decision d;
	struct call c = { sym, "create", 0, LOGF_NONE, path };
	int saved = errno, n;

	if (!shim_active())
		return SHIM_PASS;
	if (!path)
		return fail(EINVAL);
	n = absolute(AT_FDCWD, path, 0, &t, raw);
	if (n < 0)
		return fail(-n);
	decide_path(OP_WRITE, t.abs, &d);
	/* Allowed or not, the directory the file lands in may be a symlink
	 * (out of a root, or into one): decide on where it really is. */
	return decide_resolved(&c, OP_WRITE, CLASS_create, ROLE_ONLY, t.abs, raw, has_dotdot(path),
			       false, saved, NULL);
}

/* policy_decide_net, or everything refused when the policy is unreadable. */
static void decide_net(enum op op, int type, const struct sockaddr *sa, socklen_t len,
		       struct decision *d)
{
	if (broken) {
		d->allow = false;
		d->reason = REASON_POLICY_UNREADABLE;
		d->rule = NULL;
		d->matched = NULL;
		return;
	}
	policy_decide_net(&pol, op, type, sa, len, d);
}

enum shim_verdict shim_begin_net(enum shim_sym sym, int fd, const struct sockaddr *sa,
				 socklen_t len)
{
	enum shim_class cls = shim_symbols[sym].cls;
	enum op op = cls == CLASS_bind ? OP_BIND : OP_CONNECT;
	struct call c = { sym, shim_class_names[cls], 0, LOGF_NONE, NULL };
	char target[PATH_MAX + 16];
	struct decision d;
	int saved = errno, type = 0;

	if (!shim_active() || !sa || len < (socklen_t)sizeof(sa_family_t) || to_supervisor(sym))
		return SHIM_PASS;
	if (sa->sa_family == AF_UNIX) {
		const struct sockaddr_un *un = (const void *)sa;
		size_t off = offsetof(struct sockaddr_un, sun_path);
		if (len <= off)
			return SHIM_PASS;  /* unnamed: autobind */
		if (un->sun_path[0] != '\0') {
			/* A pathname socket: a path like any other. */
			char path[sizeof(un->sun_path) + 1];
			struct shim_target t;
			char raw[PATH_MAX];
			size_t n = len - off < sizeof(un->sun_path) ? len - off : sizeof(un->sun_path);
			memcpy(path, un->sun_path, n);
			path[n] = '\0';
			c.given = path;
			int r = absolute(AT_FDCWD, path, 0, &t, raw);
			if (r < 0)
				return fail(-r);
			char res[PATH_MAX];
			r = resolve(raw, op == OP_CONNECT, res);
			if (r < 0)
				return fail(-r);
			decide_path(op == OP_BIND ? OP_WRITE : OP_CONNECT, res, &d);
			if (d.allow)
				return allow(&c, res, &d, saved, SHIM_PASS);
			return refuse(&c, res, &d, saved);
		}
	}
	if (!broken && pol.net.value == NET_ALL)
		return SHIM_PASS;
	if (pol.net.value == NET_NONE && (sa->sa_family == AF_INET || sa->sa_family == AF_INET6)) {
		socklen_t tl = sizeof(type);
		if (syscall(SYS_getsockopt, fd, SOL_SOCKET, SO_TYPE, &type, &tl) < 0)
			return fail(errno);
	}
	decide_net(op, type, sa, len, &d);
	if (d.allow && log_level != LOG_ALL) {
		errno = saved;
		return SHIM_PASS;
	}
	log_format_addr(target, sizeof(target), sa, len, type);
	if (d.allow)
		return allow(&c, target, &d, saved, SHIM_PASS);
	return refuse(&c, target, &d, saved);
}

/*
 * listen(2) under net none, as the supervisor decides it: a TCP socket
 * bound to no port would be bound to one at random (a bind to port 0,
 * which no net-bind line names), and a unix socket bound to an abstract
 * name would listen in the host's namespace of such names. Any other
 * listen, and every listen under the other modes, passes. Left to cordon's
 * supervisor when there is one; seen here under mode warn (cordon learn)
 * and without a kernel layer.
 */
enum shim_verdict shim_begin_listen(enum shim_sym sym, int fd)
{
	struct call c = { sym, shim_class_names[shim_symbols[sym].cls], 0, LOGF_NONE, NULL };
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss), tl = sizeof(int);
	char target[PATH_MAX + 16];
	struct decision d;
	int saved = errno, type = 0;

	if (!shim_active() || supervised || (!broken && pol.net.value != NET_NONE))
		return SHIM_PASS;
	memset(&ss, 0, sizeof(ss));
	if (syscall(SYS_getsockname, fd, &ss, &len) < 0 ||
	    syscall(SYS_getsockopt, fd, SOL_SOCKET, SO_TYPE, &type, &tl) < 0) {
		errno = saved;
		return SHIM_PASS;  /* not a socket: the kernel says so */
	}
	const struct sockaddr *sa = (const struct sockaddr *)&ss;
	if (!policy_listen_binds(sa, len, type)) {
		errno = saved;
		return SHIM_PASS;
	}
	decide_net(OP_BIND, type, sa, len, &d);
	log_format_addr(target, sizeof(target), sa, len, type);
	if (d.allow)
		return allow(&c, target, &d, saved, SHIM_PASS);
	return refuse(&c, target, &d, saved);
}

enum shim_verdict shim_begin_spawn(enum shim_sym sym)
{
	struct call c = { sym, "spawn", 0, LOGF_NONE, NULL };
	struct decision d = { false, broken ? REASON_POLICY_UNREADABLE : REASON_SUBPROCESS,
			      pol.subprocess.rule, NULL };
	int saved = errno;

	if (!shim_active() || (!broken && pol.subprocess.value))
		return SHIM_PASS;
	return refuse(&c, exe_path, &d, saved);
}

/* --- what the kernel refused after the shim allowed ------------------------ */

/* @path's directory, relative to the same dirfd, into @out. */
static void dir_of_path(const char *path, char out[PATH_MAX])
{
	size_t len = strnlen(path, PATH_MAX - 1);

	while (len > 1 && path[len - 1] == '/')
		len--;
	while (len > 0 && path[len - 1] != '/')
		len--;
	while (len > 1 && path[len - 1] == '/')
		len--;
	if (len == 0) {
		out[0] = '.';
		out[1] = '\0';
		return;
	}
	memcpy(out, path, len);
	out[len] = '\0';
}

/* Would the file's own permissions let this process do @cls on @path
 * (relative to @dirfd)? Landlock does not govern access(2), so this asks
 * the permission bits, ACLs and capabilities alone. */
static bool dac_allows(enum shim_class cls, bool opens, int dirfd, const char *path)
{
	char dir[PATH_MAX];
	struct stat st;

	if (cls == CLASS_write || (opens && fstatat(dirfd, path, &st, 0) == 0))
		return faccessat(dirfd, path, W_OK, AT_EACCESS) == 0;
	dir_of_path(path, dir);
	return faccessat(dirfd, dir, W_OK | X_OK, AT_EACCESS) == 0;
}

void shim_refused_after(enum shim_sym sym, int dirfd, const char *path, int db, const char *b,
			int flags)
{
	enum shim_class cls = shim_symbols[sym].cls;
	bool opens = flags >= 0;
	int e = errno;

	if (e != EACCES || !path ||
	    (cls != CLASS_create && cls != CLASS_write && cls != CLASS_delete &&
	     cls != CLASS_rename && cls != CLASS_link) ||
	    (opens && (flags & O_ACCMODE) == O_RDONLY && !(flags & (O_CREAT | O_TRUNC))) ||
	    !shim_active() || run_mode != MODE_ENFORCE || broken)
		return;
	if (!dac_allows(cls, opens, dirfd, path) || (b && !dac_allows(cls, false, db, b)))
		goto out;  /* an ordinary refusal, the file's own */

	struct shim_target t;
	char raw[PATH_MAX];
	struct call c = { sym, shim_class_names[cls], opens ? flags : 0,
			  opens ? LOGF_OPEN : LOGF_NONE, path };
	struct decision d = { false, REASON_KERNEL_LAYER, NULL, NULL };
	struct stat st;
	if (opens)
		c.op = fstatat(dirfd, path, &st, 0) == 0 ? "write" : "create";
	if (absolute(dirfd, path, 0, &t, raw) < 0)
		snprintf(t.abs, sizeof(t.abs), "%s", path);
	kernel_refused(&c, t.abs, &d, (int)cls);
out:
	errno = e;
}

/* A read open checked after the fact (read-deny not empty) failed with
 * EACCES: when read-deny covers the path, the kernel layer refused it
 * before the shim could, and says so. */
void shim_read_failed(enum shim_sym sym, int dirfd, const char *path)
{
	int e = errno;

	if (e != EACCES || !path || !shim_active() || run_mode != MODE_ENFORCE || broken)
		return;
	struct shim_target t;
	char raw[PATH_MAX], res[PATH_MAX];
	struct decision d;
	if (absolute(dirfd, path, 0, &t, raw) == 0 && resolve(raw, true, res) > 0) {
		decide_path(OP_READ, res, &d);
		if (!d.allow) {
			struct call c = { sym, "read", 0, LOGF_NONE, path };
			kernel_refused(&c, res, &d, CLASS_read);
		}
	}
	errno = e;
}

/* --- helpers for VIA expressions ------------------------------------------- */

/* --- POSIX shared memory and named semaphores ----------------------------- */

/*
 * shm_open and sem_open make files of /dev/shm, which every program of the
 * host shares: glibc makes them with calls of its own that the shim does
 * not see (and the kernel layer refuses them, unlogged, outside the write
 * roots). So the shim makes them itself, as glibc does, deciding and
 * logging them as the calls they are; and under cordon run with
 * private-ipc, in the run's own directory rather than the host's
 * (shm_dir): the programs of the run share them, Python's multiprocessing
 * locks and process pools work, and nothing outside sees or reaches them.
 */
int shim_ipc_path(const char *name, const char *prefix, char out[PATH_MAX])
{
	if (!name)
		return -EINVAL;
	while (*name == '/')
		name++;
	size_t n = strlen(name);
	if (n == 0 || memchr(name, '/', n))
		return -EINVAL;
	if (n > NAME_MAX)
		return -ENAMETOOLONG;
	size_t d = strlen(shm_dir), p = strlen(prefix);
	if (d + 1 + p + n >= PATH_MAX || p + n > NAME_MAX)
		return -EINVAL;
	memcpy(out, shm_dir, d);
	out[d] = '/';
	memcpy(out + d + 1, prefix, p);
	memcpy(out + d + 1 + p, name, n + 1);
	/* cordon run's directory, in its private TMPDIR, is made when first
	 * needed (run.c's private_shm); open to all, as /dev/shm is, within
	 * the umask. One given by hand (CORDON_SHM_DIR) must exist. */
	if (shm_dir_made_here) {
		int e = errno;
		syscall(SYS_mkdirat, AT_FDCWD, shm_dir, 01777);
		errno = e;
	}
	return 0;
}

/*
 * The semaphores this process mapped, for sem_close to know one: unmapping
 * what sem_close is handed blindly would unmap a page of the program's
 * own given a semaphore of sem_init (undefined, but glibc answers EINVAL).
 * Past SEMS_KEPT open at once, those beyond are unmapped when closed,
 * unchecked. Lock-free: sem_open may run in any thread, and a child of
 * fork inherits the slots with the mappings.
 */
#define SEMS_KEPT 256
static _Atomic(void *) sems[SEMS_KEPT];
static atomic_bool sems_overflowed;

/* Map the semaphore of @fd (closed): errno @saved when it works. */
static void *sem_map(int fd, int saved)
{
	void *p = mmap(NULL, sizeof(sem_t), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	int e = p == MAP_FAILED ? errno : saved;

	syscall(SYS_close, fd);
	errno = e;
	if (p == MAP_FAILED)
		return SEM_FAILED;
	for (size_t i = 0; i < SEMS_KEPT; i++) {
		void *empty = NULL;
		if (atomic_compare_exchange_strong(&sems[i], &empty, p))
			return p;
	}
	atomic_store(&sems_overflowed, true);
	return p;
}

int shim_sem_close(void *sem)
{
	bool ours = false;

	for (size_t i = 0; i < SEMS_KEPT && !ours; i++) {
		void *want = sem;
		ours = sem && atomic_compare_exchange_strong(&sems[i], &want, NULL);
	}
	if ((ours || atomic_load(&sems_overflowed)) && sem &&
	    syscall(SYS_munmap, sem, sizeof(sem_t)) == 0)
		return 0;
	errno = EINVAL;
	return -1;
}

/*
 * As glibc's: an existing semaphore is opened and mapped; a new one is
 * made whole under a name of its own in the same directory, then linked
 * to its name (O_EXCL: only if that is free), so that no process ever maps
 * one half made. The decision is the open's, by @sym; the calls after it
 * are made as decided.
 */
void *shim_sem_open(enum shim_sym sym, const char *path, int oflag, mode_t mode, unsigned value)
{
	static atomic_uint made;
	int create = oflag & (O_CREAT | O_EXCL), saved = errno;

	if ((oflag & O_CREAT) && value > SEM_VALUE_MAX) {
		errno = EINVAL;
		return SEM_FAILED;
	}
	switch (shim_begin_open(sym, AT_FDCWD, path, O_RDWR | create, mode, NULL)) {
	case SHIM_DENY:
		return SEM_FAILED;
	case SHIM_PASS:
	case SHIM_VIA:
	case SHIM_VERIFY:
	case SHIM_DONE:
		break;
	}
	for (int tries = 0; tries < 64; tries++) {
		if (create != (O_CREAT | O_EXCL)) {
			int fd = (int)syscall(SYS_openat, AT_FDCWD, path, O_RDWR | O_NOFOLLOW | O_CLOEXEC);
			if (fd >= 0)
				return sem_map(fd, saved);
			if (errno != ENOENT || !(oflag & O_CREAT))
				return SEM_FAILED;
		}
		char tmp[PATH_MAX];
		const char *slash = strrchr(path, '/');
		int len = snprintf(tmp, sizeof(tmp), "%.*s/.sem-%ld-%u", (int)(slash - path), path,
				   (long)syscall(SYS_getpid), atomic_fetch_add(&made, 1));
		if (len < 0 || (size_t)len >= sizeof(tmp)) {
			errno = ENAMETOOLONG;
			return SEM_FAILED;
		}
		int fd = (int)syscall(SYS_openat, AT_FDCWD, tmp,
				      O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
		if (fd < 0) {
			if (errno == EEXIST)
				continue;
			return SEM_FAILED;
		}
		sem_t init;
		sem_init(&init, 1, value);
		bool whole = syscall(SYS_write, fd, &init, sizeof(init)) == (long)sizeof(init);
		long r = whole ? syscall(SYS_linkat, AT_FDCWD, tmp, AT_FDCWD, path, 0) : -1;
		int e = whole ? errno : EIO;
		syscall(SYS_unlinkat, AT_FDCWD, tmp, 0);
		if (r == 0)
			return sem_map(fd, saved);
		syscall(SYS_close, fd);
		if (e != EEXIST || (oflag & O_EXCL)) {
			errno = e;
			return SEM_FAILED;
		}
		/* Made by another meanwhile: opened above. */
	}
	errno = EAGAIN;
	return SEM_FAILED;
}

int shim_remove_at(int pfd, const char *name)
{
	/* remove(3): unlink, or rmdir when it is a directory. */
	if (syscall(SYS_unlinkat, pfd, name, 0) == 0)
		return 0;
	if (errno != EISDIR)
		return -1;
	return (int)syscall(SYS_unlinkat, pfd, name, AT_REMOVEDIR);
}

static bool no_fchmodat2;

/*
 * chmod on a prepared target. Following a final symlink, the fast path
 * did not look at the last component: fchmodat2(AT_SYMLINK_NOFOLLOW)
 * changes it in one call when it is not a symlink and fails with
 * EOPNOTSUPP when it is; then where the link leads is decided as for any
 * path with a symlink on the way, and the call is made as the program
 * gave it. Kernels before 6.6 lack fchmodat2: one fstatat looks first.
 */
int shim_chmod_via(struct shim_target *t, int dirfd, const char *path, mode_t mode, int flags)
{
	int saved = errno;

	if (flags & AT_SYMLINK_NOFOLLOW)
		return REAL(fchmodat)(t->pfd, t->leaf, mode, flags);
	if (!no_fchmodat2) {
		long r = syscall(SYS_fchmodat2, t->pfd, t->leaf, mode, AT_SYMLINK_NOFOLLOW);
		if (r == 0 || (errno != EOPNOTSUPP && errno != ENOSYS))
			return (int)r;
		if (errno == ENOSYS)
			no_fchmodat2 = true;
		errno = saved;
	}
	struct stat st;
	if (syscall(SYS_newfstatat, t->pfd, t->leaf, &st, AT_SYMLINK_NOFOLLOW) != 0 ||
	    !S_ISLNK(st.st_mode)) {
		errno = saved;
		return (int)syscall(SYS_fchmodat, t->pfd, t->leaf, mode);
	}
	errno = saved;
	enum shim_class cls = shim_symbols[t->sym].cls;
	struct call c = { t->sym, shim_class_names[cls], flags, LOGF_AT, path };
	if (decide_resolved(&c, op_of(cls), cls, ROLE_ONLY, t->abs, t->abs, true, true, saved,
			    NULL) == SHIM_DENY)
		return -1;
	return (int)syscall(SYS_fchmodat, dirfd, path, mode);
}

const char *shim_proc_path(int pfd, const char *name, char buf[PATH_MAX])
{
	size_t n = 14, l = strlen(name);

	if (pfd == AT_FDCWD)
		return name;
	memcpy(buf, "/proc/self/fd/", 14);
	n += utoa(buf + n, (unsigned long)pfd);
	if (n + 1 + l >= PATH_MAX)
		return name;
	buf[n++] = '/';
	memcpy(buf + n, name, l + 1);
	return buf;
}

/* --- the environment of exec ---------------------------------------------- */

/* Does @env hold @entry ("NAME=value") exactly? */
static bool env_has(char *const *env, const char *entry)
{
	for (; env && *env; env++)
		if (strcmp(*env, entry) == 0)
			return true;
	return false;
}

static const char *env_get(char *const *env, const char *name, size_t nlen)
{
	for (; env && *env; env++)
		if (strncmp(*env, name, nlen) == 0 && (*env)[nlen] == '=')
			return *env + nlen + 1;
	return NULL;
}

/* Is lib_path one of the entries of the LD_PRELOAD list @v? */
static bool preload_has_us(const char *v)
{
	size_t n = strlen(lib_path);

	while (v && *v) {
		size_t l = strcspn(v, ": ");
		if (l == n && memcmp(v, lib_path, n) == 0)
			return true;
		v += l;
		v += strspn(v, ": ");
	}
	return false;
}

struct env_block {
	size_t size;
	char *entries[];
};

/* saved_env[@i], or @own in place of the policy descriptor's entry. */
static const char *saved_or_own(size_t i, const char *own)
{
	return own && strncmp(saved_env[i], "CORDON_POLICY_FD=", 17) == 0 ? own : saved_env[i];
}

char **shim_env(char *const *envp)
{
	char *const *env = envp ? envp : environ;
	const char *preload, *own;
	char own_buf[40];
	size_t count = 0, extra = 0, i, k = 0;
	bool need_preload, missing = false;

	if (atomic_load(&state) != 2 || !*lib_path)
		return (char **)env;
	own = hand_on_policy(own_buf);
	preload = env_get(env, "LD_PRELOAD", 10);
	need_preload = !preload_has_us(preload);
	for (i = 0; i < n_saved_env; i++)
		if (!env_has(env, saved_or_own(i, own)))
			missing = true;
	if (!need_preload && !missing)
		return (char **)env;

	for (char *const *e = env; e && *e; e++)
		count++;
	if (need_preload)
		extra = 11 + strlen(lib_path) + 1 + (preload ? strlen(preload) : 0) + 1;
	if (own)
		extra += strlen(own) + 1;
	size_t size = sizeof(struct env_block) + (count + n_saved_env + 2) * sizeof(char *) + extra;
	struct env_block *b = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
				   -1, 0);
	if (b == MAP_FAILED)
		return (char **)env;
	b->size = size;
	char *strings = (char *)&b->entries[count + n_saved_env + 2];
	if (need_preload) {
		char *s = strings;
		memcpy(s, "LD_PRELOAD=", 11);
		s += 11;
		s = stpcpy(s, lib_path);
		if (preload && *preload) {
			*s++ = ':';
			s = stpcpy(s, preload);
		}
		b->entries[k++] = strings;
		strings = s + 1;
	}
	if (own) {
		/* the block outlives this frame; own_buf does not */
		strcpy(strings, own);
		own = strings;
	}
	for (i = 0; i < n_saved_env; i++)
		b->entries[k++] = (char *)saved_or_own(i, own);
	for (char *const *e = env; e && *e; e++) {
		if (need_preload && strncmp(*e, "LD_PRELOAD=", 11) == 0)
			continue;
		if (strncmp(*e, "CORDON_", 7) == 0) {
			/* the saved value wins over one the program changed */
			size_t nl = strcspn(*e, "=");
			bool saved_name = false;
			for (i = 0; i < n_saved_env; i++)
				if (strncmp(saved_env[i], *e, nl + 1) == 0)
					saved_name = true;
			if (saved_name)
				continue;
		}
		b->entries[k++] = *e;
	}
	b->entries[k] = NULL;
	return b->entries;
}

void shim_env_free(char **env, char *const *envp)
{
	char *const *orig = envp ? envp : environ;

	if ((char *const *)env == orig)
		return;
	int e = errno;
	struct env_block *b = (struct env_block *)(void *)((char *)env -
							   offsetof(struct env_block, entries));
	munmap(b, b->size);
	errno = e;
}
