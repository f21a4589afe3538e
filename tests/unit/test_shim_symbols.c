/*
 * test_shim_symbols.c - every row of shim/syms.def, live.
 *
 * exports_match_table: the dynamic symbols libcordon.so defines are
 * exactly the rows of syms.def (nm -D --defined-only), no more, no less.
 *
 * row_has_allowed_and_refused_case: each row (the list is expanded from
 * syms.def, so a row added without cases fails) has at least one allowed
 * and one refused case in the table below.
 *
 * case_inside_allowed_outside_refused: each case runs tests/helpers/probe,
 * which calls exactly the row's symbol, under LD_PRELOAD=libcordon.so, in a
 * fresh fixture:
 *   allowed  the call succeeds ("ok"), no deny line is written, nothing
 *            under outside/ changes, and the checks listed see its effect
 *            from this process, which is not preloaded;
 *   refused  it fails with EACCES, exactly one "cordon: deny" line names
 *            the call (and the outside target), and nothing in the fixture
 *            changed: names, types, modes, owners, sizes, contents, link
 *            counts, mtime and ctime (atime of regular files), xattrs and
 *            symlink targets, compared from outside; then the same command
 *            runs WITHOUT the shim in a fresh fixture and must meet no
 *            EACCES and end in "ok", so the refusal was the shim's and the
 *            case is not vacuous.
 * Classes without an "outside" get a case that has one: read (opendir) is
 * refused under CORDON_READ_DENY; spawn (fork, vfork, system, popen,
 * posix_spawn*) under CORDON_SUBPROCESS=no; exec is never refused, so its
 * "refused" cases exec a probe with an EMPTY environment (as env -i does)
 * that must still be confined: the shim puts LD_PRELOAD and CORDON_* back
 * (an allowed case in the same environment proves CORDON_WRITE survived);
 * network: CORDON_NET=none vs all for TCP, UDP and abstract sockets, and
 * unix pathname sockets inside vs outside the write root (refused outside
 * even with net all); cwd (chdir, fchdir, nftw, fts_open, unshare) only
 * keeps the shim's cached working directory honest, so its cases make the
 * cache stale if it can be: prime it in one directory, move (or let libc's
 * walk, or another thread, move) to another, and write relative to the new
 * one: allowed inside, refused outside.
 *
 * Fixture, per case (a fresh one for the unconfined control), removed
 * afterwards:
 *
 *   $T/                      mkdtemp("/dev/shm/cordon-sym-XXXXXX"), or in
 *                            /tmp; canonical; the probe's cwd
 *     root/                  CORDON_WRITE: the only write root
 *       f                    "canary\n", 0644, user.cordon=1, times 1e9
 *       d/                   empty directory
 *       ln -> f
 *       out -> ../outside/f  symlinks that lead out of the root
 *       outdir -> ../outside
 *       sock                 unix stream listener
 *       dsock                unix datagram socket
 *     outside/               beneath no write root: the canaries
 *       f, d/, ln -> f, sock, dsock      as in root/
 *   and, outside the file system: a TCP listener and a UDP socket on
 *   127.0.0.1 (ports @TCP, @UDP), an abstract unix stream listener "$T".
 *
 * Tests run as root: a broken shim would really write. Every refused case
 * aims inside $T (or, for tmpfile, at an unnamed O_TMPFILE file in /tmp).
 */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <ftw.h>
#include <glob.h>
#include <limits.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <sys/xattr.h>
#include <time.h>
#include <unistd.h>

/* The rows of the table, in its order. */
static const char *const rows[] = {
#define SYM(name, ...) #name,
#include "../../shim/syms.def"
#undef SYM
};
#define N_ROWS (sizeof(rows) / sizeof(rows[0]))

#define CANARY "canary\n"
#define CANARY_TIME 1000000000  /* 2001-09-09, the canaries' atime and mtime */
#define MSG "probe"             /* what the probe sends */

/* --- the cases ----------------------------------------------------------- */

/*
 * One run of the probe: `probe SYM ARGS...` (or `probe CMD...` when the
 * command starts with another call of a chain) with ENV added to (or
 * replacing, by name) the base environment
 *   PATH=/usr/bin:/bin  LD_PRELOAD=[$CORDON_PRELOAD_FIRST:]libcordon.so
 *   CORDON_WRITE=@R
 * Placeholders in args, env, setup, out, deny and check:
 *   @T @R @O   $T, $T/root, $T/outside
 *   @P @H      the probe, the directory it is in
 *   @TCP @UDP  the ports of the fixture's TCP listener and UDP socket
 *   @EMPTY     the probe's "empty" environment; "clean" (no LD_PRELOAD,
 *              no CORDON_*) under the sanitizer build, see base_env()
 * out: fnmatch(3) pattern for the whole stdout, final newline dropped;
 *      default "ok" (allowed) or "err EACCES" (refused).
 * deny_call: the call the deny line names (default sym); deny: text the
 *      deny line must hold (default "@O" when an argument has "@O").
 * setup (before the run), check (after it, allowed and refused), one
 * string each:
 *   file PATH TEXT | dir PATH                          (setup)
 *   reg|dir|fifo|sock PATH [MODE] | symlink PATH TARGET | absent PATH
 *   size PATH N | mode PATH MODE | owner PATH UID GID | mtime PATH SECONDS
 *   nlink PATH N | content PATH TEXT | xattr PATH NAME VALUE
 *   noxattr PATH NAME | glob PATTERN N [reg|dir]
 *   accepted tcp|abstract|PATH N | received udp|PATH N
 * All stat-like checks use lstat: PATH is never followed.
 */
struct probe_case {
	const char *sym;
	bool refused;
	const char *args[12];
	const char *cmd[16];
	const char *env[4];
	const char *setup[3];
	const char *out;
	const char *deny_call;
	const char *deny;
	const char *check[4];
	/* refused cases: the control's command, when not the case's own (the
	 * IPC rows: without the shim, libc makes the object in the host's
	 * /dev/shm, not in the directory the case gives the shim) */
	const char *control[16];
};

#define ARGS(...) .args = { __VA_ARGS__ }
#define CMD(...) .cmd = { __VA_ARGS__ }
#define ENV(...) .env = { __VA_ARGS__ }
#define SETUP(...) .setup = { __VA_ARGS__ }
#define CHECK(...) .check = { __VA_ARGS__ }
#define CONTROL(...) .control = { __VA_ARGS__ }
#define Y(s, ...) { .sym = s, .refused = false, __VA_ARGS__ }
#define N(s, ...) { .sym = s, .refused = true, __VA_ARGS__ }

#define T9 "1234567890"  /* a time the utime family sets */
#define OWN "1234"       /* a uid and gid the chown family sets */
#define NET_ALL "CORDON_NET=all"
#define NET_NONE "CORDON_NET=none"
#define RDENY "CORDON_READ_DENY=@O"
#define SHM_IN "CORDON_SHM_DIR=@R/shm"
#define SHM_OUT "CORDON_SHM_DIR=@O/shm"
#define SUB_NO "CORDON_SUBPROCESS=no"
#define SUB_YES "CORDON_SUBPROCESS=yes"
#define PATH_H "PATH=@H:/usr/bin:/bin"
/* exec cases: a probe started with an empty environment creates NEW */
#define CREAT_IN "creat", "@R/new", "0600"
#define CREAT_OUT "creat", "@O/new", "0600"
#define MARK "creat", "@R/marker", "0600"
/* cwd cases: prime the shim's working-directory cache in DIR (a relative
 * mkdir of the existing d: EEXIST, no change) */
#define PRIME(dir) "chdir", dir, "--", "mkdir", "d", "0755", "--"
#define WALK_FTW "FTW_CHDIR|FTW_PHYS"  /* root/ has no depth 2: one inner call */
/* probe's line when its vfork child did not share its memory: the shim
 * keeps vfork on x86-64 only (shim/wrappers.c) */
#if defined(__x86_64__)
#define COPIED ""
#else
#define COPIED "copied\n"
#endif

