/*
 * scen_storm.c - many threads making wrapped calls at once, for the shim
 * scenario suite (tests/unit/test_shim_scenarios.c).
 *
 *   scen_storm ROOT OUTSIDE THREADS CALLS
 *
 * Each of THREADS threads waits at a barrier, then makes CALLS wrapped
 * calls, cycling through five kinds (so CALLS should be a multiple of 5):
 *
 *   0  open(ROOT/tN/f, O_WRONLY|O_CREAT|O_TRUNC)   allowed: must succeed
 *   1  open(ROOT/tN/f, O_RDWR)                     allowed: must succeed
 *   2  open(OUTSIDE/tN-I, O_WRONLY|O_CREAT)        refused: must fail EACCES
 *   3  unlink(ROOT/tN/f)                           allowed: must succeed
 *   4  mkdir(OUTSIDE/tN-I.d)                       refused: must fail EACCES
 *
 * ROOT/tN is made by the thread first (one more allowed call). Prints one
 * line, "allowed A allowed_failed F refused R refused_wrong W", where W
 * counts refused calls that succeeded or failed otherwise than EACCES, and
 * the first unexpected result of each kind to stderr. Exit status 0, or 2
 * on a usage or thread error.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define THREADS_MAX 64

static const char *root, *outside;
static long calls;
static pthread_barrier_t start;
static atomic_long allowed, allowed_failed, refused, refused_wrong;
static atomic_int reported_allowed, reported_refused;

static void allowed_result(int ok, const char *what, const char *path)
{
	atomic_fetch_add(&allowed, 1);
	if (ok)
		return;
	atomic_fetch_add(&allowed_failed, 1);
	if (atomic_exchange(&reported_allowed, 1) == 0)
		dprintf(2, "scen_storm: allowed %s %s failed: %s\n", what, path, strerror(errno));
}

static void refused_result(int ret, const char *what, const char *path)
{
	atomic_fetch_add(&refused, 1);
	if (ret < 0 && errno == EACCES)
		return;
	atomic_fetch_add(&refused_wrong, 1);
	if (atomic_exchange(&reported_refused, 1) == 0)
		dprintf(2, "scen_storm: refused %s %s returned %d errno %d\n", what, path, ret,
			ret < 0 ? errno : 0);
}

static void *worker(void *arg)
{
	long t = (long)arg;
	char dir[PATH_MAX / 2], file[PATH_MAX], out[PATH_MAX];
	int fd;

	snprintf(dir, sizeof(dir), "%s/t%ld", root, t);
	snprintf(file, sizeof(file), "%s/f", dir);
	pthread_barrier_wait(&start);
	allowed_result(mkdir(dir, 0755) == 0, "mkdir", dir);
	for (long i = 0; i < calls; i++) {
		switch (i % 5) {
		case 0:
			fd = open(file, O_WRONLY | O_CREAT | O_TRUNC, 0644);
			allowed_result(fd >= 0, "create", file);
			if (fd >= 0)
				close(fd);
			break;
		case 1:
			fd = open(file, O_RDWR);
			allowed_result(fd >= 0, "open", file);
			if (fd >= 0)
				close(fd);
			break;
		case 2:
			snprintf(out, sizeof(out), "%s/t%ld-%ld", outside, t, i);
			fd = open(out, O_WRONLY | O_CREAT, 0644);
			refused_result(fd, "create", out);
			if (fd >= 0)
				close(fd);
			break;
		case 3:
			allowed_result(unlink(file) == 0, "unlink", file);
			break;
		default:
			snprintf(out, sizeof(out), "%s/t%ld-%ld.d", outside, t, i);
			refused_result(mkdir(out, 0755), "mkdir", out);
			break;
		}
	}
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t th[THREADS_MAX];
	long n;

	if (argc != 5) {
		dprintf(2, "usage: scen_storm ROOT OUTSIDE THREADS CALLS\n");
		return 2;
	}
	root = argv[1];
	outside = argv[2];
	n = strtol(argv[3], NULL, 10);
	calls = strtol(argv[4], NULL, 10);
	if (n < 1 || n > THREADS_MAX || calls < 1)
		return 2;
	if (pthread_barrier_init(&start, NULL, (unsigned)n) != 0)
		return 2;
	for (long t = 0; t < n; t++)
		if (pthread_create(&th[t], NULL, worker, (void *)t) != 0)
			return 2;
	for (long t = 0; t < n; t++)
		pthread_join(th[t], NULL);
	printf("allowed %ld allowed_failed %ld refused %ld refused_wrong %ld\n",
	       atomic_load(&allowed), atomic_load(&allowed_failed), atomic_load(&refused),
	       atomic_load(&refused_wrong));
	return 0;
}
