/*
 * run.c - `cordon run`, `cordon status`, `cordon selftest`: the supervisor.
 *
 * cordon stays the program's parent. It compiles the policy into a sealed
 * memfd the shim reads (the program cannot widen it), builds the program's
 * environment, forks; the child applies the kernel layer, proves it refuses
 * (one write outside the roots, one fork when subprocesses are forbidden)
 * and execs. The parent forwards signals sent to it, ends the whole tree
 * on timeout (it is a subreaper: double forks and setsid come back to it),
 * leaves no process behind, and exits with the program's status.
 */
#include "run.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <ftw.h>
#include <limits.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <poll.h>
#include <sched.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../jail/jail.h"
#include "../shim/fd.h"
#include "../shim/log.h"
#include "../shim/path.h"
#include "explain.h"
#include "lastrun.h"
#include "tally.h"
#include "util.h"

#ifndef CORDON_LIBDIR
#define CORDON_LIBDIR "/usr/local/lib"
#endif

#define KILL_GRACE_SECONDS 2

extern char **environ;

/* --- what the host enforces ---------------------------------------------- */

struct layers {
	const struct jail_backend *be;
	struct jail_host host;
	struct jail_feature f[JAIL_FEATURES_MAX];
	size_t n;
};

static void probe(const struct policy *pol, bool full, struct layers *l)
{
	memset(l, 0, sizeof(*l));
	l->be = jail_backend(pol->backend.value);
	if (!l->be)
		return;
	if (l->be->probe(pol, full, &l->host) < 0)
		return;
	l->n = l->be->features(pol, &l->host, l->f, JAIL_FEATURES_MAX);
}

/*
 * shim no leaves the program to the kernel layer alone: refuse to run where
 * that is nothing at all, whatever on-unsupported says. mode warn turns the
 * kernel layer off and leaves the logging to the shim; backend noop (or one
 * this platform lacks) has no kernel layer.
 */
static void check_shim(const struct policy *pol, const struct layers *l)
{
	char shim[PATH_MAX + 256], other[PATH_MAX + 256];

	if (pol->shim.value || pol->mode.value == MODE_OFF)
		return;
	rule_describe(pol->shim.rule, shim, sizeof(shim));
	if (pol->mode.value == MODE_WARN) {
		rule_describe(pol->mode.rule, other, sizeof(other));
		die("unable to run: shim no and mode warn contradict each other: mode warn turns "
		    "the kernel layer off and relies on the shim alone, so nothing would be "
		    "logged (%s; %s)", shim, other);
	}
	if (!l->be || strcmp(l->be->name, "noop") == 0) {
		rule_describe(pol->backend.rule, other, sizeof(other));
		die("unable to run: shim no and backend %s leave nothing to enforce the policy: "
		    "%s, and no shim is loaded (%s; %s)", backend_names[pol->backend.value],
		    l->be ? "noop has no kernel layer" : "that backend is not available here",
		    shim, other);
	}
}

/*
 * Refuse, warn or go on when the policy asks for what no kernel layer here
 * enforces, as on-unsupported says. Only mode enforce asks the kernel for
 * anything.
 */
static void check_supported(const struct policy *pol, const struct layers *l)
{
	int on = pol->on_unsupported.value;
	size_t missing = 0;

	if (pol->mode.value != MODE_ENFORCE)
		return;
	if (!l->be) {
		if (on == UNSUPPORTED_ERROR)
			die("unable to run: backend '%s' is not available on this platform (hint: "
			    "--backend noop --on-unsupported warn runs with the shim alone)",
			    backend_names[pol->backend.value]);
		if (on == UNSUPPORTED_WARN)
			warn("backend '%s' is not available: running with the shim alone, which "
			     "a static binary or a raw system call bypasses",
			     backend_names[pol->backend.value]);
		return;
	}
	for (size_t i = 0; i < l->n; i++) {
		if (!l->f[i].required || l->f[i].kernel)
			continue;
		missing++;
		if (on == UNSUPPORTED_ERROR)
			warn("no kernel layer here enforces: %s%s%s%s", l->f[i].feature,
			     l->host.why_not[0] ? " (" : "", l->host.why_not[0] ? l->host.why_not : "",
			     l->host.why_not[0] ? ")" : "");
		else if (on == UNSUPPORTED_WARN && pol->shim.value)
			warn("not enforced by the kernel here, only by the shim: %s", l->f[i].feature);
		else if (on == UNSUPPORTED_WARN)
			warn("not enforced here at all (no kernel layer, and shim no): %s",
			     l->f[i].feature);
	}
	if (missing && on == UNSUPPORTED_ERROR)
		die("unable to run: the policy asks for %zu thing%s no kernel layer here enforces "
		    "(see cordon status; --on-unsupported warn runs anyway)",
		    missing, missing == 1 ? "" : "s");
}

int cmd_status(const struct policy *pol, FILE *out)
{
	struct layers l;
	struct utsname u;

	if (uname(&u) < 0)
		snprintf(u.release, sizeof(u.release), "?");
	probe(pol, true, &l);
	fprintf(out, "kernel          %s\n", u.release);
	fprintf(out, "backend         %s\n", l.be ? l.be->name : "(none on this platform)");
	if (l.be && strcmp(l.be->name, "landlock") == 0) {
		if (l.host.landlock_abi)
			fprintf(out, "landlock        ABI %d\n", l.host.landlock_abi);
		else
			fprintf(out, "landlock        no: %s\n", l.host.why_not);
		fprintf(out, "seccomp         %s\n", l.host.seccomp ? "yes" : "no");
		fprintf(out, "user namespaces %s\n", l.host.userns ? "yes" : "no");
	}
	fprintf(out, "mode            %s\n", run_mode_names[pol->mode.value]);
	fprintf(out, "shim            %s\n\n", bool_names[pol->shim.value]);
	fprintf(out, "%-40s %-20s %s\n", "feature (* = this policy asks for it)", "kernel layer",
		"shim");
	for (size_t i = 0; i < l.n; i++) {
		const char *shim = l.f[i].shim;
		if (shim && !pol->shim.value)
			shim = "off (shim no)";
		fprintf(out, "%c %-38s %-20s %s\n", l.f[i].required ? '*' : ' ', l.f[i].feature,
			l.f[i].kernel ? l.f[i].kernel : "-", shim ? shim : "-");
	}
	return 0;
}

/* --- what the child gets -------------------------------------------------- */

/* libcordon.so: next to an uninstalled build/cordon, else installed. */
/* libcordon.so: beside an uninstalled build/cordon, in ../lib/cordon of a
 * relocated install, else where `make install` put it. */
