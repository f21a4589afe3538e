/*
 * parse.c - reader of the policy language into a struct policy.
 *
 * Contract: every problem is reported as FILE:LINE: message through
 * ctx->error and counted in ctx->errors; parsing continues with the next
 * line so a user sees every mistake at once; the caller rejects the policy
 * whole when ctx->errors != 0. Paths are expanded, made absolute and
 * resolved here, once, so that the policy only ever holds canonical paths.
 */
#include "parse.h"

#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <limits.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../shim/path.h"

#define MAX_ARGS 256

const struct directive directives[] = {
	{ "include", ARG_INCLUDE, NULL, 0, 0, "NAME",
	  "read the policy NAME here: a file if NAME has a '/', else looked up in this file's directory, then the policy directories" },
	{ "write", ARG_PATHS, NULL, 0, PATH_WRITE, "PATH...",
	  "allow creating, changing and deleting beneath PATH (write implies read); PATH must exist unless written ?PATH" },
	{ "read-deny", ARG_PATHS, NULL, 0, PATH_READ_DENY, "PATH...",
	  "refuse reading (and writing) beneath PATH; PATH need not exist (inside a write root the kernel layer cannot: see on-unsupported)" },
	{ "write-deny", ARG_PATHS, NULL, 0, PATH_WRITE_DENY, "PATH...",
	  "refuse creating, changing and deleting beneath PATH even inside a write root; reading stays allowed; PATH need not exist" },
	{ "unix-socket", ARG_PATHS, NULL, 0, PATH_SOCKET, "PATH...",
	  "allow connecting to the unix socket PATH (sockets beneath a write root are allowed anyway)" },
	{ "net", ARG_ENUM, net_mode_names, offsetof(struct policy, net), 0, "none|isolated|all",
	  "network mode: none (only net-connect/net-bind TCP ports), isolated (own loopback only), all" },
	{ "net-connect", ARG_PORTS, NULL, offsetof(struct policy, net_connect), 0, "PORT...",
	  "with net none: TCP ports (or ranges A-B) the program may connect to, on any host" },
	{ "net-bind", ARG_PORTS, NULL, offsetof(struct policy, net_bind), 0, "PORT...",
	  "with net none: TCP ports (or ranges A-B) the program may bind" },
	{ "subprocess", ARG_ENUM, bool_names, offsetof(struct policy, subprocess), 0, "yes|no",
	  "whether the program may start other processes" },
	{ "private-tmp", ARG_ENUM, bool_names, offsetof(struct policy, private_tmp), 0, "yes|no",
	  "give the program a fresh writable temporary directory as TMPDIR, removed at exit" },
	{ "private-ipc", ARG_ENUM, bool_names, offsetof(struct policy, private_ipc), 0, "yes|no",
	  "give the program System V IPC objects and POSIX message queues of its own, apart from the host's (as root, or with net isolated)" },
	{ "userns", ARG_ENUM, bool_names, offsetof(struct policy, userns), 0, "yes|no",
	  "let the program create namespaces, for programs that nest a sandbox of their own (browsers)" },
	{ "git-worktree", ARG_ENUM, bool_names, offsetof(struct policy, git_worktree), 0, "yes|no",
	  "when the workspace is a linked git worktree, make its git directory and the main repository's .git writable" },
	{ "env", ARG_ENUM, env_mode_names, offsetof(struct policy, env), 0, "inherit|clean",
	  "inherit: pass the environment minus env-deny; clean: pass only env-pass" },
	{ "env-pass", ARG_PATTERNS, NULL, offsetof(struct policy, env_pass), 0, "PATTERN...",
	  "variables (fnmatch patterns) passed with env clean, and kept despite env-deny" },
	{ "env-deny", ARG_PATTERNS, NULL, offsetof(struct policy, env_deny), 0, "PATTERN...",
	  "variables (fnmatch patterns) removed from the program's environment" },
	{ "expand", ARG_VARS, NULL, offsetof(struct policy, expand), 0, "VAR...",
	  "allow ${VAR} from the environment in the paths of later lines" },
	{ "timeout", ARG_DURATION, NULL, offsetof(struct policy, timeout), 0, "DURATION",
	  "end the whole process tree after DURATION (N, Ns, Nm, Nh, Nd; 0: never)" },
	{ "backend", ARG_ENUM, backend_names, offsetof(struct policy, backend), 0,
	  "auto|landlock|seatbelt|noop", "kernel layer to enforce with" },
	{ "on-unsupported", ARG_ENUM, on_unsupported_names, offsetof(struct policy, on_unsupported), 0,
	  "error|warn|ignore", "what to do when no backend can enforce the policy" },
	{ "shim", ARG_ENUM, bool_names, offsetof(struct policy, shim), 0, "yes|no",
	  "preload the shim (libcordon.so); no: the kernel layer alone, no refusal logged" },
	{ "mode", ARG_ENUM, run_mode_names, offsetof(struct policy, mode), 0, "enforce|warn|off",
	  "enforce: refuse; warn: log and allow; off: neither" },
	{ "log", ARG_ENUM, log_level_names, offsetof(struct policy, log), 0, "deny|all|off",
	  "which decisions are logged" },
	{ "log-format", ARG_ENUM, log_format_names, offsetof(struct policy, log_format), 0,
	  "text|json|short|auto", "one line per decision: in full, as a JSON object, short; auto: short in colour on a terminal (unless NO_COLOR is set), else text" },
	{ "log-summary", ARG_ENUM, bool_names, offsetof(struct policy, log_summary), 0, "yes|no",
	  "at exit, print the refusals by operation and the most refused targets (cordon run: once for the run)" },
	{ "log-file", ARG_LOGFILE, NULL, offsetof(struct policy, log_file), 0, "PATH|fd:N|stderr",
	  "where the log goes: an absolute PATH (outside every write root), an open descriptor, or stderr" },
	{ "audit-file", ARG_LOGFILE, NULL, offsetof(struct policy, audit_file), 0, "PATH|fd:N|stderr",
	  "cordon run's events (started, completed, cancelled) as JSON lines, appended to PATH" },
	{ "summary", ARG_LOGFILE, NULL, offsetof(struct policy, summary_file), 0, "PATH|fd:N|stderr",
	  "cordon run: at exit, write what was refused and how the program ended, as one JSON object" },
	{ NULL, 0, NULL, 0, 0, NULL, NULL },
};

const struct directive *directive_find(const char *name)
{
	for (const struct directive *d = directives; d->name; d++)
		if (strcmp(d->name, name) == 0)
			return d;
	return NULL;
}

