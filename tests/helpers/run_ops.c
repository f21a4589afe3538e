/*
 * run_ops.c - the program tests/unit/test_run.c runs under `cordon run`:
 * escape attempts and supervisor chores, one operation after another, as
 * named on the command line. Built twice: dynamically linked (run_ops, the
 * shim is loaded) and statically linked (tests/helpers/static/run_ops.c ->
 * run_ops-static: the shim cannot see it, only the kernel layer stops it).
 *
 * Each operation is a name and a fixed number of arguments; for each one a
 * line goes to stdout, with one write(2), so lines of several processes
 * sharing stdout never interleave:
 *
 *   NAME RET ERRNO [INFO]
 *
 * RET is 0 for success (or a number the operation documents), -1 for a
 * failure; ERRNO is errno after the failing step (0 on success). INFO, when
 * present, is one word: the step that failed ("open", "write", "setup",
 * "socket", ...) or the value the operation reports.
 *
 * Every system call that an escape is about is made with syscall(2), not
 * through libc, so the shim never sees it; "write" and "connect" go through
 * libc (and so through the shim) on purpose. In every argument, "${NAME}"
 * is replaced by the value of the environment variable NAME when the
 * operation runs (empty when unset).
 *
 * Files and the file system:
 *   write PATH TEXT          libc open(O_WRONLY|O_CREAT|O_TRUNC) + write
 *   sys-write PATH TEXT      the same with raw openat and write
 *   sys-reopen PATH TEXT     raw openat(O_WRONLY) (no O_CREAT, no O_TRUNC) + write
 *   rtld-write PATH TEXT     open found with dlsym(RTLD_NEXT, "open")  (dynamic only)
 *   dlopen-write PATH TEXT   open found in dlopen("libc.so.6")         (dynamic only)
 *   uring-write PATH TEXT    io_uring OPENAT + WRITE, raw io_uring_setup/enter
 *   sys-truncate PATH        raw truncate(PATH, 0)
 *   sys-read PATH            raw openat(O_RDONLY) + read: RET bytes read; INFO:
 *                            what was read, up to the first space or newline
 *   read PATH                the same through libc's open and read
 *   sys-link OLD NEW         raw linkat
 *   sys-rename OLD NEW       raw renameat2(.., 0)
 *   sys-symlink TARGET PATH  raw symlinkat
 *   sys-mount DIR            raw mount("none", DIR, "tmpfs")
 *   sys-unshare              raw unshare(CLONE_NEWNS|CLONE_NEWUSER)
 *   sys-umount DIR           raw umount2(DIR, MNT_DETACH)
 *   sys-chroot DIR           raw chroot(DIR), then chdir("/")
 *   count DIR                RET: entries in DIR but . and ..; INFO: DIR
 *   pidfile PATH             write getpid() into PATH (libc)
 *   wait PATH                until PATH exists (raw fstatat, every 10 ms, 20 s
 *                            at most: then ETIMEDOUT)
 *
 * Metadata (the calls the supervisor answers; MODE in octal):
 *   sys-chmod PATH MODE      raw chmod
 *   sys-fchmodat DIR NAME MODE FLAGS
 *                            DIR opened with raw openat(O_PATH|O_DIRECTORY) ("-":
 *                            AT_FDCWD); FLAGS "0": raw fchmodat(DIR, NAME, MODE),
 *                            "nofollow": raw fchmodat2(.., AT_SYMLINK_NOFOLLOW)
 *   sys-chown PATH UID GID   raw chown
 *   sys-lchown PATH UID GID  raw lchown
 *   sys-utimens PATH SEC     raw utimensat(AT_FDCWD, PATH, {SEC, SEC}, 0): atime
 *                            and mtime both SEC seconds after the epoch
 *   sys-setxattr PATH NAME VALUE
 *                            raw setxattr(PATH, NAME, VALUE, strlen(VALUE), 0)
 *   sys-removexattr PATH NAME
 *                            raw removexattr
 *   sys-fsioctl PATH WHAT    raw openat(O_RDONLY) + raw ioctl that changes the file's
 *                            attributes, WHAT: "nodump" or "immutable" (FS_IOC_GETFLAGS,
 *                            then FS_IOC_SETFLAGS with that flag added), "version"
 *                            (FS_IOC_SETVERSION 42), "fsxattr" (FS_IOC_FSGETXATTR, then
 *                            FS_IOC_FSSETXATTR of the same), "verity"
 *                            (FS_IOC_ENABLE_VERITY, SHA-256, a 4-byte salt), "subvol"
 *                            (PATH a directory: BTRFS_IOC_SUBVOL_CREATE "sub"),
 *                            "ext4version" (EXT4_IOC_SETVERSION 4242), "migrate"
 *                            (EXT4_IOC_MIGRATE)
 *   chmod-race ROOTFILE OUTSIDEFILE LINK N
 *                            a thread turns LINK into a symlink to ROOTFILE, then
 *                            to OUTSIDEFILE, and so on, as fast as it can (raw
 *                            symlinkat to LINK.flip, renameat over LINK; LINK is
 *                            made before the thread starts) while this one,
 *                            once the thread has flipped twice, makes N raw
 *                            chmod(LINK, 0777); RET 0;
 *                            INFO: ok=CALLS,denied=CALLS,other=CALLS,flips=FLIPS,
 *                            errno=E (calls that returned 0, failed with EACCES,
 *                            failed otherwise (E: the first errno of those, or 0);
 *                            flips made)
 *   chmod-bytes-race ROOTFILE OUTSIDEFILE N
 *                            a thread rewrites a buffer, byte by byte, from
 *                            ROOTFILE to OUTSIDEFILE and back, as fast as it can,
 *                            while this one (once the thread has flipped twice)
 *                            makes N raw chmod(buffer, 0777);
 *                            RET 0; INFO as for chmod-race
 *   write-flood PATH THREADS N
 *                            as chmod-flood, with libc open(PATH, O_WRONLY|O_CREAT)
 *   connect-race ROOTSOCK OUTSIDESOCK LINK N
 *                            as chmod-race, with N raw connects of a new
 *                            non-blocking unix stream socket to LINK instead
 *   chmod-flood PATH THREADS N
 *                            THREADS threads each make N raw chmod(PATH, MODE),
 *                            MODE 0600 and 0640 in turn; RET: how many of the
 *                            THREADS * N calls did not return 0; INFO: the errno
 *                            of the first of those ("errno=E"), when there is one
 *
 * Descriptors:
 *   fd-write N TEXT          raw write to descriptor N
 *   fd-truncate N            raw ftruncate(N, 0)
 *   fd-sum N                 RET: its size; INFO: an FNV-1a hash of its bytes
 *   fd-find PATH             the descriptor open on PATH (read from /proc/self/fd):
 *                            RET: its number, also put in ${FOUND_FD}
 *   open-ro PATH             raw openat(O_RDONLY), kept open (across exec too):
 *                            RET: the descriptor, also put in ${FOUND_FD}
 *   open-rw PATH             the same with O_RDWR
 *   fd-chmod N MODE          raw fchmod(N, MODE) (MODE in octal)
 *
 * Network:
 *   connect HOST PORT        libc socket + connect, TCP (HOST numeric IPv4)
 *   bind HOST PORT           libc socket + bind, TCP
 *   listen HOST PORT         libc socket, bind (unless PORT is "-"), listen, TCP
 *   sys-connect HOST PORT    raw socket + connect, TCP
 *   uring-connect HOST PORT  io_uring SOCKET + CONNECT
 *   sys-udp HOST PORT TEXT   raw socket(SOCK_DGRAM) + sendto
 *   sys-abstract NAME        raw socket(AF_UNIX) + connect to "\0NAME"
 *   sys-unix PATH HOW        raw socket(AF_UNIX, SOCK_STREAM) + connect to PATH, then
 *                            raw write of "hello" on it; HOW: "block" or "nonblock"
 *                            (SOCK_NONBLOCK)
 *   sys-unix-dgram PATH      raw socket(AF_UNIX, SOCK_DGRAM) + connect to PATH, then
 *                            raw write of "hello"
 *   sys-unix-sendto PATH TEXT
 *                            raw socket(AF_UNIX, SOCK_DGRAM), not connected, + raw
 *                            sendto of TEXT with PATH as the address; RET: bytes sent
 *   sys-unix-sendto-n PATH N raw socket(AF_UNIX, SOCK_DGRAM), blocking, + N raw sendtos
 *                            of "0", "1", ... with PATH as the address; RET: how many
 *                            went
 *   sys-unix-fill PATH       the same with MSG_DONTWAIT, until one would wait; RET: how
 *                            many went
 *   sys-unix-sendto-alarm PATH
 *                            a blocking raw sendto of "late" to PATH, with SIGALRM
 *                            (a handler, no SA_RESTART) due in a second
 *   sys-tfo HOST PORT CALL   raw socket(SOCK_STREAM) + CALL ("sendto", "sendmsg" or
 *                            "sendmmsg") of "hello" with MSG_FASTOPEN and the address:
 *                            TCP Fast Open, a connect without connect(2)
 *   sys-socket-proto PROTO   raw socket(AF_INET, SOCK_STREAM, PROTO) (262: MPTCP)
 *   sys-listen HOST PORT     raw socket(SOCK_STREAM), bound to HOST:PORT unless PORT
 *                            is "-", + listen; INFO: the port it listens on
 *   sys-netlink PROTO N HOW  raw socket(AF_NETLINK, SOCK_RAW, PROTO), then by HOW:
 *                            "bind" or "connect" to port id 0 and the multicast groups
 *                            N (a number), or "sendto" of an NLMSG_NOOP to port id N;
 *                            INFO: "self" when its port id is then our pid, else the id
 *   sys-abstract-dgram NAME SECONDS
 *                            raw socket(AF_UNIX, SOCK_DGRAM), bound to "\0NAME", then
 *                            waits SECONDS and reports how many datagrams it received
 *                            (RET)
 *   sys-unix-bind PATH MASK  raw umask(MASK) (octal) + socket(AF_UNIX, SOCK_STREAM) +
 *                            bind to PATH ("-": no name, the kernel picks one)
 *   sys-abstract-listen NAME SECONDS
 *                            raw socket(AF_UNIX, SOCK_STREAM), bound to "\0NAME", +
 *                            listen, then waits SECONDS and reports how many
 *                            connections it accepted (RET)
 *
 * IPC:
 *   sem NAME                 libc sem_open(NAME, O_CREAT|O_EXCL, 0600, 0), sem_post,
 *                            sem_getvalue, sem_close; RET: the value (1); the
 *                            semaphore is left for "sem-unlink"
 *   sem-unlink NAME          libc sem_unlink
 *   shm NAME TEXT            libc shm_open(NAME, O_CREAT|O_RDWR, 0600), write TEXT,
 *                            close; shm_open(NAME, O_RDONLY) again and read: INFO
 *                            what was read; shm_unlink
 *   sys-shm-rm KEY           raw shmget(KEY, 0, 0) + shmctl(IPC_RMID): removes the System
 *                            V shared memory segment of KEY (a number)
 *   sys-mq-unlink NAME       raw mq_unlink of the POSIX message queue NAME (no "/")
 *   sys-mq-create NAME       raw mq_open(NAME, O_CREAT | O_RDONLY) + close (for writing,
 *                            Landlock refuses the queue's open, though not its making)
 *
 * Processes:
 *   sys-kill PID SIG         raw kill
 *   sys-ptrace PID           raw ptrace(PTRACE_ATTACH) (detached at once if it worked)
 *   sys-capdrop N            capability N (a number, linux/capability.h) taken out of
 *                            the effective set (raw capget + capset); uid unchanged
 *   tiocsti                  a new pty (/dev/ptmx); raw ioctl(TIOCSTI) on its slave
 *   vfork-exec PATH N PROG ARG...
 *                            libc vfork; the child closes every descriptor above 2
 *                            (raw close_range, as Python's subprocess does), tries
 *                            a libc open(PATH, O_WRONLY|O_CREAT) ("-": none) and
 *                            execv()s the next N words (PROG and its arguments,
 *                            N >= 1); the operations after them are the
 *                            parent's. RET: the child's exit status
 *   vfork-threads T N DIR    T threads at once, each N times: libc vfork, the child
 *                            closes every descriptor above 2 and execv()s this
 *                            program (/proc/self/exe) to create DIR/T-I through
 *                            libc ("write"); RET: how many children did not
 *                            exit 0
 *   fork PATH                libc fork; the child creates PATH (raw) and exits 0;
 *                            RET: the child's exit status
 *   sys-fork PATH            the same with raw fork
 *   thread                   pthread_create + join: RET 0 when the thread ran
 *   spawn-tree DIR HOW       a process tree that outlives us, each member
 *                            writing DIR/NAME.pid: "child" (setsid, sleeps) and
 *                            "daemon" (double fork, setsid, ignores SIGTERM,
 *                            sleeps); waits until both pidfiles exist. HOW:
 *                            "wait" sleeps on after, "exit" goes on at once
 *   trap-term PATH           on SIGTERM: create PATH (raw) and _exit(0)
 *   sleep SECONDS
 *   raise SIG                raw kill(getpid(), SIG); reported only if we live
 *   exit N                   exit(N)
 *
 * Environment and exec:
 *   env                      one line "env:NAME=VALUE" per variable, then the result
 *   setenv NAME VALUE        unsetenv NAME
 *   shim-loaded              RET 0 when libcordon.so is in /proc/self/maps, else -1
 *   execv PROG ARG...        libc execv (the shim may amend the environment)
 *   sys-execve PROG ARG...   raw execve with environ as it is now
 *                            (both take the rest of the command line)
 *
 * Exit status: 0 after the last operation, 2 on a usage error.
 */
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/capability.h>
#include <linux/io_uring.h>
#include <linux/netlink.h>
#include <netinet/in.h>
#include <pthread.h>
#include <sched.h>
#include <semaphore.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/ipc.h>
#include <sys/mman.h>
#include <sys/ptrace.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>
#ifndef RUN_OPS_STATIC
#include <dlfcn.h>
#endif