static const struct probe_case cases[] = {
	/* --- opens -------------------------------------------------------- */
	Y("open", ARGS("@R/new", "O_WRONLY|O_CREAT|O_EXCL", "0640"), CHECK("reg @R/new 0640")),
	Y("open", ARGS("@R/f", "O_WRONLY|O_TRUNC"), CHECK("size @R/f 0")),
	Y("open", ARGS("root/new", "O_RDWR|O_CREAT", "0600"), CHECK("reg @R/new 0600")),
	Y("open", ARGS("@R/d", "O_RDWR|O_TMPFILE", "0600")),
	N("open", ARGS("@O/new", "O_WRONLY|O_CREAT", "0640")),
	N("open", ARGS("@O/f", "O_WRONLY|O_TRUNC")),
	N("open", ARGS("outside/f", "O_RDWR")),
	N("open", ARGS("@O/d", "O_RDWR|O_TMPFILE", "0600")),
	N("open", ARGS("@R/out", "O_WRONLY|O_TRUNC"), .deny = "@O/f"),
	N("open", ARGS("@R/outdir/new", "O_WRONLY|O_CREAT", "0644"), .deny = "@O/new"),
	N("open", ARGS("@R/../outside/f", "O_WRONLY|O_APPEND"), .deny = "@O/f"),
	Y("open64", ARGS("@R/new", "O_WRONLY|O_CREAT", "0640"), CHECK("reg @R/new 0640")),
	N("open64", ARGS("@O/f", "O_WRONLY|O_APPEND")),
	N("open64", ARGS("@O/new", "O_WRONLY|O_CREAT|O_EXCL", "0640")),
	Y("openat", ARGS("@R", "new", "O_WRONLY|O_CREAT", "0640"), CHECK("reg @R/new 0640")),
	Y("openat", ARGS("cwd", "root/f", "O_RDWR|O_TRUNC"), CHECK("size @R/f 0")),
	N("openat", ARGS("@O", "new", "O_WRONLY|O_CREAT", "0640")),
	N("openat", ARGS("@R", "out", "O_WRONLY|O_TRUNC"), .deny = "@O/f"),
	N("openat", ARGS("@R", "../outside/f", "O_WRONLY"), .deny = "@O/f"),
	Y("openat64", ARGS("@R", "new", "O_WRONLY|O_CREAT", "0640"), CHECK("reg @R/new 0640")),
	N("openat64", ARGS("@O", "f", "O_WRONLY|O_TRUNC")),
	Y("__open_2", ARGS("@R/f", "O_WRONLY|O_TRUNC"), CHECK("size @R/f 0")),
	N("__open_2", ARGS("@O/f", "O_WRONLY|O_TRUNC")),
	Y("__open64_2", ARGS("@R/f", "O_RDWR|O_TRUNC"), CHECK("size @R/f 0")),
	N("__open64_2", ARGS("@O/f", "O_RDWR|O_TRUNC")),
	Y("__openat_2", ARGS("@R", "f", "O_WRONLY|O_TRUNC"), CHECK("size @R/f 0")),
	N("__openat_2", ARGS("@O", "f", "O_WRONLY|O_TRUNC")),
	Y("__openat64_2", ARGS("@R", "f", "O_WRONLY|O_TRUNC"), CHECK("size @R/f 0")),
	N("__openat64_2", ARGS("@O", "f", "O_WRONLY|O_TRUNC")),
	Y("creat", ARGS("@R/new", "0600"), CHECK("reg @R/new 0600", "size @R/new 0")),
	Y("creat", ARGS("@R/f", "0600"), CHECK("size @R/f 0")),
	N("creat", ARGS("@O/new", "0600")),
	N("creat", ARGS("@O/f", "0600")),
	Y("creat64", ARGS("@R/new", "0600"), CHECK("reg @R/new 0600")),
	N("creat64", ARGS("@O/new", "0600")),
	Y("fopen", ARGS("@R/new", "w"), CHECK("reg @R/new 0644")),
	Y("fopen", ARGS("@R/f", "w"), CHECK("size @R/f 0")),
	N("fopen", ARGS("@O/f", "w")),
	N("fopen", ARGS("@O/new", "a")),
	Y("fopen64", ARGS("@R/new", "a+"), CHECK("reg @R/new 0644")),
	N("fopen64", ARGS("@O/f", "r+")),
	Y("freopen", ARGS("@R/new", "w"), CHECK("reg @R/new 0644")),
	Y("freopen", ARGS("@R/f", "w"), CHECK("size @R/f 0")),
	N("freopen", ARGS("@O/f", "w")),
	Y("freopen64", ARGS("@R/new", "a"), CHECK("reg @R/new 0644")),
	N("freopen64", ARGS("@O/new", "w")),
	Y("opendir", ARGS("@R/d"), ENV(RDENY)),
	N("opendir", ARGS("@O/d"), ENV(RDENY)),
	N("opendir", ARGS("@R/outdir"), ENV(RDENY), .deny = "@O"),

	/* --- create ----------------------------------------------------------- */
	Y("mkdir", ARGS("@R/new", "0750"), CHECK("dir @R/new 0750")),
	Y("mkdir", ARGS("root/d/new", "0700"), CHECK("dir @R/d/new 0700")),
	N("mkdir", ARGS("@O/new", "0750")),
	N("mkdir", ARGS("@R/outdir/new", "0750"), .deny = "@O/new"),
	Y("mkdirat", ARGS("@R", "new", "0750"), CHECK("dir @R/new 0750")),
	Y("mkdirat", ARGS("cwd", "root/new", "0750"), CHECK("dir @R/new 0750")),
	N("mkdirat", ARGS("@O", "new", "0750")),
	N("mkdirat", ARGS("@R", "outdir/new", "0750"), .deny = "@O/new"),
	Y("mknod", ARGS("@R/new", "S_IFIFO|0640", "0"), CHECK("fifo @R/new 0640")),
	Y("mknod", ARGS("@R/new", "S_IFREG|0600", "0"), CHECK("reg @R/new 0600")),
	N("mknod", ARGS("@O/new", "S_IFIFO|0640", "0")),
	Y("mknodat", ARGS("@R", "new", "S_IFREG|0640", "0"), CHECK("reg @R/new 0640")),
	N("mknodat", ARGS("@O", "new", "S_IFREG|0640", "0")),
	Y("mkfifo", ARGS("@R/new", "0640"), CHECK("fifo @R/new 0640")),
	N("mkfifo", ARGS("@O/new", "0640")),
	Y("mkfifoat", ARGS("@R", "new", "0640"), CHECK("fifo @R/new 0640")),
	N("mkfifoat", ARGS("@O", "new", "0640")),
	Y("symlink", ARGS("f", "@R/new"), CHECK("symlink @R/new f")),
	Y("symlink", ARGS("@O/f", "@R/new"), CHECK("symlink @R/new @O/f")),
	N("symlink", ARGS("f", "@O/new")),
	Y("symlinkat", ARGS("f", "@R", "new"), CHECK("symlink @R/new f")),
	N("symlinkat", ARGS("f", "@O", "new")),

	/* --- delete ----------------------------------------------------------- */
	Y("unlink", ARGS("@R/f"), CHECK("absent @R/f")),
	Y("unlink", ARGS("@R/out"), CHECK("absent @R/out")),
	N("unlink", ARGS("@O/f")),
	N("unlink", ARGS("@O/ln")),
	N("unlink", ARGS("@R/outdir/f"), .deny = "@O/f"),
	Y("unlinkat", ARGS("@R", "f", "0"), CHECK("absent @R/f")),
	Y("unlinkat", ARGS("@R", "d", "AT_REMOVEDIR"), CHECK("absent @R/d")),
	N("unlinkat", ARGS("@O", "f", "0")),
	N("unlinkat", ARGS("@O", "d", "AT_REMOVEDIR")),
	Y("rmdir", ARGS("@R/d"), CHECK("absent @R/d")),
	N("rmdir", ARGS("@O/d")),
	Y("remove", ARGS("@R/f"), CHECK("absent @R/f")),
	Y("remove", ARGS("@R/d"), CHECK("absent @R/d")),
	N("remove", ARGS("@O/f")),
	N("remove", ARGS("@O/d")),

	/* --- rename and link: both ends inside ------------------------------- */
	Y("rename", ARGS("@R/f", "@R/g"), CHECK("absent @R/f", "content @R/g " CANARY)),
	N("rename", ARGS("@O/f", "@O/g")),
	N("rename", ARGS("@R/f", "@O/g"), .deny = "@O/g"),
	N("rename", ARGS("@O/f", "@R/g"), .deny = "@O/f"),
	Y("renameat", ARGS("@R", "f", "@R", "g"), CHECK("absent @R/f", "content @R/g " CANARY)),
	Y("renameat", ARGS("cwd", "root/f", "@R", "g"), CHECK("content @R/g " CANARY)),
	N("renameat", ARGS("@O", "f", "@O", "g")),
	N("renameat", ARGS("@R", "f", "@O", "g"), .deny = "@O/g"),
	Y("renameat2", ARGS("@R", "f", "@R", "g", "RENAME_NOREPLACE"),
	  CHECK("absent @R/f", "content @R/g " CANARY)),
	Y("renameat2", ARGS("@R", "f", "@R", "g", "RENAME_EXCHANGE"), SETUP("file @R/g other"),
	  CHECK("content @R/f other", "content @R/g " CANARY)),
	N("renameat2", ARGS("@O", "f", "@O", "g", "0")),
	N("renameat2", ARGS("@R", "f", "@O", "f", "RENAME_EXCHANGE"), .deny = "@O/f"),
	Y("link", ARGS("@R/f", "@R/h"), CHECK("nlink @R/f 2", "content @R/h " CANARY)),
	N("link", ARGS("@O/f", "@O/h")),
	/* an outside inode must not gain a name a write could reach */
	N("link", ARGS("@O/f", "@R/h"), .deny = "@O/f"),
	Y("linkat", ARGS("@R", "f", "@R", "h", "0"), CHECK("nlink @R/f 2")),
	Y("linkat", ARGS("@R", "ln", "@R", "h", "AT_SYMLINK_FOLLOW"), CHECK("nlink @R/f 2")),
	N("linkat", ARGS("@O", "f", "@O", "h", "0")),
	N("linkat", ARGS("@R", "out", "@R", "h", "AT_SYMLINK_FOLLOW"), .deny = "@O/f"),

	/* --- write content ---------------------------------------------------- */
	Y("truncate", ARGS("@R/f", "3"), CHECK("size @R/f 3")),
	Y("truncate", ARGS("@R/ln", "2"), CHECK("size @R/f 2")),
	N("truncate", ARGS("@O/f", "3")),
	N("truncate", ARGS("@R/out", "0"), .deny = "@O/f"),
	Y("truncate64", ARGS("@R/f", "3"), CHECK("size @R/f 3")),
	N("truncate64", ARGS("@O/f", "0")),
	Y("ftruncate", ARGS("@R/f", "3"), CHECK("size @R/f 3")),
	N("ftruncate", ARGS("@O/f", "0")),
	Y("ftruncate64", ARGS("@R/f", "3"), CHECK("size @R/f 3")),
	N("ftruncate64", ARGS("@O/f", "0")),
	Y("fallocate", ARGS("@R/f", "0", "0", "8192"), CHECK("size @R/f 8192")),
	N("fallocate", ARGS("@O/f", "0", "0", "8192")),
	Y("fallocate64", ARGS("@R/f", "0", "0", "8192"), CHECK("size @R/f 8192")),
	N("fallocate64", ARGS("@O/f", "0", "0", "8192")),
	Y("posix_fallocate", ARGS("@R/f", "0", "8192"), CHECK("size @R/f 8192")),
	N("posix_fallocate", ARGS("@O/f", "0", "8192")),
	Y("posix_fallocate64", ARGS("@R/f", "0", "8192"), CHECK("size @R/f 8192")),
	N("posix_fallocate64", ARGS("@O/f", "0", "8192")),

	/* --- metadata ------------------------------------------------------------ */
	Y("chmod", ARGS("@R/f", "0600"), CHECK("mode @R/f 0600")),
	Y("chmod", ARGS("@R/ln", "0600"), CHECK("mode @R/f 0600")),
	N("chmod", ARGS("@O/f", "0600")),
	N("chmod", ARGS("@R/out", "0600"), .deny = "@O/f"),
	Y("fchmodat", ARGS("@R", "f", "0600", "0"), CHECK("mode @R/f 0600")),
	N("fchmodat", ARGS("@O", "f", "0600", "0")),
	Y("fchmodat", ARGS("@R", "ln", "0600", "0"), CHECK("mode @R/f 0600")),
	N("fchmodat", ARGS("@R", "out", "0600", "0"), .deny = "@O/f"),
	N("fchmodat", ARGS("@R", "outdir/f", "0600", "0"), .deny = "@O/f"),
	Y("lchmod", ARGS("@R/f", "0600"), CHECK("mode @R/f 0600")),
	N("lchmod", ARGS("@O/f", "0600")),
	Y("fchmod", ARGS("@R/f", "0600"), CHECK("mode @R/f 0600")),
	N("fchmod", ARGS("@O/f", "0600")),
	Y("chown", ARGS("@R/f", OWN, OWN), CHECK("owner @R/f " OWN " " OWN)),
	Y("chown", ARGS("@R/ln", OWN, OWN), CHECK("owner @R/f " OWN " " OWN)),
	N("chown", ARGS("@O/f", OWN, OWN)),
	N("chown", ARGS("@R/out", OWN, OWN), .deny = "@O/f"),
	Y("lchown", ARGS("@R/ln", OWN, OWN), CHECK("owner @R/ln " OWN " " OWN, "owner @R/f 0 0")),
	Y("lchown", ARGS("@R/out", OWN, OWN), CHECK("owner @R/out " OWN " " OWN)),
	N("lchown", ARGS("@O/ln", OWN, OWN)),
	Y("fchownat", ARGS("@R", "f", OWN, OWN, "0"), CHECK("owner @R/f " OWN " " OWN)),
	Y("fchownat", ARGS("@R", "out", OWN, OWN, "AT_SYMLINK_NOFOLLOW"),
	  CHECK("owner @R/out " OWN " " OWN)),
	N("fchownat", ARGS("@O", "f", OWN, OWN, "0")),
	N("fchownat", ARGS("@R", "out", OWN, OWN, "0"), .deny = "@O/f"),
	Y("fchown", ARGS("@R/f", OWN, OWN), CHECK("owner @R/f " OWN " " OWN)),
	N("fchown", ARGS("@O/f", OWN, OWN)),
	Y("utime", ARGS("@R/f", T9), CHECK("mtime @R/f " T9)),
	N("utime", ARGS("@O/f", T9)),
	Y("utimes", ARGS("@R/f", T9), CHECK("mtime @R/f " T9)),
	N("utimes", ARGS("@O/f", T9)),
	N("utimes", ARGS("@R/out", T9), .deny = "@O/f"),
	Y("lutimes", ARGS("@R/ln", T9), CHECK("mtime @R/ln " T9, "mtime @R/f 1000000000")),
	Y("lutimes", ARGS("@R/out", T9), CHECK("mtime @R/out " T9)),
	N("lutimes", ARGS("@O/ln", T9)),
	Y("futimesat", ARGS("@R", "f", T9), CHECK("mtime @R/f " T9)),
	N("futimesat", ARGS("@O", "f", T9)),
	Y("utimensat", ARGS("@R", "f", T9, "0"), CHECK("mtime @R/f " T9)),
	Y("utimensat", ARGS("cwd", "root/ln", T9, "AT_SYMLINK_NOFOLLOW"), CHECK("mtime @R/ln " T9)),
	N("utimensat", ARGS("@O", "f", T9, "0")),
	N("utimensat", ARGS("@R", "out", T9, "0"), .deny = "@O/f"),
	Y("futimens", ARGS("@R/f", T9), CHECK("mtime @R/f " T9)),
	N("futimens", ARGS("@O/f", T9)),
	Y("futimes", ARGS("@R/f", T9), CHECK("mtime @R/f " T9)),
	N("futimes", ARGS("@O/f", T9)),
	Y("setxattr", ARGS("@R/f", "user.new", "v1", "0"), CHECK("xattr @R/f user.new v1")),
	N("setxattr", ARGS("@O/f", "user.new", "v1", "0")),
	N("setxattr", ARGS("@R/out", "user.cordon", "v2", "0"), .deny = "@O/f"),
	Y("lsetxattr", ARGS("@R/f", "user.new", "v1", "XATTR_CREATE"), CHECK("xattr @R/f user.new v1")),
	N("lsetxattr", ARGS("@O/f", "user.new", "v1", "0")),
	Y("fsetxattr", ARGS("@R/f", "user.cordon", "v2", "XATTR_REPLACE"),
	  CHECK("xattr @R/f user.cordon v2")),
	N("fsetxattr", ARGS("@O/f", "user.cordon", "v2", "0")),
	Y("removexattr", ARGS("@R/f", "user.cordon"), CHECK("noxattr @R/f user.cordon")),
	N("removexattr", ARGS("@O/f", "user.cordon")),
	Y("lremovexattr", ARGS("@R/f", "user.cordon"), CHECK("noxattr @R/f user.cordon")),
	N("lremovexattr", ARGS("@O/f", "user.cordon")),
	Y("fremovexattr", ARGS("@R/f", "user.cordon"), CHECK("noxattr @R/f user.cordon")),
	N("fremovexattr", ARGS("@O/f", "user.cordon")),

	/* --- temporary files ---------------------------------------------------- */
	Y("mkstemp", ARGS("@R/tmpXXXXXX"), .out = "ok @R/tmp??????", CHECK("glob @R/tmp?????? 1 reg")),
	N("mkstemp", ARGS("@O/tmpXXXXXX")),
	N("mkstemp", ARGS("@R/outdir/tmpXXXXXX"), .deny = "@O/tmp"),
	Y("mkstemp64", ARGS("@R/tmpXXXXXX"), .out = "ok @R/tmp??????", CHECK("glob @R/tmp?????? 1 reg")),
	N("mkstemp64", ARGS("@O/tmpXXXXXX")),
	Y("mkstemps", ARGS("@R/tmpXXXXXX.c", "2"), .out = "ok @R/tmp??????.c",
	  CHECK("glob @R/tmp??????.c 1 reg")),
	N("mkstemps", ARGS("@O/tmpXXXXXX.c", "2")),
	Y("mkstemps64", ARGS("@R/tmpXXXXXX.c", "2"), .out = "ok @R/tmp??????.c",
	  CHECK("glob @R/tmp??????.c 1 reg")),
	N("mkstemps64", ARGS("@O/tmpXXXXXX.c", "2")),
	Y("mkostemp", ARGS("@R/tmpXXXXXX", "O_CLOEXEC"), .out = "ok @R/tmp??????",
	  CHECK("glob @R/tmp?????? 1 reg")),
	N("mkostemp", ARGS("@O/tmpXXXXXX", "O_CLOEXEC")),
	Y("mkostemp64", ARGS("@R/tmpXXXXXX", "O_CLOEXEC"), .out = "ok @R/tmp??????",
	  CHECK("glob @R/tmp?????? 1 reg")),
	N("mkostemp64", ARGS("@O/tmpXXXXXX", "O_CLOEXEC")),
	Y("mkostemps", ARGS("@R/tmpXXXXXX.c", "2", "O_CLOEXEC"), .out = "ok @R/tmp??????.c",
	  CHECK("glob @R/tmp??????.c 1 reg")),
	N("mkostemps", ARGS("@O/tmpXXXXXX.c", "2", "O_CLOEXEC")),
	Y("mkostemps64", ARGS("@R/tmpXXXXXX.c", "2", "O_CLOEXEC"), .out = "ok @R/tmp??????.c",
	  CHECK("glob @R/tmp??????.c 1 reg")),
	N("mkostemps64", ARGS("@O/tmpXXXXXX.c", "2", "O_CLOEXEC")),
	Y("mkdtemp", ARGS("@R/tmpXXXXXX"), .out = "ok @R/tmp??????", CHECK("glob @R/tmp?????? 1 dir")),
	N("mkdtemp", ARGS("@O/tmpXXXXXX")),
	/* tmpfile(3) makes an unnamed O_TMPFILE file in P_tmpdir (/tmp) */
	Y("tmpfile", ENV("CORDON_WRITE=@R:/tmp")),
	N("tmpfile", .deny = "/tmp"),

	/* POSIX shared memory and named semaphores: in the directory the
	 * shim is given (cordon run's private-ipc), a write root or not. The
	 * name "%cwd" is the fixture's own (probe.c). */
	Y("shm_open", ARGS("%cwd", "O_RDWR|O_CREAT|O_EXCL", "0640"), ENV(SHM_IN), SETUP("dir @R/shm"),
	  CHECK("glob @R/shm/cordon-sym-* 1 reg")),
	N("shm_open", ARGS("%cwd", "O_RDWR|O_CREAT", "0600"), ENV(SHM_OUT), SETUP("dir @O/shm"),
	  CONTROL("open", "@O/shm/x", "O_RDWR|O_CREAT", "0600")),
	Y("shm_unlink", CMD("shm_open", "%cwd", "O_RDWR|O_CREAT", "0600", "--", "shm_unlink", "%cwd"),
	  ENV(SHM_IN), SETUP("dir @R/shm"), .out = "ok\nok", CHECK("glob @R/shm/* 0")),
	N("shm_unlink", ARGS("x"), ENV(SHM_OUT), SETUP("dir @O/shm", "file @O/shm/x x"),
	  CONTROL("unlink", "@O/shm/x")),
	Y("sem_open", ARGS("%cwd", "O_CREAT|O_EXCL", "0600", "3"), ENV(SHM_IN), SETUP("dir @R/shm"),
	  .out = "ok 4", CHECK("glob @R/shm/sem.cordon-sym-* 1 reg", "glob @R/shm/.sem-* 0")),
	Y("sem_open", CMD("sem_open", "%cwd", "O_CREAT", "0600", "1", "--", "sem_open", "%cwd", "0"),
	  ENV(SHM_IN), SETUP("dir @R/shm"), .out = "ok 2\nok 3"),
	N("sem_open", ARGS("%cwd", "O_CREAT", "0600", "1"), ENV(SHM_OUT), SETUP("dir @O/shm"),
	  CONTROL("open", "@O/shm/sem.x", "O_RDWR|O_CREAT", "0600")),
	Y("sem_unlink", CMD("sem_open", "%cwd", "O_CREAT", "0600", "0", "--", "sem_unlink", "%cwd"),
	  ENV(SHM_IN), SETUP("dir @R/shm"), .out = "ok 1\nok", CHECK("glob @R/shm/* 0")),
	N("sem_unlink", ARGS("x"), ENV(SHM_OUT), SETUP("dir @O/shm", "file @O/shm/sem.x x"),
	  CONTROL("unlink", "@O/shm/sem.x")),
	Y("sem_close", CMD("sem_open", "%cwd", "O_CREAT", "0600", "0", "--", "sem_close"),
	  ENV(SHM_IN), SETUP("dir @R/shm"), .out = "ok 1\nok unmapped"),
	/* a semaphore sem_open did not map: EINVAL, as glibc, and its page kept */
	Y("sem_close", ARGS("page"), ENV(SHM_IN), SETUP("dir @R/shm"), .out = "ok einval-kept"),
	Y("tmpfile64", ENV("CORDON_WRITE=@R:/tmp")),
	N("tmpfile64", .deny = "/tmp"),

	/* --- network ----------------------------------------------------------- */
	Y("connect", ARGS("tcp:127.0.0.1:@TCP"), ENV(NET_ALL), CHECK("accepted tcp 1")),
	Y("connect", ARGS("tcp:127.0.0.1:@TCP"), ENV(NET_NONE, "CORDON_NET_CONNECT=@TCP"),
	  CHECK("accepted tcp 1")),
	Y("connect", ARGS("unix:@R/sock"), ENV(NET_NONE), CHECK("accepted @R/sock 1")),
	Y("connect", ARGS("abstract:@T"), ENV(NET_ALL), CHECK("accepted abstract 1")),
	N("connect", ARGS("tcp:127.0.0.1:@TCP"), ENV(NET_NONE), .deny = "127.0.0.1:@TCP/tcp",
	  CHECK("accepted tcp 0")),
	N("connect", ARGS("unix:@O/sock"), ENV(NET_ALL), CHECK("accepted @O/sock 0")),
	N("connect", ARGS("abstract:@T"), ENV(NET_NONE), CHECK("accepted abstract 0")),
	Y("bind", ARGS("unix:@R/bsock"), ENV(NET_NONE), CHECK("sock @R/bsock")),
	Y("bind", ARGS("tcp:127.0.0.1:0"), ENV(NET_ALL)),
	Y("bind", ARGS("udp:127.0.0.1:0"), ENV("CORDON_NET=isolated")),
	N("bind", ARGS("tcp:127.0.0.1:0"), ENV(NET_NONE)),
	N("bind", ARGS("unix:@O/bsock"), ENV(NET_ALL)),
	/* listen binds a port at random on an unbound socket: a bind to port
	 * 0; and a listener on an abstract name takes the host's connections */
	Y("listen", ARGS("tcp:127.0.0.1:0"), ENV(NET_ALL)),
	Y("listen", ARGS("unix:@R/lsock"), ENV(NET_NONE), CHECK("sock @R/lsock")),
	N("listen", ARGS("tcp:127.0.0.1:0"), ENV(NET_NONE), .deny = "0.0.0.0:0/tcp"),
	N("listen", ARGS("abstract:@T-l"), ENV(NET_NONE), .deny = "unix:@@T-l"),
	Y("sendto", ARGS("udp:127.0.0.1:@UDP"), ENV(NET_ALL), .out = "ok 5", CHECK("received udp 1")),
	Y("sendto", ARGS("unixdg:@R/dsock"), ENV(NET_NONE), .out = "ok 5",
	  CHECK("received @R/dsock 1")),
	N("sendto", ARGS("udp:127.0.0.1:@UDP"), ENV(NET_NONE), CHECK("received udp 0")),
	N("sendto", ARGS("unixdg:@O/dsock"), ENV(NET_ALL), CHECK("received @O/dsock 0")),
	Y("sendmsg", ARGS("udp:127.0.0.1:@UDP"), ENV(NET_ALL), .out = "ok 5", CHECK("received udp 1")),
	Y("sendmsg", ARGS("unixdg:@R/dsock"), ENV(NET_NONE), .out = "ok 5",
	  CHECK("received @R/dsock 1")),
	N("sendmsg", ARGS("udp:127.0.0.1:@UDP"), ENV(NET_NONE), CHECK("received udp 0")),
	N("sendmsg", ARGS("unixdg:@O/dsock"), ENV(NET_ALL), CHECK("received @O/dsock 0")),
	Y("sendmmsg", ARGS("udp:127.0.0.1:@UDP", "2"), ENV(NET_ALL), .out = "ok 2",
	  CHECK("received udp 2")),
	Y("sendmmsg", ARGS("unixdg:@R/dsock", "2"), ENV(NET_NONE), .out = "ok 2",
	  CHECK("received @R/dsock 2")),
	N("sendmmsg", ARGS("udp:127.0.0.1:@UDP", "2"), ENV(NET_NONE), CHECK("received udp 0")),
	N("sendmmsg", ARGS("unixdg:@O/dsock", "2"), ENV(NET_ALL), CHECK("received @O/dsock 0")),

	/* --- exec: the new image, started with an empty environment, is still
	 * confined (refused) with the policy it had (allowed) ------------------ */
	Y("execve", ARGS("@EMPTY", "@P", CREAT_IN), CHECK("reg @R/new 0600")),
	Y("execve", ARGS("inherit", "@P", CREAT_IN), CHECK("reg @R/new 0600")),
	N("execve", ARGS("@EMPTY", "@P", CREAT_OUT), .deny_call = "creat"),
	N("execve", ARGS("@EMPTY", "@P", "execv", "@EMPTY", "@P", CREAT_OUT), .deny_call = "creat"),
	Y("execv", ARGS("@EMPTY", "@P", CREAT_IN), CHECK("reg @R/new 0600")),
	N("execv", ARGS("@EMPTY", "@P", CREAT_OUT), .deny_call = "creat"),
	Y("execvp", ARGS("@EMPTY", "@P", CREAT_IN), CHECK("reg @R/new 0600")),
	Y("execvp", ARGS("inherit", "probe", CREAT_IN), ENV(PATH_H), CHECK("reg @R/new 0600")),
	N("execvp", ARGS("@EMPTY", "@P", CREAT_OUT), .deny_call = "creat"),
	Y("execvpe", ARGS("@EMPTY", "@P", CREAT_IN), CHECK("reg @R/new 0600")),
	N("execvpe", ARGS("@EMPTY", "@P", CREAT_OUT), .deny_call = "creat"),
	Y("execveat", ARGS("@EMPTY", "@H", "probe", "0", CREAT_IN), CHECK("reg @R/new 0600")),
	N("execveat", ARGS("@EMPTY", "cwd", "@P", "0", CREAT_OUT), .deny_call = "creat"),
	Y("fexecve", ARGS("@EMPTY", "@P", CREAT_IN), CHECK("reg @R/new 0600")),
	N("fexecve", ARGS("@EMPTY", "@P", CREAT_OUT), .deny_call = "creat"),
	Y("execl", ARGS("@EMPTY", "@P", CREAT_IN), CHECK("reg @R/new 0600")),
	N("execl", ARGS("@EMPTY", "@P", CREAT_OUT), .deny_call = "creat"),
	Y("execle", ARGS("@EMPTY", "@P", CREAT_IN), CHECK("reg @R/new 0600")),
	N("execle", ARGS("@EMPTY", "@P", CREAT_OUT), .deny_call = "creat"),
	Y("execlp", ARGS("@EMPTY", "@P", CREAT_IN), CHECK("reg @R/new 0600")),
	N("execlp", ARGS("@EMPTY", "@P", CREAT_OUT), .deny_call = "creat"),

	/* --- spawn: refused with subprocess no; the child marks its run ------- */
	Y("posix_spawn", ARGS("inherit", "@P", MARK), ENV(SUB_YES), .out = "ok\nok 0",
	  CHECK("reg @R/marker 0600")),
	Y("posix_spawn", ARGS("@EMPTY", "@P", CREAT_IN), .out = "ok\nok 0", CHECK("reg @R/new 0600")),
	N("posix_spawn", ARGS("inherit", "@P", MARK), ENV(SUB_NO), CHECK("absent @R/marker")),
	N("posix_spawn", ARGS("@EMPTY", "@P", CREAT_OUT), .out = "err EACCES\nok 1",
	  .deny_call = "creat"),
	Y("posix_spawnp", ARGS("inherit", "probe", MARK), ENV(SUB_YES, PATH_H), .out = "ok\nok 0",
	  CHECK("reg @R/marker 0600")),
	N("posix_spawnp", ARGS("inherit", "@P", MARK), ENV(SUB_NO), CHECK("absent @R/marker")),
	N("posix_spawnp", ARGS("@EMPTY", "@P", CREAT_OUT), .out = "err EACCES\nok 1",
	  .deny_call = "creat"),
	Y("fork", ARGS(MARK), ENV(SUB_YES), .out = "ok\nok 0", CHECK("reg @R/marker 0600")),
	N("fork", ARGS(MARK), ENV(SUB_NO), CHECK("absent @R/marker")),
	Y("vfork", ARGS("@P", MARK), ENV(SUB_YES), .out = "ok\n" COPIED "ok 0",
	  CHECK("reg @R/marker 0600")),
	N("vfork", ARGS("@P", MARK), ENV(SUB_NO), CHECK("absent @R/marker")),
	/* vfork stays vfork (no "copied" above, where the shim can), and its
	 * child, which borrows the parent's memory, must not leave its working
	 * directory in the parent's cache: it moves and makes a relative call
	 * (mkdir of the existing d: EEXIST, 17, no change), then the parent
	 * writes relative to its own directory */
	Y("vfork", CMD(PRIME("@R"), "vfork", "-C", "@O", "d", "--", "creat", "new", "0600"),
	  .out = "ok\nerr EEXIST\n" COPIED "ok 17\nok", CHECK("reg @R/new 0600")),
	N("vfork", CMD(PRIME("@O"), "vfork", "-C", "@R", "d", "--", "creat", "f", "0600"),
	  .out = "ok\nerr EEXIST\n" COPIED "ok 17\nerr EACCES", .deny_call = "creat",
	  .deny = "@O/f"),
	Y("system", ARGS("@P creat @R/marker 0600"), ENV(SUB_YES), .out = "ok\nok 0",
	  CHECK("reg @R/marker 0600")),
	N("system", ARGS("@P creat @R/marker 0600"), ENV(SUB_NO), CHECK("absent @R/marker")),
	Y("popen", ARGS("@P creat @R/marker 0600"), ENV(SUB_YES), .out = "ok\nok 0",
	  CHECK("reg @R/marker 0600")),
	N("popen", ARGS("@P creat @R/marker 0600"), ENV(SUB_NO), CHECK("absent @R/marker")),

	/* --- cwd: after the working directory moves, relative paths are
	 * decided where they really lead ------------------------------------- */
	Y("chdir", CMD(PRIME("@O"), "chdir", "@R", "--", "creat", "new", "0600"),
	  .out = "ok\nerr EEXIST\nok\nok", CHECK("reg @R/new 0600")),
	N("chdir", CMD(PRIME("@R"), "chdir", "@O", "--", "creat", "f", "0600"),
	  .out = "ok\nerr EEXIST\nok\nerr EACCES", .deny_call = "creat", .deny = "@O/f"),
	Y("fchdir", CMD(PRIME("@O"), "fchdir", "@R", "--", "creat", "new", "0600"),
	  .out = "ok\nerr EEXIST\nok\nok", CHECK("reg @R/new 0600")),
	N("fchdir", CMD(PRIME("@R"), "fchdir", "@O", "--", "creat", "f", "0600"),
	  .out = "ok\nerr EEXIST\nok\nerr EACCES", .deny_call = "creat", .deny = "@O/f"),
	/* nftw(FTW_CHDIR) and fts move with libc's internal chdir, unseen. In
	 * the allowed cases the cache was primed outside before the walk; in
	 * the refused ones the walk itself primes it inside (rmdir f: ENOTDIR,
	 * no change), then moves outside: nftw follows root/outdir at depth 2,
	 * fts walks root/ then outside/ */
	Y("nftw", CMD(PRIME("@O"), "nftw", "@R", WALK_FTW, "creat", "new", "0600"),
	  .out = "ok\nerr EEXIST\nok\nok", CHECK("reg @R/new 0600")),
	N("nftw", CMD("chdir", "@R", "--", "nftw", "@R", "FTW_CHDIR", "rmdir", "f"),
	  .out = "ok\nerr ENOTDIR\nerr EACCES\nok", .deny_call = "rmdir", .deny = "@O/f"),
	Y("nftw64", CMD(PRIME("@O"), "nftw64", "@R", WALK_FTW, "creat", "new", "0600"),
	  .out = "ok\nerr EEXIST\nok\nok", CHECK("reg @R/new 0600")),
	N("nftw64", CMD("chdir", "@R", "--", "nftw64", "@R", "FTW_CHDIR", "rmdir", "f"),
	  .out = "ok\nerr ENOTDIR\nerr EACCES\nok", .deny_call = "rmdir", .deny = "@O/f"),
	Y("fts_open", CMD(PRIME("@O"), "fts_open", "@R", "FTS_PHYSICAL", "creat", "new", "0600"),
	  .out = "ok\nerr EEXIST\nok\nok", CHECK("reg @R/new 0600")),
	N("fts_open", CMD("chdir", "@R", "--", "fts_open", "@R:@O", "FTS_PHYSICAL", "rmdir", "f"),
	  .out = "ok\nerr ENOTDIR\nerr EACCES\nok", .deny_call = "rmdir", .deny = "@O/f"),
	Y("fts64_open", CMD(PRIME("@O"), "fts64_open", "@R", "FTS_PHYSICAL", "creat", "new", "0600"),
	  .out = "ok\nerr EEXIST\nok\nok", CHECK("reg @R/new 0600")),
	N("fts64_open", CMD("chdir", "@R", "--", "fts64_open", "@R:@O", "FTS_PHYSICAL", "rmdir", "f"),
	  .out = "ok\nerr ENOTDIR\nerr EACCES\nok", .deny_call = "rmdir", .deny = "@O/f"),
	/* unshare(CLONE_FS): a thread's working directory is its own; the main
	 * thread primes the cache with its directory, the other writes in its */
	Y("unshare", CMD("chdir", "@O", "--", "unshare", "CLONE_FS", "@R", "creat", "new", "0600"),
	  .out = "ok\nok\nerr EEXIST\nok", CHECK("reg @R/new 0600")),
	N("unshare", CMD("chdir", "@R", "--", "unshare", "CLONE_FS", "@O", "creat", "f", "0600"),
	  .out = "ok\nok\nerr EEXIST\nerr EACCES", .deny_call = "creat", .deny = "@O/f"),
};
#define N_CASES (sizeof(cases) / sizeof(cases[0]))

