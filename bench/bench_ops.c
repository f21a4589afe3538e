/*
 * bench_ops.c - the program the benchmark runs under each configuration:
 * it times file system and network operations through libc (so that an
 * LD_PRELOAD interposer sees them) and prints what each cost.
 *
 *   bench_ops --dir DIR [--outside DIR] [--port N] [--budget-us N] OP...
 *
 * OP is one of read-open, stat, write-open, create+unlink, rename,
 * mkdir+rmdir, chmod, symlink, connect, denied-write (`all` for every one).
 * Each runs in batches of BATCH calls, after one batch of warm-up, until
 * the time budget is spent; a batch is timed as a whole (two clock reads
 * per batch, not per call). Paired operations (create+unlink,
 * mkdir+rmdir) are timed separately and reported as two operations.
 *
 * One line per operation on stdout, for the driver:
 *
 *   @op NAME NS_PER_CALL CALLS FAILED REFUSED
 *
 * FAILED counts calls that returned an error other than a refusal
 * (EACCES, EPERM, EROFS); REFUSED counts refusals. The files live in DIR
 * (names carry the pid, so workers never share one); denied-write targets
 * OUTSIDE/denied, which a confining configuration refuses and the others
 * create.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"

#define BATCH 64

struct acc {
	const char *name;
	double ns;
	long calls, failed, refused;
};

static const char *dir, *outside;
static int port;
static double budget_ns = 20e6;
static char name_buf[BATCH][PATH_MAX], alt_buf[BATCH][PATH_MAX];

static void count(struct acc *a, int r)
{
	if (r >= 0)
		return;
	if (errno == EACCES || errno == EPERM || errno == EROFS)
		a->refused++;
	else
		a->failed++;
}

static void report(const struct acc *a)
{
	printf("@op %s %.1f %ld %ld %ld\n", a->name, a->calls ? a->ns / (double)a->calls : 0.0,
	       a->calls, a->failed, a->refused);
}

static void names(char buf[][PATH_MAX], const char *tag)
{
	for (int i = 0; i < BATCH; i++)
		snprintf(buf[i], PATH_MAX, "%s/%s.%d.%d", dir, tag, (int)getpid(), i);
}

/* --- one call per iteration, the same object each time ------------------- */

static int do_read_open(const char *p, int i)
{
	(void)i;
	int fd = open(p, O_RDONLY | O_CLOEXEC);
	if (fd >= 0)
		close(fd);
	return fd;
}

static int do_write_open(const char *p, int i)
{
	(void)i;
	int fd = open(p, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd >= 0)
		close(fd);
	return fd;
}

static int do_stat(const char *p, int i)
{
	struct stat st;

	(void)i;
	return stat(p, &st);
}

static int do_chmod(const char *p, int i)
{
	return chmod(p, i & 1 ? 0600 : 0644);
}

static int do_connect(const char *p, int i)
{
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };
	struct linger lg = { 1, 0 };
	int fd, r;

	(void)p;
	(void)i;
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -1;
	r = connect(fd, (struct sockaddr *)&sa, sizeof(sa));
	/* Reset rather than linger in TIME_WAIT: tens of thousands of
	 * connections a run would otherwise use up the ephemeral ports. */
	setsockopt(fd, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg));
	int e = errno;
	close(fd);
	errno = e;
	return r;
}

static void repeat(const char *name, int (*fn)(const char *, int), const char *path)
{
	struct acc a = { .name = name };
	double start = now_ns();

	for (int i = 0; i < BATCH; i++)
		fn(path, i);
	do {
		double t0 = now_ns();
		for (int i = 0; i < BATCH; i++)
			count(&a, fn(path, i));
		a.ns += now_ns() - t0;
		a.calls += BATCH;
	} while (now_ns() - start < budget_ns);
	report(&a);
}

/* --- batches of BATCH distinct objects, made and unmade ------------------ */