static void default_error(void *arg, const char *file, unsigned line, const char *msg)
{
	(void)arg;
	if (line)
		fprintf(stderr, "%s:%u: %s\n", file, line, msg);
	else
		fprintf(stderr, "%s: %s\n", file, msg);
}

__attribute__((format(printf, 4, 5)))
static void perr(struct parse_ctx *ctx, const char *file, unsigned line, const char *fmt, ...)
{
	char msg[PATH_MAX + 512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	ctx->errors++;
	ctx->error(ctx->error_arg, file, line, msg);
}

void parse_ctx_init(struct parse_ctx *ctx, struct policy *pol)
{
	memset(ctx, 0, sizeof(*ctx));
	ctx->pol = pol;
	ctx->getenv = getenv;
	ctx->error = default_error;
}

/* --- small helpers ---------------------------------------------------- */

/* Length of the valid UTF-8 sequence at @s (at most @n bytes), or 0.
 * Rejects overlong forms, surrogates and code points above U+10FFFF. */
static size_t utf8_seq(const unsigned char *s, size_t n)
{
	unsigned c = s[0];
	size_t len;
	unsigned cp;

	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf) {
		len = 2;
		cp = c & 0x1f;
	} else if (c >= 0xe0 && c <= 0xef) {
		len = 3;
		cp = c & 0x0f;
	} else if (c >= 0xf0 && c <= 0xf4) {
		len = 4;
		cp = c & 0x07;
	} else {
		return 0;
	}
	if (n < len)
		return 0;
	for (size_t i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	if ((len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000) || cp > 0x10ffff ||
	    (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return len;
}

static int is_ident(const char *s, size_t n)
{
	if (n == 0 || !(s[0] == '_' || (s[0] >= 'A' && s[0] <= 'Z') || (s[0] >= 'a' && s[0] <= 'z')))
		return 0;
	for (size_t i = 1; i < n; i++)
		if (!(s[i] == '_' || (s[i] >= 'A' && s[i] <= 'Z') || (s[i] >= 'a' && s[i] <= 'z') ||
		      (s[i] >= '0' && s[i] <= '9')))
			return 0;
	return 1;
}

/* Levenshtein distance, capped: for "did you mean" hints only. */
static unsigned edit_distance(const char *a, const char *b)
{
	unsigned row[32], la = strlen(a), lb = strlen(b);

	if (la >= 31 || lb >= 31)
		return 99;
	for (unsigned j = 0; j <= lb; j++)
		row[j] = j;
	for (unsigned i = 1; i <= la; i++) {
		unsigned diag = row[0];
		row[0] = i;
		for (unsigned j = 1; j <= lb; j++) {
			unsigned up = row[j];
			unsigned best = diag + (a[i - 1] != b[j - 1]);
			if (up + 1 < best)
				best = up + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			row[j] = best;
			diag = up;
		}
	}
	return row[lb];
}

static const char *suggest_directive(const char *name)
{
	const char *best = NULL;
	unsigned bestd = 3;

	for (const struct directive *d = directives; d->name; d++) {
		unsigned dist = edit_distance(name, d->name);
		if (dist < bestd) {
			bestd = dist;
			best = d->name;
		}
	}
	return best;
}

static void enum_expected(const char *const *names, char *buf, size_t size)
{
	size_t off = 0;

	buf[0] = '\0';
	for (size_t i = 0; names[i]; i++) {
		const char *sep = !names[i + 1] ? (i ? " or " : "") : (i ? ", " : "");
		int n = snprintf(buf + off, size - off, "%s%s", sep, names[i]);
		if (n < 0 || (size_t)n >= size - off)
			return;
		off += (size_t)n;
	}
}

static struct rule *rule_new(struct parse_ctx *ctx, const char *file, unsigned line,
			     int argc, char **argv, const char *prefix)
{
	size_t len = strlen(prefix) + 1;
	struct rule *r;
	char *t;

	/* Room for quoting: every byte escaped, plus the quotes. */
	for (int i = 0; i < argc; i++)
		len += 2 * strlen(argv[i]) + 3;
	r = malloc(sizeof(*r) + len);
	if (!r) {
		perr(ctx, file, line, "out of memory");
		return NULL;
	}
	r->file = file;
	r->line = line;
	t = stpcpy(r->text, prefix);
	for (int i = 0; i < argc; i++) {
		const char *a = argv[i];
		bool quote = !*a || a[strcspn(a, " \t\"\\")] != '\0';
		if (i)
			*t++ = ' ';
		if (!quote) {
			t = stpcpy(t, a);
			continue;
		}
		/* Written back as the tokenizer reads it: "..." with \" and \\. */
		*t++ = '"';
		for (; *a; a++) {
			if (*a == '"' || *a == '\\')
				*t++ = '\\';
			*t++ = *a;
		}
		*t++ = '"';
		*t = '\0';
	}
	r->next = ctx->pol->rules;
	ctx->pol->rules = r;
	return r;
}

/* Keep @name for the lifetime of the policy; rules point at the copy. */
static const char *intern_file(struct parse_ctx *ctx, const char *name)
{
	struct policy *p = ctx->pol;
	char **v;

	for (size_t i = 0; i < p->n_files; i++)
		if (strcmp(p->files[i], name) == 0)
			return p->files[i];
	v = realloc(p->files, (p->n_files + 1) * sizeof(*v));
	if (!v)
		return NULL;
	p->files = v;
	v[p->n_files] = strdup(name);
	if (!v[p->n_files])
		return NULL;
	return v[p->n_files++];
}

static int strlist_push(struct strlist *l, const char *s, const struct rule *rule)
{
	char **v;
	const struct rule **r;
	char *copy = strdup(s);

	if (!copy)
		return -ENOMEM;
	v = realloc(l->v, (l->n + 1) * sizeof(*v));
	if (!v)
		goto fail;
	l->v = v;
	r = realloc(l->rules, (l->n + 1) * sizeof(*r));
	if (!r)
		goto fail;
	l->rules = r;
	l->v[l->n] = copy;
	l->rules[l->n++] = rule;
	return 0;
fail:
	free(copy);
	return -ENOMEM;
}

/* --- expansion ---------------------------------------------------------- */

static const char *lookup_var(struct parse_ctx *ctx, const char *file, unsigned line,
			      const char *name)
{
	const char *v;

	if (strcmp(name, "HOME") == 0)
		v = ctx->home;
	else if (strcmp(name, "WORKSPACE") == 0)
		v = ctx->workspace;
	else if (strcmp(name, "TMPDIR") == 0)
		v = ctx->tmpdir;
	else {
		size_t i;
		for (i = 0; i < ctx->pol->expand.n; i++)
			if (strcmp(ctx->pol->expand.v[i], name) == 0)
				break;
		if (i == ctx->pol->expand.n) {
			perr(ctx, file, line,
			     "${%s} is not expanded unless allowed: add `expand %s` on an earlier line",
			     name, name);
			return NULL;
		}
		v = ctx->getenv(name);
	}
	if (!v || !*v) {
		perr(ctx, file, line, "${%s} is not set", name);
		return NULL;
	}
	return v;
}

/* @in with glob(3)'s special characters escaped, into @out (@size). */
static bool glob_escape(const char *in, char *out, size_t size)
{
	size_t o = 0;

	for (; *in; in++) {
		if (strchr("*?[\\", *in) && o + 1 < size)
			out[o++] = '\\';
		if (o + 1 >= size)
			return false;
		out[o++] = *in;
	}
	out[o] = '\0';
	return true;
}

/*
 * Expand ~ and ${NAME} in @in into @out (PATH_MAX bytes). Returns 0 or -1
 * (reported). The result may still be relative; callers check. With
 * @quote, the values put in have glob(3)'s special characters escaped, so
 * that only those written in @in are a pattern's.
 */
static int expand_quoted(struct parse_ctx *ctx, const char *file, unsigned line, const char *in,
			 char *out, bool quote)
{
	size_t o = 0;
	const char *p = in;

#define EMIT(s, n)                                                                      \
	do {                                                                            \
		if (o + (n) >= PATH_MAX) {                                              \
			perr(ctx, file, line, "path '%.64s...' is longer than PATH_MAX (%d) " \
			     "after expansion", in, PATH_MAX);                          \
			return -1;                                                      \
		}                                                                       \
		memcpy(out + o, (s), (n));                                              \
		o += (n);                                                               \
	} while (0)
#define EMIT_VALUE(v)                                                                   \
	do {                                                                            \
		char q_[PATH_MAX];                                                      \
		const char *v_ = (v);                                                   \
		if (quote) {                                                            \
			if (!glob_escape(v_, q_, sizeof(q_)))                           \
				EMIT(v_, (size_t)PATH_MAX); /* reports it */            \
			v_ = q_;                                                        \
		}                                                                       \
		EMIT(v_, strlen(v_));                                                   \
	} while (0)

	if (p[0] == '~') {
		if (p[1] != '/' && p[1] != '\0') {
			perr(ctx, file, line, "'%s': ~user is not supported; write the path out", in);
			return -1;
		}
		const char *home = lookup_var(ctx, file, line, "HOME");
		if (!home)
			return -1;
		EMIT_VALUE(home);
		p++;
	}
	while (*p) {
		if (*p != '$') {
			size_t run = strcspn(p, "$");
			EMIT(p, run);
			p += run;
			continue;
		}
		if (p[1] == '$') {
			EMIT("$", 1);
			p += 2;
			continue;
		}
		const char *close = p[1] == '{' ? strchr(p + 2, '}') : NULL;
		if (!close) {
			perr(ctx, file, line, "'%s': a '$' must start ${NAME} (write $$ for a literal $)",
			     in);
			return -1;
		}
		size_t n = (size_t)(close - (p + 2));
		char name[128];
		if (!is_ident(p + 2, n) || n >= sizeof(name)) {
			perr(ctx, file, line, "'%s': bad variable name in ${...}", in);
			return -1;
		}
		memcpy(name, p + 2, n);
		name[n] = '\0';
		const char *v = lookup_var(ctx, file, line, name);
		if (!v)
			return -1;
		EMIT_VALUE(v);
		p = close + 1;
	}
	out[o] = '\0';
	return 0;
#undef EMIT
#undef EMIT_VALUE
}

static int expand(struct parse_ctx *ctx, const char *file, unsigned line, const char *in,
		  char *out)
{
	return expand_quoted(ctx, file, line, in, out, false);
}

/* Whether @in, outside its ${...}, has a glob(3) special character. */
static bool is_pattern(const char *in)
{
	for (const char *p = in; *p; p++) {
		if (p[0] == '$' && p[1] == '{') {
			const char *close = strchr(p, '}');
			if (!close)
				return false;
			p = close;
		} else if (*p == '*' || *p == '?' || *p == '[') {
			return true;
		}
	}
	return false;
}

/* Expand @in and make sure the result is absolute. */
static int expand_absolute_quoted(struct parse_ctx *ctx, const char *file, unsigned line,
				  const char *in, char *out, bool quote)
{
	if (*in == '\0') {
		perr(ctx, file, line, "empty path: expected an absolute path");
		return -1;
	}
	if (expand_quoted(ctx, file, line, in, out, quote) < 0)
		return -1;
	if (out[0] != '/') {
		perr(ctx, file, line,
		     "'%s' is relative: expected an absolute path (start it with /, ~ or ${WORKSPACE})",
		     in);
		return -1;
	}
	return 0;
}

static int expand_absolute(struct parse_ctx *ctx, const char *file, unsigned line,
			   const char *in, char *out)
{
	return expand_absolute_quoted(ctx, file, line, in, out, false);
}

/* --- directive handlers --------------------------------------------------- */

static void *field(struct parse_ctx *ctx, const struct directive *d)
{
	return (char *)ctx->pol + d->offset;
}

static int add_expanded(struct parse_ctx *ctx, const char *file, unsigned line,
			const struct directive *d, const struct rule *rule, const char *arg,
			bool optional, const char *expanded);

/*
 * A read-deny or write-deny entry written as a pattern (*, ? or [...] in
 * a component, as glob(3) takes them; ${NAME} and ~ are put in literally):
 * each path that matches when the policy is read is an entry, and so is
 * one named as written, literally, if it exists. One that appears later
 * is not (cordon compiles the policy once, and the kernel layer is set up
 * before the program starts). None matching is no error.
 */
static int add_path_pattern(struct parse_ctx *ctx, const char *file, unsigned line,
			    const struct directive *d, const struct rule *rule, const char *arg)
{
	char pattern[PATH_MAX];
	glob_t g;
	int r = 0;

	if (expand_absolute_quoted(ctx, file, line, arg, pattern, true) < 0)
		return -1;
	if (d->kind == PATH_WRITE_DENY &&
	    strlist_push(&ctx->pol->write_deny_patterns, pattern, rule) < 0) {
		perr(ctx, file, line, "out of memory");
		return -1;
	}
	/* A file named as written (a * or [ in its name), which the pattern
	 * need not match, is an entry too, as it was before patterns were. */
	char literal[PATH_MAX];
	struct stat st;
	if (expand_absolute(ctx, file, line, arg, literal) < 0)
		return -1;
	bool literal_done = lstat(literal, &st) != 0;
	switch (glob(pattern, 0, NULL, &g)) {
	case 0:
		for (size_t i = 0; i < g.gl_pathc && r == 0; i++) {
			literal_done |= strcmp(g.gl_pathv[i], literal) == 0;
			r = add_expanded(ctx, file, line, d, rule, arg, false, g.gl_pathv[i]);
		}
		globfree(&g);
		if (r == 0 && !literal_done)
			r = add_expanded(ctx, file, line, d, rule, arg, false, literal);
		return r;
	case GLOB_NOMATCH:
		return literal_done ? 0 : add_expanded(ctx, file, line, d, rule, arg, false, literal);
	case GLOB_NOSPACE:
		perr(ctx, file, line, "out of memory");
		return -1;
	default:
		perr(ctx, file, line, "cannot read the directories of the pattern '%s'", arg);
		return -1;
	}
}

static int add_path(struct parse_ctx *ctx, const char *file, unsigned line,
		    const struct directive *d, const struct rule *rule, const char *arg)
{
	char expanded[PATH_MAX];
	bool optional = arg[0] == '?';

	if (optional && d->kind != PATH_WRITE) {
		perr(ctx, file, line, "'%s': the ? prefix is only for write (%s paths need not exist)",
		     arg, d->name);
		return -1;
	}
	if (!ctx->canonical && (d->kind == PATH_READ_DENY || d->kind == PATH_WRITE_DENY) &&
	    is_pattern(arg))
		return add_path_pattern(ctx, file, line, d, rule, arg);
	if (expand_absolute(ctx, file, line, arg + optional, expanded) < 0)
		return -1;
	return add_expanded(ctx, file, line, d, rule, arg, optional, expanded);
}

/* One entry, its ~ and ${NAME} put in (@expanded), as @arg wrote it. */
static int add_expanded(struct parse_ctx *ctx, const char *file, unsigned line,
			const struct directive *d, const struct rule *rule, const char *arg,
			bool optional, const char *expanded)
{
	char resolved[PATH_MAX], lexical[PATH_MAX];
	struct policy *p = ctx->pol;
	int n, err;

	if (ctx->canonical)
		n = path_normalize(expanded, resolved);
	else
		n = path_resolve(expanded, resolved,
				 d->kind == PATH_WRITE ? PATH_MISSING_ERROR : PATH_MISSING_ALLOW);
	if (n == -ENOTDIR && d->kind != PATH_WRITE) {
		/* Beneath a file: it cannot exist, but denying it costs nothing. */
		n = path_normalize(expanded, resolved);
	}
	if (n == -ENOENT || n == -ENOTDIR) {
		if (optional) {
			if (strlist_push(&p->skipped, expanded, rule) < 0)
				goto nomem;
			return 0;
		}
		perr(ctx, file, line,
		     "write root '%s' does not exist (write ?%s if it may be missing)", expanded, arg);
		return -1;
	}
	if (n < 0) {
		perr(ctx, file, line, "cannot resolve '%s': %s", expanded, strerror(-n));
		return -1;
	}

	err = pathset_add(&p->paths, resolved, (unsigned)d->kind, rule);
	if (err == 0 && d->kind == PATH_WRITE_DENY)
		err = policy_note_write_deny(p, pathset_get(&p->paths, resolved, strlen(resolved)));
	if (err == 0 && d->kind != PATH_WRITE && !ctx->canonical) {
		/* Deny the path as written too: a caller deciding on a lexical
		 * path without resolving it must still meet the entry (a
		 * compiled policy's paths are both already). */
		if (path_normalize(expanded, lexical) > 0 && strcmp(lexical, resolved) != 0) {
			err = pathset_add(&p->paths, lexical, (unsigned)d->kind, rule);
			if (err == 0 && d->kind == PATH_WRITE_DENY)
				err = policy_note_write_deny(
					p, pathset_get(&p->paths, lexical, strlen(lexical)));
		}
	}
	if (err < 0)
		goto nomem;
	if (d->kind == PATH_WRITE)
		p->n_write++;
	else if (d->kind == PATH_READ_DENY)
		p->n_read_deny++;
	else if (d->kind == PATH_WRITE_DENY)
		p->n_write_deny++;
	else
		p->n_socket++;
	return 0;
nomem:
	perr(ctx, file, line, "out of memory");
	return -1;
}

static int parse_uint(const char *s, unsigned long max, unsigned long *out, const char **end)
{
	char *e;

	if (*s < '0' || *s > '9')
		return -1;
	errno = 0;
	*out = strtoul(s, &e, 10);
	if (errno || *out > max)
		return -1;
	*end = e;
	return 0;
}

static int add_ports(struct parse_ctx *ctx, const char *file, unsigned line,
		     const struct directive *d, const struct rule *rule, const char *arg)
{
	struct port_list *l = field(ctx, d);
	unsigned long lo, hi;
	const char *end;

	if (parse_uint(arg, 65535, &lo, &end) < 0 || lo == 0)
		goto bad;
	hi = lo;
	if (*end == '-') {
		if (parse_uint(end + 1, 65535, &hi, &end) < 0 || hi < lo)
			goto bad;
	}
	if (*end)
		goto bad;
	struct port_rule *v = realloc(l->v, (l->n + 1) * sizeof(*v));
	if (!v) {
		perr(ctx, file, line, "out of memory");
		return -1;
	}
	l->v = v;
	l->v[l->n].lo = (uint16_t)lo;
	l->v[l->n].hi = (uint16_t)hi;
	l->v[l->n++].rule = rule;
	return 0;
bad:
	perr(ctx, file, line, "bad port '%s' for %s: expected a number from 1 to 65535 or a range A-B",
	     arg, d->name);
	return -1;
}

static int add_pattern(struct parse_ctx *ctx, const char *file, unsigned line,
		       const struct directive *d, const struct rule *rule, const char *arg)
{
	const char *bad = d->type == ARG_VARS ? (is_ident(arg, strlen(arg)) ? NULL : "a variable name")
	                                      : NULL;

	if (d->type == ARG_PATTERNS) {
		/* Variable names plus fnmatch(3) wildcards. */
		if (!*arg || arg[strspn(arg, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
				      "0123456789_*?[]!-")] != '\0')
			bad = "a variable name or fnmatch pattern (letters, digits, _ * ? [ ] ! -)";
	}
	if (bad) {
		perr(ctx, file, line, "bad value '%s' for %s: expected %s", arg, d->name, bad);
		return -1;
	}
	if (strlist_push(field(ctx, d), arg, rule) < 0) {
		perr(ctx, file, line, "out of memory");
		return -1;
	}
	return 0;
}

static int set_enum(struct parse_ctx *ctx, const char *file, unsigned line,
		    const struct directive *d, const struct rule *rule, const char *arg)
{
	struct setting *s = field(ctx, d);
	char expected[128];

	for (int i = 0; d->names[i]; i++) {
		if (strcmp(d->names[i], arg) == 0) {
			s->value = i;
			s->rule = rule;
			return 0;
		}
	}
	enum_expected(d->names, expected, sizeof(expected));
	perr(ctx, file, line, "bad value '%s' for %s: expected %s", arg, d->name, expected);
	return -1;
}

static int set_duration(struct parse_ctx *ctx, const char *file, unsigned line,
			const struct directive *d, const struct rule *rule, const char *arg)
{
	struct setting *s = field(ctx, d);
	unsigned long n, mult = 1;
	const char *end;

	if (parse_uint(arg, INT_MAX, &n, &end) < 0)
		goto bad;
	switch (*end) {
	case '\0':
	case 's': break;
	case 'm': mult = 60; break;
	case 'h': mult = 3600; break;
	case 'd': mult = 86400; break;
	default: goto bad;
	}
	if (*end && end[1])
		goto bad;
	if (n > INT_MAX / mult)
		goto bad;
	s->value = (int)(n * mult);
	s->rule = rule;
	return 0;
bad:
	perr(ctx, file, line,
	     "bad value '%s' for %s: expected a duration such as 90, 90s, 15m, 2h or 1d (at most %d seconds)",
	     arg, d->name, INT_MAX);
	return -1;
}

static int set_logfile(struct parse_ctx *ctx, const char *file, unsigned line,
		       const struct directive *d, const struct rule *rule, const char *arg)
{
	char expanded[PATH_MAX], norm[PATH_MAX];
	char *copy = NULL;

	if (strncmp(arg, "fd:", 3) == 0) {
		unsigned long fd;
		const char *end;
		if (parse_uint(arg + 3, INT_MAX, &fd, &end) < 0 || *end || !(copy = strdup(arg))) {
			perr(ctx, file, line, "bad log file '%s': expected fd:N with N a descriptor number",
			     arg);
			return -1;
		}
	} else if (strcmp(arg, "stderr") != 0) {
		if (expand_absolute(ctx, file, line, arg, expanded) < 0)
			return -1;
		if (path_normalize(expanded, norm) < 0 || !(copy = strdup(norm))) {
			perr(ctx, file, line, "bad log file '%s'", arg);
			return -1;
		}
	}
	struct dest *dst = field(ctx, d);
	free(dst->value);
	dst->value = copy;
	dst->rule = rule;
	return 0;
}

static int load_file(struct parse_ctx *ctx, const char *path, const char *from_file,
		     unsigned from_line);

/* Directory part of @file into @dir; "." when it has none. */
static void dir_of(const char *file, char *dir, size_t size)
{
	const char *slash = strrchr(file, '/');

	if (!slash)
		snprintf(dir, size, ".");
	else if (slash == file)
		snprintf(dir, size, "/");
	else
		snprintf(dir, size, "%.*s", (int)(slash - file), file);
}

/* Find policy @name: in @first_dir (may be NULL), then ctx->search. */
static int find_policy(struct parse_ctx *ctx, const char *name, const char *first_dir,
		       char *out, size_t size)
{
	const char *const *s = ctx->search;
	const char *dir = first_dir;

	if (!dir && s)
		dir = *s++;
	while (dir) {
		int n = snprintf(out, size, "%s/%s", dir, name);
		if (n > 0 && (size_t)n < size && access(out, F_OK) == 0)
			return 0;
		dir = s ? *s++ : NULL;
	}
	return -1;
}

static void search_list(struct parse_ctx *ctx, const char *first_dir, char *buf, size_t size)
{
	size_t off = 0;

	buf[0] = '\0';
	if (first_dir)
		off = (size_t)snprintf(buf, size, "%s", first_dir);
	for (const char *const *s = ctx->search; s && *s && off < size; s++)
		off += (size_t)snprintf(buf + off, size - off, "%s%s", off ? ", " : "", *s);
}

static int do_include(struct parse_ctx *ctx, const char *file, unsigned line, const char *arg)
{
	char expanded[PATH_MAX], path[PATH_MAX + 64], dir[PATH_MAX], where[2048];
	bool from_cmdline = line == 0;

	if (!*arg) {
		perr(ctx, file, line, "include: empty name");
		return -1;
	}
	if (expand(ctx, file, line, arg, expanded) < 0)
		return -1;
	dir_of(file, dir, sizeof(dir));
	if (strchr(expanded, '/')) {
		int n;
		if (expanded[0] == '/' || from_cmdline)
			n = snprintf(path, sizeof(path), "%s", expanded);
		else
			n = snprintf(path, sizeof(path), "%s/%s", dir, expanded);
		if (n < 0 || (size_t)n >= sizeof(path)) {
			perr(ctx, file, line, "cannot read policy '%s': name too long", expanded);
			return -1;
		}
		if (access(path, F_OK) != 0) {
			perr(ctx, file, line, "cannot read policy '%s': %s", path, strerror(errno));
			return -1;
		}
	} else if (find_policy(ctx, expanded, from_cmdline ? NULL : dir, path, sizeof(path)) < 0) {
		search_list(ctx, from_cmdline ? NULL : dir, where, sizeof(where));
		perr(ctx, file, line, "policy '%s' not found (looked in: %s)", expanded,
		     *where ? where : "no directories");
		return -1;
	}
	return load_file(ctx, path, file, line);
}

/* Apply one directive: argv[0] is its name. */
static int apply(struct parse_ctx *ctx, const char *file, unsigned line, int argc, char **argv,
		 const char *rule_prefix)
{
	const struct directive *d = directive_find(argv[0]);
	struct rule *rule;
	int ret = 0;

	if (!d) {
		const char *hint = suggest_directive(argv[0]);
		if (hint)
			perr(ctx, file, line, "unknown directive '%s' (did you mean '%s'?)", argv[0], hint);
		else
			perr(ctx, file, line, "unknown directive '%s'", argv[0]);
		return -1;
	}
	bool list = d->type == ARG_PATHS || d->type == ARG_PORTS || d->type == ARG_PATTERNS ||
		    d->type == ARG_VARS;
	if (argc < 2) {
		perr(ctx, file, line, "missing argument: %s takes %s", d->name, d->metavar);
		return -1;
	}
	if (!list && argc > 2) {
		perr(ctx, file, line, "too many arguments: %s takes one %s, got %d", d->name,
		     d->metavar, argc - 1);
		return -1;
	}
	if (d->type == ARG_INCLUDE)
		return do_include(ctx, file, line, argv[1]);

	rule = rule_new(ctx, file, line, argc - 1 + !*rule_prefix, argv + !!*rule_prefix, rule_prefix);
	if (!rule)
		return -1;
	for (int i = 1; i < argc; i++) {
		const char *arg = argv[i];
		int r;
		switch (d->type) {
		case ARG_PATHS:    r = add_path(ctx, file, line, d, rule, arg); break;
		case ARG_PORTS:    r = add_ports(ctx, file, line, d, rule, arg); break;
		case ARG_PATTERNS:
		case ARG_VARS:     r = add_pattern(ctx, file, line, d, rule, arg); break;
		case ARG_ENUM:     r = set_enum(ctx, file, line, d, rule, arg); break;
		case ARG_DURATION: r = set_duration(ctx, file, line, d, rule, arg); break;
		case ARG_LOGFILE:  r = set_logfile(ctx, file, line, d, rule, arg); break;
		case ARG_INCLUDE:
		default:           r = -1; break;
		}
		if (r < 0)
			ret = -1;
	}
	return ret;
}

/*
 * Split @line in place into at most MAX_ARGS tokens. Returns the count, or
 * -1 after reporting an unterminated quote, bad escape or too many tokens.
 */
static int tokenize(struct parse_ctx *ctx, const char *file, unsigned lineno, char *line,
		    char **argv)
{
	char *r = line, *w = line;
	int argc = 0;

	for (;;) {
		while (*r == ' ' || *r == '\t')
			r++;
		if (*r == '\0' || *r == '#')
			return argc;
		if (argc == MAX_ARGS) {
			perr(ctx, file, lineno, "too many arguments (at most %d on one line)",
			     MAX_ARGS - 1);
			return -1;
		}
		argv[argc++] = w;
		while (*r && *r != ' ' && *r != '\t') {
			if (*r != '"') {
				*w++ = *r++;
				continue;
			}
			for (r++; *r != '"'; r++) {
				if (*r == '\0') {
					perr(ctx, file, lineno, "unterminated quote");
					return -1;
				}
				if (*r == '\\') {
					if (r[1] != '"' && r[1] != '\\') {
						perr(ctx, file, lineno,
						     "unknown escape '\\%c' in quotes (only \\\" and \\\\)",
						     r[1] ? r[1] : ' ');
						return -1;
					}
					r++;
				}
				*w++ = *r;
			}
			r++;
		}
		/* @w never passes @r, so ending the token cannot clobber input
		 * that is still to be read, except the separator itself. */
		int at_end = *r == '\0';
		*w++ = '\0';
		if (at_end)
			return argc;
		r++;
		if (w > r)
			w = r;
	}
}

int policy_parse_buffer(struct parse_ctx *ctx, const char *file, const char *buf, size_t len)
{
	char line[POLICY_LINE_MAX + 1];  /* on the stack: includes recurse */
	char *argv[MAX_ARGS];
	unsigned before = ctx->errors, lineno = 0, origin_line = 0;
	const char *p = buf, *end = buf + len, *origin = NULL;

	file = intern_file(ctx, file);
	if (!file) {
		ctx->errors++;
		ctx->error(ctx->error_arg, "cordon", 0, "out of memory");
		return -1;
	}
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = (size_t)((nl ? nl : end) - p);
		const char *next = nl ? nl + 1 : end;

		lineno++;
		if (n && p[n - 1] == '\r')
			n--;
		if (n > POLICY_LINE_MAX) {
			perr(ctx, file, lineno, "line too long (%zu bytes; at most %d)", n,
			     POLICY_LINE_MAX);
			p = next;
			continue;
		}
		const char *nul = memchr(p, '\0', n);
		if (nul) {
			perr(ctx, file, lineno, "NUL byte at column %zu", (size_t)(nul - p) + 1);
			p = next;
			continue;
		}
		size_t i = 0;
		while (i < n) {
			if ((unsigned char)p[i] < 0x80) {  /* ASCII, most of every policy */
				i++;
				continue;
			}
			size_t s = utf8_seq((const unsigned char *)p + i, n - i);
			if (!s)
				break;
			i += s;
		}
		if (i < n) {
			perr(ctx, file, lineno, "invalid UTF-8 at column %zu", i + 1);
			p = next;
			continue;
		}
		memcpy(line, p, n);
		line[n] = '\0';
		p = next;

		/* The policy cordon compiled names where each line came from
		 * ("#@ FILE:LINE" before it), so that the shim's log names the
		 * rule as the user wrote it, not the descriptor's line. */
		if (ctx->canonical && strncmp(line, "#@ ", 3) == 0) {
			char *colon = strrchr(line + 3, ':'), *e;
			unsigned long l = colon ? strtoul(colon + 1, &e, 10) : 0;
			if (colon && colon[1] && !*e && l <= UINT_MAX) {
				*colon = '\0';
				origin = intern_file(ctx, line + 3);
				origin_line = (unsigned)l;
			}
			continue;
		}
		int argc = tokenize(ctx, file, lineno, line, argv);
		if (argc <= 0)
			continue;
		/* A command-line option's rule reads as the option did. */
		char prefix[64] = "";
		if (origin && origin_line == 0 && strlen(argv[0]) < sizeof(prefix) - 4)
			snprintf(prefix, sizeof(prefix), "--%s ", argv[0]);
		apply(ctx, origin ? origin : file, origin ? origin_line : lineno, argc, argv, prefix);
		origin = NULL;
	}
	return ctx->errors == before ? 0 : -1;
}

static int load_file(struct parse_ctx *ctx, const char *path, const char *from_file,
		     unsigned from_line)
{
	struct stat st;
	char *buf = NULL;
	size_t got = 0;
	int fd, ret = -1;

	/* O_NONBLOCK: a FIFO or device named as a policy must not hang us. */
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0) {
		perr(ctx, from_file, from_line, "cannot read policy '%s': %s", path, strerror(errno));
		return -1;
	}
	if (fstat(fd, &st) < 0) {
		perr(ctx, from_file, from_line, "cannot read policy '%s': %s", path, strerror(errno));
		goto out;
	}
	if (!S_ISREG(st.st_mode)) {
		perr(ctx, from_file, from_line, "cannot read policy '%s': not a regular file", path);
		goto out;
	}
	if (st.st_size > POLICY_FILE_MAX) {
		perr(ctx, from_file, from_line, "cannot read policy '%s': larger than %d bytes", path,
		     POLICY_FILE_MAX);
		goto out;
	}
	for (unsigned i = 0; i < ctx->depth; i++) {
		if (ctx->stack[i].dev == st.st_dev && ctx->stack[i].ino == st.st_ino) {
			/* Print the chain from the file that is included again. */
			perr(ctx, from_file, from_line, "include cycle: %s is already being read",
			     path);
			for (unsigned j = i; j < ctx->depth; j++)
				ctx->error(ctx->error_arg, ctx->stack[j].name, 0,
					   j == i ? "  (first read here)" : "  (included from above)");
			goto out;
		}
	}
	if (ctx->depth == POLICY_INCLUDE_DEPTH) {
		perr(ctx, from_file, from_line, "includes nested more than %d deep",
		     POLICY_INCLUDE_DEPTH);
		goto out;
	}
	buf = malloc((size_t)st.st_size + 1);
	if (!buf) {
		perr(ctx, from_file, from_line, "out of memory");
		goto out;
	}
	while (got < (size_t)st.st_size) {
		ssize_t n = read(fd, buf + got, (size_t)st.st_size - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			perr(ctx, from_file, from_line, "cannot read policy '%s': %s", path,
			     strerror(errno));
			goto out;
		}
		if (n == 0)
			break;
		got += (size_t)n;
	}
	const char *name = intern_file(ctx, path);
	if (!name) {
		perr(ctx, from_file, from_line, "out of memory");
		goto out;
	}
	ctx->stack[ctx->depth].dev = st.st_dev;
	ctx->stack[ctx->depth].ino = st.st_ino;
	ctx->stack[ctx->depth].name = name;
	ctx->depth++;
	ret = policy_parse_buffer(ctx, name, buf, got);
	ctx->depth--;
out:
	free(buf);
	close(fd);
	return ret;
}

int policy_load(struct parse_ctx *ctx, const char *name)
{
	unsigned before = ctx->errors;

	if (!name) {
		perr(ctx, "cordon", 0, "no policy named");
		return -1;
	}
	do_include(ctx, "--policy", 0, name);
	return ctx->errors == before ? 0 : -1;
}

int policy_apply_option(struct parse_ctx *ctx, const char *name, const char *value)
{
	char prefix[64];
	char *argv[3] = { (char *)name, (char *)value, NULL };
	unsigned before = ctx->errors;

	if (!name || !value) {
		perr(ctx, "cordon", 0, "option --%s needs a value", name ? name : "(null)");
		return -1;
	}
	snprintf(prefix, sizeof(prefix), "--%s ", name);
	if (directive_find(name) && directive_find(name)->type == ARG_INCLUDE) {
		perr(ctx, "cordon", 0, "--include is not an option; use --policy %s", value);
		return -1;
	}
	apply(ctx, ctx->option_origin ? ctx->option_origin : "<command line>", 0, 2, argv, prefix);
	return ctx->errors == before ? 0 : -1;
}

void policy_put_arg(FILE *out, const char *s, bool always, bool vars)
{
	if (!always && *s && s[strcspn(s, vars ? " \t\"\\#" : " \t\"\\#$")] == '\0') {
		fputs(s, out);
		return;
	}
	fputc('"', out);
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			fputc('\\', out);
		if (*s == '$' && !vars)
			fputc('$', out);
		fputc(*s, out);
	}
	fputc('"', out);
}

