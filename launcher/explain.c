/*
 * explain.c - answer "would cordon allow this?" with the rule that decides.
 *
 * The answer comes from the same decision functions the shim calls
 * (shim/policy.c), on the path resolved as the kernel would resolve it, so
 * explain and enforcement cannot disagree about the policy.
 */
#include "explain.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "../shim/path.h"
#include "lastrun.h"
#include "suggest.h"
#include "tally.h"
#include "util.h"

/* Where @r was written, without its text: "FILE:LINE" or "command line". */
static void rule_origin(const struct rule *r, char *buf, size_t size)
{
	if (!r)
		snprintf(buf, size, "built-in default");
	else if (r->line)
		snprintf(buf, size, "%s:%u", r->file, r->line);
	else
		snprintf(buf, size, "command line: %s", r->text);
}

void rule_describe(const struct rule *r, char *buf, size_t size)
{
	if (!r)
		snprintf(buf, size, "built-in default");
	else if (r->line)
		snprintf(buf, size, "%s:%u: %s", r->file, r->line, r->text);
	else
		snprintf(buf, size, "command line: %s", r->text);
}

static void print_verdict(FILE *out, const struct decision *d, const char *op, const char *what)
{
	char where[PATH_MAX + 256];

	fprintf(out, "%-6s %s %s\n", d->allow ? "allow" : "deny", op, what);
	fprintf(out, "       %s%s%s", reason_text(d->reason), d->matched ? " " : "",
		d->matched ? d->matched : "");
	if (d->rule) {
		rule_describe(d->rule, where, sizeof(where));
		fprintf(out, " (%s)", where);
	}
	fputc('\n', out);
}

static void print_mode(FILE *out, const struct policy *pol, const struct decision *d)
{
	char where[PATH_MAX + 256];

	if (d->allow || pol->mode.value == MODE_ENFORCE)
		return;
	rule_describe(pol->mode.rule, where, sizeof(where));
	fprintf(out, "       but mode is %s (%s): the call is %s\n", run_mode_names[pol->mode.value],
		where, pol->mode.value == MODE_WARN ? "logged, then allowed" : "allowed");
}

static void write_roots(FILE *out, const struct policy *pol)
{
	const struct pathset_entry *e, *tmp;
	const char *sep = "";

	fputs("[", out);
	HASH_ITER(hh, pol->paths.head, e, tmp) {
		if (e->kinds & 1u << PATH_WRITE) {
			fprintf(out, "%s%s", sep, e->path);
			sep = ", ";
		}
	}
	if (pol->private_tmp.value)
		fprintf(out, "%sthe private TMPDIR", sep);
	fputs("]", out);
}

static int explain_path(const struct policy *pol, enum op op, const char *opname,
			const char *target, const char *cwd, const char *home, FILE *out,
			char *err, size_t errsize)
{
	char expanded[PATH_MAX], abs[PATH_MAX], resolved[PATH_MAX];
	struct decision d;
	int n;

	if (target[0] == '~' && (target[1] == '/' || target[1] == '\0')) {
		if (!home)
			return errf(err, errsize, "'%s': ~ needs HOME, which is not set", target);
		n = snprintf(expanded, sizeof(expanded), "%s%s", home, target + 1);
		if (n < 0 || (size_t)n >= sizeof(expanded))
			return errf(err, errsize, "'%.64s...': longer than PATH_MAX", target);
		target = expanded;
	}
	n = path_absolute(cwd, target, abs);
	if (n < 0)
		return errf(err, errsize, "'%.64s': %s", target, strerror(-n));
	n = path_resolve(abs, resolved, PATH_MISSING_ALLOW);
	if (n < 0)
		return errf(err, errsize, "unable to resolve '%s': %s", abs, strerror(-n));

	policy_decide_path(pol, op, resolved, (size_t)n, &d);
	print_verdict(out, &d, opname, resolved);
	if (strcmp(abs, resolved) != 0)
		fprintf(out, "       (%s resolves to %s)\n", abs, resolved);
	if (!d.allow && d.reason == REASON_OUTSIDE_ROOTS) {
		fputs("       write roots: ", out);
		write_roots(out, pol);
		fputc('\n', out);
		/* A write root must exist: suggest the nearest existing ancestor. */
		struct stat st;
		while (op != OP_CONNECT && n > 1 && stat(resolved, &st) != 0) {
			char *slash = strrchr(resolved, '/');
			n = slash == resolved ? 1 : (int)(slash - resolved);
			resolved[n] = '\0';
			if (n == 1)
				resolved[0] = '/';
		}
		if (op != OP_CONNECT && policy_kernel_path(resolved))
			fputs("       no line to add allows it: beneath /proc or /sys, the kernel's "
			      "own settings, a write root would open all of them\n", out);
		else
			fprintf(out, "       to allow: add `%s %s` to a policy, or pass --%s %s\n",
				op == OP_CONNECT ? "unix-socket" : "write", resolved,
				op == OP_CONNECT ? "unix-socket" : "write", resolved);
	}
	print_mode(out, pol, &d);
	return d.allow;
}

