/*
 * bench_run.c - `make bench`: what cordon costs, per operation, at
 * start-up and on a real build, side by side with its peers, in one run.
 *
 *   build/bench/bench_run [--quick] [--out DIR] [--src DIR]
 *
 * Sections (docs/performance.md explains how to read them):
 *   ops      every operation family of bench_ops under each configuration:
 *            bare, shim (LD_PRELOAD), jail (cordon run --shim no), cordon
 *            (shim + jail), warn (--mode warn, logging to a file), the
 *            Landlock sample sandboxer's rules (bench_llsample), and the
 *            peers bwrap, firejail, fakeroot and proot where they run
 *   scaling  the shim's write-open against bare by number of write roots
 *            and by depth beneath the root; and, in-process, the decision
 *            alone (bench_pathset)
 *   startup  /bin/true bare and under each configuration, and under each
 *            network mode
 *   build    cordon's own sources built with make -j2, bare and under
 *            cordon run with the default policy
 *
 * Rounds interleave the configurations (each round visits all of them, in
 * an order rotated by one each round), so drift on a shared machine falls
 * on every configuration alike. A figure is the median over rounds, with
 * min and max; a ratio is the median of the per-round ratios to bare.
 * Output: DIR/results.json, DIR/results.md (also printed), and SVG plots
 * when gnuplot is installed. Nothing here asserts a speed: the report
 * states each target of the issue and whether this run met it.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"

extern char **environ;

#define MAX_ROUNDS 64
#define MAX_ARGS 64
#define RUN_TIMEOUT_MS 120000

/* --- settings ------------------------------------------------------------ */

static bool quick;
static int rounds = 15, start_rounds = 30, build_rounds = 5;
static long budget_us = 10000;
static char out_dir[PATH_MAX], src_dir[PATH_MAX], bin_dir[PATH_MAX], build_dir[PATH_MAX];
static char base[PATH_MAX], work[PATH_MAX], outside[PATH_MAX], logs[PATH_MAX];
static char cordon[PATH_MAX], shim_lib[PATH_MAX], ops_bin[PATH_MAX], llsample[PATH_MAX];
static char min_policy[PATH_MAX], port_str[16];
static int port, policy_fd = -1;
static char **env_bare, **env_shim;
static FILE *json;
static bool json_first = true;

