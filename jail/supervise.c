/*
 * supervise.c - the calls Landlock cannot see, answered by cordon itself.
 *
 * Landlock does not govern chmod, chown, utimes or extended attributes. The
 * seccomp filter sends these system calls to cordon (SECCOMP_RET_USER_NOTIF):
 * the program stops in the call while cordon, outside the sandbox, reads its
 * arguments, finds the object the way the kernel would (from the program's
 * working directory or descriptor), decides with the policy, and makes the
 * call itself on the object it opened, with the program's credentials. The
 * program's memory and the file system are read once: a thread that rewrites
 * the path or swaps a symlink after that changes nothing, because the call
 * acts on the descriptor opened then. The call is never handed back to the
 * kernel to continue (SECCOMP_USER_NOTIF_FLAG_CONTINUE would reread both);
 * only chroot is, which comes here to be noted, not decided
 * (roots_may_differ).
 *
 * Descriptor forms (fchmod, fchown, futimens, fsetxattr) are allowed on a
 * descriptor open for writing (Landlock let that open through, so the file
 * is one the program may write) and otherwise decided on the file's path.
 *
 * connect(2) comes here too, whatever the address: the filter cannot read
 * the address (it is in memory) nor tell a unix socket from a TCP one (a
 * descriptor number), and Landlock does not govern connecting to a
 * pathname unix socket. The supervisor takes the program's socket itself
 * (pidfd_getfd: the same open socket, with its options, bound name and
 * flags), decides on the address it read, and connects that socket: a unix
 * socket through an O_PATH descriptor of the socket file it resolved and
 * checked, anything else to the bytes it decided on. A connect that may
 * block (a blocking socket) is made by a thread of its own, so that one
 * slow peer never stalls the other calls.
 *
 * sendto(2) with an address comes the same way (supervise_sendto): the
 * bytes are sent by cordon on the program's socket, to the address decided.
 *
 * Under net none, listen(2) comes too: on a TCP socket bound to no port it
 * binds one at random, and Landlock checks bind(2) only. And bind(2)
 * itself (supervise_bind): an abstract unix name is out of Landlock's
 * sight, and a datagram socket needs no listen.
 */
#ifdef __linux__

#include <errno.h>
#include <fcntl.h>
#include <linux/net.h>
#include <linux/netlink.h>
#include <linux/seccomp.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stddef.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <sys/xattr.h>
#include <unistd.h>
#include <linux/capability.h>

#include "../shim/log.h"
#include "../shim/policy.h"
#include "jail.h"
#include "layers.h"

#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif
#ifndef SYS_pidfd_getfd
#define SYS_pidfd_getfd 438
#endif
#ifndef PIDFD_THREAD
#define PIDFD_THREAD O_EXCL
#endif
#ifndef SYS_fchmodat2
#define SYS_fchmodat2 452  /* Linux 6.6; one number on every architecture */
#endif
#ifndef AUDIT_ARCH_I386
#define AUDIT_ARCH_I386 0x40000003u
#endif
#ifndef XATTR_NAME_MAX  /* <linux/limits.h>: glibc's <limits.h> has it, musl's not */
#define XATTR_NAME_MAX 255
#define XATTR_SIZE_MAX 65536
#endif

enum meta { M_CHMOD, M_CHOWN, M_UTIME, M_UTIMES, M_UTIMENS, M_UTIMENS64, M_SETXATTR, M_RMXATTR,
	    M_CONNECT, M_CHROOT, M_LISTEN, M_IOCTL, M_SENDTO, M_BIND };

/* When the filter sends a call here: always, under net none only, or as
 * seccomp-rules.c's own rules for it say (ioctl: the commands of
 * supervised_ioctls(); sendto: with an address). */
enum send { ALWAYS, NET_NONE_ONLY, BY_ARGUMENTS };

/* Where each call keeps its object: the argument of the directory
 * descriptor (-1: none, AT_FDCWD), of the path (-1: the descriptor is the
 * object), of the at-flags (-1: none). The call's own arguments follow. */
static const struct meta_call {
	const char *name;
	enum meta kind;
	signed char dirfd, path, flags;
	bool nofollow;
	enum send send;
} calls[] = {
	{ "chmod", M_CHMOD, -1, 0, -1, false, ALWAYS },
	{ "fchmod", M_CHMOD, 0, -1, -1, false, ALWAYS },
	{ "fchmodat", M_CHMOD, 0, 1, -1, false, ALWAYS },
	{ "fchmodat2", M_CHMOD, 0, 1, 3, false, ALWAYS },
	{ "chown", M_CHOWN, -1, 0, -1, false, ALWAYS },
	{ "lchown", M_CHOWN, -1, 0, -1, true, ALWAYS },
	{ "fchown", M_CHOWN, 0, -1, -1, false, ALWAYS },
	{ "fchownat", M_CHOWN, 0, 1, 4, false, ALWAYS },
	{ "chown32", M_CHOWN, -1, 0, -1, false, ALWAYS },
	{ "lchown32", M_CHOWN, -1, 0, -1, true, ALWAYS },
	{ "fchown32", M_CHOWN, 0, -1, -1, false, ALWAYS },
	{ "utime", M_UTIME, -1, 0, -1, false, ALWAYS },
	{ "utimes", M_UTIMES, -1, 0, -1, false, ALWAYS },
	{ "futimesat", M_UTIMES, 0, 1, -1, false, ALWAYS },
	{ "utimensat", M_UTIMENS, 0, 1, 3, false, ALWAYS },
	{ "utimensat_time64", M_UTIMENS64, 0, 1, 3, false, ALWAYS },
	{ "setxattr", M_SETXATTR, -1, 0, -1, false, ALWAYS },
	{ "lsetxattr", M_SETXATTR, -1, 0, -1, true, ALWAYS },
	{ "fsetxattr", M_SETXATTR, 0, -1, -1, false, ALWAYS },
	{ "removexattr", M_RMXATTR, -1, 0, -1, false, ALWAYS },
	{ "lremovexattr", M_RMXATTR, -1, 0, -1, true, ALWAYS },
	{ "fremovexattr", M_RMXATTR, 0, -1, -1, false, ALWAYS },
	/* i386's socketcall(SYS_CONNECT, args) comes too: libseccomp turns a
	 * rule on connect into one on that as well (find_call). */
	{ "connect", M_CONNECT, -1, -1, -1, false, ALWAYS },
	/* Only watched: see roots_may_differ. */
	{ "chroot", M_CHROOT, -1, -1, -1, false, ALWAYS },
	/* listen(2) on a socket bound to no port binds one at random, which
	 * Landlock's bind rule does not see (supervise_listen). */
	{ "listen", M_LISTEN, -1, -1, -1, false, NET_NONE_ONLY },
	/* bind(2) under net none: a unix datagram socket bound to an
	 * abstract name needs no listen to receive (supervise_bind). */
	{ "bind", M_BIND, -1, -1, -1, false, NET_NONE_ONLY },
	/* The ioctls that change an inode's attributes (supervised_ioctls). */
	{ "ioctl", M_IOCTL, 0, -1, -1, false, BY_ARGUMENTS },
	/* A datagram to a unix socket by its path (supervise_sendto). */
	{ "sendto", M_SENDTO, -1, -1, -1, false, BY_ARGUMENTS },
};

/* socketcall(SYS_CONNECT), (SYS_LISTEN): the arguments are 32-bit words
 * in memory. */
static const struct meta_call socketcall_connect = { "connect", M_CONNECT, -1, -1, -1, false,
						      ALWAYS };
static const struct meta_call socketcall_listen = { "listen", M_LISTEN, -1, -1, -1, false,
						     NET_NONE_ONLY };
static const struct meta_call socketcall_sendto = { "sendto", M_SENDTO, -1, -1, -1, false,
						     BY_ARGUMENTS };
static const struct meta_call socketcall_bind = { "bind", M_BIND, -1, -1, -1, false,
						   NET_NONE_ONLY };

/*
 * The ioctls that change a file's attributes with no more than a
 * descriptor open for reading, where Landlock (which governs ioctls on
 * devices only) does not look: inode flags (chattr: noatime, nodump, ...;
 * immutable and append-only need CAP_LINUX_IMMUTABLE, which the program
 * lacks), the extended attributes of XFS's interface (project id,
 * extent size), the inode generation (ext4's own ioctl for it too),
 * ext4's migration of an inode to extents, fs-verity (which makes a file
 * read-only for good) and an encryption policy. The 32-bit forms come
 * from 32-bit programs (the kernel's compat layer maps them).
 *
 * And btrfs's subvolume ioctls, which make, snapshot and remove
 * directories (and make a subvolume read-only, or mark it received) from a
 * descriptor of the parent or the subvolume, without the hooks of mkdir and rmdir that Landlock decides in:
 * refused everywhere, the roots too (cordon does not make them for the
 * program), here rather than in the filter so that the refusal is logged.
 */
