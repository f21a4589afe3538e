/*
 * test_learn.c - `cordon learn`, the record every `cordon run` leaves
 * (last-run.jsonl) and `cordon explain --last`, end to end: the real
 * build/cordon runs real programs (make, git, python3, sh, mv and the
 * driver tests/helpers/run_ops), and we check from this process what it
 * learned, what it recorded and what the learned policy then lets through.
 *
 * Each test runs in its own process with its own tree, removed afterwards:
 *
 *   $T/                 mkdtemp("/tmp/cordon-learn-XXXXXX"), canonical: two
 *                       levels below /, so it may be collapsed into
 *     ws/               cordon's working directory: the workspace
 *     home/             HOME of every cordon we start (unless a test says)
 *     state/            XDG_STATE_HOME: the record is state/cordon/last-run.jsonl
 *     tmp/              TMPDIR: the private TMPDIRs are made here
 *     learned           the policy cordon learn writes (-o)
 *     stdout, stderr    cordon's (and the program's) output
 *     ...               the places outside the workspace the programs write
 *
 * Every program is first run under the plain default policy, where what it
 * does outside the workspace must be refused (else the learned policy would
 * prove nothing); then learned; then run again, in mode enforce, under the
 * learned policy, where it must pass without a single refusal.
 *
 * Environment (set by `make check`): CORDON_BUILD (build directory,
 * relative to CORDON_SRC), CORDON_SRC (the repository), CORDON_PRELOAD_FIRST
 * (SANITIZE=1: the ASan runtime; every cordon then gets
 * ASAN_OPTIONS=verify_asan_link_order=0:detect_leaks=0, as in test_run.c).
 */
#include <criterion/criterion.h>

#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>
#define FIXTURE_TREE /* T, tp(), fmt() */
#define FIXTURE_PROGRAM  /* program() */
#include "fixture.h"
#include "../../launcher/tally.h"

#define ARGS(...) ((const char *const[]){ __VA_ARGS__, NULL })
#define BIG (1 << 18)

/* --- fixture ---------------------------------------------------------------------- */

static char cordon_bin[PATH_MAX];     /* build/cordon */
static char ops_bin[PATH_MAX];        /* build/tests/helpers/run_ops */
static char learned[PATH_MAX];        /* $T/learned */
static char record[PATH_MAX];         /* $T/state/cordon/last-run.jsonl */
static char stray[4][64];             /* files a test made directly in /tmp */
static size_t n_stray;


/* mkdir -p $T/@rel */
static void mkdirs(const char *rel)
{
	char p[PATH_MAX];

	snprintf(p, sizeof(p), "%s/%s", T, rel);
	for (char *s = p + strlen(T) + 1;; s++) {
		if (*s != '/' && *s != '\0')
			continue;
		char c = *s;
		*s = '\0';
		cr_assert(mkdir(p, 0755) == 0 || errno == EEXIST, "mkdir %s: %s", p, strerror(errno));
		*s = c;
		if (!c)
			break;
	}
}

static void put_path(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);

	cr_assert_geq(fd, 0, "create %s: %s", path, strerror(errno));
	cr_assert_eq(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
}

static void put(const char *rel, const char *text)
{
	put_path(tp(rel), text);
}

/* The content of @path, or NULL when it cannot be read. */
static const char *slurp(const char *path)
{
	static char ring[4][BIG];
	static unsigned next;
	char *b = ring[next++ % 4];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	size_t got = 0;
	ssize_t n;

	if (fd < 0)
		return NULL;
	while (got < BIG - 1 && (n = read(fd, b + got, BIG - 1 - got)) > 0)
		got += (size_t)n;
	close(fd);
	b[got] = '\0';
	return b;
}

static bool exists(const char *path)
{
	struct stat st;

	return lstat(path, &st) == 0;
}

/* Remove what $T/@rel holds, keeping the directory. */
static void empty_dir(const char *rel)
{
	char dir[PATH_MAX];
	DIR *d;

	snprintf(dir, sizeof(dir), "%s", tp(rel));
	cr_assert_not_null(d = opendir(dir), "%s: %s", dir, strerror(errno));
	for (struct dirent *e; (e = readdir(d));)
		if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
			fixture_rmtree(fmt("%s/%s", dir, e->d_name));
	closedir(d);
}

static void setup(void)
{
	fixture_mktree("/tmp/cordon-learn-XXXXXX");
	program(cordon_bin, "cordon");
	program(ops_bin, "tests/helpers/run_ops");
	mkdirs("ws");
	mkdirs("home");
	mkdirs("state");
	mkdirs("tmp");
	snprintf(learned, sizeof(learned), "%s/learned", T);
	snprintf(record, sizeof(record), "%s/state/cordon/last-run.jsonl", T);
	n_stray = 0;
}

static void teardown(void)
{
	for (size_t i = 0; i < n_stray; i++)
		unlink(stray[i]);
	n_stray = 0;
	if (strncmp(T, "/tmp/cordon-learn-", 18) == 0)
		fixture_rmtree(T);
	T[0] = '\0';
}

/* --- running cordon ------------------------------------------------------------------ */

static struct {
	int status;        /* exit status, or -1: killed by a signal */
	char out[BIG], err[BIG];
} R;

/*
 * cordon @args... in $T/ws, stdin /dev/null, stdout and stderr to
 * $T/stdout and $T/stderr, with HOME=$T/home, XDG_STATE_HOME=$T/state and
 * TMPDIR=$T/tmp, then @env: "NAME=VALUE" sets, "NAME" unsets. Returns the
 * exit status (also in R, with the output).
 */
static int cordon_env(const char *const *env, const char *const *args)
{
	const char *argv[64];
	size_t a = 0;

	argv[a++] = cordon_bin;
	for (; *args; args++) {
		cr_assert_lt(a, 63);
		argv[a++] = *args;
	}
	argv[a] = NULL;
	int st = fixture_run(argv, env);
	R.status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
	const char *o = slurp(tp("stdout")), *e = slurp(tp("stderr"));
	snprintf(R.out, sizeof(R.out), "%s", o ? o : "");
	snprintf(R.err, sizeof(R.err), "%s", e ? e : "");
	return R.status;
}

static int cordon(const char *const *args)
{
	return cordon_env(NULL, args);
}

#define EXPECT_STATUS(want)                                                             \
	cr_expect_eq(R.status, (want), "cordon exited %d, want %d\nstdout:\n%s\nstderr:\n%s", \
		     R.status, (want), R.out, R.err)

#define ASSERT_STATUS(want)                                                             \
	cr_assert_eq(R.status, (want), "cordon exited %d, want %d\nstdout:\n%s\nstderr:\n%s", \
		     R.status, (want), R.out, R.err)

/* @text holds @needle. */
#define EXPECT_HAS(text, needle)                                                        \
	cr_expect_not_null(strstr((text), (needle)), "no\n---\n%s\n---\nin\n---\n%s\n---", \
			   (needle), (text))

#define EXPECT_LACKS(text, needle)                                                      \
	cr_expect_null(strstr((text), (needle)), "unexpected\n---\n%s\n---\nin\n---\n%s\n---", \
		       (needle), (text))

/* The run enforced and refused nothing. */
static void expect_no_refusal(void)
{
	EXPECT_LACKS(R.err, "cordon: deny");
	EXPECT_LACKS(R.err, "refused");
}

/* --- the learned policy ---------------------------------------------------------------- */

static int by_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The directive lines of @policy (neither blank nor comments), one per
 * line, in file order or sorted. */
static const char *directives(const char *policy, bool sorted)
{
	static char buf[BIG];
	static char copy[BIG];
	char *v[512];
	size_t n = 0, o = 0;

	snprintf(copy, sizeof(copy), "%s", policy);
	for (char *save = NULL, *l = strtok_r(copy, "\n", &save); l && n < 512;
	     l = strtok_r(NULL, "\n", &save))
		if (l[0] != '#' && l[strspn(l, " \t")] != '\0')
			v[n++] = l;
	if (sorted)
		qsort(v, n, sizeof(v[0]), by_str);
	buf[0] = '\0';
	for (size_t i = 0; i < n; i++)
		o += (size_t)snprintf(buf + o, sizeof(buf) - o, "%s\n", v[i]);
	return buf;
}

/* The learned policy, with its directive lines exactly @want (sorted).
 * Returns the policy's text. */
static const char *expect_learned(const char *want_sorted)
{
	const char *p = slurp(learned);

	cr_assert_not_null(p, "no learned policy at %s\nstderr:\n%s", learned, R.err);
	cr_expect_str_eq(directives(p, true), want_sorted, "the learned policy:\n%s", p);
	return p;
}

/* The line just above the line @line of @policy, or "" (a ring buffer). */
static const char *comment_above(const char *policy, const char *line)
{
	static char ring[4][PATH_MAX * 2];
	static unsigned next;
	char *b = ring[next++ % 4], needle[PATH_MAX + 8];
	const char *at;

	b[0] = '\0';
	snprintf(needle, sizeof(needle), "\n%s\n", line);
	if (!(at = strstr(policy, needle)) || at == policy)
		return b;
	const char *start = at - 1;
	while (start > policy && start[-1] != '\n')
		start--;
	snprintf(b, PATH_MAX * 2, "%.*s", (int)(at - start), start);
	return b;
}

/* @line is in @policy, and the comment above it holds each of @parts. */
static void expect_line_because(const char *policy, const char *line, const char *const *parts)
{
	const char *c = comment_above(policy, line);

	cr_expect(strncmp(c, "# ", 2) == 0, "no comment above '%s' in:\n%s", line, policy);
	for (size_t i = 0; parts && parts[i]; i++)
		cr_expect_not_null(strstr(c, parts[i]), "the comment above '%s' is '%s': no '%s'",
				   line, c, parts[i]);
}

/* Nothing learned is broader than what the run touched: no `write /`, no
 * `write ~`, nothing written as ${WORKSPACE} (the runs write outside it),
 * no note that a line makes a whole tree writable. */