#ifndef SYS_fchmodat2
#define SYS_fchmodat2 452
#endif

extern char **environ;

#ifdef __SANITIZE_ADDRESS__
/* Under SANITIZE=1 the shim (instrumented) comes first in LD_PRELOAD, before
 * the ASan runtime; and the sandbox forbids ptrace, which LeakSanitizer
 * needs at exit. (Exported: the runtime looks it up in the executable.) */
__attribute__((visibility("default"))) const char *__asan_default_options(void);
const char *__asan_default_options(void)
{
	return "verify_asan_link_order=0:detect_leaks=0";
}
#endif

static void usage(const char *msg)
{
	dprintf(2, "run_ops: %s\n", msg);
	exit(2);
}

static void report(const char *name, long ret, int err, const char *info)
{
	char line[PATH_MAX + 128];
	int n = snprintf(line, sizeof(line), "%s %ld %d%s%s\n", name, ret, err,
			 info && *info ? " " : "", info && *info ? info : "");

	if (n > 0)
		(void)!write(1, line, (size_t)n < sizeof(line) ? (size_t)n : sizeof(line) - 1);
}

/* "${NAME}" -> getenv("NAME"). */
static const char *expand(const char *in, char *out, size_t size)
{
	size_t o = 0;

	for (const char *p = in; *p;) {
		const char *end;
		if (p[0] == '$' && p[1] == '{' && (end = strchr(p, '}'))) {
			char name[128];
			size_t n = (size_t)(end - p - 2);
			if (n >= sizeof(name))
				usage("variable name too long");
			memcpy(name, p + 2, n);
			name[n] = '\0';
			const char *v = getenv(name);
			for (; v && *v; v++) {
				if (o + 1 >= size)
					usage("argument too long");
				out[o++] = *v;
			}
			p = end + 1;
			continue;
		}
		if (o + 1 >= size)
			usage("argument too long");
		out[o++] = *p++;
	}
	out[o] = '\0';
	return out;
}

static long num(const char *s)
{
	char *end;
	long v = strtol(s, &end, 10);

	if (!*s || *end)
		usage("not a number");
	return v;
}

/* An octal mode. */
static long onum(const char *s)
{
	char *end;
	long v = strtol(s, &end, 8);

	if (!*s || *end)
		usage("not an octal number");
	return v;
}

static int sock_addr(const char *host, const char *port, struct sockaddr_in *sa)
{
	memset(sa, 0, sizeof(*sa));
	sa->sin_family = AF_INET;
	sa->sin_port = htons((uint16_t)num(port));
	if (inet_pton(AF_INET, host, &sa->sin_addr) != 1)
		usage("not a numeric IPv4 address");
	return 0;
}

/* "\0@name" as a unix socket address in *@sun (an abstract name): its
 * length. */
static socklen_t abstract_addr(const char *name, struct sockaddr_un *sun)
{
	size_t n = strlen(name);

	if (n + 1 > sizeof(sun->sun_path))
		usage("abstract name too long");
	memset(sun, 0, sizeof(*sun));
	sun->sun_family = AF_UNIX;
	memcpy(sun->sun_path + 1, name, n);
	return (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + n);
}

/* @path as a unix socket address in *@sun: its length. */
static socklen_t unix_path_addr(const char *path, struct sockaddr_un *sun)
{
	size_t n = strlen(path);

	if (n >= sizeof(sun->sun_path))
		usage("unix socket path too long");
	memset(sun, 0, sizeof(*sun));
	sun->sun_family = AF_UNIX;
	memcpy(sun->sun_path, path, n);
	return (socklen_t)(offsetof(struct sockaddr_un, sun_path) + n + 1);
}

/* A step of an operation: on failure, record which one and errno. */
struct outcome {
	long ret;
	int err;
	const char *step;
};

#define STEP(o, name, call)                                                     \
	do {                                                                    \
		if ((o)->ret >= 0 && (call) < 0) {                              \
			(o)->ret = -1;                                          \
			(o)->err = errno;                                       \
			(o)->step = (name);                                     \
		}                                                               \
	} while (0)