static int explain_net(const struct policy *pol, enum op op, const char *opname,
		       const char *target, const char *cwd, const char *home, FILE *out,
		       char *err, size_t errsize)
{
	struct sockaddr_storage ss;
	socklen_t salen;
	int socktype = SOCK_STREAM;
	const char *proto = "tcp";
	unsigned long port;
	struct decision d;

	memset(&ss, 0, sizeof(ss));
	if (strncmp(target, "unix:", 5) == 0) {
		const char *name = target + 5;
		if (name[0] != '@')
			return explain_path(pol, op == OP_BIND ? OP_WRITE : OP_CONNECT, opname, name,
					    cwd, home, out, err, errsize);
		struct sockaddr_un *un = (struct sockaddr_un *)&ss;
		size_t len = strlen(name + 1);
		if (len + 1 > sizeof(un->sun_path))
			return errf(err, errsize, "abstract socket name '%s' is too long", name);
		un->sun_family = AF_UNIX;
		memcpy(un->sun_path + 1, name + 1, len);
		salen = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + len);
		policy_decide_net(pol, op, SOCK_STREAM, (struct sockaddr *)&ss, salen, &d);
		print_verdict(out, &d, opname, target);
		if (!d.allow && d.reason == REASON_NET_ABSTRACT)
			fprintf(out, "       to allow: `net isolated` (the sandbox's own abstract "
				     "sockets) or `net all`\n");
		print_mode(out, pol, &d);
		return d.allow;
	}
	if (strncmp(target, "udp:", 4) == 0) {
		socktype = SOCK_DGRAM;
		proto = "udp";
		target += 4;
	} else if (strncmp(target, "tcp:", 4) == 0) {
		target += 4;
	}

	int r = addr_parse(target, strlen(target), &ss, &salen, &port);
	if (r == -1)
		return errf(err, errsize, "'%s': expected HOST:PORT, [IPV6]:PORT or unix:PATH", target);
	if (r == -2)
		return errf(err, errsize, "'%s': bad port '%s' (0 to 65535)", target,
			    strrchr(target, ':') + 1);
	if (r < 0)
		return errf(err, errsize,
			    "'%s' is not a numeric address (explain does not look up host names)",
			    target);
	char what[PATH_MAX];
	snprintf(what, sizeof(what), "%s (%s)", target, proto);
	policy_decide_net(pol, op, socktype, (struct sockaddr *)&ss, salen, &d);
	print_verdict(out, &d, opname, what);
	if (!d.allow) {
		if (d.reason == REASON_NET_NONE)
			fprintf(out, "       to allow: add `net-%s %lu` (TCP, any host) or `net all`\n",
				op == OP_BIND ? "bind" : "connect", port);
		else if (d.reason == REASON_NET_NOT_LOOPBACK || d.reason == REASON_NET_UDP)
			fprintf(out, "       to allow: `net all`\n");
		else if (d.reason == REASON_NET_ANY_PORT)
			fprintf(out, "       to allow: `net isolated` (a loopback of its own) or `net all`\n");
	}
	print_mode(out, pol, &d);
	return d.allow;
}

int explain_query(const struct policy *pol, const char *op, const char *target, const char *cwd,
		  const char *home, FILE *out, char *err, size_t errsize)
{
	if (!op || !target)
		return errf(err, errsize, "expected OP TARGET pairs (OP: read, write, connect, bind)");
	if (!*target)
		return errf(err, errsize, "empty target for %s", op);
	if (strcmp(op, "read") == 0)
		return explain_path(pol, OP_READ, op, target, cwd, home, out, err, errsize);
	if (strcmp(op, "write") == 0)
		return explain_path(pol, OP_WRITE, op, target, cwd, home, out, err, errsize);
	if (strcmp(op, "connect") == 0)
		return explain_net(pol, OP_CONNECT, op, target, cwd, home, out, err, errsize);
	if (strcmp(op, "bind") == 0)
		return explain_net(pol, OP_BIND, op, target, cwd, home, out, err, errsize);
	return errf(err, errsize, "unknown operation '%s' (expected read, write, connect or bind)",
		    op);
}

