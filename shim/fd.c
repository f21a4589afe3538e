/*
 * fd.c - fd_move_high(), shared by the launcher and the shim.
 */
#include "fd.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

int fd_move_high(int fd, bool cloexec)
{
	struct rlimit rl;
	int min = 512, hi, e = errno;

	if (syscall(SYS_prlimit64, 0, RLIMIT_NOFILE, NULL, &rl) == 0 && rl.rlim_cur > 2048)
		min = 1000;
	hi = (int)syscall(SYS_fcntl, fd, cloexec ? F_DUPFD_CLOEXEC : F_DUPFD, min);
	if (hi >= 0) {
		syscall(SYS_close, fd);
		fd = hi;
	}
	errno = e;
	return fd;
}
