/*
 * test_shim_init.c - the shim decides from the very first wrapped call of a
 * process: one made by a library constructor that may run before the
 * shim's own, and one made in a child forked while other threads were
 * busy in wrapped calls.
 *
 * Fixture (per test, on tmpfs):
 *   T/
 *   ├── root/        the only write root
 *   └── (nothing)    out-early, out-child must never appear here
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static char T[64], lib[PATH_MAX], prog[PATH_MAX];
static char out[8192], err[8192];

static void setup(void)
{
	const char *build = getenv("CORDON_BUILD");
	char rel[PATH_MAX];

	cr_assert_not_null(build, "CORDON_BUILD is not set (run through make check)");
	snprintf(T, sizeof(T), "/dev/shm/cordon-init-XXXXXX");
	cr_assert_not_null(mkdtemp(T));
	snprintf(rel, sizeof(rel), "%s/root", T);
	cr_assert_eq(mkdir(rel, 0755), 0);
	snprintf(rel, sizeof(rel), "%s/libcordon.so", build);
	cr_assert_not_null(realpath(rel, lib));
	snprintf(rel, sizeof(rel), "%s/tests/helpers/early", build);
	cr_assert_not_null(realpath(rel, prog));
}

static void teardown(void)
{
	char cmd[PATH_MAX + 16];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", T);
	cr_expect_eq(system(cmd), 0);
}

static void slurp(int fd, char *buf, size_t size)
{
	size_t n = 0;
	ssize_t r;

	while (n < size - 1 && (r = read(fd, buf + n, size - 1 - n)) > 0)
		n += (size_t)r;
	buf[n] = '\0';
}

/* Run early [ARG] under the shim with CORDON_WRITE=T/root. */
static void run(const char *early_path, const char *arg)
{
	char preload[2 * PATH_MAX + 16], write[PATH_MAX + 16], early[PATH_MAX + 16];
	const char *first = getenv("CORDON_PRELOAD_FIRST");
	int po[2], pe[2], status;
	pid_t pid;
	posix_spawn_file_actions_t fa;
	char *argv[] = { prog, (char *)arg, NULL };
	char *envp[] = { preload, write, early, "ASAN_OPTIONS=verify_asan_link_order=0", NULL };

	snprintf(preload, sizeof(preload), "LD_PRELOAD=%s%s%s", first && *first ? first : "",
		 first && *first ? ":" : "", lib);
	snprintf(write, sizeof(write), "CORDON_WRITE=%s/root", T);
	snprintf(early, sizeof(early), "EARLY_PATH=%s", early_path);
	cr_assert_eq(pipe(po), 0);
	cr_assert_eq(pipe(pe), 0);
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, po[1], 1);
	posix_spawn_file_actions_adddup2(&fa, pe[1], 2);
	cr_assert_eq(posix_spawn(&pid, prog, &fa, NULL, argv, envp), 0);
	posix_spawn_file_actions_destroy(&fa);
	close(po[1]);
	close(pe[1]);
	slurp(po[0], out, sizeof(out));
	slurp(pe[0], err, sizeof(err));
	close(po[0]);
	close(pe[0]);
	cr_assert_eq(waitpid(pid, &status, 0), pid);
	cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0, "status %d, stderr:\n%s", status,
		  err);
}

static bool exists(const char *name)
{
	char p[PATH_MAX + 32];
	struct stat st;

	snprintf(p, sizeof(p), "%s/%s", T, name);
	return lstat(p, &st) == 0;
}

Test(shim_init, library_constructor_write_outside_refused, .init = setup, .fini = teardown)
{
	char path[PATH_MAX + 16], line[64];

	snprintf(path, sizeof(path), "%s/out-early", T);
	run(path, NULL);
	snprintf(line, sizeof(line), "early %d\n", EACCES);
	cr_expect_str_eq(out, line);
	cr_expect(!exists("out-early"), "the constructor's write went through");
	cr_expect(strstr(err, "cordon: deny create ") && strstr(err, "out-early (open "),
		  "stderr:\n%s", err);
}

