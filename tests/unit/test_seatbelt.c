/*
 * test_seatbelt.c - `cordon seatbelt`, the Seatbelt (SBPL) profile of a
 * policy (jail/sbpl.c, launcher/main.c), end to end: the real build/cordon
 * prints the profile, and this suite reads it back with an S-expression
 * reader of its own (TinyScheme's syntax, as far as the generator uses it)
 * and checks the forms, not the text:
 *
 *   - golden profiles of the shipped policies (tests/golden/seatbelt-*.sb,
 *     normalised: $T is written /T and $CORDON_SRC /SRC; regenerate with
 *     CORDON_GOLDEN_UPDATE=1 after reviewing the difference);
 *   - every profile parses completely, every top-level form is (version ...),
 *     (allow ...) or (deny ...), and none is (allow default);
 *   - roots named to break out of a string or a comment come out as one
 *     string each and add no form;
 *   - the decisions the profile makes (last matching form wins) are the
 *     policy's, as `cordon explain` states them, over tables of queries;
 *   - the network, subprocess and path rules, and the errors.
 *
 * Each test runs in its own process with its own tree, removed afterwards:
 *
 *   $T/                 mkdtemp("/tmp/cordon-seatbelt-XXXXXX"), canonical:
 *                       under /tmp, so Seatbelt sees it as /private$T
 *     ws/               cordon's working directory: the workspace
 *       .git/hooks/     a repository (agent's write-deny entries)
 *       .git/config
 *       file.txt        a regular file (a file root is a literal)
 *     home/             HOME of every cordon we start
 *       .npm/           two of the optional caches of policy.d/caches; the
 *       .cache/pip/     others are missing, so skipped
 *     state/            XDG_STATE_HOME
 *     tmp/              TMPDIR
 *     empty             an empty policy: `--policy $T/empty` gives the options alone
 *     nest/, deep/ ...  the decision tables (drawn above each)
 *     adv/, plain/      roots with hostile names, and their plainly named twins
 *     pol\n(allow default)\n;/p, pol-plain/p
 *                       a policy file in a directory named to end a comment
 *     stdout, stderr    cordon's output
 *
 * Environment (set by `make check`): CORDON_BUILD (build directory, relative
 * to CORDON_SRC), CORDON_SRC (the repository), CORDON_PRELOAD_FIRST
 * (SANITIZE=1: every cordon gets ASAN_OPTIONS as in test_run.c).
 */
#include <criterion/criterion.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>
#define FIXTURE_TREE    /* T, tp(), fmt() */
#define FIXTURE_PROGRAM /* program(), SKIP() */
#include "fixture.h"
#include "../../jail/sbpl.h"

#define ARGS(...) ((const char *const[]){ __VA_ARGS__, NULL })
#define BIG (1 << 20)
#define MAX_ARGS 512

/* --- a growable byte buffer -------------------------------------------------------- */

struct buf {
	char *p;
	size_t n, cap;
};

static void buf_add(struct buf *b, const char *s, size_t n)
{
	if (b->n + n + 1 > b->cap) {
		size_t cap = b->cap ? b->cap : 64;
		while (b->n + n + 1 > cap)
			cap *= 2;
		char *p = realloc(b->p, cap);
		cr_assert_not_null(p, "out of memory");
		b->p = p;
		b->cap = cap;
	}
	memcpy(b->p + b->n, s, n);
	b->n += n;
	b->p[b->n] = '\0';
}

static void buf_puts(struct buf *b, const char *s)
{
	buf_add(b, s, strlen(s));
}

static void buf_putc(struct buf *b, char c)
{
	buf_add(b, &c, 1);
}

/* The text of @b (never NULL), which the caller now owns. */
static char *buf_take(struct buf *b)
{
	if (!b->p)
		buf_add(b, "", 0);
	char *p = b->p;
	*b = (struct buf){ 0 };
	return p;
}

/* @s with every byte that is not printable ASCII as \xHH (and " \ escaped):
 * for messages, so that a newline or \xff in a name shows as such. */
static char *visible(const char *s)
{
	struct buf b = { 0 };
	char hex[8];

	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (*p == '"' || *p == '\\') {
			buf_putc(&b, '\\');
			buf_putc(&b, (char)*p);
		} else if (*p < 0x20 || *p >= 0x7f) {
			snprintf(hex, sizeof(hex), "\\x%02x", *p);
			buf_puts(&b, hex);
		} else {
			buf_putc(&b, (char)*p);
		}
	}
	return buf_take(&b);
}

/* --- the S-expression reader ------------------------------------------------------- */

/*
 * What SBPL text the generator writes, read as TinyScheme reads it:
 * `;` starts a comment that runs to the end of the line (only LF ends it);
 * "..." is a string, with \" \\ \n \t \r and \xHH decoded (any other escape,
 * \x00, and a raw control byte inside the quotes are errors here: the
 * generator promises to escape them all); #"..." is a regex literal, kept
 * as written; ( ) make lists; anything else up to a delimiter is an atom.
 */
enum sx_kind { SX_LIST, SX_ATOM, SX_STRING, SX_REGEX };

struct sx {
	enum sx_kind kind;
	char *text;        /* ATOM: the name; STRING: decoded; REGEX: the source */
	struct sx **kid;   /* LIST: the elements */
	size_t n, cap;
	unsigned line;     /* the line it starts on, from 1 */
};

struct reader {
	const char *s;
	size_t len, pos;
	unsigned line;
	char err[256];
};

static struct sx *sx_new(enum sx_kind kind, unsigned line)
{
	struct sx *x = calloc(1, sizeof(*x));

	cr_assert_not_null(x, "out of memory");
	x->kind = kind;
	x->line = line;
	return x;
}

static void sx_free(struct sx *x)
{
	if (!x)
		return;
	for (size_t i = 0; i < x->n; i++)
		sx_free(x->kid[i]);
	free(x->kid);
	free(x->text);
	free(x);
}

static void sx_push(struct sx *list, struct sx *kid)
{
	if (list->n == list->cap) {
		size_t cap = list->cap ? 2 * list->cap : 8;
		struct sx **k = realloc(list->kid, cap * sizeof(*k));
		cr_assert_not_null(k, "out of memory");
		list->kid = k;
		list->cap = cap;
	}
	list->kid[list->n++] = kid;
}

/* Record the first error; NULL, for `return fail(...)`. */
__attribute__((format(printf, 2, 3))) static struct sx *fail(struct reader *r, const char *f,
							      ...)
{
	va_list ap;

	if (!r->err[0]) {
		va_start(ap, f);
		vsnprintf(r->err, sizeof(r->err), f, ap);
		va_end(ap);
	}
	return NULL;
}

static bool is_delim(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v' ||
	       c == '(' || c == ')' || c == '"' || c == ';';
}

