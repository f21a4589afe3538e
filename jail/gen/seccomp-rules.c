/*
 * seccomp-rules.c - the kernel layer's seccomp filter, as rules for
 * libseccomp: what it refuses outright and what it sends to the
 * supervisor.
 *
 * Nothing kills: a refused call fails, so programs can fall back. ENOSYS
 * for whole facilities a program can live without (io_uring, clone3: libc
 * and liburing fall back to the classic calls); EPERM or EACCES otherwise.
 * The filter covers x86-64 and the 32-bit ABIs beside it (i386 and x32),
 * so an `int 0x80` or an x32 call meets the same rules. Each entry of
 * each table says what it would permit.
 *
 * This runs at build time only: build/gen-seccomp compiles the filter of
 * each shape (seccomp_shape, three booleans of the policy) to BPF, which
 * cordon loads with one system call (jail/seccomp.c), and the tests build
 * it again to check the compiled filters and their reviewed pseudo-code.
 * cordon itself does not link libseccomp.
 */
#ifdef __linux__

#include <errno.h>
#include <linux/filter.h>
#include <linux/net.h>
#include <linux/sched.h>
#include <linux/seccomp.h>
#include <netinet/in.h>
#include <seccomp.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include "../compat.h"
#include "../layers.h"

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

#define RULE(ctx, action, name, ...)                                                   \
	seccomp_rule_add(ctx, action, seccomp_syscall_resolve_name(name), __VA_ARGS__)

/* Every field of @pol this reads must be a bit of seccomp_shape(): the
 * filters a run loads were compiled from the shapes alone. */
