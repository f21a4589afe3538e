/*
 * netns.c - "net isolated": a network namespace of the program's own, with
 * only a loopback interface, brought up. As root, a network namespace
 * alone; otherwise inside a new user namespace that maps the caller's uid
 * and gid to themselves, so the program sees who it was.
 */
#ifdef __linux__

#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "layers.h"

static int write_file(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = write(fd, text, strlen(text));
	close(fd);
	return n == (ssize_t)strlen(text) ? 0 : -1;
}

int netns_apply(char *err, size_t errsize)
{
	uid_t uid = getuid();
	gid_t gid = getgid();
	struct ifreq ifr;
	int s;

	if (geteuid() == 0) {
		if (unshare(CLONE_NEWNET) < 0)
			return jail_fail(err, errsize, "unable to create a network namespace");
	} else {
		char map[64];
		if (unshare(CLONE_NEWUSER | CLONE_NEWNET) < 0)
			return jail_fail(err, errsize,
				    "unable to create a user and network namespace (hint: user "
				    "namespaces may be disabled, e.g. by AppArmor or "
				    "kernel.unprivileged_userns_clone)");
		snprintf(map, sizeof(map), "%u %u 1\n", uid, uid);
		if (write_file("/proc/self/uid_map", map) < 0 ||
		    write_file("/proc/self/setgroups", "deny\n") < 0)
			return jail_fail(err, errsize, "unable to map the user namespace");
		snprintf(map, sizeof(map), "%u %u 1\n", gid, gid);
		if (write_file("/proc/self/gid_map", map) < 0)
			return jail_fail(err, errsize, "unable to map the user namespace");
	}
	s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (s < 0)
		return jail_fail(err, errsize, "unable to open a socket in the new namespace");
	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "lo");
	if (ioctl(s, SIOCGIFFLAGS, &ifr) < 0 ||
	    (ifr.ifr_flags |= IFF_UP | IFF_RUNNING, ioctl(s, SIOCSIFFLAGS, &ifr) < 0)) {
		int r = jail_fail(err, errsize, "unable to bring up loopback in the new namespace");
		close(s);
		return r;
	}
	close(s);
	return 0;
}

int netns_probe(char *err, size_t errsize)
{
	pid_t pid = fork();
	int status;

	if (pid < 0)
		return jail_fail(err, errsize, "unable to fork to probe namespaces");
	if (pid == 0)
		_exit(netns_apply(err, errsize) == 0 ? 0 : 1);
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		snprintf(err, errsize, "a private network namespace cannot be created here");
		return -EPERM;
	}
	return 0;
}

#endif /* __linux__ */
