/*
 * test_compat.c - real programs keep working under `cordon run`, unchanged,
 * as long as they write inside their roots. Each case is a shell script run
 * twice, in two fresh and identical workspaces: once bare, once as
 * `cordon run --policy P -- /bin/sh -c SCRIPT`. The two runs must agree:
 * the same exit status, the same stdout (each workspace's path replaced by
 * @WS@), no "cordon: deny" on cordon's stderr, and the same tree left in the
 * workspace (type, mode, owner, link count, size, symlink target and a hash
 * of each regular file's content, the workspace path again replaced;
 * timestamps and inode numbers are not compared). The bare run must also
 * succeed and print the case's marker, so a case that quietly does nothing
 * fails instead of agreeing with itself.
 *
 * Variants: `plain` is the policy below (one write root, no network,
 * on-unsupported warn, every other setting cordon's default); `offline-build`
 * is the shipped profile, `--policy $CORDON_SRC/policy.d/offline-build
 * --workspace W`, for the cases marked as builds. A separate test proves the
 * same setting still refuses: a write to a canary outside the workspace
 * (through the shim, and by raw system call, which only the kernel layer
 * sees) fails, and so does a chmod after the program replaced the policy
 * descriptor; the canary is intact, while the same script run bare does
 * change its own canary.
 *
 * Both runs write stdout and stderr to files outside the workspace, opened
 * for appending, as `cordon run ... >> build.log 2>&1` would.
 *
 * Each test runs in its own process with its own directories, removed
 * afterwards:
 *
 *   $B/                 mkdtemp("/dev/shm/cordon-compat-XXXXXX"): never a write root
 *     policy            write $J, net none, on-unsupported warn
 *     tmp/              cordon's TMPDIR (offline-build makes its private TMPDIR here)
 *     bare.out/.err     the bare run's stdout and stderr
 *     jail.out/.err     cordon's (and the script's) stdout and stderr
 *     outside/canary    the refusal test's canary (cordon)
 *     outside-bare/canary  the same for the bare control run
 *   $W/                 mkdtemp("/dev/shm/cordon-compat-ws-XXXXXX"): the bare workspace
 *     .tmp/             the scripts' TMPDIR in both runs (plain variant)
 *   $J/                 mkdtemp(same template): cordon's workspace, the same length as $W
 *     .tmp/
 *
 * The workspaces sit directly in /dev/shm, so `mkdir -p $WS/a/b/c` walks
 * through parents (/dev, /dev/shm) outside every write root. Scripts get
 * WS (their workspace), TMPDIR, LC_ALL=C and TZ=UTC; make's MAKEFLAGS and
 * friends from `make check` are removed so an inner `make -j2` does not
 * look for the outer jobserver.
 *
 * Environment (set by `make check`): CORDON_BUILD (build directory,
 * relative to CORDON_SRC), CORDON_SRC (the repository), CORDON_PRELOAD_FIRST
 * (SANITIZE=1: the shim is instrumented; every run then gets
 * ASAN_OPTIONS=verify_asan_link_order=0:detect_leaks=0, as in test_run.c).
 */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "fixture.h"  /* fmt() */

#ifndef SYS_landlock_create_ruleset
#define SYS_landlock_create_ruleset 444
#endif

#define GUARD_SECONDS 40   /* a run still going after this is killed: a failure */
#define PLACEHOLDER "@WS@"
#define EXIT_CORDON 125

extern char **environ;

/* --- the cases ------------------------------------------------------------------ */

/*
 * One row a case. @probe runs bare before anything else: when it fails the
 * case is skipped with @why. @marker must appear in the bare run's stdout.
 * @build: also run under the shipped offline-build profile. @asan_unsafe:
 * skipped when the shim is ASan-instrumented (SANITIZE=1): cordon preloads
 * it ahead of the ASan runtime, which gcc's cc1 and node do not survive
 * (a call through an interceptor not yet set up, pc 0, before main);
 * nothing the shim decides is involved. Scripts run
 * with `set -eu` prepended, in their workspace, and must leave only
 * reproducible content behind (fixed names for mktemp's results, tar and
 * gzip without timestamps, git with fixed identity and dates).
 */
struct compat_case {
	const char *name;
	const char *probe;
	const char *why;
	const char *marker;
	bool build;
	bool asan_unsafe;
	const char *script;
};