static void find_shim(char out[PATH_MAX])
{
	char dir[PATH_MAX], norm[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", dir, sizeof(dir) - 1);
	struct stat st;

	if (n > 0) {
		dir[n] = '\0';
		char *slash = strrchr(dir, '/');
		if (slash)
			*slash = '\0';
		static const char *const beside[] = { "/libcordon.so", "/../lib/cordon/libcordon.so" };
		for (size_t i = 0; i < sizeof(beside) / sizeof(beside[0]); i++) {
			char cand[PATH_MAX + 32];
			snprintf(cand, sizeof(cand), "%s%s", dir, beside[i]);
			if (path_normalize(cand, norm) > 0 && stat(norm, &st) == 0) {
				memcpy(out, norm, strlen(norm) + 1);
				return;
			}
		}
	}
	snprintf(out, PATH_MAX, "%s/cordon/libcordon.so", CORDON_LIBDIR);
	if (stat(out, &st) != 0)
		die("unable to find libcordon.so (looked in %s, %s/../lib/cordon and %s/cordon)",
		    n > 0 ? dir : "cordon's directory", n > 0 ? dir : "it", CORDON_LIBDIR);
}

/* The compiled policy in a memfd, inherited by the program unless
 * @cloexec (shim no: only the audit's digest reads it), and sealed by the
 * child before it execs (policy_seal). Lines starting "#@" come first and
 * tell the shim how it runs, not what the policy is: @kernel_log, cordon
 * reads the kernel layer's own log (kaudit.c), so the shim hands the
 * refusals it puts down to the kernel layer to cordon rather than saying
 * them (kernel_held); and whether cordon's supervisor answers the program's
 * metadata calls and connects, which the child alone learns
 * (SUPERVISOR_LINE). */
#define SUPERVISOR_LINE "#@supervisor no \n"
#define SUPERVISOR_FLAG 13  /* the offset of "no " in it, "yes" when it does */
static int policy_memfd(const struct policy *pol, bool cloexec, bool kernel_log, const char *shm)
{
	int fd = (int)syscall(SYS_memfd_create, "cordon-policy",
			      MFD_ALLOW_SEALING | (cloexec ? MFD_CLOEXEC : 0));
	FILE *f;

	if (fd < 0)
		die_errno("unable to create the policy descriptor");
	f = fdopen(dup(fd), "w");
	if (!f || fputs(SUPERVISOR_LINE, f) < 0 || (kernel_log && fputs("#@kernel-audit\n", f) < 0) ||
	    (shm && fprintf(f, "#@shm-dir %s\n", shm) < 0) || policy_serialize(pol, f) < 0 ||
	    fclose(f) != 0)
		die_errno("unable to write the policy descriptor");
	return fd_move_high(fd, cloexec);
}

/* In the child, before exec: the seccomp filter loaded with a listener of
 * cordon's own (@supervised; none under an outer supervisor, a cordon run
 * inside cordon run), the shim leaves metadata calls and connects to it
 * (shim.c's supervised); then the policy is sealed for good. */
static int policy_seal(int fd, bool supervised)
{
	if (supervised && pwrite(fd, "yes", 3, SUPERVISOR_FLAG) != 3)
		return -1;
	return fcntl(fd, F_ADD_SEALS, F_SEAL_WRITE | F_SEAL_GROW | F_SEAL_SHRINK | F_SEAL_SEAL);
}

static bool matches(const struct strlist *l, const char *name)
{
	for (size_t i = 0; i < l->n; i++)
		if (fnmatch(l->v[i], name, 0) == 0)
			return true;
	return false;
}

/*
 * The program's environment: env clean passes env-pass only; env inherit
 * passes everything but env-deny (env-pass wins over both). PATH always
 * passes. CORDON_* and LD_PRELOAD are cordon's to set: the shim first in
 * LD_PRELOAD, then the caller's; with @shim NULL (shim no) the caller's
 * LD_PRELOAD as it was, and no policy descriptor.
 */
static char **build_env(const struct policy *pol, const char *shim, int policy_fd,
			int event_fd, const char *tmpdir)
{
	size_t n = 0, k = 0;
	const char *preload = NULL;
	char **env;

	for (char **e = environ; *e; e++)
		n++;
	env = calloc(n + 5, sizeof(*env));
	if (!env)
		die("unable to build the environment: out of memory");
	for (char **e = environ; *e; e++) {
		char name[256];
		size_t nl = strcspn(*e, "=");
		if (nl >= sizeof(name))
			continue;
		memcpy(name, *e, nl);
		name[nl] = '\0';
		if (strncmp(name, "CORDON_", 7) == 0)
			continue;
		if (strcmp(name, "LD_PRELOAD") == 0) {
			preload = *e + nl + 1;
			continue;
		}
		if (tmpdir && strcmp(name, "TMPDIR") == 0)
			continue;
		bool keep = pol->env.value == ENV_CLEAN ? matches(&pol->env_pass, name)
							: !matches(&pol->env_deny, name) ||
								  matches(&pol->env_pass, name);
		if (keep || strcmp(name, "PATH") == 0)
			env[k++] = *e;
	}
	if ((shim && asprintf(&env[k++], "LD_PRELOAD=%s%s%s", shim, preload && *preload ? ":" : "",
			      preload ? preload : "") < 0) ||
	    (shim && asprintf(&env[k++], "CORDON_POLICY_FD=%d", policy_fd) < 0) ||
	    (shim && event_fd >= 0 && asprintf(&env[k++], "CORDON_EVENT_FD=%d", event_fd) < 0) ||
	    (!shim && preload && asprintf(&env[k++], "LD_PRELOAD=%s", preload) < 0) ||
	    (tmpdir && asprintf(&env[k++], "TMPDIR=%s", tmpdir) < 0))
		die("unable to build the environment: out of memory");
	env[k] = NULL;
	return env;
}

/* --- private TMPDIR ------------------------------------------------------- */

static char private_tmp[PATH_MAX];

static void make_private_tmp(struct policy *pol, const char *tmpdir)
{
	char tmpl[PATH_MAX], res[PATH_MAX];

	if (snprintf(tmpl, sizeof(tmpl), "%s/cordon.XXXXXX", tmpdir) >= (int)sizeof(tmpl))
		die("unable to create the private TMPDIR: %s is too long", tmpdir);
	if (!mkdtemp(tmpl))
		die_errno("unable to create the private TMPDIR in %s", tmpdir);
	if (path_resolve(tmpl, res, PATH_MISSING_ERROR) < 0)
		die_errno("unable to resolve %s", tmpl);
	memcpy(private_tmp, res, strlen(res) + 1);
	if (pathset_add(&pol->paths, private_tmp, PATH_WRITE, pol->private_tmp.rule) < 0)
		die("unable to add the private TMPDIR to the policy");
	pol->n_write++;
}

/*
 * private-ipc: the directory of the run's POSIX shared memory and named
 * semaphores, which the shim makes there rather than in the host's
 * /dev/shm (shim.c's shim_ipc_path): in the private TMPDIR (a write root,
 * removed with it), made by the shim when first needed, so that a program
 * that uses none finds its TMPDIR empty. NULL without one: the shim makes
 * them in /dev/shm, where the policy decides.
 */
static const char *private_shm(const struct policy *pol)
{
	static char dir[PATH_MAX];

	/* One line of the policy descriptor: a TMPDIR with a newline in its
	 * name keeps /dev/shm. */
	if (!pol->private_ipc.value || !private_tmp[0] || !pol->shim.value ||
	    strchr(private_tmp, '\n'))
		return NULL;
	if (snprintf(dir, sizeof(dir), "%s/.cordon-shm", private_tmp) >= (int)sizeof(dir))
		die("the private TMPDIR %s is too long", private_tmp);
	return dir;
}

static int remove_entry(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	return type == FTW_DP ? rmdir(path) : unlink(path);
}

static void remove_private_tmp(void)
{
	if (private_tmp[0] &&
	    nftw(private_tmp, remove_entry, 16, FTW_DEPTH | FTW_PHYS | FTW_MOUNT) != 0)
		warn_errno("unable to remove the private TMPDIR %s", private_tmp);
}

/* --- the process tree ------------------------------------------------------ */

/* Send @sig to every process whose ancestry reaches cordon. Returns how
 * many there were. cordon is a subreaper, so orphans come back to it. */
static int kill_tree(int sig)
{
	enum { MAXP = 65536 };
	static pid_t pid_of[MAXP], ppid_of[MAXP];
	size_t n = 0;
	pid_t self = getpid();
	int hit = 0;
	DIR *d = opendir("/proc");
	struct dirent *de;

	if (!d)
		return 0;
	while ((de = readdir(d)) && n < MAXP) {
		char path[300], buf[512];
		if (de->d_name[0] < '0' || de->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/stat", de->d_name);
		int fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			continue;
		ssize_t r = read(fd, buf, sizeof(buf) - 1);
		close(fd);
		if (r <= 0)
			continue;
		buf[r] = '\0';
		char *close_paren = strrchr(buf, ')');
		int ppid;
		if (!close_paren || sscanf(close_paren + 2, "%*c %d", &ppid) != 1)
			continue;
		pid_of[n] = atoi(de->d_name);
		ppid_of[n++] = ppid;
	}
	closedir(d);
	for (size_t i = 0; i < n; i++) {
		pid_t p = ppid_of[i];
		for (int depth = 0; p > 1 && p != self && depth < 4096; depth++) {
			size_t j;
			for (j = 0; j < n && pid_of[j] != p; j++)
				;
			p = j < n ? ppid_of[j] : 0;
		}
		if (p == self) {
			kill(pid_of[i], sig);
			hit++;
		}
	}
	return hit;
}

static void reap_all(void)
{
	while (waitpid(-1, NULL, WNOHANG) > 0)
		;
}

/* End everything below cordon: SIGTERM, a grace period, SIGKILL. */
static void end_tree(const sigset_t *set)
{
	struct timespec grace = { KILL_GRACE_SECONDS, 0 };
	siginfo_t info;

	/* A subreaper with no child left has no descendant left: every
	 * orphan would have become its child. Spares a scan of /proc. */
	reap_all();
	if (waitid(P_ALL, 0, &info, WEXITED | WNOHANG | WNOWAIT) < 0 && errno == ECHILD)
		return;
	if (!kill_tree(SIGTERM))
		return;
	while (sigtimedwait(set, &info, &grace) > 0 || errno == EINTR) {
		reap_all();
		if (!kill_tree(0))
			return;
	}
	while (kill_tree(SIGKILL)) {
		struct timespec tick = { 0, 10 * 1000 * 1000 };
		nanosleep(&tick, NULL);
		reap_all();
	}
	reap_all();
}

/* --- the child ------------------------------------------------------------ */

struct report {
	int stage;        /* 0 jail, 1 self-test, 2 exec */
	int err;
	char msg[240];
};

static void report(int fd, int stage, int err, const char *msg)
{
	struct report r = { stage, err, "" };

	snprintf(r.msg, sizeof(r.msg), "%s", msg);
	(void)!write(fd, &r, sizeof(r));
}

/* Directories outside every write root, for the self-test's write: an
 * O_TMPFILE there creates nothing that outlives the probe, even if the jail
 * failed, and costs no mkdir (a mkdir on a journaled /tmp took 5 ms). */
static char *probe_dirs[4];  /* on the heap: 4 PATH_MAX arrays would be 4 page faults */
static size_t n_probe_dirs;

static void find_probe_dirs(const struct policy *pol)
{
	const char *bases[] = { "/", "/dev/shm", "/tmp", "/var/tmp" };

	for (size_t i = 0; i < sizeof(bases) / sizeof(bases[0]); i++) {
		char res[PATH_MAX];
		struct decision d;
		if (path_resolve(bases[i], res, PATH_MISSING_ERROR) < 0)
			continue;
		policy_decide_path(pol, OP_WRITE, res, strlen(res), &d);
		if (!d.allow && (probe_dirs[n_probe_dirs] = strdup(res)))
			n_probe_dirs++;
	}
}

/*
 * In the child, under the jail: prove what was applied. A write outside the
 * roots must be refused when Landlock was applied (and there is somewhere
 * outside the roots at all), a fork when seccomp was applied and
 * subprocesses are forbidden. Raw system calls: the shim is not loaded in
 * cordon itself. Returns NULL, or what went through.
 */
static const char *selftest(const struct policy *pol, const struct jail_host *h)
{
	for (size_t i = 0; h->landlock_abi && i < n_probe_dirs; i++) {
		long fd = syscall(SYS_openat, AT_FDCWD, probe_dirs[i],
				  O_TMPFILE | O_WRONLY | O_CLOEXEC, 0600);
		if (fd >= 0) {
			close((int)fd);
			return "a write outside the write roots went through";
		}
		if (errno == EACCES || errno == EPERM)
			break;  /* refused: proven */
		/* EOPNOTSUPP (no O_TMPFILE on this file system): try the next */
	}
	if (h->seccomp && !pol->subprocess.value) {
		pid_t pid = (pid_t)syscall(SYS_fork);
		if (pid == 0)
			_exit(0);
		if (pid > 0) {
			waitpid(pid, NULL, 0);
			return "a fork went through although subprocesses are forbidden";
		}
	}
	return NULL;
}

/* One byte and one descriptor: the message the child hands the
 * supervisor's descriptor over in (SCM_RIGHTS on a datagram socket). */
struct fd_msg {
	char byte;
	struct iovec iov;
	union {
		struct cmsghdr h;
		char buf[CMSG_SPACE(sizeof(int))];
	} u;
	struct msghdr m;
};

static void fd_msg_init(struct fd_msg *f)
{
	memset(f, 0, sizeof(*f));
	f->iov = (struct iovec){ &f->byte, 1 };
	f->m = (struct msghdr){ .msg_iov = &f->iov, .msg_iovlen = 1, .msg_control = f->u.buf,
				.msg_controllen = sizeof(f->u.buf) };
}

static int send_fd(int sock, int fd)
{
	struct fd_msg f;

	fd_msg_init(&f);
	struct cmsghdr *c = CMSG_FIRSTHDR(&f.m);
	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(c), &fd, sizeof(int));
	return sendmsg(sock, &f.m, MSG_NOSIGNAL) == 1 ? 0 : -1;
}

static int recv_fd(int sock)
{
	struct fd_msg f;
	int fd = -1;

	fd_msg_init(&f);
	if (recvmsg(sock, &f.m, MSG_DONTWAIT | MSG_CMSG_CLOEXEC) != 1)
		return -1;
	struct cmsghdr *c = CMSG_FIRSTHDR(&f.m);
	if (c && c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS)
		memcpy(&fd, CMSG_DATA(c), sizeof(int));
	return fd;
}

/* execve @path; a file the kernel cannot run (ENOEXEC: a script without a
 * "#!" line) goes to /bin/sh, as POSIX asks of execvp, as glibc's and every
 * shell do, and musl's (cordon's C library) does not. */
static void exec_file(const char *path, char **argv, char **envp)
{
	size_t argc = 0;

	execve(path, argv, envp);
	if (errno != ENOEXEC)
		return;
	while (argv[argc])
		argc++;
	/* Cordon's memory, which the child shares until it execs: cordon is
	 * suspended and single-threaded meanwhile (spawn_child). */
	char **sh = malloc((argc + 2) * sizeof(*sh));
	if (sh) {
		sh[0] = (char *)"sh";
		sh[1] = (char *)path;
		memcpy(sh + 2, argv + 1, argc * sizeof(*sh));  /* argv[1] to its NULL */
		execve("/bin/sh", sh, envp);
		free(sh);
	}
	errno = ENOEXEC;
}

/* execvpe(argv[0], argv, envp) with exec_file's fallback: a name without
 * a slash is looked for in cordon's PATH, as glibc's execvpe does; a file
 * found but refused (EACCES) is said if nothing later is found. */
static void exec_program(char **argv, char **envp)
{
	const char *file = argv[0], *p = getenv("PATH");
	bool denied = false;

	if (!*file) {
		errno = ENOENT;
		return;
	}
	if (strchr(file, '/')) {
		exec_file(file, argv, envp);
		return;
	}
	if (!p)
		p = "/bin:/usr/bin";  /* glibc's, when PATH is unset */
	for (;;) {
		const char *end = strchrnul(p, ':');
		char path[PATH_MAX];
		/* An empty element is the working directory. */
		int n = snprintf(path, sizeof(path), "%.*s%s%s", (int)(end - p), p,
				 end > p ? "/" : "", file);
		if (n >= 0 && (size_t)n < sizeof(path)) {
			exec_file(path, argv, envp);
			if (errno == EACCES)
				denied = true;
			else if (errno != ENOENT && errno != ENOTDIR && errno != ESTALE)
				return;  /* found, and failing for a reason of its own */
		}
		if (!*end)
			break;
		p = end + 1;
	}
	errno = denied ? EACCES : ENOENT;
}

/* child() and child_main() run on spawn_child()'s stack, which ASan does not
 * know: instrumented, every _exit would first ask it to unpoison from there
 * to the top of the main thread's stack, which it refuses with a warning on
 * the program's stderr (SANITIZE=1). What they call is instrumented still. */
__attribute__((no_sanitize_address))
static void child(const struct policy *pol, const struct layers *l, char **argv, char **envp,
		  const sigset_t *oldmask, int out, int sup, const int stdio[3], int policy_fd)
{
	char err[256] = "";
	int supervise = -1;

	for (int fd = 1; fd <= 2; fd++)
		if (stdio[fd] >= 0 && dup2(stdio[fd], fd) < 0)
			_exit(EXIT_CORDON);

	/* cordon installs no handlers: the program inherits the dispositions
	 * cordon was given (an ignored SIGINT stays ignored), and its mask. */
	sigprocmask(SIG_SETMASK, oldmask, NULL);
	if (pol->mode.value == MODE_ENFORCE && l->be) {
		int r = l->be->apply(pol, &l->host, &supervise, err, sizeof(err));
		if (r) {
			report(out, 0, -r, err);
			_exit(EXIT_CORDON);
		}
		if (err[0])
			dprintf(STDERR_FILENO, "cordon: warning: %s\n", err);
		/* The program must never hold the supervisor's descriptor: it
		 * could answer its own calls. */
		if (supervise >= 0) {
			if (send_fd(sup, supervise) < 0) {
				report(out, 0, errno, "unable to hand the supervisor its descriptor");
				_exit(EXIT_CORDON);
			}
			close(supervise);
		}
		if (strcmp(l->be->name, "noop") != 0) {
			const char *bad = selftest(pol, &l->host);
			if (bad) {
				report(out, 1, 0, bad);
				_exit(EXIT_CORDON);
			}
		}
	}
	if (policy_seal(policy_fd, supervise >= 0) < 0) {
		report(out, 0, errno, "unable to seal the policy descriptor");
		_exit(EXIT_CORDON);
	}
	exec_program(argv, envp);
	report(out, 2, errno, argv[0]);
	_exit(errno == ENOENT || errno == ENOTDIR ? EXIT_NOTFOUND : EXIT_NOEXEC);
}

struct child_args {
	const struct policy *pol;
	const struct layers *l;
	char **argv, **envp;
	const sigset_t *oldmask;
	const int *report;  /* the pipe: [0] ours, [1] the child's */
	const int *sup;     /* the supervisor's socket pair, likewise */
	const int *stdio;
	int policy_fd;      /* sealed by the child (policy_seal) */
};

__attribute__((no_sanitize_address))
static int child_main(void *arg)
{
	const struct child_args *a = arg;

	close(a->report[0]);
	close(a->sup[0]);
	child(a->pol, a->l, a->argv, a->envp, a->oldmask, a->report[1], a->sup[1], a->stdio,
	      a->policy_fd);
	return EXIT_CORDON;  /* child() execs or exits */
}

/*
 * Start the child as posix_spawn does: it shares our memory on a stack of
 * its own, and we are suspended until it has exec'd the program or exited.
 * A fork would copy our page tables, and every page either side touched
 * before the exec would fault and be copied: most of cordon's own cost at
 * start-up on machines where a page fault is dear. Safe because cordon is
 * single-threaded and suspended: no lock is held while the child runs, and
 * what the child changes in memory (its allocations, errno) is consistent
 * when we resume. Descriptors are not shared (no CLONE_FILES).
 */
static pid_t spawn_child(struct child_args *a)
{
	const size_t size = 1 << 20;
	void *stack = mmap(NULL, size, PROT_READ | PROT_WRITE,
			   MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
	pid_t pid;

	if (stack == MAP_FAILED)
		die_errno("unable to map the child's stack");
	pid = clone(child_main, (char *)stack + size, CLONE_VM | CLONE_VFORK | SIGCHLD, a);
	if (pid < 0)
		die_errno("unable to start the child");
	munmap(stack, size);
	return pid;
}

/* --- the supervisor ---------------------------------------------------------- */

static int exit_status(int status)
{
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	if (WIFSIGNALED(status)) {
		/* Die the same way, so our parent sees what the program did;
		 * without a core of our own. */
		int sig = WTERMSIG(status);
		struct rlimit no_core = { 0, 0 };
		setrlimit(RLIMIT_CORE, &no_core);
		signal(sig, SIG_DFL);
		sigset_t s;
		sigemptyset(&s);
		sigaddset(&s, sig);
		sigprocmask(SIG_UNBLOCK, &s, NULL);
		raise(sig);
		return 128 + sig;
	}
	return EXIT_CORDON;
}

/* --- audit events ------------------------------------------------------------ */

/*
 * With audit-file, one JSON object a line ("v" is the format version):
 *   {"v":1,"event":"started","time":"...","pid":N,"argv":[...],
 *    "policy_digest":"fnv1a64:...","backend":"landlock","landlock_abi":7,"mode":"enforce"}
 *   {"v":1,"event":"completed","time":"...","pid":N,"status":0,"signal":null,
 *    "duration_ms":12,"denies":3}            (denies: null unless log-file is a path)
 *   {"v":1,"event":"cancelled","time":"...","pid":N,"reason":"timeout"|"signal",
 *    "signal":15,"duration_ms":1000}
 */
struct audit {
	int fd;                      /* -1: no audit */
	struct timespec start;
	char digest[32];
};

static void audit_open(const struct policy *pol, int policy_fd, struct audit *a)
{
	uint64_t h = 14695981039346656037ULL;
	char buf[4096];
	ssize_t n;
	off_t off = 0;

	a->fd = -1;
	clock_gettime(CLOCK_MONOTONIC, &a->start);
	if (!pol->audit_file.value)
		return;
	if (strncmp(pol->audit_file.value, "fd:", 3) == 0)
		a->fd = atoi(pol->audit_file.value + 3);
	else
		a->fd = open(pol->audit_file.value,
			     O_WRONLY | O_APPEND | O_CREAT | O_NOCTTY | O_CLOEXEC, 0600);
	if (a->fd < 0)
		die_errno("unable to open the audit file %s", pol->audit_file.value);
	/* The digest of what the shim is handed: the compiled policy, not
	 * the lines before it about this run (policy_memfd). */
	while ((n = pread(policy_fd, buf, sizeof(buf), off)) > 0) {
		ssize_t i = 0;
		while (off == 0 && i + 1 < n && buf[i] == '#' && buf[i + 1] == '@') {
			const char *e = memchr(buf + i, '\n', (size_t)(n - i));
			if (!e)
				break;
			i = e - buf + 1;
		}
		for (; i < n; i++)
			h = (h ^ (unsigned char)buf[i]) * 1099511628211ULL;
		off += n;
	}
	snprintf(a->digest, sizeof(a->digest), "fnv1a64:%016llx", (unsigned long long)h);
}

static void audit_emit(const struct audit *a, const char *event, const char *fields)
{
	char line[8192], stamp[32];
	struct timespec now;
	struct tm tm;
	time_t t = time(NULL);

	if (a->fd < 0)
		return;
	clock_gettime(CLOCK_MONOTONIC, &now);
	gmtime_r(&t, &tm);
	strftime(stamp, sizeof(stamp), "%Y-%m-%dT%H:%M:%SZ", &tm);
	int n = snprintf(line, sizeof(line),
			 "{\"v\":1,\"event\":\"%s\",\"time\":\"%s\",\"pid\":%d,"
			 "\"duration_ms\":%lld,%s}\n",
			 event, stamp, (int)getpid(),
			 (long long)(now.tv_sec - a->start.tv_sec) * 1000 +
				 (now.tv_nsec - a->start.tv_nsec) / 1000000,
			 fields);
	if (n > 0)
		(void)!write(a->fd, line, (size_t)n < sizeof(line) ? (size_t)n : sizeof(line) - 1);
}

static void audit_started(const struct audit *a, const struct policy *pol,
			  const struct layers *l, char **argv)
{
	char fields[6144], arg[1024];
	size_t off = 0;

	if (a->fd < 0)
		return;
	off += (size_t)snprintf(fields + off, sizeof(fields) - off, "\"argv\":[");
	for (int i = 0; argv[i] && off < sizeof(fields) - sizeof(arg) - 256; i++) {
		log_json_string(arg, sizeof(arg), argv[i]);
		off += (size_t)snprintf(fields + off, sizeof(fields) - off, "%s%s", i ? "," : "", arg);
	}
	snprintf(fields + off, sizeof(fields) - off,
		 "],\"policy_digest\":\"%s\",\"backend\":\"%s\",\"landlock_abi\":%d,"
		 "\"mode\":\"%s\"",
		 a->digest, l->be ? l->be->name : "none", l->host.landlock_abi,
		 run_mode_names[pol->mode.value]);
	audit_emit(a, "started", fields);
}

/* The log file, when it is a path: cordon keeps it and copies what the
 * shims write into a pipe, so the program can add lines but never truncate
 * or rewrite what was logged. */
struct log_relay {
	int file;    /* the log file, or -1 */
	int pipe;    /* the read end, or -1 */
	long denies; /* refusals seen going through */
	bool mid;    /* the last read ended inside a line */
	bool lines;  /* append whole lines only (the log file) */
	size_t held; /* the start of a line not yet appended */
	char part[LOG_LINE_MAX];
};

/* Count the refusals in @buf: lines "cordon: deny " or JSON "deny". */
static void count_denies(struct log_relay *r, const char *buf, size_t n)
{
	const char *p = buf, *end = buf + n;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t len = (size_t)((nl ? nl : end) - p);
		if (!r->mid && ((len >= 13 && memcmp(p, "cordon: deny ", 13) == 0) ||
				memmem(p, len, "\"decision\":\"deny\"", 18)))
			r->denies++;
		r->mid = !nl;
		p = nl ? nl + 1 : end;
	}
}

/* Append @n bytes to the relay's file, as one write when it can. */
static void relay_write(struct log_relay *r, const char *buf, size_t n)
{
	for (size_t off = 0; off < n;) {
		ssize_t w = write(r->file, buf + off, n - off);
		if (w <= 0)
			break;
		off += (size_t)w;
	}
}

/*
 * Copy what the pipe holds into the file. The log file is written in whole
 * lines, each write(2) ending with a newline: the file is opened O_APPEND,
 * so lines from several cordon runs (and this one's supervisor) sharing it
 * never interleave mid-line. A line's start waits in part[] for its end;
 * one longer than that (the program's noise, never a shim line) goes out
 * as it is.
 */
static void relay(struct log_relay *r)
{
	/* Static: only cordon's main loop relays. On the stack, its first
	 * bytes would lie 68 KiB down, a page fault at every start. */
	static char buf[65536 + LOG_LINE_MAX];
	ssize_t n;

	while (r->pipe >= 0) {
		memcpy(buf, r->part, r->held);
		n = read(r->pipe, buf + r->held, sizeof(buf) - LOG_LINE_MAX);
		if (n == 0)
			break;
		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno != EAGAIN)
				break;
			return;
		}
		count_denies(r, buf + r->held, (size_t)n);
		size_t len = r->held + (size_t)n, whole = len;
		if (r->lines) {
			const char *nl = memrchr(buf, '\n', len);
			whole = nl ? (size_t)(nl - buf) + 1 : 0;
			if (len - whole >= sizeof(r->part))
				whole = len;
		}
		relay_write(r, buf, whole);
		r->held = len - whole;
		memcpy(r->part, buf + whole, r->held);
	}
	/* The end: a last line without its newline gets one. */
	if (r->held) {
		r->part[r->held] = '\n';
		relay_write(r, r->part, r->held + 1);
		r->held = 0;
	}
	if (r->pipe >= 0) {
		close(r->pipe);
		r->pipe = -1;
	}
}