static void expect_narrow(const char *policy)
{
	const char *d = directives(policy, false);

	for (const char *l = d; *l;) {
		size_t n = strcspn(l, "\n");
		char line[PATH_MAX];
		snprintf(line, sizeof(line), "%.*s", (int)n, l);
		cr_expect(strcmp(line, "write /") != 0 && strcmp(line, "write \"/\"") != 0 &&
				  strcmp(line, "write ~") != 0 && strcmp(line, "write ~/") != 0,
			  "a broad line '%s' in:\n%s", line, policy);
		l += n + (l[n] == '\n');
	}
	EXPECT_LACKS(policy, "${WORKSPACE}");
	EXPECT_LACKS(policy, "# NOTE:");
}

/* --- listeners outside the sandbox -------------------------------------------------- */

static int unix_listener(const char *path)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);

	cr_assert_geq(fd, 0);
	cr_assert_lt(strlen(path), sizeof(a.sun_path));
	strcpy(a.sun_path, path);
	cr_assert_eq(bind(fd, (struct sockaddr *)&a, sizeof(a)), 0, "bind %s: %s", path,
		     strerror(errno));
	cr_assert_eq(listen(fd, 16), 0);
	return fd;
}

static int tcp_listener(unsigned *port)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t len = sizeof(a);
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);

	cr_assert_geq(fd, 0);
	cr_assert_eq(bind(fd, (struct sockaddr *)&a, sizeof(a)), 0);
	cr_assert_eq(listen(fd, 16), 0);
	cr_assert_eq(getsockname(fd, (struct sockaddr *)&a, &len), 0);
	*port = ntohs(a.sin_port);
	return fd;
}

/* The connections queued at @listener since the last call (the programs
 * have ended: each is read to its end); what they sent, concatenated. */
static int accepted(int listener, char *got, size_t size)
{
	int n = 0;
	size_t o = 0;
	int c;

	got[0] = '\0';
	while ((c = accept4(listener, NULL, NULL, SOCK_CLOEXEC)) >= 0) {
		ssize_t r;
		n++;
		while (o < size - 1 && (r = read(c, got + o, size - 1 - o)) > 0)
			o += (size_t)r;
		got[o] = '\0';
		close(c);
	}
	return n;
}

/* @name on PATH, as cordon would find it. */
static bool on_path(const char *name, char out[PATH_MAX])
{
	const char *path = getenv("PATH");

	for (const char *p = path ? path : "/usr/bin:/bin"; *p;) {
		size_t n = strcspn(p, ":");
		snprintf(out, PATH_MAX, "%.*s/%s", (int)n, p, name);
		if (n && access(out, X_OK) == 0)
			return true;
		p += n + (p[n] == ':');
	}
	return false;
}

/* === learn -> enforce on real programs ============================================= */

/* A make build whose objects and binary go to a build directory outside
 * the workspace: refused under the default policy; learned as the output
 * directory the build made (a directory the run made and left is its own
 * root); enforced, the build passes again from an empty output directory. */
/* The run's summary counts refusals by operation, most refused first and
 * then by name: whichever of the shim and the supervisor reported first. */
Test(tally, operations_most_refused_first_then_by_name)
{
	struct tally t = { 0 };
	char brief[256];

	tally_add(&t, "deny", "connect", "127.0.0.1:1/tcp", REASON_NET_NONE, NULL, "supervisor");
	tally_add(&t, "deny", "metadata", "/x", REASON_OUTSIDE_ROOTS, NULL, "supervisor");
	tally_add(&t, "deny", "create", "/a", REASON_OUTSIDE_ROOTS, NULL, "shim");
	tally_add(&t, "deny", "create", "/b", REASON_OUTSIDE_ROOTS, NULL, "shim");
	tally_brief(&t, brief, sizeof(brief));
	cr_expect_str_eq(brief, "4 calls refused (create 2, connect 1, metadata 1)");
	tally_free(&t);
}

Test(learn, make_out_of_tree_build_round_trip, .init = setup, .fini = teardown, .timeout = 120)
{
	char out_arg[PATH_MAX + 8], prog[PATH_MAX], line[PATH_MAX + 16], preload[PATH_MAX + 16];
	const char *first = getenv("CORDON_PRELOAD_FIRST");

	if (!on_path("make", prog) || !on_path("cc", prog))
		SKIP("make and cc are needed for this test");
	/* SANITIZE=1: gcc's cc1 crashes before main (pc 0) under the
	 * instrumented shim unless the ASan runtime is loaded ahead of libc
	 * (test_compat.c, asan_unsafe). Preloaded, cordon puts it right after
	 * the shim. */
	snprintf(preload, sizeof(preload), "LD_PRELOAD=%s", first ? first : "");
	const char *const *env = first && *first ? ARGS(preload) : NULL;
	put("ws/Makefile", "OUT ?= build\n"
			   "$(OUT)/prog: $(OUT)/main.o $(OUT)/util.o $(OUT)/twice.o\n"
			   "\t$(CC) -o $@ $^\n"
			   "$(OUT)/%.o: %.c util.h | $(OUT)\n"
			   "\t$(CC) -c -o $@ $<\n"
			   "$(OUT):\n"
			   "\tmkdir -p $@\n");
	put("ws/util.h", "int add(int a, int b);\nint twice(int a);\n");
	put("ws/util.c", "#include \"util.h\"\nint add(int a, int b) { return a + b; }\n");
	put("ws/twice.c", "#include \"util.h\"\nint twice(int a) { return add(a, a); }\n");
	put("ws/main.c", "#include \"util.h\"\nint main(void) { return twice(add(1, 2)) == 6 ? 0 : 1; }\n");
	mkdirs("build");
	snprintf(out_arg, sizeof(out_arg), "OUT=%s", tp("build/out"));
	snprintf(prog, sizeof(prog), "%s", tp("build/out/prog"));

	/* The default policy: the output directory is refused, nothing is built. */
	cordon_env(env, ARGS("run", "--", "make", out_arg));
	cr_expect_neq(R.status, 0, "the build passed under the default policy\nstderr:\n%s", R.err);
	EXPECT_HAS(R.err, fmt("cordon: deny create %s", tp("build/out")));
	cr_expect_not(exists(tp("build/out")), "build/out was made under the default policy");

	/* Learned: mode warn lets the build through. */
	cordon_env(env, ARGS("learn", "-o", learned, "--", "make", out_arg));
	ASSERT_STATUS(0);
	cr_expect(exists(prog), "learn: no %s\nstderr:\n%s", prog, R.err);
	EXPECT_HAS(R.err, fmt(" refused targets, 1 line written to %s\n", learned));
	snprintf(line, sizeof(line), "write %s", tp("build"));
	const char *p = expect_learned(fmt("include default\n%s\n", line));
	expect_narrow(p);
	expect_line_because(p, line, ARGS("create 5", fmt("%s, %s/main.o", tp("build/out"),
							 tp("build/out"))));
	EXPECT_HAS(p, "# Learned by cordon learn, ");
	EXPECT_HAS(p, fmt("# in %s (exit status 0).\n", tp("ws")));

	/* Enforced, from an empty output directory: the build passes, nothing refused. */
	/* Made by the learn run; the enforced run makes it again. */
	cr_assert_eq(fixture_rmtree(tp("build/out")), 0);
	cordon_env(env, ARGS("run", "--policy", learned, "--", "make", out_arg));
	EXPECT_STATUS(0);
	expect_no_refusal();
	cr_assert(exists(prog), "enforce: no %s\nstderr:\n%s", prog, R.err);
	int st = system(prog);
	cr_expect(WIFEXITED(st) && WEXITSTATUS(st) == 0, "the program built does not work");
}

/* git init, add, commit in a repository outside the workspace, then a
 * clone of it to another directory outside: the two directories git made
 * are learned, each on its own line, and enforced (the directories empty
 * again), it all works. */
Test(learn, git_commit_and_clone_round_trip, .init = setup, .fini = teardown, .timeout = 120)
{
	char git[PATH_MAX], src_line[PATH_MAX + 8], dst_line[PATH_MAX + 8];

	if (!on_path("git", git))
		SKIP("git is needed for this test");
	mkdirs("gitsrc");
	mkdirs("gitdst");
	put("ws/git.sh", fmt("set -e\n"
			     "git init -q %s\n"
			     "echo hello > %s/a.txt\n"
			     "git -C %s add a.txt\n"
			     "git -C %s -c user.name=t -c user.email=t@t commit -q -m first\n"
			     "git clone -q %s %s\n"
			     "test \"$(cat %s/a.txt)\" = hello\n",
			     tp("gitsrc/repo"), tp("gitsrc/repo"), tp("gitsrc/repo"),
			     tp("gitsrc/repo"), tp("gitsrc/repo"), tp("gitdst/clone"),
			     tp("gitdst/clone")));
	const char *const env[] = { "GIT_CONFIG_NOSYSTEM=1", NULL };

	cordon_env(env, ARGS("run", "--", "sh", "git.sh"));
	cr_expect_neq(R.status, 0, "git passed under the default policy\nstderr:\n%s", R.err);
	EXPECT_HAS(R.err, fmt("cordon: deny create %s", tp("gitsrc/repo")));
	cr_expect_not(exists(tp("gitsrc/repo")), "the repository was made under the default policy");

	cordon_env(env, ARGS("learn", "-o", learned, "--", "sh", "git.sh"));
	ASSERT_STATUS(0);
	snprintf(src_line, sizeof(src_line), "write %s", tp("gitsrc"));
	snprintf(dst_line, sizeof(dst_line), "write %s", tp("gitdst"));
	const char *p = expect_learned(fmt("include default\n%s\n%s\n", dst_line, src_line));
	expect_narrow(p);
	expect_line_because(p, src_line, ARGS("create ", tp("gitsrc/repo")));
	expect_line_because(p, dst_line, ARGS("create ", tp("gitdst/clone")));

	cr_assert_eq(fixture_rmtree(tp("gitsrc/repo")), 0);
	cr_assert_eq(fixture_rmtree(tp("gitdst/clone")), 0);
	cordon_env(env, ARGS("run", "--policy", learned, "--", "sh", "git.sh"));
	EXPECT_STATUS(0);
	expect_no_refusal();
	const char *a = slurp(tp("gitdst/clone/a.txt"));
	cr_expect_str_eq(a ? a : "(missing)", "hello\n");
	cr_expect(exists(tp("gitsrc/repo/.git/HEAD")));
}

