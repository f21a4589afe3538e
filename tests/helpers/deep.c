/*
 * deep.c - deep BASE LEVELS: create and enter LEVELS directories of 100
 * characters each below BASE (their absolute path passes PATH_MAX), then
 * create "f" and "d" there, by relative paths. Prints "f OK|ERRNO" and
 * "d OK|ERRNO". Without the shim, `deep BASE LEVELS check` prints whether
 * f and d exist there ("f yes|no", "d yes|no").
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	char seg[101];
	struct stat st;

	if (argc < 3 || chdir(argv[1]) != 0)
		return 2;
	memset(seg, '0', 100);
	seg[100] = '\0';
	for (int i = 0, n = atoi(argv[2]); i < n; i++) {
		if (argc == 3 && mkdir(seg, 0755) != 0 && errno != EEXIST)
			return 3;
		if (chdir(seg) != 0)
			return 4;
	}
	if (argc > 3) {
		printf("f %s\nd %s\n", lstat("f", &st) == 0 ? "yes" : "no",
		       lstat("d", &st) == 0 ? "yes" : "no");
		return 0;
	}
	int fd = open("f", O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd >= 0) {
		printf("f OK\n");
		close(fd);
	} else {
		printf("f %d\n", errno);
	}
	if (mkdir("d", 0755) == 0)
		printf("d OK\n");
	else
		printf("d %d\n", errno);
	return 0;
}