/* --- paths of the build ------------------------------------------------------ */

static char probe_path[PATH_MAX], helpers_dir[PATH_MAX], lib_path[PATH_MAX];
static const char *preload_first;

static void find_build(void)
{
	const char *build = getenv("CORDON_BUILD");
	char p[PATH_MAX];

	if (!build || !*build)
		build = "build";
	snprintf(p, sizeof(p), "%s/tests/helpers/probe", build);
	cr_assert_not_null(realpath(p, probe_path),
			   "%s: %s (build it: make %s, or make check)", p, strerror(errno), p);
	snprintf(helpers_dir, sizeof(helpers_dir), "%s", probe_path);
	*strrchr(helpers_dir, '/') = '\0';
	snprintf(p, sizeof(p), "%s/libcordon.so", build);
	cr_assert_not_null(realpath(p, lib_path), "%s: %s", p, strerror(errno));
	preload_first = getenv("CORDON_PRELOAD_FIRST");
	if (preload_first && !*preload_first)
		preload_first = NULL;
}

/* --- the fixture ------------------------------------------------------------- */

/* @dir/@name into @out, which must hold it. */
static void join(char *out, size_t size, const char *dir, const char *name)
{
	int n = snprintf(out, size, "%s/%s", dir, name);

	cr_assert(n > 0 && (size_t)n < size, "path too long: %s/%s", dir, name);
}