/* The path of regular file @fd (its stat in *@st) into @path: its length,
 * or -1 for any other kind of descriptor. */
static ssize_t file_path(int fd, struct stat *st, char path[PATH_MAX])
{
	char proc[48];

	if (fstat(fd, st) < 0 || !S_ISREG(st->st_mode))
		return -1;
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
	ssize_t n = readlink(proc, path, PATH_MAX - 1);
	if (n <= 0)
		return -1;
	path[n] = '\0';
	return n;
}

/*
 * stdout and stderr that are files outside every write root: the program
 * may write to the descriptors it was given, but opening them again by name
 * (/dev/stdout, `tee /dev/stderr`, /proc/self/fd/1) is a write outside the
 * roots that Landlock refuses. So the program gets pipes and cordon copies
 * into the files; stderr sharing stdout's file shares its pipe, keeping the
 * order of the lines. Terminals, pipes and files inside the roots are
 * handed over as they are.
 */
static void open_stdio_relays(const struct policy *pol, struct log_relay out[2], int child_fd[3])
{
	struct stat st1 = { 0 };

	child_fd[0] = child_fd[1] = child_fd[2] = -1;
	for (int fd = 1; fd <= 2; fd++) {
		struct log_relay *r = &out[fd - 1];
		char path[PATH_MAX];
		struct decision d;
		struct stat st;
		int p[2];

		r->file = r->pipe = -1;
		r->denies = 0;
		r->mid = false;
		r->lines = false;
		r->held = 0;
		ssize_t n = file_path(fd, &st, path);
		if (n < 0)
			continue;
		policy_decide_path(pol, OP_WRITE_DATA, path, (size_t)n, &d);
		if (d.allow)
			continue;
		if (fd == 2 && child_fd[1] >= 0 && st.st_dev == st1.st_dev && st.st_ino == st1.st_ino) {
			child_fd[2] = child_fd[1];
			continue;
		}
		if (pipe2(p, O_CLOEXEC) < 0)
			die_errno("unable to create a pipe for fd %d", fd);
		fcntl(p[0], F_SETFL, O_NONBLOCK);
		r->file = fd;
		r->pipe = p[0];
		child_fd[fd] = p[1];
		if (fd == 1)
			st1 = st;
	}
}