static int build(const struct policy *pol, scmp_filter_ctx *out, char *err, size_t errsize)
{
	scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
	int rc;

	if (!ctx) {
		errno = ENOMEM;
		return jail_fail(err, errsize, "unable to create a seccomp filter");
	}
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

	/* The calls Landlock does not see go to the supervisor (and chroot,
	 * which it only notes: supervise.c's roots_may_differ). A call this
	 * ABI lacks (chown32: i386 only) resolves to libseccomp's pseudo
	 * number, which it places in the ABIs that have it. */
	const char *sup[32];
	size_t nsup = supervised_calls(sup, 32, pol->net.value == NET_NONE);
	for (size_t i = 0; i < nsup; i++) {
		int nr = seccomp_syscall_resolve_name(sup[i]);
		if (nr == __NR_SCMP_ERROR)
			continue;  /* not a call on these architectures */
		if ((rc = seccomp_rule_add(ctx, SCMP_ACT_NOTIFY, nr, 0)) < 0)
			goto bad;
	}
	/* The ioctls that change a file's attributes, and btrfs's subvolume
	 * ones, by command: the low 32 bits, which are all the kernel takes. */
	uint32_t cmds[32];
	size_t ncmds = supervised_ioctls(cmds, 32);
	for (size_t i = 0; i < ncmds; i++) {
		if ((rc = RULE(ctx, SCMP_ACT_NOTIFY, "ioctl", 1,
			       SCMP_A1(SCMP_CMP_MASKED_EQ, 0xffffffffUL, (unsigned long)cmds[i]))) < 0)
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
		 * below it one by one: fewer rules, a shorter filter. */
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

	if (pol->net.value == NET_NONE) {
		/* TCP's other protocols on its socket type, which Landlock's
		 * port rules do not cover (they apply to IPPROTO_TCP alone):
		 * MPTCP binds any port, SCTP makes associations from setsockopt
		 * and sendmsg. Refused as a kernel without them would: programs
		 * that try one (Go's listeners) fall back to TCP. Every protocol
		 * above TCP's (a value with its upper half set, which the kernel
		 * would truncate, is among them); below it, none but the default
		 * makes a stream socket (the kernel answers EPROTONOSUPPORT). */
		for (int f = 0; f < 2; f++) {
			unsigned long family = f ? AF_INET6 : AF_INET;
			if ((rc = RULE(ctx, SCMP_ACT_ERRNO(EPROTONOSUPPORT), "socket", 3,
				       SCMP_A0(SCMP_CMP_EQ, family),
				       SCMP_A1(SCMP_CMP_MASKED_EQ, 0xf, (unsigned long)SOCK_STREAM),
				       SCMP_A2(SCMP_CMP_GT, (unsigned long)IPPROTO_TCP))) < 0)
				goto bad;
		}
		/* TCP Fast Open: a send with MSG_FASTOPEN and an address connects
		 * the socket, and neither Landlock (its connect rule is checked in
		 * connect(2) only) nor the supervisor (which sees connect) would
		 * see it. Refused as on a host with TFO off: the program falls
		 * back to connect, which is decided. The flags are a register
		 * of the direct calls. i386's socketcall carries them in memory:
		 * there every send that may carry an address is refused (a
		 * 32-bit program under net none already has no socketcall
		 * socket). Added first: from the rules after them, libseccomp
		 * would derive socketcall rules that test a register socketcall
		 * does not use, where the direct calls keep their flags. */
		static const unsigned long i386_sends[] = { SYS_SENDTO, SYS_SENDMSG, SYS_SENDMMSG };
		for (size_t i = 0; i < sizeof(i386_sends) / sizeof(i386_sends[0]); i++)
			if ((rc = RULE(ctx, SCMP_ACT_ERRNO(EACCES), "socketcall", 1,
				       SCMP_A0(SCMP_CMP_EQ, i386_sends[i]))) < 0)
				goto bad;
		if ((rc = RULE(ctx, SCMP_ACT_ERRNO(EOPNOTSUPP), "sendto", 1,
			       SCMP_A3(SCMP_CMP_MASKED_EQ, MSG_FASTOPEN, MSG_FASTOPEN))) < 0 ||
		    (rc = RULE(ctx, SCMP_ACT_ERRNO(EOPNOTSUPP), "sendmsg", 1,
			       SCMP_A2(SCMP_CMP_MASKED_EQ, MSG_FASTOPEN, MSG_FASTOPEN))) < 0 ||
		    (rc = RULE(ctx, SCMP_ACT_ERRNO(EOPNOTSUPP), "sendmmsg", 1,
			       SCMP_A3(SCMP_CMP_MASKED_EQ, MSG_FASTOPEN, MSG_FASTOPEN))) < 0)
			goto bad;
		/* A sendto with an address and without MSG_FASTOPEN goes to the
		 * supervisor, as in the other modes (below); the rules do not
		 * overlap, so no action has to win over another. */
		if ((rc = RULE(ctx, SCMP_ACT_NOTIFY, "sendto", 2, SCMP_A4(SCMP_CMP_NE, 0),
			       SCMP_A3(SCMP_CMP_MASKED_EQ, MSG_FASTOPEN, 0))) < 0)
			goto bad;
	} else {
		/* sendto with an address (a pointer in a register: NULL for a
		 * plain send) goes to the supervisor: a datagram to a unix
		 * socket by its path is one Landlock does not govern
		 * (supervise_sendto). i386's socketcall has the address in
		 * memory: every socketcall(SYS_SENDTO) goes, and first, before
		 * libseccomp derives a rule for it from the next one. */
		if ((rc = RULE(ctx, SCMP_ACT_NOTIFY, "socketcall", 1,
			       SCMP_A0(SCMP_CMP_EQ, (unsigned long)SYS_SENDTO))) < 0 ||
		    (rc = RULE(ctx, SCMP_ACT_NOTIFY, "sendto", 1, SCMP_A4(SCMP_CMP_NE, 0))) < 0)
			goto bad;
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
	errno = -rc;
	return jail_fail(err, errsize, "unable to build the seccomp filter: %s", strerror(-rc));
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

/* The filter for @pol into @fd: as BPF (after newer_calls), or as
 * libseccomp's pseudo-filter code. */
static int export_as(const struct policy *pol, int fd, bool bpf)
{
	char err[256];
	scmp_filter_ctx ctx = NULL;
	int rc = build(pol, &ctx, err, sizeof(err));

	if (rc)
		return rc;
	if (!bpf)
		rc = seccomp_export_pfc(ctx, fd);
	else if (write(fd, newer_calls, sizeof(newer_calls)) != (ssize_t)sizeof(newer_calls))
		rc = -EIO;
	else
		rc = seccomp_export_bpf(ctx, fd);
	seccomp_release(ctx);
	return rc;
}

int seccomp_bpf_export(const struct policy *pol, int fd)
{
	return export_as(pol, fd, true);
}

int seccomp_export(const struct policy *pol, int fd)
{
	return export_as(pol, fd, false);
}

#endif /* __linux__ */