/* Open with @open_fn (or raw openat when NULL) and write @text. */
static struct outcome write_with(int (*open_fn)(const char *, int, ...), const char *path,
				 int flags, const char *text)
{
	struct outcome o = { 0, 0, NULL };
	long fd = -1;

	STEP(&o, "open", fd = open_fn ? open_fn(path, flags, 0644)
				     : syscall(SYS_openat, AT_FDCWD, path, flags, 0644));
	STEP(&o, "write", syscall(SYS_write, fd, text, strlen(text)));
	if (fd >= 0)
		syscall(SYS_close, fd);
	return o;
}

/* --- io_uring without liburing --------------------------------------------- */

struct uring {
	int fd;
	unsigned *sq_tail, *sq_mask, *sq_array, *cq_head, *cq_tail, *cq_mask;
	struct io_uring_sqe *sqes;
	struct io_uring_cqe *cqes;
};

static int uring_init(struct uring *u)
{
	struct io_uring_params p;
	void *sq, *cq;

	memset(&p, 0, sizeof(p));
	u->fd = (int)syscall(SYS_io_uring_setup, 4, &p);
	if (u->fd < 0)
		return -1;
	sq = mmap(NULL, p.sq_off.array + p.sq_entries * sizeof(unsigned),
		  PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, u->fd, IORING_OFF_SQ_RING);
	cq = mmap(NULL, p.cq_off.cqes + p.cq_entries * sizeof(struct io_uring_cqe),
		  PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, u->fd, IORING_OFF_CQ_RING);
	u->sqes = mmap(NULL, p.sq_entries * sizeof(struct io_uring_sqe), PROT_READ | PROT_WRITE,
		       MAP_SHARED | MAP_POPULATE, u->fd, IORING_OFF_SQES);
	if (sq == MAP_FAILED || cq == MAP_FAILED || u->sqes == MAP_FAILED)
		return -1;
	u->sq_tail = (unsigned *)((char *)sq + p.sq_off.tail);
	u->sq_mask = (unsigned *)((char *)sq + p.sq_off.ring_mask);
	u->sq_array = (unsigned *)((char *)sq + p.sq_off.array);
	u->cq_head = (unsigned *)((char *)cq + p.cq_off.head);
	u->cq_tail = (unsigned *)((char *)cq + p.cq_off.tail);
	u->cq_mask = (unsigned *)((char *)cq + p.cq_off.ring_mask);
	u->cqes = (struct io_uring_cqe *)((char *)cq + p.cq_off.cqes);
	return 0;
}

/* Submit one request, wait for it: its result, or -1 with errno. */
static long uring_do(struct uring *u, const struct io_uring_sqe *sqe)
{
	unsigned tail = *u->sq_tail, idx = tail & *u->sq_mask, head;
	int res;

	u->sqes[idx] = *sqe;
	u->sq_array[idx] = idx;
	__atomic_store_n(u->sq_tail, tail + 1, __ATOMIC_RELEASE);
	if (syscall(SYS_io_uring_enter, u->fd, 1, 1, IORING_ENTER_GETEVENTS, NULL, 0) < 0)
		return -1;
	head = __atomic_load_n(u->cq_head, __ATOMIC_ACQUIRE);
	if (head == __atomic_load_n(u->cq_tail, __ATOMIC_ACQUIRE)) {
		errno = EAGAIN;
		return -1;
	}
	res = u->cqes[head & *u->cq_mask].res;
	__atomic_store_n(u->cq_head, head + 1, __ATOMIC_RELEASE);
	if (res < 0) {
		errno = -res;
		return -1;
	}
	return res;
}

static struct outcome uring_write(const char *path, const char *text)
{
	struct outcome o = { 0, 0, NULL };
	struct uring u = { .fd = -1 };
	struct io_uring_sqe sqe;
	long fd = -1;

	STEP(&o, "setup", uring_init(&u));
	memset(&sqe, 0, sizeof(sqe));
	sqe.opcode = IORING_OP_OPENAT;
	sqe.fd = AT_FDCWD;
	sqe.addr = (uintptr_t)path;
	sqe.open_flags = O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC;
	sqe.len = 0644;
	STEP(&o, "openat", fd = uring_do(&u, &sqe));
	memset(&sqe, 0, sizeof(sqe));
	sqe.opcode = IORING_OP_WRITE;
	sqe.fd = (int)fd;
	sqe.addr = (uintptr_t)text;
	sqe.len = (unsigned)strlen(text);
	sqe.off = 0;
	STEP(&o, "write", uring_do(&u, &sqe));
	if (fd >= 0)
		close((int)fd);
	if (u.fd >= 0)
		close(u.fd);
	return o;
}

static struct outcome uring_connect(const struct sockaddr_in *sa)
{
	struct outcome o = { 0, 0, NULL };
	struct uring u = { .fd = -1 };
	struct io_uring_sqe sqe;
	long s = -1;

	STEP(&o, "setup", uring_init(&u));
	memset(&sqe, 0, sizeof(sqe));
	sqe.opcode = IORING_OP_SOCKET;
	sqe.fd = AF_INET;
	sqe.off = SOCK_STREAM;
	STEP(&o, "socket", s = uring_do(&u, &sqe));
	memset(&sqe, 0, sizeof(sqe));
	sqe.opcode = IORING_OP_CONNECT;
	sqe.fd = (int)s;
	sqe.addr = (uintptr_t)sa;
	sqe.off = sizeof(*sa);
	STEP(&o, "connect", uring_do(&u, &sqe));
	if (s >= 0)
		close((int)s);
	if (u.fd >= 0)
		close(u.fd);
	return o;
}

/* --- processes -------------------------------------------------------------- */

static volatile int thread_ran;

static void *thread_main(void *arg)
{
	(void)arg;
	thread_ran = 1;
	return NULL;
}

static char term_marker[PATH_MAX];

static void on_term(int sig)
{
	(void)sig;
	long fd = syscall(SYS_openat, AT_FDCWD, term_marker, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd >= 0)
		syscall(SYS_close, fd);
	_exit(0);
}

static void write_pidfile(const char *dir, const char *name)
{
	char path[PATH_MAX], tmp[PATH_MAX], text[32];
	int n = snprintf(text, sizeof(text), "%d\n", (int)getpid());

	/* Written whole, then renamed: whoever sees the file sees the pid. */
	snprintf(path, sizeof(path), "%s/%s.pid", dir, name);
	snprintf(tmp, sizeof(tmp), "%s/.%s.pid", dir, name);
	int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0 || write(fd, text, (size_t)n) != n || close(fd) < 0 || rename(tmp, path) < 0) {
		dprintf(2, "run_ops: unable to write %s: %s\n", path, strerror(errno));
		_exit(3);
	}
}

static void sleep_long(void)
{
	for (int i = 0; i < 600; i++)
		sleep(1);
	_exit(0);
}

/* Both pidfiles, or -1 after 10 s. */
static int wait_pidfiles(const char *dir)
{
	char a[PATH_MAX], b[PATH_MAX];
	struct stat st;

	snprintf(a, sizeof(a), "%s/child.pid", dir);
	snprintf(b, sizeof(b), "%s/daemon.pid", dir);
	for (int i = 0; i < 1000; i++) {
		if (stat(a, &st) == 0 && stat(b, &st) == 0)
			return 0;
		usleep(10 * 1000);
	}
	errno = ETIMEDOUT;
	return -1;
}

static struct outcome spawn_tree(const char *dir)
{
	struct outcome o = { 0, 0, NULL };
	pid_t pid = -1;

	write_pidfile(dir, "program");
	/* A child that leaves our session, and sleeps. */
	STEP(&o, "fork", pid = fork());
	if (pid == 0) {
		setsid();
		write_pidfile(dir, "child");
		sleep_long();
	}
	/* A daemon: double fork, its own session, deaf to SIGTERM. */
	STEP(&o, "fork", pid = fork());
	if (pid == 0) {
		if (fork() != 0)
			_exit(0);
		setsid();
		signal(SIGTERM, SIG_IGN);
		write_pidfile(dir, "daemon");
		sleep_long();
	}
	if (pid > 0)
		waitpid(pid, NULL, 0);  /* the daemon's first parent */
	STEP(&o, "pidfiles", wait_pidfiles(dir));
	return o;
}

static int shim_loaded(void)
{
	char buf[4096];
	FILE *f = fopen("/proc/self/maps", "re");
	int found = 0;

	if (!f)
		return -1;
	while (fgets(buf, sizeof(buf), f))
		if (strstr(buf, "/libcordon.so"))
			found = 1;
	fclose(f);
	errno = 0;
	return found ? 0 : -1;
}

/* --- metadata ---------------------------------------------------------------- */

/* Raw chmod, chown and lchown: the legacy calls where the architecture
 * has them (the ones a static program makes), the *at forms elsewhere. */
static long raw_chmod(const char *path, long mode)
{
#ifdef SYS_chmod
	return syscall(SYS_chmod, path, mode);
#else
	return syscall(SYS_fchmodat, AT_FDCWD, path, mode);
#endif
}