static const struct compat_case cases[] = {
	{
		"coreutils",
		"for p in cp mv rm ln install sed mkdir touch chmod truncate mktemp dd stat; do "
		"command -v $p; done",
		"a coreutils program is missing",
		"coreutils-ok",
		false,
		false,
		"mkdir -p src/sub/deep\n"
		"printf 'one\\ntwo\\n' > src/f\n"
		"printf '#!/bin/sh\\necho run\\n' > src/x\n"
		"chmod 640 src/f; chmod 755 src/x; chmod 2750 src/sub; chmod 1777 src/sub/deep\n"
		"ln -s f src/link; ln -s sub/deep src/dlink; ln -s /nonexistent src/dangling\n"
		"ln src/x src/hard\n"
		"cp -a src copy\n"
		"mv copy moved\n"
		"mv moved/f moved/f.renamed\n"
		"cp -a src doomed; rm -rf doomed\n"
		"ln -s moved/x runme; ./runme\n"
		"ln -sf src/f runme\n"
		"install -D -m 0751 src/x bin/tool; install -d -m 0700 private\n"
		"sed -i 's/one/ONE/' src/f\n"
		"sed -i.bak 's/two/TWO/' moved/f.renamed\n"
		"mkdir -p \"$WS/a/b/c\"; mkdir -p \"$WS/a/b/c\"; mkdir -p a/b/c/d\n"
		"touch t1; touch -d @0 t2; touch t1\n"
		"chmod 600 t1; chmod u+x,g+w t2; chmod -R go-rwx a\n"
		"[ \"$(id -u)\" != 0 ] || chown 1:2 t2\n"
		"truncate -s 1000 sparse; truncate -s 3 moved/f.renamed\n"
		"f=$(mktemp -p .); echo tmpfile > \"$f\"; mv \"$f\" from-mktemp\n"
		"d=$(mktemp -d -p .); touch \"$d/in\"; mv \"$d\" from-mktemp-d\n"
		"dd if=/dev/zero of=zero bs=1k count=4 status=none\n"
		"printf abc | dd of=patched bs=1 seek=3 conv=notrunc status=none\n"
		"rm src/dangling moved/dangling\n"
		"cat src/f moved/f.renamed\n"
		"find . | sort\n"
		"stat -c '%n %A %h %s' t1 t2 sparse zero patched bin/tool src/sub src/sub/deep\n"
		"echo coreutils-ok\n",
	},
	{
		"tar_gzip",
		"command -v tar && command -v gzip && command -v gunzip",
		"tar or gzip is missing",
		"tar-ok",
		true,
		false,
		"mkdir -p pkg/bin pkg/share/doc pkg/empty\n"
		"printf '#!/bin/sh\\necho tool\\n' > pkg/bin/tool; chmod 4750 pkg/bin/tool\n"
		"printf 'doc\\n' > pkg/share/doc/README; chmod 0600 pkg/share/doc/README\n"
		"chmod 0700 pkg/empty\n"
		"ln -s bin/tool pkg/link; ln pkg/bin/tool pkg/hard\n"
		"seq 1 20000 > pkg/share/numbers\n"
		"R='--sort=name --mtime=@0 --owner=0 --group=0 --numeric-owner --format=gnu'\n"
		"tar $R -cf pkg.tar pkg\n"
		"tar tvf pkg.tar\n"
		"mkdir out; tar -xpf pkg.tar -C out\n"
		"tar $R -cf - pkg | gzip -n -9 > pkg.tgz\n"
		"mkdir out2; tar -xzpf pkg.tgz -C out2\n"
		"gzip -n -k pkg.tar; mv pkg.tar.gz copy.tar.gz; gunzip copy.tar.gz\n"
		"cmp pkg.tar copy.tar\n"
		"gzip -n pkg/share/numbers; gunzip pkg/share/numbers.gz\n"
		"wc -l < pkg/share/numbers\n"
		"diff -r pkg out/pkg; diff -r pkg out2/pkg\n"
		"stat -c '%n %a %h' out/pkg/bin/tool out/pkg/empty out/pkg/share/doc/README\n"
		"echo tar-ok\n",
	},
	{
		"git",
		"command -v git",
		"git is missing",
		"git-ok",
		true,
		false,
		"export GIT_AUTHOR_NAME=Compat GIT_AUTHOR_EMAIL=compat@example.org\n"
		"export GIT_COMMITTER_NAME=Compat GIT_COMMITTER_EMAIL=compat@example.org\n"
		"export GIT_AUTHOR_DATE='2001-02-03T04:05:06Z'\n"
		"export GIT_COMMITTER_DATE='2001-02-03T04:05:06Z'\n"
		"export GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null\n"
		"git init -q -b main repo\n"
		"cd repo\n"
		"printf 'a\\n' > a; mkdir d; printf 'b\\n' > d/b; chmod 755 d/b\n"
		"git add .\n"
		"git commit -q -m one\n"
		"git branch side\n"
		"git checkout -q -b feature\n"
		"printf 'c\\n' > c; git add c; git commit -q -m two\n"
		"git tag v1\n"
		"git log --oneline\n"
		"git worktree add -q ../wt side\n"
		"cd ../wt\n"
		"printf 'w\\n' > w; git add w; git commit -q -m three\n"
		"git log --oneline --all\n"
		"cd ../repo\n"
		"git worktree list --porcelain\n"
		"git status --short\n"
		"git checkout -q main; git merge -q --no-edit feature; git log --oneline\n"
		"echo git-ok\n",
	},
	{
		"python_sqlite_wal",
		"test -x /usr/bin/python3 && "
		"/usr/bin/python3 -c 'import sqlite3, tempfile, shutil'",
		"no /usr/bin/python3 with sqlite3",
		"python-ok",
		true,
		false,
		"mkdir pkg\n"
		"printf 'def answer():\\n    return 42\\n' > pkg/mod.py\n"
		"SOURCE_DATE_EPOCH=0 /usr/bin/python3 -m py_compile pkg/mod.py\n"
		"/usr/bin/python3 - <<'EOF'\n"
		"import os, shutil, sqlite3, sys, tempfile, pathlib\n"
		"sys.path.insert(0, 'pkg')\n"
		"import mod\n"
		"print('answer', mod.answer())\n"
		"pathlib.Path('data/nested').mkdir(parents=True)\n"
		"with open('data/nested/hello.txt', 'w') as f:\n"
		"    f.write('hello\\n')\n"
		"with tempfile.NamedTemporaryFile('w', dir='data', delete=False) as t:\n"
		"    t.write('atomic\\n')\n"
		"os.replace(t.name, 'data/atomic.txt')\n"
		"os.chmod('data/atomic.txt', 0o640)\n"
		"os.symlink('nested/hello.txt', 'data/link')\n"
		"shutil.copytree('data', 'copy', symlinks=True)\n"
		"shutil.rmtree('copy/nested')\n"
		"os.rename('copy', 'renamed')\n"
		"db = sqlite3.connect('app.db')\n"
		"print('journal', db.execute('pragma journal_mode=wal').fetchone()[0])\n"
		"db.execute('create table t (k integer primary key, v text)')\n"
		"with db:\n"
		"    db.executemany('insert into t (v) values (?)',\n"
		"                   [('row%d' % i,) for i in range(500)])\n"
		"print('wal exists', os.path.exists('app.db-wal'), os.path.exists('app.db-shm'))\n"
		"print('select', db.execute('select count(*), max(k), min(v) from t').fetchone())\n"
		"print('checkpoint', db.execute('pragma wal_checkpoint(truncate)').fetchone())\n"
		"print('wal size', os.path.getsize('app.db-wal'))\n"
		"db2 = sqlite3.connect('app.db')\n"
		"print('second reader', db2.execute('select v from t where k = 250').fetchone())\n"
		"db2.close()\n"
		"db.close()\n"
		"print('after close', sorted(os.listdir('.')))\n"
		"EOF\n"
		"echo python-ok\n",
	},
	{
		"gcc_make",
		"command -v gcc && command -v make && command -v ar",
		"gcc, make or ar is missing",
		"answer 42",
		true,
		true,
		"mkdir -p src include\n"
		"cat > include/calc.h <<'EOF'\n"
		"int add(int a, int b);\n"
		"int twice(int a);\n"
		"EOF\n"
		"cat > src/main.c <<'EOF'\n"
		"#include <stdio.h>\n"
		"#include \"calc.h\"\n"
		"int main(void) { printf(\"answer %d\\n\", add(twice(20), 2)); return 0; }\n"
		"EOF\n"
		"cat > src/add.c <<'EOF'\n"
		"#include \"calc.h\"\n"
		"int add(int a, int b) { return a + b; }\n"
		"EOF\n"
		"cat > src/twice.c <<'EOF'\n"
		"#include \"calc.h\"\n"
		"int twice(int a) { return 2 * a; }\n"
		"EOF\n"
		"cat > Makefile <<'EOF'\n"
		"CFLAGS = -O2 -Wall -Werror -Iinclude\n"
		"OBJS = obj/main.o obj/add.o obj/twice.o\n"
		"app: obj/main.o obj/libcalc.a\n"
		"\t$(CC) -o $@ $^\n"
		"obj/libcalc.a: obj/add.o obj/twice.o\n"
		"\t$(AR) rcs $@ $^\n"
		"obj/%.o: src/%.c include/calc.h | obj\n"
		"\t$(CC) $(CFLAGS) -MMD -c -o $@ $<\n"
		"obj:\n"
		"\tmkdir -p $@\n"
		"clean:\n"
		"\trm -rf obj app\n"
		".PHONY: clean\n"
		"EOF\n"
		"make -s -j2\n"
		"./app\n"
		"make -s -j2 clean\n"
		"make -j2 >/dev/null\n"
		"./app\n"
		"make -q app && echo up-to-date\n",
	},
	{
		"fifo",
		"command -v mkfifo && command -v cat",
		"mkfifo is missing",
		"fifo-ok",
		false,
		false,
		"mkfifo -m 0640 pipe\n"
		"cat pipe > received &\n"
		"printf 'line1\\nline2\\n' > pipe\n"
		"wait\n"
		"cat received\n"
		"mkfifo back\n"
		"(read l < back; echo \"got $l\" > answer) &\n"
		"echo hello > back\n"
		"wait\n"
		"cat answer\n"
		"echo fifo-ok\n",
	},
	{
		"terminal",
		"command -v script && command -v tput && command -v stty",
		"script (util-linux), tput or stty is missing",
		"term-ok",
		false,
		false,
		"export TERM=xterm\n"
		"script -qc 'tput cols; tput lines; stty size; tty >/dev/null && echo is-a-tty' \\\n"
		"    /dev/null </dev/null\n"
		"tput clear | od -An -c\n"
		"script -qec 'exit 3' /dev/null </dev/null || echo \"inner status $?\"\n"
		/* a typescript in the workspace: dated, so only its lines are kept */
		"script -qc 'tput cols' typescript </dev/null >/dev/null\n"
		"grep -c '^80' typescript; grep -c '^Script done' typescript\n"
		"grep -v '^Script ' typescript | tr -d '\\r' > session.txt; rm typescript\n"
		"echo term-ok\n",
	},
	{
		"fullscreen",
		"command -v script && command -v vim && command -v less",
		"script (util-linux), vim or less is missing",
		"fullscreen-ok",
		false,
		false,
		"export TERM=xterm\n"
		"printf 'first\\n' > note.txt\n"
		"script -qc \"vim -N -u NONE -i NONE -c 'normal Goedited by vim' -c wq note.txt\""
		" /dev/null </dev/null >/dev/null\n"
		"cat note.txt\n"
		"printf q | script -qc 'less note.txt' /dev/null >/dev/null\n"
		"echo \"less $?\"\n"
		"echo fullscreen-ok\n",
	},
	/* Programs that start others after closing or reusing their
	 * descriptors above 2: Python's subprocess (close_fds=True is its
	 * default, so pip, venv's ensurepip, meson, pytest...), Node's
	 * child_process, and the shell idiom `exec 3>log`. */
	{
		"python_subprocess",
		"test -x /usr/bin/python3",
		"no /usr/bin/python3",
		"subprocess-ok",
		true,
		false,
		"/usr/bin/python3 - <<'EOF'\n"
		"import subprocess\n"
		"subprocess.run(['sh', '-c', 'echo default > close-fds-default.txt'], check=True)\n"
		"subprocess.run(['sh', '-c', 'echo kept > close-fds-false.txt'], close_fds=False,\n"
		"               check=True)\n"
		"out = subprocess.check_output(['cat', 'close-fds-default.txt', 'close-fds-false.txt'])\n"
		"print(out.decode(), end='')\n"
		"EOF\n"
		"echo subprocess-ok\n",
	},
	{
		"node_child_process",
		"command -v node",
		"node is missing",
		"node-ok",
		false,
		true,
		"node -e '\n"
		"const cp = require(\"child_process\"), fs = require(\"fs\");\n"
		"cp.execFileSync(\"sh\", [\"-c\", \"echo from-child > child.txt\"]);\n"
		"fs.mkdirSync(\"out/a\", { recursive: true });\n"
		"fs.writeFileSync(\"out/a/f\", fs.readFileSync(\"child.txt\"));\n"
		"process.stdout.write(fs.readFileSync(\"out/a/f\"));\n"
		"'\n"
		"echo node-ok\n",
	},
	{
		"shell_fd3",
		"true",
		"",
		"fd3-ok",
		false,
		false,
		"exec 3>build.log\n"
		"echo 'step 1' >&3\n"
		"sh -c 'echo child > child.txt; echo \"step 2\" >&3'\n"
		"exec 3>&-\n"
		"sh -c 'echo after-close > after.txt'\n"
		"cat build.log child.txt after.txt\n"
		"echo fd3-ok\n",
	},
	/* A script writing to its own stdout and stderr by name, as `tee
	 * /dev/stderr` and `>> /dev/stdout` do; here both are files outside
	 * the workspace ($B/jail.out, .err), as with `cordon run ... >> log`. */
	{
		"stdio_by_name",
		"command -v tee",
		"tee is missing",
		"stdio-ok",
		false,
		false,
		"echo one\n"
		"echo two >> /dev/stdout\n"
		"echo to-stderr >> /dev/stderr\n"
		"echo three | tee -a /dev/stdout > /dev/null\n"
		"echo stdio-ok\n",
	},
	/* A tree deeper than PATH_MAX (from the root; every path the script
	 * names is shorter), removed by rm -rf, which walks it by descriptors. */
	{
		"deep_tree",
		"command -v rm && command -v find",
		"rm or find is missing",
		"deep-ok",
		false,
		false,
		"seg=$(printf '%0100d' 0); p=$seg\n"
		"for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14; do p=$p/$seg; done\n"
		"mkdir -p a/$p b/$p c/$p; echo leaf > c/$p/leaf\n"
		"mv c b/$p/; mv b a/$p/\n"
		"find a -name leaf | wc -c\n"
		"rm -rf a\n"
		"ls -A\n"
		"echo deep-ok\n",
	},
	/* Edge: a relative path through ".." from a working directory that was
	 * removed (the kernel still walks ".." from it). */
	{
		"cwd_removed",
		"true",
		"",
		"cwd-ok",
		false,
		false,
		"mkdir gone; cd gone; rmdir ../gone\n"
		"echo written > ../from-removed-cwd\n"
		"cd \"$WS\"; cat from-removed-cwd\n"
		"echo cwd-ok\n",
	},
};