/* "#@ FILE:LINE": where the next line came from (policy_parse_buffer). */
static void put_origin(FILE *out, const struct rule *r)
{
	if (r && !strchr(r->file, '\n'))
		fprintf(out, "#@ %s:%u\n", r->file, r->line);
}

static void put_paths(FILE *out, const struct policy *p, enum path_kind kind, const char *name)
{
	const struct pathset_entry *e, *tmp;

	HASH_ITER(hh, p->paths.head, e, tmp) {
		if (!(e->kinds & 1u << kind))
			continue;
		put_origin(out, e->data[kind]);
		fprintf(out, "%s ", name);
		policy_put_arg(out, e->path, true, false);
		fputc('\n', out);
	}
}

static void put_ports(FILE *out, const struct port_list *l, const char *name)
{
	for (size_t i = 0; i < l->n; i++) {
		put_origin(out, l->v[i].rule);
		fprintf(out, "%s %u-%u\n", name, l->v[i].lo, l->v[i].hi);
	}
}

int policy_serialize(const struct policy *p, FILE *out)
{
	fprintf(out, "# compiled by cordon: every path resolved, every include read\n");
	put_paths(out, p, PATH_WRITE, "write");
	put_paths(out, p, PATH_READ_DENY, "read-deny");
	put_paths(out, p, PATH_WRITE_DENY, "write-deny");
	put_paths(out, p, PATH_SOCKET, "unix-socket");
	put_origin(out, p->net.rule);
	fprintf(out, "net %s\n", net_mode_names[p->net.value]);
	put_ports(out, &p->net_connect, "net-connect");
	put_ports(out, &p->net_bind, "net-bind");
	put_origin(out, p->subprocess.rule);
	fprintf(out, "subprocess %s\n", bool_names[p->subprocess.value]);
	fprintf(out, "shim %s\n", bool_names[p->shim.value]);
	fprintf(out, "mode %s\n", run_mode_names[p->mode.value]);
	fprintf(out, "log %s\n", log_level_names[p->log.value]);
	fprintf(out, "log-format %s\n", log_format_names[p->log_format.value]);
	fprintf(out, "log-summary %s\n", bool_names[p->log_summary.value]);
	if (p->log_file.value) {
		fprintf(out, "log-file ");
		policy_put_arg(out, p->log_file.value, true, false);
		fputc('\n', out);
	}
	return ferror(out) ? -EIO : 0;
}