/* A Python script that connects to a unix socket we listen on outside the
 * workspace, writes three files in a cache directory under HOME (each in
 * its own subdirectory: three roots, collapsed into the cache directory)
 * and renames one: learned as `write ~/.cache/tool` and `unix-socket`. */
Test(learn, python_cache_rename_unix_socket_round_trip, .init = setup, .fini = teardown,
     .timeout = 120)
{
	char python[PATH_MAX], cache[PATH_MAX], sock[PATH_MAX], got[256], sock_line[PATH_MAX + 16];

	if (!on_path("python3", python))
		SKIP("no python3 on PATH");
	snprintf(cache, sizeof(cache), "%s", tp("home/.cache/tool"));
	snprintf(sock, sizeof(sock), "%s", tp("sock/s"));
	mkdirs("home/.cache/tool/p0");
	mkdirs("home/.cache/tool/p1");
	mkdirs("home/.cache/tool/p2");
	mkdirs("sock");
	put("ws/job.py", "import os, socket, sys\n"
			 "cache, path = sys.argv[1], sys.argv[2]\n"
			 "s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)\n"
			 "s.connect(path)\n"
			 "s.sendall(b'hello')\n"
			 "s.close()\n"
			 "for d in ('p0', 'p1', 'p2'):\n"
			 "    with open(os.path.join(cache, d, 'blob'), 'w') as f:\n"
			 "        f.write(d)\n"
			 "os.rename(os.path.join(cache, 'p0', 'blob'), os.path.join(cache, 'p0', 'blob.old'))\n");
	int l = unix_listener(sock);

	cordon(ARGS("run", "--", "python3", "job.py", cache, sock));
	cr_expect_neq(R.status, 0, "python passed under the default policy\nstderr:\n%s", R.err);
	EXPECT_HAS(R.err, fmt("cordon: deny connect %s", sock));
	cr_expect_eq(accepted(l, got, sizeof(got)), 0, "a connection reached us: '%s'", got);
	cr_expect_not(exists(tp("home/.cache/tool/p1/blob")));

	cordon(ARGS("learn", "-o", learned, "--", "python3", "job.py", cache, sock));
	ASSERT_STATUS(0);
	cr_expect_eq(accepted(l, got, sizeof(got)), 1);
	cr_expect_str_eq(got, "hello");
	cr_expect(exists(tp("home/.cache/tool/p0/blob.old")));
	snprintf(sock_line, sizeof(sock_line), "unix-socket %s", sock);
	const char *p = expect_learned(fmt("include default\n%s\nwrite ~/.cache/tool\n", sock_line));
	expect_narrow(p);
	/* The rename's two ends are both there. */
	expect_line_because(p, "write ~/.cache/tool", ARGS("create 3", "rename 2"));
	expect_line_because(p, sock_line, ARGS(fmt("connect 1: %s", sock)));

	for (int i = 0; i < 3; i++)
		empty_dir(fmt("home/.cache/tool/p%d", i));
	cordon(ARGS("run", "--policy", learned, "--", "python3", "job.py", cache, sock));
	EXPECT_STATUS(0);
	expect_no_refusal();
	cr_expect_eq(accepted(l, got, sizeof(got)), 1);
	cr_expect_str_eq(got, "hello");
	const char *old = slurp(tp("home/.cache/tool/p0/blob.old"));
	cr_expect_str_eq(old ? old : "(missing)", "p0");
	cr_expect(exists(tp("home/.cache/tool/p1/blob")) && exists(tp("home/.cache/tool/p2/blob")));
	close(l);
}

/* === the shape of what is learned ====================================================== */

/* One scripted run, every rule of suggest.h at once: three files created
 * in one directory need that directory; three files written in place in
 * one directory are three roots, collapsed into it; two are not; a file
 * written in place needs itself; a directory the run made and left is
 * its own root (what is made in it comes along); a tree made and removed
 * needs its nearest existing ancestor; nothing in the workspace is learned. */
Test(learn, lines_collapse_in_place_and_nearest_ancestor, .init = setup, .fini = teardown,
     .timeout = 60)
{
	mkdirs("three");
	mkdirs("many");
	mkdirs("two");
	mkdirs("inplace");
	mkdirs("np");
	mkdirs("gone");
	put("inplace/f", "old\n");
	put("inplace/keep", "keep\n");
	for (int i = 1; i <= 3; i++)
		put(fmt("many/f%d", i), "old\n");
	for (int i = 1; i <= 2; i++)
		put(fmt("two/f%d", i), "old\n");
	char script[4096];
	snprintf(script, sizeof(script),
		"echo 1 > %s/three/a; echo 2 > %s/three/b; echo 3 > %s/three/c; "
		"echo n > %s/many/f1; echo n > %s/many/f2; echo n > %s/many/f3; "
		"echo n > %s/two/f1; echo n > %s/two/f2; "
		"echo new > %s/inplace/f; "
		"mkdir -p %s/np/sub && echo x > %s/np/sub/f; "
		"mkdir -p %s/gone/x/y && echo > %s/gone/x/y/f && rm -rf %s/gone/x; "
		"echo w > %s/ws/w && mkdir %s/ws/d && echo w > %s/ws/d/w",
		T, T, T, T, T, T, T, T, T, T, T, T, T, T, T, T, T);

	cordon(ARGS("learn", "-o", learned, "--", "sh", "-c", script));
	ASSERT_STATUS(0);
	const char *p = expect_learned(fmt("include default\n"
					   "write %s/gone\n"
					   "write %s/inplace/f\n"
					   "write %s/many\n"
					   "write %s/np\n"
					   "write %s/three\n"
					   "write %s/two/f1\n"
					   "write %s/two/f2\n",
					   T, T, T, T, T, T, T));
	expect_narrow(p);
	EXPECT_LACKS(directives(p, false), "/ws");
	/* Each line has the accesses that need it above it. */
	EXPECT_HAS(p, fmt("\n# create 3: %s/three/a, %s/three/b, %s/three/c\nwrite %s/three\n", T, T,
			  T, T));
	EXPECT_HAS(p, fmt("\n# write 3: %s/many/f1, %s/many/f2, %s/many/f3\nwrite %s/many\n", T, T,
			  T, T));
	EXPECT_HAS(p, fmt("\n# write 1: %s/inplace/f\nwrite %s/inplace/f\n", T, T));
	EXPECT_HAS(p, fmt("\n# create 2: %s/np/sub, %s/np/sub/f\nwrite %s/np\n", T, T, T));
	EXPECT_HAS(p, fmt(" (nearest directory that still exists)\nwrite %s/gone\n", T));
	EXPECT_HAS(R.err, fmt("cordon: learn: 17 refused targets, 7 lines written to %s\n", learned));

	/* Enforced, the same script passes again (the directory it made kept). */
	unlink(tp("np/sub/f"));
	for (int i = 0; i < 3; i++)
		unlink(tp(fmt("three/%c", 'a' + i)));
	fixture_rmtree(tp("ws/d"));
	cordon(ARGS("run", "--policy", learned, "--", "sh", "-c", script));
	EXPECT_STATUS(0);
	expect_no_refusal();
	cr_expect(exists(tp("np/sub/f")) && exists(tp("three/c")) && exists(tp("ws/d/w")));
	/* The file written in place is all of its directory that is writable. */
	cordon(ARGS("run", "--policy", learned, "--", "sh", "-c",
		    fmt("echo x > %s/inplace/keep", T)));
	cr_expect_neq(R.status, 0);
	const char *keep = slurp(tp("inplace/keep"));
	cr_expect_str_eq(keep ? keep : "(missing)", "keep\n");
}

/* Three roots in one directory are not collapsed when the directory is
 * HOME, above HOME, directly under / (here /tmp), or holds a read-deny
 * entry: each root gets its own line. */
Test(learn, never_collapsed_into_home_its_ancestors_depth_one_or_read_deny, .init = setup,
     .fini = teardown, .timeout = 60)
{
	char script[8 * PATH_MAX], want[8 * PATH_MAX];
	size_t s = 0, w = 0;

	for (int i = 0; i < 3; i++) {
		const char *d = fmt("%c", 'a' + i);
		mkdirs(fmt("home/%s", d));
		mkdirs(fmt("up%d", i));
		mkdirs(fmt("rd/d%d", i));
		/* Files directly in /tmp, written in place. */
		snprintf(stray[n_stray], sizeof(stray[0]), "/tmp/cordon-learn-f-XXXXXX");
		int fd = mkstemp(stray[n_stray]);
		cr_assert_geq(fd, 0, "mkstemp: %s", strerror(errno));
		close(fd);
		n_stray++;
		s += (size_t)snprintf(script + s, sizeof(script) - s,
				      "echo > %s/home/%s/x; echo > %s/up%d/x; echo > %s/rd/d%d/x; "
				      "echo > %s; ",
				      T, d, T, i, T, i, stray[i]);
	}
	script[s] = '\0';
	static char text[16][PATH_MAX + 16];
	const char *lines[16];
	size_t n = 0;
	snprintf(text[n++], sizeof(text[0]), "include default");
	snprintf(text[n++], sizeof(text[0]), "read-deny %s/rd/secret", T);
	for (int i = 0; i < 3; i++) {
		snprintf(text[n++], sizeof(text[0]), "write ~/%c", 'a' + i);
		snprintf(text[n++], sizeof(text[0]), "write %s/up%d", T, i);
		snprintf(text[n++], sizeof(text[0]), "write %s/rd/d%d", T, i);
		snprintf(text[n++], sizeof(text[0]), "write %s", stray[i]);
	}
	for (size_t i = 0; i < n; i++)
		lines[i] = text[i];
	qsort(lines, n, sizeof(lines[0]), by_str);
	for (size_t i = 0; i < n; i++)
		w += (size_t)snprintf(want + w, sizeof(want) - w, "%s\n", lines[i]);

	cordon(ARGS("learn", "--read-deny", tp("rd/secret"), "-o", learned, "--", "sh", "-c",
		    script));
	ASSERT_STATUS(0);
	const char *p = expect_learned(want);
	expect_narrow(p);
	EXPECT_LACKS(directives(p, false), "write /tmp\n");
	EXPECT_LACKS(directives(p, false), fmt("write %s\n", T));
	EXPECT_LACKS(directives(p, false), fmt("write %s/rd\n", T));
	/* The option given is repeated, under its own heading. */
	EXPECT_HAS(p, fmt("\n# From the command line.\nread-deny %s/rd/secret\n", T));
}