#define FS_IOC_SETFLAGS_ 0x40086602u     /* _IOW('f', 2, long) */
#define FS_IOC32_SETFLAGS_ 0x40046602u   /* _IOW('f', 2, int) */
#define FS_IOC_SETVERSION_ 0x40087602u   /* _IOW('v', 2, long) */
#define FS_IOC32_SETVERSION_ 0x40047602u /* _IOW('v', 2, int) */
#define FS_IOC_FSSETXATTR_ 0x401c5820u   /* _IOW('X', 32, struct fsxattr) */
#define FS_IOC_ENABLE_VERITY_ 0x40806685u /* _IOW('f', 133, struct fsverity_enable_arg) */
#define FS_IOC_SET_ENCRYPTION_POLICY_ 0x800c6613u /* _IOR('f', 19, struct fscrypt_policy_v1) */
#define EXT4_IOC_SETVERSION_ 0x40086604u   /* _IOW('f', 4, long): ext4's own, as FS_IOC_SETVERSION */
#define EXT4_IOC32_SETVERSION_ 0x40046604u /* _IOW('f', 4, int) */
#define EXT4_IOC_MIGRATE_ 0x6609u          /* _IO('f', 9): the inode rewritten to extents */
#define REFUSED 0u
static const struct {
	uint32_t cmd, native;        /* as the program asks; as cordon makes it, or REFUSED */
	const char *name;
} ioctls[] = {
	{ FS_IOC_SETFLAGS_, FS_IOC_SETFLAGS_, "FS_IOC_SETFLAGS" },
	{ FS_IOC32_SETFLAGS_, FS_IOC_SETFLAGS_, "FS_IOC32_SETFLAGS" },
	{ FS_IOC_SETVERSION_, FS_IOC_SETVERSION_, "FS_IOC_SETVERSION" },
	{ FS_IOC32_SETVERSION_, FS_IOC_SETVERSION_, "FS_IOC32_SETVERSION" },
	{ FS_IOC_FSSETXATTR_, FS_IOC_FSSETXATTR_, "FS_IOC_FSSETXATTR" },
	{ FS_IOC_ENABLE_VERITY_, FS_IOC_ENABLE_VERITY_, "FS_IOC_ENABLE_VERITY" },
	{ FS_IOC_SET_ENCRYPTION_POLICY_, FS_IOC_SET_ENCRYPTION_POLICY_,
	  "FS_IOC_SET_ENCRYPTION_POLICY" },
	{ EXT4_IOC_SETVERSION_, EXT4_IOC_SETVERSION_, "EXT4_IOC_SETVERSION" },
	{ EXT4_IOC32_SETVERSION_, EXT4_IOC_SETVERSION_, "EXT4_IOC32_SETVERSION" },
	{ EXT4_IOC_MIGRATE_, EXT4_IOC_MIGRATE_, "EXT4_IOC_MIGRATE" },
	{ 0x5000940eu, REFUSED, "BTRFS_IOC_SUBVOL_CREATE" },  /* _IOW(0x94, 14, vol_args) */
	{ 0x50009418u, REFUSED, "BTRFS_IOC_SUBVOL_CREATE_V2" },
	{ 0x50009401u, REFUSED, "BTRFS_IOC_SNAP_CREATE" },
	{ 0x50009417u, REFUSED, "BTRFS_IOC_SNAP_CREATE_V2" },
	{ 0x5000940fu, REFUSED, "BTRFS_IOC_SNAP_DESTROY" },
	{ 0x5000943fu, REFUSED, "BTRFS_IOC_SNAP_DESTROY_V2" },
	{ 0x4008941au, REFUSED, "BTRFS_IOC_SUBVOL_SETFLAGS" },  /* _IOW(0x94, 26, __u64) */
	{ 0xc0c89425u, REFUSED, "BTRFS_IOC_SET_RECEIVED_SUBVOL" },  /* _IOWR(0x94, 37, 200 bytes) */
	{ 0xc0c09425u, REFUSED, "BTRFS_IOC_SET_RECEIVED_SUBVOL_32" },  /* i386's: 192 bytes */
};

size_t supervised_names(const char **names, size_t max)
{
	size_t n = 0;

	for (size_t i = 0; i < sizeof(calls) / sizeof(calls[0]) && n < max; i++)
		names[n++] = calls[i].name;
	return n;
}

size_t supervised_calls(const char **names, size_t max, bool net_none)
{
	size_t n = 0;

	for (size_t i = 0; i < sizeof(calls) / sizeof(calls[0]) && n < max; i++)
		if (calls[i].send == ALWAYS || (net_none && calls[i].send == NET_NONE_ONLY))
			names[n++] = calls[i].name;
	return n;
}

size_t supervised_ioctls(uint32_t *cmds, size_t max)
{
	size_t n = 0;

	for (size_t i = 0; i < sizeof(ioctls) / sizeof(ioctls[0]) && n < max; i++)
		cmds[n++] = ioctls[i].cmd;
	return n;
}

/* Read @len bytes of the program's memory at @addr. */
static int peek(pid_t pid, uint64_t addr, void *buf, size_t len)
{
	struct iovec local = { buf, len }, remote = { (void *)(uintptr_t)addr, len };
	ssize_t n = process_vm_readv(pid, &local, 1, &remote, 1, 0);

	if (n == (ssize_t)len)
		return 0;
	return n < 0 && errno == ESRCH ? -ESRCH : -EFAULT;
}

/* A NUL-terminated string of at most @max bytes (with its NUL) at @addr,
 * read page by page: the string may end just before an unmapped page. */
static int peek_string(pid_t pid, uint64_t addr, char *buf, size_t max, int toolong)
{
	size_t got = 0;

	while (got < max) {
		size_t page = 4096 - ((addr + got) & 4095), want = max - got < page ? max - got : page;
		int r = peek(pid, addr + got, buf + got, want);
		if (r)
			return r;
		char *nul = memchr(buf + got, '\0', want);
		if (nul)
			return 0;
		got += want;
	}
	return -toolong;
}

/* The program's credentials: from /proc/PID/status, or as cordon's (creds_of). */
struct creds {
	pid_t tgid;
	uid_t fsuid;
	gid_t fsgid;
	int ngroups;
	gid_t groups[64];
	uint64_t cap_eff;
	bool own_userns;    /* in a user namespace of its own: ids need mapping */
	bool as_self;       /* acting as cordon is acting as it (creds_of) */
};

/* The supervisor's own identity, which only creds_assume/creds_restore
 * change and always put back: read once. */
static struct {
	bool known;
	struct stat root, userns;
	uid_t euid;
	gid_t egid;
	int ngroups;
	gid_t groups[64];
	struct __user_cap_data_struct caps[2];
} self;

static int self_known(void)
{
	struct __user_cap_header_struct hdr = { _LINUX_CAPABILITY_VERSION_3, 0 };

	if (self.known)
		return 0;
	if (stat("/", &self.root) < 0 || stat("/proc/self/ns/user", &self.userns) < 0 ||
	    (self.ngroups = getgroups(64, self.groups)) < 0 ||
	    syscall(SYS_capget, &hdr, self.caps) < 0)
		return -errno;
	self.euid = geteuid();
	self.egid = getegid();
	self.known = true;
	return 0;
}

static bool same_inode(const struct stat *a, const struct stat *b)
{
	return a->st_dev == b->st_dev && a->st_ino == b->st_ino;
}

/* /proc/@pid/status into @buf, NUL-terminated. 0 or -ESRCH. */
static int read_status(pid_t pid, char *buf, size_t size)
{
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -ESRCH;
	ssize_t n = read(fd, buf, size - 1);
	close(fd);
	if (n <= 0)
		return -ESRCH;
	buf[n] = '\0';
	return 0;
}

/* @unshare: the policy lets the program make user namespaces (userns yes). */
static int read_creds(pid_t pid, bool unshare, struct creds *c)
{
	char path[64], buf[4096];
	c->as_self = false;
	if (read_status(pid, buf, sizeof(buf)))
		return -ESRCH;
	unsigned long r, e, s, f;
	char *p;
	if (!(p = strstr(buf, "\nUid:")) || sscanf(p + 5, "%lu %lu %lu %lu", &r, &e, &s, &f) != 4)
		return -ESRCH;
	c->fsuid = (uid_t)f;
	if (!(p = strstr(buf, "\nGid:")) || sscanf(p + 5, "%lu %lu %lu %lu", &r, &e, &s, &f) != 4)
		return -ESRCH;
	c->fsgid = (gid_t)f;
	c->ngroups = 0;
	if ((p = strstr(buf, "\nGroups:"))) {
		p += 8;
		char *end;
		while (c->ngroups < 64) {
			unsigned long g = strtoul(p, &end, 10);
			if (end == p)
				break;
			c->groups[c->ngroups++] = (gid_t)g;
			p = end;
		}
	}
	if (!(p = strstr(buf, "\nCapEff:")))
		return -ESRCH;
	c->cap_eff = strtoull(p + 8, NULL, 16);
	if (!(p = strstr(buf, "\nTgid:")))
		return -ESRCH;
	c->tgid = (pid_t)strtol(p + 6, NULL, 10);
	/* The ids above are shown in our namespace; the capabilities are
	 * the program's in its own: in a user namespace of its own (userns
	 * yes) they give it nothing over our files. With userns no the
	 * filter refuses every way into one (see creds_of). */
	if (!unshare) {
		c->own_userns = false;
		return 0;
	}
	struct stat ns;
	snprintf(path, sizeof(path), "/proc/%d/ns/user", (int)pid);
	c->own_userns = stat(path, &ns) != 0 || !same_inode(&ns, &self.userns);
	if (c->own_userns)
		c->cap_eff = 0;
	return 0;
}

#define CAP(n) (1ULL << (n))
static uint64_t self_eff(void)
{
	return (uint64_t)self.caps[1].effective << 32 | self.caps[0].effective;
}

/* Of @relevant, the capabilities that can change a call's outcome for a
 * program whose effective set is @eff: with CAP_DAC_OVERRIDE,
 * CAP_DAC_READ_SEARCH grants nothing more to a lookup or an O_PATH open. */
static uint64_t caps_that_matter(uint64_t relevant, uint64_t eff)
{
	return eff & CAP(CAP_DAC_OVERRIDE) ? relevant & ~CAP(CAP_DAC_READ_SEARCH) : relevant;
}

/*
 * The credentials of thread @tid that a call whose outcome depends on
 * @relevant capabilities needs. A thread that has every one of them that
 * cordon has, and cannot be in a user namespace of its own (userns no: the
 * filter refuses every way into one), is overridden by no check of its ids
 * or groups that those capabilities decide: acting as cordon is acting as
 * it. That takes one capget (1.6 us here) instead of /proc/PID/status
 * (12.5 us); tgid is then left 0 (open_pidfd finds the process).
 */
static int creds_of(pid_t tid, uint64_t relevant, bool unshare, struct creds *c)
{
	struct __user_cap_header_struct hdr = { _LINUX_CAPABILITY_VERSION_3, tid };
	struct __user_cap_data_struct d[2];

	if (!unshare && syscall(SYS_capget, &hdr, d) == 0) {
		uint64_t eff = (uint64_t)d[1].effective << 32 | d[0].effective;
		if ((self_eff() & caps_that_matter(relevant, eff) & ~eff) == 0) {
			memset(c, 0, sizeof(*c));
			c->cap_eff = eff;
			c->as_self = true;
			return 0;
		}
	}
	return read_creds(tid, unshare, c);
}

/* A pidfd of the process of thread @tid, whose credentials are @c;
 * *@thread says whether it is the thread's own (Linux 6.9). */