struct fixture {
	char t[PATH_MAX], r[PATH_MAX], o[PATH_MAX];
	int tcp, udp, abstract, rsock, osock, rdsock, odsock;
	int tcp_port, udp_port;
};

/* The fixture in use, for cleanup() when an assertion ends a test early;
 * fixtures are static so that it still exists then. */
static struct fixture *live;

static void mkfile(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);

	cr_assert_geq(fd, 0, "create %s: %s", path, strerror(errno));
	cr_assert_eq(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
}

static int listener(int family, int type, const char *path, bool abstract, int *port)
{
	int fd = socket(family, type | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	struct sockaddr_storage ss = { 0 };
	socklen_t len;

	cr_assert_geq(fd, 0, "socket: %s", strerror(errno));
	if (family == AF_UNIX) {
		struct sockaddr_un *un = (struct sockaddr_un *)&ss;
		size_t n = strlen(path);
		cr_assert_lt(n + 1, sizeof(un->sun_path), "socket path too long: %s", path);
		un->sun_family = AF_UNIX;
		memcpy(un->sun_path + abstract, path, n);
		len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + n + 1);
	} else {
		struct sockaddr_in *in = (struct sockaddr_in *)&ss;
		in->sin_family = AF_INET;
		in->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
		len = sizeof(*in);
	}
	cr_assert_eq(bind(fd, (struct sockaddr *)&ss, len), 0, "bind %s: %s",
		     path ? path : "127.0.0.1:0", strerror(errno));
	if (type == SOCK_STREAM)
		cr_assert_eq(listen(fd, 16), 0, "listen: %s", strerror(errno));
	if (port) {
		struct sockaddr_in in;
		socklen_t l = sizeof(in);
		cr_assert_eq(getsockname(fd, (struct sockaddr *)&in, &l), 0);
		*port = ntohs(in.sin_port);
	}
	return fd;
}