static void open_log_relay(struct policy *pol, struct log_relay *r)
{
	int p[2];

	r->file = r->pipe = -1;
	r->denies = 0;
	r->mid = false;
	r->lines = true;
	r->held = 0;
	if (!pol->log_file.value || strncmp(pol->log_file.value, "fd:", 3) == 0)
		return;
	r->file = open(pol->log_file.value, O_WRONLY | O_APPEND | O_CREAT | O_NOCTTY | O_CLOEXEC, 0600);
	if (r->file < 0)
		die_errno("unable to open the log file %s", pol->log_file.value);
	if (pipe(p) < 0)
		die_errno("unable to create the log pipe");
	p[1] = fd_move_high(p[1], false);
	fcntl(p[0], F_SETFD, FD_CLOEXEC);
	fcntl(p[0], F_SETFL, O_NONBLOCK);
	r->pipe = p[0];
	free(pol->log_file.value);
	if (asprintf(&pol->log_file.value, "fd:%d", p[1]) < 0)
		die("out of memory");
}

int run_verbose;

/* Where cordon's own log lines go: the log file, or stderr. */
static int log_dest(const struct log_relay *log)
{
	return log->file >= 0 ? log->file : STDERR_FILENO;
}

/* A call the kernel layer refused (the supervisor, or Landlock's own log):
 * logged like the shim's refusals (it comes from a program that went
 * around the shim, or one that bypassed it), and counted. With -vv, a call
 * the supervisor made is logged too. */