static int open_pidfd(pid_t tid, const struct creds *c, bool *thread)
{
	int fd = (int)syscall(SYS_pidfd_open, tid, PIDFD_THREAD);
	struct creds full;

	*thread = fd >= 0;
	if (fd >= 0 || errno != EINVAL)
		return fd;
	/* Before Linux 6.9: the thread group's, which needs its id. */
	if (c->tgid)
		return (int)syscall(SYS_pidfd_open, c->tgid, 0);
	if (read_creds(tid, false, &full))  /* for its Tgid only */
		return -1;
	return (int)syscall(SYS_pidfd_open, full.tgid, 0);
}

/*
 * A pidfd of thread @tid's process, kept for the next calls: a program
 * makes most of its calls from one thread, and pidfd_open+close costs 6 us
 * here, a liveness check 1. Only a thread's own pidfd is kept (Linux 6.9):
 * it stays tied to that thread, so one whose thread is gone (its number
 * maybe taken by a thread of another process) fails the check and is
 * opened again; a process's pidfd would pass it for the wrong process.
 * Taken before SECCOMP_IOCTL_NOTIF_ID_VALID, like a new one, so that it is
 * the caller's. Returns -1 on failure; *@owned: the caller closes it.
 */
#define PIDFDS_KEPT 8
static struct {
	pid_t tid;
	int fd;    /* + 1: 0 is an empty slot */
} pidfds[PIDFDS_KEPT];
static unsigned pidfds_next;

static int thread_pidfd(pid_t tid, const struct creds *c, bool *owned)
{
	bool thread;

	*owned = false;
	for (unsigned i = 0; i < PIDFDS_KEPT; i++) {
		if (!pidfds[i].fd || pidfds[i].tid != tid)
			continue;
		if (syscall(SYS_pidfd_send_signal, pidfds[i].fd - 1, 0, NULL, 0) == 0)
			return pidfds[i].fd - 1;
		close(pidfds[i].fd - 1);
		pidfds[i].fd = 0;
	}
	int fd = open_pidfd(tid, c, &thread);
	if (fd < 0 || !thread) {
		*owned = fd >= 0;
		return fd;
	}
	unsigned slot = pidfds_next++ % PIDFDS_KEPT;
	if (pidfds[slot].fd)
		close(pidfds[slot].fd - 1);
	pidfds[slot].tid = tid;
	pidfds[slot].fd = fd + 1;
	return fd;
}

/* An id of the program's user namespace in ours (chown's arguments), by
 * /proc/PID/{uid,gid}_map; -1 (unchanged) stays -1. -EINVAL if unmapped,
 * as the kernel says. */
static int map_id(pid_t pid, const char *which, uint32_t *id)
{
	char path[64], line[128];
	int r = -EINVAL;

	if (*id == (uint32_t)-1)
		return 0;
	snprintf(path, sizeof(path), "/proc/%d/%s_map", (int)pid, which);
	FILE *f = fopen(path, "re");
	if (!f)
		return -ESRCH;
	unsigned long inside, outside, count;
	while (r && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%lu %lu %lu", &inside, &outside, &count) == 3 && *id >= inside &&
		    *id - inside < count) {
			*id = (uint32_t)(outside + (*id - inside));
			r = 0;
		}
	}
	fclose(f);
	return r;
}

/* Act with @c (the program's file system identity and effective
 * capabilities) until creds_restore: these calls change the calling
 * thread only (the raw system calls, not libc's, which would change every
 * thread), so a connect's thread and the main one never see each other's. */
static __thread bool creds_changed;

/* What decides a lookup and a chmod, chown, utimes or connect: for the
 * rest of the capabilities cordon took from the program (CAP_SYS_ADMIN and
 * others, caps.c), acting with them or without comes to the same. */
#define CAPS_FILE (CAP(CAP_CHOWN) | CAP(CAP_DAC_OVERRIDE) | CAP(CAP_DAC_READ_SEARCH) | \
		   CAP(CAP_FOWNER) | CAP(CAP_FSETID))
#define CAPS_ALL (~0ULL)

/* @relevant: the capabilities that matter to the call (CAPS_FILE, or
 * CAPS_ALL for xattrs, where CAP_SYS_ADMIN and the LSMs' do). When the
 * program's identity is ours in all that matters, nothing is assumed: 8
 * system calls fewer on every supervised chmod of a program run as root. */
static int creds_assume(const struct creds *c, uint64_t relevant)
{
	struct __user_cap_header_struct hdr = { _LINUX_CAPABILITY_VERSION_3, 0 };
	if (c->as_self)
		return 0;
	uint64_t eff = self_eff();
	bool same_groups = self.ngroups == c->ngroups &&
			   memcmp(self.groups, c->groups, (size_t)c->ngroups * sizeof(gid_t)) == 0;

	if (c->fsuid == self.euid && c->fsgid == self.egid && same_groups &&
	    (eff & ~c->cap_eff & caps_that_matter(relevant, c->cap_eff)) == 0)
		return 0;  /* the same identity: nothing to assume */
	creds_changed = true;
	if (syscall(SYS_setgroups, (size_t)c->ngroups, c->groups) < 0)
		return -errno;
	syscall(SYS_setfsgid, c->fsgid);
	syscall(SYS_setfsuid, c->fsuid);
	struct __user_cap_data_struct lower[2];
	memcpy(lower, self.caps, sizeof(lower));
	lower[0].effective &= (uint32_t)c->cap_eff;
	lower[1].effective &= (uint32_t)(c->cap_eff >> 32);
	if (syscall(SYS_capset, &hdr, lower) < 0)
		return -errno;
	return 0;
}

static void creds_restore(void)
{
	struct __user_cap_header_struct hdr = { _LINUX_CAPABILITY_VERSION_3, 0 };

	if (!creds_changed)
		return;
	creds_changed = false;
	syscall(SYS_setfsuid, self.euid);
	syscall(SYS_setfsgid, self.egid);
	syscall(SYS_setgroups, (size_t)self.ngroups, self.groups);
	syscall(SYS_capset, &hdr, self.caps);
}

/* Is the program's root directory ours? (a chrooted program's paths would
 * be looked up against the wrong root). */
/*
 * Whether some process of the program may have a root other than cordon's:
 * set for good at the first chroot(2), which the filter sends here for that
 * alone (pivot_root, setns and mount are refused: chroot is the only way
 * left to change a root). Until then every root is cordon's, and the look
 * at /proc/PID/root each supervised call made (4-5 us of ~35) is spared.
 */
static bool roots_may_differ;

static bool same_root(pid_t pid)
{
	char path[64];
	struct stat a;

	if (!roots_may_differ)
		return true;
	snprintf(path, sizeof(path), "/proc/%d/root", (int)pid);
	return stat(path, &a) == 0 && same_inode(&a, &self.root);
}

/* The program @pid runs, for a log line, or NULL. */
static const char *program_exe(pid_t pid)
{
	static char exe[PATH_MAX];
	char link[64];
	ssize_t n;

	snprintf(link, sizeof(link), "/proc/%d/exe", (int)pid);
	n = readlink(link, exe, sizeof(exe) - 1);
	if (n <= 0)
		return NULL;
	exe[n] = '\0';
	return exe;
}

/* Everything a request needs, read from the program before acting. */
struct request {
	const struct meta_call *call;
	int dirfd;
	bool follow, empty_path;
	char path[PATH_MAX];
	uint64_t a[6];
	char xname[XATTR_NAME_MAX + 1];
	size_t xsize;
	struct timespec ts[2];
	bool ts_null;
	size_t ioctl;                /* M_IOCTL: its entry in ioctls[] */
};

static int read_times(pid_t pid, const struct seccomp_data *d, struct request *q, uint64_t addr)
{
	bool i386 = d->arch == AUDIT_ARCH_I386;

	q->ts_null = addr == 0;
	if (q->ts_null)
		return 0;
	switch (q->call->kind) {
	case M_UTIME: {
		/* struct utimbuf: actime, modtime as time_t */
		if (i386) {
			int32_t t[2];
			if (peek(pid, addr, t, sizeof(t)))
				return -EFAULT;
			q->ts[0] = (struct timespec){ t[0], 0 };
			q->ts[1] = (struct timespec){ t[1], 0 };
		} else {
			int64_t t[2];
			if (peek(pid, addr, t, sizeof(t)))
				return -EFAULT;
			q->ts[0] = (struct timespec){ t[0], 0 };
			q->ts[1] = (struct timespec){ t[1], 0 };
		}
		return 0;
	}
	case M_UTIMES:
	case M_UTIMENS:
	case M_UTIMENS64: {
		/* timeval[2] or timespec[2]: two longs each, 32-bit on i386
		 * except for utimensat_time64 */
		int64_t t[4];
		if (i386 && q->call->kind != M_UTIMENS64) {
			int32_t s[4];
			if (peek(pid, addr, s, sizeof(s)))
				return -EFAULT;
			for (int i = 0; i < 4; i++)
				t[i] = s[i];
		} else if (peek(pid, addr, t, sizeof(t))) {
			return -EFAULT;
		}
		long mul = q->call->kind == M_UTIMES ? 1000 : 1;
		for (int i = 0; i < 2; i++) {
			q->ts[i].tv_sec = (time_t)t[2 * i];
			q->ts[i].tv_nsec = (long)t[2 * i + 1] * mul;
			if (q->call->kind == M_UTIMES && (t[2 * i + 1] < 0 || t[2 * i + 1] >= 1000000))
				return -EINVAL;
		}
		return 0;
	}
	case M_CHMOD:
	case M_CHOWN:
	case M_SETXATTR:
	case M_RMXATTR:
	case M_CONNECT:
	case M_CHROOT:
	case M_LISTEN:
	case M_IOCTL:
	case M_SENDTO:
	case M_BIND:
		break;
	}
	return 0;
}

/* The call @d is, by its ABI and number (supervised_nrs, libseccomp's
 * numbering compiled at build time). */
static const struct meta_call *find_call(const struct seccomp_data *d)
{
	for (size_t i = 0; i < n_supervised_nrs; i++) {
		const struct supervised_nr *s = &supervised_nrs[i];
		if (s->arch != d->arch || s->nr != (uint32_t)d->nr)
			continue;
		if (s->call == SUPERVISED_SOCKETCALL)
			return d->args[0] == SYS_CONNECT  ? &socketcall_connect
			       : d->args[0] == SYS_LISTEN ? &socketcall_listen
			       : d->args[0] == SYS_SENDTO ? &socketcall_sendto
			       : d->args[0] == SYS_BIND   ? &socketcall_bind
							  : NULL;
		return s->call < sizeof(calls) / sizeof(calls[0]) ? &calls[s->call] : NULL;
	}
	return NULL;
}