static void tree(const char *dir, bool is_root)
{
	char p[PATH_MAX];
	struct timespec ts[2] = { { CANARY_TIME, 0 }, { CANARY_TIME, 0 } };

	cr_assert_eq(mkdir(dir, 0755), 0, "mkdir %s: %s", dir, strerror(errno));
	join(p, sizeof(p), dir, "f");
	mkfile(p, CANARY);
	cr_assert_eq(setxattr(p, "user.cordon", "1", 1, 0), 0, "setxattr %s: %s", p, strerror(errno));
	cr_assert_eq(utimensat(AT_FDCWD, p, ts, 0), 0);
	join(p, sizeof(p), dir, "d");
	cr_assert_eq(mkdir(p, 0755), 0);
	join(p, sizeof(p), dir, "ln");
	cr_assert_eq(symlink("f", p), 0);
	if (is_root) {
		join(p, sizeof(p), dir, "out");
		cr_assert_eq(symlink("../outside/f", p), 0);
		join(p, sizeof(p), dir, "outdir");
		cr_assert_eq(symlink("../outside", p), 0);
	}
}

static void fixture_make(struct fixture *fx)
{
	char tmpl[64], p[PATH_MAX];

	memset(fx, 0, sizeof(*fx));
	fx->tcp = fx->udp = fx->abstract = fx->rsock = fx->osock = fx->rdsock = fx->odsock = -1;
	snprintf(tmpl, sizeof(tmpl), "/dev/shm/cordon-sym-XXXXXX");
	if (!mkdtemp(tmpl)) {
		snprintf(tmpl, sizeof(tmpl), "/tmp/cordon-sym-XXXXXX");
		cr_assert_not_null(mkdtemp(tmpl), "mkdtemp: %s", strerror(errno));
	}
	live = fx;
	if (!realpath(tmpl, fx->t)) {
		snprintf(fx->t, sizeof(fx->t), "%s", tmpl);
		cr_assert_fail("realpath %s: %s", tmpl, strerror(errno));
	}
	join(fx->r, sizeof(fx->r), fx->t, "root");
	join(fx->o, sizeof(fx->o), fx->t, "outside");
	tree(fx->o, false);
	tree(fx->r, true);

	fx->tcp = listener(AF_INET, SOCK_STREAM, NULL, false, &fx->tcp_port);
	fx->udp = listener(AF_INET, SOCK_DGRAM, NULL, false, &fx->udp_port);
	fx->abstract = listener(AF_UNIX, SOCK_STREAM, fx->t, true, NULL);
	join(p, sizeof(p), fx->r, "sock");
	fx->rsock = listener(AF_UNIX, SOCK_STREAM, p, false, NULL);
	join(p, sizeof(p), fx->o, "sock");
	fx->osock = listener(AF_UNIX, SOCK_STREAM, p, false, NULL);
	join(p, sizeof(p), fx->r, "dsock");
	fx->rdsock = listener(AF_UNIX, SOCK_DGRAM, p, false, NULL);
	join(p, sizeof(p), fx->o, "dsock");
	fx->odsock = listener(AF_UNIX, SOCK_DGRAM, p, false, NULL);
}

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st, (void)ftw;
	if (flag == FTW_DP)
		rmdir(path);
	else
		unlink(path);
	return 0;
}

static void fixture_remove(struct fixture *fx)
{
	int fds[] = { fx->tcp, fx->udp, fx->abstract, fx->rsock, fx->osock, fx->rdsock, fx->odsock };

	for (size_t i = 0; i < sizeof(fds) / sizeof(fds[0]); i++)
		if (fds[i] >= 0)
			close(fds[i]);
	if (fx->t[0])
		nftw(fx->t, rm_one, 16, FTW_DEPTH | FTW_PHYS);
	fx->t[0] = '\0';
	live = NULL;
}

/* .fini of the tests that make fixtures: runs after a failed assertion too. */
static void cleanup(void)
{
	if (live)
		fixture_remove(live);
}

