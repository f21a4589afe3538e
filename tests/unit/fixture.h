/*
 * fixture.h - what several suites share: their temporary trees, the programs
 * the build made, and the checks of run_ops's result lines.
 * Header-only (static inline): each suite is one translation unit.
 */
#ifndef CORDON_TESTS_FIXTURE_H
#define CORDON_TESTS_FIXTURE_H

#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

static inline int fixture_remove_entry(const char *path, const struct stat *st, int type,
				       struct FTW *ftw)
{
	(void)st;
	(void)type;
	(void)ftw;
	return remove(path);
}

/* rm -rf @dir, staying on its file system and never following a link out. */
static inline int fixture_rmtree(const char *dir)
{
	return nftw(dir, fixture_remove_entry, 16, FTW_DEPTH | FTW_PHYS | FTW_MOUNT);
}

/* Read @path into @buf (at most @size - 1 bytes, NUL-terminated): its
 * length, @size - 1 when it did not fit, or -1 when it cannot be opened. */
static inline ssize_t fixture_slurp(const char *path, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	size_t got = 0;
	ssize_t n;

	if (fd < 0)
		return -1;
	while (got < size - 1 && (n = read(fd, buf + got, size - 1 - got)) > 0)
		got += (size_t)n;
	close(fd);
	buf[got] = '\0';
	return (ssize_t)got;
}

#include <limits.h>
#include <stdarg.h>

/* printf into a ring buffer. */
__attribute__((format(printf, 1, 2))) static inline const char *fmt(const char *f, ...)
{
	static char ring[16][PATH_MAX];
	static unsigned next;
	char *b = ring[next++ % 16];
	va_list ap;

	va_start(ap, f);
	vsnprintf(b, PATH_MAX, f, ap);
	va_end(ap);
	return b;
}

#ifdef FIXTURE_TREE

/* The suite's temporary tree, canonical (its setup fills it in). */
static char T[128];

/* $T/@rel in one of a ring of buffers: several may be live in one call. */
static inline const char *tp(const char *rel)
{
	static char ring[32][PATH_MAX];
	static unsigned next;
	char *b = ring[next++ % 32];

	snprintf(b, PATH_MAX, "%s/%s", T, rel);
	return b;
}

#endif /* FIXTURE_TREE */

#ifdef FIXTURE_RUN_OPS
#include <criterion/criterion.h>
#include <limits.h>
#include <stdbool.h>
#include <string.h>
#include <sys/wait.h>

/* One result line of tests/helpers/run_ops.c: "NAME RET ERRNO [INFO]". */
struct res {
	char op[32];
	long ret;
	int err;
	char info[PATH_MAX];
};

/* The result lines of run_ops's output @out into @v, in order (other
 * lines, such as the "env:" lines of its env operation, are passed over). */
static inline size_t fixture_results(const char *out, struct res *v, size_t max)
{
	size_t n = 0;

	for (const char *p = out; *p && n < max;) {
		char line[PATH_MAX + 64];
		size_t l = strcspn(p, "\n");
		if (l < sizeof(line)) {
			memcpy(line, p, l);
			line[l] = '\0';
			v[n].info[0] = '\0';
			if (strncmp(line, "env:", 4) != 0 &&
			    sscanf(line, "%31s %ld %d %4095s", v[n].op, &v[n].ret, &v[n].err,
				   v[n].info) >= 3)
				n++;
		}
		p += l;
		if (*p)
			p++;
	}
	return n;
}

/* A run of cordon, as the suites that drive run_ops keep it (in R). */
struct fixture_run_result {
	int raw;           /* wait status */
	double seconds;    /* wall time */
	char out[1 << 16], err[1 << 16];
};

#ifdef FIXTURE_TREE
#include <signal.h>
#include <time.h>

static inline double fixture_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/*
 * Start @argv in $T: stdin /dev/null, stdout and stderr to $T/stdout and
 * $T/stderr; the environment ours, TMPDIR=$T/tmp, then @env (NAME=VALUE,
 * overriding), and under the sanitizer build ASan's options unless @env
 * gives them. @child, when not NULL, runs in the child before the exec
 * with @arg (nonzero: the child exits 120). *@started: when it started.
 */