/*
 * Paths that name "the calling process" mean the program, not cordon:
 * /proc/self and /proc/thread-self (glibc's fchmodat(AT_SYMLINK_NOFOLLOW)
 * before Linux 6.6 is chmod("/proc/self/fd/N")), and /dev/fd, /dev/stdin
 * and kin, which lead there. Rewritten to /proc/TID: the kernel would
 * resolve them against whoever walks them, here the supervisor.
 */
static int program_view(char *path, size_t size, pid_t tid)
{
	static const struct {
		const char *from, *to;
	} alias[] = {
		{ "/proc/self", "" }, { "/proc/thread-self", "" }, { "/dev/fd", "/fd" },
		{ "/dev/stdin", "/fd/0" }, { "/dev/stdout", "/fd/1" }, { "/dev/stderr", "/fd/2" },
	};
	char out[PATH_MAX];

	for (size_t i = 0; i < sizeof(alias) / sizeof(alias[0]); i++) {
		size_t n = strlen(alias[i].from);
		if (strncmp(path, alias[i].from, n) != 0 || (path[n] != '/' && path[n] != '\0'))
			continue;
		int len = snprintf(out, sizeof(out), "/proc/%d%s%s", (int)tid, alias[i].to, path + n);
		if (len < 0 || (size_t)len >= size)
			return -ENAMETOOLONG;
		memcpy(path, out, (size_t)len + 1);
		return 0;
	}
	return 0;
}

/* fs-verity's argument (struct fsverity_enable_arg), its pointers 64-bit
 * on every ABI, and the kernel's limits on what they point to. */
struct verity_arg {
	uint32_t version, hash_algorithm, block_size, salt_size;
	uint64_t salt_ptr;
	uint32_t sig_size, reserved1;
	uint64_t sig_ptr;
	uint64_t reserved2[11];
};
#define VERITY_MAX_SALT 32
#define VERITY_MAX_SIGNATURE 16128

/* The argument of the ioctl @d asks for, copied from the program into
 * @buf (fs-verity's salt and signature after it, its pointers made to
 * point there), its size in q->xsize. */
static int read_ioctl(pid_t pid, const struct seccomp_data *d, struct request *q, void *buf,
		      size_t max)
{
	const uint32_t cmd = (uint32_t)d->args[1];
	const uint64_t arg = d->args[2];
	size_t i = 0;

	while (i < sizeof(ioctls) / sizeof(ioctls[0]) && ioctls[i].cmd != cmd)
		i++;
	if (i == sizeof(ioctls) / sizeof(ioctls[0]))
		return -ENOTTY;  /* the filter sends no other */
	q->ioctl = i;
	switch (ioctls[i].native) {
	case REFUSED:
		q->xsize = 0;
		return 0;
	case FS_IOC_SETFLAGS_:
	case FS_IOC_SETVERSION_:
	case EXT4_IOC_SETVERSION_:
		q->xsize = sizeof(int);
		break;
	case EXT4_IOC_MIGRATE_:
		q->xsize = 0;  /* no argument */
		break;
	case FS_IOC_FSSETXATTR_:
		q->xsize = 28;  /* struct fsxattr */
		break;
	case FS_IOC_SET_ENCRYPTION_POLICY_: {
		uint8_t version;
		if (peek(pid, arg, &version, 1))
			return -EFAULT;
		/* struct fscrypt_policy_v2, v1 (and what the kernel refuses) */
		q->xsize = version == 2 ? 24 : 12;
		break;
	}
	case FS_IOC_ENABLE_VERITY_: {
		struct verity_arg *v = buf;
		if (peek(pid, arg, v, sizeof(*v)))
			return -EFAULT;
		if (v->salt_size > VERITY_MAX_SALT || v->sig_size > VERITY_MAX_SIGNATURE)
			return -EMSGSIZE;
		char *salt = (char *)(v + 1), *sig = salt + v->salt_size;
		if ((v->salt_size && peek(pid, v->salt_ptr, salt, v->salt_size)) ||
		    (v->sig_size && peek(pid, v->sig_ptr, sig, v->sig_size)))
			return -EFAULT;
		v->salt_ptr = (uint64_t)(uintptr_t)salt;
		v->sig_ptr = (uint64_t)(uintptr_t)sig;
		q->xsize = sizeof(*v) + v->salt_size + v->sig_size;
		return 0;
	}
	}
	if (q->xsize > max)
		return -E2BIG;
	return peek(pid, arg, buf, q->xsize) ? -EFAULT : 0;
}

/* Read the request's arguments and strings from the program. */
static int read_request(pid_t pid, const struct seccomp_data *d, struct request *q,
			void *xvalue, size_t xmax)
{
	const struct meta_call *c = q->call;
	int next = (c->dirfd >= 0) + (c->path >= 0);
	unsigned flags = c->flags >= 0 ? (unsigned)d->args[c->flags] : 0;
	int r;

	for (int i = 0; i < 6; i++)
		q->a[i] = d->args[i];
	q->dirfd = c->dirfd >= 0 ? (int)d->args[c->dirfd] : AT_FDCWD;
	q->follow = !c->nofollow && !(flags & AT_SYMLINK_NOFOLLOW);
	q->empty_path = c->path < 0;
	q->path[0] = '\0';
	if (c->kind == M_UTIMENS || c->kind == M_UTIMENS64) {
		if (flags & ~(unsigned)(AT_SYMLINK_NOFOLLOW | AT_EMPTY_PATH))
			return -EINVAL;
		next = 2;  /* times are the third argument, path or not */
	}
	if (c->path >= 0) {
		uint64_t addr = d->args[c->path];
		if (addr == 0 && (c->kind == M_UTIMENS || c->kind == M_UTIMENS64 ||
				  strcmp(c->name, "futimesat") == 0)) {
			q->empty_path = true;  /* NULL: the descriptor itself */
		} else {
			r = peek_string(pid, addr, q->path, sizeof(q->path), ENAMETOOLONG);
			if (r)
				return r;
			if (q->path[0] == '\0') {
				if (!(flags & AT_EMPTY_PATH))
					return -ENOENT;
				q->empty_path = true;
			}
			if ((r = program_view(q->path, sizeof(q->path), pid)))
				return r;
		}
	}
	switch (c->kind) {
	case M_UTIME:
	case M_UTIMES:
	case M_UTIMENS:
	case M_UTIMENS64:
		return read_times(pid, d, q, d->args[next]);
	case M_SETXATTR:
		q->xsize = (size_t)d->args[next + 2];
		if (q->xsize > xmax)
			return -E2BIG;
		if (q->xsize && peek(pid, d->args[next + 1], xvalue, q->xsize))
			return -EFAULT;
		/* fallthrough */
	case M_RMXATTR:
		return peek_string(pid, d->args[next], q->xname, sizeof(q->xname), ERANGE);
	case M_IOCTL:
		return read_ioctl(pid, d, q, xvalue, xmax);
	case M_CHMOD:
	case M_CHOWN:
	case M_CONNECT:
	case M_CHROOT:
	case M_LISTEN:
	case M_SENDTO:
	case M_BIND:
		break;
	}
	return 0;
}

/* Where the lookup of @q starts, fetched with the supervisor's rights
 * (reaching into another process takes them): a duplicate of the
 * program's directory descriptor, its working directory, or AT_FDCWD for
 * an absolute path. For the descriptor forms this is the object itself. */
/* Whether @q's object is found from a descriptor of the program's (the
 * object itself, or the directory of a relative path), not from / or its
 * working directory. */
static bool from_descriptor(const struct request *q)
{
	return q->dirfd != AT_FDCWD && (q->empty_path || q->path[0] != '/');
}

static int open_base(int pidfd, pid_t pid, const struct request *q)
{
	if (!q->empty_path && q->path[0] == '/')
		return AT_FDCWD;
	if (from_descriptor(q)) {
		int fd = (int)syscall(SYS_pidfd_getfd, pidfd, q->dirfd, 0);
		return fd >= 0 ? fd : errno == ESRCH ? -ESRCH : -EBADF;
	}
	char cwd[64];
	snprintf(cwd, sizeof(cwd), "/proc/%d/cwd", (int)pid);
	int fd = open(cwd, O_PATH | O_DIRECTORY | O_CLOEXEC);
	return fd >= 0 ? fd : -ESRCH;
}

/* Make the call on @fd (an O_PATH descriptor or the program's own): on the
 * descriptor itself where the call has an AT_EMPTY_PATH form, else as
 * /proc/self/fd/N, a magic link that lands on that very object and follows
 * nothing further. */
static int perform(int fd, const struct request *q, const void *xvalue)
{
	static bool no_fchmodat2, no_empty_utimens;
	char p[64];
	int r = -1;

	snprintf(p, sizeof(p), "/proc/self/fd/%d", fd);
	switch (q->call->kind) {
	case M_CHMOD: {
		mode_t mode = (mode_t)q->a[q->call->dirfd >= 0 && q->call->path >= 0 ? 2 : 1];
		/* fchmodat2 (Linux 6.6) takes the descriptor as it is: 1.5 us
		 * here against 2.8 us for the magic link's walk. */
		r = no_fchmodat2 ? -1 : (int)syscall(SYS_fchmodat2, fd, "", mode, AT_EMPTY_PATH);
		if (r < 0 && (no_fchmodat2 || errno == ENOSYS || errno == EINVAL)) {
			no_fchmodat2 = true;
			r = chmod(p, mode);
		}
		break;
	}
	case M_CHOWN: {
		int i = q->call->dirfd >= 0 && q->call->path >= 0 ? 2 : 1;
		r = fchownat(fd, "", (uid_t)q->a[i], (gid_t)q->a[i + 1], AT_EMPTY_PATH);
		break;
	}
	case M_UTIME:
	case M_UTIMES:
	case M_UTIMENS:
	case M_UTIMENS64:
		/* AT_EMPTY_PATH (Linux 5.8): 1.5 us against 2.8 us. */
		r = no_empty_utimens ? -1
				     : utimensat(fd, "", q->ts_null ? NULL : q->ts, AT_EMPTY_PATH);
		if (r < 0 && (no_empty_utimens || errno == EINVAL)) {
			no_empty_utimens = true;
			r = utimensat(AT_FDCWD, p, q->ts_null ? NULL : q->ts, 0);
		}
		break;
	case M_SETXATTR: {
		int i = q->call->dirfd >= 0 && q->call->path >= 0 ? 2 : 1;
		r = setxattr(p, q->xname, xvalue, q->xsize, (int)q->a[i + 3]);
		break;
	}
	case M_RMXATTR:
		r = removexattr(p, q->xname);
		break;
	case M_IOCTL:
		/* On the program's own open file (pidfd_getfd), with its argument
		 * as read: what the kernel checks (ownership, CAP_FOWNER,
		 * CAP_LINUX_IMMUTABLE) it checks against the program's rights. */
		r = ioctl(fd, ioctls[q->ioctl].native, xvalue);
		break;
	case M_CONNECT:
	case M_CHROOT:
	case M_LISTEN:
	case M_SENDTO:
	case M_BIND:
		errno = ENOSYS;  /* supervise_connect's; supervise_one's */
		break;
	}
	return r < 0 ? -errno : 0;
}