static void print_setting(FILE *out, const char *name, const char *value, const struct rule *r)
{
	char where[PATH_MAX + 256];

	rule_origin(r, where, sizeof(where));
	fprintf(out, "%-15s %-16s %s\n", name, value, where);
}

static void print_paths(FILE *out, const struct policy *pol, enum path_kind kind,
			const char *title)
{
	const struct pathset_entry *e, *tmp;
	char where[PATH_MAX + 256];

	fprintf(out, "%s:\n", title);
	HASH_ITER(hh, pol->paths.head, e, tmp) {
		if (!(e->kinds & 1u << kind))
			continue;
		rule_origin(e->data[kind], where, sizeof(where));
		fprintf(out, "  %-40s %s\n", e->path, where);
	}
}

static void print_ports(FILE *out, const char *name, const struct port_list *l)
{
	char where[PATH_MAX + 256];

	for (size_t i = 0; i < l->n; i++) {
		char port[16];
		if (l->v[i].lo == l->v[i].hi)
			snprintf(port, sizeof(port), "%u", l->v[i].lo);
		else
			snprintf(port, sizeof(port), "%u-%u", l->v[i].lo, l->v[i].hi);
		rule_origin(l->v[i].rule, where, sizeof(where));
		fprintf(out, "%-15s %-16s %s\n", name, port, where);
	}
}

static void print_strlist(FILE *out, const char *name, const struct strlist *l)
{
	char where[PATH_MAX + 256];

	for (size_t i = 0; i < l->n; i++) {
		rule_origin(l->rules[i], where, sizeof(where));
		fprintf(out, "%-15s %-16s %s\n", name, l->v[i], where);
	}
}

void explain_policy(const struct policy *pol, FILE *out)
{
	char timeout[32];

	for (size_t i = 0; i < pol->n_files; i++)
		fprintf(out, "%s %s\n", i ? "          " : "policy:  ", pol->files[i]);
	print_paths(out, pol, PATH_WRITE, "write roots");
	for (size_t i = 0; i < pol->skipped.n; i++) {
		char where[PATH_MAX + 256];
		rule_origin(pol->skipped.rules[i], where, sizeof(where));
		fprintf(out, "  %-40s %s (optional, missing: skipped)\n", pol->skipped.v[i], where);
	}
	if (pol->private_tmp.value)
		fprintf(out, "  %-40s private-tmp yes\n", "(a private TMPDIR per run)");
	print_paths(out, pol, PATH_READ_DENY, "read-deny");
	if (pol->n_write_deny)
		print_paths(out, pol, PATH_WRITE_DENY, "write-deny");
	if (pol->n_socket)
		print_paths(out, pol, PATH_SOCKET, "unix sockets");
	print_setting(out, "net", net_mode_names[pol->net.value], pol->net.rule);
	print_ports(out, "net-connect", &pol->net_connect);
	print_ports(out, "net-bind", &pol->net_bind);
	print_setting(out, "subprocess", bool_names[pol->subprocess.value], pol->subprocess.rule);
	print_setting(out, "private-tmp", bool_names[pol->private_tmp.value], pol->private_tmp.rule);
	print_setting(out, "private-ipc", bool_names[pol->private_ipc.value], pol->private_ipc.rule);
	print_setting(out, "env", env_mode_names[pol->env.value], pol->env.rule);
	print_strlist(out, "env-pass", &pol->env_pass);
	print_strlist(out, "env-deny", &pol->env_deny);
	if (pol->timeout.value)
		snprintf(timeout, sizeof(timeout), "%ds", pol->timeout.value);
	else
		snprintf(timeout, sizeof(timeout), "none");
	print_setting(out, "timeout", timeout, pol->timeout.rule);
	print_setting(out, "backend", backend_names[pol->backend.value], pol->backend.rule);
	print_setting(out, "on-unsupported", on_unsupported_names[pol->on_unsupported.value],
		      pol->on_unsupported.rule);
	print_setting(out, "shim", bool_names[pol->shim.value], pol->shim.rule);
	print_setting(out, "mode", run_mode_names[pol->mode.value], pol->mode.rule);
	print_setting(out, "log", log_level_names[pol->log.value], pol->log.rule);
	print_setting(out, "log-format", log_format_names[pol->log_format.value],
		      pol->log_format.rule);
	print_setting(out, "log-summary", bool_names[pol->log_summary.value],
		      pol->log_summary.rule);
	print_setting(out, "log-file", pol->log_file.value ? pol->log_file.value : "stderr", pol->log_file.rule);
	print_setting(out, "summary", pol->summary_file.value ? pol->summary_file.value : "none",
		      pol->summary_file.rule);
}