/* Past blanks and comments. */
static void skip(struct reader *r)
{
	while (r->pos < r->len) {
		char c = r->s[r->pos];
		if (c == '\n') {
			r->line++;
			r->pos++;
		} else if (c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v') {
			r->pos++;
		} else if (c == ';') {
			while (r->pos < r->len && r->s[r->pos] != '\n')
				r->pos++;
		} else {
			break;
		}
	}
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* The string (or, with @regex, the regex literal) whose opening quote is
 * at r->pos. */
static struct sx *read_string(struct reader *r, bool regex)
{
	unsigned line = r->line;
	struct buf b = { 0 };

	r->pos++;
	for (;;) {
		if (r->pos >= r->len) {
			free(b.p);
			return fail(r, "line %u: a string that is never closed", line);
		}
		unsigned char c = (unsigned char)r->s[r->pos++];
		if (c == '"')
			break;
		if (c < 0x20 || c == 0x7f) {
			free(b.p);
			return fail(r, "line %u: raw control byte 0x%02x inside a string", r->line, c);
		}
		if (c != '\\') {
			buf_putc(&b, (char)c);
			continue;
		}
		if (r->pos >= r->len) {
			free(b.p);
			return fail(r, "line %u: a string that ends in a backslash", line);
		}
		char e = r->s[r->pos++];
		if (regex) {
			buf_putc(&b, '\\');
			buf_putc(&b, e);
			continue;
		}
		switch (e) {
		case '"':
		case '\\':
			buf_putc(&b, e);
			break;
		case 'n':
			buf_putc(&b, '\n');
			break;
		case 't':
			buf_putc(&b, '\t');
			break;
		case 'r':
			buf_putc(&b, '\r');
			break;
		case 'x': {
			int hi = r->pos + 1 < r->len ? hexval(r->s[r->pos]) : -1;
			int lo = hi >= 0 ? hexval(r->s[r->pos + 1]) : -1;
			if (hi < 0 || lo < 0 || hi * 16 + lo == 0) {
				free(b.p);
				return fail(r, "line %u: \\x not followed by two hex digits (not 00)",
					    r->line);
			}
			buf_putc(&b, (char)(hi * 16 + lo));
			r->pos += 2;
			break;
		}
		default:
			free(b.p);
			return fail(r, "line %u: unknown escape \\%c in a string", r->line, e);
		}
	}
	struct sx *x = sx_new(regex ? SX_REGEX : SX_STRING, line);
	x->text = buf_take(&b);
	return x;
}

static struct sx *read_form(struct reader *r, unsigned depth)
{
	skip(r);
	if (r->pos >= r->len)
		return fail(r, "line %u: a form expected, the text ends", r->line);
	char c = r->s[r->pos];
	if (c == ')')
		return fail(r, "line %u: ')' closes nothing", r->line);
	if (c == '"')
		return read_string(r, false);
	if (c == '#' && r->pos + 1 < r->len && r->s[r->pos + 1] == '"') {
		r->pos++;
		return read_string(r, true);
	}
	if (c == '(') {
		unsigned line = r->line;
		if (depth > 64)
			return fail(r, "line %u: lists nested more than 64 deep", line);
		struct sx *list = sx_new(SX_LIST, line);
		r->pos++;
		for (;;) {
			skip(r);
			if (r->pos >= r->len) {
				sx_free(list);
				return fail(r, "the '(' of line %u is never closed", line);
			}
			if (r->s[r->pos] == ')') {
				r->pos++;
				return list;
			}
			struct sx *kid = read_form(r, depth + 1);
			if (!kid) {
				sx_free(list);
				return NULL;
			}
			sx_push(list, kid);
		}
	}
	size_t start = r->pos;
	while (r->pos < r->len && !is_delim(r->s[r->pos]))
		r->pos++;
	struct sx *x = sx_new(SX_ATOM, r->line);
	x->text = strndup(r->s + start, r->pos - start);
	cr_assert_not_null(x->text, "out of memory");
	return x;
}

/* Every form of @s (@len bytes) as the elements of one list, or NULL with
 * the reason in @err: the text must be read to its end. */
static struct sx *sx_read(const char *s, size_t len, char *err, size_t errsize)
{
	struct reader r = { .s = s, .len = len, .line = 1 };
	struct sx *top = sx_new(SX_LIST, 1);

	const char *nul = memchr(s, '\0', len);
	if (nul) {
		snprintf(err, errsize, "a NUL byte at offset %zu", (size_t)(nul - s));
		sx_free(top);
		return NULL;
	}
	for (;;) {
		skip(&r);
		if (r.pos >= r.len)
			break;
		struct sx *f = read_form(&r, 0);
		if (!f) {
			snprintf(err, errsize, "%s", r.err);
			sx_free(top);
			return NULL;
		}
		sx_push(top, f);
	}
	err[0] = '\0';
	return top;
}

/* @x written back as SBPL, every string re-escaped (non-ASCII as \xHH);
 * with @shape, every string as S: the form without its paths. */
static void sx_write(struct buf *b, const struct sx *x, bool shape)
{
	switch (x->kind) {
	case SX_LIST:
		buf_putc(b, '(');
		for (size_t i = 0; i < x->n; i++) {
			if (i)
				buf_putc(b, ' ');
			sx_write(b, x->kid[i], shape);
		}
		buf_putc(b, ')');
		break;
	case SX_ATOM:
		buf_puts(b, x->text);
		break;
	case SX_STRING:
	case SX_REGEX: {
		if (shape) {
			buf_puts(b, x->kind == SX_REGEX ? "#S" : "S");
			break;
		}
		char *v = visible(x->text);
		buf_puts(b, x->kind == SX_REGEX ? "#\"" : "\"");
		buf_puts(b, v);
		buf_putc(b, '"');
		free(v);
		break;
	}
	}
}

/* sx_write into a ring of buffers, for messages. */
static const char *show(const struct sx *x)
{
	static char *ring[8];
	static unsigned next;
	struct buf b = { 0 };
	unsigned i = next++ % 8;

	if (x)
		sx_write(&b, x, false);
	else
		buf_puts(&b, "(none)");
	free(ring[i]);
	ring[i] = buf_take(&b);
	return ring[i];
}

static char *shape_of(const struct sx *x)
{
	struct buf b = { 0 };

	sx_write(&b, x, true);
	return buf_take(&b);
}

static bool is_atom(const struct sx *x, const char *name)
{
	return x->kind == SX_ATOM && strcmp(x->text, name) == 0;
}

/* --- the profile: parsed and checked ----------------------------------------------- */

struct profile {
	char *text;
	size_t len;
	struct sx *top;     /* the top-level forms */
};

/* The form @i of @p, or NULL past the end (for show()). */
static const struct sx *form(const struct profile *p, long i)
{
	return i >= 0 && (size_t)i < p->top->n ? p->top->kid[i] : NULL;
}

/* Lines of @text: how many, and whether each is blank, a comment (";; ...")
 * or starts a form or continues one ("(", "  (") - a rule's text that
 * escaped its comment would start a line of its own. Returns the number of
 * lines, and the first line of another kind in @bad (NULL: none). */
static size_t lines_of(const char *text, char **bad)
{
	size_t n = 0;

	*bad = NULL;
	for (const char *p = text; *p;) {
		size_t l = strcspn(p, "\n");
		n++;
		if (!*bad && l && strncmp(p, ";; ", 3) != 0 && p[0] != '(' &&
		    strncmp(p, "  (", 3) != 0) {
			char *line = strndup(p, l);
			*bad = visible(line);
			free(line);
		}
		p += l;
		if (*p)
			p++;
	}
	return n;
}

/*
 * @text (@len bytes), a profile cordon printed: it must parse completely,
 * every top-level form must be a list headed version, allow or deny, the
 * first two (version 1) and (deny default), none (allow default), and
 * every line blank, a comment or a form's. Fails the test otherwise,
 * showing the profile.
 */
static struct profile check_profile(const char *text, size_t len)
{
	struct profile p = { .len = len };
	char err[512], *bad;

	p.text = malloc(len + 1);
	cr_assert_not_null(p.text, "out of memory");
	memcpy(p.text, text, len);
	p.text[len] = '\0';
	p.top = sx_read(text, len, err, sizeof(err));
	cr_assert_not_null(p.top, "the profile does not parse: %s\n---\n%s\n---", err, p.text);
	cr_assert_geq(p.top->n, 2, "the profile has %zu forms\n---\n%s\n---", p.top->n, p.text);
	for (size_t i = 0; i < p.top->n; i++) {
		const struct sx *f = p.top->kid[i];
		cr_assert(f->kind == SX_LIST && f->n >= 1 &&
				  (is_atom(f->kid[0], "version") || is_atom(f->kid[0], "allow") ||
				   is_atom(f->kid[0], "deny")),
			  "top-level form %zu (line %u) is %s: not a list headed version, allow or "
			  "deny\n---\n%s\n---",
			  i, f->line, show(f), p.text);
		bool allow_default = false;
		for (size_t k = 1; k < f->n; k++)
			allow_default |= is_atom(f->kid[0], "allow") && is_atom(f->kid[k], "default");
		cr_assert(!allow_default, "top-level %s at line %u: everything allowed\n---\n%s\n---",
			  show(f), f->line, p.text);
	}
	cr_assert_str_eq(show(p.top->kid[0]), "(version 1)", "first form\n---\n%s\n---", p.text);
	cr_assert_str_eq(show(p.top->kid[1]), "(deny default)", "second form\n---\n%s\n---",
			 p.text);
	lines_of(p.text, &bad);
	cr_assert_null(bad, "a line that is neither blank, a comment nor a form's: %s\n---\n%s\n---",
		       bad, p.text);
	return p;
}

static void profile_free(struct profile *p)
{
	sx_free(p->top);
	free(p->text);
	*p = (struct profile){ 0 };
}

/* (@action ... @op ...): @f headed @action with the atom @op among its
 * operations (any, when @op is NULL). */
static bool form_is(const struct sx *f, const char *action, const char *op)
{
	if (!f || f->kind != SX_LIST || f->n < 1 || !is_atom(f->kid[0], action))
		return false;
	if (!op)
		return true;
	for (size_t i = 1; i < f->n; i++)
		if (is_atom(f->kid[i], op))
			return true;
	return false;
}

/* @x is (@name "@s"), or a list holding one: (remote unix-socket (path-literal "S")). */
static bool has_filter(const struct sx *x, const char *name, const char *s)
{
	if (x->kind != SX_LIST || x->n < 1)
		return false;
	if (x->n == 2 && is_atom(x->kid[0], name) && x->kid[1]->kind == SX_STRING &&
	    strcmp(x->kid[1]->text, s) == 0)
		return true;
	for (size_t i = 1; i < x->n; i++)
		if (has_filter(x->kid[i], name, s))
			return true;
	return false;
}

/* The first (or with @last, the last) top-level form of @p from @from on
 * that is (@action ... @op ... (@filter "@path")), or -1. */
static long find(const struct profile *p, size_t from, bool last, const char *action,
		 const char *op, const char *filter, const char *path)
{
	long found = -1;

	for (size_t i = from; i < p->top->n; i++) {
		const struct sx *f = p->top->kid[i];
		if (!form_is(f, action, op))
			continue;
		for (size_t k = 1; k < f->n; k++) {
			if (has_filter(f->kid[k], filter, path)) {
				if (!last)
					return (long)i;
				found = (long)i;
				break;
			}
		}
	}
	return found;
}

/* Does the filter @flt match the path @path? subpath: the path or beneath
 * it, at a component boundary; literal, path-literal: the path itself;
 * (remote unix-socket F...): any F. Other filters name no path. */
static bool filter_matches(const struct sx *flt, const char *path)
{
	if (flt->kind != SX_LIST || flt->n < 2 || flt->kid[0]->kind != SX_ATOM)
		return false;
	if (is_atom(flt->kid[0], "remote") && is_atom(flt->kid[1], "unix-socket")) {
		for (size_t i = 2; i < flt->n; i++)
			if (filter_matches(flt->kid[i], path))
				return true;
		return false;
	}
	if (flt->n != 2 || flt->kid[1]->kind != SX_STRING)
		return false;
	const char *s = flt->kid[1]->text;
	size_t n = strlen(s);
	if (is_atom(flt->kid[0], "literal") || is_atom(flt->kid[0], "path-literal"))
		return strcmp(path, s) == 0;
	if (is_atom(flt->kid[0], "subpath"))
		return strncmp(path, s, n) == 0 &&
		       (path[n] == '\0' || path[n] == '/' || (n == 1 && s[0] == '/'));
	return false;
}

struct verdict {
	bool allow;
	long form;   /* the form that decided, -1: none matched */
};

/* What the profile decides for @op (file-read*, file-write*,
 * network-outbound) on @path: the last form that names @op (or default)
 * and either has no filter or a filter that matches, as Seatbelt does. */
static struct verdict decide(const struct profile *p, const char *op, const char *path)
{
	struct verdict v = { false, -1 };

	for (size_t i = 0; i < p->top->n; i++) {
		const struct sx *f = p->top->kid[i];
		bool allow = is_atom(f->kid[0], "allow");
		bool op_hit = false, any_filter = false, filter_hit = false;
		if (!allow && !is_atom(f->kid[0], "deny"))
			continue;
		for (size_t k = 1; k < f->n; k++) {
			const struct sx *x = f->kid[k];
			if (x->kind == SX_ATOM)
				op_hit |= strcmp(x->text, op) == 0 || strcmp(x->text, "default") == 0;
			else if (x->kind == SX_LIST) {
				any_filter = true;
				filter_hit |= filter_matches(x, path);
			}
		}
		if (op_hit && (!any_filter || filter_hit))
			v = (struct verdict){ allow, (long)i };
	}
	return v;
}

/* Every decoded string of @x, appended to @v (strings not copied). */
static void strings_of(const struct sx *x, const char **v, size_t *n, size_t max)
{
	if (x->kind == SX_STRING) {
		cr_assert_lt(*n, max, "more than %zu strings", max);
		v[(*n)++] = x->text;
	}
	for (size_t i = 0; i < x->n; i++)
		strings_of(x->kid[i], v, n, max);
}

static int by_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The network rules of @p, sorted, one a line: "ACTION OPS: FILTER" for
 * each (remote ...) or (local ...) filter, and "ACTION OPS: (anything)"
 * for a form with a network operation and no filter at all. */
static char *net_rules(const struct profile *p)
{
	const char *v[4096];
	char *owned[4096];
	size_t n = 0;
	struct buf out = { 0 };

	for (size_t i = 0; i < p->top->n; i++) {
		const struct sx *f = p->top->kid[i];
		struct buf head = { 0 };
		bool net = false, filtered = false;
		buf_puts(&head, f->kid[0]->text);
		for (size_t k = 1; k < f->n; k++) {
			if (f->kid[k]->kind == SX_ATOM) {
				buf_putc(&head, ' ');
				buf_puts(&head, f->kid[k]->text);
				net |= strncmp(f->kid[k]->text, "network", 7) == 0;
			} else {
				filtered = true;
			}
		}
		for (size_t k = 1; k < f->n; k++) {
			const struct sx *x = f->kid[k];
			bool netfilter = x->kind == SX_LIST && x->n >= 1 &&
					 (is_atom(x->kid[0], "remote") || is_atom(x->kid[0], "local"));
			if (netfilter || (net && !filtered && k == f->n - 1)) {
				cr_assert_lt(n, 4096, "too many network rules");
				owned[n] = strdup(fmt("%s: %s", head.p, netfilter ? show(x) : "(anything)"));
				v[n] = owned[n];
				n++;
			}
		}
		free(head.p);
	}
	qsort(v, n, sizeof(v[0]), by_str);
	for (size_t i = 0; i < n; i++) {
		buf_puts(&out, v[i]);
		buf_putc(&out, '\n');
	}
	for (size_t i = 0; i < n; i++)
		free(owned[i]);
	return buf_take(&out);
}

/* --- fixture ----------------------------------------------------------------------- */

static char cordon_bin[PATH_MAX];
static char src_dir[PATH_MAX];     /* $CORDON_SRC, canonical */
static char empty_policy[PATH_MAX];

/* mkdir -p @path (absolute). */
static void mkdirs_abs(const char *path)
{
	char p[PATH_MAX];

	snprintf(p, sizeof(p), "%s", path);
	for (char *s = p + 1;; s++) {
		if (*s != '/' && *s != '\0')
			continue;
		char c = *s;
		*s = '\0';
		cr_assert(mkdir(p, 0755) == 0 || errno == EEXIST, "mkdir %s: %s", visible(p),
			  strerror(errno));
		*s = c;
		if (!c)
			break;
	}
}

static void mkdirs(const char *rel)
{
	mkdirs_abs(tp(rel));
}

static void put_abs(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);

	cr_assert_geq(fd, 0, "create %s: %s", visible(path), strerror(errno));
	cr_assert_eq(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
}

static void put(const char *rel, const char *text)
{
	put_abs(tp(rel), text);
}

/* @path as Seatbelt sees it: /tmp, /var and /etc are links into /private
 * on macOS (written here, not taken from sbpl_resolved, which is under test). */
static const char *seen(const char *path)
{
	static const char *const linked[] = { "/tmp", "/var", "/etc" };

	for (size_t i = 0; i < 3; i++) {
		size_t n = strlen(linked[i]);
		if (strncmp(path, linked[i], n) == 0 && (path[n] == '/' || path[n] == '\0'))
			return fmt("/private%s", path);
	}
	return fmt("%s", path);
}

static void setup(void)
{
	const char *src = getenv("CORDON_SRC");

	fixture_mktree("/tmp/cordon-seatbelt-XXXXXX");
	/* What the goldens and seen() assume: $T is a real directory under /tmp. */
	cr_assert(strncmp(T, "/tmp/cordon-seatbelt-", 21) == 0,
		  "the tree is %s, not under /tmp (is /tmp a link?)", T);
	program(cordon_bin, "cordon");
	cr_assert_not_null(realpath(src && *src ? src : ".", src_dir), "CORDON_SRC %s: %s",
			   src ? src : ".", strerror(errno));
	mkdirs("ws/.git/hooks");
	put("ws/.git/config", "[core]\n");
	put("ws/file.txt", "a file root\n");
	mkdirs("home/.npm");
	mkdirs("home/.cache/pip");
	mkdirs("state");
	mkdirs("tmp");
	put("empty", "");
	snprintf(empty_policy, sizeof(empty_policy), "%s", tp("empty"));
}

static void teardown(void)
{
	if (strncmp(T, "/tmp/cordon-seatbelt-", 21) == 0)
		fixture_rmtree(T);
	T[0] = '\0';
}

/* --- running cordon ---------------------------------------------------------------- */

static struct {
	int status;        /* exit status, or -1: killed by a signal */
	size_t out_len;
	char out[BIG], err[BIG / 4];
} R;

/* @argv as fixture_run() runs it (stdin never a terminal: the profile
 * would list it). Returns the exit status (also in R, with the output). */
static int spawn(const char *const *argv)
{
	char out_path[PATH_MAX], err_path[PATH_MAX];
	int st = fixture_run(argv, NULL);

	snprintf(out_path, sizeof(out_path), "%s", tp("stdout"));
	snprintf(err_path, sizeof(err_path), "%s", tp("stderr"));
	R.status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
	ssize_t n = fixture_slurp(out_path, R.out, sizeof(R.out));
	cr_assert_geq(n, 0, "read %s", out_path);
	cr_assert_lt((size_t)n, sizeof(R.out) - 1, "the output did not fit");
	R.out_len = (size_t)n;
	cr_assert_geq(fixture_slurp(err_path, R.err, sizeof(R.err)), 0);
	return R.status;
}

/* cordon @args... (see spawn). */
static int cordon(const char *const *args)
{
	const char *argv[MAX_ARGS];
	size_t a = 0;

	argv[a++] = cordon_bin;
	for (; *args; args++) {
		cr_assert_lt(a, MAX_ARGS - 1, "too many arguments");
		argv[a++] = *args;
	}
	argv[a] = NULL;
	return spawn(argv);
}

/* cordon @args..., which must exit 0 with a profile on stdout and nothing
 * on stderr: the profile, checked (check_profile). */
static struct profile profile_of(const char *const *args)
{
	cordon(args);
	cr_assert_eq(R.status, 0, "cordon %s ... exited %d\nstdout:\n%s\nstderr:\n%s", args[0],
		     R.status, R.out, R.err);
	cr_assert_str_empty(R.err, "cordon wrote on stderr:\n%s\nstdout:\n%s", R.err, R.out);
	return check_profile(R.out, R.out_len);
}

/* cordon seatbelt --policy $T/empty @opts...: the options alone. */
static struct profile seatbelt(const char *const *opts)
{
	const char *args[MAX_ARGS];
	size_t a = 0;

	args[a++] = "seatbelt";
	args[a++] = "--policy";
	args[a++] = empty_policy;
	for (; *opts; opts++) {
		cr_assert_lt(a, MAX_ARGS - 1, "too many options");
		args[a++] = *opts;
	}
	args[a] = NULL;
	return profile_of(args);
}

/* @text from the line that holds @needle on (the relevant part of a
 * profile, for messages), or all of it. */
static const char *from_line(const char *text, const char *needle)
{
	const char *at = strstr(text, needle);

	if (!at)
		return text;
	while (at > text && at[-1] != '\n')
		at--;
	return at;
}

/* --- S-expression reader: crafted inputs -------------------------------------------- */

/* The reader must refuse what is broken and decode what is not, or the
 * checks built on it prove nothing. */
Test(sexpr, reader_crafted_inputs_parsed_or_refused)
{
	static const struct {
		const char *in;
		const char *want;   /* the forms written back, one a line; NULL: an error */
	} rows[] = {
		{ "(version 1)\n(deny default)\n", "(version 1)\n(deny default)\n" },
		{ "; a comment (allow default)\n(a b)", "(a b)\n" },
		{ "(a ; ) hidden by the comment\n b)", "(a b)\n" },
		{ "(a \"x\\\"y\\\\z\")", "(a \"x\\\"y\\\\z\")\n" },
		{ "(a \"\\x41\\n\\t\\r\")", "(a \"A\\x0a\\x09\\x0d\")\n" },
		{ "(a #\"^/x\\\"y$\")", "(a #\"^/x\\\\\\\"y$\")\n" },
		{ "(a \"\xc3\xa9\xff\")", "(a \"\\xc3\\xa9\\xff\")\n" },
		{ "(a (b (c)) d)", "(a (b (c)) d)\n" },
		{ "(a", NULL },
		{ ")", NULL },
		{ "(a))", NULL },
		{ "(a \"open)", NULL },
		{ "(a \"\\q\")", NULL },
		{ "(a \"\\x4\")", NULL },
		{ "(a \"\\x00\")", NULL },
		{ "(a \"raw\nnewline\")", NULL },
		{ "(a \"ends in \\", NULL },
	};

	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		char err[256];
		struct sx *top = sx_read(rows[i].in, strlen(rows[i].in), err, sizeof(err));
		char *vin = visible(rows[i].in);
		if (!rows[i].want) {
			cr_expect_null(top, "row %zu: \"%s\" was read as %s, not refused", i, vin,
				       top ? show(top) : "");
		} else {
			cr_expect_not_null(top, "row %zu: \"%s\" refused: %s", i, vin, err);
			if (top) {
				struct buf b = { 0 };
				for (size_t k = 0; k < top->n; k++) {
					sx_write(&b, top->kid[k], false);
					buf_putc(&b, '\n');
				}
				char *got = buf_take(&b);
				cr_expect_str_eq(got, rows[i].want, "row %zu: \"%s\" read as\n%s", i, vin,
						 got);
				free(got);
			}
		}
		free(vin);
		sx_free(top);
	}
	/* and the decoded bytes themselves */
	char err[256];
	const char *in = "(a \"q\\\"\\\\\\n\\x7f\\xff\")";
	struct sx *top = sx_read(in, strlen(in), err, sizeof(err));
	cr_assert_not_null(top, "%s", err);
	cr_expect_str_eq(top->kid[0]->kid[1]->text, "q\"\\\n\x7f\xff", "decoded %s",
			 show(top->kid[0]->kid[1]));
	sx_free(top);
}