Test(shim_init, library_constructor_write_inside_allowed, .init = setup, .fini = teardown)
{
	char path[PATH_MAX + 16];

	snprintf(path, sizeof(path), "%s/root/in-early", T);
	run(path, NULL);
	cr_expect_str_eq(out, "early OK\n");
	cr_expect(exists("root/in-early"));
	cr_expect_eq(strstr(err, "cordon:"), NULL, "stderr:\n%s", err);
}

Test(shim_init, child_of_busy_threads_refused, .init = setup, .fini = teardown)
{
	char early_path[PATH_MAX + 16], child[PATH_MAX + 16], line[64];

	snprintf(early_path, sizeof(early_path), "%s/root/e", T);
	snprintf(child, sizeof(child), "%s/out-child", T);
	for (int i = 0; i < 20; i++) {
		run(early_path, child);
		snprintf(line, sizeof(line), "early OK\nchild %d\n", EACCES);
		cr_assert_str_eq(out, line, "round %d", i);
		cr_assert(!exists("out-child"), "round %d: the child's write went through", i);
	}
}

/* Below a working directory deeper than PATH_MAX, the shim cannot spell the
 * absolute path: it decides by descriptor (the directory's nearest ancestor
 * with a path). Inside the root: allowed; outside: refused, checked from
 * outside by walking down again without the shim. */
static void deep(const char *base, const char *mode, char *buf, size_t size)
{
	char deep_prog[PATH_MAX], rel[PATH_MAX], write[PATH_MAX + 16], preload[2 * PATH_MAX + 16];
	const char *first = getenv("CORDON_PRELOAD_FIRST");
	int po[2], status;
	pid_t pid;
	posix_spawn_file_actions_t fa;

	snprintf(rel, sizeof(rel), "%s/tests/helpers/deep", getenv("CORDON_BUILD"));
	cr_assert_not_null(realpath(rel, deep_prog));
	char *argv[] = { deep_prog, (char *)base, "45", (char *)mode, NULL };
	snprintf(preload, sizeof(preload), "LD_PRELOAD=%s%s%s", first && *first ? first : "",
		 first && *first ? ":" : "", lib);
	snprintf(write, sizeof(write), "CORDON_WRITE=%s/root", T);
	char *shim_env[] = { preload, write, "ASAN_OPTIONS=verify_asan_link_order=0", NULL };
	char *bare_env[] = { NULL };
	cr_assert_eq(pipe(po), 0);
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, po[1], 1);
	posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
	cr_assert_eq(posix_spawn(&pid, deep_prog, &fa, NULL, argv, mode ? bare_env : shim_env), 0);
	posix_spawn_file_actions_destroy(&fa);
	close(po[1]);
	slurp(po[0], buf, size);
	close(po[0]);
	cr_assert_eq(waitpid(pid, &status, 0), pid);
	cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0, "deep exited %d", status);
}

Test(shim_init, deeper_than_path_max_inside_allowed_outside_refused, .init = setup,
     .fini = teardown)
{
	char in[PATH_MAX], out_dir[PATH_MAX], buf[256], want[64];

	snprintf(in, sizeof(in), "%s/root", T);
	snprintf(out_dir, sizeof(out_dir), "%s/outside", T);
	cr_assert_eq(mkdir(out_dir, 0755), 0);
	/* The outside tree is made bare (under the shim its first mkdir
	 * would be refused); then the shim works in both. */
	char cmd[2 * PATH_MAX];
	snprintf(cmd, sizeof(cmd), "cd '%s' && seg=$(printf '%%0100d' 0) && p=$seg && "
		 "for i in $(seq 2 45); do p=$p/$seg; done && mkdir -p $p", out_dir);
	cr_assert_eq(system(cmd), 0);

	deep(in, NULL, buf, sizeof(buf));
	cr_expect_str_eq(buf, "f OK\nd OK\n");
	deep(in, "check", buf, sizeof(buf));
	cr_expect_str_eq(buf, "f yes\nd yes\n");

	deep(out_dir, NULL, buf, sizeof(buf));
	snprintf(want, sizeof(want), "f %d\nd %d\n", EACCES, EACCES);
	cr_expect_str_eq(buf, want);
	deep(out_dir, "check", buf, sizeof(buf));
	cr_expect_str_eq(buf, "f no\nd no\n", "a write outside went through");
}