/* Replace the placeholders of @in (see struct probe_case). */
static void expand(const struct fixture *fx, const char *in, char *out, size_t size)
{
	char tcp[16], udp[16];
	const char *empty = preload_first ? "clean" : "empty";
	const struct { const char *name, *value; } ph[] = {
		/* longest first: @T is a prefix of @TCP */
		{ "@EMPTY", empty }, { "@TCP", tcp }, { "@UDP", udp }, { "@T", fx->t },
		{ "@R", fx->r }, { "@O", fx->o }, { "@P", probe_path }, { "@H", helpers_dir },
	};
	size_t n = 0;

	snprintf(tcp, sizeof(tcp), "%d", fx->tcp_port);
	snprintf(udp, sizeof(udp), "%d", fx->udp_port);
	while (*in) {
		const char *v = NULL;
		size_t skip = 1;
		for (size_t i = 0; *in == '@' && i < sizeof(ph) / sizeof(ph[0]) && !v; i++) {
			if (strncmp(in, ph[i].name, strlen(ph[i].name)) == 0) {
				v = ph[i].value;
				skip = strlen(ph[i].name);
			}
		}
		size_t l = v ? strlen(v) : 1;
		cr_assert_lt(n + l, size, "expansion of '%s' too long", in);
		memcpy(out + n, v ? v : in, l);
		n += l;
		in += skip;
	}
	out[n] = '\0';
}

/* --- snapshots: what a refused call must not change --------------------------- */

struct snapshot {
	char **v;
	size_t n, cap;
};

static struct snapshot *snap_into;
static size_t snap_base;

static void snap_add(struct snapshot *s, char *line)
{
	if (s->n == s->cap) {
		size_t cap = s->cap ? 2 * s->cap : 64;
		char **v = realloc(s->v, cap * sizeof(*v));
		cr_assert_not_null(v);
		s->v = v;
		s->cap = cap;
	}
	s->v[s->n++] = line;
}

static uint64_t fnv1a(const unsigned char *p, size_t n, uint64_t h)
{
	for (size_t i = 0; i < n; i++)
		h = (h ^ p[i]) * 0x100000001b3ULL;
	return h;
}

static int snap_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	char line[8192], extra[4096] = "", names[2048];
	size_t n = 0;
	const char *rel = path + snap_base;

	(void)flag, (void)ftw;
	/* what the object holds: content, or where a symlink points */
	if (S_ISREG(st->st_mode)) {
		unsigned char buf[4096];
		uint64_t h = 0xcbf29ce484222325ULL;
		ssize_t got;
		int fd = open(path, O_RDONLY | O_NOATIME | O_NONBLOCK | O_CLOEXEC);
		cr_assert_geq(fd, 0, "open %s: %s", path, strerror(errno));
		while ((got = read(fd, buf, sizeof(buf))) > 0)
			h = fnv1a(buf, (size_t)got, h);
		close(fd);
		n += (size_t)snprintf(extra + n, sizeof(extra) - n, " data=%016llx atime=%lld.%09ld",
				      (unsigned long long)h, (long long)st->st_atim.tv_sec,
				      st->st_atim.tv_nsec);
	} else if (S_ISLNK(st->st_mode)) {
		char target[PATH_MAX];
		ssize_t l = readlink(path, target, sizeof(target) - 1);
		cr_assert_geq(l, 0);
		target[l] = '\0';
		n += (size_t)snprintf(extra + n, sizeof(extra) - n, " -> %s", target);
	}
	/* extended attributes, by name order of the kernel's list */
	ssize_t nl = llistxattr(path, names, sizeof(names));
	for (ssize_t i = 0; i < nl && n < sizeof(extra) - 64; i += (ssize_t)strlen(names + i) + 1) {
		unsigned char val[256];
		ssize_t vl = lgetxattr(path, names + i, val, sizeof(val));
		n += (size_t)snprintf(extra + n, sizeof(extra) - n, " %s=", names + i);
		for (ssize_t k = 0; k < vl && n < sizeof(extra) - 4; k++)
			n += (size_t)snprintf(extra + n, sizeof(extra) - n, "%02x", val[k]);
	}
	snprintf(line, sizeof(line), "%s type=%o mode=%04o owner=%u:%u nlink=%lu size=%lld "
		 "mtime=%lld.%09ld ctime=%lld.%09ld%s",
		 *rel ? rel : "/", (unsigned)(st->st_mode & S_IFMT), (unsigned)(st->st_mode & 07777),
		 (unsigned)st->st_uid, (unsigned)st->st_gid, (unsigned long)st->st_nlink,
		 (long long)st->st_size, (long long)st->st_mtim.tv_sec, st->st_mtim.tv_nsec,
		 (long long)st->st_ctim.tv_sec, st->st_ctim.tv_nsec, extra);
	char *copy = strdup(line);
	cr_assert_not_null(copy);
	snap_add(snap_into, copy);
	return 0;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void snapshot_take(const struct fixture *fx, struct snapshot *s)
{
	memset(s, 0, sizeof(*s));
	snap_into = s;
	snap_base = strlen(fx->t);
	cr_assert_eq(nftw(fx->t, snap_one, 16, FTW_PHYS), 0, "nftw %s: %s", fx->t, strerror(errno));
	qsort(s->v, s->n, sizeof(*s->v), cmp_str);
}

static void snapshot_free(struct snapshot *s)
{
	for (size_t i = 0; i < s->n; i++)
		free(s->v[i]);
	free(s->v);
	memset(s, 0, sizeof(*s));
}

static bool under(const char *line, const char *prefix)
{
	size_t n = prefix ? strlen(prefix) : 0;

	return !prefix || (strncmp(line, prefix, n) == 0 && (line[n] == ' ' || line[n] == '/'));
}

/* The lines that differ between @a and @b (only those under @prefix, if
 * given), "-old" and "+new", into @out; their number. */
static size_t snapshot_diff(const struct snapshot *a, const struct snapshot *b, const char *prefix,
			    char *out, size_t size)
{
	size_t i = 0, j = 0, diffs = 0, n = 0;

	out[0] = '\0';
	while (i < a->n || j < b->n) {
		int c = i == a->n ? 1 : j == b->n ? -1 : strcmp(a->v[i], b->v[j]);
		const char *line = c < 0 ? a->v[i] : b->v[j];
		if (c == 0) {
			i++, j++;
			continue;
		}
		c < 0 ? i++ : j++;
		if (!under(line, prefix))
			continue;
		diffs++;
		if (n < size)
			n += (size_t)snprintf(out + n, size - n, "\n  %c%s", c < 0 ? '-' : '+', line);
	}
	return diffs;
}

/* --- running the probe ---------------------------------------------------------- */

struct result {
	int status;                /* exit status, or 128+signal */
	char out[16384], err[65536];
};

static void env_put(char **env, size_t *n, size_t max, char *entry)
{
	size_t nl = strcspn(entry, "=") + 1;

	for (size_t i = 0; i < *n; i++) {
		if (strncmp(env[i], entry, nl) == 0) {
			env[i] = entry;
			return;
		}
	}
	cr_assert_lt(*n, max - 1);
	env[(*n)++] = entry;
}

/*
 * The environment of a run. Under the sanitizer build the ASan runtime
 * must come first in LD_PRELOAD, and a program exec'd with an empty
 * environment gets only the shim back (the shim puts itself first), so
 * ASan would refuse to start: there, "@EMPTY" is the probe's "clean"
 * (environ minus LD_PRELOAD and CORDON_*) and ASAN_OPTIONS allows the
 * order.
 */
static void base_env(const struct fixture *fx, const struct probe_case *c, bool shim,
		     char store[][PATH_MAX * 2], char **env, size_t max)
{
	size_t n = 0, k = 0;

	snprintf(store[k], sizeof(store[k]), "PATH=/usr/bin:/bin");
	env_put(env, &n, max, store[k++]);
	if (shim) {
		snprintf(store[k], sizeof(store[k]), "LD_PRELOAD=%s%s%s",
			 preload_first ? preload_first : "", preload_first ? ":" : "", lib_path);
		env_put(env, &n, max, store[k++]);
	}
	snprintf(store[k], sizeof(store[k]), "CORDON_WRITE=%s", fx->r);
	env_put(env, &n, max, store[k++]);
	if (preload_first) {
		const char *asan = getenv("ASAN_OPTIONS");
		snprintf(store[k], sizeof(store[k]), "ASAN_OPTIONS=%s%sverify_asan_link_order=0",
			 asan ? asan : "", asan ? ":" : "");
		env_put(env, &n, max, store[k++]);
		const char *ubsan = getenv("UBSAN_OPTIONS");
		if (ubsan) {
			snprintf(store[k], sizeof(store[k]), "UBSAN_OPTIONS=%s", ubsan);
			env_put(env, &n, max, store[k++]);
		}
	}
	for (size_t i = 0; i < sizeof(c->env) / sizeof(c->env[0]) && c->env[i]; i++) {
		expand(fx, c->env[i], store[k], sizeof(store[k]));
		env_put(env, &n, max, store[k++]);
	}
	env[n] = NULL;
}

static void read_all(int fd, char *buf, size_t size)
{
	size_t n = 0;
	ssize_t got;

	lseek(fd, 0, SEEK_SET);
	while (n < size - 1 && (got = read(fd, buf + n, size - 1 - n)) > 0)
		n += (size_t)got;
	buf[n] = '\0';
	close(fd);
}

static void run_probe(const struct fixture *fx, const struct probe_case *c, bool shim,
		      struct result *res)
{
	static char store[16][PATH_MAX * 2], argstore[20][PATH_MAX * 2];
	char *env[16], *argv[20];
	size_t na = 0;
	int out = memfd_create("probe-stdout", MFD_CLOEXEC);
	int err = memfd_create("probe-stderr", MFD_CLOEXEC);

	cr_assert(out >= 0 && err >= 0, "memfd_create: %s", strerror(errno));
	base_env(fx, c, shim, store, env, sizeof(env) / sizeof(env[0]));
	const char *const *words = c->cmd[0] ? c->cmd : c->args;
	size_t nw = c->cmd[0] ? sizeof(c->cmd) / sizeof(c->cmd[0]) :
				sizeof(c->args) / sizeof(c->args[0]);
	argv[na++] = probe_path;
	if (!c->cmd[0])
		argv[na++] = (char *)c->sym;
	for (size_t i = 0; i < nw && words[i]; i++) {
		expand(fx, words[i], argstore[i], sizeof(argstore[i]));
		argv[na++] = argstore[i];
	}
	argv[na] = NULL;

	fflush(NULL);
	pid_t pid = fork();
	cr_assert_geq(pid, 0, "fork: %s", strerror(errno));
	if (pid == 0) {
		if (dup2(out, 1) < 0 || dup2(err, 2) < 0 || chdir(fx->t) < 0)
			_exit(126);
		umask(022);
		execve(probe_path, argv, env);
		_exit(127);
	}
	int st;
	while (waitpid(pid, &st, 0) < 0)
		cr_assert_eq(errno, EINTR, "waitpid: %s", strerror(errno));
	res->status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
	read_all(out, res->out, sizeof(res->out));
	read_all(err, res->err, sizeof(res->err));
	size_t l = strlen(res->out);
	if (l && res->out[l - 1] == '\n')
		res->out[l - 1] = '\0';
}

