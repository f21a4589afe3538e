/*
 * seccomp.c - loading the kernel layer's seccomp filter.
 *
 * The filter's rules are jail/gen/seccomp-rules.c, written for libseccomp.
 * Building them takes libseccomp about 2 ms, as much as starting a small
 * program, and its inputs are three booleans of the policy (seccomp_shape):
 * so the build compiles all eight filters to BPF once (build/gen-seccomp,
 * which calls seccomp_bpf_export), and a run loads the one it needs with a
 * single system call. test_seccomp checks the compiled filters against
 * libseccomp's output, and their pseudo-filter code against the reviewed
 * golden files. What else cordon needed libseccomp for at run time (the
 * names and numbers of system calls) is compiled the same way, so cordon
 * does not link it.
 */
#ifdef __linux__

#include <errno.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "compat.h"
#include "layers.h"

__attribute__((format(printf, 4, 5)))
static int fail(char *err, size_t size, int rc, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, size, fmt, ap);
	va_end(ap);
	return rc < 0 ? rc : -EINVAL;
}

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

int seccomp_probe(char *err, size_t errsize)
{
	/* Load a filter that allows everything in a throw-away child: proves
	 * the kernel takes filters (not a container that forbids them). */
	static const struct sock_filter allow[] = { BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW) };
	struct sock_fprog prog = { 1, (struct sock_filter *)allow };
	pid_t pid = fork();
	int status;

	if (pid < 0)
		return fail(err, errsize, -errno, "unable to fork to probe seccomp");
	if (pid == 0)
		_exit(prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0 &&
		      syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog) == 0 ? 0 : 1);
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
		return fail(err, errsize, -EPERM, "seccomp filters cannot be loaded here");
	return 0;
}

#endif /* __linux__ */