/* What a descriptor form may change: a file open for writing (the
 * kernel's layer let that open through), else what its path allows. */
static bool opened_for_writing(int fd)
{
	int fl = fcntl(fd, F_GETFL);

	return fl >= 0 && !(fl & O_PATH) && (fl & O_ACCMODE) != O_RDONLY;
}

/* Answer the call @id with @result: -errno, or what it returns. */
static int reply(int listener, uint64_t id, long result)
{
	struct seccomp_notif_resp resp;

	memset(&resp, 0, sizeof(resp));
	resp.id = id;
	resp.error = result < 0 ? (int32_t)result : 0;
	resp.val = result > 0 ? result : 0;
	/* ENOENT: the program is gone (killed mid-call); nothing to answer. */
	if (ioctl(listener, SECCOMP_IOCTL_NOTIF_SEND, &resp) < 0 && errno != ENOENT)
		return -errno;
	return 0;
}

/* A connect, or a send with an address, decided and allowed, to be made
 * now or by a thread. */
struct sock_job {
	struct sock_job *next;       /* in the pool's queue */
	uint64_t id;
	int sock;                    /* the program's socket (pidfd_getfd) */
	int obj;                     /* O_PATH descriptor of the unix socket, or -1 */
	struct creds creds;          /* the program's, for obj */
	struct sockaddr_storage sa;
	socklen_t len;
	bool send;                   /* sendto(data, size, flags), not connect */
	bool as_program;             /* made with the program's credentials (creds): a
	                                netlink socket's, whose groups need capabilities */
	bool wait;                   /* a send that may wait, made by the pool without
	                                waiting, while the program waits for it */
	void *data;                  /* the bytes read from the program (malloc) */
	size_t size;
	int flags;
	int sigpipe;                 /* a pidfd of the caller, to be sent SIGPIPE as the
	                                kernel would on EPIPE, or -1 */
};

/*
 * The threads that make blocking connects and sends: kept once started (a
 * build's connects would otherwise each pay for a thread's creation), one
 * more started whenever every one is busy, so that no call waits behind a
 * slow peer. They share one duplicate of the listener, never closed: the
 * supervisor's may be closed while a connect is still under way.
 */
static struct {
	pthread_mutex_t lock;
	pthread_cond_t more;
	struct sock_job *head, **tail;
	unsigned idle, queued;
	int listener;
} pool = { PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, NULL, &pool.head, 0, 0, -1 };

static void job_close(struct sock_job *j)
{
	if (j->sock >= 0)
		close(j->sock);
	if (j->obj >= 0)
		close(j->obj);
	if (j->sigpipe >= 0)
		close(j->sigpipe);
	free(j->data);
	j->data = NULL;
	j->sock = j->obj = j->sigpipe = -1;
}

/* Make @j: the call's result (a sendto's count), or -errno. A pathname
 * socket is reached through /proc/self/fd/N: the name leads to the very
 * inode that was checked, and the kernel checks write permission on it
 * with the program's identity, as it would have. */
static long job_now(struct sock_job *j)
{
	const struct sockaddr *sa = (const struct sockaddr *)&j->sa;
	socklen_t len = j->len;
	struct sockaddr_un un = { .sun_family = AF_UNIX };
	long r = 0;

	if (j->obj >= 0) {
		int n = snprintf(un.sun_path, sizeof(un.sun_path), "/proc/self/fd/%d", j->obj);
		sa = (const struct sockaddr *)&un;
		len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + (size_t)n + 1);
		r = creds_assume(&j->creds, CAPS_FILE);
	} else if (j->as_program) {
		r = creds_assume(&j->creds, CAPS_ALL);
	}
	if (r == 0 && j->send) {
		/* MSG_NOSIGNAL: the SIGPIPE is the program's, not cordon's. A
		 * send that may wait is made without waiting, as often as the
		 * socket has room, for as long as the program still waits in
		 * the call: a program a signal took out of it (and that may
		 * make it again) must not find it made after all. */
		int fl = j->flags | MSG_NOSIGNAL | (j->wait ? MSG_DONTWAIT : 0);
		size_t done = 0;
		for (;;) {
			ssize_t n = sendto(j->sock, (char *)j->data + done, j->size - done, fl, sa, len);
			r = n < 0 ? -errno : n;
			if (!j->wait || (r < 0 && r != -EAGAIN))
				break;
			/* A stream's send goes on to its last byte, as a
			 * blocking one would (a datagram goes whole). */
			done += r > 0 ? (size_t)r : 0;
			if (done == j->size)
				break;
			struct pollfd p = { .fd = j->sock, .events = POLLOUT };
			if (poll(&p, 1, 50) < 0 && errno != EINTR)
				break;
			if (pool.listener >= 0 &&
			    ioctl(pool.listener, SECCOMP_IOCTL_NOTIF_ID_VALID, &j->id) < 0) {
				r = -EINTR;  /* nobody waits for the answer */
				break;
			}
		}
		if (j->wait && done)
			r = (long)done;
		if (r == -EPIPE && j->sigpipe >= 0)
			syscall(SYS_pidfd_send_signal, j->sigpipe, SIGPIPE, NULL, 0);
	} else if (r == 0 && connect(j->sock, sa, len) < 0) {
		r = -errno;
	}
	if (j->obj >= 0 || j->as_program)
		creds_restore();
	return r;
}

static void *pool_thread(void *arg)
{
	(void)arg;
	for (;;) {
		pthread_mutex_lock(&pool.lock);
		pool.idle++;
		while (!pool.head)
			pthread_cond_wait(&pool.more, &pool.lock);
		pool.idle--;
		pool.queued--;
		struct sock_job *j = pool.head;
		pool.head = j->next;
		if (!pool.head)
			pool.tail = &pool.head;
		pthread_mutex_unlock(&pool.lock);

		reply(pool.listener, j->id, job_now(j));
		job_close(j);
		free(j);
	}
	return NULL;
}

static bool pool_start(void)
{
	pthread_attr_t attr;
	pthread_t t;
	sigset_t all, old;
	int r;

	if (pthread_attr_init(&attr))
		return false;
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	pthread_attr_setstacksize(&attr, 64 * 1024);
	/* The threads take no signal: cordon's own arrive on a signalfd. */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	r = pthread_create(&t, &attr, pool_thread, NULL);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	pthread_attr_destroy(&attr);
	return r == 0;
}

/* Hand @j to a thread, which replies; or make it here if no thread can be
 * had. Returns 1 (answered, or to be), or -errno. */
static int job_later(int listener, struct sock_job *j)
{
	struct sock_job *copy = malloc(sizeof(*copy));
	bool handed = false;

	pthread_mutex_lock(&pool.lock);
	if (pool.listener < 0)
		pool.listener = fcntl(listener, F_DUPFD_CLOEXEC, 0);
	if (copy && pool.listener >= 0 && (pool.idle > pool.queued || pool_start())) {
		*copy = *j;
		copy->next = NULL;
		*pool.tail = copy;
		pool.tail = &copy->next;
		pool.queued++;
		pthread_cond_signal(&pool.more);
		handed = true;
	}
	pthread_mutex_unlock(&pool.lock);
	if (handed)
		return 1;
	free(copy);
	int r = reply(listener, j->id, job_now(j));
	job_close(j);
	return r < 0 ? r : 1;
}

/*
 * The program's socket @fd (pidfd_getfd: the same open socket, with its
 * options, bound name and flags) into *@sock, with its domain and type,
 * once the notification is known to be still the program's. 0, or -errno
 * to answer the call with (*@sock is then -1).
 */
static int take_socket(int listener, const struct seccomp_notif *req, uint64_t fd, int *sock,
		       int *domain, int *type)
{
	const struct creds unknown = { 0 };
	socklen_t optlen = sizeof(int);
	bool owned;
	int pidfd, r;

	*sock = -1;
	if (fd > INT32_MAX)
		return -EBADF;
	if ((r = self_known()))
		return r;
	/* A descriptor of the calling thread reaches its process's
	 * descriptors (thread_pidfd: Linux 6.9, the thread group's before). */
	if ((pidfd = thread_pidfd((pid_t)req->pid, &unknown, &owned)) < 0)
		return -ESRCH;
	*sock = (int)syscall(SYS_pidfd_getfd, pidfd, (int)fd, 0);
	/* EPERM: a program that made itself undumpable, under a cordon that
	 * may not trace it (not root): its socket calls fail (threat-model.md). */
	r = *sock < 0 ? (errno == ESRCH || errno == EPERM ? -errno : -EBADF) : 0;
	if (owned)
		close(pidfd);
	if (r)
		return r;
	if (getsockopt(*sock, SOL_SOCKET, SO_DOMAIN, domain, &optlen) < 0 ||
	    getsockopt(*sock, SOL_SOCKET, SO_TYPE, type, &optlen) < 0)
		r = -errno;  /* ENOTSOCK */
	else if (ioctl(listener, SECCOMP_IOCTL_NOTIF_ID_VALID, &req->id) < 0)
		r = -ESRCH;
	if (r) {
		close(*sock);
		*sock = -1;
	}
	return r;
}

