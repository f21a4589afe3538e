/*
 * linux.c - the "landlock" backend: Landlock, seccomp, a network namespace
 * and capabilities, composed. It degrades one layer at a time: a kernel
 * without Landlock's TCP rules still gets the file system rules, and the
 * feature table says which layer enforces what, so the launcher can refuse
 * (or warn, as on-unsupported says) when the policy asks for something no
 * layer here enforces.
 */
#ifdef __linux__

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <signal.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "jail.h"
#include "layers.h"

static int linux_probe(const struct policy *pol, bool full, struct jail_host *host)
{
	char why[256] = "";

	memset(host, 0, sizeof(*host));
	host->landlock_abi = landlock_abi(why, sizeof(why));
	if (!host->landlock_abi)
		snprintf(host->why_not, sizeof(host->why_not), "%s", why);
	/* A kernel without seccomp answers EINVAL; loading a filter in a
	 * throw-away child (a container may forbid it) costs a fork, so a
	 * run learns that from applying the real one instead. */
	host->seccomp = prctl(PR_GET_SECCOMP, 0, 0, 0, 0) >= 0 &&
			(!full || seccomp_probe(why, sizeof(why)) == 0);
	if (!host->seccomp && !host->why_not[0])
		snprintf(host->why_not, sizeof(host->why_not), "%s",
			 why[0] ? why : "seccomp is not in this kernel");
	if (full || pol->net.value == NET_ISOLATED)
		host->userns = netns_probe(why, sizeof(why)) == 0;
	host->mountns = mountns_possible(pol->net.value == NET_ISOLATED && geteuid() != 0 &&
					 host->userns);
	return host->landlock_abi || host->seccomp ? 0 : -ENOSYS;
}

static const char *abi_name(int abi, int min)
{
	static const char *const names[] = { NULL, "Landlock ABI 1", "Landlock ABI 2",
					     "Landlock ABI 3", "Landlock ABI 4", "Landlock ABI 5",
					     "Landlock ABI 6", "Landlock ABI 7" };
	if (abi < min)
		return NULL;
	return abi < 8 ? names[abi] : "Landlock";
}

static size_t linux_features(const struct policy *pol, const struct jail_host *h,
			     struct jail_feature *out, size_t max)
{
	static char in_root[PATH_MAX * 2 + 128];
	const char *deny = NULL, *root = NULL;
	size_t n_in_root = landlock_read_deny_in_root(pol, &deny, &root);

