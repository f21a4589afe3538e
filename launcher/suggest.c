/*
 * suggest.c - the policy lines that would have let a run pass (suggest.h).
 */
#include "suggest.h"

#include <errno.h>
#include <limits.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <uthash.h>

#include "../shim/path.h"
#include "util.h"

#define EXAMPLES 3
#define COLLAPSE_AT 3                 /* siblings that make their directory a root */

/* A write root being worked out: the accesses that need it. */
struct grant {
	UT_hash_handle hh;
	int idx;                      /* in struct work's g */
	int into;                     /* merged into that grant, or -1 */
	bool moved_up;                /* some target was gone: its nearest ancestor */
	long refused;
	size_t n_targets;
	struct { const char *op; long n; } ops[12];
	const char *examples[EXAMPLES];
	char path[];
};

struct work {
	struct grant **g;             /* by index */
	size_t n, cap;
	struct grant *by_path;        /* alive grants, by path */
};

static bool beneath(const char *path, const char *dir)
{
	return path_is_under(path, strlen(path), dir, strlen(dir));
}

/* @path's directory, in @out ("/" for "/x"). */
static void parent_of(const char *path, char *out)
{
	size_t n = path_parent_len(path);

	memmove(out, path, n);
	out[n] = '\0';
}

static int find_root(const struct work *w, int i)
{
	while (w->g[i]->into >= 0)
		i = w->g[i]->into;
	return i;
}

static void add_op(struct grant *g, const char *op, long n)
{
	size_t i;

	for (i = 0; i < sizeof(g->ops) / sizeof(g->ops[0]) && g->ops[i].op; i++)
		if (strcmp(g->ops[i].op, op) == 0)
			break;
	if (i == sizeof(g->ops) / sizeof(g->ops[0]))
		i--;  /* never: the shim logs a dozen operations */
	if (!g->ops[i].op)
		g->ops[i].op = op;
	g->ops[i].n += n;
}

static void add_example(struct grant *g, const char *target)
{
	for (size_t i = 0; i < EXAMPLES; i++) {
		if (!g->examples[i]) {
			g->examples[i] = target;
			return;
		}
		if (strcmp(g->examples[i], target) == 0)
			return;
	}
}

/* Merge grant @from into @to: @to's root then answers for both. */
static void merge(struct work *w, int from, int to)
{
	struct grant *f = w->g[from], *t = w->g[to];

	if (from == to)
		return;
	HASH_DEL(w->by_path, f);
	f->into = to;
	t->refused += f->refused;
	t->n_targets += f->n_targets;
	t->moved_up |= f->moved_up;
	for (size_t i = 0; i < sizeof(f->ops) / sizeof(f->ops[0]) && f->ops[i].op; i++)
		add_op(t, f->ops[i].op, f->ops[i].n);
	for (size_t i = 0; i < EXAMPLES && f->examples[i]; i++)
		add_example(t, f->examples[i]);
}

/* The alive grant for @path, made when there is none; -1: no memory. */
static int grant_at(struct work *w, const char *path)
{
	struct grant *g;
	size_t len = strlen(path);

	HASH_FIND(hh, w->by_path, path, len, g);
	if (g)
		return g->idx;
	if (w->n == w->cap) {
		size_t cap = w->cap ? 2 * w->cap : 16;
		struct grant **v = realloc(w->g, cap * sizeof(*v));
		if (!v)
			return -1;
		w->g = v;
		w->cap = cap;
	}
	if (!(g = calloc(1, sizeof(*g) + len + 1)))
		return -1;
	memcpy(g->path, path, len + 1);
	g->idx = (int)w->n;
	g->into = -1;
	HASH_ADD(hh, w->by_path, path[0], len, g);
	w->g[w->n] = g;
	return (int)w->n++;
}

/* Merge every grant beneath another alive grant into it. Returns how many. */
static size_t subsume(struct work *w)
{
	char up[PATH_MAX];
	size_t merged = 0;

	for (size_t i = 0; i < w->n; i++) {
		if (w->g[i]->into >= 0)
			continue;
		snprintf(up, sizeof(up), "%s", w->g[i]->path);
		while (strcmp(up, "/") != 0) {
			struct grant *a;
			parent_of(up, up);
			HASH_FIND(hh, w->by_path, up, strlen(up), a);
			if (a) {
				merge(w, (int)i, grant_at(w, up));
				merged++;
				break;
			}
		}
	}
	return merged;
}