static void jail_said(const struct policy *pol, struct log_relay *log, struct tally *t,
		      const struct supervise_event *ev)
{
	char line[LOG_LINE_MAX], exe[PATH_MAX] = "?", link[64];
	const char *layer = ev->layer ? ev->layer : "supervisor";
	struct log_event le = {
		.verdict = ev->refused ? "deny" : "allow",
		.op = ev->op,
		.call = ev->call,
		.flags_kind = LOGF_NONE,
		.target = ev->path,
		.d = ev->why ? NULL : &ev->d,
		.reason = ev->why,
		.pid = ev->pid,
		.exe = ev->exe ? ev->exe : exe,
		.layer = layer,
		.mode = pol->mode.value,
	};

	if (ev->refused) {
		log->denies++;
		tally_add(t, "deny", ev->op, ev->path, ev->why ? REASON_OUTSIDE_ROOTS : ev->d.reason,
			  ev->why, layer);
	}
	if (pol->log.value == LOG_OFF || (!ev->refused && (run_verbose < 2 || !ev->d.allow || !ev->path[0])))
		return;
	if (!ev->exe) {
		snprintf(link, sizeof(link), "/proc/%d/exe", ev->pid);
		ssize_t n = readlink(link, exe, sizeof(exe) - 1);
		exe[n > 0 ? n : 1] = '\0';
	}
	int fd = log_dest(log);
	const char *nc = getenv("NO_COLOR");
	size_t len = log_format_event(line, sizeof(line), &le, pol,
				      log_format_for(pol->log_format.value, fd, nc && *nc));
	(void)!write(fd, line, len);
}