/* "probe SYM ARGS... [ENV...]", for messages. */
static const char *describe(const struct probe_case *c)
{
	static char buf[2048];
	size_t n = (size_t)snprintf(buf, sizeof(buf), "%s %s:", c->refused ? "refused" : "allowed",
				    c->sym);

	if (!c->cmd[0])
		n += (size_t)snprintf(buf + n, sizeof(buf) - n, " %s", c->sym);
	for (size_t i = 0; i < sizeof(c->args) / sizeof(c->args[0]) && c->args[i]; i++)
		n += (size_t)snprintf(buf + n, sizeof(buf) - n, " '%s'", c->args[i]);
	for (size_t i = 0; i < sizeof(c->cmd) / sizeof(c->cmd[0]) && c->cmd[i]; i++)
		n += (size_t)snprintf(buf + n, sizeof(buf) - n, " '%s'", c->cmd[i]);
	for (size_t i = 0; i < sizeof(c->env) / sizeof(c->env[0]) && c->env[i]; i++)
		n += (size_t)snprintf(buf + n, sizeof(buf) - n, " [%s]", c->env[i]);
	return buf;
}

/* --- checks of the effect ---------------------------------------------------------- */

static int count_accepted(int fd)
{
	int n = 0, c;

	while ((c = accept4(fd, NULL, NULL, SOCK_CLOEXEC)) >= 0) {
		close(c);
		n++;
	}
	cr_assert(errno == EAGAIN || errno == EWOULDBLOCK, "accept: %s", strerror(errno));
	return n;
}

static int count_received(int fd)
{
	char buf[64];
	ssize_t got;
	int n = 0;

	while ((got = recv(fd, buf, sizeof(buf), MSG_DONTWAIT)) >= 0) {
		cr_assert(got == sizeof(MSG) - 1 && memcmp(buf, MSG, (size_t)got) == 0,
			  "received %zd unexpected bytes", got);
		n++;
	}
	cr_assert(errno == EAGAIN || errno == EWOULDBLOCK, "recv: %s", strerror(errno));
	return n;
}

static int socket_named(const struct fixture *fx, const char *what, bool stream)
{
	char p[PATH_MAX];

	if (strcmp(what, "tcp") == 0)
		return fx->tcp;
	if (strcmp(what, "udp") == 0)
		return fx->udp;
	if (strcmp(what, "abstract") == 0)
		return fx->abstract;
	join(p, sizeof(p), fx->r, stream ? "sock" : "dsock");
	if (strcmp(what, p) == 0)
		return stream ? fx->rsock : fx->rdsock;
	join(p, sizeof(p), fx->o, stream ? "sock" : "dsock");
	if (strcmp(what, p) == 0)
		return stream ? fx->osock : fx->odsock;
	cr_assert_fail("no fixture socket '%s'", what);
	return -1;
}

static long long number(const char *s, int base)
{
	char *end;
	long long v = strtoll(s, &end, base);

	cr_assert(*s && !*end, "not a number: '%s'", s);
	return v;
}

static void check(const struct fixture *fx, const char *spec, const char *what)
{
	char buf[PATH_MAX * 2], *save = NULL;
	struct stat st;

	expand(fx, spec, buf, sizeof(buf));
	char *op = strtok_r(buf, " ", &save);
	char *path = strtok_r(NULL, " ", &save);
	char rest[PATH_MAX];  /* the rest, unsplit: a content may hold spaces */
	cr_assert(op && path, "bad check '%s'", spec);
	snprintf(rest, sizeof(rest), "%s", save ? save : "");
	char *arg = *rest ? strtok_r(NULL, " ", &save) : NULL;
	char *arg2 = arg ? strtok_r(NULL, " ", &save) : NULL;
	bool exists = lstat(path, &st) == 0;

	if (strcmp(op, "absent") == 0) {
		cr_assert(!exists, "%s: %s still exists", what, path);
		return;
	}
	if (strcmp(op, "accepted") == 0 || strcmp(op, "received") == 0) {
		bool stream = op[0] == 'a';
		int fd = socket_named(fx, path, stream);
		int got = stream ? count_accepted(fd) : count_received(fd);
		cr_assert_eq(got, number(arg, 10), "%s: %s %d on %s, expected %s", what, op, got,
			     path, arg);
		return;
	}
	if (strcmp(op, "glob") == 0) {
		glob_t g;
		int r = glob(path, 0, NULL, &g);
		size_t found = r == 0 ? g.gl_pathc : 0;
		cr_assert_eq(found, (size_t)number(arg, 10), "%s: %zu matches of %s, expected %s", what,
			     found, path, arg);
		for (size_t i = 0; arg2 && i < found; i++) {
			cr_assert_eq(lstat(g.gl_pathv[i], &st), 0);
			cr_assert(strcmp(arg2, "dir") == 0 ? S_ISDIR(st.st_mode) : S_ISREG(st.st_mode),
				  "%s: %s is not a %s", what, g.gl_pathv[i], arg2);
		}
		if (r == 0)
			globfree(&g);
		return;
	}
	if (strcmp(op, "noxattr") == 0) {
		char v[256];
		cr_assert(exists, "%s: %s missing", what, path);
		cr_assert_lt(lgetxattr(path, arg, v, sizeof(v)), 0, "%s: %s still has %s", what, path,
			     arg);
		cr_assert_eq(errno, ENODATA);
		return;
	}
	cr_assert(exists, "%s: %s missing: %s", what, path, strerror(errno));
	if (strcmp(op, "reg") == 0 || strcmp(op, "dir") == 0 || strcmp(op, "fifo") == 0 ||
	    strcmp(op, "sock") == 0) {
		mode_t want = op[0] == 'r' ? S_IFREG : op[0] == 'd' ? S_IFDIR :
			      op[0] == 'f' ? S_IFIFO : S_IFSOCK;
		cr_assert_eq(st.st_mode & S_IFMT, want, "%s: %s is not a %s (mode %o)", what, path, op,
			     (unsigned)st.st_mode);
		if (arg)
			cr_assert_eq(st.st_mode & 07777, (mode_t)number(arg, 8),
				     "%s: %s has mode %04o, expected %s", what, path,
				     (unsigned)(st.st_mode & 07777), arg);
	} else if (strcmp(op, "symlink") == 0) {
		char target[PATH_MAX];
		ssize_t l = readlink(path, target, sizeof(target) - 1);
		cr_assert_geq(l, 0, "%s: %s is not a symlink", what, path);
		target[l] = '\0';
		cr_assert_str_eq(target, arg, "%s: %s -> %s, expected %s", what, path, target, arg);
	} else if (strcmp(op, "size") == 0) {
		cr_assert_eq(st.st_size, number(arg, 10), "%s: %s has size %lld, expected %s", what,
			     path, (long long)st.st_size, arg);
	} else if (strcmp(op, "mode") == 0) {
		cr_assert_eq(st.st_mode & 07777, (mode_t)number(arg, 8), "%s: %s has mode %04o, expected %s",
			     what, path, (unsigned)(st.st_mode & 07777), arg);
	} else if (strcmp(op, "owner") == 0) {
		cr_assert(st.st_uid == (uid_t)number(arg, 10) && st.st_gid == (gid_t)number(arg2, 10),
			  "%s: %s owned by %u:%u, expected %s:%s", what, path, (unsigned)st.st_uid,
			  (unsigned)st.st_gid, arg, arg2);
	} else if (strcmp(op, "mtime") == 0) {
		cr_assert_eq(st.st_mtim.tv_sec, number(arg, 10), "%s: %s has mtime %lld, expected %s",
			     what, path, (long long)st.st_mtim.tv_sec, arg);
	} else if (strcmp(op, "nlink") == 0) {
		cr_assert_eq(st.st_nlink, (nlink_t)number(arg, 10), "%s: %s has %lu links, expected %s",
			     what, path, (unsigned long)st.st_nlink, arg);
	} else if (strcmp(op, "content") == 0) {
		char data[4096];
		int fd = open(path, O_RDONLY | O_CLOEXEC);
		cr_assert_geq(fd, 0, "%s: open %s: %s", what, path, strerror(errno));
		ssize_t got = read(fd, data, sizeof(data) - 1);
		close(fd);
		data[got > 0 ? got : 0] = '\0';
		cr_assert_str_eq(data, rest, "%s: %s holds '%s', expected '%s'", what, path, data, rest);
	} else if (strcmp(op, "xattr") == 0) {
		char v[256];
		ssize_t l = lgetxattr(path, arg, v, sizeof(v) - 1);
		cr_assert_geq(l, 0, "%s: %s has no %s: %s", what, path, arg, strerror(errno));
		v[l] = '\0';
		cr_assert_str_eq(v, arg2, "%s: %s %s=%s, expected %s", what, path, arg, v, arg2);
	} else {
		cr_assert_fail("unknown check '%s'", spec);
	}
}

static void setup_one(const struct fixture *fx, const char *spec)
{
	char buf[PATH_MAX * 2], *save = NULL;

	expand(fx, spec, buf, sizeof(buf));
	char *op = strtok_r(buf, " ", &save);
	char *path = strtok_r(NULL, " ", &save);
	cr_assert(op && path, "bad setup '%s'", spec);
	if (strcmp(op, "file") == 0)
		mkfile(path, save ? save : "");
	else if (strcmp(op, "dir") == 0)
		cr_assert_eq(mkdir(path, 0755), 0, "mkdir %s: %s", path, strerror(errno));
	else
		cr_assert_fail("unknown setup '%s'", spec);
}

/* --- one case ---------------------------------------------------------------------- */

/* The "cordon: deny" lines of @err; fails on any other line. */
static size_t deny_lines(const char *err, const char **first, const char *what)
{
	size_t n = 0;

	*first = NULL;
	for (const char *l = err; *l;) {
		size_t len = strcspn(l, "\n");
		if (len) {
			cr_assert(strncmp(l, "cordon: deny ", 13) == 0,
				  "%s: unexpected stderr line:\n%.*s\nstderr:\n%s", what, (int)len, l, err);
			if (!n)
				*first = l;
			n++;
		}
		l += len;
		if (*l)
			l++;
	}
	return n;
}

static bool arg_has(const struct probe_case *c, const char *s)
{
	for (size_t i = 0; i < sizeof(c->args) / sizeof(c->args[0]) && c->args[i]; i++)
		if (strstr(c->args[i], s))
			return true;
	for (size_t i = 0; i < sizeof(c->cmd) / sizeof(c->cmd[0]) && c->cmd[i]; i++)
		if (strstr(c->cmd[i], s))
			return true;
	return false;
}