/* Read the one line of @path (a git "gitdir: X" or commondir file) into
 * @out, without its newline. Returns 0 or -1. */
static int read_line(const char *path, char *out, size_t size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = read(fd, out, size - 1);
	close(fd);
	if (n <= 0)
		return -1;
	out[n] = '\0';
	out[strcspn(out, "\n")] = '\0';
	return 0;
}

/* @rel taken from directory @dir, resolved, added as a write root. */
static int add_git_root(struct parse_ctx *ctx, const char *what, const char *dir,
			const char *rel, char out[PATH_MAX])
{
	char abs[PATH_MAX];
	const struct rule *rule = ctx->pol->git_worktree.rule;
	const char *file = rule ? rule->file : "git-worktree";
	unsigned line = rule ? rule->line : 0;

	if (path_absolute(dir, rel, abs) < 0 || path_resolve(abs, out, PATH_MISSING_ERROR) < 0) {
		perr(ctx, file, line, "git-worktree: %s '%s' (from %s) does not exist", what, rel, dir);
		return -1;
	}
	if (pathset_add(&ctx->pol->paths, out, PATH_WRITE, rule) < 0) {
		perr(ctx, file, line, "out of memory");
		return -1;
	}
	ctx->pol->n_write++;
	return 0;
}

/*
 * The write-deny entries of the workspace's .git (the agent policy's
 * .git/hooks and .git/config) name, in a linked worktree, paths beneath a
 * .git that is a file: the hooks and config git runs are the main
 * repository's, in @common, which git-worktree has just made writable.
 * Each such entry is denied there too, with its rule. Returns 0 or -1.
 */