static bool holds_read_deny(const struct policy *pol, const char *dir, const char **which)
{
	const struct pathset_entry *e, *tmp;

	HASH_ITER(hh, pol->paths.head, e, tmp) {
		if ((e->kinds & 1u << PATH_READ_DENY) && beneath(e->path, dir)) {
			if (which)
				*which = e->path;
			return true;
		}
	}
	return false;
}

/* May siblings in @dir become @dir? Not /, not /x, not ~ or above it, not
 * a directory that holds a read-deny entry. */
static bool collapsible(const struct policy *pol, const char *dir, const char *home)
{
	const char *second = strchr(dir + 1, '/');

	if (!second || (home && beneath(home, dir)))
		return false;
	return !holds_read_deny(pol, dir, NULL);
}

/* Three or more alive grants in one collapsible directory become it.
 * Returns how many were merged. */
static size_t collapse(struct work *w, const struct policy *pol, const char *home)
{
	char dir[PATH_MAX], other[PATH_MAX];
	size_t merged = 0, n = w->n;

	for (size_t i = 0; i < n; i++) {
		if (w->g[i]->into >= 0 || strcmp(w->g[i]->path, "/") == 0)
			continue;
		parent_of(w->g[i]->path, dir);
		size_t siblings = 0;
		for (size_t j = i; j < n; j++) {
			if (w->g[j]->into >= 0 || strcmp(w->g[j]->path, "/") == 0)
				continue;
			parent_of(w->g[j]->path, other);
			siblings += strcmp(dir, other) == 0;
		}
		if (siblings < COLLAPSE_AT || !collapsible(pol, dir, home))
			continue;
		int to = grant_at(w, dir);
		if (to < 0)
			return merged;
		for (size_t j = i; j < n; j++) {
			if (w->g[j]->into >= 0 || strcmp(w->g[j]->path, "/") == 0)
				continue;
			parent_of(w->g[j]->path, other);
			if (strcmp(dir, other) == 0) {
				merge(w, (int)j, to);
				merged++;
			}
		}
	}
	return merged;
}

static int by_path(const struct grant *a, const struct grant *b)
{
	return strcmp(a->path, b->path);
}

/* --- deciding a logged target again ---------------------------------------- */

/* "HOST:PORT/tcp", "[V6]:PORT/udp", "unix:@NAME" (log_format_addr) into
 * @ss; returns the socket type, or -1. */
static int parse_addr(const char *target, struct sockaddr_storage *ss, socklen_t *len,
		      unsigned long *port)
{
	int type = SOCK_STREAM;
	size_t n = strlen(target);

	memset(ss, 0, sizeof(*ss));
	if (strncmp(target, "unix:@", 6) == 0) {
		struct sockaddr_un *un = (struct sockaddr_un *)ss;
		if (n - 6 + 1 > sizeof(un->sun_path))
			return -1;
		un->sun_family = AF_UNIX;
		memcpy(un->sun_path + 1, target + 6, n - 6);
		*len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + n - 6);
		*port = 0;
		return SOCK_STREAM;
	}
	if (n > 4 && strcmp(target + n - 4, "/udp") == 0)
		type = SOCK_DGRAM;
	if (n > 4 && (strcmp(target + n - 4, "/udp") == 0 || strcmp(target + n - 4, "/tcp") == 0))
		n -= 4;
	if (addr_parse(target, n, ss, len, port) < 0)
		return -1;
	return type;
}

/* Decide @t's operation on its target under @pol; false when it cannot be
 * decided again (an address not as cordon logs it). */
static bool redecide(const struct policy *pol, const struct tally_target *t, struct decision *d)
{
	const char *op = t->key, *target = t->target;

	memset(d, 0, sizeof(*d));
	if (strcmp(op, "spawn") == 0) {
		d->allow = pol->subprocess.value;
		d->reason = REASON_SUBPROCESS;
		d->rule = pol->subprocess.rule;
		return true;
	}
	if (target[0] == '/') {
		enum op o = strcmp(op, "connect") == 0 ? OP_CONNECT
			    : strcmp(op, "read") == 0 || strcmp(op, "exec") == 0 ||
					      strcmp(op, "cwd") == 0 ? OP_READ
			    : strcmp(op, "write") == 0 ? OP_WRITE_DATA : OP_WRITE;
		policy_decide_path(pol, o, target, strlen(target), d);
		return true;
	}
	if (strcmp(op, "connect") != 0 && strcmp(op, "bind") != 0)
		return false;
	struct sockaddr_storage ss;
	socklen_t len;
	unsigned long port;
	int type = parse_addr(target, &ss, &len, &port);
	if (type < 0)
		return false;
	policy_decide_net(pol, strcmp(op, "bind") == 0 ? OP_BIND : OP_CONNECT, type,
			  (struct sockaddr *)&ss, len, d);
	return true;
}