static int mk_file(const char *p)
{
	int fd = open(p, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (fd >= 0)
		close(fd);
	return fd;
}

static int mk_dir(const char *p)
{
	return mkdir(p, 0755);
}

static int mk_link(const char *p)
{
	return symlink("target", p);
}

static int un_link(const char *p)
{
	return unlink(p);
}

static int un_dir(const char *p)
{
	return rmdir(p);
}

static void timed_batch(struct acc *a, int (*fn)(const char *), char buf[][PATH_MAX])
{
	double t0 = now_ns();

	for (int i = 0; i < BATCH; i++)
		count(a, fn(buf[i]));
	a->ns += now_ns() - t0;
	a->calls += BATCH;
}

static void untimed_batch(int (*fn)(const char *), char buf[][PATH_MAX])
{
	for (int i = 0; i < BATCH; i++)
		fn(buf[i]);
}

/* make BATCH objects, timed as @mk, then remove them, timed as @un (NULL:
 * untimed). */
static void pairs(struct acc *mk, struct acc *un, int (*make)(const char *),
		  int (*unmake)(const char *), const char *tag)
{
	double start = now_ns();

	names(name_buf, tag);
	untimed_batch(make, name_buf);
	untimed_batch(unmake, name_buf);
	do {
		timed_batch(mk, make, name_buf);
		if (un)
			timed_batch(un, unmake, name_buf);
		else
			untimed_batch(unmake, name_buf);
	} while (now_ns() - start < budget_ns);
	report(mk);
	if (un)
		report(un);
}

static void renames(void)
{
	struct acc a = { .name = "rename" };
	double start = now_ns();

	names(name_buf, "ra");
	names(alt_buf, "rb");
	for (int i = 0; i < BATCH; i++)
		mk_file(name_buf[i]);
	do {
		double t0 = now_ns();
		for (int i = 0; i < BATCH; i++)
			count(&a, rename(name_buf[i], alt_buf[i]));
		for (int i = 0; i < BATCH; i++)
			count(&a, rename(alt_buf[i], name_buf[i]));
		a.ns += now_ns() - t0;
		a.calls += 2 * BATCH;
	} while (now_ns() - start < budget_ns);
	untimed_batch(un_link, name_buf);
	untimed_batch(un_link, alt_buf);
	report(&a);
}

static void denied(void)
{
	char p[PATH_MAX];
	struct acc a = { .name = "denied-write" };
	double start = now_ns();

	snprintf(p, sizeof(p), "%s/denied.%d", outside, (int)getpid());
	do {
		double t0 = now_ns();
		for (int i = 0; i < BATCH; i++)
			count(&a, do_write_open(p, i));
		a.ns += now_ns() - t0;
		a.calls += BATCH;
	} while (now_ns() - start < budget_ns);
	unlink(p);
	report(&a);
}

static bool run_op(const char *op)
{
	char file[PATH_MAX];
	bool all = strcmp(op, "all") == 0;

	snprintf(file, sizeof(file), "%s/f.%d", dir, (int)getpid());
	if (mk_file(file) < 0 && errno != EEXIST) {
		fprintf(stderr, "bench_ops: cannot create %s: %s\n", file, strerror(errno));
		return false;
	}
	if (all || strcmp(op, "read-open") == 0)
		repeat("read-open", do_read_open, file);
	if (all || strcmp(op, "stat") == 0)
		repeat("stat", do_stat, file);
	if (all || strcmp(op, "write-open") == 0)
		repeat("write-open", do_write_open, file);
	if (all || strcmp(op, "create+unlink") == 0) {
		struct acc mk = { .name = "create" }, un = { .name = "unlink" };
		pairs(&mk, &un, mk_file, un_link, "c");
	}
	if (all || strcmp(op, "rename") == 0)
		renames();
	if (all || strcmp(op, "mkdir+rmdir") == 0) {
		struct acc mk = { .name = "mkdir" }, un = { .name = "rmdir" };
		pairs(&mk, &un, mk_dir, un_dir, "d");
	}
	if (all || strcmp(op, "chmod") == 0)
		repeat("chmod", do_chmod, file);
	if (all || strcmp(op, "symlink") == 0) {
		struct acc mk = { .name = "symlink" };
		pairs(&mk, NULL, mk_link, un_link, "s");
	}
	if ((all && port) || strcmp(op, "connect") == 0)
		repeat("connect", do_connect, NULL);
	if ((all && outside) || strcmp(op, "denied-write") == 0)
		denied();
	unlink(file);
	return true;
}

int main(int argc, char **argv)
{
	int i = 1;

	for (; i + 1 < argc && strncmp(argv[i], "--", 2) == 0; i += 2) {
		if (strcmp(argv[i], "--dir") == 0)
			dir = argv[i + 1];
		else if (strcmp(argv[i], "--outside") == 0)
			outside = argv[i + 1];
		else if (strcmp(argv[i], "--port") == 0)
			port = atoi(argv[i + 1]);
		else if (strcmp(argv[i], "--budget-us") == 0)
			budget_ns = atof(argv[i + 1]) * 1e3;
		else
			break;
	}
	if (!dir || i >= argc) {
		fprintf(stderr, "usage: bench_ops --dir DIR [--outside DIR] [--port N] "
				"[--budget-us N] OP...\n");
		return 2;
	}
	for (; i < argc; i++)
		if (!run_op(argv[i]))
			return 1;
	return fflush(stdout) == 0 ? 0 : 1;
}