	if (n_in_root)
		snprintf(in_root, sizeof(in_root),
			 "read-deny inside a write root (%s in %s%s; Landlock cannot take reads "
			 "back beneath a directory it grants)",
			 deny, root, n_in_root > 1 ? ", and more" : "");
	const struct jail_feature all[] = {
		{ "writes outside the write roots", abi_name(h->landlock_abi, 1),
		  "refuses and explains, before the call", true },
		{ "renames and links into the roots", abi_name(h->landlock_abi, 2),
		  "refuses both ends outside", true },
		{ "truncation outside the roots", abi_name(h->landlock_abi, 3), "refuses", true },
		{ "reads of read-deny entries", pol->n_read_deny ? abi_name(h->landlock_abi, 1) : NULL,
		  "refuses after resolving", pol->n_read_deny > 0 },
		{ "reads of disks and other devices",
		  pol->n_read_deny ? abi_name(h->landlock_abi, 1) : NULL, "refuses",
		  pol->n_read_deny > 0 },
		{ n_in_root ? in_root : "read-deny inside a write root", NULL, "refuses",
		  n_in_root > 0 },
		{ "TCP connects to unlisted ports", h->seccomp ? "seccomp supervisor" : NULL,
		  "refuses", pol->net.value == NET_NONE },
		{ "TCP binds to unlisted ports",
		  h->seccomp ? "seccomp supervisor" : abi_name(h->landlock_abi, 4), "refuses",
		  pol->net.value == NET_NONE },
		{ "TCP listen on a port at random", h->seccomp ? "seccomp supervisor" : NULL,
		  NULL, pol->net.value == NET_NONE },
		{ "TCP Fast Open, MPTCP, SCTP (net none)", h->seccomp ? "seccomp" : NULL,
		  "refuses sendto to unlisted ports", pol->net.value == NET_NONE },
		{ "UDP, raw and other sockets (net none)", h->seccomp ? "seccomp" : NULL,
		  "refuses sendto/connect", pol->net.value == NET_NONE },
		{ "a private network (net isolated)", h->userns ? "network namespace" : NULL, NULL,
		  pol->net.value == NET_ISOLATED },
		{ "abstract unix sockets of the host", h->seccomp ? "seccomp supervisor" : NULL,
		  "refuses connect, bind", pol->net.value == NET_NONE },
		{ "new processes (subprocess no)", h->seccomp ? "seccomp" : NULL,
		  "refuses fork, posix_spawn, system", !pol->subprocess.value },
		{ "signals to processes outside", abi_name(h->landlock_abi, 6), NULL, false },
		{ "io_uring, ptrace, mount, bpf, TIOCSTI", h->seccomp ? "seccomp" : NULL, NULL, false },
		{ "chmod, chown, utimes, xattrs outside", h->seccomp ? "seccomp supervisor" : NULL,
		  "refuses", false },
		{ "chattr, fs-verity outside (ioctl)", h->seccomp ? "seccomp supervisor" : NULL, NULL,
		  false },
		{ "btrfs subvolumes (ioctl; everywhere)", h->seccomp ? "seccomp supervisor" : NULL, NULL,
		  false },
		{ "host IPC objects (private-ipc)", h->mountns ? "IPC namespace" : NULL, NULL,
		  false },
		{ "writes beneath write-deny entries inside the roots",
		  h->mountns ? "read-only mounts (mount namespace)" : NULL,
		  "refuses (supervisor: metadata)", false },
		{ "unix sockets outside: connect, sendto", h->seccomp ? "seccomp supervisor" : NULL,
		  "refuses unlisted ones", true },
	};
	size_t n = 0;

	for (size_t i = 0; i < sizeof(all) / sizeof(all[0]) && n < max; i++)
		out[n++] = all[i];
	return n;
}

static int linux_apply(const struct policy *pol, const struct jail_host *h, int *supervise,
		       char *err, size_t errsize)
{
	int r;

	*supervise = -1;
	/* Die with the supervisor rather than outlive it unconfined by
	 * anything but the jail. */
	prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
	if (pol->net.value == NET_ISOLATED && (r = netns_apply(err, errsize)))
		return r;
	if (h->mountns && (r = mountns_apply(pol, err, errsize)))
		return r;
	if (h->mountns && pol->private_ipc.value && (r = ipcns_apply(err, errsize)))
		return r;
	if ((r = caps_drop(err, errsize)))
		return r;
	if (h->landlock_abi && (r = landlock_apply(pol, h->landlock_abi, h->kernel_log, err, errsize)))
		return r;
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0) {
		snprintf(err, errsize, "unable to set no_new_privs: %s", strerror(errno));
		return -errno;
	}
	if (h->seccomp && (r = seccomp_apply(pol, supervise, err, errsize)))
		return r;
	return 0;
}

/* Landlock's own log of what it refused (ABI 7), where audit is on and
 * readable: the refusals of programs the shim does not see. */
static int linux_log_open(const struct policy *pol, struct jail_host *host, char *why,
			  size_t size)
{
	if (host->landlock_abi < 7) {
		snprintf(why, size, "Landlock logs refusals from ABI 7 on; this kernel has %d",
			 host->landlock_abi);
		return -ENOTSUP;
	}
	(void)pol;
	int fd = kaudit_open(why, size);
	host->kernel_log = fd >= 0;
	return fd;
}

static const struct jail_backend jail_linux = {
	.name = "landlock",
	.probe = linux_probe,
	.features = linux_features,
	.apply = linux_apply,
	.supervise = supervise_one,
	.log_open = linux_log_open,
	.log_enabled = kaudit_enabled,
	.log_read = kaudit_read,
};

const struct jail_backend *jail_platform(void)
{
	return &jail_linux;
}

#endif /* __linux__ */