static void run_case(const struct probe_case *c)
{
	static struct fixture fx;
	struct snapshot before, after;
	struct result *res = malloc(sizeof(*res));
	char want[PATH_MAX * 2], diff[8192];
	const char *what = describe(c), *line;

	cr_assert_not_null(res);
	fixture_make(&fx);
	for (size_t i = 0; i < sizeof(c->setup) / sizeof(c->setup[0]) && c->setup[i]; i++)
		setup_one(&fx, c->setup[i]);
	snapshot_take(&fx, &before);
	run_probe(&fx, c, true, res);
	snapshot_take(&fx, &after);

	/* what the probe said, and how it exited */
	expand(&fx, c->out ? c->out : c->refused ? "err EACCES" : "ok", want, sizeof(want));
	cr_assert(fnmatch(want, res->out, 0) == 0,
		  "%s: stdout '%s', expected '%s'\nstderr:\n%s", what, res->out, want, res->err);
	const char *last = strrchr(res->out, '\n');
	last = last ? last + 1 : res->out;
	cr_assert_eq(res->status, strncmp(last, "ok", 2) == 0 ? 0 : 1,
		     "%s: exit status %d after '%s'\nstderr:\n%s", what, res->status, last, res->err);

	/* the log: one line naming the call (and its target), or none */
	size_t nd = deny_lines(res->err, &line, what);
	cr_assert_eq(nd, c->refused ? 1u : 0u, "%s: %zu deny lines, expected %d:\n%s", what, nd,
		     c->refused, res->err);
	if (c->refused) {
		char needle[128], text[PATH_MAX];
		const char *call = c->deny_call ? c->deny_call : c->sym;
		size_t len = strcspn(line, "\n");
		snprintf(needle, sizeof(needle), "(%s", call);
		const char *at = memmem(line, len, needle, strlen(needle));
		cr_assert(at && strchr(" ,)", at[strlen(needle)]),
			  "%s: the deny line does not name %s:\n%.*s", what, call, (int)len, line);
		const char *deny = c->deny ? c->deny : arg_has(c, "@O") ? "@O" : NULL;
		if (deny) {
			expand(&fx, deny, text, sizeof(text));
			cr_assert(memmem(line, len, text, strlen(text)),
				  "%s: the deny line does not name %s:\n%.*s", what, text, (int)len, line);
		}
	}

	/* nothing changed that the call was not allowed to change */
	size_t nd_fs = snapshot_diff(&before, &after, c->refused ? NULL : "/outside", diff,
				     sizeof(diff));
	cr_assert_eq(nd_fs, 0u, "%s: changed %s:%s", what, c->refused ? "the fixture" : "outside/",
		     diff);
	for (size_t i = 0; i < sizeof(c->check) / sizeof(c->check[0]) && c->check[i]; i++)
		check(&fx, c->check[i], what);
	snapshot_free(&before);
	snapshot_free(&after);
	fixture_remove(&fx);

	/* the control: unconfined, the same command meets no EACCES and ends
	 * in success */
	if (c->refused) {
		fixture_make(&fx);
		for (size_t i = 0; i < sizeof(c->setup) / sizeof(c->setup[0]) && c->setup[i]; i++)
			setup_one(&fx, c->setup[i]);
		struct probe_case cc = *c;
		if (c->control[0]) {
			memset(cc.cmd, 0, sizeof(cc.cmd));
			memcpy(cc.cmd, c->control, sizeof(c->control));
		}
		run_probe(&fx, &cc, false, res);
		fixture_remove(&fx);
		last = strrchr(res->out, '\n');
		last = last ? last + 1 : res->out;
		cr_assert(strncmp(last, "ok", 2) == 0 && !strstr(res->out, "err EACCES"),
			  "%s: without the shim the probe says '%s': the case does not test a "
			  "refusal of the shim\nstderr:\n%s", what, res->out, res->err);
	}
	free(res);
}

/* --- the tests ----------------------------------------------------------------------- */

ParameterizedTestParameters(shim_symbols, row_has_allowed_and_refused_case)
{
	static size_t idx[N_ROWS];

	for (size_t i = 0; i < N_ROWS; i++)
		idx[i] = i;
	return cr_make_param_array(size_t, idx, N_ROWS);
}

/* A row added to syms.def without cases fails here. sem_close only undoes
 * the shim's own sem_open (its mapping): nothing there to refuse. */
ParameterizedTest(size_t *i, shim_symbols, row_has_allowed_and_refused_case)
{
	const char *sym = rows[*i];
	size_t allowed = 0, refused = strcmp(sym, "sem_close") == 0;

	for (size_t k = 0; k < N_CASES; k++) {
		if (strcmp(cases[k].sym, sym) == 0) {
			allowed += !cases[k].refused;
			refused += cases[k].refused;
		}
	}
	cr_assert(allowed && refused,
		  "syms.def row %s has %zu allowed and %zu refused cases in test_shim_symbols.c; "
		  "it needs at least one of each", sym, allowed, refused);
}

Test(shim_symbols, cases_name_table_rows)
{
	for (size_t k = 0; k < N_CASES; k++) {
		bool found = false;
		for (size_t i = 0; i < N_ROWS && !found; i++)
			found = strcmp(cases[k].sym, rows[i]) == 0;
		cr_expect(found, "case %zu (%s) names no row of syms.def", k, describe(&cases[k]));
	}
}

ParameterizedTestParameters(shim_symbols, case_inside_allowed_outside_refused)
{
	static size_t idx[N_CASES];

	for (size_t i = 0; i < N_CASES; i++)
		idx[i] = i;
	return cr_make_param_array(size_t, idx, N_CASES);
}

/* One case of the table, in its own process and fixtures. */
ParameterizedTest(size_t *k, shim_symbols, case_inside_allowed_outside_refused, .timeout = 60,
		  .fini = cleanup)
{
	find_build();
	run_case(&cases[*k]);
}

Test(shim_symbols, exports_match_table)
{
	char cmd[PATH_MAX + 64], line[1024], extra[8192] = "", missing[8192] = "";
	bool seen[N_ROWS] = { false };
	size_t ne = 0, nm_ = 0, lines = 0;

	find_build();
	snprintf(cmd, sizeof(cmd), "nm -D --defined-only '%s'", lib_path);
	FILE *p = popen(cmd, "r");
	cr_assert_not_null(p, "popen %s: %s", cmd, strerror(errno));
	while (fgets(line, sizeof(line), p)) {
		char addr[64], type[8], name[512];
		if (sscanf(line, "%63s %7s %511s", addr, type, name) != 3)
			continue;
		lines++;
		name[strcspn(name, "@")] = '\0';  /* name@VERSION */
		bool is_func = strcmp(type, "T") == 0 || strcmp(type, "W") == 0 ||
			       strcmp(type, "i") == 0;
		size_t i = 0;
		while (i < N_ROWS && strcmp(rows[i], name) != 0)
			i++;
		if (i < N_ROWS && is_func) {
			seen[i] = true;
		} else {
			ne++;
			size_t l = strlen(extra);
			snprintf(extra + l, sizeof(extra) - l, " %s(%s)", name, type);
		}
	}
	int st = pclose(p);
	cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0, "%s failed (status %d)", cmd, st);
	cr_assert_gt(lines, 0u, "%s printed nothing", cmd);
	for (size_t i = 0; i < N_ROWS; i++) {
		if (!seen[i]) {
			nm_++;
			size_t l = strlen(missing);
			snprintf(missing + l, sizeof(missing) - l, " %s", rows[i]);
		}
	}
	cr_assert(ne == 0 && nm_ == 0,
		  "%s: exports differ from shim/syms.def (%zu rows)\n  not in the table (or not "
		  "functions):%s\n  rows not exported:%s",
		  lib_path, N_ROWS, ne ? extra : " none", nm_ ? missing : " none");
}

/* The canary check itself: the snapshot is stable, and sees each kind of
 * change a refused call might have made. */
static void mutate(const struct fixture *fx, int kind)
{
	char f[PATH_MAX], g[PATH_MAX];
	struct timespec ts[2] = { { 1, 0 }, { 1, 0 } };
	int fd;

	join(f, sizeof(f), fx->o, "f");
	join(g, sizeof(g), fx->o, "g");
	switch (kind) {
	case 0: cr_assert_eq(chmod(f, 0600), 0); break;
	case 1: cr_assert_eq(chown(f, 1234, 1234), 0); break;
	case 2: cr_assert_eq(utimensat(AT_FDCWD, f, ts, 0), 0); break;
	case 3: cr_assert_eq(setxattr(f, "user.cordon", "2", 1, 0), 0); break;
	case 4: cr_assert_eq(removexattr(f, "user.cordon"), 0); break;
	case 5: /* same size, other bytes, times put back */
		fd = open(f, O_WRONLY | O_CLOEXEC);
		cr_assert_geq(fd, 0);
		cr_assert_eq(pwrite(fd, "C", 1, 0), 1);
		close(fd);
		ts[0].tv_sec = ts[1].tv_sec = CANARY_TIME;
		cr_assert_eq(utimensat(AT_FDCWD, f, ts, 0), 0);
		break;
	case 6: mkfile(g, ""); break;
	case 7: cr_assert_eq(unlink(f), 0); break;
	case 8: cr_assert_eq(rename(f, g), 0); break;
	case 9: cr_assert_eq(link(f, g), 0); break;
	case 10: cr_assert_eq(truncate(f, 0), 0); break;
	default: cr_assert_fail("no mutation %d", kind);
	}
}

Test(shim_symbols, snapshot_change_detected, .fini = cleanup)
{
	static struct fixture fx;
	struct snapshot a, b;
	char diff[4096];

	for (int kind = 0; kind <= 10; kind++) {
		fixture_make(&fx);
		snapshot_take(&fx, &a);
		snapshot_take(&fx, &b);
		cr_assert_eq(snapshot_diff(&a, &b, NULL, diff, sizeof(diff)), 0u, "unstable:%s", diff);
		snapshot_free(&b);
		mutate(&fx, kind);
		snapshot_take(&fx, &b);
		cr_assert_gt(snapshot_diff(&a, &b, "/outside", diff, sizeof(diff)), 0u,
			     "mutation %d not seen", kind);
		cr_assert_eq(snapshot_diff(&a, &b, "/root", diff, sizeof(diff)), 0u,
			     "mutation %d seen under root/:%s", kind, diff);
		snapshot_free(&a);
		snapshot_free(&b);
		fixture_remove(&fx);
	}
}