/* Two levels below / may be collapsed into: three roots in $T become $T
 * (HOME is elsewhere, nothing read-denied is beneath). */
Test(learn, depth_two_directory_collapsed_into, .init = setup, .fini = teardown, .timeout = 60)
{
	for (int i = 0; i < 3; i++)
		mkdirs(fmt("up%d", i));
	const char *const env[] = { "HOME=/nonexistent-cordon-learn-home", NULL };

	cordon_env(env, ARGS("learn", "-o", learned, "--", "sh", "-c",
			     fmt("echo > %s/up0/x; echo > %s/up1/x; echo > %s/up2/x", T, T, T)));
	ASSERT_STATUS(0);
	const char *p = expect_learned(fmt("include default\nwrite %s\n", T));
	EXPECT_HAS(p, fmt("\n# create 3: %s/up0/x, %s/up1/x, %s/up2/x\nwrite %s\n", T, T, T, T));
	EXPECT_LACKS(R.err, "makes all of");
}

/* What no added line can allow (read-deny, write-deny) is listed at the
 * end, said on stderr, and not learned: under the learned policy it is
 * still refused. */
Test(learn, read_deny_listed_not_learned, .init = setup, .fini = teardown, .timeout = 60)
{
	char key[PATH_MAX];

	mkdirs("home/.ssh");
	mkdirs("out");
	put("home/.ssh/id_rsa", "SECRET\n");
	snprintf(key, sizeof(key), "%s", tp("home/.ssh/id_rsa"));
	char script[2 * PATH_MAX];
	snprintf(script, sizeof(script), "cat %s && echo done > %s/out/f", key, T);

	cordon(ARGS("learn", "-o", learned, "--", "sh", "-c", script));
	ASSERT_STATUS(0);
	EXPECT_HAS(R.out, "SECRET");  /* mode warn: let through, and recorded */
	const char *p = expect_learned(fmt("include default\nwrite %s/out\n", T));
	EXPECT_HAS(p, fmt("\n# Refused, and not learned: no added line allows these.\n"
			  "#   read %s (1): inside read-deny: take that entry out of the policy if "
			  "the program should\n",
			  key));
	EXPECT_LACKS(directives(p, false), ".ssh");
	EXPECT_HAS(R.err, "cordon: learn: 1 target refused that no added line allows (listed at "
			  "the end of the policy): the policy itself must change\n");
	EXPECT_HAS(R.err, fmt("cordon: learn: 1 refused target, 1 line written to %s\n", learned));

	unlink(tp("out/f"));
	cordon(ARGS("run", "--policy", learned, "--", "sh", "-c", script));
	cr_expect_neq(R.status, 0);
	EXPECT_LACKS(R.out, "SECRET");
	EXPECT_HAS(R.err, fmt("%s: Permission denied", key));
	cr_expect_not(exists(tp("out/f")));
}

Test(learn, write_deny_listed_not_learned, .init = setup, .fini = teardown, .timeout = 60)
{
	mkdirs("ws/locked");

	cordon(ARGS("learn", "--write-deny", tp("ws/locked"), "-o", learned, "--", "sh", "-c",
		    fmt("echo > %s/ws/locked/x", T)));
	ASSERT_STATUS(0);
	const char *p = expect_learned(fmt("include default\nwrite-deny %s/ws/locked\n", T));
	EXPECT_HAS(p, fmt("#   create %s/ws/locked/x (1): inside write-deny: ", T));
	EXPECT_HAS(R.err, "cordon: learn: 1 target refused that no added line allows");
	EXPECT_HAS(R.err, "cordon: learn: 0 refused targets, 0 lines written to ");
}

/* A program that sets its own /proc entries (a JVM's coredump_filter, a
 * thread's name by /proc/self/task/N/comm) is refused them; learn must not
 * answer with a write root there, which would open all of /proc, the
 * kernel's settings in /proc/sys with it (it did: "write /proc"), nor the
 * refusal's hint or explain with one; it lists them as not learned. The
 * learned policy still runs the program. */
Test(learn, proc_entries_listed_not_learned, .init = setup, .fini = teardown, .timeout = 60)
{
	mkdirs("out");
	const char *script = fmt("echo cordon-learn > /proc/self/comm; echo done > %s/out/f", T);

	cordon(ARGS("learn", "-o", learned, "--", "sh", "-c", script));
	ASSERT_STATUS(0);
	const char *p = expect_learned(fmt("include default\nwrite %s/out\n", T));
	EXPECT_LACKS(directives(p, false), "/proc");
	EXPECT_HAS(p, "\n# Refused, and not learned: no added line allows these.\n");
	EXPECT_HAS(p, "/comm (1): beneath /proc or /sys, the kernel's own settings");
	EXPECT_LACKS(R.err, "to allow: write /proc");

	unlink(tp("out/f"));
	cordon(ARGS("run", "--policy", learned, "--", "sh", "-c", script));
	EXPECT_HAS(R.err, "/comm (open");
	EXPECT_LACKS(R.err, "to allow: write /proc");
	cr_expect(exists(tp("out/f")), "the learned policy did not run the program through");

	cordon(ARGS("explain", "--", "write", "/proc/self/comm", "write", "/sys/power/state"));
	EXPECT_HAS(R.out, "no line to add allows it: beneath /proc or /sys");
	EXPECT_LACKS(R.out, "to allow");
}

/* The policies given are included (a relative file made absolute), the
 * options repeated; a path in the workspace is written ${WORKSPACE}/...
 * when the policy given does not make the workspace writable; a path that
 * needs quoting is quoted so that it reads back the same; the exit status
 * is the program's. */
Test(learn, policies_options_workspace_quoting_and_status, .init = setup, .fini = teardown,
     .timeout = 60)
{
	char odd[PATH_MAX];

	put("custom.policy", "include secrets\nnet none\nprivate-tmp yes\n");
	mkdirs("ws/gen");
	snprintf(odd, sizeof(odd), "%s/sp ace\"q$x \xc3\xa9", T);
	cr_assert_eq(mkdir(odd, 0755), 0);
	const char *script = "echo > \"$1/f\"; echo > gen/a; exit 3";

	cordon(ARGS("learn", "--policy", "../custom.policy", "--net-connect", "8080", "-o", learned,
		    "--", "sh", "-c", script, "sh", odd));
	ASSERT_STATUS(3);
	const char *p = slurp(learned);
	cr_assert_not_null(p);
	cr_expect_str_eq(directives(p, false),
			 fmt("include %s/custom.policy\n"
			     "net-connect 8080\n"
			     "write \"%s/sp ace\\\"q$$x \xc3\xa9\"\n"
			     "write ${WORKSPACE}/gen\n",
			     T, T),
			 "the learned policy:\n%s", p);
	EXPECT_HAS(p, "\n# From the command line.\nnet-connect 8080\n");
	EXPECT_HAS(p, fmt("# in %s (exit status 3).\n", tp("ws")));

	/* The quoted path reads back as the directory it came from. */
	unlink(fmt("%s/f", odd));
	unlink(tp("ws/gen/a"));
	cordon(ARGS("run", "--policy", learned, "--", "sh", "-c", script, "sh", odd));
	EXPECT_STATUS(3);
	expect_no_refusal();
	cr_expect(exists(fmt("%s/f", odd)) && exists(tp("ws/gen/a")));
	/* The learned ${WORKSPACE} line is the workspace's, not the rest of it. */
	cordon(ARGS("run", "--policy", learned, "--", "sh", "-c", "echo > not-gen"));
	cr_expect_neq(R.status, 0);
	cr_expect_not(exists(tp("ws/not-gen")));
}

/* A TCP port and a subprocess: `net-connect PORT` and `subprocess yes`
 * (after the `subprocess no` given, so that it wins). */
Test(learn, tcp_port_and_subprocess, .init = setup, .fini = teardown, .timeout = 60)
{
	unsigned port;
	int l = tcp_listener(&port);
	char got[64], script[PATH_MAX + 64];

	/* "; true": sh forks for the driver instead of replacing itself. */
	snprintf(script, sizeof(script), "%s connect 127.0.0.1 %u; true", ops_bin, port);

	cordon(ARGS("run", "--", "sh", "-c", script));
	EXPECT_HAS(R.out, "connect -1 13 connect");
	cr_expect_eq(accepted(l, got, sizeof(got)), 0);

	cordon(ARGS("learn", "--no-subprocess", "-o", learned, "--", "sh", "-c", script));
	ASSERT_STATUS(0);
	cr_expect_eq(accepted(l, got, sizeof(got)), 1);
	const char *p = slurp(learned);
	cr_assert_not_null(p);
	cr_expect_str_eq(directives(p, false),
			 fmt("include default\nsubprocess no\nsubprocess yes\nnet-connect %u\n", port),
			 "the learned policy:\n%s", p);
	expect_line_because(p, fmt("net-connect %u", port),
			    ARGS(fmt("connect 1: 127.0.0.1:%u/tcp", port)));
	expect_line_because(p, "subprocess yes", ARGS("spawn 1: "));

	cordon(ARGS("run", "--policy", learned, "--", "sh", "-c", script));
	EXPECT_STATUS(0);
	expect_no_refusal();
	EXPECT_HAS(R.out, "connect 0 0");
	cr_expect_eq(accepted(l, got, sizeof(got)), 1);
	close(l);
}