#define N_CASES (sizeof(cases) / sizeof(cases[0]))

enum variant {
	V_PLAIN,          /* $B/policy */
	V_OFFLINE_BUILD,  /* the shipped offline-build profile */
};

static const char *const variant_names[] = { "plain", "offline-build" };

/* Criterion may hand a parameter to a test in another address space:
 * parameters hold indices, never pointers. */
struct param {
	size_t c;
	int v;
};

/* --- fixture ---------------------------------------------------------------------- */

static char B[128];                 /* the test's own directory, outside every root */
static char W[128], J[128];         /* the bare and the jailed workspace */
static char cordon_bin[PATH_MAX];   /* build/cordon */
static char src_dir[PATH_MAX];      /* the repository */

static void put_file(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);

	cr_assert_geq(fd, 0, "create %s: %s", path, strerror(errno));
	cr_assert_eq(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
}

/* All of @name (relative to @at, or absolute), NUL-terminated,
 * malloc'd; NULL when it cannot be read. */
static char *slurp_at(int at, const char *name, size_t *len)
{
	int fd = openat(at, name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
	size_t cap = 4096, n = 0;
	char *b;
	ssize_t r;

	if (fd < 0)
		return NULL;
	b = malloc(cap);
	cr_assert_not_null(b);
	while ((r = read(fd, b + n, cap - n - 1)) > 0) {
		n += (size_t)r;
		if (cap - n - 1 == 0) {
			char *nb = realloc(b, cap * 2);
			cr_assert_not_null(nb);
			b = nb;
			cap *= 2;
		}
	}
	close(fd);
	b[n] = '\0';
	if (len)
		*len = n;
	return b;
}

static char *slurp(const char *path, size_t *len)
{
	return slurp_at(AT_FDCWD, path, len);
}

static void make_dir(const char *path, mode_t mode)
{
	cr_assert_eq(mkdir(path, mode), 0, "mkdir %s: %s", path, strerror(errno));
}

static void temp_dir(char out[128], const char *tmpl)
{
	char t[128], canonical[PATH_MAX];

	snprintf(t, sizeof(t), "%s", tmpl);
	cr_assert_not_null(mkdtemp(t), "mkdtemp %s: %s", tmpl, strerror(errno));
	cr_assert_not_null(realpath(t, canonical));
	cr_assert_lt(strlen(canonical), 128);
	strcpy(out, canonical);
}

static void setup(void)
{
	const char *build = getenv("CORDON_BUILD"), *src = getenv("CORDON_SRC");
	char rel[2 * PATH_MAX + 16];

	cr_assert_not_null(realpath(src && *src ? src : ".", src_dir), "CORDON_SRC: %s",
			   strerror(errno));
	snprintf(rel, sizeof(rel), "%s/%s/cordon", src_dir, build && *build ? build : "build");
	cr_assert_not_null(realpath(rel, cordon_bin), "no %s (make it first): %s", rel,
			   strerror(errno));
	temp_dir(B, "/dev/shm/cordon-compat-XXXXXX");
	temp_dir(W, "/dev/shm/cordon-compat-ws-XXXXXX");
	temp_dir(J, "/dev/shm/cordon-compat-ws-XXXXXX");
	cr_assert_eq(strlen(W), strlen(J));
	make_dir(fmt("%s/tmp", B), 0700);
	make_dir(fmt("%s/.tmp", W), 0700);
	make_dir(fmt("%s/.tmp", J), 0700);
	/* One write root, no network; on-unsupported warn so that an older
	 * kernel still runs what it can; every other setting the default. */
	put_file(fmt("%s/policy", B), fmt("# test_compat.c\n"
					  "write %s\n"
					  "net none\n"
					  "on-unsupported warn\n",
					  J));
}

/* Remove @name beneath @at, whatever its depth (by descriptors: a
 * case may leave a tree deeper than PATH_MAX, which nftw cannot remove). */
static void remove_at(int at, const char *name)
{
	struct stat st;

	if (fstatat(at, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return;
	if (S_ISDIR(st.st_mode)) {
		int fd = openat(at, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
		if (d) {
			for (struct dirent *e; (e = readdir(d));)
				if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
					remove_at(dirfd(d), e->d_name);
			closedir(d);
		} else if (fd >= 0) {
			close(fd);
		}
		unlinkat(at, name, AT_REMOVEDIR);
		return;
	}
	unlinkat(at, name, 0);
}

static void remove_tree(char dir[128], const char *prefix)
{
	if (strncmp(dir, prefix, strlen(prefix)) == 0)
		remove_at(AT_FDCWD, dir);
	dir[0] = '\0';
}

static void teardown(void)
{
	remove_tree(B, "/dev/shm/cordon-compat-");
	remove_tree(W, "/dev/shm/cordon-compat-ws-");
	remove_tree(J, "/dev/shm/cordon-compat-ws-");
}

/* Skip with a reason. Criterion runs no .fini after a skip: clean up first. */
#define SKIP(...)                                                                       \
	do {                                                                            \
		teardown();                                                             \
		cr_skip_test(__VA_ARGS__);                                              \
	} while (0)

/* --- running ---------------------------------------------------------------------- */

struct run {
	int raw;          /* wait status */
	char *out, *err;  /* malloc'd */
};

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static bool dropped(const char *var)
{
	static const char *const drop[] = { "MAKEFLAGS=", "MFLAGS=", "MAKELEVEL=", "MAKEOVERRIDES=",
					    "MAKE_TERMOUT=", "MAKE_TERMERR=", "TMPDIR=", "WS=",
					    "LC_ALL=", "TZ=", "PWD=", "OLDPWD=" };

	for (size_t i = 0; i < sizeof(drop) / sizeof(drop[0]); i++)
		if (strncmp(var, drop[i], strlen(drop[i])) == 0)
			return true;
	return false;
}

/*
 * Run @argv in @cwd, stdin /dev/null, stdout and stderr to $B/@tag.out and
 * .err, no other descriptor, with our environment minus make's variables, plus WS=@ws,
 * TMPDIR=@tmpdir, PWD, LC_ALL=C and TZ=UTC. A run still going after
 * GUARD_SECONDS is killed with its process group, and fails the test.
 */
static struct run run_in(const char *tag, const char *cwd, const char *ws, const char *tmpdir,
			 const char *const *argv)
{
	const char *envp[1024], *first = getenv("CORDON_PRELOAD_FIRST");
	bool asan = first && *first;
	char ws_var[PATH_MAX + 8], tmp_var[PATH_MAX + 8], pwd_var[PATH_MAX + 8];
	size_t e = 0;
	struct run r = { 0, NULL, NULL };
	int st = 0;
	pid_t pid, w;
	double start;

	for (char **v = environ; *v && e < 1000; v++)
		if (!dropped(*v) && !(asan && strncmp(*v, "ASAN_OPTIONS=", 13) == 0))
			envp[e++] = *v;
	snprintf(ws_var, sizeof(ws_var), "WS=%s", ws);
	snprintf(tmp_var, sizeof(tmp_var), "TMPDIR=%s", tmpdir);
	snprintf(pwd_var, sizeof(pwd_var), "PWD=%s", cwd);
	envp[e++] = ws_var;
	envp[e++] = tmp_var;
	envp[e++] = pwd_var;
	envp[e++] = "LC_ALL=C";
	envp[e++] = "TZ=UTC";
	if (asan)
		envp[e++] = "ASAN_OPTIONS=verify_asan_link_order=0:detect_leaks=0";
	envp[e] = NULL;

	/* Appending, as `>> build.log` would: a script that reopens its
	 * own stdout by name (>> /dev/stdout) then adds to it in order. */
	int out = open(fmt("%s/%s.out", B, tag),
		       O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0644);
	int err = open(fmt("%s/%s.err", B, tag),
		       O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0644);
	cr_assert(out >= 0 && err >= 0);
	fflush(NULL);
	start = now();
	pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		int null = open("/dev/null", O_RDONLY);
		if (setpgid(0, 0) < 0 || null < 0 || dup2(null, 0) < 0 || dup2(out, 1) < 0 ||
		    dup2(err, 2) < 0 || chdir(cwd) < 0)
			_exit(120);
		/* Both runs start with 0, 1 and 2 only, whatever the test
		 * runner left open. */
		for (int fd = 3; fd < 1024; fd++)
			close(fd);
		execve(argv[0], (char *const *)argv, (char *const *)envp);
		_exit(121);
	}
	close(out);
	close(err);
	while ((w = waitpid(pid, &st, WNOHANG)) == 0 && now() - start < GUARD_SECONDS)
		usleep(5 * 1000);
	if (w == 0) {
		kill(-pid, SIGKILL);
		waitpid(pid, &st, 0);
	}
	r.raw = st;
	r.out = slurp(fmt("%s/%s.out", B, tag), NULL);
	r.err = slurp(fmt("%s/%s.err", B, tag), NULL);
	cr_assert(r.out && r.err);
	cr_assert_neq(w, 0, "%s run still going after %d s, killed\nstdout:\n%s\nstderr:\n%s", tag,
		      GUARD_SECONDS, r.out, r.err);
	/* Whatever the script left running in the background goes too. */
	kill(-pid, SIGKILL);
	return r;
}

static void run_free(struct run *r)
{
	free(r->out);
	free(r->err);
}

static const char *status_text(int raw)
{
	if (WIFEXITED(raw))
		return fmt("exit %d", WEXITSTATUS(raw));
	if (WIFSIGNALED(raw))
		return fmt("signal %d", WTERMSIG(raw));
	return fmt("wait status %#x", raw);
}

/* The script as run: `set -eu`, then the case's lines. */
static const char *full_script(const char *script)
{
	static char buf[1 << 14];

	cr_assert_lt(strlen(script) + 16, sizeof(buf));
	snprintf(buf, sizeof(buf), "set -eu\n%s", script);
	return buf;
}

static struct run run_bare(const char *ws, const char *script)
{
	return run_in("bare", ws, ws, fmt("%s/.tmp", ws),
		      (const char *const[]){ "/bin/sh", "-c", full_script(script), NULL });
}

/* cordon run under @v in @ws. plain: the scripts' TMPDIR is $ws/.tmp as in
 * the bare run; offline-build: cordon's TMPDIR is $B/tmp and the script gets
 * the private TMPDIR cordon makes there. */
static struct run run_jailed(enum variant v, const char *ws, const char *script)
{
	const char *s = full_script(script);

	switch (v) {
	case V_PLAIN:
		return run_in("jail", ws, ws, fmt("%s/.tmp", ws),
			      (const char *const[]){ cordon_bin, "run", "--policy",
						     fmt("%s/policy", B), "--", "/bin/sh", "-c", s,
						     NULL });
	case V_OFFLINE_BUILD:
		break;
	}
	return run_in("jail", ws, ws, fmt("%s/tmp", B),
		      (const char *const[]){ cordon_bin, "run", "--policy",
					     fmt("%s/policy.d/offline-build", src_dir), "--workspace",
					     ws, "--", "/bin/sh", "-c", s, NULL });
}

/* The shipped profile says on-unsupported error: on a kernel that cannot
 * enforce it cordon refuses to run, and the case is skipped with cordon's
 * reason, not passed. */
static void skip_if_unsupported(struct run *r)
{
	if (WIFEXITED(r->raw) && WEXITSTATUS(r->raw) == EXIT_CORDON &&
	    strstr(r->err, "no kernel layer here enforces")) {
		char why[512];
		snprintf(why, sizeof(why), "cordon cannot enforce the profile here: %s", r->err);
		run_free(r);
		SKIP("%s", why);
	}
}

/* --- comparing ---------------------------------------------------------------------- */

struct buf {
	char *s;
	size_t n, cap;
};

__attribute__((format(printf, 2, 3))) static void bprintf(struct buf *b, const char *f, ...)
{
	va_list ap;
	int need;

	va_start(ap, f);
	need = vsnprintf(NULL, 0, f, ap);
	va_end(ap);
	cr_assert_geq(need, 0);
	if (b->n + (size_t)need + 1 > b->cap) {
		size_t cap = (b->cap ? b->cap : 4096);
		while (cap < b->n + (size_t)need + 1)
			cap *= 2;
		char *s = realloc(b->s, cap);
		cr_assert_not_null(s);
		b->s = s;
		b->cap = cap;
	}
	va_start(ap, f);
	vsnprintf(b->s + b->n, b->cap - b->n, f, ap);
	va_end(ap);
	b->n += (size_t)need;
}

/* @s (@len bytes, NULs allowed) with every occurrence of @ws replaced by
 * PLACEHOLDER: malloc'd, NUL-terminated, its length in *@outlen. */
static char *normalize(const char *s, size_t len, const char *ws, size_t *outlen)
{
	size_t wl = strlen(ws), hits = 0, n = 0;
	const char *p = s, *end = s + len, *hit;
	char *r;

	for (const char *q = s; (hit = memmem(q, (size_t)(end - q), ws, wl)); q = hit + wl)
		hits++;
	r = malloc(len - hits * wl + hits * (sizeof(PLACEHOLDER) - 1) + 1);
	cr_assert_not_null(r);
	while ((hit = memmem(p, (size_t)(end - p), ws, wl))) {
		memcpy(r + n, p, (size_t)(hit - p));
		n += (size_t)(hit - p);
		memcpy(r + n, PLACEHOLDER, sizeof(PLACEHOLDER) - 1);
		n += sizeof(PLACEHOLDER) - 1;
		p = hit + wl;
	}
	memcpy(r + n, p, (size_t)(end - p));
	n += (size_t)(end - p);
	r[n] = '\0';
	if (outlen)
		*outlen = n;
	return r;
}

/* 64-bit FNV-1a. */
static uint64_t fnv1a(const char *p, size_t n)
{
	uint64_t h = 0xcbf29ce484222325ULL;

	for (size_t i = 0; i < n; i++) {
		h ^= (unsigned char)p[i];
		h *= 0x100000001b3ULL;
	}
	return h;
}

/*
 * Files whose content legitimately differs between two runs of the same
 * script: git's index caches stat data (inode, device, times). They are
 * listed, but without size or hash.
 */
static const char *const content_differs[] = {
	"*.git/index",
	"*.git/worktrees/*/index",
};

static bool ignore_content(const char *rel)
{
	for (size_t i = 0; i < sizeof(content_differs) / sizeof(content_differs[0]); i++)
		if (fnmatch(content_differs[i], rel, 0) == 0)
			return true;
	return false;
}

struct name_list {
	char **v;
	size_t n, cap;
};

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/*
 * One line per entry, @name beneath @at shown as @rel ("." is the
 * workspace itself): "REL TYPE MODE UID:GID [nlink N size S fnv H |
 * -> TARGET]". By descriptors, so a tree deeper than PATH_MAX is listed
 * whole.
 */
static void list_tree(struct buf *b, int at, const char *name, const char *rel,
		      const char *ws)
{
	struct stat st;

	cr_assert_eq(fstatat(at, name, &st, AT_SYMLINK_NOFOLLOW), 0, "lstat %s: %s", rel,
		     strerror(errno));
	bprintf(b, "%s %c %04o %u:%u", rel,
		S_ISDIR(st.st_mode)    ? 'd'
		: S_ISREG(st.st_mode)  ? 'f'
		: S_ISLNK(st.st_mode)  ? 'l'
		: S_ISFIFO(st.st_mode) ? 'p'
		: S_ISSOCK(st.st_mode) ? 's'
				       : '?',
		(unsigned)(st.st_mode & 07777), (unsigned)st.st_uid, (unsigned)st.st_gid);
	if (S_ISLNK(st.st_mode)) {
		char target[PATH_MAX];
		ssize_t n = readlinkat(at, name, target, sizeof(target) - 1);
		cr_assert_geq(n, 0, "readlink %s: %s", rel, strerror(errno));
		char *t = normalize(target, (size_t)n, ws, NULL);
		bprintf(b, " -> %s\n", t);
		free(t);
		return;
	}
	if (!S_ISDIR(st.st_mode))
		bprintf(b, " nlink %lu", (unsigned long)st.st_nlink);
	if (S_ISREG(st.st_mode)) {
		if (ignore_content(rel)) {
			bprintf(b, " (content not compared)\n");
			return;
		}
		size_t len, nlen;
		char *c = slurp_at(at, name, &len);
		cr_assert_not_null(c, "read %s: %s", rel, strerror(errno));
		char *nc = normalize(c, len, ws, &nlen);
		bprintf(b, " size %zu fnv %016llx\n", nlen, (unsigned long long)fnv1a(nc, nlen));
		free(nc);
		free(c);
		return;
	}
	bprintf(b, "\n");
	if (!S_ISDIR(st.st_mode))
		return;

	int fd = openat(at, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	cr_assert_geq(fd, 0, "open %s: %s", rel, strerror(errno));
	DIR *d = fdopendir(fd);
	cr_assert_not_null(d);
	struct name_list l = { NULL, 0, 0 };
	for (struct dirent *e; (e = readdir(d));) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		if (l.n == l.cap) {
			l.cap = l.cap ? 2 * l.cap : 16;
			char **v = realloc(l.v, l.cap * sizeof(*v));
			cr_assert_not_null(v);
			l.v = v;
		}
		l.v[l.n] = strdup(e->d_name);
		cr_assert_not_null(l.v[l.n++]);
	}
	if (l.n)
		qsort(l.v, l.n, sizeof(*l.v), by_name);
	for (size_t i = 0; i < l.n; i++) {
		char *sub;
		cr_assert_geq(strcmp(rel, ".") == 0 ? asprintf(&sub, "%s", l.v[i])
						    : asprintf(&sub, "%s/%s", rel, l.v[i]),
			      0);
		list_tree(b, dirfd(d), l.v[i], sub, ws);
		free(sub);
		free(l.v[i]);
	}
	free(l.v);
	closedir(d);
}

/* The first line where @a and @b differ, for the failure message. */
static const char *first_difference(const char *a, const char *b)
{
	static char msg[2048];
	const char *la = a, *lb = b;
	size_t line = 1;

	while (*a && *a == *b) {
		if (*a == '\n') {
			line++;
			la = a + 1;
			lb = b + 1;
		}
		a++;
		b++;
	}
	snprintf(msg, sizeof(msg), "line %zu: bare '%.*s', cordon '%.*s'", line,
		 (int)strcspn(la, "\n"), la, (int)strcspn(lb, "\n"), lb);
	return msg;
}

/* --- the compatibility cases --------------------------------------------------------- */

ParameterizedTestParameters(compat, program_inside_workspace_same_as_bare)
{
	static struct param params[N_CASES * 2];
	size_t n = 0;

	for (size_t c = 0; c < N_CASES; c++) {
		params[n++] = (struct param){ c, V_PLAIN };
		if (cases[c].build)
			params[n++] = (struct param){ c, V_OFFLINE_BUILD };
	}
	return cr_make_param_array(struct param, params, n);
}

ParameterizedTest(struct param *p, compat, program_inside_workspace_same_as_bare, .init = setup,
		  .fini = teardown, .timeout = 120)
{
	const struct compat_case *k = &cases[p->c];
	const char *v = variant_names[p->v];

	cr_log_info("case %s, variant %s", k->name, v);
	const char *first = getenv("CORDON_PRELOAD_FIRST");
	if (k->asan_unsafe && first && *first)
		SKIP("%s: not under SANITIZE=1 (the instrumented shim precedes the ASan "
		     "runtime, and this program crashes before main)",
		     k->name);

	/* The probe: is the program there at all? */
	struct run probe = run_bare(W, k->probe);
	if (!WIFEXITED(probe.raw) || WEXITSTATUS(probe.raw) != 0) {
		run_free(&probe);
		SKIP("%s: %s", k->name, k->why);
	}
	run_free(&probe);

	struct run bare = run_bare(W, k->script);
	struct run jail = run_jailed((enum variant)p->v, J, k->script);
	if (p->v == V_OFFLINE_BUILD)
		skip_if_unsupported(&jail);

	/* The control: the case works bare, and did what it says. */
	cr_assert(WIFEXITED(bare.raw) && WEXITSTATUS(bare.raw) == 0,
		  "[%s] the case fails without cordon (%s): fix the case\nstdout:\n%s\nstderr:\n%s",
		  k->name, status_text(bare.raw), bare.out, bare.err);
	cr_assert_not_null(strstr(bare.out, k->marker),
			   "[%s] no '%s' in the bare run's stdout:\n%s", k->name, k->marker,
			   bare.out);

	cr_expect_eq(jail.raw, bare.raw,
		     "[%s %s] cordon: %s, bare: %s\ncordon stdout:\n%s\ncordon stderr:\n%s",
		     k->name, v, status_text(jail.raw), status_text(bare.raw), jail.out, jail.err);
	cr_expect_null(strstr(jail.err, "cordon: deny"),
		       "[%s %s] a refusal inside the workspace:\n%s",
		       k->name, v, jail.err);

	char *bo = normalize(bare.out, strlen(bare.out), W, NULL);
	char *jo = normalize(jail.out, strlen(jail.out), J, NULL);
	cr_expect_str_eq(jo, bo,
			 "[%s %s] stdout differs: %s\nbare:\n%.4000s\ncordon:\n%.4000s\n"
			 "cordon stderr:\n%.4000s",
			 k->name, v, first_difference(bo, jo), bo, jo, jail.err);
	free(bo);
	free(jo);

	struct buf bt = { NULL, 0, 0 }, jt = { NULL, 0, 0 };
	list_tree(&bt, AT_FDCWD, W, ".", W);
	list_tree(&jt, AT_FDCWD, J, ".", J);
	cr_expect_str_eq(jt.s, bt.s,
			 "[%s %s] the workspace trees differ: %s\nbare:\n%.4000s\ncordon:\n%.4000s",
			 k->name, v, first_difference(bt.s, jt.s), bt.s, jt.s);
	free(bt.s);
	free(jt.s);
	run_free(&bare);
	run_free(&jail);
}

/* --- a refusal still happens in the same setting ------------------------------------ */

static int landlock_abi(void)
{
	long abi = syscall(SYS_landlock_create_ruleset, NULL, 0, 1U /* _VERSION */);
	return abi < 0 ? 0 : (int)abi;
}

/*
 * Ways to change something outside the workspace, each given CANARY (an
 * existing file, "canary", mode 0644, a fixed mtime) and OUTSIDE (its
 * directory). @landlock: the shim cannot see it, only Landlock refuses it.
 * @want_out, @want_err: what must show under cordon (the refusal's trace).
 */
static const struct {
	const char *name;
	const char *probe;
	const char *why;
	bool landlock;
	const char *want_out, *want_err;
	const char *script;
} escapes[] = {
	{
		"shell",
		"true",
		"",
		false,
		NULL,
		"cordon: deny create",
		"echo changed > \"$CANARY\" || true\n"
		"echo new > \"$OUTSIDE/new\" || true\n"
		"mkdir \"$OUTSIDE/dir\" || true\n"
		"ln -s x \"$OUTSIDE/sym\" || true\n"
		"rm -f \"$CANARY\" || true\n"
		"echo done\n",
	},
	{
		"raw_syscall",
		"test -x /usr/bin/python3 && /usr/bin/python3 -c 'import ctypes, os'",
		"needs /usr/bin/python3 with ctypes",
		true,
		"openat -1 13",  /* EACCES */
		NULL,
		/* openat(AT_FDCWD, CANARY, O_WRONLY|O_TRUNC) through syscall(2),
		 * which the shim does not wrap. */
		"/usr/bin/python3 - <<'EOF'\n"
		"import ctypes, os\n"
		"nr = {'x86_64': 257, 'aarch64': 56}[os.uname().machine]\n"
		"libc = ctypes.CDLL(None, use_errno=True)\n"
		"path = os.environ['CANARY'].encode()\n"
		"fd = libc.syscall(nr, -100, path, os.O_WRONLY | os.O_TRUNC, 0)\n"
		"if fd >= 0:\n"
		"    os.write(fd, b'changed')\n"
		"    os.close(fd)\n"
		"print('openat', fd, ctypes.get_errno())\n"
		"EOF\n"
		"echo done\n",
	},
	{
		/* Metadata outside the roots is refused by the shim alone
		 * (docs/threat-model.md), from a policy the program "cannot
		 * widen". Here it puts a policy of its own on the descriptor
		 * named by CORDON_POLICY_FD before starting chmod and touch. */
		"forged_policy_fd",
		"true",
		"",
		false,
		NULL,
		"cordon: deny metadata",
		"printf 'write /\\n' > forged.policy\n"
		"fd=${CORDON_POLICY_FD:-3}\n"
		/* bash: dash cannot redirect descriptors above 9 */
		"bash -c \"exec $fd< forged.policy; chmod 600 \\\"\\$CANARY\\\" || true; "
		"touch -d @0 \\\"\\$CANARY\\\" || true\"\n"
		"echo done\n",
	},
};

#define N_ESCAPES (sizeof(escapes) / sizeof(escapes[0]))
#define CANARY_MTIME 1000000000

ParameterizedTestParameters(compat, outside_workspace_change_refused)
{
	static struct param params[N_ESCAPES * 2];
	size_t n = 0;

	for (size_t c = 0; c < N_ESCAPES; c++) {
		params[n++] = (struct param){ c, V_PLAIN };
		params[n++] = (struct param){ c, V_OFFLINE_BUILD };
	}
	return cr_make_param_array(struct param, params, n);
}

/* @dir/canary: "canary", mode 0644, mtime CANARY_MTIME, alone in @dir. */
static void put_canary(const char *dir)
{
	const char *c = fmt("%s/canary", dir);
	struct timespec t[2] = { { CANARY_MTIME, 0 }, { CANARY_MTIME, 0 } };

	make_dir(dir, 0755);
	put_file(c, "canary");
	cr_assert_eq(chmod(c, 0644), 0);
	cr_assert_eq(utimensat(AT_FDCWD, c, t, 0), 0);
}

/* @dir holds exactly its canary, unchanged; else @why says what changed. */
static bool intact(const char *dir, char *why, size_t whylen)
{
	const char *c = fmt("%s/canary", dir);
	char *text = slurp(c, NULL);
	DIR *d = opendir(dir);
	struct stat st;
	size_t n = 0;
	bool ok = text && strcmp(text, "canary") == 0;

	snprintf(why, whylen, "content %s", text ? text : "(missing)");
	free(text);
	if (lstat(c, &st) == 0) {
		ok = ok && (st.st_mode & 07777) == 0644 && st.st_mtime == CANARY_MTIME;
		snprintf(why + strlen(why), whylen - strlen(why), ", mode %04o, mtime %lld",
			 (unsigned)(st.st_mode & 07777), (long long)st.st_mtime);
	}
	cr_assert_not_null(d);
	for (struct dirent *e; (e = readdir(d));)
		n++;
	closedir(d);
	if (n != 3) {
		ok = false;
		snprintf(why + strlen(why), whylen - strlen(why), "; %zu entries, want 1", n - 2);
	}
	return ok;
}

ParameterizedTest(struct param *p, compat, outside_workspace_change_refused, .init = setup,
		  .fini = teardown, .timeout = 60)
{
	const char *v = variant_names[p->v], *name = escapes[p->c].name;
	char script[4096], why[256];

	cr_log_info("escape %s, variant %s", name, v);

	if (escapes[p->c].landlock && landlock_abi() == 0)
		SKIP("%s: no Landlock in this kernel, nothing below the shim refuses it", name);
	struct run probe = run_bare(W, escapes[p->c].probe);
	if (!WIFEXITED(probe.raw) || WEXITSTATUS(probe.raw) != 0) {
		run_free(&probe);
		SKIP("%s: %s", name, escapes[p->c].why);
	}
	run_free(&probe);

	/* The control: bare, the same script changes its own canary. */
	put_canary(fmt("%s/outside-bare", B));
	snprintf(script, sizeof(script),
		 "export CANARY=%s/outside-bare/canary OUTSIDE=%s/outside-bare\n%s", B, B,
		 escapes[p->c].script);
	struct run bare = run_bare(W, script);
	cr_assert(!intact(fmt("%s/outside-bare", B), why, sizeof(why)),
		  "[%s] the script changes nothing even bare: fix the test\nstdout:\n%s\nstderr:\n%s",
		  name, bare.out, bare.err);

	put_canary(fmt("%s/outside", B));
	snprintf(script, sizeof(script), "export CANARY=%s/outside/canary OUTSIDE=%s/outside\n%s",
		 B, B, escapes[p->c].script);
	struct run jail = run_jailed((enum variant)p->v, J, script);
	if (p->v == V_OFFLINE_BUILD)
		skip_if_unsupported(&jail);
	cr_expect(WIFEXITED(jail.raw) && WEXITSTATUS(jail.raw) == 0 && strstr(jail.out, "done"),
		  "[%s %s] the script did not run to its end under cordon (%s)\nstdout:\n%s\nstderr:\n%s",
		  name, v, status_text(jail.raw), jail.out, jail.err);
	cr_expect(intact(fmt("%s/outside", B), why, sizeof(why)),
		  "[%s %s] a change outside the workspace went through: %s\nstdout:\n%s\nstderr:\n%s",
		  name, v, why, jail.out, jail.err);
	if (escapes[p->c].want_out)
		cr_expect_not_null(strstr(jail.out, escapes[p->c].want_out),
				   "[%s %s] no '%s' in stdout\nstdout:\n%s\nstderr:\n%s", name, v,
				   escapes[p->c].want_out, jail.out, jail.err);
	if (escapes[p->c].want_err)
		cr_expect_not_null(strstr(jail.err, escapes[p->c].want_err),
				   "[%s %s] no '%s' on stderr\nstderr:\n%s", name, v,
				   escapes[p->c].want_err, jail.err);
	run_free(&bare);
	run_free(&jail);
}

/*
 * The agent policy's write-deny: inside the workspace, git works (init,
 * add, commit, a branch), while its hooks and its config stay as they
 * were: a program that plants a hook or rewrites core.hooksPath would run
 * code outside the sandbox at the user's next git command. Checked from
 * outside afterwards.
 */
static void agent_git(bool shim)
{
	char hooks[PATH_MAX], config[PATH_MAX];
	size_t before_len, after_len;

	if (access("/usr/bin/git", X_OK) != 0)
		cr_skip("git is not installed");
	struct run r0 = run_bare(W, "git init -q . && git config user.email t@example.org && "
				    "git config user.name t && mkdir -p .git/hooks\n");
	cr_assert(WIFEXITED(r0.raw) && WEXITSTATUS(r0.raw) == 0, "git init: %s", r0.err);
	run_free(&r0);
	snprintf(hooks, sizeof(hooks), "%s/.git/hooks/pre-commit", W);
	snprintf(config, sizeof(config), "%s/.git/config", W);
	char *before = slurp(config, &before_len);
	cr_assert_not_null(before);

	const char *script =
		"echo a > a\n"
		"git add a && git commit -qm one && git checkout -qb topic && echo ok-commit\n"
		"printf '#!/bin/sh\\necho planted\\n' > .git/hooks/pre-commit 2>/dev/null || echo refused-hook\n"
		"git config core.hooksPath /tmp/evil 2>/dev/null || echo refused-config\n"
		"chmod 0777 .git/config 2>/dev/null || echo refused-chmod\n";
	const char *argv[16] = { cordon_bin, "run", "--policy", fmt("%s/policy.d/agent", src_dir),
				 "--workspace", W, "--shim", shim ? "yes" : "no" };
	size_t a = 8;
	/* Under SANITIZE=1 every run gets ASAN_OPTIONS (run_in), which the
	 * agent policy's env clean would drop: sh would then refuse the
	 * instrumented shim cordon preloads ahead of the ASan runtime. */
	const char *first = getenv("CORDON_PRELOAD_FIRST");
	if (first && *first) {
		argv[a++] = "--env-pass";
		argv[a++] = "ASAN_OPTIONS";
	}
	argv[a++] = "--";
	argv[a++] = "/bin/sh";
	argv[a++] = "-c";
	argv[a++] = full_script(script);
	argv[a] = NULL;
	struct run r = run_in("jail", W, W, fmt("%s/tmp", B), argv);
	skip_if_unsupported(&r);
	cr_expect(WIFEXITED(r.raw) && WEXITSTATUS(r.raw) == 0, "%s\nstdout:\n%s\nstderr:\n%s",
		  status_text(r.raw), r.out, r.err);
	cr_expect(strstr(r.out, "ok-commit"), "git commit failed:\n%s\n%s", r.out, r.err);
	cr_expect(strstr(r.out, "refused-hook") && strstr(r.out, "refused-config") &&
			  strstr(r.out, "refused-chmod"),
		  "a protected path was written:\n%s\n%s", r.out, r.err);
	if (shim)
		cr_expect(strstr(r.err, "inside write-deny"), "no refusal logged:\n%s", r.err);
	run_free(&r);

	struct stat st;
	cr_expect_neq(lstat(hooks, &st), 0, "the hook was planted");
	char *after = slurp(config, &after_len);
	cr_assert_not_null(after);
	cr_expect(before_len == after_len && memcmp(before, after, before_len) == 0,
		  "the config changed:\n%s", after);
	cr_expect_eq(stat(config, &st), 0);
	cr_expect_neq(st.st_mode & 0777, 0777, "the config was re-moded");
	free(before);
	free(after);
}

Test(compat, agent_protects_git_hooks_and_config, .init = setup, .fini = teardown)
{
	agent_git(true);
}

/* The same with the kernel layer alone, as for a static program: the hook
 * and config are read-only mounts, .git beside them stays writable. */
Test(compat, agent_protects_git_hooks_and_config_without_the_shim, .init = setup,
     .fini = teardown)
{
	agent_git(false);
}
