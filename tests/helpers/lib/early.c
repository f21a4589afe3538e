/*
 * early.c - libearly.so: a library whose constructor writes before the
 * program's main, and possibly before libcordon.so's own constructor has
 * run: the shim must initialise on that first call. The path comes from
 * EARLY_PATH; the result goes to stdout as "early OK" or "early ERRNO".
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

void early_touch(void);

__attribute__((constructor)) static void early(void)
{
	const char *path = getenv("EARLY_PATH");
	int fd;

	if (!path)
		return;
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd >= 0) {
		printf("early OK\n");
		close(fd);
	} else {
		printf("early %d\n", errno);
	}
	fflush(stdout);
}

__attribute__((visibility("default"))) void early_touch(void)
{
}