/* The kernel layer's own log (jail.h's log_open): its descriptor (-1:
 * none), and whether the kernel keeps one: yes (1), no (-1), not known
 * (0). Asking costs up to a twentieth of a run (kaudit.c), so it is known
 * from the first record read from it (the child's self-test), or asked
 * when a shim hands over a refusal of the kernel layer's (kernel_held), or
 * with -v; else never. */
struct kernel_log {
	int fd;
	int on;
	const struct policy *pol;
	const struct layers *l;
	struct log_relay *log;
};

static void kernel_log_unread(const char *why)
{
	if (run_verbose)
		warn("the kernel layer's refusals are not reported (only the shim's and the "
		     "supervisor's are): %s", why);
}

static void kernel_log_ask(struct kernel_log *k)
{
	char why[256];

	if (k->fd < 0 || k->on)
		return;
	k->on = k->l->be->log_enabled(why, sizeof(why)) == 0 ? 1 : -1;
	if (k->on < 0) {
		close(k->fd);
		k->fd = -1;
		kernel_log_unread(why);
	}
}

/* A refusal a shim put down to the kernel layer (tally_recv's keep): the
 * kernel's own log tells of it where one is kept and read; otherwise the
 * shim's line, which it left to us, is logged here, and it counts. */
static bool kernel_held(void *arg, const char *line)
{
	struct kernel_log *k = arg;

	kernel_log_ask(k);
	if (k->fd >= 0)
		return false;
	if (*line) {
		k->log->denies++;
		(void)!write(log_dest(k->log), line, strlen(line));
	}
	return true;
}

/* The kernel layer's refusals queued on k->fd, logged and counted like
 * the supervisor's; with @drain_ms, until the run's domain is gone or
 * nothing came for that long, then k->fd is closed. A denial's records
 * follow it within microseconds (the audit thread sends them); the wait
 * is what a run costs with audit on: 4-5 ms over 20 here. Not knowing
 * whether the kernel keeps a log at the end (no refusal read, none handed
 * over), what is queued is read and the wait is made only if that shows
 * one is kept: the run's last refusal could still be on its way then,
 * which asking would cost every run to rule out. */
#define KERNEL_LOG_DRAIN_MS 5
static void kernel_said(struct kernel_log *k, pid_t child, struct tally *t, int drain_ms)
{
	struct supervise_event ev;
	int r = 0;

	while (k->fd >= 0) {
		while ((r = k->l->be->log_read(k->fd, k->pol, child, &ev)) > 0) {
			k->on = 1;
			if (ev.refused)
				jail_said(k->pol, k->log, t, &ev);
		}
		if (r < 0 || !drain_ms || k->on <= 0 ||
		    poll(&(struct pollfd){ k->fd, POLLIN, 0 }, 1, drain_ms) <= 0)
			break;
	}
	if (k->fd >= 0 && (r < 0 || drain_ms)) {
		close(k->fd);
		k->fd = -1;
	}
}

static void free_env(char **envp)
{
	/* build_env's own strings are the last ones (LD_PRELOAD,
	 * CORDON_POLICY_FD, TMPDIR, as it made them): the rest belong to
	 * environ. */
	for (char **e = envp; *e; e++)
		if (strncmp(*e, "LD_PRELOAD=", 11) == 0 || strncmp(*e, "CORDON_POLICY_FD=", 17) == 0 ||
		    strncmp(*e, "CORDON_EVENT_FD=", 16) == 0 ||
		    (private_tmp[0] && strncmp(*e, "TMPDIR=", 7) == 0 &&
		     strcmp(*e + 7, private_tmp) == 0))
			free(*e);
	free(envp);
}

/* The summary file, opened before the program runs (so that it cannot
 * put something else there) and written at the end; -1: none. */
static int summary_open(const struct policy *pol)
{
	const char *v = pol->summary_file.value;
	int fd;

	if (!v)
		return -1;
	if (strcmp(v, "stderr") == 0)
		return STDERR_FILENO;
	if (strncmp(v, "fd:", 3) == 0)
		return atoi(v + 3);
	fd = open(v, O_WRONLY | O_CREAT | O_TRUNC | O_NOCTTY | O_CLOEXEC, 0644);
	if (fd < 0)
		die_errno("unable to open the summary file %s", v);
	return fd;
}

/*
 * Descriptors the program would inherit beyond stdin, stdout and stderr
 * (not close-on-exec: handed down by whoever started cordon, on purpose or
 * by a leak): one open for writing on a file outside the write roots, or
 * open on a file inside read-deny, would carry past the kernel layer what
 * it checks when a file is opened. Such a one is not passed on (it is made
 * close-on-exec here). Leaked ones are common (a test runner's), so cordon
 * says so at once only with -v, and otherwise when the program fails (the
 * failure may be its EBADF: run_summary). Pipes (a make jobserver's),
 * sockets, terminals, devices and directories are passed as they are, and
 * so is the log-file fd:N the shims write to.
 */
static struct {
	long fd;
	const char *why;
	char path[256];
} held_back[8];
static size_t n_held_back, n_held_back_all;

static void say_held_back(size_t i)
{
	warn("descriptor %ld (%s) %s: not passed to the program", held_back[i].fd,
	     held_back[i].path, held_back[i].why);
}

static void hold_back_descriptors(const struct policy *pol)
{
	static const char deleted[] = " (deleted)";
	/* log-file fd:N is the shims' to write to, in the program. */
	const char *lf = pol->log_file.value;
	long log_fd = lf && strncmp(lf, "fd:", 3) == 0 ? strtol(lf + 3, NULL, 10) : -1;
	DIR *dir = opendir("/proc/self/fd");
	struct dirent *e;

	if (!dir)
		return;
	while ((e = readdir(dir))) {
		char *end, path[PATH_MAX];
		long fd = strtol(e->d_name, &end, 10);
		struct stat st;
		struct decision d;
		const char *why = NULL;
		int fdfl;

		ssize_t n;
		if (*end || e->d_name[0] == '\0' || fd < 3 || fd > INT_MAX || fd == dirfd(dir) ||
		    fd == log_fd || (fdfl = fcntl((int)fd, F_GETFD)) < 0 || (fdfl & FD_CLOEXEC) ||
		    (n = file_path((int)fd, &st, path)) < 0)
			continue;
		if (n > (ssize_t)sizeof(deleted) && strcmp(path + n - sizeof(deleted) + 1, deleted) == 0) {
			/* A memfd (memfd_create) has no place: nothing to decide. */
			if (strncmp(path, "/memfd:", 7) == 0)
				continue;
			path[n -= (ssize_t)sizeof(deleted) - 1] = '\0';  /* unlinked: where it was */
		}
		int fl = fcntl((int)fd, F_GETFL);
		if (fl >= 0 && (fl & O_ACCMODE) != O_RDONLY && !(fl & O_PATH)) {
			policy_decide_path(pol, OP_WRITE_DATA, path, (size_t)n, &d);
			if (!d.allow)
				why = "is open for writing outside the write roots";
		}
		if (!why) {
			policy_decide_path(pol, OP_READ, path, (size_t)n, &d);
			if (!d.allow)
				why = "lies inside read-deny";
		}
		if (!why)
			continue;
		fcntl((int)fd, F_SETFD, fdfl | FD_CLOEXEC);
		n_held_back_all++;
		if (n_held_back == sizeof(held_back) / sizeof(held_back[0]))
			continue;
		held_back[n_held_back].fd = fd;
		held_back[n_held_back].why = why;
		size_t k = strnlen(path, sizeof(held_back[0].path) - 1);  /* the head of a long one */
		memcpy(held_back[n_held_back].path, path, k);
		held_back[n_held_back].path[k] = '\0';
		if (run_verbose)
			say_held_back(n_held_back);
		n_held_back++;
	}
	closedir(dir);
}

