/*
 * lastrun.c - where the last run is recorded, and recording it safely.
 */
#include "lastrun.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util.h"

#define RECORD "last-run.jsonl"

/* The trusted base (the user's own setting) and the components below it,
 * which are not: a sandboxed program may write there. */
static int base_of(const char **base, const char *const **below, char *err, size_t errsize)
{
	static const char *const xdg[] = { "cordon", NULL };
	static const char *const home[] = { ".local", "state", "cordon", NULL };
	const char *x = getenv("XDG_STATE_HOME"), *h = getenv("HOME");

	/* The XDG spec: a relative value is invalid and is ignored. */
	if (x && x[0] == '/') {
		*base = x;
		*below = xdg;
		return 0;
	}
	if (h && h[0] == '/') {
		*base = h;
		*below = home;
		return 0;
	}
	return errf(err, errsize, "neither XDG_STATE_HOME nor HOME is an absolute path");
}

int lastrun_path(char *out, char *err, size_t errsize)
{
	const char *base;
	const char *const *below;
	size_t n;

	if (base_of(&base, &below, err, errsize) < 0)
		return -1;
	n = (size_t)snprintf(out, PATH_MAX, "%s", base);
	for (; *below && n < PATH_MAX; below++)
		n += (size_t)snprintf(out + n, PATH_MAX - n, "/%s", *below);
	if (n < PATH_MAX)
		n += (size_t)snprintf(out + n, PATH_MAX - n, "/" RECORD);
	if (n >= PATH_MAX)
		return errf(err, errsize, "the record's path is longer than PATH_MAX");
	return 0;
}

static int write_all(int fd, const char *text, size_t len)
{
	for (size_t off = 0; off < len;) {
		ssize_t n = pwrite(fd, text + off, len - off, (off_t)off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		off += (size_t)n;
	}
	return 0;
}

/*
 * The record rewritten in place, under an exclusive lock (explain takes a
 * shared one to read it). Replacing it by rename would cost every run
 * ~0.13 ms on this VM's ext4, which starts writing a file renamed over
 * another back at once (auto_da_alloc). Only a plain file of ours, linked
 * once, and not locked by anyone else, is written in place: a program
 * may write below the base, and anything it put or holds there is
 * replaced instead.
 */
static int write_in_place(int dir, const char *text, size_t len)
{
	struct stat st;
	int fd = openat(dir, RECORD, O_RDWR | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0600);
	int r = -1;

	if (fd < 0)
		return -1;
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_nlink == 1 &&
	    st.st_uid == geteuid() && flock(fd, LOCK_EX | LOCK_NB) == 0 &&
	    write_all(fd, text, len) == 0 && ftruncate(fd, (off_t)len) == 0)
		r = 0;
	close(fd);
	return r;
}

/* A new file renamed over whatever is there. */
static int replace(int dir, const char *text, size_t len)
{
	char tmp[64];
	int e;

	snprintf(tmp, sizeof(tmp), RECORD ".%ld", (long)getpid());
	int fd = openat(dir, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0 && errno == EEXIST && unlinkat(dir, tmp, 0) == 0)
		fd = openat(dir, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return -1;
	if (write_all(fd, text, len) < 0 || close(fd) < 0 || renameat(dir, tmp, dir, RECORD) < 0) {
		e = errno ? errno : EIO;
		unlinkat(dir, tmp, 0);
		errno = e;
		return -1;
	}
	return 0;
}

int lastrun_save(const struct tally *t, const struct tally_run *run)
{
	const char *base;
	const char *const *below;
	char err[128];
	int dir, e;

	if (base_of(&base, &below, err, sizeof(err)) < 0) {
		errno = ENOENT;
		return -1;
	}
	if ((dir = open(base, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0 && errno == ENOENT) {
		/* XDG: made when missing, 0700. The base is the user's own
		 * setting: its components are followed. */
		char path[PATH_MAX];
		snprintf(path, sizeof(path), "%s", base);
		for (char *c = path + 1;; c++) {
			if (*c != '/' && *c)
				continue;
			char end = *c;
			*c = '\0';
			if (mkdir(path, 0700) < 0 && errno != EEXIST)
				return -1;
			if (!(*c = end))
				break;
		}
		dir = open(base, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	}
	if (dir < 0)
		return -1;
	for (; *below; below++) {
		int next = openat(dir, *below, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (next < 0 && errno == ENOENT && mkdirat(dir, *below, 0700) == 0)
			next = openat(dir, *below, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		e = errno;
		close(dir);
		if (next < 0) {
			errno = e;
			return -1;
		}
		dir = next;
	}
	char *text = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&text, &len);
	if (!m) {
		e = errno;
		close(dir);
		errno = e;
		return -1;
	}
	tally_save(t, run, m);
	if (fclose(m) != 0) {
		e = errno ? errno : ENOMEM;
		free(text);
		close(dir);
		errno = e;
		return -1;
	}
	int r = write_in_place(dir, text, len);
	if (r < 0)
		r = replace(dir, text, len);
	e = errno;
	free(text);
	close(dir);
	errno = e;
	return r;
}