/* --- golden profiles of the shipped policies --------------------------------------- */

/* Every @from in @s replaced by @to, into a new string. */
static char *replace_all(const char *s, const char *from, const char *to)
{
	struct buf b = { 0 };
	size_t n = strlen(from);

	for (const char *at; (at = strstr(s, from));) {
		buf_add(&b, s, (size_t)(at - s));
		buf_puts(&b, to);
		s = at + n;
	}
	buf_puts(&b, s);
	return buf_take(&b);
}

/* The profile of `--policy $CORDON_SRC/policy.d/@policy` (a file, not a
 * name: the same file whichever directories the binary searches) in the fixed
 * tree of setup(), with $T written /T and $CORDON_SRC /SRC, equals
 * tests/golden/@name. */
static void compare_golden(const char *policy, const char *name)
{
	char path[PATH_MAX + 64], file[PATH_MAX + 64];
	static char want[BIG];

	snprintf(file, sizeof(file), "%s/policy.d/%s", src_dir, policy);
	struct profile p = profile_of(ARGS("seatbelt", "--policy", file));
	char *t = replace_all(p.text, T, "/T");
	char *got = replace_all(t, src_dir, "/SRC");

	free(t);
	snprintf(path, sizeof(path), "%s/tests/golden/%s", src_dir, name);
	if (getenv("CORDON_GOLDEN_UPDATE"))
		put_abs(path, got);
	ssize_t n = fixture_slurp(path, want, sizeof(want));
	cr_assert_geq(n, 0, "no golden file %s (CORDON_GOLDEN_UPDATE=1 makes it)\n--- got\n%s---",
		      path, got);
	if (strcmp(got, want) != 0) {
		unsigned line = 1;
		const char *g = got, *w = want;
		while (*g && *g == *w) {
			line += *g == '\n';
			g++;
			w++;
		}
		while (g > got && g[-1] != '\n') {
			g--;
			w--;
		}
		cr_assert_fail("the profile of --policy %s differs from %s at line %u:\n"
			" want: %.*s\n  got: %.*s\nreview, then CORDON_GOLDEN_UPDATE=1\n"
			"--- got (normalised)\n%s---",
			policy, path, line, (int)strcspn(w, "\n"), w, (int)strcspn(g, "\n"), g, got);
	}
	/* what the fixed tree is there for: present caches in, missing ones out */
	if (strcmp(policy, "default") != 0 && strcmp(policy, "secrets") != 0) {
		cr_expect_geq(find(&p, 0, false, "allow", "file-write*", "subpath",
				   seen(tp("home/.npm"))), 0, "~/.npm is missing\n---\n%s---", got);
		cr_expect_geq(find(&p, 0, false, "allow", "file-write*", "subpath",
				   seen(tp("home/.cache/pip"))), 0, "~/.cache/pip is missing\n---\n%s---",
			      got);
		cr_expect_null(strstr(got, "/T/home/.ccache\""), "a missing optional root is "
			       "listed\n---\n%s---", got);
	}
	free(got);
	profile_free(&p);
}

