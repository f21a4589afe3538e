/*
 * scen_ops.c - runs a list of file system operations given on its command
 * line, for the shim scenario suite (tests/unit/test_shim_scenarios.c).
 *
 * Each operation is a name followed by a fixed number of arguments; the
 * operations run in order, and for each one a line goes to stdout:
 *
 *   PID NAME RET ERRNO
 *
 * RET is 0 for success (a descriptor is closed at once) and -1 for failure;
 * ERRNO is errno after the call, which is set to SENTINEL (4242, no errno)
 * before every call, so an allowed call that succeeds shows whether errno
 * was preserved. Lines are written with one write(2) each, so the lines of
 * a child that shares stdout never interleave.
 *
 *   open PATH FLAGS           open(PATH, FLAGS, 0644); FLAGS: O_WRONLY|O_CREAT...
 *   openat SLOT PATH FLAGS    openat(slot's fd, ...)
 *   write PATH TEXT           open(O_WRONLY|O_CREAT|O_TRUNC) then write TEXT
 *   creat PATH                creat(PATH, 0644)
 *   mkdir PATH                mkdirat SLOT PATH      rmdir PATH
 *   unlink PATH               unlinkat SLOT PATH FLAGS (0 or AT_REMOVEDIR)
 *   rename A B                link A B               symlink TARGET PATH
 *   exchange A B              renameat2(A, B, RENAME_EXCHANGE)
 *   truncate PATH             truncate(PATH, 0)
 *   chdir PATH                fchdir SLOT
 *   dir SLOT PATH             open O_RDONLY|O_DIRECTORY into SLOT (0-9)
 *   setenv NAME VALUE         unsetenv NAME
 *   spawn-empty PROG ARG...   fork; the child execve()s PROG with the rest of
 *                             the command line as argv[1..] and an empty
 *                             environment (as `env -i`); the parent waits:
 *                             RET is the child's exit status
 *   execvp PROG ARG...        execvp(PROG, the rest of the command line)
 *
 * In a PATH, "%N" stands for the number of the descriptor in slot N (for
 * /proc/self/fd/%N/name). Exit status: 0, or 2 on a usage error.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define SENTINEL 4242

#ifdef __SANITIZE_ADDRESS__
/* Under SANITIZE=1 the shim is instrumented: an exec with an empty
 * environment gets LD_PRELOAD back from the shim, but not the ASan runtime
 * that had to come first; let the runtime load second. (Exported: the
 * runtime looks it up in the executable, and CFLAGS hide symbols.) */
__attribute__((visibility("default"))) const char *__asan_default_options(void);
const char *__asan_default_options(void)
{
	return "verify_asan_link_order=0";
}
#endif

static int slots[10] = { -1, -1, -1, -1, -1, -1, -1, -1, -1, -1 };

static void usage(const char *msg)
{
	dprintf(2, "scen_ops: %s\n", msg);
	exit(2);
}

static int parse_flags(const char *s)
{
	static const struct { const char *name; int v; } names[] = {
		{ "O_RDONLY", O_RDONLY }, { "O_WRONLY", O_WRONLY }, { "O_RDWR", O_RDWR },
		{ "O_CREAT", O_CREAT }, { "O_EXCL", O_EXCL }, { "O_TRUNC", O_TRUNC },
		{ "O_APPEND", O_APPEND }, { "O_NOFOLLOW", O_NOFOLLOW },
		{ "O_DIRECTORY", O_DIRECTORY }, { "AT_REMOVEDIR", AT_REMOVEDIR }, { "0", 0 },
	};
	int flags = 0;

	while (*s) {
		size_t n = strcspn(s, "|"), i;
		for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
			if (strlen(names[i].name) == n && strncmp(names[i].name, s, n) == 0)
				break;
		if (i == sizeof(names) / sizeof(names[0]))
			usage("unknown flag");
		flags |= names[i].v;
		s += n;
		if (*s == '|')
			s++;
	}
	return flags;
}

/* "%N" -> the descriptor number in slot N. */
static const char *subst(const char *in, char out[PATH_MAX])
{
	size_t o = 0;

	for (const char *p = in; *p; p++) {
		if (p[0] == '%' && p[1] >= '0' && p[1] <= '9') {
			int n = snprintf(out + o, PATH_MAX - o, "%d", slots[p[1] - '0']);
			if (n < 0 || (size_t)n >= PATH_MAX - o)
				usage("path too long");
			o += (size_t)n;
			p++;
			continue;
		}
		if (o + 1 >= PATH_MAX)
			usage("path too long");
		out[o++] = *p;
	}
	out[o] = '\0';
	return out;
}

static int slot(const char *s)
{
	if (s[0] < '0' || s[0] > '9' || s[1])
		usage("bad slot");
	return s[0] - '0';
}

static void report(const char *name, int ret, int err)
{
	dprintf(1, "%d %s %d %d\n", (int)getpid(), name, ret < 0 ? -1 : 0, err);
}

/* An fd result: close it, report success. */
static int fdres(int fd)
{
	if (fd >= 0) {
		int e = errno;
		close(fd);
		errno = e;
		return 0;
	}
	return -1;
}