/* --- the lines ---------------------------------------------------------- */

/* @s as one token of a policy line: "~" or "${WORKSPACE}" for those
 * prefixes, the rest in quotes when it needs them ($ doubled). */
static char *shown_path(const char *path, const char *home, const char *workspace)
{
	const char *prefix = "", *rest = path;
	char *out;
	size_t n = 0;

	if (workspace && beneath(path, workspace) && strcmp(workspace, "/") != 0) {
		prefix = "${WORKSPACE}";
		rest = path + strlen(workspace);
	} else if (home && beneath(path, home) && strcmp(home, "/") != 0) {
		prefix = "~";
		rest = path + strlen(home);
	}
	bool quote = rest[strcspn(rest, " \t\"\\#$'")] != '\0' || (!*prefix && !*rest);
	if (!(out = malloc(strlen(prefix) + 2 * strlen(rest) + 3)))
		return NULL;
	n = (size_t)sprintf(out, "%s", prefix);
	if (quote)
		out[n++] = '"';
	for (const char *c = rest; *c; c++) {
		if (*c == '"' || *c == '\\')
			out[n++] = '\\';
		if (*c == '$')
			out[n++] = '$';
		out[n++] = *c;
	}
	if (quote)
		out[n++] = '"';
	out[n] = '\0';
	return out;
}

static int line_find(struct suggest *s, const char *directive, const char *arg)
{
	for (size_t i = 0; i < s->n_lines; i++)
		if (strcmp(s->lines[i].directive, directive) == 0 &&
		    strcmp(s->lines[i].arg, arg) == 0)
			return (int)i;
	return -1;
}

/* The line `DIRECTIVE ARG`, made when missing; -1: no memory. */
static int line_at(struct suggest *s, const char *directive, const char *arg, const char *shown)
{
	int i = line_find(s, directive, arg);
	struct suggest_line *v;

	if (i >= 0)
		return i;
	if (!(v = realloc(s->lines, (s->n_lines + 1) * sizeof(*v))))
		return -1;
	s->lines = v;
	v += s->n_lines;
	memset(v, 0, sizeof(*v));
	snprintf(v->directive, sizeof(v->directive), "%s", directive);
	v->arg = strdup(arg);
	v->shown = strdup(shown ? shown : arg);
	if (!v->arg || !v->shown) {
		free(v->arg);
		free(v->shown);
		return -1;
	}
	return (int)s->n_lines++;
}

/* "create 3, delete 1: /a/x, /a/y and 2 more" */
static char *describe(const struct grant *g)
{
	char *text = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&text, &len);

	if (!m)
		return NULL;
	for (size_t i = 0; i < sizeof(g->ops) / sizeof(g->ops[0]) && g->ops[i].op; i++)
		fprintf(m, "%s%s %ld", i ? ", " : "", g->ops[i].op, g->ops[i].n);
	size_t shown = 0;
	for (size_t i = 0; i < EXAMPLES && g->examples[i]; i++, shown++)
		fprintf(m, "%s%s", i ? ", " : ": ", g->examples[i]);
	if (g->n_targets > shown)
		fprintf(m, " and %zu more", g->n_targets - shown);
	if (g->moved_up)
		fputs(" (nearest directory that still exists)", m);
	fclose(m);
	return text;
}

static char *because_text(const char *what, const struct tally_target *t)
{
	char *text;

	if (asprintf(&text, "%s %ld: %s", what, t->count, t->target) < 0)
		return NULL;
	return text;
}

/* Append "; OP N: TARGET" to an existing line's reason. */
static void because_add(struct suggest_line *l, const struct tally_target *t)
{
	char *more;

	if (!l->because) {
		l->because = because_text(t->key, t);
		return;
	}
	if (strlen(l->because) > 400)
		return;
	if (asprintf(&more, "%s; %s %ld: %s", l->because, t->key, t->count, t->target) >= 0) {
		free(l->because);
		l->because = more;
	}
}

