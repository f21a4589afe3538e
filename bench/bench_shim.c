/*
 * bench_shim.c - what the shim costs per call, against the same program
 * without it, in one interleaved run.
 *
 * The driver (no arguments, or ROUNDS) builds a tree on tmpfs
 * (/dev/shm/cordon-bench-PID), then for each scenario and each round runs
 * this program as a worker twice, bare and under LD_PRELOAD=libcordon.so,
 * alternating which goes first, and prints the median ns per call of each
 * side and their ratio. Workers time ITERS calls of one operation with
 * CLOCK_MONOTONIC and print ns per call.
 *
 * Scenarios (what the speed goals name):
 *   write-open    open(O_WRONLY|O_CREAT|O_TRUNC)+close of an absolute path in a root
 *   write-rel     the same, relative to a working directory inside the root
 *   read-open     open(O_RDONLY)+close, policy without read-deny
 *   refusal       open(O_WRONLY|O_CREAT) outside every root (shim only: bare succeeds)
 *   roots-1 / roots-10000   write-open with 1 and with 10,000 write roots
 *   depth-2 / depth-8 / depth-32   write-open that deep beneath the root
 *
 *   build/bench/bench_shim [ROUNDS]        (default 11)
 *   build/bench/bench_shim --worker OP PATH ITERS
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

#define ITERS 20000

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static int worker(const char *op, const char *path, long iters)
{
	int flags = strcmp(op, "read") == 0 ? O_RDONLY : O_WRONLY | O_CREAT | O_TRUNC;
	long failed = 0;
	double t0;

	for (int warm = 0; warm < 100; warm++) {
		int fd = open(path, flags, 0644);
		if (fd >= 0)
			close(fd);
	}
	t0 = now_ns();
	for (long i = 0; i < iters; i++) {
		int fd = open(path, flags, 0644);
		if (fd >= 0)
			close(fd);
		else
			failed++;
	}
	printf("%.1f %ld\n", (now_ns() - t0) / (double)iters, failed);
	return 0;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* Run one worker; returns ns per call, or -1. */
static double run(const char *self, const char *op, const char *path, const char *cwd,
		  char **env)
{
	char iters[32], out[128];
	int pipefd[2];
	pid_t pid;
	posix_spawn_file_actions_t fa;
	char *argv[] = { (char *)self, "--worker", (char *)op, (char *)path, iters, NULL };

	snprintf(iters, sizeof(iters), "%d", ITERS);
	if (pipe(pipefd) < 0)
		return -1;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, pipefd[1], 1);
	posix_spawn_file_actions_addclose(&fa, pipefd[0]);
	posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
	if (cwd)
		posix_spawn_file_actions_addchdir_np(&fa, cwd);
	if (posix_spawn(&pid, self, &fa, NULL, argv, env) != 0)
		return -1;
	posix_spawn_file_actions_destroy(&fa);
	close(pipefd[1]);
	ssize_t n = read(pipefd[0], out, sizeof(out) - 1);
	close(pipefd[0]);
	waitpid(pid, NULL, 0);
	if (n <= 0)
		return -1;
	out[n] = '\0';
	return strtod(out, NULL);
}

struct scenario {
	const char *name;
	const char *op;
	char path[PATH_MAX];
	char cwd[PATH_MAX];           /* "" : the driver's */
	const char *roots;            /* CORDON_WRITE value, or CORDON_POLICY_FD=N */
	int bare;                     /* compare with bare */
};

static void mkdirs(const char *path)
{
	char tmp[PATH_MAX];

	snprintf(tmp, sizeof(tmp), "%s", path);
	for (char *p = tmp + 1; *p; p++) {
		if (*p == '/') {
			*p = '\0';
			mkdir(tmp, 0755);
			*p = '/';
		}
	}
	mkdir(tmp, 0755);
}