/* The address of a call on descriptor @fd, @len bytes at @addr in the
 * program @pid, into j->sa and j->len. The kernel takes the descriptor and
 * the length as ints (the low 32 bits), and refuses a length below 0 or
 * above sockaddr_storage. 0 or -errno. */
static int read_address(struct sock_job *j, pid_t pid, uint64_t fd, uint64_t addr, uint64_t len)
{
	len = (uint32_t)len;
	if (len > sizeof(j->sa))
		return -EINVAL;
	if ((uint32_t)fd > INT32_MAX)
		return -EBADF;
	j->len = (socklen_t)len;
	memset(&j->sa, 0, sizeof(j->sa));
	return len ? peek(pid, addr, &j->sa, (size_t)len) : 0;
}

/*
 * The address and the socket of a call (fd, addr, len), connect's and
 * bind's: from its arguments, or i386 socketcall's words in memory
 * (@indirect), into j->sa, j->len and j->sock, with the socket's @domain
 * and @type. 0 or -errno (j->sock is then -1).
 */
static int take_addressed(int listener, const struct seccomp_notif *req, bool indirect,
			  struct sock_job *j, int *domain, int *type)
{
	pid_t pid = (pid_t)req->pid;
	uint64_t fd = req->data.args[0], addr = req->data.args[1], len = req->data.args[2];
	int r;

	if (indirect) {
		uint32_t a[3];
		if ((r = peek(pid, req->data.args[1], a, sizeof(a))))
			return r;
		fd = a[0];
		addr = a[1];
		len = a[2];
	}
	if ((r = read_address(j, pid, fd, addr, len)))
		return r;
	return take_socket(listener, req, (uint32_t)fd, &j->sock, domain, type);
}

/*
 * Decide @j's address, read from the program @pid, for its socket of
 * @domain and @type. A unix pathname is resolved as the kernel would, with
 * the program's identity, into j->obj (an O_PATH descriptor of the socket
 * file found) and j->creds; anything else is decided on its bytes. 0 when
 * allowed; -EACCES (ev->refused) or another -errno to answer with.
 */
static int decide_address(struct sock_job *j, pid_t pid, int domain, int type,
			  const struct policy *pol, struct supervise_event *ev)
{
	const size_t off = offsetof(struct sockaddr_un, sun_path);
	const struct sockaddr_un *un = (const struct sockaddr_un *)&j->sa;
	const size_t len = j->len;
	int r;

	if (domain == AF_UNIX && j->sa.ss_family == AF_UNIX && len > off && un->sun_path[0]) {
		/* A pathname: the socket file the kernel would find. */
		char path[PATH_MAX];
		if (len > sizeof(struct sockaddr_un))
			return -EINVAL;
		size_t n = strnlen(un->sun_path, (size_t)len - off);
		memcpy(path, un->sun_path, n);
		path[n] = '\0';
		snprintf(ev->path, sizeof(ev->path), "%s", path);
		if (!same_root(pid)) {
			ev->refused = true;
			ev->why = "the program changed its root directory (chroot)";
			return -EACCES;
		}
		if ((r = program_view(path, sizeof(path), pid)) ||
		    (r = creds_of(pid, CAPS_FILE, pol->userns.value, &j->creds)))
			return r;
		int base = AT_FDCWD;
		if (path[0] != '/') {
			char cwd[64];
			snprintf(cwd, sizeof(cwd), "/proc/%d/cwd", (int)pid);
			if ((base = open(cwd, O_PATH | O_DIRECTORY | O_CLOEXEC)) < 0)
				return -ESRCH;
		}
		if ((r = creds_assume(&j->creds, CAPS_FILE)) == 0) {
			j->obj = openat(base, path, O_PATH | O_CLOEXEC);
			r = j->obj < 0 ? -errno : 0;
		}
		creds_restore();
		if (base >= 0)
			close(base);
		if (r)
			return r;
		char link[64];
		snprintf(link, sizeof(link), "/proc/self/fd/%d", j->obj);
		ssize_t got = readlink(link, ev->path, sizeof(ev->path) - 1);
		ev->path[got > 0 ? got : 0] = '\0';
		if (got <= 0 || ev->path[0] != '/')
			return -ECONNREFUSED;  /* not a file a socket can be bound to */
		policy_decide_path(pol, OP_CONNECT, ev->path, (size_t)got, &ev->d);
	} else if (domain == AF_UNIX && j->sa.ss_family == AF_UNIX && len <= off) {
		/* No name at all: the kernel refuses it (EINVAL). */
		ev->d.allow = true;
	} else {
		/* An address: decided as the network mode says (abstract names
		 * too: the call is made outside the sandbox's Landlock domain,
		 * so its scope cannot stand in). */
		policy_decide_net(pol, OP_CONNECT, type, (const struct sockaddr *)&j->sa, j->len,
				  &ev->d);
		log_format_addr(ev->path, sizeof(ev->path), (const struct sockaddr *)&j->sa, j->len,
				type);
	}
	if (!ev->d.allow) {
		ev->refused = true;
		return -EACCES;
	}
	return 0;
}

/*
 * A netlink socket the kernel would bind itself (a bind to port id 0, or a
 * connect or send on one not bound) takes as its port id the tgid of the
 * process that binds it: made by cordon, that would be cordon's, and a
 * program that matches replies to its pid would wait for them for ever.
 * So it is bound here to the program's @tgid, and where that is taken (a
 * second socket of the program's), to one the kernel picks, as it would.
 * With the program's credentials (@c): the groups it joins need its
 * capabilities, not cordon's. 0 or -errno.
 */
static int netlink_bind_as(int sock, const struct sockaddr_nl *want, pid_t tgid,
			   const struct creds *c)
{
	struct sockaddr_nl a = *want;
	int r;

	if ((r = creds_assume(c, CAPS_ALL)) == 0) {
		if (a.nl_pid == 0)
			a.nl_pid = (uint32_t)tgid;
		r = bind(sock, (struct sockaddr *)&a, sizeof(a)) < 0 ? -errno : 0;
		if (r == -EADDRINUSE && want->nl_pid == 0) {
			a.nl_pid = 0;
			r = bind(sock, (struct sockaddr *)&a, sizeof(a)) < 0 ? -errno : 0;
		}
	}
	creds_restore();
	return r;
}

/* The program's credentials for a call on a netlink socket, with its
 * process's tgid (which creds_of leaves 0 when it need not read them). */
static int netlink_creds(pid_t pid, bool userns, struct creds *c)
{
	char buf[4096];
	const char *t;
	int r;

	if ((r = creds_of(pid, CAPS_ALL, userns, c)))
		return r;
	if (c->tgid)
		return 0;
	if (read_status(pid, buf, sizeof(buf)) || !(t = strstr(buf, "\nTgid:")))
		return -ESRCH;
	c->tgid = (pid_t)strtol(t + 6, NULL, 10);
	return 0;
}

/* @j's connect or send on a netlink socket, to be made with the program's
 * credentials, its socket bound first if it is not, as netlink_bind_as
 * says. 0 or -errno. */
static int netlink_as_program(struct sock_job *j, pid_t pid, const struct policy *pol)
{
	struct sockaddr_nl now = { 0 }, any = { .nl_family = AF_NETLINK };
	socklen_t len = sizeof(now);
	int r;

	j->as_program = true;
	if ((r = netlink_creds(pid, pol->userns.value, &j->creds)))
		return r;
	if (getsockname(j->sock, (struct sockaddr *)&now, &len) == 0 && now.nl_pid != 0)
		return 0;
	return netlink_bind_as(j->sock, &any, j->creds.tgid, &j->creds);
}

/*
 * connect(fd, addr, len): decide on the address read from the program,
 * and connect the program's own socket. Returns -errno or 0 for the caller
 * to answer with, or 1 when answered already (or to be, by a thread).
 */
static int supervise_connect(int listener, const struct seccomp_notif *req, bool indirect,
			     const struct policy *pol, struct supervise_event *ev)
{
	pid_t pid = (pid_t)req->pid;
	struct sock_job j = { .next = NULL, .id = req->id, .sock = -1, .obj = -1, .sigpipe = -1 };
	int r, domain = 0, type = 0;

	ev->op = "connect";
	if ((r = take_addressed(listener, req, indirect, &j, &domain, &type)))
		return r;

	if ((r = decide_address(&j, pid, domain, type, pol, ev)))
		goto out;
	if (domain == AF_NETLINK) {
		/* Joining a group to send to checks capabilities here only. */
		if ((r = netlink_as_program(&j, pid, pol)) == 0)
			r = (int)job_now(&j);
		goto out;
	}
	int fl = fcntl(j.sock, F_GETFL);
	if (fl >= 0 && !(fl & O_NONBLOCK))
		return job_later(listener, &j);
	r = (int)job_now(&j);
out:
	job_close(&j);
	return r;
}

/* The most a send with an address carries through the supervisor: a
 * datagram longer fails EMSGSIZE (no socket's buffer holds it by default),
 * a stream's send is cut short, as the kernel may cut one. */
#define SEND_MAX (1u << 20)

/*
 * sendto(fd, buf, len, flags, addr, addrlen) with an address (the filter
 * sends no other): the address is decided as a connect to it would be, and
 * the datagram sent by cordon on the program's own socket, with the bytes
 * read from its memory, to the socket file checked (a unix pathname) or
 * the address read. A stream socket's address is ignored by the kernel
 * (TCP) or refused (unix): nothing to decide but TCP Fast Open, which
 * connects. A send that may block is made by a pool thread, as a connect.
 * The receiver of a unix datagram that asks (SO_PASSCRED) learns cordon's
 * pid, not the program's.
 */