static void print_outcome(FILE *out, const struct tally_run *run)
{
	if (run->timed_out)
		fputs("ran out of time", out);
	else if (run->signal)
		fprintf(out, "was killed by signal %d", run->signal);
	else if (run->status >= 0)
		fprintf(out, "exited %d", run->status);
	else
		fputs("ended", out);
}

int explain_last(const struct policy *pol, const char *home, const char *workspace, FILE *out,
		 char *err, size_t errsize)
{
	char path[PATH_MAX], brief[512], where[PATH_MAX + 256];
	struct tally t = { 0 };
	struct tally_run run;
	struct suggest s;
	FILE *in;
	int ret;

	if (lastrun_path(path, err, errsize) < 0)
		return -1;
	if (!(in = fopen(path, "re")))
		return errf(err, errsize, "no run recorded (%s: %s); cordon run records each run there",
			    path, strerror(errno));
	char lerr[128];
	/* cordon run rewrites it in place under an exclusive lock, for
	 * microseconds: wait for that, not for a program holding it. */
	for (int i = 0; i < 100 && flock(fileno(in), LOCK_SH | LOCK_NB) < 0; i++)
		usleep(10 * 1000);
	ret = tally_load(&t, &run, in, lerr, sizeof(lerr));
	fclose(in);
	if (ret < 0) {
		tally_free(&t);
		return errf(err, errsize, "unable to read %s: %s", path, lerr);
	}
	if (suggest_build(&s, &t, pol, home, workspace) < 0) {
		tally_free(&t);
		return errf(err, errsize, "out of memory");
	}

	tally_brief(&t, brief, sizeof(brief));
	fprintf(out, "last run: %s\n  in %s at %s (mode %s): ", run.cmd, run.cwd, run.when, run.mode);
	print_outcome(out, &run);
	fprintf(out, "\n  %s\n", brief[0] ? brief : "nothing refused");
	if (t.dropped)
		fprintf(out, "  (%ld refusals not recorded: too many targets or malformed reports)\n",
			t.dropped);
	for (size_t i = 0; i < s.n_entries; i++) {
		const struct suggest_entry *e = &s.entries[i];
		bool allowed = e->decided && e->d.allow;
		fprintf(out, "\n%-6s %s %s", allowed ? "allow" : "deny", e->t->key, e->t->target);
		fprintf(out, " (%ld time%s, %s)\n", e->t->count, e->t->count == 1 ? "" : "s",
			e->t->layer);
		if (allowed) {
			rule_describe(e->d.rule, where, sizeof(where));
			fprintf(out, "       now allowed: %s (%s)\n", reason_text(e->d.reason), where);
			continue;
		}
		enum reason r = e->decided ? e->d.reason : e->t->reason;
		fprintf(out, "       %s%s%s", e->t->why && !e->decided ? e->t->why : reason_text(r),
			e->decided && e->d.matched ? " " : "",
			e->decided && e->d.matched ? e->d.matched : "");
		if (e->decided && e->d.rule) {
			rule_describe(e->d.rule, where, sizeof(where));
			fprintf(out, " (%s)", where);
		}
		fputc('\n', out);
		if (e->line >= 0)
			fprintf(out, "       to allow: %s %s\n", s.lines[e->line].directive,
				s.lines[e->line].shown);
		else if (e->unlearnable)
			fprintf(out, "       no line to add allows it: %s\n", e->unlearnable);
	}
	size_t refused = s.n_entries - s.n_allowed;
	if (s.n_lines) {
		fprintf(out, "\nto allow %s, add to the policy:\n",
			s.n_unlearnable ? "the rest" : refused == 1 ? "it" : "them all");
		suggest_print(&s, out, "  ", false);
	} else if (s.n_entries && !refused) {
		fputs("\nthe policy given allows every one of them\n", out);
	}
	ret = refused == 0;
	suggest_free(&s);
	tally_free(&t);
	return ret;
}
