/*
 * early.c - links libearly.so, whose constructor makes the first wrapped
 * call of the process (see lib/early.c); then, with an argument, starts
 * four threads that keep opening files and forks while they run: the
 * child tries to create ARGV[1] and prints "child OK" or "child ERRNO".
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

void early_touch(void);

static atomic_int stop;

static void *spin(void *arg)
{
	(void)arg;
	while (!atomic_load(&stop)) {
		int fd = open("/dev/null", O_RDONLY);
		if (fd >= 0)
			close(fd);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t t[4];

	early_touch();
	if (argc < 2)
		return 0;
	for (int i = 0; i < 4; i++)
		pthread_create(&t[i], NULL, spin, NULL);
	pid_t pid = fork();
	if (pid == 0) {
		int fd = open(argv[1], O_WRONLY | O_CREAT | O_TRUNC, 0644);
		printf(fd >= 0 ? "child OK\n" : "child %d\n", errno);
		fflush(stdout);
		_exit(0);
	}
	int status;
	waitpid(pid, &status, 0);
	atomic_store(&stop, 1);
	for (int i = 0; i < 4; i++)
		pthread_join(t[i], NULL);
	return 0;
}