/* Without -o the policy goes to stdout; with -o it is renamed into place:
 * a link planted at FILE is replaced, its target untouched, and no
 * temporary file is left. An output that cannot be written stops learn
 * before the program runs. */
/* cordon fails (125) after the output was opened: nothing half-written is
 * left beside it. */
Test(learn, no_partial_output_when_cordon_fails, .init = setup, .fini = teardown, .timeout = 60)
{
	cordon_env(ARGS("TMPDIR=/nonexistent/cordon-test"),
		   ARGS("learn", "-o", learned, "--", "true"));
	EXPECT_STATUS(125);
	EXPECT_HAS(R.err, "unable to create the private TMPDIR");
	cr_expect_not(exists(learned), "a policy was written");
	DIR *d = opendir(T);
	cr_assert_not_null(d);
	for (struct dirent *e; (e = readdir(d));)
		cr_expect_null(strstr(e->d_name, ".learn-"), "left behind: %s", e->d_name);
	closedir(d);
}

Test(learn, output_stdout_rename_and_unwritable, .init = setup, .fini = teardown, .timeout = 60)
{
	char script[PATH_MAX + 16];

	mkdirs("out");
	snprintf(script, sizeof(script), "echo > %s/out/f", T);

	cordon(ARGS("learn", "--", "sh", "-c", script));
	ASSERT_STATUS(0);
	cr_expect(strncmp(R.out, "# Learned by cordon learn, ", 27) == 0, "stdout:\n%s", R.out);
	cr_expect_str_eq(directives(R.out, true), fmt("include default\nwrite %s/out\n", T));
	EXPECT_HAS(R.err, "cordon: learn: 1 refused target, 1 line\n");
	EXPECT_HAS(R.err, "cordon: learn: sh runs in mode warn: nothing is refused, the kernel "
			  "layer is off, and the shim records what the policy would refuse\n");

	put("canary", "canary\n");
	cr_assert_eq(symlink(tp("canary"), learned), 0);
	unlink(tp("out/f"));
	cordon(ARGS("learn", "-o", learned, "--", "sh", "-c", script));
	ASSERT_STATUS(0);
	struct stat st;
	cr_assert_eq(lstat(learned, &st), 0);
	cr_expect(S_ISREG(st.st_mode), "%s is not a regular file", learned);
	const char *c = slurp(tp("canary"));
	cr_expect_str_eq(c ? c : "(missing)", "canary\n");
	expect_learned(fmt("include default\nwrite %s/out\n", T));
	DIR *d = opendir(T);
	cr_assert_not_null(d);
	for (struct dirent *e; (e = readdir(d));)
		cr_expect(strncmp(e->d_name, "learned.", 8) != 0, "left behind: %s", e->d_name);
	closedir(d);

	unlink(tp("out/f"));
	cordon(ARGS("learn", "-o", tp("missing/learned"), "--", "sh", "-c", script));
	EXPECT_STATUS(125);
	EXPECT_HAS(R.err, fmt("cordon: unable to write the policy to %s/missing/learned.learn-", T));
	cr_expect_not(exists(tp("out/f")), "the program ran although its policy could not be written");
}

/* The rename whose both ends are refused: one refused call, two targets;
 * learned, both directories. */
Test(learn, rename_both_ends_refused, .init = setup, .fini = teardown, .timeout = 60)
{
	char from[PATH_MAX], to[PATH_MAX];

	mkdirs("src");
	mkdirs("dst");
	put("src/f", "f\n");
	snprintf(from, sizeof(from), "%s", tp("src/f"));
	snprintf(to, sizeof(to), "%s", tp("dst/f"));

	cordon(ARGS("run", "--", "mv", from, to));
	cr_expect_neq(R.status, 0);
	EXPECT_HAS(R.err, "1 call refused (rename 1)");
	cr_expect(exists(from) && !exists(to));
	const char *rec = slurp(record);
	cr_assert_not_null(rec, "no record at %s", record);
	EXPECT_HAS(rec, "\"refused\":1,");
	EXPECT_HAS(rec, fmt("\n{\"op\":\"rename\",\"target\":\"%s\",\"count\":1,", from));
	EXPECT_HAS(rec, fmt("\n{\"op\":\"rename\",\"target\":\"%s\",\"count\":1,", to));
	/* explain --last shows both ends, each with its line. */
	cordon(ARGS("explain", "--last"));
	EXPECT_STATUS(1);
	EXPECT_HAS(R.out, fmt("deny   rename %s (1 time, shim)\n", from));
	EXPECT_HAS(R.out, fmt("deny   rename %s (1 time, shim)\n", to));
	EXPECT_HAS(R.out, fmt("\nto allow them all, add to the policy:\n  write %s/dst\n  write %s/src\n",
			      T, T));

	cordon(ARGS("learn", "-o", learned, "--", "mv", from, to));
	ASSERT_STATUS(0);
	const char *p = expect_learned(fmt("include default\nwrite %s/dst\nwrite %s/src\n", T, T));
	EXPECT_HAS(p, "# 1 call allowed by mode warn only (rename 1).\n");
	expect_line_because(p, fmt("write %s/dst", T), ARGS(fmt("rename 1: %s", to)));
	expect_line_because(p, fmt("write %s/src", T), ARGS(fmt("rename 1: %s", from)));

	cr_assert_eq(rename(to, from), 0);
	cordon(ARGS("run", "--policy", learned, "--", "mv", from, to));
	EXPECT_STATUS(0);
	expect_no_refusal();
	cr_expect(!exists(from) && exists(to));
}

/* === the record of the last run ======================================================== */

/* The record's lines, exactly as documented (docs/cordon.1, FILES). */
Test(record, run_line_and_target_lines, .init = setup, .fini = teardown, .timeout = 60)
{
	mkdirs("o1");
	cordon(ARGS("run", "--", ops_bin, "write", tp("o1/a"), "x", "write", tp("o1/a"), "y",
		    "exit", "3"));
	EXPECT_STATUS(3);
	const char *rec = slurp(record);
	cr_assert_not_null(rec, "no record at %s", record);
	const char *nl = strchr(rec, '\n');
	cr_assert_not_null(nl);
	char first[4096], start[5 * PATH_MAX];
	snprintf(first, sizeof(first), "%.*s", (int)(nl - rec), rec);
	snprintf(start, sizeof(start),
		 "{\"v\":1,\"cmd\":\"%s write %s x write %s y exit 3\",\"cwd\":\"%s\",\"time\":\"",
		 ops_bin, tp("o1/a"), tp("o1/a"), tp("ws"));
	cr_expect(strncmp(first, start, strlen(start)) == 0, "first line: %s\nwant it to start: %s",
		  first, start);
	EXPECT_HAS(first, "Z\",\"mode\":\"enforce\",\"status\":3,\"signal\":0,\"timed_out\":false,"
			  "\"refused\":2,\"warned\":0,\"dropped\":0,\"ops\":\"create=2\"}");
	cr_expect_str_eq(nl + 1, fmt("{\"op\":\"create\",\"target\":\"%s\",\"count\":2,\"code\":1,"
				     "\"reason\":\"outside write roots\",\"layer\":\"shim\"}\n",
				     tp("o1/a")));
	struct stat st;
	cr_assert_eq(stat(record, &st), 0);
	cr_expect_eq(st.st_mode & 0777, 0600, "the record is mode %o", st.st_mode & 0777);

	/* A learn run is recorded too, as mode warn. */
	cordon(ARGS("learn", "-o", learned, "--", ops_bin, "write", tp("o1/b"), "x"));
	rec = slurp(record);
	cr_assert_not_null(rec);
	EXPECT_HAS(rec, "\"mode\":\"warn\",\"status\":0,\"signal\":0,\"timed_out\":false,"
			"\"refused\":0,\"warned\":1,\"dropped\":0,\"ops\":\"create=1\"}\n");

	/* A signal, and a timeout. */
	cordon(ARGS("run", "--", "sh", "-c", "kill -TERM $$"));
	rec = slurp(record);
	cr_assert_not_null(rec);
	EXPECT_HAS(rec, "\"status\":-1,\"signal\":15,\"timed_out\":false,\"refused\":0,");
	cordon(ARGS("run", "--timeout", "1", "--", "sleep", "10"));
	EXPECT_STATUS(124);
	rec = slurp(record);
	cr_assert_not_null(rec);
	EXPECT_HAS(rec, "\"timed_out\":true,");
}

/* Without XDG_STATE_HOME (or with a relative one, which the XDG spec says
 * to ignore), the record goes to ~/.local/state/cordon. */
