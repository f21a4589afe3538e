/*
 * seccomp.c - the system calls the kernel layer refuses outright, with
 * libseccomp's rule API.
 *
 * Nothing kills: a refused call fails, so programs can fall back. ENOSYS
 * for whole facilities a program can live without (io_uring, clone3: libc
 * and liburing fall back to the classic calls); EPERM or EACCES otherwise.
 * The filter covers x86-64 and the 32-bit ABIs beside it (i386 and x32),
 * so an `int 0x80` or an x32 call meets the same rules. Each entry of
 * each table says what it would permit.
 *
 * libseccomp takes about 2 ms to build and load this filter, as much as
 * starting a small program. Its inputs are three booleans of the policy
 * (seccomp_shape), so the build compiles all eight filters to BPF once,
 * with libseccomp (build/gen-seccomp, which calls seccomp_bpf_export), and
 * a run loads the one it needs with a single system call. test_seccomp
 * checks the compiled filters against libseccomp's output, and their
 * pseudo-filter code against the reviewed golden files.
 */
#ifdef __linux__

#include <errno.h>
#include <linux/filter.h>
#include <linux/sched.h>
#include <linux/seccomp.h>
#include <seccomp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "compat.h"
#include "layers.h"

/* Refused always, with the errno given. */
static const struct {
	const char *name;
	int err;
} always[] = {
	{ "io_uring_setup", ENOSYS },    /* file and socket I/O the other layers cannot see */
	{ "io_uring_enter", ENOSYS },
	{ "io_uring_register", ENOSYS },
	{ "clone3", ENOSYS },            /* its flags live in memory, unfilterable: libc falls back to clone */
	{ "ptrace", EPERM },             /* driving another process (or one outside the sandbox) */
	{ "process_vm_readv", EPERM },   /* reading and writing another process's memory */
	{ "process_vm_writev", EPERM },
	{ "kexec_load", EPERM },         /* replacing the kernel */
	{ "kexec_file_load", EPERM },
	{ "bpf", EPERM },                /* kernel programs */
	{ "perf_event_open", EPERM },    /* kernel and other processes' events */
	{ "userfaultfd", EPERM },        /* stalling the kernel in exploits */
	{ "keyctl", EPERM },             /* the kernel keyrings: other sessions' secrets */
	{ "add_key", EPERM },
	{ "request_key", EPERM },
	{ "mount", EPERM },              /* remounting the file system the rules describe */
	{ "umount2", EPERM },
	{ "pivot_root", EPERM },
	{ "move_mount", EPERM },
	{ "open_tree", EPERM },
	{ "fsopen", EPERM },
	{ "fsconfig", EPERM },
	{ "fsmount", EPERM },
	{ "fspick", EPERM },
	{ "mount_setattr", EPERM },
	{ "setns", EPERM },              /* joining another namespace: leaving the sandbox's view */
	{ "swapon", EPERM },
	{ "swapoff", EPERM },
	{ "init_module", EPERM },
	{ "finit_module", EPERM },
	{ "delete_module", EPERM },
	{ "reboot", EPERM },
	{ "acct", EPERM },
};

/* Namespace flags: new namespaces would let the program remount and
 * re-root its view once the jail is set. */
static const unsigned long ns_flags[] = {
	CLONE_NEWNS, CLONE_NEWUSER, CLONE_NEWPID, CLONE_NEWNET,
	CLONE_NEWIPC, CLONE_NEWUTS, CLONE_NEWCGROUP,
};

/* Terminal ioctls that inject input into, or take over, the terminal the
 * program shares with the user. */
static const unsigned long tty_ioctls[] = { TIOCSTI, TIOCLINUX };

__attribute__((format(printf, 4, 5)))
static int fail(char *err, size_t size, int rc, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, size, fmt, ap);
	va_end(ap);
	return rc < 0 ? rc : -EINVAL;
}

#define RULE(ctx, action, name, ...)                                                   \
	seccomp_rule_add(ctx, action, seccomp_syscall_resolve_name(name), __VA_ARGS__)

unsigned seccomp_shape(const struct policy *pol)
{
	return (pol->userns.value ? 1u : 0u) | (pol->net.value == NET_NONE ? 2u : 0u) |
	       (pol->subprocess.value ? 4u : 0u);
}

void seccomp_shape_policy(unsigned shape, struct policy *pol)
{
	pol->userns.value = (shape & 1u) != 0;
	pol->net.value = shape & 2u ? NET_NONE : NET_ALL;
	pol->subprocess.value = (shape & 4u) != 0;
}

/* Every field of @pol this reads must be a bit of seccomp_shape(): the
 * filters a run loads were compiled from the shapes alone. */