Test(seatbelt_golden, default_policy_matches_golden, .init = setup, .fini = teardown,
     .timeout = 20)
{
	compare_golden("default", "seatbelt-default.sb");
}

Test(seatbelt_golden, agent_policy_matches_golden, .init = setup, .fini = teardown,
     .timeout = 20)
{
	compare_golden("agent", "seatbelt-agent.sb");
}

Test(seatbelt_golden, caches_policy_matches_golden, .init = setup, .fini = teardown,
     .timeout = 20)
{
	compare_golden("caches", "seatbelt-caches.sb");
}

Test(seatbelt_golden, offline_build_policy_matches_golden, .init = setup, .fini = teardown,
     .timeout = 20)
{
	compare_golden("offline-build", "seatbelt-offline-build.sb");
}

Test(seatbelt_golden, secrets_policy_matches_golden, .init = setup, .fini = teardown,
     .timeout = 20)
{
	compare_golden("secrets", "seatbelt-secrets.sb");
}

/* --- hostile names ----------------------------------------------------------------- */

/* Names that would end a string, open a form, start a comment or a regex,
 * break a line, or are not ASCII (or not UTF-8) at all. */
static const char *const hostile[] = {
	"q\"uote",
	"back\\slash",
	"x\")(allow default)(\"",
	"semi;colon",
	"hash#\"re",
	"new\nline",
	"tab\tx",
	"cr\rx",
	"\xc3\xa9t\xc3\xa9",          /* été */
	"smile\xf0\x9f\x98\x80",      /* U+1F600 */
	"bad\xff",                    /* not UTF-8 */
	"bell\x07",
	"del\x7f",
	"hex\\x41",                   /* a backslash, then x41: must stay four bytes */
	"tail\\",
};
#define N_HOSTILE (sizeof(hostile) / sizeof(hostile[0]))

/* The options that make a root of each kind, and the directory under adv/
 * (or plain/) its roots are in. */
static const char *const root_opts[][2] = {
	{ "--write", "w" },
	{ "--read-deny", "rd" },
	{ "--write-deny", "wd" },
	{ "--unix-socket", "s" },
};

/* The profile with a root of each kind for each name: $T/@dir/KIND/NAME,
 * NAME from @names (or, when NULL, pNN). Every directory is made. */
static struct profile roots_profile(const char *dir, const char *const *names, char **paths)
{
	const char *opts[MAX_ARGS];
	size_t a = 0, k = 0;

	for (size_t r = 0; r < 4; r++) {
		for (size_t i = 0; i < N_HOSTILE; i++) {
			const char *name = names ? names[i] : fmt("p%02zu", i);
			char *path = strdup(fmt("%s/%s/%s/%s", T, dir, root_opts[r][1], name));
			cr_assert_not_null(path);
			if (r < 3)
				mkdirs_abs(path);
			else
				mkdirs_abs(fmt("%s/%s/%s", T, dir, root_opts[r][1]));
			opts[a++] = root_opts[r][0];
			opts[a++] = path;
			paths[k++] = path;
		}
	}
	opts[a] = NULL;
	return seatbelt(opts);
}

/* The shape of every top-level form of @p (its strings as S), one a line. */
static char *shapes(const struct profile *p)
{
	struct buf b = { 0 };

	for (size_t i = 0; i < p->top->n; i++) {
		char *s = shape_of(p->top->kid[i]);
		buf_puts(&b, s);
		buf_putc(&b, '\n');
		free(s);
	}
	return buf_take(&b);
}