int main(int argc, char **argv)
{
	char p1[PATH_MAX], p2[PATH_MAX];
	int i = 1;

	while (i < argc) {
		const char *op = argv[i];
		int ret, err, left = argc - i - 1;
		char *const *a = argv + i + 1;
		int need;

		if (!strcmp(op, "spawn-empty") || !strcmp(op, "execvp")) {
			if (left < 1)
				usage("missing program");
			if (!strcmp(op, "execvp")) {
				errno = SENTINEL;
				execvp(a[0], (char *const *)a);
				report(op, -1, errno);
				return 0;
			}
			char *const empty[] = { NULL };
			pid_t pid = fork();
			if (pid < 0) {
				report(op, -1, errno);
				return 0;
			}
			if (pid == 0) {
				execve(a[0], (char *const *)a, empty);
				report("execve", -1, errno);
				_exit(127);
			}
			int st;
			while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
				;
			dprintf(1, "%d %s %d %d\n", (int)getpid(), op,
				WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st), SENTINEL);
			return 0;
		}

		if (!strcmp(op, "open") || !strcmp(op, "write") || !strcmp(op, "rename") ||
		    !strcmp(op, "link") || !strcmp(op, "symlink") || !strcmp(op, "exchange") ||
		    !strcmp(op, "dir") || !strcmp(op, "mkdirat") || !strcmp(op, "setenv"))
			need = 2;
		else if (!strcmp(op, "openat") || !strcmp(op, "unlinkat"))
			need = 3;
		else
			need = 1;
		if (left < need)
			usage("missing argument");

		errno = SENTINEL;
		if (!strcmp(op, "open")) {
			int flags = parse_flags(a[1]);
			subst(a[0], p1);
			errno = SENTINEL;
			ret = fdres(open(p1, flags, 0644));
		} else if (!strcmp(op, "openat")) {
			int flags = parse_flags(a[2]);
			subst(a[1], p1);
			errno = SENTINEL;
			ret = fdres(openat(slots[slot(a[0])], p1, flags, 0644));
		} else if (!strcmp(op, "write")) {
			subst(a[0], p1);
			errno = SENTINEL;
			int fd = open(p1, O_WRONLY | O_CREAT | O_TRUNC, 0644);
			err = errno;
			if (fd >= 0) {
				size_t n = strlen(a[1]);
				if (write(fd, a[1], n) != (ssize_t)n)
					usage("short write");
				close(fd);
			}
			errno = err;
			ret = fd < 0 ? -1 : 0;
		} else if (!strcmp(op, "creat")) {
			subst(a[0], p1);
			errno = SENTINEL;
			ret = fdres(creat(p1, 0644));
		} else if (!strcmp(op, "mkdir")) {
			ret = mkdir(subst(a[0], p1), 0755);
		} else if (!strcmp(op, "mkdirat")) {
			int s = slot(a[0]);
			subst(a[1], p1);
			errno = SENTINEL;
			ret = mkdirat(slots[s], p1, 0755);
		} else if (!strcmp(op, "rmdir")) {
			ret = rmdir(subst(a[0], p1));
		} else if (!strcmp(op, "unlink")) {
			ret = unlink(subst(a[0], p1));
		} else if (!strcmp(op, "unlinkat")) {
			int s = slot(a[0]), flags = parse_flags(a[2]);
			subst(a[1], p1);
			errno = SENTINEL;
			ret = unlinkat(slots[s], p1, flags);
		} else if (!strcmp(op, "rename")) {
			subst(a[0], p1);
			subst(a[1], p2);
			errno = SENTINEL;
			ret = rename(p1, p2);
		} else if (!strcmp(op, "link")) {
			subst(a[0], p1);
			subst(a[1], p2);
			errno = SENTINEL;
			ret = link(p1, p2);
		} else if (!strcmp(op, "symlink")) {
			subst(a[1], p2);
			errno = SENTINEL;
			ret = symlink(a[0], p2);
		} else if (!strcmp(op, "exchange")) {
			subst(a[0], p1);
			subst(a[1], p2);
			errno = SENTINEL;
			ret = renameat2(AT_FDCWD, p1, AT_FDCWD, p2, RENAME_EXCHANGE);
		} else if (!strcmp(op, "truncate")) {
			ret = truncate(subst(a[0], p1), 0);
		} else if (!strcmp(op, "chdir")) {
			ret = chdir(subst(a[0], p1));
		} else if (!strcmp(op, "fchdir")) {
			ret = fchdir(slots[slot(a[0])]);
		} else if (!strcmp(op, "dir")) {
			int s = slot(a[0]);
			subst(a[1], p1);
			errno = SENTINEL;
			slots[s] = open(p1, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
			ret = slots[s] < 0 ? -1 : 0;
		} else if (!strcmp(op, "setenv")) {
			ret = setenv(a[0], a[1], 1);
		} else if (!strcmp(op, "unsetenv")) {
			ret = unsetenv(a[0]);
		} else {
			usage("unknown operation");
		}
		err = errno;
		report(op, ret, err);
		i += 1 + need;
	}
	return 0;
}