static inline pid_t fixture_spawn(const char *const *argv, const char *const *env,
				  int (*child)(int), int arg, double *started)
{
	const char *envp[512], *first = getenv("CORDON_PRELOAD_FIRST");
	bool asan = first && *first, asan_given = false;
	size_t e = 0;
	char tmpdir[PATH_MAX + 8];

	snprintf(tmpdir, sizeof(tmpdir), "TMPDIR=%s", tp("tmp"));
	for (size_t i = 0; env && env[i]; i++)
		asan_given = asan_given || strncmp(env[i], "ASAN_OPTIONS=", 13) == 0;
	for (char **v = environ; *v && e < 400; v++) {
		size_t nl = strcspn(*v, "=");
		bool overridden = strncmp(*v, "TMPDIR=", 7) == 0 ||
				  (asan && strncmp(*v, "ASAN_OPTIONS=", 13) == 0);
		for (size_t i = 0; env && env[i]; i++)
			overridden = overridden || strncmp(*v, env[i], nl + 1) == 0;
		if (!overridden)
			envp[e++] = *v;
	}
	envp[e++] = tmpdir;
	if (asan && !asan_given)
		envp[e++] = "ASAN_OPTIONS=verify_asan_link_order=0:detect_leaks=0";
	for (size_t i = 0; env && env[i]; i++) {
		cr_assert_lt(e, 510);
		envp[e++] = env[i];
	}
	envp[e] = NULL;

	int out = open(tp("stdout"), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	int err = open(tp("stderr"), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	cr_assert(out >= 0 && err >= 0, "create %s: %s", tp("stdout"), strerror(errno));
	fflush(NULL);
	*started = fixture_now();
	pid_t pid = fork();
	cr_assert_geq(pid, 0, "fork: %s", strerror(errno));
	if (pid == 0) {
		int null = open("/dev/null", O_RDONLY);
		if (null < 0 || dup2(null, 0) < 0 || dup2(out, 1) < 0 || dup2(err, 2) < 0 ||
		    chdir(T) < 0 || (child && child(arg) < 0))
			_exit(120);
		execve(argv[0], (char *const *)argv, (char *const *)envp);
		_exit(121);
	}
	close(out);
	close(err);
	return pid;
}

/* Wait for @pid, started at @started (killed after @guard seconds: a
 * failure); its status, time and output into @r. */
static inline void fixture_finish(pid_t pid, double started, int guard,
				  struct fixture_run_result *r)
{
	int st = 0;
	pid_t w;

	while ((w = waitpid(pid, &st, WNOHANG)) == 0 && fixture_now() - started < guard)
		usleep(5 * 1000);
	if (w == 0) {
		kill(pid, SIGKILL);
		waitpid(pid, &st, 0);
	}
	cr_assert(w == pid || w == 0, "waitpid: %s", strerror(errno));
	r->raw = st;
	r->seconds = fixture_now() - started;
	if (fixture_slurp(tp("stdout"), r->out, sizeof(r->out)) < 0)
		r->out[0] = '\0';
	if (fixture_slurp(tp("stderr"), r->err, sizeof(r->err)) < 0)
		r->err[0] = '\0';
	cr_assert_neq(w, 0, "still running after %d s, killed\nstdout:\n%s\nstderr:\n%.4000s",
		      guard, r->out, r->err);
}
#endif /* FIXTURE_TREE */

#define ANY_RET LONG_MIN  /* RET: any value >= 0 (a descriptor) */
#define ANY_ERRNO -1      /* errno: not checked */

/* What one result line must say. */
struct want {
	const char *op;
	long ret;          /* 0 success, -1 failure, ANY_RET, or the value the operation reports */
	int err, err2;     /* errno: either; ANY_ERRNO: not checked */
};

#define OK(op) { op, 0, 0, 0 }
#define VAL(op, v) { op, v, 0, 0 }
#define FD(op) { op, ANY_RET, 0, 0 }
#define NO(op, e) { op, -1, e, e }
#define NO2(op, e, e2) { op, -1, e, e2 }

static inline const char *fixture_err_name(int e)
{
	return e == ANY_ERRNO ? "any" : e == 0 ? "0" : strerror(e);
}

/* The result lines of @r's stdout are exactly @w, in order, and are left
 * in @v; otherwise the test fails, showing the run's output. */
static inline void fixture_expect_results(const struct fixture_run_result *r,
					  const struct want *w, size_t n, struct res *v,
					  size_t max)
{
	size_t k = fixture_results(r->out, v, max);

	cr_expect_eq(k, n, "%zu results, want %zu\nstdout:\n%s\nstderr:\n%.4000s", k, n, r->out,
		     r->err);
	for (size_t i = 0; i < n && i < k; i++) {
		bool ret_ok = w[i].ret == ANY_RET ? v[i].ret >= 0 : v[i].ret == w[i].ret;
		bool err_ok = w[i].err == ANY_ERRNO || v[i].err == w[i].err || v[i].err == w[i].err2;
		cr_expect_str_eq(v[i].op, w[i].op, "result %zu", i);
		cr_expect(ret_ok && err_ok,
			  "result %zu (%s): %ld errno %d (%s) %s, want %ld errno %s%s%s\n"
			  "stdout:\n%s\nstderr:\n%.4000s",
			  i, v[i].op, v[i].ret, v[i].err, fixture_err_name(v[i].err), v[i].info,
			  w[i].ret, fixture_err_name(w[i].err), w[i].err2 != w[i].err ? " or " : "",
			  w[i].err2 != w[i].err ? fixture_err_name(w[i].err2) : "", r->out, r->err);
	}
}

/* @r exited with @code; otherwise the test fails, saying how it ended. */
static inline void fixture_expect_exit(const struct fixture_run_result *r, int code)
{
	cr_expect(WIFEXITED(r->raw) && WEXITSTATUS(r->raw) == code,
		  "cordon %s %d, want exit %d\nstdout:\n%s\nstderr:\n%.4000s",
		  WIFEXITED(r->raw) ? "exited" : "was killed by signal",
		  WIFEXITED(r->raw) ? WEXITSTATUS(r->raw) : WTERMSIG(r->raw), code, r->out, r->err);
}

/* In a suite whose last run is R and whose results go to got[]. */
#define EXPECT(...)                                                                     \
	do {                                                                            \
		const struct want w_[] = { __VA_ARGS__ };                               \
		fixture_expect_results(&R, w_, sizeof(w_) / sizeof(w_[0]), got,          \
				       sizeof(got) / sizeof(got[0]));                   \
	} while (0)
#endif /* FIXTURE_RUN_OPS */

#ifdef FIXTURE_PROGRAM
#include <criterion/criterion.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

/* The canonical path of $CORDON_SRC/$CORDON_BUILD/@name into @out (a
 * binary the build made), or the test fails saying which. */
static inline void program(char out[PATH_MAX], const char *name)
{
	const char *build = getenv("CORDON_BUILD"), *src = getenv("CORDON_SRC");
	char rel[PATH_MAX];

	snprintf(rel, sizeof(rel), "%s/%s/%s", src && *src ? src : ".",
		 build && *build ? build : "build", name);
	cr_assert_not_null(realpath(rel, out), "no %s (make %s): %s", rel, rel, strerror(errno));
}

/* Skip the test with a reason. Criterion runs no .fini after a skip, so
 * the suite's teardown() removes the tree first. */
#define SKIP(...)                                                                       \
	do {                                                                            \
		teardown();                                                             \
		cr_skip_test(__VA_ARGS__);                                              \
	} while (0)
#endif /* FIXTURE_PROGRAM */

#if defined(FIXTURE_PROGRAM) && defined(FIXTURE_TREE)
#include <sys/wait.h>

/*
 * Run @argv (argv[0] a path) in $T/ws to its end: stdin /dev/null (never a
 * terminal), stdout and stderr into $T/stdout and $T/stderr, HOME=$T/home,
 * XDG_STATE_HOME=$T/state, TMPDIR=$T/tmp, then @env ("NAME=VALUE" sets,
 * "NAME" unsets). Returns the wait status.
 */
static inline int fixture_run(const char *const *argv, const char *const *env)
{
	int out = open(tp("stdout"), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	int err = open(tp("stderr"), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	int st;

	cr_assert(out >= 0 && err >= 0, "create %s: %s", tp("stdout"), strerror(errno));
	fflush(NULL);
	pid_t pid = fork();
	cr_assert_geq(pid, 0, "fork: %s", strerror(errno));
	if (pid == 0) {
		const char *first = getenv("CORDON_PRELOAD_FIRST");
		int null = open("/dev/null", O_RDONLY);
		if (null < 0 || dup2(null, 0) < 0 || dup2(out, 1) < 0 || dup2(err, 2) < 0 ||
		    chdir(tp("ws")) < 0 || setenv("HOME", tp("home"), 1) < 0 ||
		    setenv("XDG_STATE_HOME", tp("state"), 1) < 0 ||
		    setenv("TMPDIR", tp("tmp"), 1) < 0)
			_exit(120);
		if (first && *first)
			setenv("ASAN_OPTIONS", "verify_asan_link_order=0:detect_leaks=0", 1);
		for (size_t i = 0; env && env[i]; i++) {
			if (strchr(env[i], '='))
				putenv((char *)env[i]);
			else
				unsetenv(env[i]);
		}
		execv(argv[0], (char *const *)argv);
		_exit(121);
	}
	close(out);
	close(err);
	cr_assert_eq(waitpid(pid, &st, 0), pid);
	return st;
}
/* T := a new directory from the mkdtemp(3) template @tmpl, canonical. */
static inline void fixture_mktree(const char *tmpl)
{
	char t[sizeof(T)], canonical[PATH_MAX];

	snprintf(t, sizeof(t), "%s", tmpl);
	cr_assert_not_null(mkdtemp(t), "mkdtemp %s: %s", tmpl, strerror(errno));
	cr_assert_not_null(realpath(t, canonical));
	cr_assert_lt(strlen(canonical), sizeof(T));
	strcpy(T, canonical);
}
#endif

#endif /* CORDON_TESTS_FIXTURE_H */