Test(escaping, hostile_root_names_one_string_each_no_form_added, .init = setup,
     .fini = teardown, .timeout = 20)
{
	char *evil_paths[4 * N_HOSTILE], *plain_paths[4 * N_HOSTILE];
	struct profile plain = roots_profile("plain", NULL, plain_paths);
	struct profile evil = roots_profile("adv", hostile, evil_paths);

	/* The strings beneath $T are exactly the roots, each once, decoded
	 * to the bytes of its name. */
	const char *got[8192], *want[4 * N_HOSTILE];
	size_t n_got = 0, n_want = 0, n_all = 0;
	const char *all[8192];
	const char *prefix = fmt("%s/", seen(T));
	char prefix_copy[PATH_MAX];
	snprintf(prefix_copy, sizeof(prefix_copy), "%s", prefix);
	strings_of(evil.top, all, &n_all, 8192);
	for (size_t i = 0; i < n_all; i++)
		if (strncmp(all[i], prefix_copy, strlen(prefix_copy)) == 0)
			got[n_got++] = all[i];
	for (size_t i = 0; i < 4 * N_HOSTILE; i++)
		want[n_want++] = strdup(seen(evil_paths[i]));
	qsort(got, n_got, sizeof(got[0]), by_str);
	qsort(want, n_want, sizeof(want[0]), by_str);
	cr_expect_eq(n_got, n_want, "%zu strings beneath $T, %zu roots\n---\n%s\n---", n_got,
		     n_want, from_line(evil.text, ";; writes"));
	for (size_t i = 0; i < n_got && i < n_want; i++) {
		char *vg = visible(got[i]), *vw = visible(want[i]);
		cr_expect_str_eq(got[i], want[i], "string %zu: got \"%s\", want \"%s\"\n---\n%s\n---",
				 i, vg, vw, from_line(evil.text, ";; writes"));
		free(vg);
		free(vw);
	}

	/* The same forms, of the same shape, as with plain names: nothing was
	 * added, split or merged. */
	char *se = shapes(&evil), *sp = shapes(&plain);
	cr_expect_eq(evil.top->n, plain.top->n, "%zu top-level forms with hostile names, %zu with "
		     "plain ones\n--- hostile\n%s\n--- plain\n%s\n---",
		     evil.top->n, plain.top->n, evil.text, plain.text);
	cr_expect_str_eq(se, sp, "the forms differ in shape\n--- hostile\n%s--- plain\n%s---\n%s",
			 se, sp, evil.text);

	/* Every comment stayed on its line: as many lines as the plain profile. */
	char *bad;
	size_t le = lines_of(evil.text, &bad), lp = lines_of(plain.text, &bad);
	cr_expect_eq(le, lp, "%zu lines with hostile names, %zu with plain ones\n--- hostile\n%s"
		     "\n--- plain\n%s\n---", le, lp, evil.text, plain.text);
	free(se);
	free(sp);
	for (size_t i = 0; i < 4 * N_HOSTILE; i++) {
		free(evil_paths[i]);
		free(plain_paths[i]);
		free((char *)want[i]);
	}
	profile_free(&evil);
	profile_free(&plain);
}

/* The policy file's own name goes into the comment before each of its
 * rules: a line break in it must not end that comment. */
Test(escaping, policy_file_name_with_newline_stays_in_comment, .init = setup,
     .fini = teardown, .timeout = 20)
{
	const char *evil_dir = tp("pol\n(allow default)\n;");
	mkdirs_abs(evil_dir);
	mkdirs("pol-plain");
	put_abs(fmt("%s/p", evil_dir), "write ${WORKSPACE}\nread-deny ~/.ssh\n");
	put("pol-plain/p", "write ${WORKSPACE}\nread-deny ~/.ssh\n");

	struct profile plain = profile_of(ARGS("seatbelt", "--policy", tp("pol-plain/p")));
	cordon(ARGS("seatbelt", "--policy", fmt("%s/p", evil_dir)));
	cr_assert_eq(R.status, 0, "exit %d\n%s", R.status, R.err);
	/* First the plain facts, then the full check. */
	char *bad, err[256];
	size_t le = lines_of(R.out, &bad), lp = lines_of(plain.text, &bad);
	cr_expect_eq(le, lp, "%zu lines with a line break in the policy's name, %zu without\n"
		     "--- with\n%s\n--- without\n%s\n---", le, lp, R.out, plain.text);
	struct sx *top = sx_read(R.out, R.out_len, err, sizeof(err));
	cr_assert_not_null(top, "%s\n---\n%s\n---", err, R.out);
	struct profile raw = { .text = R.out, .top = top };
	/* Decided by the profile as text: nothing is written. */
	const char *outside = fmt("/private%s", tp("outside/canary"));
	struct verdict v = decide(&raw, "file-write*", outside);
	cr_expect(!v.allow, "the profile lets %s be written, by form %s\n---\n%s\n---", outside,
		  show(form(&raw, v.form)), R.out);
	sx_free(top);
	struct profile evil = check_profile(R.out, R.out_len);
	char *se = shapes(&evil), *sp = shapes(&plain);
	cr_expect_str_eq(se, sp, "the forms differ in shape\n--- with\n%s--- without\n%s---", se,
			 sp);
	free(se);
	free(sp);
	profile_free(&evil);
	profile_free(&plain);
}

/* --- decisions: the profile against the policy -------------------------------------- */

struct query {
	const char *op;     /* read, write or connect (a unix socket) */
	const char *rel;    /* beneath $T, or an absolute path */
	bool allow;         /* what the policy says (and explain must agree) */
};

/*
 * For each query: `cordon explain` under the same options must say what the
 * table says (else the table is wrong), and the profile, evaluated as
 * Seatbelt would (decide()), must say the same.
 */
static void check_decisions(const char *const *opts, const struct query *q, size_t n)
{
	const char *args[MAX_ARGS], *own_opts[MAX_ARGS];
	char *owned[MAX_ARGS];
	size_t a = 0, n_owned = 0, n_opts = 0;
	bool said[64];
	size_t n_said = 0;

	/* tp() and fmt() reuse their buffers: keep copies */
	cr_assert_leq(n, 64);
	for (const char *const *o = opts; *o; o++) {
		cr_assert_lt(n_owned, MAX_ARGS / 2);
		own_opts[n_opts++] = owned[n_owned++] = strdup(*o);
	}
	own_opts[n_opts] = NULL;
	args[a++] = "explain";
	args[a++] = "--policy";
	args[a++] = empty_policy;
	for (size_t i = 0; i < n_opts; i++)
		args[a++] = own_opts[i];
	for (size_t i = 0; i < n; i++) {
		cr_assert_lt(a, MAX_ARGS - 2);
		args[a++] = q[i].op;
		const char *path = q[i].rel[0] == '/' ? q[i].rel : tp(q[i].rel);
		args[a++] = owned[n_owned++] = strdup(strcmp(q[i].op, "connect") == 0
							      ? fmt("unix:%s", path)
							      : path);
	}
	args[a] = NULL;
	cordon(args);
	cr_assert_eq(R.status, 0, "explain exited %d\n%s\n%s", R.status, R.out, R.err);
	for (const char *p = R.out; *p;) {
		if (strncmp(p, "allow ", 6) == 0 || strncmp(p, "deny ", 5) == 0) {
			cr_assert_lt(n_said, 64);
			said[n_said++] = p[0] == 'a';
		}
		p += strcspn(p, "\n");
		if (*p)
			p++;
	}
	char *explained = strdup(R.out);
	cr_assert_eq(n_said, n, "explain gave %zu verdicts for %zu queries\n%s", n_said, n,
		     explained);

	struct profile p = seatbelt(own_opts);
	for (size_t i = 0; i < n; i++) {
		const char *op = strcmp(q[i].op, "read") == 0    ? "file-read*"
				 : strcmp(q[i].op, "write") == 0 ? "file-write*"
								 : "network-outbound";
		const char *path = seen(q[i].rel[0] == '/' ? q[i].rel : tp(q[i].rel));
		cr_expect_eq(said[i], q[i].allow, "the table is wrong: explain %s %s says %s\n%s",
			     q[i].op, q[i].rel, said[i] ? "allow" : "deny", explained);
		struct verdict v = decide(&p, op, path);
		cr_expect_eq(v.allow, q[i].allow,
			     "%s %s: the policy says %s, the profile %s (decided by form %ld, line "
			     "%u: %s)\n---\n%s---",
			     q[i].op, path, q[i].allow ? "allow" : "deny", v.allow ? "allow" : "deny",
			     v.form, form(&p, v.form) ? form(&p, v.form)->line : 0,
			     show(form(&p, v.form)), from_line(p.text, ";; writes"));
	}
	free(explained);
	for (size_t i = 0; i < n_owned; i++)
		free(owned[i]);
	profile_free(&p);
}

/*
 *   $T/nest/            write
 *     rd/               read-deny
 *       open/           write: opens rd/open again
 *     ro/               write-deny
 *       rw/             write: opens ro/rw again
 *   $T/nest2/           nothing (shares a prefix with nest)
 *   $T/out/             nothing
 *   $T/lit.txt          write: a file root
 *   $T/target/          read-deny'd through the link:
 *   $T/link -> target   read-deny $T/link (both names denied)
 *   $T/listed.sock      unix-socket
 */