Test(record, home_when_no_xdg_state_home, .init = setup, .fini = teardown, .timeout = 60)
{
	char home_record[PATH_MAX];

	mkdirs("o1");
	snprintf(home_record, sizeof(home_record), "%s", tp("home/.local/state/cordon/last-run.jsonl"));
	cordon_env(ARGS("XDG_STATE_HOME"), ARGS("run", "--", ops_bin, "write", tp("o1/a"), "x"));
	EXPECT_STATUS(0);
	const char *rec = slurp(home_record);
	cr_assert_not_null(rec, "no record at %s", home_record);
	EXPECT_HAS(rec, fmt("{\"op\":\"create\",\"target\":\"%s\",", tp("o1/a")));
	cr_expect_not(exists(record));
	cordon_env(ARGS("XDG_STATE_HOME"), ARGS("explain", "--last"));
	EXPECT_STATUS(1);
	EXPECT_HAS(R.out, fmt("deny   create %s (1 time, shim)\n", tp("o1/a")));

	cordon_env(ARGS("XDG_STATE_HOME=relative/state"), ARGS("run", "--", "true"));
	EXPECT_STATUS(0);
	cordon_env(ARGS("XDG_STATE_HOME=relative/state"), ARGS("explain", "--last"));
	EXPECT_STATUS(0);
	EXPECT_HAS(R.out, "\n  nothing refused\n");
	cr_expect_not(exists(tp("ws/relative")));
}

/* A missing XDG_STATE_HOME is made, 0700, and so is its cordon directory. */
Test(record, missing_xdg_state_home_made, .init = setup, .fini = teardown, .timeout = 30)
{
	struct stat st;

	cordon_env(ARGS(fmt("XDG_STATE_HOME=%s", tp("new/state"))), ARGS("run", "--", "true"));
	EXPECT_STATUS(0);
	cr_assert(exists(tp("new/state/cordon/last-run.jsonl")), "no record under the new base");
	cr_assert_eq(stat(tp("new/state"), &st), 0);
	cr_expect_eq(st.st_mode & 0777, 0700, "new/state is mode %o", st.st_mode & 0777);
	cr_assert_eq(stat(tp("new/state/cordon"), &st), 0);
	cr_expect_eq(st.st_mode & 0777, 0700, "new/state/cordon is mode %o", st.st_mode & 0777);
}

/* A link planted at $XDG_STATE_HOME/cordon (where a sandboxed program may
 * write) is not followed: the record is not saved, the run goes on as
 * usual, and -v says why. The same for ~/.local in the HOME fallback. */
Test(record, directory_link_not_followed, .init = setup, .fini = teardown, .timeout = 60)
{
	mkdirs("o1");
	mkdirs("canary");
	mkdirs("home");
	cr_assert_eq(symlink(tp("canary"), tp("state/cordon")), 0);

	cordon(ARGS("run", "-v", "--", ops_bin, "write", tp("o1/a"), "x", "exit", "4"));
	EXPECT_STATUS(4);
	EXPECT_HAS(R.err, "cordon: unable to record the run for explain --last: ");
	DIR *d = opendir(tp("canary"));
	cr_assert_not_null(d);
	for (struct dirent *e; (e = readdir(d));)
		cr_expect(strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0,
			  "canary/%s was written through the link", e->d_name);
	closedir(d);
	struct stat st;
	cr_expect(lstat(tp("state/cordon"), &st) == 0 && S_ISLNK(st.st_mode));

	cr_assert_eq(symlink(tp("canary"), tp("home/.local")), 0);
	cordon_env(ARGS("XDG_STATE_HOME"), ARGS("run", "--", ops_bin, "write", tp("o1/a"), "x"));
	EXPECT_STATUS(0);
	d = opendir(tp("canary"));
	cr_assert_not_null(d);
	for (struct dirent *e; (e = readdir(d));)
		cr_expect(strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0,
			  "canary/%s was written through ~/.local", e->d_name);
	closedir(d);
}

/* A link planted at last-run.jsonl is replaced, its target untouched. */
Test(record, file_link_replaced_not_written_through, .init = setup, .fini = teardown,
     .timeout = 60)
{
	mkdirs("o1");
	mkdirs("state/cordon");
	put("canary", "canary\n");
	cr_assert_eq(symlink(tp("canary"), record), 0);

	cordon(ARGS("run", "--", ops_bin, "write", tp("o1/a"), "x"));
	EXPECT_STATUS(0);
	const char *c = slurp(tp("canary"));
	cr_expect_str_eq(c ? c : "(missing)", "canary\n");
	struct stat st;
	cr_assert_eq(lstat(record, &st), 0);
	cr_expect(S_ISREG(st.st_mode), "last-run.jsonl is not a regular file");
	const char *rec = slurp(record);
	cr_assert_not_null(rec);
	EXPECT_HAS(rec, fmt("{\"op\":\"create\",\"target\":\"%s\",", tp("o1/a")));
	DIR *d = opendir(tp("state/cordon"));
	cr_assert_not_null(d);
	for (struct dirent *e; (e = readdir(d));)
		cr_expect(strncmp(e->d_name, "last-run.jsonl.", 15) != 0, "left behind: %s",
			  e->d_name);
	closedir(d);
}

/* The record is rewritten in place when it is a file of ours linked once:
 * a longer record then a shorter one leaves exactly the shorter one (no
 * tail of the first), and the same inode. */
Test(record, rewritten_in_place_without_a_stale_tail, .init = setup, .fini = teardown,
     .timeout = 60)
{
	struct stat a, b;

	mkdirs("o1");
	cordon(ARGS("run", "--", ops_bin, "write", tp("o1/a-long-name-to-make-a-long-record"), "x",
		    "write", tp("o1/another-long-name"), "x"));
	EXPECT_STATUS(0);
	cr_assert_eq(stat(record, &a), 0);
	cordon(ARGS("run", "--", ops_bin, "write", tp("o1/b"), "x"));
	EXPECT_STATUS(0);
	cr_assert_eq(stat(record, &b), 0);
	cr_expect_eq(a.st_ino, b.st_ino, "the record was replaced, not rewritten");
	cr_expect_lt(b.st_size, a.st_size);
	const char *rec = slurp(record);
	cr_assert_not_null(rec);
	EXPECT_HAS(rec, fmt("\"target\":\"%s\"", tp("o1/b")));
	cr_expect_not(strstr(rec, "another-long-name"), "a stale tail:\n%s", rec);
	cordon(ARGS("explain", "--last"));
	EXPECT_HAS(R.out, fmt("deny   create %s (1 time, shim)", tp("o1/b")));
}

/* A hard link planted at last-run.jsonl (a program may write below the
 * base) is replaced, not written through: the file it shares an inode
 * with is untouched. So is a record somebody holds locked. */
Test(record, hard_link_or_lock_replaced_not_written_through, .init = setup, .fini = teardown,
     .timeout = 60)
{
	mkdirs("o1");
	mkdirs("state/cordon");
	put("canary", "canary\n");
	cr_assert_eq(link(tp("canary"), record), 0);

	cordon(ARGS("run", "--", ops_bin, "write", tp("o1/a"), "x"));
	EXPECT_STATUS(0);
	const char *c = slurp(tp("canary"));
	cr_expect_str_eq(c ? c : "(missing)", "canary\n");
	const char *rec = slurp(record);
	cr_assert_not_null(rec);
	EXPECT_HAS(rec, fmt("\"target\":\"%s\"", tp("o1/a")));

	int held = open(record, O_RDONLY | O_CLOEXEC);
	cr_assert_geq(held, 0);
	cr_assert_eq(flock(held, LOCK_EX), 0);
	cordon(ARGS("run", "--", ops_bin, "write", tp("o1/b"), "x"));
	EXPECT_STATUS(0);
	rec = slurp(record);
	cr_assert_not_null(rec);
	EXPECT_HAS(rec, fmt("\"target\":\"%s\"", tp("o1/b")));
	char old[4096] = "";
	cr_assert_gt(pread(held, old, sizeof(old) - 1, 0), 0);
	cr_expect(strstr(old, fmt("\"target\":\"%s\"", tp("o1/a"))) &&
			  !strstr(old, fmt("\"target\":\"%s\"", tp("o1/b"))),
		  "the locked record was written:\n%s", old);
	close(held);
}

/* === explain --last ================================================================ */

/* Two writes and a TCP connect refused: each listed with the line that
 * allows it, and all the lines at the end (exit 1); under a policy that
 * allows them, each is "now allowed" (exit 0); allowing some leaves the
 * rest. */
Test(explain_last, refusals_then_allowed, .init = setup, .fini = teardown, .timeout = 60)
{
	unsigned port;
	int l = tcp_listener(&port);
	char got[64], port_s[16], a[PATH_MAX], b[PATH_MAX];

	snprintf(port_s, sizeof(port_s), "%u", port);
	snprintf(a, sizeof(a), "%s", tp("o1/a"));
	snprintf(b, sizeof(b), "%s", tp("o2/b"));
	mkdirs("o1");
	mkdirs("o2");
	cordon(ARGS("run", "--", ops_bin, "write", a, "x", "write", b, "y", "connect", "127.0.0.1",
		    port_s));
	EXPECT_STATUS(0);
	EXPECT_HAS(R.out, "write -1 13 open\nwrite -1 13 open\nconnect -1 13 connect\n");
	cr_expect_eq(accepted(l, got, sizeof(got)), 0);
	cr_expect(!exists(a) && !exists(b));

	cordon(ARGS("explain", "--last"));
	EXPECT_STATUS(1);
	EXPECT_HAS(R.out, fmt("last run: %s write %s x write %s y connect 127.0.0.1 %u\n  in %s at ",
			      ops_bin, a, b, port, tp("ws")));
	EXPECT_HAS(R.out, "(mode enforce): exited 0\n  3 calls refused (create 2, connect 1)\n");
	EXPECT_HAS(R.out, fmt("\ndeny   create %s (1 time, shim)\n       outside write roots\n"
			      "       to allow: write %s/o1\n", a, T));
	EXPECT_HAS(R.out, fmt("\ndeny   create %s (1 time, shim)\n       outside write roots\n"
			      "       to allow: write %s/o2\n", b, T));
	/* The connect is cordon's supervisor's to answer (the shim leaves it). */
	EXPECT_HAS(R.out, fmt("\ndeny   connect 127.0.0.1:%u/tcp (1 time, supervisor)\n"
			      "       network is none and the port is not listed", port));
	EXPECT_HAS(R.out, fmt("       to allow: net-connect %u\n", port));
	const char *tail = fmt("\nto allow them all, add to the policy:\n  write %s/o1\n  write %s/o2\n"
			       "  net-connect %u\n", T, T, port);
	size_t n = strlen(R.out), tn = strlen(tail);
	cr_expect(n >= tn && strcmp(R.out + n - tn, tail) == 0, "stdout does not end with\n%s\n"
		  "stdout:\n%s", tail, R.out);
	cr_expect_str_eq(R.err, "");

	cordon(ARGS("explain", "--last", "--write", tp("o1"), "--write", tp("o2"), "--net-connect",
		    port_s));
	EXPECT_STATUS(0);
	EXPECT_HAS(R.out, fmt("\nallow  create %s (1 time, shim)\n       now allowed: inside write "
			      "root (command line: --write %s/o1)\n", a, T));
	EXPECT_HAS(R.out, fmt("\nallow  create %s (1 time, shim)\n       now allowed: inside write "
			      "root (command line: --write %s/o2)\n", b, T));
	EXPECT_HAS(R.out, fmt("\nallow  connect 127.0.0.1:%u/tcp (1 time, supervisor)\n       now allowed: "
			      "port is listed (command line: --net-connect %u)\n", port, port));
	EXPECT_HAS(R.out, "\nthe policy given allows every one of them\n");
	EXPECT_LACKS(R.out, "deny ");
	EXPECT_LACKS(R.out, "to allow");

	/* Some allowed: the rest still refused, and only their lines. */
	cordon(ARGS("explain", "--last", "--write", tp("o1")));
	EXPECT_STATUS(1);
	EXPECT_HAS(R.out, fmt("\nallow  create %s (1 time, shim)\n", a));
	EXPECT_HAS(R.out, fmt("\nto allow them all, add to the policy:\n  write %s/o2\n  net-connect %u\n",
			      T, port));
	close(l);
}