/* @path (@len bytes) a write-deny entry of @rule's, by git-worktree. */
static int mirror_one(struct parse_ctx *ctx, const char *path, size_t len,
		      const struct rule *rule)
{
	struct policy *p = ctx->pol;

	if (pathset_add(&p->paths, path, PATH_WRITE_DENY, rule) < 0 ||
	    policy_note_write_deny(p, pathset_get(&p->paths, path, len)) < 0) {
		perr(ctx, rule ? rule->file : "git-worktree", rule ? rule->line : 0,
		     "out of memory");
		return -1;
	}
	p->n_write_deny++;
	return 0;
}

/*
 * A write-deny pattern beneath the workspace's .git (the agent policy's
 * hooks of .git/modules/NAME) matched nothing in a linked worktree, whose .git
 * is a file: its submodules' git directories are in the worktree's own
 * git directory (@gitdir), and the main worktree's in the main
 * repository's (@common), both writable with git-worktree. The pattern is
 * matched in each. 0 or -1.
 */
static int mirror_git_patterns(struct parse_ctx *ctx, const char *workspace, const char *gitdir,
			       const char *common)
{
	const struct strlist *l = &ctx->pol->write_deny_patterns;
	char prefix[2 * PATH_MAX], raw[PATH_MAX + 8], base[2 * PATH_MAX], pattern[4 * PATH_MAX];
	const char *bases[] = { gitdir, common };

	if (snprintf(raw, sizeof(raw), "%s/.git/", workspace) >= (int)sizeof(raw) ||
	    !glob_escape(raw, prefix, sizeof(prefix)))
		return 0;
	for (size_t i = 0; i < l->n; i++) {
		size_t n = strlen(prefix);
		if (strncmp(l->v[i], prefix, n) != 0)
			continue;
		for (size_t b = 0; b < 2; b++) {
			glob_t g;
			if (!glob_escape(bases[b], base, sizeof(base)) ||
			    snprintf(pattern, sizeof(pattern), "%s/%s", base, l->v[i] + n) >=
				    (int)sizeof(pattern) ||
			    glob(pattern, 0, NULL, &g) != 0)
				continue;
			int r = 0;
			for (size_t k = 0; k < g.gl_pathc && r == 0; k++)
				r = mirror_one(ctx, g.gl_pathv[k], strlen(g.gl_pathv[k]), l->rules[i]);
			globfree(&g);
			if (r)
				return r;
		}
	}
	return 0;
}