static long raw_chown(const char *path, long uid, long gid, int nofollow)
{
#if defined(SYS_chown) && defined(SYS_lchown)
	return syscall(nofollow ? SYS_lchown : SYS_chown, path, uid, gid);
#else
	return syscall(SYS_fchownat, AT_FDCWD, path, uid, gid,
		       nofollow ? AT_SYMLINK_NOFOLLOW : 0);
#endif
}

/* The two races: a thread that changes what a name (or a buffer) means,
 * while the operation's own thread chmods it. */
static struct {
	const char *root_file, *outside_file, *link;
	char flip[PATH_MAX];
	volatile char buf[PATH_MAX];
	int stop;
	long flips;  /* written by the flipper only; read once it has stopped, or atomically */
} race;

/* LINK -> ROOTFILE, LINK -> OUTSIDEFILE, ...: each time a new symlink
 * renamed over LINK, so that LINK always exists. */
static void *flip_link(void *arg)
{
	(void)arg;
	for (long i = 0; !__atomic_load_n(&race.stop, __ATOMIC_ACQUIRE); i++) {
		const char *target = i & 1 ? race.outside_file : race.root_file;
		syscall(SYS_unlinkat, AT_FDCWD, race.flip, 0);
		if (syscall(SYS_symlinkat, target, AT_FDCWD, race.flip) == 0 &&
		    syscall(SYS_renameat2, AT_FDCWD, race.flip, AT_FDCWD, race.link, 0) == 0)
			__atomic_add_fetch(&race.flips, 1, __ATOMIC_RELEASE);
	}
	return NULL;
}

/* The buffer: ROOTFILE, then OUTSIDEFILE, ..., a byte at a time (a reader
 * may see any mixture of the two). */
static void *flip_bytes(void *arg)
{
	(void)arg;
	for (long i = 0; !__atomic_load_n(&race.stop, __ATOMIC_ACQUIRE); i++) {
		const char *s = i & 1 ? race.outside_file : race.root_file;
		size_t n = strlen(s);
		for (size_t k = 0; k <= n; k++)
			race.buf[k] = s[k];
		__atomic_add_fetch(&race.flips, 1, __ATOMIC_RELEASE);
	}
	return NULL;
}

static long race_chmod(const char *path)
{
	return raw_chmod(path, 0777);
}

/* A raw connect of a new non-blocking unix stream socket to @path. */
static long race_connect(const char *path)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	long s = syscall(SYS_socket, AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0), r;
	int e;

	if (s < 0)
		return -1;
	snprintf(sun.sun_path, sizeof(sun.sun_path), "%s", path);
	r = syscall(SYS_connect, s, &sun, sizeof(sun));
	e = errno;
	syscall(SYS_close, s);
	errno = e;
	return r;
}

/* N @act(@path) (race_chmod: raw chmod(@path, 0777)) while @flipper runs;
 * the tally in @info. */
static struct outcome chmod_race(void *(*flipper)(void *), long (*act)(const char *),
				 const char *path, long n, char *info, size_t size)
{
	struct outcome o = { 0, 0, NULL };
	long ok = 0, denied = 0, other = 0;
	int other_err = 0;
	pthread_t th;
	int r;

	race.stop = 0;
	race.flips = 0;
	r = pthread_create(&th, NULL, flipper, NULL);
	if (r) {
		o.ret = -1;
		o.err = r;
		o.step = "pthread_create";
		return o;
	}
	/* The race starts when the thread has made its first flip. */
	while (__atomic_load_n(&race.flips, __ATOMIC_ACQUIRE) < 2)
		sched_yield();
	for (long i = 0; i < n; i++) {
		if (act(path) == 0)
			ok++;
		else if (errno == EACCES)
			denied++;
		else if (other++ == 0)
			other_err = errno;
	}
	__atomic_store_n(&race.stop, 1, __ATOMIC_RELEASE);
	pthread_join(th, NULL);
	snprintf(info, size, "ok=%ld,denied=%ld,other=%ld,flips=%ld,errno=%d", ok, denied, other,
		 race.flips, other_err);
	return o;
}

struct flood {
	const char *path;
	long n, failed;
	int first_err;
	bool libc_write;  /* open(PATH, O_WRONLY|O_CREAT) through libc, not chmod */
	pthread_t th;
};