Test(explain_last, no_record_is_an_error, .init = setup, .fini = teardown, .timeout = 30)
{
	cordon(ARGS("explain", "--last"));
	EXPECT_STATUS(125);
	cr_expect_str_eq(R.out, "");
	cr_expect_str_eq(R.err, fmt("cordon: unable to explain the last run: no run recorded (%s: No "
				    "such file or directory); cordon run records each run there\n",
				    record));
}

/* A run that refused nothing replaces the record of one that did. */
Test(explain_last, clean_run_exits_zero, .init = setup, .fini = teardown, .timeout = 30)
{
	mkdirs("o1");
	cordon(ARGS("run", "--", ops_bin, "write", tp("o1/a"), "x"));
	cordon(ARGS("explain", "--last"));
	EXPECT_STATUS(1);

	cordon(ARGS("run", "--", "sh", "-c", "echo > in-workspace"));
	EXPECT_STATUS(0);
	cordon(ARGS("explain", "--last"));
	EXPECT_STATUS(0);
	cr_expect_str_eq(R.err, "");
	EXPECT_HAS(R.out, "last run: sh -c 'echo > in-workspace'\n");
	EXPECT_HAS(R.out, "(mode enforce): exited 0\n  nothing refused\n");
	EXPECT_LACKS(R.out, "deny");
	EXPECT_LACKS(R.out, "to allow");
}

/* --last takes no OP TARGET and is for explain only; -o is for learn. */
Test(explain_last, usage_errors, .init = setup, .fini = teardown, .timeout = 30)
{
	static const struct {
		const char *args[6];
		const char *err;
	} cases[] = {
		{ { "explain", "--last", "write", "/x" },
		  "cordon: unable to explain 'write' with --last: give either OP TARGET pairs or --last\n" },
		{ { "run", "--last", "--", "true" }, "cordon: option --last is for cordon explain\n" },
		{ { "learn", "--last", "--", "true" }, "cordon: option --last is for cordon explain\n" },
		{ { "run", "-o", "x", "--", "true" }, "cordon: option -o is for cordon learn\n" },
		{ { "explain", "--output", "x" }, "cordon: option --output is for cordon learn\n" },
		{ { "learn", "-o" }, "cordon: option -o needs a FILE\n" },
		{ { "learn", "-o", "x" },
		  "cordon: unable to learn: no program given (cordon learn [OPTIONS] [-o FILE] -- PROGRAM)\n" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		cordon(cases[i].args);
		cr_expect_eq(R.status, 125, "case %zu: exit %d", i, R.status);
		cr_expect_str_eq(R.err, cases[i].err, "case %zu", i);
		cr_expect_str_eq(R.out, "", "case %zu", i);
	}
	cr_expect_not(exists(tp("ws/x")));
}

/* === the record read back (tally_load) ================================================= */

#define RUN_LINE                                                                        \
	"{\"v\":1,\"cmd\":\"prog\",\"cwd\":\"/w\",\"time\":\"2026-01-01T00:00:00Z\",\"mode\":" \
	"\"enforce\",\"status\":1,\"signal\":0,\"timed_out\":false,\"refused\":1,\"warned\":0," \
	"\"dropped\":0,\"ops\":\"create=1\"}\n"
#define TARGET(t) "{\"op\":\"create\",\"target\":\"" t "\",\"count\":1,\"code\":1,"    \
	"\"reason\":\"outside write roots\",\"layer\":\"shim\"}\n"

/* A record not as cordon writes it is refused, with the line that is not. */
Test(explain_last, malformed_record_refused_with_its_line, .init = setup, .fini = teardown,
     .timeout = 60)
{
	static const struct {
		const char *text;
		int line;
	} cases[] = {
		{ "not json\n", 1 },
		{ "{\"v\":1,\"cmd\":\"prog\"\n", 1 },
		{ "{\"v\":2,\"cmd\":\"prog\",\"cwd\":\"/w\",\"time\":\"t\",\"mode\":\"enforce\","
		  "\"status\":1,\"signal\":0,\"timed_out\":false,\"refused\":1,\"warned\":0,"
		  "\"dropped\":0}\n", 1 },
		/* no mode */
		{ "{\"v\":1,\"cmd\":\"prog\",\"cwd\":\"/w\",\"time\":\"t\",\"status\":1,\"signal\":0,"
		  "\"timed_out\":false,\"refused\":1,\"warned\":0,\"dropped\":0}\n", 1 },
		/* a number as a string */
		{ "{\"v\":1,\"cmd\":\"prog\",\"cwd\":\"/w\",\"time\":\"t\",\"mode\":\"enforce\","
		  "\"status\":\"1\",\"signal\":0,\"timed_out\":false,\"refused\":1,\"warned\":0,"
		  "\"dropped\":0}\n", 1 },
		/* an unknown reason code */
		{ RUN_LINE "{\"op\":\"create\",\"target\":\"/a\",\"count\":1,\"code\":99,"
			   "\"reason\":\"?\",\"layer\":\"shim\"}\n", 2 },
		/* no layer; no target; no count; a count of 0 */
		{ RUN_LINE "{\"op\":\"create\",\"target\":\"/a\",\"count\":1,\"code\":1}\n", 2 },
		{ RUN_LINE "{\"op\":\"create\",\"count\":1,\"code\":1,\"layer\":\"shim\"}\n", 2 },
		{ RUN_LINE "{\"op\":\"create\",\"target\":\"/a\",\"code\":1,\"layer\":\"shim\"}\n", 2 },
		{ RUN_LINE "{\"op\":\"create\",\"target\":\"/a\",\"count\":0,\"code\":1,"
			   "\"layer\":\"shim\"}\n", 2 },
		/* no ops; ops not as written */
		{ "{\"v\":1,\"cmd\":\"prog\",\"cwd\":\"/w\",\"time\":\"t\",\"mode\":\"enforce\","
		  "\"status\":1,\"signal\":0,\"timed_out\":false,\"refused\":1,\"warned\":0,"
		  "\"dropped\":0}\n", 1 },
		{ "{\"v\":1,\"cmd\":\"prog\",\"cwd\":\"/w\",\"time\":\"t\",\"mode\":\"enforce\","
		  "\"status\":1,\"signal\":0,\"timed_out\":false,\"refused\":1,\"warned\":0,"
		  "\"dropped\":0,\"ops\":\"create\"}\n", 1 },
		/* something after the object */
		{ RUN_LINE TARGET("/a") "{\"op\":\"create\",\"target\":\"/b\",\"count\":1,\"code\":1,"
			   "\"reason\":\"x\",\"layer\":\"shim\"} trailing\n", 3 },
		/* escapes tally_save never writes: \x, \u0000 (NUL), \u0100 (not a byte) */
		{ RUN_LINE TARGET("/a\\x"), 2 },
		{ RUN_LINE TARGET("/a\\u0000b"), 2 },
		{ RUN_LINE TARGET("/a\\u0100b"), 2 },
		/* a string not closed */
		{ RUN_LINE "{\"op\":\"create\",\"target\":\"/a\n", 2 },
		/* a good target, then bad lines */
		{ RUN_LINE TARGET("/a") "{}\n", 3 },
		{ RUN_LINE TARGET("/a") "\n", 3 },
		{ RUN_LINE TARGET("/a") TARGET("/b") "{\"op\":\"create\",\"target\":\"/c\"", 4 },
	};

	mkdirs("state/cordon");
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		put_path(record, cases[i].text);
		cordon(ARGS("explain", "--last"));
		cr_expect_eq(R.status, 125, "case %zu: exit %d\nstdout:\n%s", i, R.status, R.out);
		cr_expect_str_eq(R.err, fmt("cordon: unable to explain the last run: unable to read %s: "
					    "line %d is not as cordon writes it\n",
					    record, cases[i].line),
				 "case %zu", i);
	}
	/* An empty record is not one either. */
	put_path(record, "");
	cordon(ARGS("explain", "--last"));
	EXPECT_STATUS(125);
	EXPECT_HAS(R.err, fmt("cordon: unable to explain the last run: unable to read %s: the record "
			      "is empty\n", record));
}