static int supervise_sendto(int listener, const struct seccomp_notif *req, bool indirect,
			    const struct policy *pol, struct supervise_event *ev)
{
	pid_t pid = (pid_t)req->pid;
	uint64_t a[6];
	struct sock_job j = { .next = NULL, .id = req->id, .sock = -1, .obj = -1, .sigpipe = -1,
			      .send = true };
	int r, domain = 0, type = 0;

	ev->op = "connect";
	for (int i = 0; i < 6; i++)
		a[i] = req->data.args[i];
	if (indirect) {
		uint32_t w[6];
		if ((r = peek(pid, req->data.args[1], w, sizeof(w))))
			return r;
		for (int i = 0; i < 6; i++)
			a[i] = w[i];
	}
	if ((r = read_address(&j, pid, a[0], a[4], a[5])))
		return r;
	/* The descriptor and the flags are ints to the kernel. */
	uint64_t fd = (uint32_t)a[0], size = a[2];
	j.flags = (int)(uint32_t)a[3];
	/* The bytes too, before the socket is taken: take_socket checks that
	 * the call is still the program's, after all that was read. */
	j.size = (size_t)(size > SEND_MAX ? SEND_MAX : size);
	if (!(j.data = malloc(j.size ? j.size : 1)))
		return -ENOMEM;
	if (j.size && (r = peek(pid, a[1], j.data, j.size)))
		goto out;
	if ((r = take_socket(listener, req, fd, &j.sock, &domain, &type)))
		goto out;
	bool stream = type == SOCK_STREAM;
	if (!(stream && domain == AF_UNIX) &&
	    !(stream && (domain == AF_INET || domain == AF_INET6) && !(j.flags & MSG_FASTOPEN)) &&
	    (r = decide_address(&j, pid, domain, type, pol, ev)))
		goto out;
	/* A send to another port or a group checks capabilities here. */
	if (domain == AF_NETLINK && (r = netlink_as_program(&j, pid, pol)))
		goto out;
	if (size > SEND_MAX && !stream) {
		r = -EMSGSIZE;
		goto out;
	}
	if ((stream || type == SOCK_SEQPACKET) && !(j.flags & MSG_NOSIGNAL)) {
		j.sigpipe = (int)syscall(SYS_pidfd_open, pid, PIDFD_THREAD);
		if (j.sigpipe < 0)
			j.sigpipe = (int)syscall(SYS_pidfd_open, pid, 0);  /* before Linux 6.9 */
	}
	/* A datagram goes whole or not at all: tried here without waiting
	 * first, it is handed to a thread only when it would wait on a
	 * blocking socket (a thread's wake-up costs more than the send). A
	 * stream on a blocking socket could go in part: to the thread at once. */
	bool wait = !(j.flags & MSG_DONTWAIT);
	if (wait && stream) {
		int fl = fcntl(j.sock, F_GETFL);
		if (fl >= 0 && !(fl & O_NONBLOCK)) {
			/* Fast Open connects as it sends: made as asked, waiting
			 * (a send without waiting would leave it in progress). */
			j.wait = !(j.flags & MSG_FASTOPEN);
			return job_later(listener, &j);
		}
	}
	j.flags |= stream ? 0 : MSG_DONTWAIT;
	long n = job_now(&j);
	if (n == -EAGAIN && wait && !stream) {
		int fl = fcntl(j.sock, F_GETFL);
		if (fl >= 0 && !(fl & O_NONBLOCK)) {
			j.flags &= ~MSG_DONTWAIT;
			j.wait = true;
			return job_later(listener, &j);
		}
	}
	job_close(&j);
	return (r = reply(listener, req->id, n)) < 0 ? r : 1;
out:
	job_close(&j);
	return r;
}

/*
 * listen(fd, backlog), under net none: a TCP socket bound to no port is
 * bound to one at random by listen, a bind Landlock's rules do not see;
 * that is decided as a bind to port 0, which net-bind cannot list. A unix
 * socket bound to an abstract name listens in the host's namespace of
 * such names (net none keeps the host's network namespace), where
 * programs outside would connect to it as to the service whose name it
 * took: decided as what it is, a bind to an abstract name (the shim
 * refuses that bind itself; Landlock's scope covers the other way only,
 * from the sandbox out). Any other listen is made, on the program's own
 * socket: a socket bound already was bound with Landlock's leave, or
 * before cordon (a socket handed down).
 */
static int supervise_listen(int listener, const struct seccomp_notif *req, bool indirect,
			    const struct policy *pol, struct supervise_event *ev)
{
	uint64_t fd = req->data.args[0], backlog = req->data.args[1];
	struct sockaddr_storage sa;
	socklen_t len = sizeof(sa);
	int r, sock = -1, domain, type = 0;

	ev->op = "bind";
	if (indirect) {
		uint32_t a[2];
		if ((r = peek((pid_t)req->pid, req->data.args[1], a, sizeof(a))))
			return r;
		fd = a[0];
		backlog = a[1];
	}
	if ((r = take_socket(listener, req, (uint32_t)fd, &sock, &domain, &type)))
		return r;
	memset(&sa, 0, sizeof(sa));
	if (getsockname(sock, (struct sockaddr *)&sa, &len) == 0 &&
	    policy_listen_binds((const struct sockaddr *)&sa, len, type)) {
		policy_decide_net(pol, OP_BIND, type, (const struct sockaddr *)&sa, len, &ev->d);
		log_format_addr(ev->path, sizeof(ev->path), (const struct sockaddr *)&sa, len, type);
		if (!ev->d.allow) {
			ev->refused = true;
			r = -EACCES;
			goto out;
		}
	}
	/* The kernel takes the backlog as an int. */
	r = listen(sock, (int)(uint32_t)backlog) < 0 ? -errno : 0;
out:
	close(sock);
	return r;
}

/* The umask of process @pid (Linux 4.7's "Umask:" in /proc/PID/status),
 * into *@mask. 0 or -ESRCH. */
static int umask_of(pid_t pid, mode_t *mask)
{
	char buf[4096];
	if (read_status(pid, buf, sizeof(buf)))
		return -ESRCH;
	const char *p = strstr(buf, "\nUmask:");
	if (!p)
		return -ESRCH;
	*mask = (mode_t)strtoul(p + 7, NULL, 8) & 0777;
	return 0;
}

/*
 * Bind the program's unix socket @sock to the pathname @path (at most
 * sun_path's length), read from thread @pid, as the kernel would have: the
 * directory is found with the program's identity, from its working
 * directory when @path is relative; the new name is decided as a write
 * there (Landlock's MAKE_SOCK, which cordon's bind does not meet); the
 * socket file is made by cordon's main thread from inside that directory
 * (the name as given, trailing slashes and all, so that the kernel's
 * errors are its own), owned by the program's fsuid and fsgid, with the
 * program's umask. 0 or -errno.
 */
static int bind_path(int sock, const char *path, pid_t pid, const struct policy *pol,
		     struct supervise_event *ev)
{
	static int home = -1;  /* cordon's own working directory, to return to */
	char view[PATH_MAX], dir[PATH_MAX];
	struct creds c;
	mode_t mask;
	int r, base = AT_FDCWD, dfd = -1;

	snprintf(view, sizeof(view), "%s", path);
	snprintf(ev->path, sizeof(ev->path), "%s", path);
	if (!same_root(pid)) {
		ev->refused = true;
		ev->why = "the program changed its root directory (chroot)";
		return -EACCES;
	}
	if ((r = program_view(view, sizeof(view), pid)))
		return r;
	/* The last component, trailing slashes kept with it. */
	size_t end = strlen(view);
	while (end > 1 && view[end - 1] == '/')
		end--;
	size_t cut = end;
	while (cut > 0 && view[cut - 1] != '/')
		cut--;
	const char *name = view + cut;
	size_t namelen = end - cut;
	if (cut == 0)
		snprintf(dir, sizeof(dir), ".");
	else
		snprintf(dir, sizeof(dir), "%.*s", (int)cut, view);
	if (namelen == 0 || (namelen == 1 && name[0] == '.') ||
	    (namelen == 2 && name[0] == '.' && name[1] == '.'))
		return -EADDRINUSE;  /* "/", "." or "..": there already */