static const char *unlearnable(enum reason r)
{
	if (r == REASON_READ_DENY)
		return "inside read-deny: take that entry out of the policy if the program should";
	if (r == REASON_WRITE_DENY)
		return "inside write-deny: take that entry out of the policy if the program should";
	if (r == REASON_HOLDS_WRITE_DENY)
		return "it holds a write-deny entry: take that entry out of the policy if the program should";
	if (r == REASON_DEVICE_ENTRY)
		return "device entries are never created or removed under cordon";
	if (r == REASON_DEVICE_READ)
		return "with read-deny in force, only the common devices are read: a write line "
		       "for the device allows it";
	if (r == REASON_POLICY_UNREADABLE)
		return "the shim could not read its policy";
	if (r == REASON_KERNEL_LAYER)
		return "the kernel layer refused what the policy allows: see docs/debugging.md";
	return "no policy line allows it";
}

/* The path a write of @t needs: the file written in place, or the
 * directory whose entries change; then its nearest existing ancestor.
 * A directory the run created and left, in a directory no root may be
 * (~, /, /x, one that holds read-deny), is its own need: it exists now,
 * and `mkdir -p` makes nothing twice. Elsewhere its directory is, so that
 * the run passes again after the directory is removed (`make clean`). */
static void write_need(const struct tally_target *t, const struct policy *pol, const char *home,
		       char *out, bool *moved)
{
	struct stat st;
	bool in_place = strcmp(t->key, "write") == 0 || strcmp(t->key, "metadata") == 0;
	char dir[PATH_MAX];

	*moved = false;
	parent_of(t->target, dir);
	if (strcmp(t->key, "create") == 0 && lstat(t->target, &st) == 0 && S_ISDIR(st.st_mode) &&
	    !collapsible(pol, dir, home))
		snprintf(out, PATH_MAX, "%s", t->target);
	else if (in_place && lstat(t->target, &st) == 0)
		snprintf(out, PATH_MAX, "%s", t->target);
	else
		parent_of(t->target, out);
	while (strcmp(out, "/") != 0 && lstat(out, &st) != 0) {
		parent_of(out, out);
		*moved = true;
	}
}