static int build(const struct policy *pol, scmp_filter_ctx *out, char *err, size_t errsize)
{
	scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
	int rc;

	if (!ctx)
		return fail(err, errsize, -ENOMEM, "unable to create a seccomp filter");
	/* A binary tree of system call numbers rather than a chain: the kernel
	 * runs the filter over every number of every ABI when it is loaded
	 * (to cache what it always allows), and a chain made that 0.3 ms. */
	if ((rc = seccomp_attr_set(ctx, SCMP_FLTATR_CTL_OPTIMIZE, 2)) < 0)
		goto bad;
	/* The native ABI is there already; add the 32-bit ones. */
	if ((rc = seccomp_arch_add(ctx, SCMP_ARCH_X86)) < 0 && rc != -EEXIST)
		goto bad;
	if ((rc = seccomp_arch_add(ctx, SCMP_ARCH_X32)) < 0 && rc != -EEXIST)
		goto bad;

	/* The calls Landlock does not see go to the supervisor. A call this
	 * ABI lacks (chown32: i386 only) resolves to libseccomp's pseudo
	 * number, which it places in the ABIs that have it. */
	const char *sup[32];
	size_t nsup = supervised_calls(sup, 32);
	for (size_t i = 0; i < nsup; i++) {
		int nr = seccomp_syscall_resolve_name(sup[i]);
		if (nr == __NR_SCMP_ERROR)
			continue;  /* not a call on these architectures */
		if ((rc = seccomp_rule_add(ctx, SCMP_ACT_NOTIFY, nr, 0)) < 0)
			goto bad;
	}
	for (size_t i = 0; i < sizeof(always) / sizeof(always[0]); i++) {
		int nr = seccomp_syscall_resolve_name(always[i].name);
		if (nr == __NR_SCMP_ERROR)
			continue;  /* not a call on these architectures */
		if ((rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(always[i].err), nr, 0)) < 0)
			goto bad;
	}
	/* userns yes: a program that sandboxes its own children (a browser)
	 * may create namespaces; Landlock's domain outlives them, so they
	 * widen nothing (docs/threat-model.md). */
	for (size_t i = 0; !pol->userns.value && i < sizeof(ns_flags) / sizeof(ns_flags[0]); i++) {
		unsigned long f = ns_flags[i];
		if ((rc = RULE(ctx, SCMP_ACT_ERRNO(EPERM), "unshare", 1,
			       SCMP_A0(SCMP_CMP_MASKED_EQ, f, f))) < 0 ||
		    (rc = RULE(ctx, SCMP_ACT_ERRNO(EPERM), "clone", 1,
			       SCMP_A0(SCMP_CMP_MASKED_EQ, f, f))) < 0)
			goto bad;
	}
	for (size_t i = 0; i < sizeof(tty_ioctls) / sizeof(tty_ioctls[0]); i++) {
		if ((rc = RULE(ctx, SCMP_ACT_ERRNO(EPERM), "ioctl", 1,
			       SCMP_A1(SCMP_CMP_MASKED_EQ, 0xffffffffUL, tty_ioctls[i]))) < 0)
			goto bad;
	}

	if (pol->net.value == NET_NONE) {
		/* Landlock sees TCP only: every other kind of socket that could
		 * leave the machine is refused here. AF_UNIX (paths are checked
		 * by Landlock and the shim, abstract names by Landlock's scope)
		 * and AF_NETLINK (the local kernel) stay. */
		/* Families above the highest allowed one in one rule, the gaps
		 * below it one by one: fewer rules, a filter libseccomp builds
		 * faster (it is built at every run). */
		if ((rc = RULE(ctx, SCMP_ACT_ERRNO(EACCES), "socket", 1,
			       SCMP_A0(SCMP_CMP_GT, (unsigned long)AF_NETLINK))) < 0)
			goto bad;
		for (int family = 0; family < AF_NETLINK; family++) {
			if (family == AF_UNIX || family == AF_INET || family == AF_INET6)
				continue;
			if ((rc = RULE(ctx, SCMP_ACT_ERRNO(EACCES), "socket", 1,
				       SCMP_A0(SCMP_CMP_EQ, (unsigned long)family))) < 0)
				goto bad;
		}
		static const int other_types[] = { SOCK_DGRAM, SOCK_RAW, SOCK_RDM, SOCK_SEQPACKET,
						   SOCK_PACKET };
		for (int f = 0; f < 2; f++) {
			unsigned long family = f ? AF_INET6 : AF_INET;
			for (size_t t = 0; t < sizeof(other_types) / sizeof(other_types[0]); t++) {
				if ((rc = RULE(ctx, SCMP_ACT_ERRNO(EACCES), "socket", 2,
					       SCMP_A0(SCMP_CMP_EQ, family),
					       SCMP_A1(SCMP_CMP_MASKED_EQ, 0xf,
						       (unsigned long)other_types[t]))) < 0)
					goto bad;
			}
		}
	}

	if (!pol->subprocess.value) {
		/* Threads are clone(CLONE_THREAD): they keep working. */
		if ((rc = RULE(ctx, SCMP_ACT_ERRNO(EACCES), "fork", 0)) < 0 ||
		    (rc = RULE(ctx, SCMP_ACT_ERRNO(EACCES), "vfork", 0)) < 0 ||
		    (rc = RULE(ctx, SCMP_ACT_ERRNO(EACCES), "clone", 1,
			       SCMP_A0(SCMP_CMP_MASKED_EQ, CLONE_THREAD, 0))) < 0)
			goto bad;
	}
	*out = ctx;
	return 0;
