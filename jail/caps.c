/*
 * caps.c - started as root, cordon takes from the program the capabilities
 * that would let it step around the other layers or reach outside its
 * sandbox (docs/threat-model.md justifies each). They leave the bounding
 * set (so exec cannot bring them back), and the effective, permitted,
 * inheritable and ambient sets. The rest of root's power stays: a build
 * run as root expects to chown and to read root's files.
 */
#ifdef __linux__

#include <errno.h>
#include <linux/capability.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "layers.h"

#ifndef CAP_PERFMON
#define CAP_PERFMON 38
#endif
#ifndef CAP_BPF
#define CAP_BPF 39
#endif
#ifndef CAP_CHECKPOINT_RESTORE
#define CAP_CHECKPOINT_RESTORE 40
#endif

static const int dropped[] = {
	CAP_SYS_ADMIN,          /* mount, namespaces, and most of the kernel's admin calls */
	CAP_SYS_PTRACE,         /* tracing processes outside the sandbox */
	CAP_DAC_READ_SEARCH,    /* open_by_handle_at: opening files by handle, around paths */
	CAP_SYS_MODULE,         /* loading kernel code */
	CAP_NET_ADMIN,          /* reconfiguring interfaces, routes, firewall */
	CAP_NET_RAW,            /* raw and packet sockets */
	CAP_SYS_RAWIO,          /* /dev/mem, ioperm */
	CAP_MKNOD,              /* device nodes that give raw disk access */
	CAP_BPF,                /* kernel programs */
	CAP_PERFMON,            /* observing other processes and the kernel */
	CAP_SYS_BOOT,           /* reboot, kexec */
	CAP_SYS_TIME,           /* the system clock */
	CAP_MAC_ADMIN,          /* the LSM policy itself */
	CAP_MAC_OVERRIDE,
	CAP_LINUX_IMMUTABLE,    /* clearing immutable and append-only flags */
	CAP_SYSLOG,             /* the kernel log and its addresses */
	CAP_AUDIT_CONTROL,      /* the audit rules that record denials */
	CAP_SYS_PACCT,          /* process accounting to any file */
	CAP_CHECKPOINT_RESTORE, /* restoring processes and pids */
	CAP_SETPCAP,            /* giving the above back: dropped last */
};

int caps_drop(char *err, size_t errsize)
{
	struct __user_cap_header_struct hdr = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct data[2];

	if (geteuid() != 0)
		return 0;  /* nothing to drop that an unprivileged user holds */
	for (size_t i = 0; i < sizeof(dropped) / sizeof(dropped[0]); i++) {
		/* EINVAL: a capability this kernel does not have. EPERM without
		 * CAP_SETPCAP, which is fine for one already out of the set:
		 * under a cordon run as root (cordon inside cordon). */
		if (prctl(PR_CAPBSET_DROP, dropped[i], 0, 0, 0) < 0 && errno != EINVAL &&
		    !(errno == EPERM && prctl(PR_CAPBSET_READ, dropped[i], 0, 0, 0) == 0)) {
			snprintf(err, errsize, "unable to drop capability %d: %s", dropped[i],
				 strerror(errno));
			return -errno;
		}
	}
	if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) < 0 && errno != EINVAL) {
		snprintf(err, errsize, "unable to clear ambient capabilities: %s", strerror(errno));
		return -errno;
	}
	if (syscall(SYS_capget, &hdr, data) < 0) {
		snprintf(err, errsize, "unable to read capabilities: %s", strerror(errno));
		return -errno;
	}
	for (size_t i = 0; i < sizeof(dropped) / sizeof(dropped[0]); i++) {
		unsigned w = (unsigned)dropped[i] / 32, bit = 1u << ((unsigned)dropped[i] % 32);
		data[w].effective &= ~bit;
		data[w].permitted &= ~bit;
		data[w].inheritable &= ~bit;
	}
	if (syscall(SYS_capset, &hdr, data) < 0) {
		snprintf(err, errsize, "unable to drop capabilities: %s", strerror(errno));
		return -errno;
	}
	return 0;
}

#endif /* __linux__ */