int suggest_build(struct suggest *s, const struct tally *t, const struct policy *pol,
		  const char *home, const char *workspace)
{
	struct work w = { 0 };
	size_t n;
	struct tally_target **all = tally_list(t, &n);
	int ret = -1;

	memset(s, 0, sizeof(*s));
	if (!all && t->n_targets)
		return -1;
	if (n && !(s->entries = calloc(n, sizeof(*s->entries))))
		goto out;
	s->n_entries = n;
	/* Paths first: the write roots are worked out together. */
	for (size_t i = 0; i < n; i++) {
		struct suggest_entry *e = &s->entries[i];
		e->t = all[i];
		e->line = -1;
		e->decided = redecide(pol, all[i], &e->d);
		if (e->decided && e->d.allow) {
			s->n_allowed++;
			continue;
		}
		enum reason r = e->decided ? e->d.reason : all[i]->reason;
		bool path = all[i]->target[0] == '/';
		if (r != REASON_OUTSIDE_ROOTS || !path || strcmp(all[i]->key, "connect") == 0)
			continue;
		if (strchr(all[i]->target, '\n')) {
			e->unlearnable = "a path with a newline cannot be written in a policy";
			s->n_unlearnable++;
			continue;
		}
		if (policy_kernel_path(all[i]->target)) {
			e->unlearnable = "beneath /proc or /sys, the kernel's own settings: a write root "
					 "there would open all of them (/proc/sys too); programs make "
					 "do without (a JVM's coredump_filter)";
			s->n_unlearnable++;
			continue;
		}
		char need[PATH_MAX];
		bool moved;
		write_need(all[i], pol, home, need, &moved);
		int g = grant_at(&w, need);
		if (g < 0)
			goto out;
		w.g[g]->refused += all[i]->count;
		w.g[g]->n_targets++;
		w.g[g]->moved_up |= moved;
		add_op(w.g[g], all[i]->key, all[i]->count);
		add_example(w.g[g], all[i]->target);
		e->line = g;  /* a grant's index, for now */
	}
	for (;;) {
		subsume(&w);
		if (!collapse(&w, pol, home))
			break;
	}
	/* The alive grants become lines, in path order. */
	struct grant *g, *tmp;
	HASH_SORT(w.by_path, by_path);
	HASH_ITER(hh, w.by_path, g, tmp) {
		char *shown = shown_path(g->path, home, workspace);
		int l = shown ? line_at(s, "write", g->path, shown) : -1;
		free(shown);
		if (l < 0)
			goto out;
		struct suggest_line *sl = &s->lines[l];
		sl->because = describe(g);
		sl->broad = strcmp(g->path, "/") == 0 || (home && beneath(home, g->path));
		const char *rd;
		if (holds_read_deny(pol, g->path, &rd))
			sl->contains_read_deny = strdup(rd);
	}
	for (size_t i = 0; i < n; i++) {
		struct suggest_entry *e = &s->entries[i];
		if (e->line >= 0) {
			int root = find_root(&w, e->line);
			e->line = line_find(s, "write", w.g[root]->path);
		}
	}
	/* Then the rest, in the order of the most refused. */
	for (size_t i = 0; i < n; i++) {
		struct suggest_entry *e = &s->entries[i];
		const struct tally_target *tt = e->t;
		char arg[32];
		const char *directive = NULL, *value = arg;
		char *shown = NULL;

		if ((e->decided && e->d.allow) || e->line >= 0 || e->unlearnable)
			continue;
		enum reason r = e->decided ? e->d.reason : tt->reason;
		bool bind = strcmp(tt->key, "bind") == 0;
		struct sockaddr_storage ss;
		socklen_t len;
		unsigned long port;
		if (r == REASON_OUTSIDE_ROOTS) {
			if (strcmp(tt->key, "connect") == 0 && tt->target[0] == '/' &&
			    !strchr(tt->target, '\n')) {
				directive = "unix-socket";
				value = tt->target;
				shown = shown_path(tt->target, home, workspace);
			}
		} else if (r == REASON_NET_NONE) {
			if (parse_addr(tt->target, &ss, &len, &port) >= 0) {
				directive = bind ? "net-bind" : "net-connect";
				snprintf(arg, sizeof(arg), "%lu", port);
			}
		} else if (r == REASON_NET_ANY_PORT) {
			/* A port at random, which no net-bind line names: a
			 * loopback of its own, where tests bind them freely. */
			directive = "net";
			value = "isolated";
		} else if (r == REASON_NET_NOT_LOOPBACK || r == REASON_NET_UDP ||
			   r == REASON_NET_FAMILY || r == REASON_NET_ABSTRACT) {
			directive = "net";
			value = "all";
		} else if (r == REASON_SUBPROCESS) {
			directive = "subprocess";
			value = "yes";
		}
		if (!directive) {
			e->unlearnable = unlearnable(r);
			s->n_unlearnable++;
			continue;
		}
		int l = line_at(s, directive, value, shown);
		free(shown);
		if (l < 0)
			goto out;
		e->line = l;
		because_add(&s->lines[l], tt);
	}
	ret = 0;
out:
	HASH_CLEAR(hh, w.by_path);
	for (size_t i = 0; i < w.n; i++)
		free(w.g[i]);
	free(w.g);
	free(all);
	if (ret < 0)
		suggest_free(s);
	return ret;
}

void suggest_put_comment(FILE *out, const char *s)
{
	for (; *s; s++)
		fputc(*s == '\n' || *s == '\r' ? '?' : *s, out);
}

void suggest_print(const struct suggest *s, FILE *out, const char *indent, bool comments)
{
	for (size_t i = 0; i < s->n_lines; i++) {
		const struct suggest_line *l = &s->lines[i];
		if (comments && l->because) {
			fprintf(out, "%s# ", indent);
			suggest_put_comment(out, l->because);
			fputc('\n', out);
		}
		if (l->broad)
			fprintf(out, "%s# NOTE: this makes all of %s writable: the program changed "
				"entries directly in it\n", indent, l->arg);
		if (l->contains_read_deny)
			fprintf(out, "%s# NOTE: read-deny %s lies beneath: cordon run refuses this "
				"(see on-unsupported)\n", indent, l->contains_read_deny);
		fprintf(out, "%s%s %s\n", indent, l->directive, l->shown);
	}
}

void suggest_free(struct suggest *s)
{
	for (size_t i = 0; i < s->n_lines; i++) {
		free(s->lines[i].arg);
		free(s->lines[i].shown);
		free(s->lines[i].because);
		free(s->lines[i].contains_read_deny);
	}
	free(s->lines);
	free(s->entries);
	memset(s, 0, sizeof(*s));
}