	if ((r = umask_of(pid, &mask)) ||
	    (r = creds_of(pid, CAPS_FILE, pol->userns.value, &c)))
		return r;
	if (view[0] != '/') {
		char cwd[64];
		snprintf(cwd, sizeof(cwd), "/proc/%d/cwd", (int)pid);
		if ((base = open(cwd, O_PATH | O_DIRECTORY | O_CLOEXEC)) < 0)
			return -ESRCH;
	}
	if (home < 0 && (home = open(".", O_PATH | O_DIRECTORY | O_CLOEXEC)) < 0)
		r = -errno;
	if (r == 0 && (r = creds_assume(&c, CAPS_FILE)) == 0) {
		dfd = openat(base, dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
		r = dfd < 0 ? -errno : 0;
	}
	if (base >= 0)
		close(base);
	if (r)
		goto out;

	/* Decided where it would be made: the directory as found, and the
	 * name. */
	char link[64], full[PATH_MAX];
	snprintf(link, sizeof(link), "/proc/self/fd/%d", dfd);
	ssize_t got = readlink(link, full, sizeof(full) - 1);
	if (got <= 0 || full[0] != '/') {
		r = -ENOENT;
		goto out;
	}
	full[got] = '\0';
	int len = snprintf(ev->path, sizeof(ev->path), "%s%s%.*s", full,
			   got > 1 ? "/" : "", (int)namelen, name);
	policy_decide_path(pol, OP_WRITE, ev->path, (size_t)len, &ev->d);
	if (!ev->d.allow) {
		ev->refused = true;
		r = -EACCES;
		goto out;
	}
	struct sockaddr_un un = { .sun_family = AF_UNIX };
	size_t n = strlen(name);
	memcpy(un.sun_path, name, n);
	/* The working directory and the umask are the whole process's: the
	 * pool's threads name every file by an absolute path and make none,
	 * and cordon opened its own files before the program started. */
	mode_t old = umask(mask);
	bool moved = fchdir(dfd) == 0;
	if (!moved)
		r = -errno;
	else if (bind(sock, (struct sockaddr *)&un,
		      (socklen_t)(offsetof(struct sockaddr_un, sun_path) + n + 1)) < 0)
		r = -errno;
	creds_restore();
	/* Back, as cordon: into the directory it stood in, by a descriptor
	 * of it (it can fail only for one cordon could not search). */
	int back = moved ? fchdir(home) : 0;
	(void)back;
	umask(old);
out:
	creds_restore();
	if (dfd >= 0)
		close(dfd);
	return r;
}

/*
 * bind(fd, addr, len), under net none. Landlock decides a TCP bind's port
 * and a unix socket file's making, but not a unix socket's abstract name:
 * a datagram socket bound to one receives what programs outside send to
 * that name (net none keeps the host's network namespace), with no listen
 * to refuse (supervise_listen). The filter cannot tell one bind from
 * another (the address is in memory, the socket a number), so every bind
 * comes here, and is made by cordon on the program's own socket, with the
 * address read and decided: the policy's net-bind ports (the call is made
 * outside the sandbox's Landlock domain, whose bind rules it does not
 * meet), an abstract name as the network mode says, a pathname as a write
 * (bind_path), an unnamed unix address (the kernel picks an abstract name
 * of its own: no name a program outside would know) as it is.
 */
static int supervise_bind(int listener, const struct seccomp_notif *req, bool indirect,
			  const struct policy *pol, struct supervise_event *ev)
{
	const size_t off = offsetof(struct sockaddr_un, sun_path);
	pid_t pid = (pid_t)req->pid;
	struct sock_job j = { .next = NULL, .id = req->id, .sock = -1, .obj = -1, .sigpipe = -1 };
	const struct sockaddr_un *un = (const struct sockaddr_un *)&j.sa;
	int r, domain = 0, type = 0;

	ev->op = "bind";
	if ((r = take_addressed(listener, req, indirect, &j, &domain, &type)))
		return r;
	if (domain == AF_UNIX && j.sa.ss_family == AF_UNIX && j.len > off && un->sun_path[0]) {
		char path[sizeof(un->sun_path) + 1];
		if (j.len > sizeof(struct sockaddr_un)) {
			r = -EINVAL;
			goto out;
		}
		size_t n = strnlen(un->sun_path, j.len - off);
		memcpy(path, un->sun_path, n);
		path[n] = '\0';
		r = bind_path(j.sock, path, pid, pol, ev);
		goto out;
	}
	if (domain != AF_UNIX || (j.sa.ss_family == AF_UNIX && j.len > off)) {
		/* An address or an abstract name. IPv4's bind takes AF_UNSPEC
		 * for AF_INET (with INADDR_ANY): decided as what it binds. */
		struct sockaddr_storage as = j.sa;
		if (domain == AF_INET && as.ss_family == AF_UNSPEC)
			as.ss_family = AF_INET;
		policy_decide_net(pol, OP_BIND, type, (const struct sockaddr *)&as, j.len, &ev->d);
		log_format_addr(ev->path, sizeof(ev->path), (const struct sockaddr *)&as, j.len, type);
		if (!ev->d.allow) {
			ev->refused = true;
			r = -EACCES;
			goto out;
		}
	}
	/* With the program's capabilities, not cordon's: a port below 1024
	 * takes CAP_NET_BIND_SERVICE, a netlink group CAP_NET_ADMIN or more. */
	struct creds c;
	if (domain == AF_NETLINK && j.sa.ss_family == AF_NETLINK &&
	    j.len >= sizeof(struct sockaddr_nl)) {
		if ((r = netlink_creds(pid, pol->userns.value, &c)) == 0)
			r = netlink_bind_as(j.sock, (const struct sockaddr_nl *)&j.sa, c.tgid, &c);
		goto out;
	}
	if ((r = creds_of(pid, CAPS_ALL, pol->userns.value, &c)) == 0 &&
	    (r = creds_assume(&c, CAPS_ALL)) == 0)
		r = bind(j.sock, (const struct sockaddr *)&j.sa, j.len) < 0 ? -errno : 0;
	creds_restore();
out:
	job_close(&j);
	return r;
}

int supervise_one(int listener, const struct policy *pol, struct supervise_event *ev)
{
	static uint64_t xvalue[XATTR_SIZE_MAX / sizeof(uint64_t)];  /* aligned for read_ioctl */
	struct seccomp_notif req;
	struct request q;
	int r, pidfd = -1, obj = -1;
	bool pidfd_owned = false;

	memset(&req, 0, sizeof(req));
	ev->refused = false;
	ev->why = NULL;
	ev->op = ev->call = ev->layer = ev->exe = NULL;
	ev->path[0] = '\0';
	memset(&ev->d, 0, sizeof(ev->d));
	if (ioctl(listener, SECCOMP_IOCTL_NOTIF_RECV, &req) < 0)
		return errno == EINTR || errno == ENOENT ? 0 : -errno;
	ev->pid = (int)req.pid;

	q.call = find_call(&req.data);
	if (!q.call) {
		r = -ENOSYS;  /* the filter sends nothing else: a bug if seen */
		goto reply;
	}
	ev->call = q.call->name;
	ev->op = "metadata";
	if (q.call->kind == M_CHROOT) {
		/* Noted before the chroot is let through (it takes effect
		 * once answered), and let through: nothing here is decided,
		 * so SECCOMP_USER_NOTIF_FLAG_CONTINUE decides nothing either. */
		roots_may_differ = true;
		struct seccomp_notif_resp resp = { .id = req.id,
						   .flags = SECCOMP_USER_NOTIF_FLAG_CONTINUE };
		if (ioctl(listener, SECCOMP_IOCTL_NOTIF_SEND, &resp) < 0 && errno != ENOENT)
			return -errno;
		return 0;
	}
	if (q.call->kind == M_CONNECT) {
		r = supervise_connect(listener, &req, q.call == &socketcall_connect, pol, ev);
		if (r > 0)
			return 1;
		goto reply;
	}
	if (q.call->kind == M_LISTEN) {
		r = supervise_listen(listener, &req, q.call == &socketcall_listen, pol, ev);
		goto reply;
	}
	if (q.call->kind == M_BIND) {
		r = supervise_bind(listener, &req, q.call == &socketcall_bind, pol, ev);
		goto reply;
	}
	if (q.call->kind == M_SENDTO) {
		r = supervise_sendto(listener, &req, q.call == &socketcall_sendto, pol, ev);
		if (r > 0)
			return 1;
		goto reply;
	}
	struct creds c;
	const uint64_t relevant = q.call->kind == M_SETXATTR || q.call->kind == M_RMXATTR ||
					  q.call->kind == M_IOCTL
					  ? CAPS_ALL
					  : CAPS_FILE;
	if ((r = self_known()) ||
	    (r = read_request((pid_t)req.pid, &req.data, &q, xvalue, sizeof(xvalue))) ||
	    (r = creds_of((pid_t)req.pid, relevant, pol->userns.value, &c)))
		goto reply;
	if (q.call->kind == M_IOCTL)
		ev->call = ioctls[q.ioctl].name;
	if (q.call->kind == M_CHOWN && c.own_userns) {
		int i = q.call->dirfd >= 0 && q.call->path >= 0 ? 2 : 1;
		uint32_t uid = (uint32_t)q.a[i], gid = (uint32_t)q.a[i + 1];
		if ((r = map_id((pid_t)req.pid, "uid", &uid)) || (r = map_id((pid_t)req.pid, "gid", &gid)))
			goto reply;
		q.a[i] = uid;
		q.a[i + 1] = gid;
	}
	/* req.pid is the calling thread; its descriptors are its process's,
	 * taken through a pidfd when the call names one (opened before the
	 * check below, so that it is this process's). */
	if (from_descriptor(&q) && (pidfd = thread_pidfd((pid_t)req.pid, &c, &pidfd_owned)) < 0) {
		r = -ESRCH;
		goto reply;
	}
	/* All that was read came from the process that made this call, not
	 * from one that took its pid after it died. */
	if (ioctl(listener, SECCOMP_IOCTL_NOTIF_ID_VALID, &req.id) < 0) {
		r = -ESRCH;
		goto reply;
	}
	if (!same_root((pid_t)req.pid)) {
		snprintf(ev->path, sizeof(ev->path), "%s", q.path);
		ev->refused = true;
		ev->why = "the program changed its root directory (chroot)";
		r = -EACCES;
		goto reply;
	}
	int base = open_base(pidfd, (pid_t)req.pid, &q);
	if (base < 0 && base != AT_FDCWD) {
		r = base;
		goto reply;
	}
	/* From here on, the program's rights: the lookup is its walk (its
	 * search permissions, not ours), and the call is its call. */
	if ((r = creds_assume(&c, relevant))) {
		if (base >= 0)
			close(base);
		goto reply;
	}
	if (q.empty_path) {
		obj = base;
	} else {
		obj = openat(base, q.path, O_PATH | O_CLOEXEC | (q.follow ? 0 : O_NOFOLLOW));
		r = obj < 0 ? -errno : 0;
		if (base >= 0)
			close(base);
		if (obj < 0)
			goto reply;
	}

	char link[64];
	snprintf(link, sizeof(link), "/proc/self/fd/%d", obj);
	ssize_t n = readlink(link, ev->path, sizeof(ev->path) - 1);
	ev->path[n > 0 ? n : 0] = '\0';
	static const char deleted[] = " (deleted)";
	if (n > (ssize_t)sizeof(deleted) && ev->path[0] == '/' &&
	    strcmp(ev->path + n - (ssize_t)sizeof(deleted) + 1, deleted) == 0) {
		n -= (ssize_t)sizeof(deleted) - 1;  /* unlinked: where it was */
		ev->path[n] = '\0';
	}
	if (n <= 0 || ev->path[0] != '/') {
		/* A pipe, a socket, a memfd: no path to decide on. Its own
		 * writer may change it; nothing else may. */
		if (!(q.empty_path && opened_for_writing(obj))) {
			ev->refused = true;
			ev->why = "the object has no path beneath a write root";
			r = -EACCES;
		}
	} else if (q.call->kind == M_IOCTL && ioctls[q.ioctl].native == REFUSED) {
		ev->refused = true;
		ev->why = "btrfs subvolumes are made and removed out of the kernel layer's sight: "
			  "refused everywhere under cordon run";
		r = -EPERM;
	} else {
		policy_decide_path(pol, OP_WRITE, ev->path, (size_t)n, &ev->d);
		if (!ev->d.allow || ev->d.reason == REASON_DEVICE) {
			ev->refused = true;
			ev->why = ev->d.allow ? "a device is written to, never changed" : NULL;
			r = -EACCES;
		}
	}
	if (!ev->refused)
		r = perform(obj, &q, xvalue);
reply:
	creds_restore();
	if (obj >= 0)
		close(obj);
	if (pidfd_owned)
		close(pidfd);
	/* The program is still stopped in its call: its name is read now for
	 * the log line, while a short-lived one (chmod(1)) is still there. */
	if (ev->refused)
		ev->exe = program_exe((pid_t)req.pid);
	return (r = reply(listener, req.id, r)) < 0 ? r : 1;
}

#endif /* __linux__ */