bad:
	seccomp_release(ctx);
	return fail(err, errsize, rc, "unable to build the seccomp filter: %s", strerror(-rc));
}

int seccomp_apply(const struct policy *pol, int *listener, char *err, size_t errsize)
{
	const struct seccomp_compiled *f = &seccomp_compiled[seccomp_shape(pol)];
	struct sock_fprog prog = { f->len, (struct sock_filter *)f->insns };
	long fd;

	/* What libseccomp's seccomp_load does by default: no_new_privs (so
	 * that no capability is needed), then the filter; and a listener for
	 * the notifications. */
	*listener = -1;
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		return fail(err, errsize, -errno, "unable to set no_new_privs: %s", strerror(errno));
	fd = syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_NEW_LISTENER, &prog);
	if (fd >= 0) {
		/* Linux 6.6: the program, stopped at a supervised call, hands
		 * its CPU to the supervisor and takes it back with the answer,
		 * rather than waking it elsewhere (chmod under cordon run: 82
		 * -> 70 us). Older kernels say EINVAL: the round trip is then
		 * as before. */
		ioctl((int)fd, SECCOMP_IOCTL_NOTIF_SET_FLAGS, SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP);
		*listener = (int)fd;
		return 0;
	}
	if (errno != EBUSY)
		return fail(err, errsize, -errno, "unable to load the seccomp filter: %s",
			    strerror(errno));
	/* One listener per process tree: cordon runs inside another
	 * supervisor (a cordon run inside cordon run). Ours would answer
	 * ENOSYS with no listener; let those calls through to the outer one,
	 * which decides them with its own policy. */
	struct sock_filter *copy = malloc(f->len * sizeof(*copy));
	if (!copy)
		return fail(err, errsize, -ENOMEM, "unable to load the seccomp filter: out of memory");
	memcpy(copy, f->insns, f->len * sizeof(*copy));
	for (unsigned i = 0; i < f->len; i++)
		if (copy[i].code == (BPF_RET | BPF_K) && copy[i].k == SECCOMP_RET_USER_NOTIF)
			copy[i].k = SECCOMP_RET_ALLOW;
	prog.filter = copy;
	int r = (int)syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog);
	int e = errno;
	free(copy);
	if (r < 0)
		return fail(err, errsize, -e, "unable to load the seccomp filter: %s", strerror(e));
	snprintf(err, errsize, "an outer supervisor answers chmod, chown, utimes and xattrs "
		 "with its own policy (cordon inside cordon)");
	return 0;
}

/*
 * Calls newer than libseccomp 2.5 knows, which change what Landlock does
 * not see: setxattrat and removexattrat (Linux 6.13), file_setattr (6.17).
 * They have one number on every ABI; refused ENOSYS (libc falls back to
 * the older calls, which the supervisor answers) by instructions put
 * before libseccomp's program, which starts by reloading what it needs.
 */
#define AUDIT_ARCH_X86_64_ 0xc000003eu
#define AUDIT_ARCH_I386_ 0x40000003u
#define X32_BIT 0x40000000u
static const struct sock_filter newer_calls[] = {
	BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
	BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64_, 2, 0),
	BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_I386_, 1, 0),
	BPF_STMT(BPF_JMP | BPF_JA, 7),
	BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
	BPF_STMT(BPF_ALU | BPF_AND | BPF_K, ~X32_BIT),
	BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 463, 3, 0),  /* setxattrat */
	BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 466, 2, 0),  /* removexattrat */
	BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 469, 1, 0),  /* file_setattr */
	BPF_STMT(BPF_JMP | BPF_JA, 1),
	BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | ENOSYS),
};

int seccomp_bpf_export(const struct policy *pol, int fd)
{
	char err[256];
	scmp_filter_ctx ctx;
	int rc = build(pol, &ctx, err, sizeof(err));

	if (rc)
		return rc;
	if (write(fd, newer_calls, sizeof(newer_calls)) != (ssize_t)sizeof(newer_calls))
		rc = -EIO;
	else
		rc = seccomp_export_bpf(ctx, fd);
	seccomp_release(ctx);
	return rc;
}

int seccomp_export(const struct policy *pol, int fd)
{
	char err[256];
	scmp_filter_ctx ctx;
	int rc = build(pol, &ctx, err, sizeof(err));

	if (rc)
		return rc;
	rc = seccomp_export_pfc(ctx, fd);
	seccomp_release(ctx);
	return rc;
}

int seccomp_probe(char *err, size_t errsize)
{
	/* Load a filter that allows everything in a throw-away child: proves
	 * the kernel takes filters (not a container that forbids them). */
	pid_t pid = fork();
	int status;

	if (pid < 0)
		return fail(err, errsize, -errno, "unable to fork to probe seccomp");
	if (pid == 0) {
		scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
		_exit(ctx && seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM),
					      seccomp_syscall_resolve_name("acct"), 0) == 0 &&
		      seccomp_load(ctx) == 0 ? 0 : 1);
	}
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
		return fail(err, errsize, -EPERM, "seccomp filters cannot be loaded here");
	return 0;
}

#endif /* __linux__ */