/*
 * What the run refused, at exit: the summary lines where the log goes
 * (log-summary yes), the JSON summary (summary FILE), and a one-line hint
 * when the program failed after refusals, whatever the settings: a build
 * that fails under cordon should say at once whether cordon had a hand in
 * it.
 */
static void run_summary(const struct policy *pol, const struct log_relay *log,
			const struct tally *t, int summary_fd, int status, bool timed_out)
{
	char brief[512], *text = NULL;
	size_t len = 0;
	int log_fd = log_dest(log);

	if (pol->log_file.value && strncmp(pol->log_file.value, "fd:", 3) == 0 && log->file < 0)
		log_fd = atoi(pol->log_file.value + 3);
	if (pol->shim.value && pol->log_summary.value && pol->log.value != LOG_OFF) {
		FILE *m = open_memstream(&text, &len);
		if (m) {
			tally_print(t, m);
			fclose(m);
			(void)!write(log_fd, text, len);
			free(text);
		}
	}
	tally_brief(t, brief, sizeof(brief));
	bool failed = timed_out || !WIFEXITED(status) || WEXITSTATUS(status) != 0;
	/* What mode warn let through cannot be why it failed. */
	if (failed && t->denied) {
		char how[64];
		if (timed_out)
			snprintf(how, sizeof(how), "ran out of time");
		else if (WIFSIGNALED(status))
			snprintf(how, sizeof(how), "was killed by signal %d", WTERMSIG(status));
		else
			snprintf(how, sizeof(how), "exited %d", WEXITSTATUS(status));
		warn("the program %s; %s, which may be why (%s; "
		     "cordon explain --last says how to allow each)", how, brief,
		     pol->log.value == LOG_OFF ? "log deny shows each one"
		     : log_fd != STDERR_FILENO ? "the log file shows each one"
		     : pol->log_summary.value ? "see the summary above"
		     : "--log-summary yes lists the most refused");
	}
	if (failed && n_held_back && !run_verbose) {
		for (size_t i = 0; i < n_held_back; i++)
			say_held_back(i);
		if (n_held_back_all > n_held_back)
			warn("and %zu descriptors more not passed", n_held_back_all - n_held_back);
	}
	if (summary_fd >= 0) {
		FILE *f = open_memstream(&text, &len);
		if (f) {
			tally_json(t, f, !timed_out && WIFEXITED(status) ? WEXITSTATUS(status) : -1,
				   !timed_out && WIFSIGNALED(status) ? WTERMSIG(status) : 0,
				   timed_out);
			fclose(f);
			if (write(summary_fd, text, len) != (ssize_t)len)
				warn_errno("unable to write the summary");
			free(text);
		}
		if (summary_fd > 2 && strncmp(pol->summary_file.value, "fd:", 3) != 0)
			close(summary_fd);
	}
}

/* The run, for `cordon explain --last`. Not being able to record it takes
 * nothing from the run: said only in the verbose log. */
static void record_run(const struct policy *pol, char **argv, const struct tally *t, int status,
		       bool timed_out)
{
	struct tally_run run = {
		.status = !timed_out && WIFEXITED(status) ? WEXITSTATUS(status) : -1,
		.signal = !timed_out && WIFSIGNALED(status) ? WTERMSIG(status) : 0,
		.timed_out = timed_out,
	};
	time_t now = time(NULL);
	struct tm tm;

	shell_join(argv, run.cmd, sizeof(run.cmd));
	if (!getcwd(run.cwd, sizeof(run.cwd)))
		snprintf(run.cwd, sizeof(run.cwd), "?");
	if (gmtime_r(&now, &tm))
		strftime(run.when, sizeof(run.when), "%Y-%m-%dT%H:%M:%SZ", &tm);
	snprintf(run.mode, sizeof(run.mode), "%s", run_mode_names[pol->mode.value]);
	if (lastrun_save(t, &run) < 0 && pol->log.value == LOG_ALL)
		warn_errno("unable to record the run for explain --last");
}