static void *flood_main(void *arg)
{
	struct flood *f = arg;

	for (long i = 0; i < f->n; i++) {
		long r;
		if (f->libc_write) {
			int fd = open(f->path, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
			r = fd;
			if (fd >= 0)
				close(fd);
		} else {
			r = raw_chmod(f->path, i & 1 ? 0640 : 0600);
		}
		if (r < 0 && f->failed++ == 0)
			f->first_err = errno;
	}
	return NULL;
}

/* @threads threads of @n chmods (or libc write-opens) each: RET the calls
 * that failed. */
static struct outcome chmod_flood(const char *path, long threads, long n, bool libc_write,
				  char *info, size_t size)
{
	struct outcome o = { 0, 0, NULL };
	struct flood f[64];
	long started = 0;

	if (threads < 1 || threads > 64)
		usage("chmod-flood: THREADS must be 1 to 64");
	for (long t = 0; t < threads; t++) {
		f[t] = (struct flood){ .path = path, .n = n, .libc_write = libc_write };
		int r = pthread_create(&f[t].th, NULL, flood_main, &f[t]);
		if (r) {
			o.ret = -1;
			o.err = r;
			o.step = "pthread_create";
			break;
		}
		started++;
	}
	for (long t = 0; t < started; t++) {
		pthread_join(f[t].th, NULL);
		if (o.ret >= 0) {
			if (f[t].failed && !o.ret)
				snprintf(info, size, "errno=%d", f[t].first_err);
			o.ret += f[t].failed;
		}
	}
	return o;
}

/* vfork-exec: the child's part, in a frame of its own (vfork returns twice). */
static __attribute__((noinline)) pid_t vfork_exec(const char *path, char **v)
{
	pid_t pid = vfork();

	if (pid == 0) {
		syscall(SYS_close_range, 3, ~0U, 0);
		if (path) {
			int fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
			if (fd >= 0)
				close(fd);
		}
		execv(v[0], v);
		_exit(127);
	}
	return pid;
}

/* vfork-threads: each thread's share. */
struct vfork_share {
	pthread_t th;
	int t, n, failed;
	const char *dir;
	char self[PATH_MAX];
};

static void *vfork_thread(void *arg)
{
	struct vfork_share *v = arg;

	for (int i = 0; i < v->n; i++) {
		char path[PATH_MAX];
		snprintf(path, sizeof(path), "%s/%d-%d", v->dir, v->t, i);
		char *argv[] = { v->self, "write", path, "x", NULL };
		int st = 0;
		pid_t pid = vfork_exec(NULL, argv);
		if (pid < 0 || waitpid(pid, &st, 0) < 0 || !WIFEXITED(st) || WEXITSTATUS(st))
			v->failed++;
	}
	return NULL;
}

static void on_alarm(int sig)
{
	(void)sig;
}

/* --- ioctls that change attributes -------------------------------------------- */

/* <linux/fs.h> and <linux/btrfs.h>, which do not mix with <sys/mount.h>. */
#define FS_IOC_GETFLAGS_ 0x80086601UL
#define FS_IOC_SETFLAGS_ 0x40086602UL
#define FS_IOC_SETVERSION_ 0x40087602UL
#define FS_IOC_FSGETXATTR_ 0x801c581fUL
#define FS_IOC_FSSETXATTR_ 0x401c5820UL
#define FS_IOC_ENABLE_VERITY_ 0x40806685UL
#define BTRFS_IOC_SUBVOL_CREATE_ 0x5000940eUL
#define FS_NODUMP_FL_ 0x40
#define FS_IMMUTABLE_FL_ 0x10

static struct outcome fs_ioctl(const char *path, const char *what)
{
	struct outcome o = { 0, 0, NULL };
	long fd = -1;

	STEP(&o, "open", fd = syscall(SYS_openat, AT_FDCWD, path, O_RDONLY | O_CLOEXEC));
	if (strcmp(what, "nodump") == 0 || strcmp(what, "immutable") == 0) {
		int fl = 0;
		STEP(&o, "getflags", syscall(SYS_ioctl, fd, FS_IOC_GETFLAGS_, &fl));
		fl |= what[0] == 'n' ? FS_NODUMP_FL_ : FS_IMMUTABLE_FL_;
		STEP(&o, "setflags", syscall(SYS_ioctl, fd, FS_IOC_SETFLAGS_, &fl));
	} else if (strcmp(what, "version") == 0) {
		int v = 42;
		STEP(&o, "setversion", syscall(SYS_ioctl, fd, FS_IOC_SETVERSION_, &v));
	} else if (strcmp(what, "fsxattr") == 0) {
		char fa[28];
		STEP(&o, "fsgetxattr", syscall(SYS_ioctl, fd, FS_IOC_FSGETXATTR_, fa));
		STEP(&o, "fssetxattr", syscall(SYS_ioctl, fd, FS_IOC_FSSETXATTR_, fa));
	} else if (strcmp(what, "verity") == 0) {
		static const char salt[4] = "salt";
		struct {
			uint32_t version, hash, block, salt_size;
			uint64_t salt_ptr;
			uint32_t sig_size, reserved1;
			uint64_t sig_ptr, reserved2[11];
		} arg = { 1, 1, 4096, sizeof(salt), (uintptr_t)salt, 0, 0, 0, { 0 } };
		STEP(&o, "verity", syscall(SYS_ioctl, fd, FS_IOC_ENABLE_VERITY_, &arg));
	} else if (strcmp(what, "ext4version") == 0) {
		int v = 4242;
		STEP(&o, "setversion", syscall(SYS_ioctl, fd, 0x40086604UL, &v));
	} else if (strcmp(what, "migrate") == 0) {
		STEP(&o, "migrate", syscall(SYS_ioctl, fd, 0x6609UL, 0));
	} else if (strcmp(what, "subvol") == 0) {
		static struct {
			int64_t fd;
			char name[4088];
		} args = { 0, "sub" };
		STEP(&o, "subvol", syscall(SYS_ioctl, fd, BTRFS_IOC_SUBVOL_CREATE_, &args));
	} else {
		usage("sys-fsioctl: WHAT is nodump, immutable, version, fsxattr, verity, subvol, "
		      "ext4version or migrate");
	}
	if (fd >= 0)
		syscall(SYS_close, fd);
	return o;
}

/* --- main --------------------------------------------------------------------- */

static const struct {
	const char *name;
	int args;
} table[] = {
	{ "write", 2 }, { "sys-write", 2 }, { "sys-reopen", 2 }, { "rtld-write", 2 },
	{ "dlopen-write", 2 }, { "uring-write", 2 }, { "sys-truncate", 1 }, { "sys-link", 2 },
	{ "sys-rename", 2 }, { "sys-symlink", 2 }, { "sys-mount", 1 }, { "sys-unshare", 0 },
	{ "sys-umount", 1 }, { "sys-chroot", 1 },
	{ "count", 1 }, { "pidfile", 1 }, { "wait", 1 }, { "sys-chmod", 2 }, { "sys-fchmodat", 4 },
	{ "sys-chown", 3 }, { "sys-lchown", 3 }, { "sys-utimens", 2 }, { "sys-setxattr", 3 },
	{ "sys-removexattr", 2 }, { "sys-fsioctl", 2 }, { "chmod-race", 4 }, { "chmod-bytes-race", 3 },
	{ "chmod-flood", 3 }, { "write-flood", 3 }, { "connect-race", 4 }, { "fd-write", 2 }, { "fd-truncate", 1 },
	{ "fd-sum", 1 }, { "fd-find", 1 }, { "open-ro", 1 }, { "open-rw", 1 }, { "fd-chmod", 2 },
	{ "connect", 2 }, { "bind", 2 }, { "listen", 2 }, { "sys-connect", 2 }, { "uring-connect", 2 },
	{ "sys-udp", 3 }, { "sys-abstract", 1 }, { "sys-unix", 2 }, { "sys-unix-dgram", 1 },
	{ "sys-unix-sendto", 2 }, { "sys-unix-sendto-n", 2 }, { "sys-unix-fill", 1 },
	{ "sys-unix-sendto-alarm", 1 },
	{ "sys-tfo", 3 }, { "sys-socket-proto", 1 }, { "sys-listen", 2 },
	{ "sem", 1 }, { "sem-unlink", 1 }, { "shm", 2 }, { "sys-netlink", 3 },
	{ "sys-abstract-listen", 2 }, { "sys-abstract-dgram", 2 }, { "sys-unix-bind", 2 }, { "sys-shm-rm", 1 }, { "sys-mq-unlink", 1 }, { "sys-mq-create", 1 },
	{ "sys-read", 1 }, { "read", 1 }, { "sys-kill", 2 }, { "sys-ptrace", 1 },
	{ "sys-capdrop", 1 }, { "vfork-threads", 3 },
	{ "tiocsti", 0 }, { "fork", 1 }, { "sys-fork", 1 }, { "thread", 0 },
	{ "spawn-tree", 2 }, { "trap-term", 1 }, { "sleep", 1 }, { "raise", 1 }, { "exit", 1 },
	{ "env", 0 }, { "setenv", 2 }, { "unsetenv", 1 }, { "shim-loaded", 0 },
	{ "execv", -1 }, { "sys-execve", -1 }, { "vfork-exec", -2 },
};

int main(int argc, char **argv)
{
	static char arg[4][PATH_MAX];
	char info[PATH_MAX];
	int i = 1;

	while (i < argc) {
		const char *op = argv[i], *a[4] = { NULL };
		size_t t;
		struct outcome o = { 0, 0, NULL };

		for (t = 0; t < sizeof(table) / sizeof(table[0]); t++)
			if (strcmp(table[t].name, op) == 0)
				break;
		if (t == sizeof(table) / sizeof(table[0]))
			usage("unknown operation");
		if (table[t].args == -2) {
			/* vfork-exec PATH N PROG ARG...: N words of the child's. */
			char *end = NULL, **v;
			long n = i + 2 < argc ? strtol(argv[i + 2], &end, 10) : 0;
			long pid;
			int st = 0;
			if (i + 2 >= argc || *end || n < 1 || n > argc - i - 3)
				usage("vfork-exec PATH N PROG ARG...");
			v = calloc((size_t)n + 1, sizeof(*v));
			if (!v)
				usage("out of memory");
			memcpy(v, argv + i + 3, (size_t)n * sizeof(*v));
			a[0] = expand(argv[i + 1], arg[0], sizeof(arg[0]));
			i += 3 + (int)n;
			STEP(&o, "vfork", pid = vfork_exec(strcmp(a[0], "-") ? a[0] : NULL, v));
			STEP(&o, "waitpid", waitpid((pid_t)pid, &st, 0));
			if (o.ret >= 0)
				o.ret = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
			free(v);
			report(op, o.ret, o.err, o.step);
			continue;
		}
		if (table[t].args < 0) {
			/* execv, sys-execve: the rest of the command line. */
			char *const *rest = argv + i + 1;
			if (!rest[0])
				usage("missing program");
			if (strcmp(op, "execv") == 0)
				execv(rest[0], rest);
			else
				syscall(SYS_execve, rest[0], rest, environ);
			report(op, -1, errno, "exec");
			return 0;
		}
		if (i + table[t].args >= argc)
			usage("missing argument");
		for (int k = 0; k < table[t].args; k++)
			a[k] = expand(argv[i + 1 + k], arg[k], sizeof(arg[k]));
		i += 1 + table[t].args;
		info[0] = '\0';
		errno = 0;

		if (strcmp(op, "write") == 0) {
			o = write_with(open, a[0], O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, a[1]);
		} else if (strcmp(op, "sys-write") == 0) {
			o = write_with(NULL, a[0], O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, a[1]);
		} else if (strcmp(op, "sys-reopen") == 0) {
			o = write_with(NULL, a[0], O_WRONLY | O_CLOEXEC, a[1]);
#ifndef RUN_OPS_STATIC
		} else if (strcmp(op, "rtld-write") == 0) {
			int (*fn)(const char *, int, ...) =
				(int (*)(const char *, int, ...))dlsym(RTLD_NEXT, "open");
			if (!fn)
				usage("dlsym(RTLD_NEXT, open) found nothing");
			o = write_with(fn, a[0], O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, a[1]);
		} else if (strcmp(op, "dlopen-write") == 0) {
			void *libc = dlopen("libc.so.6", RTLD_NOW | RTLD_LOCAL);
			int (*fn)(const char *, int, ...) =
				libc ? (int (*)(const char *, int, ...))dlsym(libc, "open") : NULL;
			if (!fn)
				usage("dlopen(libc.so.6) + dlsym(open) found nothing");
			o = write_with(fn, a[0], O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, a[1]);
#endif
		} else if (strcmp(op, "uring-write") == 0) {
			o = uring_write(a[0], a[1]);
		} else if (strcmp(op, "sys-read") == 0 || strcmp(op, "read") == 0) {
			long fd = -1, n = -1;
			char buf[256];
			if (op[0] == 's') {
				STEP(&o, "open", fd = syscall(SYS_openat, AT_FDCWD, a[0], O_RDONLY));
				STEP(&o, "read", n = syscall(SYS_read, fd, buf, sizeof(buf) - 1));
			} else {
				STEP(&o, "open", fd = open(a[0], O_RDONLY | O_CLOEXEC));
				STEP(&o, "read", n = read((int)fd, buf, sizeof(buf) - 1));
			}
			if (n >= 0) {
				buf[n] = '\0';
				buf[strcspn(buf, " \n")] = '\0';
				snprintf(info, sizeof(info), "%s", buf);
				o.ret = n;
			}
			if (fd >= 0)
				syscall(SYS_close, fd);
		} else if (strcmp(op, "sys-truncate") == 0) {
			STEP(&o, "truncate", syscall(SYS_truncate, a[0], 0L));
		} else if (strcmp(op, "sys-link") == 0) {
			STEP(&o, "link", syscall(SYS_linkat, AT_FDCWD, a[0], AT_FDCWD, a[1], 0));
		} else if (strcmp(op, "sys-rename") == 0) {
			STEP(&o, "rename", syscall(SYS_renameat2, AT_FDCWD, a[0], AT_FDCWD, a[1], 0));
		} else if (strcmp(op, "sys-symlink") == 0) {
			STEP(&o, "symlink", syscall(SYS_symlinkat, a[0], AT_FDCWD, a[1]));
		} else if (strcmp(op, "sys-mount") == 0) {
			STEP(&o, "mount", syscall(SYS_mount, "none", a[0], "tmpfs", 0UL, NULL));
		} else if (strcmp(op, "sys-umount") == 0) {
			STEP(&o, "umount", syscall(SYS_umount2, a[0], MNT_DETACH));
		} else if (strcmp(op, "sys-chroot") == 0) {
			STEP(&o, "chroot", syscall(SYS_chroot, a[0]) < 0 ? -1 : syscall(SYS_chdir, "/"));
		} else if (strcmp(op, "sys-unshare") == 0) {
			STEP(&o, "unshare", syscall(SYS_unshare, CLONE_NEWNS | CLONE_NEWUSER));
		} else if (strcmp(op, "count") == 0) {
			DIR *d = opendir(a[0]);
			STEP(&o, "opendir", d ? 0 : -1);
			for (struct dirent *e; d && (e = readdir(d));)
				if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
					o.ret++;
			if (d)
				closedir(d);
			snprintf(info, sizeof(info), "%s", a[0]);
		} else if (strcmp(op, "pidfile") == 0) {
			char text[32];
			snprintf(text, sizeof(text), "%d\n", (int)getpid());
			o = write_with(open, a[0], O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, text);
		} else if (strcmp(op, "wait") == 0) {
			struct stat st;
			long r;
			int tries = 2000;
			while ((r = syscall(SYS_newfstatat, AT_FDCWD, a[0], &st, 0)) < 0 &&
			       errno == ENOENT && --tries)
				usleep(10 * 1000);
			if (r < 0 && !tries)
				errno = ETIMEDOUT;
			STEP(&o, "stat", r);
		} else if (strcmp(op, "sys-chmod") == 0) {
			STEP(&o, "chmod", raw_chmod(a[0], onum(a[1])));
		} else if (strcmp(op, "sys-fchmodat") == 0) {
			long dir = AT_FDCWD;
			bool nofollow = strcmp(a[3], "nofollow") == 0;
			if (!nofollow && strcmp(a[3], "0") != 0)
				usage("sys-fchmodat: FLAGS is 0 or nofollow");
			if (strcmp(a[0], "-") != 0)
				STEP(&o, "open", dir = syscall(SYS_openat, AT_FDCWD, a[0],
							      O_PATH | O_DIRECTORY | O_CLOEXEC));
			if (nofollow)
				STEP(&o, "fchmodat2", syscall(SYS_fchmodat2, dir, a[1], onum(a[2]),
							      AT_SYMLINK_NOFOLLOW));
			else
				STEP(&o, "fchmodat", syscall(SYS_fchmodat, dir, a[1], onum(a[2])));
			if (dir >= 0)
				syscall(SYS_close, dir);
		} else if (strcmp(op, "sys-chown") == 0 || strcmp(op, "sys-lchown") == 0) {
			STEP(&o, op + 4, raw_chown(a[0], num(a[1]), num(a[2]), op[4] == 'l'));
		} else if (strcmp(op, "sys-utimens") == 0) {
			struct timespec ts[2] = { { num(a[1]), 0 }, { num(a[1]), 0 } };
			STEP(&o, "utimensat", syscall(SYS_utimensat, AT_FDCWD, a[0], ts, 0));
		} else if (strcmp(op, "sys-setxattr") == 0) {
			STEP(&o, "setxattr",
			     syscall(SYS_setxattr, a[0], a[1], a[2], strlen(a[2]), 0));
		} else if (strcmp(op, "sys-fsioctl") == 0) {
			o = fs_ioctl(a[0], a[1]);
		} else if (strcmp(op, "sys-removexattr") == 0) {
			STEP(&o, "removexattr", syscall(SYS_removexattr, a[0], a[1]));
		} else if (strcmp(op, "chmod-race") == 0 || strcmp(op, "connect-race") == 0) {
			race.root_file = a[0];
			race.outside_file = a[1];
			race.link = a[2];
			snprintf(race.flip, sizeof(race.flip), "%s.flip", a[2]);
			/* LINK exists (-> ROOTFILE) before the first chmod. */
			syscall(SYS_unlinkat, AT_FDCWD, race.flip, 0);
			STEP(&o, "setup", syscall(SYS_symlinkat, a[0], AT_FDCWD, race.flip));
			STEP(&o, "setup", syscall(SYS_renameat2, AT_FDCWD, race.flip, AT_FDCWD,
						  a[2], 0));
			if (o.ret >= 0)
				o = chmod_race(flip_link, op[1] == 'h' ? race_chmod : race_connect,
					       a[2], num(a[3]), info, sizeof(info));
			syscall(SYS_unlinkat, AT_FDCWD, race.flip, 0);
		} else if (strcmp(op, "chmod-bytes-race") == 0) {
			race.root_file = a[0];
			race.outside_file = a[1];
			if (strlen(a[0]) >= sizeof(race.buf) || strlen(a[1]) >= sizeof(race.buf))
				usage("chmod-bytes-race: path too long");
			for (size_t k = 0; k <= strlen(a[0]); k++)
				race.buf[k] = a[0][k];
			o = chmod_race(flip_bytes, race_chmod, (const char *)race.buf, num(a[2]),
				       info, sizeof(info));
		} else if (strcmp(op, "chmod-flood") == 0) {
			o = chmod_flood(a[0], num(a[1]), num(a[2]), false, info, sizeof(info));
		} else if (strcmp(op, "write-flood") == 0) {
			o = chmod_flood(a[0], num(a[1]), num(a[2]), true, info, sizeof(info));
		} else if (strcmp(op, "fd-write") == 0) {
			STEP(&o, "write", syscall(SYS_write, num(a[0]), a[1], strlen(a[1])));
		} else if (strcmp(op, "fd-truncate") == 0) {
			STEP(&o, "ftruncate", syscall(SYS_ftruncate, num(a[0]), 0L));
		} else if (strcmp(op, "fd-sum") == 0) {
			uint64_t h = 1469598103934665603ULL;
			char buf[4096];
			long n, off = 0;
			while ((n = syscall(SYS_pread64, num(a[0]), buf, sizeof(buf), off)) > 0) {
				for (long k = 0; k < n; k++)
					h = (h ^ (unsigned char)buf[k]) * 1099511628211ULL;
				off += n;
			}
			STEP(&o, "pread", n);
			if (o.ret >= 0)
				o.ret = off;
			snprintf(info, sizeof(info), "%016llx", (unsigned long long)h);
		} else if (strcmp(op, "fd-find") == 0) {
			o.ret = -1;
			o.err = ENOENT;
			o.step = "find";
			for (int fd = 0; fd < 1024; fd++) {
				char link[64], target[PATH_MAX];
				snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
				ssize_t n = readlink(link, target, sizeof(target) - 1);
				if (n < 0)
					continue;
				target[n] = '\0';
				if (strcmp(target, a[0]) == 0) {
					snprintf(info, sizeof(info), "%d", fd);
					setenv("FOUND_FD", info, 1);
					o.ret = fd;
					break;
				}
			}
			info[0] = '\0';
		} else if (strcmp(op, "open-ro") == 0 || strcmp(op, "open-rw") == 0) {
			long fd = -1;
			STEP(&o, "open", fd = syscall(SYS_openat, AT_FDCWD, a[0],
						      op[6] == 'o' ? O_RDONLY : O_RDWR));
			if (fd >= 0) {
				char v[32];
				snprintf(v, sizeof(v), "%ld", fd);
				setenv("FOUND_FD", v, 1);
				o.ret = fd;
			}
		} else if (strcmp(op, "fd-chmod") == 0) {
			STEP(&o, "fchmod", syscall(SYS_fchmod, num(a[0]), onum(a[1])));
		} else if (strcmp(op, "connect") == 0 || strcmp(op, "bind") == 0) {
			int (*call)(int, const struct sockaddr *, socklen_t) =
				op[0] == 'c' ? connect : bind;
			struct sockaddr_in sa;
			int s = -1;
			sock_addr(a[0], a[1], &sa);
			STEP(&o, "socket", s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
			STEP(&o, op, call(s, (struct sockaddr *)&sa, sizeof(sa)));
			if (s >= 0)
				close(s);
		} else if (strcmp(op, "listen") == 0) {
			struct sockaddr_in sa;
			int s = -1;
			sock_addr(a[0], strcmp(a[1], "-") ? a[1] : "0", &sa);
			STEP(&o, "socket", s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
			if (strcmp(a[1], "-") != 0)
				STEP(&o, "bind", bind(s, (struct sockaddr *)&sa, sizeof(sa)));
			STEP(&o, "listen", listen(s, 4));
			if (s >= 0)
				close(s);
		} else if (strcmp(op, "sys-connect") == 0) {
			struct sockaddr_in sa;
			long s = -1;
			sock_addr(a[0], a[1], &sa);
			STEP(&o, "socket", s = syscall(SYS_socket, AF_INET, SOCK_STREAM, 0));
			STEP(&o, "connect", syscall(SYS_connect, s, &sa, sizeof(sa)));
			if (s >= 0)
				syscall(SYS_close, s);
		} else if (strcmp(op, "uring-connect") == 0) {
			struct sockaddr_in sa;
			sock_addr(a[0], a[1], &sa);
			o = uring_connect(&sa);
		} else if (strcmp(op, "sys-udp") == 0) {
			struct sockaddr_in sa;
			long s = -1;
			sock_addr(a[0], a[1], &sa);
			STEP(&o, "socket", s = syscall(SYS_socket, AF_INET, SOCK_DGRAM, 0));
			STEP(&o, "sendto",
			     syscall(SYS_sendto, s, a[2], strlen(a[2]), 0, &sa, sizeof(sa)));
			if (s >= 0)
				syscall(SYS_close, s);
		} else if (strcmp(op, "sys-tfo") == 0) {
			struct sockaddr_in sa;
			struct iovec iov = { .iov_base = (void *)"hello", .iov_len = 5 };
			struct mmsghdr mm = { .msg_hdr = { .msg_name = &sa, .msg_namelen = sizeof(sa),
							   .msg_iov = &iov, .msg_iovlen = 1 } };
			long s = -1;
			sock_addr(a[0], a[1], &sa);
			STEP(&o, "socket", s = syscall(SYS_socket, AF_INET, SOCK_STREAM, 0));
			if (strcmp(a[2], "sendto") == 0)
				STEP(&o, "sendto", syscall(SYS_sendto, s, "hello", 5, MSG_FASTOPEN, &sa,
							   sizeof(sa)));
			else if (strcmp(a[2], "sendmsg") == 0)
				STEP(&o, "sendmsg", syscall(SYS_sendmsg, s, &mm.msg_hdr, MSG_FASTOPEN));
			else if (strcmp(a[2], "sendmmsg") == 0)
				STEP(&o, "sendmmsg", syscall(SYS_sendmmsg, s, &mm, 1, MSG_FASTOPEN));
			else
				usage("sys-tfo: CALL is sendto, sendmsg or sendmmsg");
			if (s >= 0)
				syscall(SYS_close, s);
		} else if (strcmp(op, "sys-socket-proto") == 0) {
			long s = -1;
			STEP(&o, "socket", s = syscall(SYS_socket, AF_INET, SOCK_STREAM, num(a[0])));
			if (s >= 0)
				syscall(SYS_close, s);
		} else if (strcmp(op, "sys-listen") == 0) {
			struct sockaddr_in sa;
			socklen_t len = sizeof(sa);
			long s = -1;
			sock_addr(a[0], strcmp(a[1], "-") ? a[1] : "0", &sa);
			STEP(&o, "socket", s = syscall(SYS_socket, AF_INET, SOCK_STREAM, 0));
			if (strcmp(a[1], "-") != 0)
				STEP(&o, "bind", syscall(SYS_bind, s, &sa, sizeof(sa)));
			STEP(&o, "listen", syscall(SYS_listen, s, 4));
			STEP(&o, "getsockname", syscall(SYS_getsockname, s, &sa, &len));
			if (o.ret >= 0)
				snprintf(info, sizeof(info), "%u", (unsigned)ntohs(sa.sin_port));
			if (s >= 0)
				syscall(SYS_close, s);
		} else if (strcmp(op, "sys-netlink") == 0) {
			struct sockaddr_nl nl = { .nl_family = AF_NETLINK };
			struct nlmsghdr noop = { .nlmsg_len = sizeof(noop), .nlmsg_type = NLMSG_NOOP };
			socklen_t len = sizeof(nl);
			long s = -1;
			STEP(&o, "socket", s = syscall(SYS_socket, AF_NETLINK, SOCK_RAW, num(a[0])));
			if (strcmp(a[2], "sendto") == 0) {
				nl.nl_pid = (uint32_t)num(a[1]);
				STEP(&o, a[2], syscall(SYS_sendto, s, &noop, sizeof(noop), 0, &nl,
							sizeof(nl)));
			} else if (strcmp(a[2], "bind") == 0 || strcmp(a[2], "connect") == 0) {
				nl.nl_groups = (uint32_t)num(a[1]);
				STEP(&o, a[2], syscall(a[2][0] == 'b' ? SYS_bind : SYS_connect, s, &nl,
							sizeof(nl)));
			} else {
				usage("sys-netlink: HOW is bind, connect or sendto");
			}
			STEP(&o, "getsockname", syscall(SYS_getsockname, s, &nl, &len));
			if (o.ret >= 0 && nl.nl_pid == (uint32_t)syscall(SYS_getpid))
				snprintf(info, sizeof(info), "self");
			else if (o.ret >= 0)
				snprintf(info, sizeof(info), "%u", (unsigned)nl.nl_pid);
			if (s >= 0)
				syscall(SYS_close, s);
		} else if (strcmp(op, "sys-abstract-dgram") == 0) {
			struct sockaddr_un sun;
			socklen_t len = abstract_addr(a[0], &sun);
			char buf[64];
			long s = -1;
			STEP(&o, "socket", s = syscall(SYS_socket, AF_UNIX, SOCK_DGRAM | SOCK_NONBLOCK, 0));
			STEP(&o, "bind", syscall(SYS_bind, s, &sun, len));
			if (o.ret >= 0) {
				sleep((unsigned)num(a[1]));
				while (syscall(SYS_recvfrom, s, buf, sizeof(buf), 0, NULL, NULL) >= 0)
					o.ret++;
			}
			if (s >= 0)
				syscall(SYS_close, s);
		} else if (strcmp(op, "sys-unix-bind") == 0) {
			struct sockaddr_un sun = { .sun_family = AF_UNIX };
			socklen_t len = sizeof(sa_family_t);
			long s = -1;
			if (strcmp(a[0], "-") != 0)
				len = unix_path_addr(a[0], &sun);
			syscall(SYS_umask, (mode_t)strtoul(a[1], NULL, 8));
			STEP(&o, "socket", s = syscall(SYS_socket, AF_UNIX, SOCK_STREAM, 0));
			STEP(&o, "bind", syscall(SYS_bind, s, &sun, len));
			if (s >= 0)
				syscall(SYS_close, s);
		} else if (strcmp(op, "sys-abstract-listen") == 0) {
			struct sockaddr_un sun;
			socklen_t len = abstract_addr(a[0], &sun);
			long s = -1, c;
			STEP(&o, "socket", s = syscall(SYS_socket, AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0));
			STEP(&o, "bind", syscall(SYS_bind, s, &sun, len));
			STEP(&o, "listen", syscall(SYS_listen, s, 4));
			if (o.ret >= 0) {
				sleep((unsigned)num(a[1]));
				while ((c = syscall(SYS_accept4, s, NULL, NULL, SOCK_CLOEXEC)) >= 0) {
					syscall(SYS_close, c);
					o.ret++;
				}
			}
			if (s >= 0)
				syscall(SYS_close, s);
		} else if (strcmp(op, "sem") == 0) {
			sem_t *sem = SEM_FAILED;
			int v = -1;
			STEP(&o, "sem_open", (sem = sem_open(a[0], O_CREAT | O_EXCL, 0600, 0)) ==
							 SEM_FAILED ? -1 : 0);
			STEP(&o, "sem_post", sem_post(sem));
			STEP(&o, "sem_getvalue", sem_getvalue(sem, &v));
			STEP(&o, "sem_close", sem_close(sem));
			if (o.ret >= 0)
				o.ret = v;
		} else if (strcmp(op, "sem-unlink") == 0) {
			STEP(&o, "sem_unlink", sem_unlink(a[0]));
		} else if (strcmp(op, "shm") == 0) {
			char buf[64] = "";
			int fd = -1;
			ssize_t got = 0;
			STEP(&o, "shm_open", fd = shm_open(a[0], O_CREAT | O_RDWR, 0600));
			STEP(&o, "write", write(fd, a[1], strlen(a[1])));
			if (fd >= 0)
				close(fd);
			STEP(&o, "shm_open", fd = shm_open(a[0], O_RDONLY, 0));
			STEP(&o, "read", got = read(fd, buf, sizeof(buf) - 1));
			if (fd >= 0)
				close(fd);
			buf[got > 0 ? got : 0] = '\0';
			snprintf(info, sizeof(info), "%s", buf);
			STEP(&o, "shm_unlink", shm_unlink(a[0]));
		} else if (strcmp(op, "sys-shm-rm") == 0) {
			long id = -1;
			STEP(&o, "shmget", id = syscall(SYS_shmget, num(a[0]), 0, 0));
			STEP(&o, "shmctl", syscall(SYS_shmctl, id, IPC_RMID, NULL));
		} else if (strcmp(op, "sys-mq-unlink") == 0) {
			STEP(&o, "mq_unlink", syscall(SYS_mq_unlink, a[0]));
		} else if (strcmp(op, "sys-mq-create") == 0) {
			long q = -1;
			STEP(&o, "mq_open",
			     q = syscall(SYS_mq_open, a[0], O_CREAT | O_RDONLY | O_CLOEXEC, 0600, NULL));
			if (q >= 0)
				syscall(SYS_close, q);
		} else if (strcmp(op, "sys-abstract") == 0) {
			struct sockaddr_un sun;
			socklen_t len = abstract_addr(a[0], &sun);
			long s = -1;
			STEP(&o, "socket", s = syscall(SYS_socket, AF_UNIX, SOCK_STREAM, 0));
			STEP(&o, "connect", syscall(SYS_connect, s, &sun, len));
			if (s >= 0)
				syscall(SYS_close, s);
		} else if (strcmp(op, "sys-unix") == 0 || strcmp(op, "sys-unix-dgram") == 0) {
			struct sockaddr_un sun;
			socklen_t len = unix_path_addr(a[0], &sun);
			bool dgram = strcmp(op, "sys-unix-dgram") == 0;
			int type = dgram ? SOCK_DGRAM : SOCK_STREAM;
			long s = -1;
			if (!dgram && strcmp(a[1], "nonblock") == 0)
				type |= SOCK_NONBLOCK;
			else if (!dgram && strcmp(a[1], "block") != 0)
				usage("sys-unix: HOW is block or nonblock");
			STEP(&o, "socket", s = syscall(SYS_socket, AF_UNIX, type, 0));
			STEP(&o, "connect", syscall(SYS_connect, s, &sun, len));
			STEP(&o, "write", syscall(SYS_write, s, "hello", 5));
			if (s >= 0)
				syscall(SYS_close, s);
		} else if (strcmp(op, "sys-unix-sendto") == 0) {
			struct sockaddr_un sun;
			socklen_t len = unix_path_addr(a[0], &sun);
			long s = -1, sent = 0;
			STEP(&o, "socket", s = syscall(SYS_socket, AF_UNIX, SOCK_DGRAM, 0));
			STEP(&o, "sendto", sent = syscall(SYS_sendto, s, a[1], strlen(a[1]), 0, &sun, len));
			if (o.ret >= 0)
				o.ret = sent;
			if (s >= 0)
				syscall(SYS_close, s);
		} else if (strcmp(op, "sys-unix-fill") == 0 ||
			   strcmp(op, "sys-unix-sendto-alarm") == 0) {
			struct sockaddr_un sun;
			socklen_t len = unix_path_addr(a[0], &sun);
			long s = -1, r;
			STEP(&o, "socket", s = syscall(SYS_socket, AF_UNIX, SOCK_DGRAM, 0));
			if (o.ret >= 0 && op[9] == 'f') {
				while ((r = syscall(SYS_sendto, s, "fill", 4, MSG_DONTWAIT, &sun, len)) == 4)
					o.ret++;
				if (r < 0 && errno != EAGAIN)
					STEP(&o, "sendto", r);
			} else if (o.ret >= 0) {
				struct sigaction sa = { .sa_handler = on_alarm };
				sigaction(SIGALRM, &sa, NULL);
				alarm(1);
				STEP(&o, "sendto", syscall(SYS_sendto, s, "late", 4, 0, &sun, len));
				alarm(0);
			}
			if (s >= 0)
				syscall(SYS_close, s);
		} else if (strcmp(op, "sys-unix-sendto-n") == 0) {
			struct sockaddr_un sun;
			socklen_t len = unix_path_addr(a[0], &sun);
			long s = -1, count = num(a[1]);
			char msg[24];
			STEP(&o, "socket", s = syscall(SYS_socket, AF_UNIX, SOCK_DGRAM, 0));
			for (long k = 0; o.ret >= 0 && k < count; k++) {
				int m = snprintf(msg, sizeof(msg), "%ld", k);
				STEP(&o, "sendto", syscall(SYS_sendto, s, msg, (size_t)m, 0, &sun, len));
				if (o.ret >= 0)
					o.ret = k + 1;
			}
			if (s >= 0)
				syscall(SYS_close, s);
		} else if (strcmp(op, "sys-kill") == 0) {
			STEP(&o, "kill", syscall(SYS_kill, num(a[0]), num(a[1])));
		} else if (strcmp(op, "vfork-threads") == 0) {
			int nt = atoi(a[0]), n = atoi(a[1]);
			struct vfork_share *v = calloc((size_t)(nt > 0 ? nt : 1), sizeof(*v));
			ssize_t len = readlink("/proc/self/exe", v ? v[0].self : info, PATH_MAX - 1);
			if (!v || nt < 1 || n < 1 || len <= 0)
				usage("vfork-threads T N DIR");
			v[0].self[len] = '\0';
			for (int k = 0; k < nt; k++) {
				memcpy(v[k].self, v[0].self, (size_t)len + 1);
				v[k].t = k;
				v[k].n = n;
				v[k].dir = a[2];
				if (pthread_create(&v[k].th, NULL, vfork_thread, &v[k]))
					usage("pthread_create");
			}
			for (int k = 0; k < nt; k++) {
				pthread_join(v[k].th, NULL);
				o.ret += v[k].failed;
			}
			free(v);
		} else if (strcmp(op, "sys-capdrop") == 0) {
			struct __user_cap_header_struct hdr = { _LINUX_CAPABILITY_VERSION_3, 0 };
			struct __user_cap_data_struct caps[2];
			unsigned n = (unsigned)strtoul(a[0], NULL, 10);
			STEP(&o, "capget", syscall(SYS_capget, &hdr, caps));
			if (n < 64)
				caps[n / 32].effective &= ~(1U << (n % 32));
			STEP(&o, "capset", syscall(SYS_capset, &hdr, caps));
		} else if (strcmp(op, "sys-ptrace") == 0) {
			long r = -1;
			STEP(&o, "ptrace", r = syscall(SYS_ptrace, PTRACE_ATTACH, num(a[0]), NULL, NULL));
			if (r == 0) {
				waitpid((pid_t)num(a[0]), NULL, __WALL);
				syscall(SYS_ptrace, PTRACE_DETACH, num(a[0]), NULL, NULL);
			}
		} else if (strcmp(op, "tiocsti") == 0) {
			int m = -1, s = -1;
			char c = 'x';
			STEP(&o, "posix_openpt", m = posix_openpt(O_RDWR | O_NOCTTY));
			STEP(&o, "grantpt", grantpt(m));
			STEP(&o, "unlockpt", unlockpt(m));
			STEP(&o, "open", s = open(ptsname(m), O_RDWR | O_NOCTTY));
			STEP(&o, "ioctl", syscall(SYS_ioctl, s, TIOCSTI, &c));
			if (s >= 0)
				close(s);
			if (m >= 0)
				close(m);
		} else if (strcmp(op, "fork") == 0 || strcmp(op, "sys-fork") == 0) {
			long pid = -1;
			int st = 0;
			STEP(&o, "fork", pid = op[0] == 'f' ? fork() : syscall(SYS_fork));
			if (pid == 0) {
				long fd = syscall(SYS_openat, AT_FDCWD, a[0], O_WRONLY | O_CREAT, 0644);
				_exit(fd >= 0 ? 0 : 1);
			}
			STEP(&o, "waitpid", waitpid((pid_t)pid, &st, 0));
			if (o.ret >= 0)
				o.ret = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
		} else if (strcmp(op, "thread") == 0) {
			pthread_t th;
			int r = pthread_create(&th, NULL, thread_main, NULL);
			if (r) {
				o.ret = -1;
				o.err = r;
				o.step = "pthread_create";
			} else {
				pthread_join(th, NULL);
				o.ret = thread_ran ? 0 : -1;
			}
		} else if (strcmp(op, "spawn-tree") == 0) {
			o = spawn_tree(a[0]);
			if (o.ret >= 0 && strcmp(a[1], "wait") == 0) {
				report(op, 0, 0, NULL);
				sleep_long();
			}
		} else if (strcmp(op, "trap-term") == 0) {
			struct sigaction sa = { .sa_handler = on_term };
			snprintf(term_marker, sizeof(term_marker), "%s", a[0]);
			STEP(&o, "sigaction", sigaction(SIGTERM, &sa, NULL));
		} else if (strcmp(op, "sleep") == 0) {
			for (long s = num(a[0]); s > 0; s--)
				sleep(1);
		} else if (strcmp(op, "raise") == 0) {
			STEP(&o, "kill", syscall(SYS_kill, getpid(), num(a[0])));
			usleep(100 * 1000);
		} else if (strcmp(op, "exit") == 0) {
			exit((int)num(a[0]));
		} else if (strcmp(op, "env") == 0) {
			for (char **e = environ; *e; e++)
				dprintf(1, "env:%s\n", *e);
		} else if (strcmp(op, "setenv") == 0) {
			STEP(&o, "setenv", setenv(a[0], a[1], 1));
		} else if (strcmp(op, "unsetenv") == 0) {
			STEP(&o, "unsetenv", unsetenv(a[0]));
		} else if (strcmp(op, "shim-loaded") == 0) {
			o.ret = shim_loaded();
		} else {
			usage("operation not in this build");
		}
		if (o.ret < 0 && o.step)
			snprintf(info, sizeof(info), "%s", o.step);
		report(op, o.ret, o.ret < 0 ? o.err : 0, info);
	}
	return 0;
}