static void fail(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fputs("bench_run: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	exit(1);
}

/* Values over rounds; 0 marks a round with no figure. */
struct series {
	double v[MAX_ROUNDS];
	int n;
	long calls, failed, refused;
};

struct stats {
	double median, min, max;
	int n;
};

static struct stats summarize(const struct series *s)
{
	double v[MAX_ROUNDS];
	struct stats st = { 0, 0, 0, 0 };

	for (int i = 0; i < s->n; i++)
		if (s->v[i] > 0)
			v[st.n++] = s->v[i];
	if (!st.n)
		return st;
	qsort(v, (size_t)st.n, sizeof(double), cmp_double);
	st.min = v[0];
	st.max = v[st.n - 1];
	st.median = st.n % 2 ? v[st.n / 2] : (v[st.n / 2 - 1] + v[st.n / 2]) / 2;
	return st;
}

/* Median of the per-round ratios of @s to @ref (rounds where both ran). */
static double ratio(const struct series *s, const struct series *ref)
{
	struct series r = { .n = 0 };

	for (int i = 0; i < s->n && i < ref->n; i++)
		r.v[r.n++] = s->v[i] > 0 && ref->v[i] > 0 ? s->v[i] / ref->v[i] : 0;
	return summarize(&r).median;
}

/* --- running programs ---------------------------------------------------- */

struct cmd {
	char *argv[MAX_ARGS];
	int argc;
	char **env;
	const char *cwd;
};

static void add(struct cmd *c, const char *arg)
{
	if (c->argc + 1 >= MAX_ARGS)
		fail("too many arguments");
	c->argv[c->argc++] = (char *)arg;
	c->argv[c->argc] = NULL;
}

/* Run @c; its stdout into @out (may be NULL), stderr into @err_file.
 * Returns the wait status, or -1. @ns gets the wall time from spawn to
 * reap. */
static int run(const struct cmd *c, char *out, size_t outsize, const char *err_file, double *ns)
{
	posix_spawn_file_actions_t fa;
	int p[2] = { -1, -1 }, status = -1;
	size_t got = 0;
	pid_t pid;

	if (out && pipe2(p, O_CLOEXEC) < 0)
		return -1;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	if (out)
		posix_spawn_file_actions_adddup2(&fa, p[1], 1);
	else
		posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
	posix_spawn_file_actions_addopen(&fa, 2, err_file ? err_file : "/dev/null",
					 O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (c->cwd)
		posix_spawn_file_actions_addchdir_np(&fa, c->cwd);
	double t0 = now_ns();
	int e = posix_spawn(&pid, c->argv[0], &fa, NULL, c->argv, c->env ? c->env : env_bare);
	posix_spawn_file_actions_destroy(&fa);
	if (out)
		close(p[1]);
	if (e) {
		if (out)
			close(p[0]);
		errno = e;
		return -1;
	}
	if (out) {
		struct pollfd pfd = { p[0], POLLIN, 0 };
		for (;;) {
			if (poll(&pfd, 1, RUN_TIMEOUT_MS) <= 0) {
				kill(pid, SIGKILL);
				break;
			}
			ssize_t n = read(p[0], out + got, outsize - 1 - got);
			if (n <= 0)
				break;
			got += (size_t)n;
			if (got == outsize - 1)
				break;
		}
		out[got] = '\0';
		close(p[0]);
	}
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (ns)
		*ns = now_ns() - t0;
	return status;
}

static const char *first_line(const char *file, char *buf, size_t size)
{
	FILE *f = fopen(file, "r");

	buf[0] = '\0';
	if (f) {
		if (fgets(buf, (int)size, f))
			buf[strcspn(buf, "\n")] = '\0';
		fclose(f);
	}
	return buf[0] ? buf : "no message";
}

/* --- configurations -------------------------------------------------------- */

enum cfg_id {
	C_BARE, C_SHIM, C_JAIL, C_CORDON, C_WARN, C_LLSAMPLE, C_BWRAP, C_FIREJAIL, C_FAKEROOT,
	C_PROOT, N_CFG
};

struct config {
	const char *name;
	const char *what;
	const char *tool;  /* a peer's program, found on PATH */
	char path[PATH_MAX];
	bool ok;
	char why[256];
};

static struct config cfgs[N_CFG] = {
	[C_BARE] = { "bare", "the program alone", NULL, "", true, "" },
	[C_SHIM] = { "shim", "LD_PRELOAD=libcordon.so, the policy in a sealed memfd", NULL, "", true, "" },
	[C_JAIL] = { "jail", "cordon run --shim no: Landlock + seccomp, no shim", NULL, "", true, "" },
	[C_CORDON] = { "cordon", "cordon run: shim + Landlock + seccomp", NULL, "", true, "" },
	[C_WARN] = { "warn", "cordon run --mode warn --log-file: shim only, logging refusals to a file",
		     NULL, "", true, "" },
	[C_LLSAMPLE] = { "landlock-sample",
			 "the kernel's sample sandboxer's rules: read on /, all rights on the work tree",
			 NULL, "", true, "" },
	[C_BWRAP] = { "bwrap", "bubblewrap: read-only / bind, the work tree bound writable", "bwrap",
		      "", false, "" },
	[C_FIREJAIL] = { "firejail", "firejail --noprofile, / read-only, the work tree read-write",
			 "firejail", "", false, "" },
	[C_FAKEROOT] = { "fakeroot", "fakeroot: an LD_PRELOAD interposer", "fakeroot", "", false, "" },
	[C_PROOT] = { "proot", "proot: ptrace", "proot", "", false, "" },
};

static bool on_path(const char *tool, char out[PATH_MAX])
{
	const char *path = getenv("PATH");
	char dirs[4096];

	snprintf(dirs, sizeof(dirs), "%s", path ? path : "/usr/bin:/bin");
	for (char *d = strtok(dirs, ":"); d; d = strtok(NULL, ":")) {
		snprintf(out, PATH_MAX, "%s/%s", d, tool);
		if (access(out, X_OK) == 0)
			return true;
	}
	return false;
}

/* The command that runs under configuration @id, writable tree @rw,
 * without the program's own arguments. @policy: cordon's policy file. */
static void prefix(struct cmd *c, enum cfg_id id, const char *rw, const char *policy)
{
	static char warn_log[PATH_MAX + 16], read_write[PATH_MAX + 16];

	memset(c, 0, sizeof(*c));
	c->env = env_bare;
	switch (id) {
	case C_BARE:
		break;
	case C_SHIM:
		c->env = env_shim;
		break;
	case C_JAIL:
	case C_CORDON:
	case C_WARN:
		add(c, cordon);
		add(c, "run");
		add(c, "--policy");
		add(c, policy);
		if (id == C_JAIL) {
			add(c, "--shim");
			add(c, "no");
		} else if (id == C_WARN) {
			snprintf(warn_log, sizeof(warn_log), "%s/warn.log", logs);
			add(c, "--mode");
			add(c, "warn");
			add(c, "--log-file");
			add(c, warn_log);
		}
		add(c, "--");
		break;
	case C_LLSAMPLE:
		add(c, llsample);
		add(c, "/");
		add(c, rw);
		break;
	case C_BWRAP:
		add(c, cfgs[id].path);
		add(c, "--ro-bind");
		add(c, "/");
		add(c, "/");
		add(c, "--dev");
		add(c, "/dev");
		/* --dev hides /dev/shm, where the trees live: bind it back
		 * read-only, then the work tree writable. */
		add(c, "--ro-bind");
		add(c, "/dev/shm");
		add(c, "/dev/shm");
		add(c, "--bind");
		add(c, rw);
		add(c, rw);
		add(c, "--proc");
		add(c, "/proc");
		add(c, "--unshare-pid");
		add(c, "--unshare-ipc");
		add(c, "--unshare-uts");
		add(c, "--die-with-parent");
		add(c, "--");
		break;
	case C_FIREJAIL:
		snprintf(read_write, sizeof(read_write), "--read-write=%s", rw);
		add(c, cfgs[id].path);
		add(c, "--quiet");
		add(c, "--noprofile");
		add(c, "--read-only=/");
		add(c, "--read-only=/dev/shm");
		add(c, read_write);
		add(c, "--");
		break;
	case C_FAKEROOT:
		add(c, cfgs[id].path);
		add(c, "--");
		break;
	case C_PROOT:
		add(c, cfgs[id].path);
		break;
	case N_CFG:
		break;
	}
}

/* Can @id run a program here? Peers that are missing or fail say why. */
static void probe_config(enum cfg_id id)
{
	struct config *cf = &cfgs[id];
	char err[PATH_MAX], line[256];
	struct cmd c;

	if (cf->tool && !on_path(cf->tool, cf->path)) {
		snprintf(cf->why, sizeof(cf->why), "%s is not installed (make bench-deps installs it)",
			 cf->tool);
		return;
	}
	prefix(&c, id, work, min_policy);
	add(&c, "/bin/true");
	snprintf(err, sizeof(err), "%s/probe-%s.err", logs, cf->name);
	int st = run(&c, NULL, 0, err, NULL);
	cf->ok = st == 0;
	if (!cf->ok)
		snprintf(cf->why, sizeof(cf->why), "%s /bin/true failed (%s %d): %s", cf->name,
			 st >= 0 && WIFSIGNALED(st) ? "signal" : "status",
			 st < 0 ? -1 : WIFSIGNALED(st) ? WTERMSIG(st) : WEXITSTATUS(st),
			 first_line(err, line, sizeof(line)));
}

/* --- JSON ---------------------------------------------------------------------- */

static void json_record(const char *fmt, ...)
{
	va_list ap;

	fprintf(json, "%s\n    {", json_first ? "" : ",");
	json_first = false;
	va_start(ap, fmt);
	vfprintf(json, fmt, ap);
	va_end(ap);
	fputc('}', json);
}

/* --- ops --------------------------------------------------------------------- */

static const char *const op_names[] = { "read-open", "stat",  "write-open", "create",
					"unlink",    "rename", "mkdir",      "rmdir",
					"chmod",     "symlink", "connect",   "denied-write" };
#define N_OPS (sizeof(op_names) / sizeof(op_names[0]))

static struct series ops[N_CFG][N_OPS];
/* The bare run next to each configuration's, round by round: ratios are
 * taken between neighbours in time, which drift on a shared machine
 * spares. ops[C_BARE] holds each round's median of them. */
static struct series pair_bare[N_CFG][N_OPS];

static int op_index(const char *name)
{
	for (size_t i = 0; i < N_OPS; i++)
		if (strcmp(op_names[i], name) == 0)
			return (int)i;
	return -1;
}

/* Parse bench_ops' "@op NAME NS CALLS FAILED REFUSED" lines into round @r. */
static int parse_ops(const char *out, struct series *row, int r)
{
	int found = 0;

	for (const char *l = strstr(out, "@op "); l; l = strstr(l + 1, "@op ")) {
		char name[64];
		double ns;
		long calls, failed, refused;
		if (sscanf(l, "@op %63s %lf %ld %ld %ld", name, &ns, &calls, &failed, &refused) != 5)
			continue;
		int i = op_index(name);
		if (i < 0)
			continue;
		row[i].v[r] = ns;
		row[i].n = r + 1 > row[i].n ? r + 1 : row[i].n;
		row[i].calls += calls;
		row[i].failed += failed;
		row[i].refused += refused;
		found++;
	}
	return found;
}

static void worker_args(struct cmd *c, const char *dir, const char *op)
{
	static char budget[32];

	snprintf(budget, sizeof(budget), "%ld", budget_us);
	add(c, ops_bin);
	add(c, "--dir");
	add(c, dir);
	add(c, "--outside");
	add(c, outside);
	add(c, "--port");
	add(c, port_str);
	add(c, "--budget-us");
	add(c, budget);
	add(c, op);
}

static int run_ops(enum cfg_id id, struct series *row, int r)
{
	static char out[16384];
	char err[PATH_MAX], line[256];
	struct cmd c;

	prefix(&c, id, work, min_policy);
	worker_args(&c, work, "all");
	snprintf(err, sizeof(err), "%s/ops-%s.err", logs, cfgs[id].name);
	int st = run(&c, out, sizeof(out), err, NULL);
	if (parse_ops(out, row, r) > 0)
		return 0;
	cfgs[id].ok = false;
	snprintf(cfgs[id].why, sizeof(cfgs[id].why), "bench_ops under %s gave no figures (status %d): %s",
		 cfgs[id].name, st, first_line(err, line, sizeof(line)));
	return -1;
}

static void bench_ops(void)
{
	fprintf(stderr, "ops: %d rounds x %d configurations, each beside a bare run\n", rounds,
		N_CFG - 1);
	for (int r = 0; r < rounds; r++) {
		for (int k = 0; k < N_CFG - 1; k++) {
			enum cfg_id id = (enum cfg_id)(1 + (k + r) % (N_CFG - 1));
			if (!cfgs[id].ok)
				continue;
			/* alternate which of the two goes first */
			for (int side = 0; side < 2; side++) {
				if ((side + r + k) % 2)
					run_ops(id, ops[id], r);
				else
					run_ops(C_BARE, pair_bare[id], r);
			}
		}
		for (size_t op = 0; op < N_OPS; op++) {
			struct series round = { .n = 0 };
			ops[C_BARE][op].calls = 0;
			for (int id = 1; id < N_CFG; id++) {
				if (cfgs[id].ok && pair_bare[id][op].n > r)
					round.v[round.n++] = pair_bare[id][op].v[r];
				ops[C_BARE][op].calls += pair_bare[id][op].calls;
			}
			ops[C_BARE][op].v[r] = summarize(&round).median;
			ops[C_BARE][op].n = r + 1;
		}
		/* The warn log grows by a line per refused call: start each
		 * round with an empty one, so its size does not drift. */
		char wl[PATH_MAX + 16];
		snprintf(wl, sizeof(wl), "%s/warn.log", logs);
		unlink(wl);
	}
}

/* --- scaling ----------------------------------------------------------------- */

static const int root_counts[] = { 1, 10, 100, 1000, 10000 };
static const int depths[] = { 1, 4, 16, 64 };
#define N_ROOTS (sizeof(root_counts) / sizeof(root_counts[0]))
#define N_DEPTHS (sizeof(depths) / sizeof(depths[0]))
static struct series sc_roots[N_ROOTS][2], sc_depth[N_DEPTHS][2], quiet_refusal[2];
static int roots_fd[N_ROOTS];
static char depth_dir[N_DEPTHS][PATH_MAX];

static void mkdirs(const char *path)
{
	char tmp[PATH_MAX];

	snprintf(tmp, sizeof(tmp), "%s", path);
	for (char *p = tmp + 1; *p; p++)
		if (*p == '/') {
			*p = '\0';
			mkdir(tmp, 0755);
			*p = '/';
		}
	mkdir(tmp, 0755);
}

/* A sealed memfd with the policy text, inherited by the shim: how cordon
 * run hands a policy over (the shim takes nothing else). */
static int sealed_policy(const char *text, int extra_roots)
{
	int fd = memfd_create("cordon-policy", MFD_ALLOW_SEALING);
	FILE *f = fd < 0 ? NULL : fdopen(dup(fd), "w");

	if (!f)
		fail("memfd: %s", strerror(errno));
	fputs(text, f);
	for (int i = 1; i < extra_roots; i++) {
		char d[PATH_MAX];
		snprintf(d, sizeof(d), "%s/many/r%05d", base, i);
		mkdirs(d);
		fprintf(f, "write %s\n", d);
	}
	if (fclose(f) != 0 || fcntl(fd, F_ADD_SEALS, F_SEAL_WRITE | F_SEAL_GROW | F_SEAL_SHRINK))
		fail("sealing the policy: %s", strerror(errno));
	return fd;
}

static void set_policy_fd(int fd)
{
	for (char **e = env_shim; *e; e++)
		if (strncmp(*e, "CORDON_POLICY_FD=", 17) == 0)
			sprintf(*e + 17, "%d", fd);
}

/* @op in @dir, bare and under the shim with the policy in @fd, into
 * @pair[0] and @pair[1]. */
static void scaling_run(struct series *pair, int r, const char *dir, int fd, const char *op)
{
	static char out[4096];
	struct cmd c;

	for (int side = 0; side < 2; side++) {
		int which = (side + r) % 2; /* alternate who goes first */
		set_policy_fd(fd);
		prefix(&c, which ? C_SHIM : C_BARE, work, min_policy);
		worker_args(&c, dir, op);
		run(&c, out, sizeof(out), NULL, NULL);
		char name[64];
		double ns;
		long calls, failed, refused;
		const char *at = strstr(out, "@op ");
		if (at && sscanf(at, "@op %63s %lf %ld %ld %ld", name, &ns, &calls, &failed,
				 &refused) == 5) {
			pair[which].v[r] = ns;
			pair[which].calls += calls;
			pair[which].failed += failed;
			pair[which].refused += refused;
		}
		pair[which].n = r + 1;
	}
}

static void bench_scaling(void)
{
	char text[PATH_MAX + 64];

	fprintf(stderr, "scaling: roots and depth, %d rounds\n", rounds);
	snprintf(text, sizeof(text), "log off\nwrite %s\n", work);
	for (size_t i = 0; i < N_ROOTS; i++)
		roots_fd[i] = sealed_policy(text, root_counts[i]);
	for (size_t i = 0; i < N_DEPTHS; i++) {
		size_t len = (size_t)snprintf(depth_dir[i], PATH_MAX, "%s", work);
		for (int d = 1; d < depths[i]; d++)
			len += (size_t)snprintf(depth_dir[i] + len, PATH_MAX - len, "/d");
		mkdirs(depth_dir[i]);
	}
	for (int r = 0; r < rounds; r++) {
		for (size_t i = 0; i < N_ROOTS; i++)
			scaling_run(sc_roots[i], r, work, roots_fd[i], "write-open");
		for (size_t i = 0; i < N_DEPTHS; i++)
			scaling_run(sc_depth[i], r, depth_dir[i], roots_fd[0], "write-open");
		/* a refusal with logging off: what the decision costs */
		scaling_run(quiet_refusal, r, work, roots_fd[0], "denied-write");
	}
	set_policy_fd(policy_fd);
	for (size_t i = 0; i < N_ROOTS; i++)
		close(roots_fd[i]);
}

/* In-process decision cost, from bench_pathset. */
struct decide_row {
	int roots, depth;
	double allow, deny;
};
static struct decide_row decide[64];
static int n_decide;

static void bench_decide(void)
{
	static char out[16384];
	char bin[PATH_MAX + 16];
	struct cmd c = { .argc = 0 };

	fprintf(stderr, "decide: in-process decision cost\n");
	snprintf(bin, sizeof(bin), "%s/bench_pathset", bin_dir);
	add(&c, bin);
	add(&c, quick ? "3" : "9");
	add(&c, quick ? "20000" : "200000");
	run(&c, out, sizeof(out), NULL, NULL);
	for (const char *l = strstr(out, "@decide "); l && n_decide < 64; l = strstr(l + 1, "@decide ")) {
		struct decide_row *d = &decide[n_decide];
		if (sscanf(l, "@decide %d %d %lf %lf", &d->roots, &d->depth, &d->allow, &d->deny) == 4)
			n_decide++;
	}
}

/* --- start-up ----------------------------------------------------------------- */

enum st_id {
	S_BARE, S_DEFAULT, S_MINIMAL, S_ISOLATED, S_NETALL, S_NOSHIM, S_NOOP, S_LLSAMPLE, S_BWRAP,
	S_FIREJAIL, S_FAKEROOT, S_PROOT, N_ST
};

static const struct {
	const char *name, *what;
	enum cfg_id cfg;
	const char *extra[4];
} st_cfgs[N_ST] = {
	[S_BARE] = { "bare", "/bin/true", C_BARE, { NULL } },
	[S_DEFAULT] = { "cordon", "cordon run -- /bin/true: the default policy (net none)", C_CORDON,
			{ NULL } },
	[S_MINIMAL] = { "cordon-minimal", "a policy with one write root, net none, no private TMPDIR",
			C_CORDON, { NULL } },
	[S_ISOLATED] = { "cordon-net-isolated", "the default policy with --net isolated", C_CORDON,
			 { "--net", "isolated" } },
	[S_NETALL] = { "cordon-net-all", "the default policy with --net all", C_CORDON,
		       { "--net", "all" } },
	[S_NOSHIM] = { "cordon-no-shim", "the default policy with --shim no", C_CORDON,
		       { "--shim", "no" } },
	[S_NOOP] = { "cordon-noop", "the default policy with --backend noop: no kernel layer, no self-test",
		     C_CORDON, { "--backend", "noop", "--on-unsupported", "ignore" } },
	[S_LLSAMPLE] = { "landlock-sample", "bench_llsample", C_LLSAMPLE, { NULL } },
	[S_BWRAP] = { "bwrap", "bwrap", C_BWRAP, { NULL } },
	[S_FIREJAIL] = { "firejail", "firejail", C_FIREJAIL, { NULL } },
	[S_FAKEROOT] = { "fakeroot", "fakeroot", C_FAKEROOT, { NULL } },
	[S_PROOT] = { "proot", "proot", C_PROOT, { NULL } },
};
static struct series startup[N_ST];
static char st_why[N_ST][256];

static void startup_cmd(struct cmd *c, enum st_id id)
{
	enum cfg_id cf = st_cfgs[id].cfg;

	if (cf == C_CORDON) {
		memset(c, 0, sizeof(*c));
		c->env = env_bare;
		add(c, cordon);
		add(c, "run");
		if (id == S_MINIMAL) {
			add(c, "--policy");
			add(c, min_policy);
		}
		for (int i = 0; i < 4 && st_cfgs[id].extra[i]; i++)
			add(c, st_cfgs[id].extra[i]);
		add(c, "--");
	} else {
		prefix(c, cf, work, min_policy);
	}
	c->cwd = work;
	add(c, "/bin/true");
}

static void bench_startup(void)
{
	char err[PATH_MAX], line[256];
	bool ok[N_ST];

	fprintf(stderr, "startup: %d rounds\n", start_rounds);
	for (int i = 0; i < N_ST; i++) {
		ok[i] = cfgs[st_cfgs[i].cfg].ok;
		if (!ok[i])
			snprintf(st_why[i], sizeof(st_why[i]), "%s", cfgs[st_cfgs[i].cfg].why);
	}
	for (int r = 0; r < start_rounds; r++)
		for (int k = 0; k < N_ST; k++) {
			enum st_id id = (enum st_id)((k + r) % N_ST);
			struct cmd c;
			double ns;
			if (!ok[id])
				continue;
			startup_cmd(&c, id);
			snprintf(err, sizeof(err), "%s/startup-%s.err", logs, st_cfgs[id].name);
			int st = run(&c, NULL, 0, err, &ns);
			if (st != 0) {
				ok[id] = false;
				snprintf(st_why[id], sizeof(st_why[id]), "status %d: %s", st,
					 first_line(err, line, sizeof(line)));
				continue;
			}
			startup[id].v[r] = ns;
			startup[id].n = r + 1;
			startup[id].calls++;
		}
}

/* --- a real build --------------------------------------------------------------- */

static struct series build[2];
static char build_why[256];
static const char *build_target;

static int sh(const char *fmt, ...)
{
	char cmdline[4 * PATH_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(cmdline, sizeof(cmdline), fmt, ap);
	va_end(ap);
	return system(cmdline);
}

static void bench_build(void)
{
	char dir[PATH_MAX], err[PATH_MAX], line[256];

	build_target = quick ? "build/libcordon.so" : "all";
	fprintf(stderr, "build: make -j2 %s, %d rounds\n", build_target, build_rounds);
	for (int r = 0; r < build_rounds; r++)
		for (int k = 0; k < 2; k++) {
			int side = (k + r) % 2;
			struct cmd c = { .argc = 0 };
			double ns;
			snprintf(dir, sizeof(dir), "%s/build-%d-%d", base, r, side);
			/* A fresh copy each time; dependencies were checked by
			 * the make that built this driver. */
			if (sh("mkdir -p '%s/build' && cp -a '%s/GNUmakefile' '%s/shim' '%s/launcher' "
			       "'%s/jail' '%s/' && touch '%s/build/.deps-ok'",
			       dir, src_dir, src_dir, src_dir, src_dir, dir, dir) != 0) {
				snprintf(build_why, sizeof(build_why), "cannot copy the sources from %s",
					 src_dir);
				return;
			}
			c.env = env_bare;
			c.cwd = dir;
			if (side) {
				add(&c, cordon);
				add(&c, "run");
				add(&c, "--");
			}
			add(&c, "/usr/bin/make");
			add(&c, "-j2");
			add(&c, "-s");
			add(&c, build_target);
			snprintf(err, sizeof(err), "%s/build-%d.err", logs, side);
			int st = run(&c, NULL, 0, err, &ns);
			if (st != 0) {
				snprintf(build_why, sizeof(build_why), "make %s failed%s (status %d): %s",
					 build_target, side ? " under cordon run" : "", st,
					 first_line(err, line, sizeof(line)));
				return;
			}
			build[side].v[r] = ns;
			build[side].n = r + 1;
			build[side].calls++;
			sh("rm -rf '%s'", dir);
		}
}

/* --- the report --------------------------------------------------------------- */

struct target {
	char name[160];
	char value[96];
	bool met;
};
static struct target targets[256];
static int n_targets;

static void target(bool met, const char *value, const char *fmt, ...)
{
	va_list ap;

	if (n_targets >= 256)
		return;
	struct target *t = &targets[n_targets++];
	va_start(ap, fmt);
	vsnprintf(t->name, sizeof(t->name), fmt, ap);
	va_end(ap);
	snprintf(t->value, sizeof(t->value), "%s", value);
	t->met = met;
}

static bool is_write_op(size_t i)
{
	return i >= 2 && i <= 9;  /* write-open .. symlink */
}

static double op_ratio(enum cfg_id id, size_t op)
{
	if (id == C_BARE)
		return 1;
	return cfgs[id].ok ? ratio(&ops[id][op], &pair_bare[id][op]) : 0;
}

static void check_targets(void)
{
	char v[96];
	size_t ro = 0, st = 1, wo = 2, den = N_OPS - 1;

	double x = op_ratio(C_SHIM, wo);
	snprintf(v, sizeof(v), "%.3f", x);
	target(x > 0 && x <= 1.05, v, "shim: allowed write-open <= 1.05x bare");
	x = op_ratio(C_SHIM, ro);
	snprintf(v, sizeof(v), "%.3f", x);
	target(x > 0 && x <= 1.02, v, "shim: read-open (no read-deny) <= 1.02x bare");
	x = summarize(&quiet_refusal[1]).median;
	snprintf(v, sizeof(v), "%.0f ns", x);
	target(x > 0 && x < 1000, v, "shim: a refusal < 1 us (logging off)");
	x = summarize(&ops[C_SHIM][den]).median;
	snprintf(v, sizeof(v), "%.0f ns", x);
	target(x > 0 && x < 1000, v, "shim: a refusal < 1 us (logged to stderr, a file)");
	struct stats a = summarize(&sc_roots[0][1]), b = summarize(&sc_roots[N_ROOTS - 1][1]);
	x = a.median > 0 ? b.median / a.median : 0;
	snprintf(v, sizeof(v), "%+.1f %%", (x - 1) * 100);
	target(x > 0 && x <= 1.10, v, "shim: write-open with 10,000 roots within 10%% of 1 root");

	for (enum cfg_id id = C_JAIL; id <= C_CORDON; id++) {
		for (size_t op = ro; op <= st; op++) {
			x = op_ratio(id, op);
			snprintf(v, sizeof(v), "%.3f", x);
			target(x > 0 && x <= 1.05, v, "%s: %s <= 1.05x bare (no read-deny)", cfgs[id].name,
			       op_names[op]);
		}
		for (size_t op = 0; op < N_OPS; op++) {
			if (!is_write_op(op) || !cfgs[C_LLSAMPLE].ok)
				continue;
			x = op_ratio(id, op);
			double ref = op_ratio(C_LLSAMPLE, op);
			snprintf(v, sizeof(v), "%.3f vs %.3f", x, ref);
			target(x > 0 && x <= ref, v, "%s: %s at or below the Landlock sample's ratio",
			       cfgs[id].name, op_names[op]);
		}
	}
	for (size_t op = 0; op + 1 < N_OPS; op++) {
		double j = op_ratio(C_JAIL, op), c = op_ratio(C_CORDON, op);
		snprintf(v, sizeof(v), "%.3f vs %.3f", c, j);
		target(j > 0 && c > 0 && c - j <= 0.05, v, "shim + jail within 5 points of jail: %s",
		       op_names[op]);
	}
	for (enum cfg_id peer = C_FAKEROOT; peer <= C_PROOT; peer++) {
		if (!cfgs[peer].ok)
			continue;
		int behind = 0;
		char worst[64] = "";
		for (size_t op = 0; op + 1 < N_OPS; op++) {
			double c = op_ratio(C_CORDON, op), p = op_ratio(peer, op);
			if (c > 0 && p > 0 && c >= p) {
				behind++;
				snprintf(worst, sizeof(worst), "%s", op_names[op]);
			}
		}
		snprintf(v, sizeof(v), behind ? "behind on %d (e.g. %s)" : "ahead on all", behind, worst);
		target(behind == 0, v, "cordon ahead of %s on every operation", cfgs[peer].name);
	}
	x = ratio(&startup[S_DEFAULT], &startup[S_BARE]);
	snprintf(v, sizeof(v), "%.2f", x);
	target(x > 0 && x <= 2.5, v, "start-up: cordon run -- /bin/true <= 2.5x bare");
	for (enum st_id p = S_BWRAP; p <= S_FAKEROOT; p++) {
		if (!startup[p].calls)
			continue;
		double y = ratio(&startup[p], &startup[S_BARE]);
		snprintf(v, sizeof(v), "%.2f vs %.2f", x, y);
		target(x > 0 && x < y, v, "start-up: ahead of %s", st_cfgs[p].name);
	}
	if (build[0].calls && build[1].calls) {
		x = ratio(&build[1], &build[0]);
		snprintf(v, sizeof(v), "%.3f", x);
		target(x <= 1.05, v, "the real build (make -j2) <= 1.05x bare");
	}
}

static void plot(const char *name, const char *script)
{
	char gp[PATH_MAX], svg[PATH_MAX];
	FILE *f;

	snprintf(gp, sizeof(gp), "%s/%s.gp", out_dir, name);
	snprintf(svg, sizeof(svg), "%s/%s.svg", out_dir, name);
	f = fopen(gp, "w");
	if (!f)
		return;
	fprintf(f, "set terminal svg size 900,480 dynamic font 'sans,11' background '#ffffff'\n"
		   "set output '%s'\nset termoption noenhanced\nset grid ytics\n"
		   "set key outside right top\nset linetype 9 lc rgb '#777777'\n%s", svg, script);
	fclose(f);
	if (sh("gnuplot '%s' 2>'%s/%s.gp.err'", gp, out_dir, name) != 0)
		fprintf(stderr, "bench_run: gnuplot failed on %s (see %s/%s.gp.err)\n", gp, out_dir, name);
}

static void write_plots(void)
{
	char dat[PATH_MAX], script[8192];
	FILE *f;
	size_t len;

	/* ops: ratio to bare per operation, one bar per configuration */
	snprintf(dat, sizeof(dat), "%s/ops.dat", out_dir);
	f = fopen(dat, "w");
	if (!f)
		return;
	fprintf(f, "op");
	for (int id = 1; id < N_CFG; id++)
		fprintf(f, " %s", cfgs[id].name);
	fputc('\n', f);
	for (size_t op = 0; op + 1 < N_OPS; op++) {
		fprintf(f, "%s", op_names[op]);
		for (enum cfg_id id = 1; id < N_CFG; id++) {
			double x = op_ratio(id, op);
			fprintf(f, x > 0 ? " %.4f" : " NaN", x);
		}
		fputc('\n', f);
	}
	fclose(f);
	len = (size_t)snprintf(script, sizeof(script),
			       "set title 'time per call, ratio to bare (log scale; 1 = no cost)'\n"
			       "set style data histograms\nset style histogram clustered gap 1\n"
			       "set style fill solid 0.9 border -1\nset boxwidth 0.9\nset logscale y\n"
			       "set yrange [0.8:*]\nset xtics rotate by -30\nset key autotitle columnhead\n"
			       "plot '%s' using 2:xtic(1)", dat);
	for (int col = 3; col <= N_CFG; col++)
		len += (size_t)snprintf(script + len, sizeof(script) - len, ", '' using %d", col);
	snprintf(script + len, sizeof(script) - len, "\n");
	plot("ops", script);

	/* scaling: the decision by roots (one line per depth) and by depth */
	snprintf(dat, sizeof(dat), "%s/decide.dat", out_dir);
	f = fopen(dat, "w");
	if (!f)
		return;
	for (int i = 0; i < n_decide; i++) {
		if (i && decide[i].roots != decide[i - 1].roots)
			fprintf(f, "\n\n");
		fprintf(f, "%d %d %.2f %.2f\n", decide[i].roots, decide[i].depth, decide[i].allow,
			decide[i].deny);
	}
	fclose(f);
	snprintf(script, sizeof(script),
		 "set title 'one write decision, in-process (policy_decide_path)'\n"
		 "set xlabel 'components beneath the root'\nset ylabel 'ns'\nset logscale x 2\n"
		 "set yrange [0:*]\n"
		 "plot for [i=0:4] '%s' index i using 2:3 with linespoints "
		 "title sprintf('%%d roots', int(word('1 10 100 1000 10000', i+1)))\n",
		 dat);
	plot("decide", script);

	snprintf(dat, sizeof(dat), "%s/scaling.dat", out_dir);
	f = fopen(dat, "w");
	if (!f)
		return;
	for (size_t i = 0; i < N_ROOTS; i++)
		fprintf(f, "%d %.4f\n", root_counts[i], ratio(&sc_roots[i][1], &sc_roots[i][0]));
	fprintf(f, "\n\n");
	for (size_t i = 0; i < N_DEPTHS; i++)
		fprintf(f, "%d %.4f\n", depths[i], ratio(&sc_depth[i][1], &sc_depth[i][0]));
	fclose(f);
	snprintf(script, sizeof(script),
		 "set title 'shim write-open, ratio to bare'\nset logscale x 10\nset yrange [0.9:1.3]\n"
		 "set xlabel 'write roots (depth 1) / components beneath the root (1 root)'\n"
		 "plot '%s' index 0 using 1:2 with linespoints title 'by number of roots', "
		 "'' index 1 using 1:2 with linespoints title 'by depth', 1.10 title '+10%%' dt 2\n",
		 dat);
	plot("scaling", script);

	snprintf(dat, sizeof(dat), "%s/startup.dat", out_dir);
	f = fopen(dat, "w");
	if (!f)
		return;
	for (int i = 0; i < N_ST; i++)
		if (startup[i].calls)
			fprintf(f, "\"%s\" %.3f\n", st_cfgs[i].name,
				summarize(&startup[i]).median / 1e6);
	fclose(f);
	snprintf(script, sizeof(script),
		 "set title 'start-up: /bin/true, median wall time'\nset ylabel 'ms'\n"
		 "set style fill solid 0.9 border -1\nset boxwidth 0.7\nset xtics rotate by -30\n"
		 "set yrange [0:*]\nset key off\nplot '%s' using 0:2:xtic(1) with boxes\n",
		 dat);
	plot("startup", script);
}

static void report(FILE *md)
{
	struct utsname u;

	uname(&u);
	fprintf(md, "# cordon benchmark%s\n\n", quick ? " (QUICK: a smoke run, figures are rough)" : "");
	fprintf(md, "Kernel %s, %ld CPUs, tmpfs (%s). %d interleaved rounds per figure; "
		    "%ld ms per operation per round; ratios are medians of per-round ratios to bare.\n\n",
		u.release, sysconf(_SC_NPROCESSORS_ONLN), base, rounds, budget_us / 1000);

	fprintf(md, "## Per operation: ratio to bare (median ns per call of bare in the first column)\n\n");
	fprintf(md, "| operation | bare ns |");
	for (int id = 1; id < N_CFG; id++)
		if (cfgs[id].ok)
			fprintf(md, " %s |", cfgs[id].name);
	fprintf(md, "\n|---|---:|");
	for (int id = 1; id < N_CFG; id++)
		if (cfgs[id].ok)
			fprintf(md, "---:|");
	fputc('\n', md);
	for (size_t op = 0; op < N_OPS; op++) {
		struct stats b = summarize(&ops[C_BARE][op]);
		fprintf(md, "| %s | %.0f |", op_names[op], b.median);
		for (enum cfg_id id = 1; id < N_CFG; id++) {
			if (!cfgs[id].ok)
				continue;
			const struct series *s = &ops[id][op];
			if (op == N_OPS - 1) {
				/* a refusal: absolute, and what happened */
				fprintf(md, " %.0f ns %s |", summarize(s).median,
					s->refused ? "refused" : s->failed ? "failed" : "allowed");
			} else if (s->failed) {
				fprintf(md, " %.2f (%ld failed) |", op_ratio(id, op), s->failed);
			} else {
				fprintf(md, " %.2f |", op_ratio(id, op));
			}
		}
		fputc('\n', md);
	}
	fprintf(md, "\ndenied-write is a write-open outside the write roots: absolute ns, and whether "
		    "the configuration refused it.\n\n");

	fprintf(md, "### Spread: median [min - max] ns per call\n\n| operation |");
	for (int id = 0; id < N_CFG; id++)
		if (cfgs[id].ok)
			fprintf(md, " %s |", cfgs[id].name);
	fprintf(md, "\n|---|");
	for (int id = 0; id < N_CFG; id++)
		if (cfgs[id].ok)
			fprintf(md, "---:|");
	fputc('\n', md);
	for (size_t op = 0; op < N_OPS; op++) {
		fprintf(md, "| %s |", op_names[op]);
		for (int id = 0; id < N_CFG; id++) {
			if (!cfgs[id].ok)
				continue;
			struct stats s = summarize(&ops[id][op]);
			fprintf(md, " %.0f [%.0f-%.0f] |", s.median, s.min, s.max);
		}
		fputc('\n', md);
	}

	fprintf(md, "\n### Configurations\n\n");
	for (int id = 0; id < N_CFG; id++)
		fprintf(md, "- **%s**: %s%s%s\n", cfgs[id].name, cfgs[id].what,
			cfgs[id].ok ? "" : ". **Not measured**: ", cfgs[id].ok ? "" : cfgs[id].why);

	fprintf(md, "\n## Scaling\n\nShim write-open against bare, same rounds:\n\n"
		    "| write roots | bare ns | shim ns | ratio |\n|---:|---:|---:|---:|\n");
	for (size_t i = 0; i < N_ROOTS; i++)
		fprintf(md, "| %d | %.0f | %.0f | %.3f |\n", root_counts[i],
			summarize(&sc_roots[i][0]).median, summarize(&sc_roots[i][1]).median,
			ratio(&sc_roots[i][1], &sc_roots[i][0]));
	fprintf(md, "\n| depth beneath the root | bare ns | shim ns | ratio |\n|---:|---:|---:|---:|\n");
	for (size_t i = 0; i < N_DEPTHS; i++)
		fprintf(md, "| %d | %.0f | %.0f | %.3f |\n", depths[i], summarize(&sc_depth[i][0]).median,
			summarize(&sc_depth[i][1]).median, ratio(&sc_depth[i][1], &sc_depth[i][0]));
	fprintf(md, "\nA refusal under the shim with logging off: %.0f ns [%.0f-%.0f] (the same "
		    "open, allowed, bare: %.0f ns).\n",
		summarize(&quiet_refusal[1]).median, summarize(&quiet_refusal[1]).min,
		summarize(&quiet_refusal[1]).max, summarize(&quiet_refusal[0]).median);
	fprintf(md, "\nThe decision alone, in-process (ns per decision, allow / deny):\n\n| roots |");
	for (int i = 0; i < n_decide && decide[i].roots == decide[0].roots; i++)
		fprintf(md, " depth %d |", decide[i].depth);
	fprintf(md, "\n|---:|");
	for (int i = 0; i < n_decide && decide[i].roots == decide[0].roots; i++)
		fprintf(md, "---:|");
	for (int i = 0; i < n_decide; i++) {
		if (!i || decide[i].roots != decide[i - 1].roots)
			fprintf(md, "\n| %d |", decide[i].roots);
		fprintf(md, " %.1f / %.1f |", decide[i].allow, decide[i].deny);
	}

	fprintf(md, "\n\n## Start-up: /bin/true, %d interleaved rounds\n\n"
		    "| configuration | median ms | min - max ms | ratio to bare |\n|---|---:|---:|---:|\n",
		start_rounds);
	for (int i = 0; i < N_ST; i++) {
		if (!startup[i].calls) {
			fprintf(md, "| %s | not measured: %s | | |\n", st_cfgs[i].name, st_why[i]);
			continue;
		}
		struct stats s = summarize(&startup[i]);
		fprintf(md, "| %s | %.2f | %.2f - %.2f | %.2f |\n", st_cfgs[i].name, s.median / 1e6,
			s.min / 1e6, s.max / 1e6, ratio(&startup[i], &startup[S_BARE]));
	}
	fprintf(md, "\n");
	for (int i = 1; i < N_ST; i++)
		if (st_cfgs[i].cfg == C_CORDON)
			fprintf(md, "- %s: %s\n", st_cfgs[i].name, st_cfgs[i].what);

	fprintf(md, "\n## A real build: cordon's sources, make -j2 %s\n\n", build_target);
	if (build_why[0]) {
		fprintf(md, "Not measured: %s\n", build_why);
	} else {
		struct stats b = summarize(&build[0]), c = summarize(&build[1]);
		fprintf(md, "| configuration | median s | min - max s |\n|---|---:|---:|\n"
			    "| bare | %.2f | %.2f - %.2f |\n| cordon run (default policy) | %.2f | %.2f - %.2f |\n"
			    "\nRatio %.3f over %d rounds.\n",
			b.median / 1e9, b.min / 1e9, b.max / 1e9, c.median / 1e9, c.min / 1e9, c.max / 1e9,
			ratio(&build[1], &build[0]), build_rounds);
	}

	fprintf(md, "\n## Targets (from the issue), this run\n\n| target | measured | |\n|---|---:|---|\n");
	for (int i = 0; i < n_targets; i++)
		fprintf(md, "| %s | %s | %s |\n", targets[i].name, targets[i].value,
			targets[i].met ? "met" : "**MISSED**");
}

static void write_json(void)
{
	char path[PATH_MAX];
	struct utsname u;

	snprintf(path, sizeof(path), "%s/results.json", out_dir);
	json = fopen(path, "w");
	if (!json)
		fail("%s: %s", path, strerror(errno));
	uname(&u);
	fprintf(json, "{\n  \"kernel\": \"%s\",\n  \"cpus\": %ld,\n  \"quick\": %s,\n  \"rounds\": %d,\n"
		      "  \"records\": [",
		u.release, sysconf(_SC_NPROCESSORS_ONLN), quick ? "true" : "false", rounds);
	for (int id = 0; id < N_CFG; id++) {
		if (!cfgs[id].ok)
			continue;
		for (size_t op = 0; op < N_OPS; op++) {
			struct stats s = summarize(&ops[id][op]);
			json_record("\"section\": \"ops\", \"op\": \"%s\", \"config\": \"%s\", "
				    "\"median_ns\": %.1f, \"min_ns\": %.1f, \"max_ns\": %.1f, "
				    "\"iterations\": %ld, \"rounds\": %d, \"ratio\": %.4f, "
				    "\"failed\": %ld, \"refused\": %ld",
				    op_names[op], cfgs[id].name, s.median, s.min, s.max, ops[id][op].calls,
				    s.n, op_ratio((enum cfg_id)id, op), ops[id][op].failed,
				    ops[id][op].refused);
		}
	}
	for (int which = 0; which < 2; which++)
		for (size_t i = 0; i < (which ? N_DEPTHS : N_ROOTS); i++) {
			struct series *p = which ? sc_depth[i] : sc_roots[i];
			for (int side = 0; side < 2; side++) {
				struct stats s = summarize(&p[side]);
				json_record("\"section\": \"scaling\", \"axis\": \"%s\", \"value\": %d, "
					    "\"config\": \"%s\", \"op\": \"write-open\", \"median_ns\": %.1f, "
					    "\"min_ns\": %.1f, \"max_ns\": %.1f, \"iterations\": %ld, "
					    "\"rounds\": %d, \"ratio\": %.4f",
					    which ? "depth" : "roots", which ? depths[i] : root_counts[i],
					    side ? "shim" : "bare", s.median, s.min, s.max, p[side].calls, s.n,
					    ratio(&p[side], &p[0]));
			}
		}
	for (int side = 0; side < 2; side++) {
		struct stats q = summarize(&quiet_refusal[side]);
		json_record("\"section\": \"refusal\", \"config\": \"%s\", \"log\": \"off\", "
			    "\"median_ns\": %.1f, \"min_ns\": %.1f, \"max_ns\": %.1f, \"iterations\": %ld, "
			    "\"refused\": %ld",
			    side ? "shim" : "bare", q.median, q.min, q.max, quiet_refusal[side].calls,
			    quiet_refusal[side].refused);
	}
	for (int i = 0; i < n_decide; i++)
		json_record("\"section\": \"decide\", \"roots\": %d, \"depth\": %d, \"allow_ns\": %.2f, "
			    "\"deny_ns\": %.2f",
			    decide[i].roots, decide[i].depth, decide[i].allow, decide[i].deny);
	for (int i = 0; i < N_ST; i++) {
		if (!startup[i].calls)
			continue;
		struct stats s = summarize(&startup[i]);
		json_record("\"section\": \"startup\", \"config\": \"%s\", \"median_ns\": %.0f, "
			    "\"min_ns\": %.0f, \"max_ns\": %.0f, \"iterations\": %ld, \"ratio\": %.4f",
			    st_cfgs[i].name, s.median, s.min, s.max, startup[i].calls,
			    ratio(&startup[i], &startup[S_BARE]));
	}
	for (int side = 0; side < 2 && !build_why[0]; side++) {
		struct stats s = summarize(&build[side]);
		json_record("\"section\": \"build\", \"config\": \"%s\", \"target\": \"%s\", "
			    "\"median_ns\": %.0f, \"min_ns\": %.0f, \"max_ns\": %.0f, \"iterations\": %ld, "
			    "\"ratio\": %.4f",
			    side ? "cordon" : "bare", build_target, s.median, s.min, s.max,
			    build[side].calls, ratio(&build[side], &build[0]));
	}
	for (int i = 0; i < n_targets; i++)
		json_record("\"section\": \"target\", \"target\": \"%s\", \"measured\": \"%s\", "
			    "\"met\": %s",
			    targets[i].name, targets[i].value, targets[i].met ? "true" : "false");
	for (int id = 0; id < N_CFG; id++)
		if (!cfgs[id].ok)
			json_record("\"section\": \"unavailable\", \"config\": \"%s\", \"why\": \"%s\"",
				    cfgs[id].name, cfgs[id].why);
	fprintf(json, "\n  ]\n}\n");
	if (fclose(json) != 0)
		fail("%s: %s", path, strerror(errno));
}

/* Peers may be missing from a machine; cordon's own configurations, the
 * reference sandbox and the build must always give figures, or the
 * harness has rotted: that fails the run (CI's smoke run relies on it). */
static int harness_failed(void)
{
	int bad = 0;

	for (int id = 0; id < N_CFG; id++)
		if (!cfgs[id].tool && !cfgs[id].ok) {
			fprintf(stderr, "bench_run: %s gave no figures: %s\n", cfgs[id].name, cfgs[id].why);
			bad = 1;
		}
	for (int i = 0; i < N_ST; i++)
		if (!cfgs[st_cfgs[i].cfg].tool && !startup[i].calls) {
			fprintf(stderr, "bench_run: start-up under %s not measured: %s\n", st_cfgs[i].name,
				st_why[i]);
			bad = 1;
		}
	if (build_why[0]) {
		fprintf(stderr, "bench_run: the build was not measured: %s\n", build_why);
		bad = 1;
	}
	if (!n_decide || !quiet_refusal[1].refused) {
		fprintf(stderr, "bench_run: the scaling section gave no figures%s\n",
			n_decide && !quiet_refusal[1].refused ? " (the shim refused nothing)" : "");
		bad = 1;
	}
	return bad;
}

/* --- setup ------------------------------------------------------------------------ */

static void *acceptor(void *arg)
{
	int lfd = *(int *)arg;

	for (;;) {
		int fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
		if (fd >= 0)
			close(fd);
	}
	return NULL;
}

static void listen_loopback(void)
{
	static int lfd;
	struct sockaddr_in sa = { .sin_family = AF_INET };
	socklen_t len = sizeof(sa);
	pthread_t t;

	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	lfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (lfd < 0 || bind(lfd, (struct sockaddr *)&sa, sizeof(sa)) < 0 || listen(lfd, 4096) < 0 ||
	    getsockname(lfd, (struct sockaddr *)&sa, &len) < 0)
		fail("loopback listener: %s", strerror(errno));
	port = ntohs(sa.sin_port);
	snprintf(port_str, sizeof(port_str), "%d", port);
	if (pthread_create(&t, NULL, acceptor, &lfd) != 0)
		fail("acceptor thread");
	pthread_detach(t);
}

static char **make_env(bool with_shim)
{
	size_t n = 0, k = 0;
	char **env;

	for (char **e = environ; *e; e++)
		n++;
	env = calloc(n + 3, sizeof(*env));
	if (!env)
		fail("out of memory");
	for (char **e = environ; *e; e++)
		if (strncmp(*e, "LD_PRELOAD=", 11) && strncmp(*e, "CORDON_", 7))
			env[k++] = *e;
	if (with_shim) {
		if (asprintf(&env[k++], "LD_PRELOAD=%s", shim_lib) < 0 ||
		    asprintf(&env[k++], "CORDON_POLICY_FD=%-11d", policy_fd) < 0)
			fail("out of memory");
	}
	return env;
}

static void need(const char *path)
{
	if (access(path, X_OK) != 0)
		fail("%s: %s (run make bench)", path, strerror(errno));
}

static void cleanup(void)
{
	if (base[0])
		sh("rm -rf '%s'", base);
}

int main(int argc, char **argv)
{
	char self[PATH_MAX], text[4 * PATH_MAX];
	ssize_t n;

	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--quick") == 0)
			quick = true;
		else if (strcmp(argv[i], "--out") == 0 && i + 1 < argc)
			snprintf(out_dir, sizeof(out_dir), "%s", argv[++i]);
		else if (strcmp(argv[i], "--src") == 0 && i + 1 < argc)
			snprintf(src_dir, sizeof(src_dir), "%s", argv[++i]);
		else
			fail("unknown option %s (usage: bench_run [--quick] [--out DIR] [--src DIR])", argv[i]);
	}
	if (quick) {
		rounds = 3;
		start_rounds = 5;
		build_rounds = 1;
		budget_us = 2000;
	}
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n < 0)
		fail("/proc/self/exe: %s", strerror(errno));
	self[n] = '\0';
	snprintf(bin_dir, sizeof(bin_dir), "%.*s", (int)(strrchr(self, '/') - self), self);
	snprintf(build_dir, sizeof(build_dir), "%.*s", (int)(strrchr(bin_dir, '/') - bin_dir), bin_dir);
	if (!src_dir[0])
		snprintf(src_dir, sizeof(src_dir), "%.*s", (int)(strrchr(build_dir, '/') - build_dir),
			 build_dir);
	if (!out_dir[0])
		snprintf(out_dir, sizeof(out_dir), "%s/report", bin_dir);
	snprintf(cordon, sizeof(cordon), "%s/cordon", build_dir);
	snprintf(shim_lib, sizeof(shim_lib), "%s/libcordon.so", build_dir);
	snprintf(ops_bin, sizeof(ops_bin), "%s/bench_ops", bin_dir);
	snprintf(llsample, sizeof(llsample), "%s/bench_llsample", bin_dir);
	need(cordon);
	need(ops_bin);
	need(llsample);
	if (access(shim_lib, R_OK) != 0)
		fail("%s: %s", shim_lib, strerror(errno));
	mkdirs(out_dir);

	snprintf(base, sizeof(base), "/dev/shm/cordon-bench.XXXXXX");
	if (!mkdtemp(base))
		fail("cannot create a directory on /dev/shm: %s", strerror(errno));
	atexit(cleanup);
	snprintf(work, sizeof(work), "%s/work", base);
	snprintf(outside, sizeof(outside), "%s/outside", base);
	snprintf(logs, sizeof(logs), "%s/logs", base);
	mkdirs(work);
	mkdirs(outside);
	mkdirs(logs);
	listen_loopback();

	/* One policy for every cordon configuration: the work tree, the
	 * listener's port, nothing else; no read-deny (see the targets). */
	snprintf(min_policy, sizeof(min_policy), "%s/bench.policy", base);
	snprintf(text, sizeof(text),
		 "write %s\nnet none\nnet-connect %d\nprivate-tmp no\nsubprocess yes\nenv inherit\n",
		 work, port);
	FILE *f = fopen(min_policy, "w");
	if (!f || fputs(text, f) < 0 || fclose(f) != 0)
		fail("%s: %s", min_policy, strerror(errno));
	policy_fd = sealed_policy(text, 0);
	env_bare = make_env(false);
	env_shim = make_env(true);
	set_policy_fd(policy_fd);

	for (int id = 0; id < N_CFG; id++)
		if (id != C_BARE)
			probe_config((enum cfg_id)id);
	for (int id = 0; id < N_CFG; id++)
		if (!cfgs[id].ok)
			fprintf(stderr, "bench_run: %s not measured: %s\n", cfgs[id].name, cfgs[id].why);

	double t0 = now_ns();
	/* Everything but the build runs on one CPU (the last): no migration
	 * between measurements. The listener thread, started above, is not
	 * pinned. */
	cpu_set_t all, one;
	sched_getaffinity(0, sizeof(all), &all);
	CPU_ZERO(&one);
	for (int cpu = CPU_SETSIZE - 1; cpu >= 0; cpu--)
		if (CPU_ISSET(cpu, &all)) {
			CPU_SET(cpu, &one);
			break;
		}
	sched_setaffinity(0, sizeof(one), &one);
	bench_ops();
	bench_scaling();
	bench_decide();
	bench_startup();
	sched_setaffinity(0, sizeof(all), &all);
	bench_build();
	check_targets();

	char md_path[PATH_MAX];
	snprintf(md_path, sizeof(md_path), "%s/results.md", out_dir);
	FILE *md = fopen(md_path, "w");
	if (!md)
		fail("%s: %s", md_path, strerror(errno));
	report(md);
	if (fclose(md) != 0)
		fail("%s: %s", md_path, strerror(errno));
	write_json();
	if (sh("command -v gnuplot >/dev/null") == 0)
		write_plots();
	else
		fprintf(stderr, "bench_run: gnuplot is not installed: no plots (make bench-deps)\n");
	sh("cat '%s'", md_path);
	fprintf(stderr, "\nbench_run: %.0f s; results in %s (results.md, results.json, *.svg)\n",
		(now_ns() - t0) / 1e9, out_dir);
	return harness_failed();
}