int cmd_run(struct policy *pol, char **argv, const char *tmpdir, struct tally *keep)
{
	static const int forwarded[] = { SIGHUP, SIGINT, SIGQUIT, SIGTERM, SIGUSR1, SIGUSR2,
					 SIGWINCH, SIGCONT, SIGTSTP };
	char shim[PATH_MAX];
	struct layers l;
	struct log_relay log;
	sigset_t set, old;
	int pipefd[2], status = 0, sfd;
	pid_t pid;

	if (!argv || !argv[0])
		die("unable to run: no program given (cordon run [OPTIONS] -- PROGRAM [ARGS])");
	if (pol->mode.value == MODE_ENFORCE)
		hold_back_descriptors(pol);
	probe(pol, false, &l);
	check_shim(pol, &l);
	check_supported(pol, &l);
	if (pol->mode.value == MODE_WARN && !keep)
		warn("mode warn: the kernel layer is off; refusals are logged by the shim, not enforced");
	if (pol->log.value == LOG_ALL && pol->mode.value == MODE_ENFORCE && l.be) {
		/* The verbose log says which layers enforce, before anything runs. */
		if (strcmp(l.be->name, "landlock") == 0)
			warn("kernel layer: Landlock %s%d, seccomp %s, %s", l.host.landlock_abi ? "ABI " : "",
			     l.host.landlock_abi, l.host.seccomp ? "yes" : "no",
			     pol->net.value == NET_ISOLATED ? "a private network namespace"
							     : "the host's network");
		else
			warn("kernel layer: %s", l.be->name);
	}
	if (pol->shim.value)
		find_shim(shim);
	if (pol->private_tmp.value)
		make_private_tmp(pol, tmpdir);
	/* Only the shim logs: without it there is nothing to relay, and no
	 * refusal to count. */
	if (pol->shim.value)
		open_log_relay(pol, &log);
	else
		log = (struct log_relay){ .file = -1, .pipe = -1 };
	struct log_relay out[2];
	int stdio_fd[3];
	open_stdio_relays(pol, out, stdio_fd);
	int summary_fd = summary_open(pol);
	/* What the kernel layer refuses programs the shim does not see. */
	struct kernel_log klog = { -1, 0, pol, &l, &log };
	if (pol->mode.value == MODE_ENFORCE && l.be && l.be->log_open) {
		char why[256];
		klog.fd = l.be->log_open(pol, &l.host, why, sizeof(why));
		if (klog.fd < 0)
			kernel_log_unread(why);
		else if (run_verbose)
			kernel_log_ask(&klog);  /* -v says at once whether it is read */
	}
	int policy_fd = policy_memfd(pol, !pol->shim.value, klog.fd >= 0, private_shm(pol));
	struct audit audit;
	audit_open(pol, policy_fd, &audit);
	/* The shims' refusals, counted here (tally.h): the program's end is
	 * kept across exec, ours is not. */
	int events[2] = { -1, -1 };
	if (pol->shim.value) {
		if (socketpair(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0, events) < 0)
			die_errno("unable to create the socket for the shims' refusals");
		int big = 1 << 22;
		setsockopt(events[0], SOL_SOCKET, SO_RCVBUF, &big, sizeof(big));
		events[1] = fd_move_high(events[1], false);
		if (events[1] < 0)
			die_errno("unable to pass the socket for the shims' refusals on");
	}
	char **envp = build_env(pol, pol->shim.value ? shim : NULL, policy_fd, events[1],
				private_tmp[0] ? private_tmp : NULL);
	if (pol->mode.value == MODE_ENFORCE && l.be && strcmp(l.be->name, "noop") != 0)
		find_probe_dirs(pol);

	sigemptyset(&set);
	sigaddset(&set, SIGCHLD);
	for (size_t i = 0; i < sizeof(forwarded) / sizeof(forwarded[0]); i++)
		sigaddset(&set, forwarded[i]);
	sigprocmask(SIG_BLOCK, &set, &old);
	sfd = signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK);
	if (sfd < 0)
		die_errno("unable to create a signalfd");
	prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
	if (pipe2(pipefd, O_CLOEXEC) < 0)
		die_errno("unable to create a pipe");
	int sup[2];
	if (socketpair(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0, sup) < 0)
		die_errno("unable to create the supervisor's socket");

	struct child_args ca = { pol, &l, argv, envp, &old, pipefd, sup, stdio_fd, policy_fd };
	pid = spawn_child(&ca);
	close(pipefd[1]);
	close(sup[1]);
	close(policy_fd);
	if (events[1] >= 0)
		close(events[1]);
	for (int fd = 1; fd <= 2; fd++)
		if (stdio_fd[fd] >= 0 && (fd == 1 || stdio_fd[2] != stdio_fd[1]))
			close(stdio_fd[fd]);
	if (log.pipe >= 0)
		close(atoi(pol->log_file.value + 3));  /* the program's end */
	free_env(envp);

	struct tally tally = { 0 };
	struct report r;
	ssize_t got = read(pipefd[0], &r, sizeof(r));
	close(pipefd[0]);
	/* The child exec'd (or failed): what it handed over is queued. */
	int listener = recv_fd(sup[0]);
	close(sup[0]);
	if (got == (ssize_t)sizeof(r)) {
		if (listener >= 0)
			close(listener);
		if (events[0] >= 0)
			close(events[0]);
		waitpid(pid, &status, 0);
		relay(&log);
		relay(&out[0]);
		relay(&out[1]);
		remove_private_tmp();
		if (r.stage == 0)
			die("unable to apply the kernel layer: %s", r.msg);
		if (r.stage == 1)
			die("unable to trust the kernel layer: its self-test failed: %s", r.msg);
		errno = r.err;
		warn_errno("unable to run %s", r.msg);
		return errno == ENOENT || errno == ENOTDIR ? EXIT_NOTFOUND : EXIT_NOEXEC;
	}

	audit_started(&audit, pol, &l, argv);
	struct timespec deadline, now;
	int cancel_signal = 0;
	clock_gettime(CLOCK_MONOTONIC, &deadline);
	deadline.tv_sec += pol->timeout.value;
	bool timed_out = false, done = false;
	while (!done) {
		struct pollfd fds[7] = { { sfd, POLLIN, 0 }, { log.pipe, POLLIN, 0 },
					 { out[0].pipe, POLLIN, 0 }, { out[1].pipe, POLLIN, 0 },
					 { listener, POLLIN, 0 }, { events[0], POLLIN, 0 },
					 { klog.fd, POLLIN, 0 } };
		int wait_ms = -1;
		if (pol->timeout.value) {
			clock_gettime(CLOCK_MONOTONIC, &now);
			long long left = (deadline.tv_sec - now.tv_sec) * 1000LL +
					 (deadline.tv_nsec - now.tv_nsec) / 1000000;
			if (left <= 0) {
				timed_out = true;
				break;
			}
			wait_ms = left > INT_MAX ? INT_MAX : (int)left;
		}
		/* poll ignores negative descriptors: relays not in use. */
		if (poll(fds, 7, wait_ms) < 0 && errno != EINTR)
			die_errno("unable to wait for the program");
		/* The shims' records first: those a program sent before the
		 * call the supervisor is about to answer are queued already,
		 * and the summary keeps ties in the order they happened. */
		if (fds[5].revents || ((fds[4].revents & POLLIN) && events[0] >= 0))
			tally_recv(&tally, events[0], kernel_held, &klog);
		if (fds[4].revents & POLLIN) {
			struct supervise_event ev;
			int sr = l.be->supervise(listener, pol, &ev);
			if (sr > 0 && ev.op && (ev.refused || run_verbose >= 2))
				jail_said(pol, &log, &tally, &ev);
			if (sr < 0)
				fds[4].revents |= POLLERR;
		}
		if (fds[4].revents & (POLLHUP | POLLERR | POLLNVAL)) {
			/* Every process under the filter is gone. */
			close(listener);
			listener = -1;
		}
		if (fds[6].revents)
			kernel_said(&klog, pid, &tally, 0);
		if (fds[1].revents)
			relay(&log);
		if (fds[2].revents)
			relay(&out[0]);
		if (fds[3].revents)
			relay(&out[1]);
		struct signalfd_siginfo si;
		while (fds[0].revents && read(sfd, &si, sizeof(si)) == (ssize_t)sizeof(si)) {
			if (si.ssi_signo == SIGCHLD) {
				pid_t w;
				int st;
				while ((w = waitpid(-1, &st, WNOHANG)) > 0) {
					if (w == pid) {
						status = st;
						done = true;
					}
				}
				continue;
			}
			/* A signal sent to cordon (not one the terminal sent to
			 * the whole foreground group, which the program got
			 * too) goes on to the program. */
			if (si.ssi_code <= 0 && (pid_t)si.ssi_pid != pid) {
				kill(pid, (int)si.ssi_signo);
				if (si.ssi_signo == SIGTERM || si.ssi_signo == SIGINT ||
				    si.ssi_signo == SIGHUP || si.ssi_signo == SIGQUIT)
					cancel_signal = (int)si.ssi_signo;
			}
		}
	}
	close(sfd);
	if (timed_out)
		warn("timeout after %ds: ending the process tree", pol->timeout.value);
	/* The program is gone (or out of time): what it left running goes
	 * with it. */
	end_tree(&set);
	reap_all();
	if (listener >= 0)
		close(listener);
	/* The shims' last records, then the kernel's, which come through its
	 * audit thread after the calls they tell of: read until the run's
	 * domain is gone. */
	if (events[0] >= 0) {
		tally_recv(&tally, events[0], kernel_held, &klog);
		close(events[0]);
	}
	kernel_said(&klog, pid, &tally, KERNEL_LOG_DRAIN_MS);
	relay(&log);
	relay(&out[0]);
	relay(&out[1]);
	run_summary(pol, &log, &tally, summary_fd, status, timed_out);
	record_run(pol, argv, &tally, status, timed_out);
	if (keep)
		*keep = tally;
	else
		tally_free(&tally);
	if (log.file >= 0)
		close(log.file);
	remove_private_tmp();
	char fields[256], denies[32];
	if (pol->shim.value)
		snprintf(denies, sizeof(denies), "%ld", tally.denied + tally.warned);
	else
		snprintf(denies, sizeof(denies), "null");
	if (timed_out || cancel_signal) {
		snprintf(fields, sizeof(fields), "\"reason\":\"%s\",\"signal\":%d,\"denies\":%s",
			 timed_out ? "timeout" : "signal", timed_out ? SIGTERM : cancel_signal, denies);
		audit_emit(&audit, "cancelled", fields);
	}
	if (!timed_out) {
		if (WIFSIGNALED(status))
			snprintf(fields, sizeof(fields), "\"status\":null,\"signal\":%d,\"denies\":%s",
				 WTERMSIG(status), denies);
		else
			snprintf(fields, sizeof(fields), "\"status\":%d,\"signal\":null,\"denies\":%s",
				 WEXITSTATUS(status), denies);
		audit_emit(&audit, "completed", fields);
	}
	if (audit.fd > 2 && strncmp(pol->audit_file.value, "fd:", 3) != 0)
		close(audit.fd);
	return timed_out ? EXIT_TIMEOUT : exit_status(status);
}