Test(decisions, profile_decides_as_explain, .init = setup, .fini = teardown, .timeout = 20)
{
	mkdirs("nest/rd/open");
	mkdirs("nest/ro/rw");
	mkdirs("nest2");
	mkdirs("out");
	mkdirs("target");
	put("lit.txt", "x\n");
	cr_assert_eq(symlink(tp("target"), tp("link")), 0, "symlink: %s", strerror(errno));
	const struct query q[] = {
		{ "read", "nest/x", true },
		{ "write", "nest/x", true },
		{ "write", "nest", true },
		{ "read", "nest/rd", false },
		{ "read", "nest/rd/x", false },
		{ "write", "nest/rd/x", false },
		{ "read", "nest/rd/open/x", true },
		{ "write", "nest/rd/open/x", true },
		{ "write", "nest/rd/openx", false },
		{ "read", "nest/ro/x", true },
		{ "write", "nest/ro/x", false },
		{ "write", "nest/ro/rw/x", true },
		{ "read", "nest/ro/rw/x", true },
		{ "write", "nest2/x", false },
		{ "read", "out/x", true },
		{ "write", "out/x", false },
		{ "write", "lit.txt", true },
		{ "write", "lit.txt.bak", false },
		{ "read", "target/x", false },
		{ "read", "link", false },
		{ "connect", "listed.sock", true },
		{ "connect", "out/x.sock", false },
		{ "connect", "nest/x.sock", true },
		{ "connect", "nest/rd/x.sock", false },
		{ "connect", "nest/rd/open/x.sock", true },
		{ "write", "listed.sock", false },
	};
	check_decisions(ARGS("--write", tp("nest"), "--read-deny", tp("nest/rd"), "--write",
			     tp("nest/rd/open"), "--write-deny", tp("nest/ro"), "--write",
			     tp("nest/ro/rw"), "--write", tp("lit.txt"), "--read-deny", tp("link"),
			     "--unix-socket", tp("listed.sock")),
			q, sizeof(q) / sizeof(q[0]));
}

/*
 * An entry that takes rights away inside a write root that is itself
 * opened again inside such an entry: the nearest entry decides, so the
 * inner entry must still hold.
 *
 *   $T/nest/                 write
 *     rd/                    read-deny
 *       open/                write (opened again)
 *         wd/                write-deny  -> still not writable
 *         rd2/               read-deny   -> still not readable
 *     ro/                    write-deny
 *       rw/                  write (opened again)
 *         secret/            read-deny   -> still not readable
 */
Test(decisions, deny_inside_reopened_root_still_denied, .init = setup, .fini = teardown,
     .timeout = 20)
{
	mkdirs("nest/rd/open/wd");
	mkdirs("nest/rd/open/rd2");
	mkdirs("nest/ro/rw/secret");
	const struct query q[] = {
		{ "write", "nest/rd/open/x", true },
		{ "write", "nest/rd/open/wd/x", false },
		{ "read", "nest/rd/open/wd/x", true },
		{ "read", "nest/rd/open/rd2/x", false },
		{ "write", "nest/rd/open/rd2/x", false },
		{ "write", "nest/ro/rw/x", true },
		{ "read", "nest/ro/rw/secret/x", false },
		{ "write", "nest/ro/rw/secret/x", false },
	};
	check_decisions(ARGS("--write", tp("nest"), "--read-deny", tp("nest/rd"), "--write",
			     tp("nest/rd/open"), "--write-deny", tp("nest/rd/open/wd"),
			     "--read-deny", tp("nest/rd/open/rd2"), "--write-deny", tp("nest/ro"),
			     "--write", tp("nest/ro/rw"), "--read-deny", tp("nest/ro/rw/secret")),
			q, sizeof(q) / sizeof(q[0]));
}

/*
 * A chain of entries, each inside the one before: the nearest decides at
 * every level, whatever the depth.
 *
 *   $T/deep/                 write
 *     a/                     read-deny
 *       b/                   write (opened again)
 *         c/                 write-deny
 *           d/               write (opened again)
 *             e/             read-deny
 *               s.sock       unix-socket
 *     x/                     read-deny
 *       both/                write and write-deny: read, not written
 */
Test(decisions, deep_chain_nearest_entry_decides, .init = setup, .fini = teardown,
     .timeout = 20)
{
	mkdirs("deep/a/b/c/d/e");
	mkdirs("deep/x/both");
	const struct query q[] = {
		{ "read", "deep/a/f", false },
		{ "write", "deep/a/f", false },
		{ "read", "deep/a/b/f", true },
		{ "write", "deep/a/b/f", true },
		{ "read", "deep/a/b/c/f", true },
		{ "write", "deep/a/b/c/f", false },
		{ "read", "deep/a/b/c/d/f", true },
		{ "write", "deep/a/b/c/d/f", true },
		{ "read", "deep/a/b/c/d/e/f", false },
		{ "write", "deep/a/b/c/d/e/f", false },
		{ "connect", "deep/a/b/c/d/e/s.sock", true },
		{ "connect", "deep/a/b/c/d/e/other.sock", false },
		{ "connect", "deep/a/b/f.sock", true },
		{ "read", "deep/x/f", false },
		{ "read", "deep/x/both/f", true },
		{ "write", "deep/x/both/f", false },
	};
	check_decisions(ARGS("--write", tp("deep"), "--read-deny", tp("deep/a"), "--write",
			     tp("deep/a/b"), "--write-deny", tp("deep/a/b/c"), "--write",
			     tp("deep/a/b/c/d"), "--read-deny", tp("deep/a/b/c/d/e"),
			     "--unix-socket", tp("deep/a/b/c/d/e/s.sock"), "--read-deny",
			     tp("deep/x"), "--write", tp("deep/x/both"), "--write-deny",
			     tp("deep/x/both")),
			q, sizeof(q) / sizeof(q[0]));
}

/* The policy's devices (policy_add_devices) are entries like any other: one
 * inside a read-deny entry is the nearest, and stays readable. */
Test(decisions, device_inside_read_deny_readable, .init = setup, .fini = teardown,
     .timeout = 20)
{
	const struct query q[] = {
		{ "read", "/dev/null", true },
		{ "read", "/dev/zero", true },
		{ "read", "/dev/cordon-seatbelt-other", false },
	};
	check_decisions(ARGS("--read-deny", "/dev"), q, sizeof(q) / sizeof(q[0]));
}

/* A listed unix socket inside a read-deny entry: the socket is the nearest
 * entry, so connecting to it is allowed (docs/policy.md, "How decisions are
 * made"); other sockets there are not. */
Test(decisions, listed_socket_inside_read_deny_connectable, .init = setup, .fini = teardown,
     .timeout = 20)
{
	mkdirs("home/.gnupg");
	const struct query q[] = {
		{ "connect", "home/.gnupg/S.gpg-agent", true },
		{ "connect", "home/.gnupg/other.sock", false },
		{ "read", "home/.gnupg/x", false },
	};
	check_decisions(ARGS("--read-deny", tp("home/.gnupg"), "--unix-socket",
			     tp("home/.gnupg/S.gpg-agent")),
			q, sizeof(q) / sizeof(q[0]));
}

/* --- order: what takes rights away comes last --------------------------------------- */

Test(order, read_deny_after_write_roots_denies_read_and_write, .init = setup,
     .fini = teardown, .timeout = 20)
{
	mkdirs("ws/secret");
	struct profile p = seatbelt(ARGS("--write", tp("ws"), "--read-deny", tp("ws/secret"),
					 "--read-deny", tp("home/.ssh")));
	const char *ws = seen(tp("ws")), *secret = seen(tp("ws/secret")),
		   *ssh = seen(tp("home/.ssh"));
	long w = find(&p, 0, true, "allow", "file-write*", "subpath", ws);
	long d = find(&p, 0, false, "deny", "file-read*", "subpath", secret);
	long d2 = find(&p, 0, false, "deny", "file-read*", "subpath", ssh);

	cr_assert_geq(w, 0, "no (allow file-write* (subpath \"%s\"))\n---\n%s---", ws, p.text);
	cr_assert_gt(d, w, "(deny file-read* (subpath \"%s\")) is form %ld, the write root's "
		     "allow form %ld: the allow wins\n---\n%s---", secret, d, w, p.text);
	cr_expect(form_is(form(&p, d), "deny", "file-write*"), "the read-deny form %s does not "
		  "deny file-write*\n---\n%s---", show(form(&p, d)), p.text);
	cr_assert_gt(d2, w, "(deny file-read* (subpath \"%s\")): form %ld\n---\n%s---", ssh, d2,
		     p.text);
	cr_expect(form_is(form(&p, d2), "deny", "file-write*"), "%s\n---\n%s---",
		  show(form(&p, d2)), p.text);
	/* and nothing after them gives it back */
	struct verdict r = decide(&p, "file-read*", fmt("%s/id", secret));
	struct verdict wr = decide(&p, "file-write*", fmt("%s/id", secret));
	cr_expect(!r.allow && !wr.allow, "read %s, write %s beneath %s (forms %s, %s)\n---\n%s---",
		  r.allow ? "allowed" : "denied", wr.allow ? "allowed" : "denied", secret,
		  show(form(&p, r.form)), show(form(&p, wr.form)), p.text);
	profile_free(&p);
}