static int mirror_git_denies(struct parse_ctx *ctx, const char *workspace, const char *gitdir,
			     const char *common)
{
	struct policy *p = ctx->pol;
	char prefix[PATH_MAX + 8], path[PATH_MAX];
	int n = snprintf(prefix, sizeof(prefix), "%s/.git/", workspace);
	size_t count = p->n_write_deny_entries;

	for (size_t i = 0; n > 0 && (size_t)n < sizeof(prefix) && i < count; i++) {
		const struct pathset_entry *e = p->write_deny_entries[i];
		if (strncmp(e->path, prefix, (size_t)n) != 0)
			continue;
		int m = snprintf(path, sizeof(path), "%s/%s", common, e->path + n);
		if (m < 0 || (size_t)m >= sizeof(path))
			continue;  /* too long to be a path: nothing there to protect */
		if (mirror_one(ctx, path, (size_t)m, e->data[PATH_WRITE_DENY]) < 0)
			return -1;
	}
	return mirror_git_patterns(ctx, workspace, gitdir, common);
}

int policy_add_git_worktree(struct parse_ctx *ctx, const char *workspace)
{
	char dotgit[PATH_MAX + 16], line[PATH_MAX + 16], gitdir[PATH_MAX], common[PATH_MAX];
	const struct rule *rule = ctx->pol->git_worktree.rule;
	struct stat st;

	if (!ctx->pol->git_worktree.value || !workspace)
		return 0;
	snprintf(dotgit, sizeof(dotgit), "%s/.git", workspace);
	/* A directory is a repository of its own, inside the workspace. */
	if (lstat(dotgit, &st) < 0 || !S_ISREG(st.st_mode))
		return 0;
	if (read_line(dotgit, line, sizeof(line)) < 0 || strncmp(line, "gitdir: ", 8) != 0) {
		perr(ctx, rule ? rule->file : "git-worktree", rule ? rule->line : 0,
		     "git-worktree: %s is not a worktree link (expected 'gitdir: PATH')", dotgit);
		return -1;
	}
	/* The worktree's own admin directory (HEAD, index), then the main
	 * repository's .git (objects, refs) that its commondir names. */
	if (add_git_root(ctx, "gitdir", workspace, line + 8, gitdir) < 0)
		return -1;
	snprintf(dotgit, sizeof(dotgit), "%s/commondir", gitdir);
	if (read_line(dotgit, line, sizeof(line)) < 0)
		return 0;  /* not a linked worktree after all: gitdir is the repository */
	if (add_git_root(ctx, "commondir", gitdir, line, common) < 0)
		return -1;
	return mirror_git_denies(ctx, workspace, gitdir, common);
}
