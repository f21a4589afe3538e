/*
 * jail.h - the kernel layer's interface: what the host can enforce, and
 * applying it to the calling process between fork and exec.
 *
 * One struct of operations per backend (landlock.c: Landlock + seccomp +
 * network namespace on Linux; seatbelt.c on macOS; noop.c everywhere),
 * each file wrapped whole in its platform's #ifdef. The launcher picks one
 * with jail_backend(), probes it, and applies it in the child. Functions
 * return 0 or -errno, and write a one-line reason into the caller's buffer;
 * only the launcher prints or dies.
 */
#ifndef CORDON_JAIL_H
#define CORDON_JAIL_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "../shim/policy.h"

/* What this host can enforce, found by trying (never by version numbers). */
struct jail_host {
	int landlock_abi;            /* 0: none (not built in, not in lsm=) */
	bool seccomp;                /* seccomp filters can be loaded */
	bool userns;                 /* an unprivileged user+net namespace works */
	bool mountns;                /* a mount (or IPC) namespace can be made:
	                                write-deny entries become read-only
	                                mounts, private-ipc an IPC namespace */
	bool kernel_log;             /* apply(): have the kernel log the program's
	                                refusals (log_open() succeeded) */
	char why_not[256];           /* the first probe that failed, and why */
};

/* One policy feature and the layer that enforces it on this host. */
struct jail_feature {
	const char *feature;         /* "writes outside the roots" */
	const char *kernel;          /* "Landlock ABI 7" or NULL: no kernel layer */
	const char *shim;            /* what the shim adds, or NULL */
	bool required;               /* the policy asks for it */
};

#define JAIL_FEATURES_MAX 24

/* A call the supervisor answered for the program. */
struct supervise_event {
	bool refused;
	int pid;
	const char *op;              /* "metadata", "connect" */
	const char *call;            /* "chmod", "fsetxattr", "connect" */
	const char *why;             /* a refusal that is not the policy's, or NULL */
	const char *layer;           /* who refused: NULL the supervisor, "kernel" */
	const char *exe;             /* the program, or NULL: /proc/PID/exe says */
	struct decision d;           /* the policy's decision otherwise */
	char path[PATH_MAX];         /* the object, resolved, or the address */
};

struct jail_backend {
	const char *name;
	/* Fill @host with what @pol needs (everything when @full, for
	 * `cordon status`): 0, or -ENOSYS when the backend cannot run at
	 * all. Probes that cost a fork are only made when needed. */
	int (*probe)(const struct policy *pol, bool full, struct jail_host *host);
	/* For each feature @pol asks for, the layer that enforces it here. */
	size_t (*features)(const struct policy *pol, const struct jail_host *host,
			   struct jail_feature *out, size_t max);
	/* Before fork: work that must happen in the parent (none so far). */
	/* In the child, after fork, before exec: restrict this process and
	 * its future children for good. Descriptors it opens close-on-exec
	 * may be left to the exec (or the child's exit) to close. Sets
	 * *@supervise to a descriptor the supervisor must serve (-1: none):
	 * the child hands it to the parent and closes its own copy. */
	int (*apply)(const struct policy *pol, const struct jail_host *host, int *supervise,
		     char *err, size_t errsize);
	/* In the parent, when the descriptor from apply() is readable: answer
	 * one call the program is stopped in. 1: answered (@ev says what was
	 * decided), 0: nothing to answer, -errno: the descriptor is done. */
	int (*supervise)(int fd, const struct policy *pol, struct supervise_event *ev);
	/* In the parent, before fork (NULL: the backend cannot): a descriptor
	 * the kernel layer's own refusals of the program can be read from,
	 * and host->kernel_log set so that apply() has them logged; or
	 * -errno with the reason in @why. Whether anything will come on it
	 * (the kernel may keep no log at all) is not known yet: */
	int (*log_open)(const struct policy *pol, struct jail_host *host, char *why, size_t size);
	/* ... this asks (0: it will; -errno and @why: it will not), which can
	 * cost a run a twentieth of its time, so it is asked only when the
	 * answer is needed: a refusal the shim put down to the kernel layer,
	 * and no refusal read from the descriptor yet. */
	int (*log_enabled)(char *why, size_t size);
	/* When that descriptor is readable: 1 and @ev for a refusal of the
	 * process tree started by @child (@ev->refused false: the child's
	 * self-test, which says the log is kept), 0 for nothing (yet),
	 * -ECHILD when that tree is gone and all of it was read, other
	 * -errno. */
	int (*log_read)(int fd, const struct policy *pol, int child, struct supervise_event *ev);
};

/* The backend @b names (BACKEND_AUTO: the platform's), or NULL. */
const struct jail_backend *jail_backend(enum backend b);

extern const struct jail_backend jail_noop;
/* This platform's backend, or NULL where none is built. */
const struct jail_backend *jail_platform(void);

#endif /* CORDON_JAIL_H */