Test(order, write_deny_after_write_roots_denies_write_only, .init = setup, .fini = teardown,
     .timeout = 20)
{
	struct profile p = seatbelt(ARGS("--write", tp("ws"), "--write-deny", tp("ws/.git/hooks")));
	const char *ws = seen(tp("ws")), *hooks = seen(tp("ws/.git/hooks"));
	long w = find(&p, 0, true, "allow", "file-write*", "subpath", ws);
	long d = find(&p, 0, false, "deny", "file-write*", "subpath", hooks);

	cr_assert_geq(w, 0, "no write root %s\n---\n%s---", ws, p.text);
	cr_assert_gt(d, w, "(deny file-write* (subpath \"%s\")) is form %ld, the root's %ld\n"
		     "---\n%s---", hooks, d, w, p.text);
	cr_expect(!form_is(form(&p, d), "deny", "file-read*"), "write-deny denies reading: %s\n"
		  "---\n%s---", show(form(&p, d)), p.text);
	cr_expect(decide(&p, "file-read*", fmt("%s/pre-commit", hooks)).allow,
		  "a hook cannot be read\n---\n%s---", p.text);
	cr_expect(!decide(&p, "file-write*", fmt("%s/pre-commit", hooks)).allow,
		  "a hook can be written\n---\n%s---", p.text);
	profile_free(&p);
}

Test(order, write_root_inside_read_deny_allowed_after_deny, .init = setup, .fini = teardown,
     .timeout = 20)
{
	mkdirs("ws/secret/open");
	struct profile p = seatbelt(ARGS("--write", tp("ws"), "--read-deny", tp("ws/secret"),
					 "--write", tp("ws/secret/open")));
	const char *secret = seen(tp("ws/secret")), *open = seen(tp("ws/secret/open"));
	long d = find(&p, 0, false, "deny", "file-read*", "subpath", secret);
	long r = find(&p, 0, true, "allow", "file-write*", "subpath", open);

	cr_assert_geq(d, 0, "no read-deny %s\n---\n%s---", secret, p.text);
	cr_assert_gt(r, d, "the last (allow file-write* (subpath \"%s\")) is form %ld, the "
		     "read-deny form %ld\n---\n%s---", open, r, d, p.text);
	cr_expect(form_is(form(&p, r), "allow", "file-read*"), "the root is opened for writing, "
		  "not reading: %s\n---\n%s---", show(form(&p, r)), p.text);
	cr_expect(decide(&p, "file-read*", fmt("%s/x", open)).allow, "\n---\n%s---", p.text);
	cr_expect(!decide(&p, "file-read*", fmt("%s/x", secret)).allow, "\n---\n%s---", p.text);
	profile_free(&p);
}

Test(order, subprocess_no_final_deny_fork, .init = setup, .fini = teardown, .timeout = 20)
{
	struct profile no = seatbelt(ARGS("--subprocess", "no"));
	struct profile yes = seatbelt(ARGS("--subprocess", "yes"));
	const struct sx *last = no.top->kid[no.top->n - 1];

	cr_expect_str_eq(show(last), "(deny process-fork)", "the last form is %s\n---\n%s---",
			 show(last), no.text);
	for (size_t i = 0; i < no.top->n; i++)
		cr_expect(!form_is(no.top->kid[i], "allow", "process-fork"),
			  "subprocess no, yet form %zu is %s\n---\n%s---", i, show(no.top->kid[i]),
			  no.text);
	/* the other way round, so that the test can tell them apart */
	bool allowed = false;
	for (size_t i = 0; i < yes.top->n; i++) {
		allowed |= form_is(yes.top->kid[i], "allow", "process-fork");
		cr_expect(!form_is(yes.top->kid[i], "deny", "process-fork"),
			  "subprocess yes, yet %s\n---\n%s---", show(yes.top->kid[i]), yes.text);
	}
	cr_expect(allowed, "subprocess yes and no (allow process-fork)\n---\n%s---", yes.text);
	profile_free(&no);
	profile_free(&yes);
}

/* --- network ----------------------------------------------------------------------- */

/* The network rules of the profile of @opts are exactly @want (sorted). */
static void expect_net(const char *const *opts, const char *want)
{
	struct profile p = seatbelt(opts);
	char *got = net_rules(&p);

	cr_expect_str_eq(got, want, "network rules:\n%s\nwant:\n%s\n---\n%s---", got, want,
			 from_line(p.text, ";; network"));
	free(got);
	profile_free(&p);
}

Test(network, net_connect_ports_outbound_remote_tcp_only, .init = setup, .fini = teardown,
     .timeout = 20)
{
	expect_net(ARGS("--net", "none", "--net-connect", "443", "--net-connect", "8000-8002"),
		   "allow network-outbound: (remote tcp \"*:443\")\n"
		   "allow network-outbound: (remote tcp \"*:8000\")\n"
		   "allow network-outbound: (remote tcp \"*:8001\")\n"
		   "allow network-outbound: (remote tcp \"*:8002\")\n");
}

Test(network, net_bind_ports_local_tcp_only, .init = setup, .fini = teardown, .timeout = 20)
{
	expect_net(ARGS("--net", "none", "--net-bind", "8080", "--net-bind", "9000-9001"),
		   "allow network-bind network-inbound: (local tcp \"*:8080\")\n"
		   "allow network-bind network-inbound: (local tcp \"*:9000\")\n"
		   "allow network-bind network-inbound: (local tcp \"*:9001\")\n");
}

Test(network, net_none_without_ports_no_network_rule, .init = setup, .fini = teardown,
     .timeout = 20)
{
	expect_net(ARGS("--net", "none"), "");
}

Test(network, net_connect_full_range_star, .init = setup, .fini = teardown, .timeout = 20)
{
	expect_net(ARGS("--net-connect", "1-65535"),
		   "allow network-outbound: (remote tcp \"*:*\")\n");
}

Test(network, net_ports_1024_accepted, .init = setup, .fini = teardown, .timeout = 20)
{
	struct profile p = seatbelt(ARGS("--net-connect", "1-1000", "--net-bind", "2001-2024"));
	char *got = net_rules(&p);
	size_t tcp = 0;

	for (const char *s = got; (s = strstr(s, " tcp \"*:")); s++)
		tcp++;
	cr_expect_eq(tcp, 1024, "%zu port rules, want 1024\n---\n%s---", tcp,
		     from_line(p.text, ";; network"));
	cr_expect_not_null(strstr(got, "(remote tcp \"*:1000\")"), "no port 1000\n%s", got);
	cr_expect_not_null(strstr(got, "(local tcp \"*:2024\")"), "no port 2024\n%s", got);
	free(got);
	profile_free(&p);
}

/* More ports than a profile spells out (SBPL_MAX_PORTS, 1024, connect and
 * bind together) is an error: status 125, the reason on stderr, and no
 * profile, not even part of one, on stdout. */
Test(network, net_ports_over_1024_error_nothing_on_stdout, .init = setup, .fini = teardown,
     .timeout = 20)
{
	const char *const *const cases[] = {
		ARGS("seatbelt", "--policy", empty_policy, "--net-connect", "1-1025"),
		ARGS("seatbelt", "--policy", empty_policy, "--net-connect", "1-1000", "--net-bind",
		     "2001-2025"),
		ARGS("seatbelt", "--policy", empty_policy, "--net-bind", "1-600", "--net-bind",
		     "1001-1425"),
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		cordon(cases[i]);
		cr_expect_eq(R.status, 125, "case %zu: exit %d, want 125\nstderr:\n%s", i, R.status,
			     R.err);
		cr_expect_not_null(strstr(R.err, "1024"), "case %zu: stderr does not name the "
				   "limit:\n%s", i, R.err);
		cr_expect_not_null(strstr(R.err, "port"), "case %zu: stderr does not say ports:\n%s",
				   i, R.err);
		cr_expect_eq(R.out_len, 0, "case %zu: %zu bytes on stdout, a profile cut short:\n"
			     "---\n%s---", i, R.out_len, from_line(R.out, ";; network"));
	}
}

Test(network, net_isolated_localhost_only, .init = setup, .fini = teardown, .timeout = 20)
{
	/* net-connect means something under net none only */
	expect_net(ARGS("--net", "isolated", "--net-connect", "443"),
		   "allow network-bind network-inbound: (local ip \"localhost:*\")\n"
		   "allow network-outbound: (remote ip \"localhost:*\")\n");
}

Test(network, net_all_remote_ip_and_resolver, .init = setup, .fini = teardown, .timeout = 20)
{
	expect_net(ARGS("--net", "all"),
		   "allow network-bind network-inbound: (local ip)\n"
		   "allow network-outbound: (remote ip)\n"
		   "allow network-outbound: (remote unix-socket (path-literal "
		   "\"/private/var/run/mDNSResponder\"))\n");
}

/* --- paths ------------------------------------------------------------------------- */

Test(paths, write_root_file_literal_dir_subpath, .init = setup, .fini = teardown,
     .timeout = 20)
{
	struct profile p = seatbelt(ARGS("--write", tp("ws/file.txt"), "--write", tp("home/.npm")));
	const char *file = seen(tp("ws/file.txt")), *dir = seen(tp("home/.npm"));

	cr_expect_geq(find(&p, 0, false, "allow", "file-write*", "literal", file), 0,
		      "no (literal \"%s\")\n---\n%s---", file, from_line(p.text, ";; writes"));
	cr_expect_lt(find(&p, 0, false, "allow", "file-write*", "subpath", file), 0,
		     "a file root as a subpath\n---\n%s---", from_line(p.text, ";; writes"));
	cr_expect_geq(find(&p, 0, false, "allow", "file-write*", "subpath", dir), 0,
		      "no (subpath \"%s\")\n---\n%s---", dir, from_line(p.text, ";; writes"));
	cr_expect_lt(find(&p, 0, false, "allow", "file-write*", "literal", dir), 0,
		     "a directory root as a literal\n---\n%s---", from_line(p.text, ";; writes"));
	profile_free(&p);
}