int main(int argc, char **argv)
{
	char self[PATH_MAX], lib[PATH_MAX], base[PATH_MAX], root[PATH_MAX], cmd[PATH_MAX + 32];
	static char many_roots[64];
	int rounds = 11;

	if (argc == 5 && strcmp(argv[1], "--worker") == 0)
		return worker(argv[2], argv[3], atol(argv[4]));
	if (argc > 1)
		rounds = atoi(argv[1]);
	if (rounds < 1)
		return 2;

	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n < 0)
		return 2;
	self[n] = '\0';
	/* build/bench/bench_shim -> build/libcordon.so */
	snprintf(lib, sizeof(lib), "%.*s/../libcordon.so", (int)(strrchr(self, '/') - self), self);
	if (!realpath(lib, cmd)) {
		fprintf(stderr, "bench_shim: no %s: build it first\n", lib);
		return 2;
	}
	snprintf(lib, sizeof(lib), "%s", cmd);

	snprintf(base, sizeof(base), "/dev/shm/cordon-bench-%d", (int)getpid());
	snprintf(root, sizeof(root), "%s/root", base);
	mkdirs(root);
	mkdirs(base);
	char outside[PATH_MAX];
	snprintf(outside, sizeof(outside), "%s/outside", base);
	mkdirs(outside);

	/* 10,000 roots are too many for one environment variable (a string
	 * there is limited to 128 KiB): hand them over as a policy in a
	 * descriptor, as cordon run does. */
	int policy_fd = memfd_create("cordon-policy", MFD_ALLOW_SEALING);
	FILE *pf = policy_fd < 0 ? NULL : fdopen(dup(policy_fd), "w");
	if (!pf)
		return 2;
	fprintf(pf, "log off\nwrite %s\n", root);
	for (int i = 0; i < 9999; i++) {
		char d[PATH_MAX];
		snprintf(d, sizeof(d), "%s/many/r%04d", base, i);
		mkdirs(d);
		fprintf(pf, "write %s\n", d);
	}
	fclose(pf);
	/* Sealed, as cordon run hands it over: the shim takes nothing else. */
	if (fcntl(policy_fd, F_ADD_SEALS, F_SEAL_WRITE | F_SEAL_GROW | F_SEAL_SHRINK) < 0)
		return 2;
	snprintf(many_roots, sizeof(many_roots), "CORDON_POLICY_FD=%d", policy_fd);

	struct scenario sc[] = {
		{ "write-open", "write", "", "", root, 1 },
		{ "write-rel", "write", "f", "", root, 1 },
		{ "read-open", "read", "", "", root, 1 },
		{ "refusal", "write", "", "", root, 0 },
		{ "roots-1", "write", "", "", root, 1 },
		{ "roots-10000", "write", "", "", many_roots, 1 },
		{ "depth-2", "write", "", "", root, 1 },
		{ "depth-8", "write", "", "", root, 1 },
		{ "depth-32", "write", "", "", root, 1 },
	};
	size_t nsc = sizeof(sc) / sizeof(sc[0]);
	for (size_t i = 0; i < nsc; i++) {
		int depth = 2;
		if (strncmp(sc[i].name, "depth-", 6) == 0)
			depth = atoi(sc[i].name + 6);
		if (strcmp(sc[i].name, "refusal") == 0) {
			snprintf(sc[i].path, sizeof(sc[i].path), "%s/f", outside);
			continue;
		}
		char dir[PATH_MAX];
		size_t len = (size_t)snprintf(dir, sizeof(dir), "%s", root);
		for (int d = 1; d < depth; d++)
			len += (size_t)snprintf(dir + len, sizeof(dir) - len, "/d");
		mkdirs(dir);
		if (strcmp(sc[i].name, "write-rel") == 0)
			snprintf(sc[i].cwd, sizeof(sc[i].cwd), "%s", dir);
		else
			snprintf(sc[i].path, sizeof(sc[i].path), "%s/f", dir);
		char f[PATH_MAX + 8];
		snprintf(f, sizeof(f), "%s/f", dir);
		close(open(f, O_WRONLY | O_CREAT, 0644));
	}

	/* environments: bare, and shim with the scenario's roots */
	size_t nenv = 0;
	for (char **e = environ; *e; e++)
		nenv++;
	char **bare = calloc(nenv + 1, sizeof(char *));
	char **shim = calloc(nenv + 4, sizeof(char *));
	size_t k = 0;
	for (char **e = environ; *e; e++)
		if (strncmp(*e, "LD_PRELOAD=", 11) && strncmp(*e, "CORDON_", 7))
			bare[k++] = *e;
	memcpy(shim, bare, k * sizeof(char *));
	char preload[PATH_MAX + 16];
	snprintf(preload, sizeof(preload), "LD_PRELOAD=%s", lib);
	shim[k] = preload;
	shim[k + 1] = "CORDON_LOG=off";
	static char writes[PATH_MAX + 16];
	shim[k + 2] = writes;

	double *tb = calloc(nsc * (size_t)rounds, sizeof(double));
	double *ts = calloc(nsc * (size_t)rounds, sizeof(double));
	for (int r = 0; r < rounds; r++) {
		for (size_t i = 0; i < nsc; i++) {
			if (strncmp(sc[i].roots, "CORDON_", 7) == 0)
				snprintf(writes, sizeof(writes), "%s", sc[i].roots);
			else
				snprintf(writes, sizeof(writes), "CORDON_WRITE=%s", sc[i].roots);
			const char *cwd = sc[i].cwd[0] ? sc[i].cwd : NULL;
			if (r % 2 == 0) {
				tb[i * rounds + r] = sc[i].bare ? run(self, sc[i].op, sc[i].path[0] ? sc[i].path : "f", cwd, bare) : 0;
				ts[i * rounds + r] = run(self, sc[i].op, sc[i].path[0] ? sc[i].path : "f", cwd, shim);
			} else {
				ts[i * rounds + r] = run(self, sc[i].op, sc[i].path[0] ? sc[i].path : "f", cwd, shim);
				tb[i * rounds + r] = sc[i].bare ? run(self, sc[i].op, sc[i].path[0] ? sc[i].path : "f", cwd, bare) : 0;
			}
		}
	}

	printf("shim cost per call, median of %d interleaved rounds of %d calls (tmpfs)\n",
	       rounds, ITERS);
	printf("%-13s %10s %10s %8s\n", "scenario", "bare ns", "shim ns", "ratio");
	for (size_t i = 0; i < nsc; i++) {
		qsort(tb + i * rounds, (size_t)rounds, sizeof(double), cmp_double);
		qsort(ts + i * rounds, (size_t)rounds, sizeof(double), cmp_double);
		double b = tb[i * rounds + rounds / 2], s = ts[i * rounds + rounds / 2];
		if (sc[i].bare)
			printf("%-13s %10.1f %10.1f %8.3f\n", sc[i].name, b, s, s / b);
		else
			printf("%-13s %10s %10.1f %8s\n", sc[i].name, "-", s, "-");
	}
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", base);
	if (system(cmd) != 0)
		fprintf(stderr, "bench_shim: could not remove %s\n", base);
	free(tb);
	free(ts);
	free(bare);
	free(shim);
	return 0;
}