/* Escaped targets read back byte for byte: a hand-written record, and the
 * record of a real run that created a name with a quote, a backslash, a
 * control character and a non-ASCII letter. */
Test(explain_last, escaped_targets_round_trip, .init = setup, .fini = teardown, .timeout = 60)
{
	char name[PATH_MAX];

	mkdirs("state/cordon");
	put_path(record, RUN_LINE TARGET("/nowhere/q\\\"b\\\\s\\u0001c\\u00e9\\/"));
	cordon(ARGS("explain", "--last"));
	EXPECT_STATUS(1);
	EXPECT_HAS(R.out, "\ndeny   create /nowhere/q\"b\\s\x01" "c\xe9/ (1 time, shim)\n");
	EXPECT_HAS(R.out, "last run: prog\n  in /w at 2026-01-01T00:00:00Z (mode enforce): exited 1\n");

	mkdirs("o1");
	snprintf(name, sizeof(name), "%s/o1/q\"b\\s\x01" "c\xc3\xa9", T);
	cordon(ARGS("run", "--", ops_bin, "write", name, "x"));
	EXPECT_STATUS(0);
	cr_expect_not(exists(name));
	const char *rec = slurp(record);
	cr_assert_not_null(rec);
	EXPECT_HAS(rec, fmt("\"target\":\"%s/o1/q\\\"b\\\\s\\u0001c\\u00c3\\u00a9\",", T));
	cordon(ARGS("explain", "--last"));
	EXPECT_STATUS(1);
	EXPECT_HAS(R.out, fmt("\ndeny   create %s (1 time, shim)\n       outside write roots\n"
			      "       to allow: write %s/o1\n", name, T));
	/* Allowed again under the line it suggests: the name was read back whole. */
	cordon(ARGS("explain", "--last", "--write", tp("o1")));
	EXPECT_STATUS(0);
	EXPECT_HAS(R.out, fmt("\nallow  create %s (1 time, shim)\n", name));
}

/* === edges: each of these failed once (the fix is in the commit that
 * added it) ============================================================================= */

/* explain --last counts the calls of each operation from the record's
 * targets: a rename whose two ends were refused is one call (the run's
 * summary says "rename 1") but two targets, and explain --last says
 * "1 call refused (rename 2)" (launcher/tally.c, tally_load). */
Test(edges, explain_last_counts_a_two_ended_rename_once, .init = setup, .fini = teardown,
     .timeout = 60)
{
	mkdirs("src");
	mkdirs("dst");
	put("src/f", "f\n");
	cordon(ARGS("run", "--", "mv", tp("src/f"), tp("dst/f")));
	EXPECT_HAS(R.err, "1 call refused (rename 1)");
	cordon(ARGS("explain", "--last"));
	EXPECT_STATUS(1);
	EXPECT_HAS(R.out, "\n  1 call refused (rename 1)\n");
}

/* The learned policy's header quotes the command line in a comment; an
 * argument with a newline ends the comment, and the rest of the line is
 * read as directives: the policy learned cannot be loaded
 * (launcher/learn.c, write_policy). */
Test(edges, learned_policy_loads_after_a_multi_line_command, .init = setup, .fini = teardown,
     .timeout = 60)
{
	mkdirs("out");
	cordon(ARGS("learn", "-o", learned, "--", "sh", "-c", fmt("echo a > %s/out/a\ntrue", T)));
	ASSERT_STATUS(0);
	cordon(ARGS("run", "--policy", learned, "--", "sh", "-c", fmt("echo a > %s/out/a\ntrue", T)));
	EXPECT_STATUS(0);
	expect_no_refusal();
}

/* Options and policies given as ${WORKSPACE}/... (as docs/policy.md
 * writes them) are repeated with their $ doubled, and a --policy with a /
 * is made absolute before it is expanded: `include "$CWD/$${WORKSPACE}/p"`
 * and `write "$${WORKSPACE}/sub"`, neither of which loads
 * (launcher/learn.c, write_policy). */
Test(edges, learned_policy_keeps_workspace_variables, .init = setup, .fini = teardown,
     .timeout = 60)
{
	mkdirs("ws/sub");
	put("ws/p", "include default\n");
	cordon(ARGS("learn", "--policy", "${WORKSPACE}/p", "--write", "${WORKSPACE}/sub", "-o",
		    learned, "--", "true"));
	ASSERT_STATUS(0);
	cordon(ARGS("run", "--policy", learned, "--", "sh", "-c", "echo > sub/x"));
	EXPECT_STATUS(0);
	cr_expect(exists(tp("ws/sub/x")));
}

/* suggest.h wants HOME canonical, main.c passes $HOME as it is: with HOME
 * a link to the home directory, three roots in it are collapsed into it
 * (`write $T/home`, the whole home, with no warning), and no path is
 * written ~/... (launcher/main.c, cmd_learn and explain_last's home). */
Test(edges, home_through_a_link_not_collapsed_into, .init = setup, .fini = teardown,
     .timeout = 60)
{
	for (int i = 0; i < 3; i++)
		mkdirs(fmt("home/%c", 'a' + i));
	cr_assert_eq(symlink("home", tp("homelink")), 0);
	put("bare.policy", "write ${WORKSPACE}\nnet none\n");
	cordon_env(ARGS(fmt("HOME=%s", tp("homelink"))),
		   ARGS("learn", "--policy", tp("bare.policy"), "-o", learned, "--", "sh", "-c",
			fmt("echo > %s/home/a/x; echo > %s/home/b/x; echo > %s/home/c/x", T, T, T)));
	ASSERT_STATUS(0);
	expect_learned(fmt("include %s/bare.policy\nwrite ~/a\nwrite ~/b\nwrite ~/c\n", T));
}

/* Under the kernel layer, a read of a read-deny file is refused by
 * Landlock before the shim, which checks read opens only once they have
 * succeeded (shim/shim.c, read_open), sees it: no deny line, nothing
 * counted or recorded, and explain --last says "nothing refused" for a
 * program that failed on it. */
Test(edges, read_deny_refused_by_the_kernel_layer_is_recorded, .init = setup, .fini = teardown,
     .timeout = 60)
{
	mkdirs("home/.ssh");
	put("home/.ssh/id_rsa", "SECRET\n");
	cordon(ARGS("run", "--", "cat", tp("home/.ssh/id_rsa")));
	cr_expect_neq(R.status, 0);
	EXPECT_LACKS(R.out, "SECRET");
	EXPECT_HAS(R.err, fmt("cordon: deny read %s", tp("home/.ssh/id_rsa")));
	const char *rec = slurp(record);
	cr_assert_not_null(rec);
	EXPECT_HAS(rec, "\"refused\":1,");
	cordon(ARGS("explain", "--last"));
	EXPECT_STATUS(1);
	EXPECT_HAS(R.out, fmt("deny   read %s (1 time, ", tp("home/.ssh/id_rsa")));
}

/* learn promises the policy "that would let that run pass": a run that
 * made its output directory is learned as `write DIR` on that directory
 * (fd80732, suggest.c write_need), so the same run from the same start
 * (the directory removed, as `make clean` or a fresh checkout does) is
 * refused before it starts: "write root ... does not exist", 125. The
 * parent (or `write ?DIR` with the parent) would let it pass. */
Test(edges, learned_policy_passes_the_run_again_from_its_start, .init = setup, .fini = teardown,
     .timeout = 60)
{
	mkdirs("build");
	const char *script = fmt("mkdir -p %s/build/out && echo x > %s/build/out/f", T, T);
	char again[PATH_MAX];

	snprintf(again, sizeof(again), "%s", script);
	cordon(ARGS("learn", "-o", learned, "--", "sh", "-c", again));
	ASSERT_STATUS(0);
	fixture_rmtree(tp("build/out"));
	cordon(ARGS("run", "--policy", learned, "--", "sh", "-c", again));
	EXPECT_STATUS(0);
	expect_no_refusal();
	cr_expect(exists(tp("build/out/f")));
}

/* A listen on a socket bound to no port takes one at random, which no
 * net-bind line can name: explain --last says so, and offers a loopback
 * of the program's own instead. */
Test(explain_last, listen_on_a_port_at_random, .init = setup, .fini = teardown, .timeout = 60)
{
	cordon(ARGS("run", "--", ops_bin, "sys-listen", "127.0.0.1", "-"));
	EXPECT_STATUS(0);
	EXPECT_HAS(R.out, "sys-listen -1 13 listen\n");

	cordon(ARGS("explain", "--last"));
	EXPECT_STATUS(1);
	EXPECT_HAS(R.out, "\ndeny   bind 0.0.0.0:0/tcp (1 time, supervisor)\n"
			  "       network is none: a port taken at random (port 0) cannot be listed");
	EXPECT_HAS(R.out, "       to allow: net isolated\n");
	EXPECT_HAS(R.out, "\nto allow it, add to the policy:\n  net isolated\n");
	cr_expect(strstr(R.out, "net-bind") == NULL, "stdout:\n%s", R.out);
}

/* A test suite that listens on a port at random: learn (the shim alone,
 * mode warn) sees the listen and offers a loopback of the program's own,
 * with which the run passes. */
Test(learn, listen_on_a_port_at_random_learns_net_isolated, .init = setup, .fini = teardown,
     .timeout = 60)
{
	cordon(ARGS("learn", "-o", learned, "--", ops_bin, "listen", "127.0.0.1", "-"));
	ASSERT_STATUS(0);
	const char *p = slurp(learned);
	cr_assert_not_null(p);
	cr_expect_str_eq(directives(p, false), "include default\nnet isolated\n",
			 "the learned policy:\n%s", p);
	cordon(ARGS("run", "--policy", learned, "--", ops_bin, "listen", "127.0.0.1", "-"));
	EXPECT_STATUS(0);
	expect_no_refusal();
	EXPECT_HAS(R.out, "listen 0 0");
}