/* /tmp, /var and /etc are links into /private on macOS; a path that only
 * begins with the same letters, or is already under /private, is left.
 * The mapping itself, on names alone (nothing is run with them). */
Test(paths, tmp_var_etc_resolved_into_private)
{
	static const struct {
		const char *path, *want;
	} rows[] = {
		{ "/var/cordon-seatbelt-test/x", "/private/var/cordon-seatbelt-test/x" },
		{ "/etc", "/private/etc" },
		{ "/etc/cordon-seatbelt-test", "/private/etc/cordon-seatbelt-test" },
		{ "/tmp/s.sock", "/private/tmp/s.sock" },
		{ "/tmpx/y", "/tmpx/y" },
		{ "/etcetera/z", "/etcetera/z" },
		{ "/variable/v", "/variable/v" },
		{ "/private/tmp/already", "/private/tmp/already" },
		{ "/", "/" },
	};
	char buf[PATH_MAX + 16];

	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++)
		cr_expect_str_eq(sbpl_resolved(rows[i].path, buf, sizeof(buf)), rows[i].want,
				 "%s", rows[i].path);
}

/* The profile of a run gives every root, entry and socket as Seatbelt
 * sees it: the tree lies under /tmp, so all of them under /private/tmp. */
Test(paths, roots_under_tmp_given_under_private, .init = setup, .fini = teardown,
     .timeout = 20)
{
	cr_assert_eq(strncmp(T, "/tmp/", 5), 0, "the tree %s is not under /tmp", T);
	struct profile p = seatbelt(ARGS("--write", tp("ws"), "--read-deny", tp("ws/x"),
					 "--write-deny", tp("ws/y"), "--unix-socket",
					 tp("s.sock")));
	const struct {
		const char *action, *op, *filter, *path;
	} want[] = {
		{ "allow", "file-write*", "subpath", fmt("/private%s", tp("ws")) },
		{ "deny", "file-read*", "subpath", fmt("/private%s", tp("ws/x")) },
		{ "deny", "file-write*", "subpath", fmt("/private%s", tp("ws/y")) },
		{ "allow", "network-outbound", "path-literal", fmt("/private%s", tp("s.sock")) },
	};

	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++)
		cr_expect_geq(find(&p, 0, false, want[i].action, want[i].op, want[i].filter,
				   want[i].path), 0, "no (%s %s (%s \"%s\"))\n---\n%s---",
			      want[i].action, want[i].op, want[i].filter, want[i].path,
			      from_line(p.text, ";; writes"));
	const char *all[4096];
	size_t n = 0;
	strings_of(p.top, all, &n, 4096);
	for (size_t i = 0; i < n; i++) {
		bool linked = false;
		for (const char *l = "/tmp\0/var\0/etc\0"; *l; l += 5)
			linked |= strncmp(all[i], l, 4) == 0 && (all[i][4] == '/' || !all[i][4]);
		cr_expect(!linked && strncmp(all[i], "/private/private", 16) != 0,
			  "\"%s\" is not the path Seatbelt sees\n---\n%s---", all[i], p.text);
	}
	profile_free(&p);
}

Test(paths, unix_socket_remote_path_literal, .init = setup, .fini = teardown, .timeout = 20)
{
	struct profile p = seatbelt(ARGS("--unix-socket", tp("agent.sock")));
	const char *sock = seen(tp("agent.sock"));
	long i = find(&p, 0, false, "allow", "network-outbound", "path-literal", sock);
	const char *want = fmt("(remote unix-socket (path-literal \"%s\"))", sock);
	bool exact = false;

	cr_assert_geq(i, 0, "no (allow network-outbound ... (path-literal \"%s\"))\n---\n%s---",
		      sock, p.text);
	const struct sx *f = form(&p, i);
	cr_assert_not_null(f);
	for (size_t k = 1; k < f->n; k++)
		exact |= strcmp(show(f->kid[k]), want) == 0;
	cr_expect(exact, "form %s has no filter %s\n---\n%s---", show(form(&p, i)), want,
		  from_line(p.text, ";; unix"));
	/* connecting only: the socket is not a file the program may write */
	cr_expect(!decide(&p, "file-write*", sock).allow, "the socket can be written\n---\n%s---",
		  p.text);
	profile_free(&p);
}

Test(paths, optional_missing_root_skipped, .init = setup, .fini = teardown, .timeout = 20)
{
	struct profile p = seatbelt(ARGS("--write", fmt("?%s", tp("missing")), "--write",
					 tp("ws")));

	cr_expect_null(strstr(p.text, "missing\""), "a missing optional root is listed\n---\n%s---",
		       p.text);
	cr_expect_geq(find(&p, 0, false, "allow", "file-write*", "subpath", seen(tp("ws"))), 0,
		      "\n---\n%s---", p.text);
	profile_free(&p);
}

/* --- the command line -------------------------------------------------------------- */

Test(cli, profile_deterministic, .init = setup, .fini = teardown, .timeout = 20)
{
	const char *const *args = ARGS("seatbelt", "--policy", fmt("%s/policy.d/agent", src_dir),
				       "--write", tp("home/.npm"),
				       "--net-connect", "443", "--unix-socket", tp("a.sock"));
	struct profile one = profile_of(args);
	struct profile two = profile_of(args);

	cr_expect_str_eq(one.text, two.text, "two runs differ\n--- one\n%s--- two\n%s---",
			 one.text, two.text);
	profile_free(&one);
	profile_free(&two);
}

/* The roots of one line come out sorted: the same forms whatever order
 * they were written in (only the comments, which quote the line, differ). */
Test(cli, roots_in_any_order_same_forms, .init = setup, .fini = teardown, .timeout = 20)
{
	mkdirs("r/a");
	mkdirs("r/b");
	mkdirs("r/c");
	put("p1", fmt("write %s %s %s\nread-deny %s/x %s/y\n", tp("r/a"), tp("r/b"), tp("r/c"),
		      tp("r"), tp("r")));
	put("p2", fmt("write %s %s %s\nread-deny %s/y %s/x\n", tp("r/c"), tp("r/a"), tp("r/b"),
		      tp("r"), tp("r")));
	struct profile one = profile_of(ARGS("seatbelt", "--policy", tp("p1")));
	struct profile two = profile_of(ARGS("seatbelt", "--policy", tp("p2")));
	struct buf a = { 0 }, b = { 0 };

	for (size_t i = 0; i < one.top->n; i++) {
		sx_write(&a, one.top->kid[i], false);
		buf_putc(&a, '\n');
	}
	for (size_t i = 0; i < two.top->n; i++) {
		sx_write(&b, two.top->kid[i], false);
		buf_putc(&b, '\n');
	}
	cr_expect_str_eq(a.p, b.p, "the forms differ\n--- one\n%s--- two\n%s---", one.text,
			 two.text);
	free(a.p);
	free(b.p);
	profile_free(&one);
	profile_free(&two);
}

Test(cli, missing_write_root_error, .init = setup, .fini = teardown, .timeout = 20)
{
	cordon(ARGS("seatbelt", "--policy", empty_policy, "--write", tp("missing")));
	cr_expect_eq(R.status, 125, "exit %d, want 125\nstdout:\n%s\nstderr:\n%s", R.status, R.out,
		     R.err);
	cr_expect_not_null(strstr(R.err, tp("missing")), "stderr does not name the root:\n%s",
			   R.err);
	cr_expect_eq(R.out_len, 0, "stdout:\n%s", R.out);
}

Test(cli, argument_refused, .init = setup, .fini = teardown, .timeout = 20)
{
	cordon(ARGS("seatbelt", "--policy", empty_policy, "true"));
	cr_expect_eq(R.status, 125, "exit %d, want 125\nstdout:\n%s\nstderr:\n%s", R.status, R.out,
		     R.err);
	cr_expect_not_null(strstr(R.err, "'true'"), "stderr does not name the argument:\n%s",
			   R.err);
	cr_expect_eq(R.out_len, 0, "stdout:\n%s", R.out);
}

/* --- macOS: the profile applied ---------------------------------------------------- */

Test(macos, sandbox_exec_refuses_write_outside_roots, .init = setup, .fini = teardown,
     .timeout = 30)
{
#ifdef __APPLE__
	mkdirs("outside");
	struct profile p = seatbelt(ARGS("--write", tp("ws")));
	char *text = strdup(p.text);

	spawn(ARGS("/usr/bin/sandbox-exec", "-p", text, "/usr/bin/true"));
	cr_assert_eq(R.status, 0, "sandbox-exec refused the profile (exit %d):\n%s\n---\n%s---",
		     R.status, R.err, text);
	spawn(ARGS("/usr/bin/sandbox-exec", "-p", text, "/bin/sh", "-c",
		   fmt("echo x > '%s'; echo y > '%s'", tp("outside/canary"), tp("ws/inside"))));
	struct stat st;
	cr_expect_neq(stat(tp("outside/canary"), &st), 0, "the canary outside the roots was "
		      "written\n---\n%s---", text);
	cr_expect_eq(stat(tp("ws/inside"), &st), 0, "the write inside the root was refused: %s\n"
		     "---\n%s---", R.err, text);
	free(text);
	profile_free(&p);
#else
	SKIP("needs macOS: applies the profile with sandbox-exec -p, which only macOS has");
#endif
}
