/*
 * test_parse.c - the policy language (launcher/parse.c) against its
 * contract: every mistake is one FILE:LINE: message naming what was
 * expected, every line is checked, and what parses lands in struct policy
 * with the rule (file, line, text) that put it there.
 *
 * Each test runs in its own process with a private temporary tree, removed
 * afterwards; nothing outside it is written:
 *
 *   $R/               mkdtemp("/tmp/cordon-parse-XXXXXX"), canonical
 *     home/           ctx.home      (~, ${HOME})
 *     ws/             ctx.workspace (${WORKSPACE})
 *     tmp/            ctx.tmpdir    (${TMPDIR})
 *     search/         ctx.search[0]
 *
 * Tests add what they need beneath it. In the policy texts and expected
 * messages of the tables, @R @H @W @T stand for $R, home, ws and tmp.
 */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../launcher/parse.h"
#include "fixture.h"

static char root[PATH_MAX], home[PATH_MAX], ws[PATH_MAX], tmpd[PATH_MAX], search[PATH_MAX];
static const char *search_dirs[2];
static struct policy pol;
static struct parse_ctx ctx;
static char errs[1 << 16];   /* every report, "FILE:LINE: msg\n" each */
static size_t errs_len;
static unsigned err_calls;

/* --- fixture -------------------------------------------------------------- */

static void collect_error(void *arg, const char *file, unsigned line, const char *msg)
{
	int n;

	(void)arg;
	err_calls++;
	n = snprintf(errs + errs_len, sizeof(errs) - errs_len, "%s:%u: %s\n", file, line, msg);
	if (n > 0)
		errs_len += (size_t)n < sizeof(errs) - errs_len ? (size_t)n : sizeof(errs) - errs_len - 1;
}

/* The environment `expand` sees: PROJ is a directory, EMPTY is empty. */
static char *fake_getenv(const char *name)
{
	static char proj[PATH_MAX + 8], empty[1];

	if (strcmp(name, "PROJ") == 0) {
		snprintf(proj, sizeof(proj), "%s/proj", ws);
		return proj;
	}
	if (strcmp(name, "EMPTY") == 0)
		return empty;
	return NULL;
}

static void join(char *out, const char *base, const char *rel)
{
	int n = snprintf(out, PATH_MAX, "%s/%s", base, rel);
	cr_assert(n > 0 && n < PATH_MAX, "path too long: %s/%s", base, rel);
}

/* mkdir -p @path (absolute, inside $R). */
static void mkdirs(const char *path)
{
	char buf[PATH_MAX];

	snprintf(buf, sizeof(buf), "%s", path);
	for (char *s = buf + 1; *s; s++) {
		if (*s != '/')
			continue;
		*s = '\0';
		cr_assert(mkdir(buf, 0755) == 0 || errno == EEXIST, "mkdir %s: %s", buf, strerror(errno));
		*s = '/';
	}
	cr_assert(mkdir(buf, 0755) == 0 || errno == EEXIST, "mkdir %s: %s", buf, strerror(errno));
}

static void write_file(const char *path, const char *data, size_t len)
{
	FILE *f = fopen(path, "w");

	cr_assert_not_null(f, "fopen %s: %s", path, strerror(errno));
	cr_assert_eq(fwrite(data, 1, len, f), len);
	cr_assert_eq(fclose(f), 0);
}

/* Replace @R @H @W @T in @in (@len bytes) by the fixture's directories.
 * Returns a malloc'd, NUL-terminated copy and its length in *@outlen. */
static char *subst(const char *in, size_t len, size_t *outlen)
{
	size_t cap = len * 2 + 4 * PATH_MAX + 1, o = 0;
	char *out = malloc(cap);

	cr_assert_not_null(out);
	for (size_t i = 0; i < len; i++) {
		const char *rep = NULL;
		if (in[i] == '@' && i + 1 < len) {
			switch (in[i + 1]) {
			case 'R': rep = root; break;
			case 'H': rep = home; break;
			case 'W': rep = ws; break;
			case 'T': rep = tmpd; break;
			default: break;
			}
		}
		if (rep) {
			size_t n = strlen(rep);
			if (o + n + len + 1 > cap) {
				cap = (o + n + len + 1) * 2;
				out = realloc(out, cap);
				cr_assert_not_null(out);
			}
			memcpy(out + o, rep, n);
			o += n;
			i++;
		} else {
			if (o + 2 > cap) {
				cap *= 2;
				out = realloc(out, cap);
				cr_assert_not_null(out);
			}
			out[o++] = in[i];
		}
	}
	out[o] = '\0';
	if (outlen)
		*outlen = o;
	return out;
}

/* Fresh policy and context on the fixture's directories. */
static void reset(void)
{
	policy_free(&pol);
	policy_init(&pol);
	parse_ctx_init(&ctx, &pol);
	ctx.error = collect_error;
	ctx.home = home;
	ctx.workspace = ws;
	ctx.tmpdir = tmpd;
	ctx.search = search_dirs;
	ctx.getenv = fake_getenv;
	errs[0] = '\0';
	errs_len = 0;
	err_calls = 0;
}

static void setup(void)
{
	char tmpl[] = "/tmp/cordon-parse-XXXXXX";

	cr_assert_not_null(mkdtemp(tmpl), "mkdtemp: %s", strerror(errno));
	cr_assert_not_null(realpath(tmpl, root));
	join(home, root, "home");
	join(ws, root, "ws");
	join(tmpd, root, "tmp");
	join(search, root, "search");
	mkdirs(home);
	mkdirs(ws);
	mkdirs(tmpd);
	mkdirs(search);
	search_dirs[0] = search;
	search_dirs[1] = NULL;
	policy_init(&pol);
	reset();
}

static void teardown(void)
{
	policy_free(&pol);
	if (strncmp(root, "/tmp/cordon-parse-", 18) == 0)
		fixture_rmtree(root);
}

/* Parse the template @text (see subst) as the buffer "p". */
static int parse_n(const char *text, size_t len)
{
	size_t n;
	char *buf = subst(text, len, &n);
	int r = policy_parse_buffer(&ctx, "p", buf, n);

	free(buf);
	return r;
}

static int parse(const char *text)
{
	return parse_n(text, strlen(text));
}

/* Write the template @text into the file @rel beneath $R; its path in @out. */
static void policy_file(char out[PATH_MAX], const char *rel, const char *text)
{
	size_t n;
	char *buf = subst(text, strlen(text), &n);
	char dir[PATH_MAX];

	join(out, root, rel);
	snprintf(dir, sizeof(dir), "%s", out);
	*strrchr(dir, '/') = '\0';
	mkdirs(dir);
	write_file(out, buf, n);
	free(buf);
}

#define expect_clean(call)                                                                  \
	do {                                                                                \
		int r_ = (call);                                                            \
		cr_expect_eq(r_, 0, "%s returned %d", #call, r_);                           \
		cr_expect_eq(ctx.errors, 0, "errors: %u", ctx.errors);                      \
		cr_expect_str_eq(errs, "", "unexpected reports:\n%s", errs);                \
	} while (0)

/* The entry @path (a template) with @kind, or NULL. */
static const struct pathset_entry *entry(const char *path_tmpl, enum path_kind kind)
{
	char *path = subst(path_tmpl, strlen(path_tmpl), NULL);
	const struct pathset_entry *e = pathset_get(&pol.paths, path, strlen(path));

	free(path);
	return e && (e->kinds & 1u << kind) ? e : NULL;
}

/* The template @tmpl expanded; free() it. */
static char *S(const char *tmpl)
{
	return subst(tmpl, strlen(tmpl), NULL);
}

static const struct rule *entry_rule(const char *path_tmpl, enum path_kind kind)
{
	const struct pathset_entry *e = entry(path_tmpl, kind);

	cr_assert_not_null(e, "no %u entry %s", (unsigned)kind, path_tmpl);
	cr_assert_not_null(e->data[kind], "entry %s has no rule", path_tmpl);
	return e->data[kind];
}

/* Is TCP @port covered by the port list @l? */
static int port_listed(const struct port_list *l, unsigned port)
{
	for (size_t i = 0; i < l->n; i++)
		if (l->v[i].lo <= port && port <= l->v[i].hi)
			return 1;
	return 0;
}

static unsigned ports_covered(const struct port_list *l)
{
	unsigned n = 0;

	for (unsigned port = 1; port <= 65535; port++)
		n += (unsigned)port_listed(l, port);
	return n;
}

/* --- one error per mistake ------------------------------------------------- */

struct err_case {
	const char *name;
	const char *text;        /* the policy, parsed as "p" */
	size_t len;              /* bytes of text; 0: strlen */
	const char *expect;      /* all reports, exactly */
};

#define BIN(s) .text = s, .len = sizeof(s) - 1

static const struct err_case err_cases[] = {
	{ "unknown directive, near miss",
	  .text = "wirte /x\n",
	  .expect = "p:1: unknown directive 'wirte' (did you mean 'write'?)\n" },
	{ "unknown directive, no near miss",
	  .text = "# a comment\nfrobnicate /x\n",
	  .expect = "p:2: unknown directive 'frobnicate'\n" },
	{ "unknown directive, near miss of a long name",
	  .text = "net-conect 443\n",
	  .expect = "p:1: unknown directive 'net-conect' (did you mean 'net-connect'?)\n" },
	{ "bad enum value",
	  .text = "\n\nnet sideways\n",
	  .expect = "p:3: bad value 'sideways' for net: expected none, isolated or all\n" },
	{ "bad yes/no value",
	  .text = "subprocess maybe\n",
	  .expect = "p:1: bad value 'maybe' for subprocess: expected no or yes\n" },
	{ "bad shim value",
	  .text = "shim off\n",
	  .expect = "p:1: bad value 'off' for shim: expected no or yes\n" },
	{ "missing argument of a scalar",
	  .text = "net\n",
	  .expect = "p:1: missing argument: net takes none|isolated|all\n" },
	{ "missing argument of a list",
	  .text = "write   \n",
	  .expect = "p:1: missing argument: write takes PATH...\n" },
	{ "too many arguments for a scalar",
	  .text = "net none all\n",
	  .expect = "p:1: too many arguments: net takes one none|isolated|all, got 2\n" },
	{ "too many arguments for timeout",
	  .text = "timeout 1m 2m 3m\n",
	  .expect = "p:1: too many arguments: timeout takes one DURATION, got 3\n" },
	{ "too many arguments for include",
	  .text = "include a b\n",
	  .expect = "p:1: too many arguments: include takes one NAME, got 2\n" },
	{ "empty include name",
	  .text = "include \"\"\n",
	  .expect = "p:1: include: empty name\n" },
	{ "relative write path",
	  .text = "write relative/dir\n",
	  .expect = "p:1: 'relative/dir' is relative: expected an absolute path (start it with /, ~ or ${WORKSPACE})\n" },
	{ "relative read-deny path",
	  .text = "read-deny .ssh\n",
	  .expect = "p:1: '.ssh' is relative: expected an absolute path (start it with /, ~ or ${WORKSPACE})\n" },
	{ "relative log file",
	  .text = "log-file cordon.log\n",
	  .expect = "p:1: 'cordon.log' is relative: expected an absolute path (start it with /, ~ or ${WORKSPACE})\n" },
	{ "empty quoted path",
	  .text = "write \"\"\n",
	  .expect = "p:1: empty path: expected an absolute path\n" },
	{ "${VAR} without expand",
	  .text = "write ${PROJ}/x\n",
	  .expect = "p:1: ${PROJ} is not expanded unless allowed: add `expand PROJ` on an earlier line\n" },
	{ "${VAR} expanded on a later line only",
	  .text = "write ${PROJ}\nexpand PROJ\n",
	  .expect = "p:1: ${PROJ} is not expanded unless allowed: add `expand PROJ` on an earlier line\n" },
	{ "${VAR} unset",
	  .text = "expand NOPE\nwrite ${NOPE}/x\n",
	  .expect = "p:2: ${NOPE} is not set\n" },
	{ "${VAR} empty",
	  .text = "expand EMPTY\nread-deny ${EMPTY}/x\n",
	  .expect = "p:2: ${EMPTY} is not set\n" },
	{ "stray $ before a letter",
	  .text = "read-deny /a$b\n",
	  .expect = "p:1: '/a$b': a '$' must start ${NAME} (write $$ for a literal $)\n" },
	{ "stray $ at the end",
	  .text = "read-deny /a$\n",
	  .expect = "p:1: '/a$': a '$' must start ${NAME} (write $$ for a literal $)\n" },
	{ "unclosed ${",
	  .text = "read-deny ${HOME/x\n",
	  .expect = "p:1: '${HOME/x': a '$' must start ${NAME} (write $$ for a literal $)\n" },
	{ "bad variable name",
	  .text = "read-deny ${1X}/a\n",
	  .expect = "p:1: '${1X}/a': bad variable name in ${...}\n" },
	{ "~user",
	  .text = "write ~root/x\n",
	  .expect = "p:1: '~root/x': ~user is not supported; write the path out\n" },
	{ "unterminated quote",
	  .text = "write \"/a b\n",
	  .expect = "p:1: unterminated quote\n" },
	{ "unknown escape in quotes",
	  .text = "write \"/a\\nb\"\n",
	  .expect = "p:1: unknown escape '\\n' in quotes (only \\\" and \\\\)\n" },
	{ "port 0",
	  .text = "net-connect 0\n",
	  .expect = "p:1: bad port '0' for net-connect: expected a number from 1 to 65535 or a range A-B\n" },
	{ "port 65536",
	  .text = "net-connect 65536\n",
	  .expect = "p:1: bad port '65536' for net-connect: expected a number from 1 to 65535 or a range A-B\n" },
	{ "port not a number",
	  .text = "net-bind abc\n",
	  .expect = "p:1: bad port 'abc' for net-bind: expected a number from 1 to 65535 or a range A-B\n" },
	{ "port range backwards",
	  .text = "net-connect 10-5\n",
	  .expect = "p:1: bad port '10-5' for net-connect: expected a number from 1 to 65535 or a range A-B\n" },
	{ "port range open",
	  .text = "net-connect 80-\n",
	  .expect = "p:1: bad port '80-' for net-connect: expected a number from 1 to 65535 or a range A-B\n" },
	{ "port range past 65535",
	  .text = "net-connect 1-65536\n",
	  .expect = "p:1: bad port '1-65536' for net-connect: expected a number from 1 to 65535 or a range A-B\n" },
	{ "port with a sign",
	  .text = "net-connect +80\n",
	  .expect = "p:1: bad port '+80' for net-connect: expected a number from 1 to 65535 or a range A-B\n" },
	{ "duration unit unknown",
	  .text = "timeout 5x\n",
	  .expect = "p:1: bad value '5x' for timeout: expected a duration such as 90, 90s, 15m, 2h or 1d (at most 2147483647 seconds)\n" },
	{ "duration with two units",
	  .text = "timeout 10ms\n",
	  .expect = "p:1: bad value '10ms' for timeout: expected a duration such as 90, 90s, 15m, 2h or 1d (at most 2147483647 seconds)\n" },
	{ "duration negative",
	  .text = "timeout -1\n",
	  .expect = "p:1: bad value '-1' for timeout: expected a duration such as 90, 90s, 15m, 2h or 1d (at most 2147483647 seconds)\n" },
	{ "duration fractional",
	  .text = "timeout 1.5h\n",
	  .expect = "p:1: bad value '1.5h' for timeout: expected a duration such as 90, 90s, 15m, 2h or 1d (at most 2147483647 seconds)\n" },
	{ "duration unit alone",
	  .text = "timeout m\n",
	  .expect = "p:1: bad value 'm' for timeout: expected a duration such as 90, 90s, 15m, 2h or 1d (at most 2147483647 seconds)\n" },
	{ "duration overflows int after the unit",
	  .text = "timeout 24856d\n",
	  .expect = "p:1: bad value '24856d' for timeout: expected a duration such as 90, 90s, 15m, 2h or 1d (at most 2147483647 seconds)\n" },
	{ "duration overflows int",
	  .text = "timeout 2147483648\n",
	  .expect = "p:1: bad value '2147483648' for timeout: expected a duration such as 90, 90s, 15m, 2h or 1d (at most 2147483647 seconds)\n" },
	{ "write root missing",
	  .text = "write @W/missing\n",
	  .expect = "p:1: write root '@W/missing' does not exist (write ?@W/missing if it may be missing)\n" },
	{ "write root missing, as written with a variable",
	  .text = "write ${WORKSPACE}/missing/deeper\n",
	  .expect = "p:1: write root '@W/missing/deeper' does not exist (write ?${WORKSPACE}/missing/deeper if it may be missing)\n" },
	{ "? on read-deny",
	  .text = "read-deny ?/x\n",
	  .expect = "p:1: '?/x': the ? prefix is only for write (read-deny paths need not exist)\n" },
	{ "? on unix-socket",
	  .text = "unix-socket ?@W/s.sock\n",
	  .expect = "p:1: '?@W/s.sock': the ? prefix is only for write (unix-socket paths need not exist)\n" },
	{ "bad env pattern",
	  .text = "env-pass FOO=bar\n",
	  .expect = "p:1: bad value 'FOO=bar' for env-pass: expected a variable name or fnmatch pattern (letters, digits, _ * ? [ ] ! -)\n" },
	{ "bad expand name",
	  .text = "expand 1X\n",
	  .expect = "p:1: bad value '1X' for expand: expected a variable name\n" },
	{ "NUL byte",
	  BIN("net all\nwrite /a\0b\n"),
	  .expect = "p:2: NUL byte at column 9\n" },
	{ "overlong UTF-8 (C0 AF)",
	  BIN("read-deny /a\xc0\xaf\n"),
	  .expect = "p:1: invalid UTF-8 at column 13\n" },
	{ "lone continuation byte",
	  BIN("read-deny /\x80\n"),
	  .expect = "p:1: invalid UTF-8 at column 12\n" },
	{ "UTF-8 surrogate (ED A0 80)",
	  BIN("# ok\nread-deny /\xed\xa0\x80x\n"),
	  .expect = "p:2: invalid UTF-8 at column 12\n" },
	{ "UTF-8 above U+10FFFF (F4 90 80 80)",
	  BIN("read-deny /\xf4\x90\x80\x80\n"),
	  .expect = "p:1: invalid UTF-8 at column 12\n" },
	{ "truncated UTF-8 at end of line",
	  BIN("read-deny /a\xe2\x82\nnet all\n"),
	  .expect = "p:1: invalid UTF-8 at column 13\n" },
	{ "truncated UTF-8 before CRLF",
	  BIN("read-deny /a\xe2\x82\r\n"),
	  .expect = "p:1: invalid UTF-8 at column 13\n" },
	{ "truncated UTF-8 at end of file",
	  BIN("net all\nread-deny /a\xf0\x9f\x98"),
	  .expect = "p:2: invalid UTF-8 at column 13\n" },
	{ "invalid UTF-8 in a comment",
	  BIN("# caf\xe9\n"),
	  .expect = "p:1: invalid UTF-8 at column 6\n" },
};

#define N_ERR_CASES (sizeof(err_cases) / sizeof(err_cases[0]))

ParameterizedTestParameters(parse_error, each_kind_reports_one_message)
{
	static size_t idx[N_ERR_CASES];

	for (size_t i = 0; i < N_ERR_CASES; i++)
		idx[i] = i;
	return cr_make_param_array(size_t, idx, N_ERR_CASES);
}

ParameterizedTest(size_t *i, parse_error, each_kind_reports_one_message, .init = setup,
		  .fini = teardown)
{
	const struct err_case *c = &err_cases[*i];
	char *expect = subst(c->expect, strlen(c->expect), NULL);
	int r = parse_n(c->text, c->len ? c->len : strlen(c->text));

	cr_expect_eq(r, -1, "%s: returned %d", c->name, r);
	cr_expect_eq(ctx.errors, 1, "%s: %u errors counted", c->name, ctx.errors);
	cr_expect_eq(err_calls, 1, "%s: %u reports", c->name, err_calls);
	cr_expect_str_eq(errs, expect, "%s:\n got: %s want: %s", c->name, errs, expect);
	free(expect);
}

Test(parse_error, home_unset_tilde_reports_home, .init = setup, .fini = teardown)
{
	ctx.home = NULL;
	cr_expect_eq(parse("net all\nwrite ~/x\n"), -1);
	cr_expect_eq(ctx.errors, 1);
	cr_expect_str_eq(errs, "p:2: ${HOME} is not set\n");
}

Test(parse_error, line_longer_than_max_reported_and_skipped, .init = setup, .fini = teardown)
{
	size_t n = POLICY_LINE_MAX + 1;
	char *text = malloc(n + 64);
	char expect[128];

	cr_assert_not_null(text);
	strcpy(text, "net all\n");
	size_t o = strlen(text);
	text[o++] = '#';
	memset(text + o, 'x', n - 1);
	o += n - 1;
	o += (size_t)sprintf(text + o, "\nnet-connect 80\n");

	cr_expect_eq(policy_parse_buffer(&ctx, "p", text, o), -1);
	cr_expect_eq(ctx.errors, 1);
	snprintf(expect, sizeof(expect), "p:2: line too long (%zu bytes; at most %d)\n", n,
		 POLICY_LINE_MAX);
	cr_expect_str_eq(errs, expect);
	/* The lines around it are still read. */
	cr_expect_eq(pol.net.value, NET_ALL);
	cr_expect(port_listed(&pol.net_connect, 80));
	free(text);
}

Test(parse_error, line_of_exactly_max_bytes_accepted, .init = setup, .fini = teardown)
{
	size_t n = POLICY_LINE_MAX;
	char *text = malloc(n + 64);

	cr_assert_not_null(text);
	/* A comment of exactly POLICY_LINE_MAX bytes, then CRLF (the CR is not
	 * counted), then a directive. */
	text[0] = '#';
	memset(text + 1, 'x', n - 1);
	size_t o = n + (size_t)sprintf(text + n, "\r\nnet all\n");

	expect_clean(policy_parse_buffer(&ctx, "p", text, o));
	cr_expect_eq(pol.net.value, NET_ALL);
	free(text);
}

Test(parse_error, too_many_tokens_on_a_line_reported, .init = setup, .fini = teardown)
{
	char text[4096];
	size_t o = (size_t)sprintf(text, "env-pass");

	/* 256 arguments: one more than a line may hold. */
	for (int i = 0; i < 256; i++)
		o += (size_t)sprintf(text + o, " V%d", i);
	text[o++] = '\n';
	cr_expect_eq(policy_parse_buffer(&ctx, "p", text, o), -1);
	cr_expect_eq(ctx.errors, 1);
	cr_expect_str_eq(errs, "p:1: too many arguments (at most 255 on one line)\n");
	cr_expect_eq(pol.env_pass.n, 0);
}

Test(parse_error, most_tokens_on_a_line_accepted, .init = setup, .fini = teardown)
{
	char text[4096];
	size_t o = (size_t)sprintf(text, "env-pass");

	for (int i = 0; i < 255; i++)
		o += (size_t)sprintf(text + o, " V%d", i);
	text[o++] = '\n';
	expect_clean(policy_parse_buffer(&ctx, "p", text, o));
	cr_expect_eq(pol.env_pass.n, 255);
	cr_expect_str_eq(pol.env_pass.v[254], "V254");
}

Test(parse_error, several_mistakes_all_reported_with_lines, .init = setup, .fini = teardown)
{
	static const char text[] =
		"# several mistakes, one run\n"      /* 1 */
		"net sideways\n"                     /* 2 */
		"write relative\n"                   /* 3 */
		"\n"                                 /* 4 */
		"net-connect 0 80 65536\n"           /* 5: two bad ports */
		"timeout forever\n"                  /* 6 */
		"net all\n"                          /* 7: fine */
		"wirte /x\n"                         /* 8 */
		"write \"/unterminated\n";           /* 9 */
	int r = policy_parse_buffer(&ctx, "p", text, sizeof(text) - 1);

	cr_expect_eq(r, -1);
	cr_expect_eq(ctx.errors, 7, "errors: %u\n%s", ctx.errors, errs);
	cr_expect_str_eq(errs,
		"p:2: bad value 'sideways' for net: expected none, isolated or all\n"
		"p:3: 'relative' is relative: expected an absolute path (start it with /, ~ or ${WORKSPACE})\n"
		"p:5: bad port '0' for net-connect: expected a number from 1 to 65535 or a range A-B\n"
		"p:5: bad port '65536' for net-connect: expected a number from 1 to 65535 or a range A-B\n"
		"p:6: bad value 'forever' for timeout: expected a duration such as 90, 90s, 15m, 2h or 1d (at most 2147483647 seconds)\n"
		"p:8: unknown directive 'wirte' (did you mean 'write'?)\n"
		"p:9: unterminated quote\n");
	/* Good lines and good arguments among bad ones still count. */
	cr_expect_eq(pol.net.value, NET_ALL);
	cr_expect_eq(pol.net.rule->line, 7);
	cr_expect(port_listed(&pol.net_connect, 80));
	cr_expect_eq(ports_covered(&pol.net_connect), 1);
}

Test(parse_error, errors_accumulate_over_buffers, .init = setup, .fini = teardown)
{
	/* A later clean buffer returns 0 (its own verdict) but the context
	 * keeps the count the caller must check. */
	cr_expect_eq(parse("net sideways\n"), -1);
	cr_expect_eq(parse("net all\n"), 0);
	cr_expect_eq(ctx.errors, 1);
}

/* --- includes: errors ------------------------------------------------------ */

Test(include, missing_name_reports_where_it_looked, .init = setup, .fini = teardown)
{
	char a[PATH_MAX], expect[4 * PATH_MAX];

	policy_file(a, "a", "net all\ninclude nothere\n");
	cr_expect_eq(policy_load(&ctx, a), -1);
	cr_expect_eq(ctx.errors, 1);
	snprintf(expect, sizeof(expect), "%s:2: policy 'nothere' not found (looked in: %s, %s)\n", a,
		 root, search);
	cr_expect_str_eq(errs, expect);
}

Test(include, error_in_included_file_names_that_file, .init = setup, .fini = teardown)
{
	char a[PATH_MAX], b[PATH_MAX], expect[4 * PATH_MAX];

	policy_file(a, "a", "include b\nnet-connect 443\n");
	policy_file(b, "b", "# b\nnet sideways\n");
	cr_expect_eq(policy_load(&ctx, a), -1);
	cr_expect_eq(ctx.errors, 1);
	snprintf(expect, sizeof(expect),
		 "%s:2: bad value 'sideways' for net: expected none, isolated or all\n", b);
	cr_expect_str_eq(errs, expect);
	/* The including file goes on after the include. */
	cr_expect(port_listed(&pol.net_connect, 443));
	cr_expect_str_eq(pol.net_connect.v[0].rule->file, a);
	cr_expect_eq(pol.net_connect.v[0].rule->line, 2);
}

Test(include, load_of_null_name_reported, .init = setup, .fini = teardown)
{
	cr_expect_eq(policy_load(&ctx, NULL), -1);
	cr_expect_eq(ctx.errors, 1);
	cr_expect_str_eq(errs, "cordon:0: no policy named\n");
}

Test(include, missing_file_with_slash_reported, .init = setup, .fini = teardown)
{
	char a[PATH_MAX], expect[4 * PATH_MAX];

	policy_file(a, "a", "include sub/nothere\n");
	cr_expect_eq(policy_load(&ctx, a), -1);
	cr_expect_eq(ctx.errors, 1);
	snprintf(expect, sizeof(expect),
		 "%s:1: cannot read policy '%s/sub/nothere': No such file or directory\n", a, root);
	cr_expect_str_eq(errs, expect);
}

Test(include, load_missing_file_reported_for_policy_option, .init = setup, .fini = teardown)
{
	char a[PATH_MAX], expect[4 * PATH_MAX];

	join(a, root, "none");
	cr_expect_eq(policy_load(&ctx, a), -1);
	cr_expect_eq(ctx.errors, 1);
	snprintf(expect, sizeof(expect),
		 "--policy:0: cannot read policy '%s': No such file or directory\n", a);
	cr_expect_str_eq(errs, expect);
}

Test(include, load_missing_name_looks_in_search_only, .init = setup, .fini = teardown)
{
	char expect[4 * PATH_MAX];

	cr_expect_eq(policy_load(&ctx, "zzz"), -1);
	cr_expect_eq(ctx.errors, 1);
	snprintf(expect, sizeof(expect), "--policy:0: policy 'zzz' not found (looked in: %s)\n",
		 search);
	cr_expect_str_eq(errs, expect);
}

Test(include, cycle_reported_once_and_ends, .init = setup, .fini = teardown, .timeout = 10)
{
	char a[PATH_MAX], b[PATH_MAX], expect[5 * PATH_MAX];

	policy_file(a, "a", "include b\nnet-connect 1\n");
	policy_file(b, "b", "net all\ninclude a\nnet-connect 2\n");
	cr_expect_eq(policy_load(&ctx, a), -1);
	cr_expect_eq(ctx.errors, 1, "errors: %u\n%s", ctx.errors, errs);
	/* One error, then the chain as notes (line 0). */
	snprintf(expect, sizeof(expect),
		 "%s:2: include cycle: %s is already being read\n"
		 "%s:0:   (first read here)\n"
		 "%s:0:   (included from above)\n",
		 b, a, a, b);
	cr_expect_str_eq(errs, expect);
	/* Each file was read once, to its end. */
	cr_expect_eq(pol.net.value, NET_ALL);
	cr_expect_eq(pol.net_connect.n, 2);
}

Test(include, self_include_reported, .init = setup, .fini = teardown, .timeout = 10)
{
	char a[PATH_MAX], expect[4 * PATH_MAX];

	policy_file(a, "a", "# me again\ninclude a\n");
	cr_expect_eq(policy_load(&ctx, a), -1);
	cr_expect_eq(ctx.errors, 1);
	snprintf(expect, sizeof(expect),
		 "%s:2: include cycle: %s is already being read\n%s:0:   (first read here)\n", a, a,
		 a);
	cr_expect_str_eq(errs, expect);
}

Test(include, same_file_twice_in_sequence_is_not_a_cycle, .init = setup, .fini = teardown)
{
	char a[PATH_MAX];

	policy_file(a, "a", "include common\ninclude common\n");
	policy_file(a, "common", "net-connect 443\n");
	join(a, root, "a");
	expect_clean(policy_load(&ctx, a));
}

Test(include, directory_is_not_a_regular_file, .init = setup, .fini = teardown, .timeout = 10)
{
	char a[PATH_MAX], d[PATH_MAX], expect[4 * PATH_MAX];

	join(d, root, "sub");
	mkdirs(d);
	policy_file(a, "a", "include sub\n");
	cr_expect_eq(policy_load(&ctx, a), -1);
	cr_expect_eq(ctx.errors, 1);
	snprintf(expect, sizeof(expect), "%s:1: cannot read policy '%s': not a regular file\n", a, d);
	cr_expect_str_eq(errs, expect);
}

Test(include, fifo_is_refused_without_hanging, .init = setup, .fini = teardown, .timeout = 10)
{
	char a[PATH_MAX], f[PATH_MAX], expect[4 * PATH_MAX];

	join(f, root, "fifo");
	cr_assert_eq(mkfifo(f, 0644), 0, "mkfifo: %s", strerror(errno));
	policy_file(a, "a", "include fifo\n");
	cr_expect_eq(policy_load(&ctx, a), -1);
	cr_expect_eq(ctx.errors, 1);
	snprintf(expect, sizeof(expect), "%s:1: cannot read policy '%s': not a regular file\n", a, f);
	cr_expect_str_eq(errs, expect);

	/* Named directly as --policy, too. */
	reset();
	cr_expect_eq(policy_load(&ctx, f), -1);
	snprintf(expect, sizeof(expect), "--policy:0: cannot read policy '%s': not a regular file\n",
		 f);
	cr_expect_str_eq(errs, expect);
}

Test(include, file_larger_than_max_refused, .init = setup, .fini = teardown)
{
	char a[PATH_MAX], expect[4 * PATH_MAX];
	size_t n = POLICY_FILE_MAX + 1;
	char *big = malloc(n);

	cr_assert_not_null(big);
	memset(big, '\n', n);
	join(a, root, "big");
	write_file(a, big, n);
	free(big);
	cr_expect_eq(policy_load(&ctx, a), -1);
	cr_expect_eq(ctx.errors, 1);
	snprintf(expect, sizeof(expect), "--policy:0: cannot read policy '%s': larger than %d bytes\n",
		 a, POLICY_FILE_MAX);
	cr_expect_str_eq(errs, expect);
}

/* f0 includes f1 ... includes f{n-1}, which says `net all`. */
static void include_chain(unsigned n, char first[PATH_MAX], char last_includer[PATH_MAX])
{
	for (unsigned i = 0; i < n; i++) {
		char name[32], text[64], path[PATH_MAX];
		snprintf(name, sizeof(name), "chain/f%u", i);
		if (i + 1 < n)
			snprintf(text, sizeof(text), "include f%u\n", i + 1);
		else
			snprintf(text, sizeof(text), "net all\n");
		policy_file(path, name, text);
		if (i == 0)
			snprintf(first, PATH_MAX, "%s", path);
		if (i + 2 == n)
			snprintf(last_includer, PATH_MAX, "%s", path);
	}
}

Test(include, nesting_to_max_depth_accepted, .init = setup, .fini = teardown)
{
	char first[PATH_MAX], last[PATH_MAX];

	include_chain(POLICY_INCLUDE_DEPTH, first, last);
	expect_clean(policy_load(&ctx, first));
	cr_expect_eq(pol.net.value, NET_ALL);
	cr_expect_eq(ctx.depth, 0);
}

Test(include, nesting_beyond_max_depth_reported, .init = setup, .fini = teardown)
{
	char first[PATH_MAX], last[PATH_MAX], expect[4 * PATH_MAX];

	include_chain(POLICY_INCLUDE_DEPTH + 1, first, last);
	cr_expect_eq(policy_load(&ctx, first), -1);
	cr_expect_eq(ctx.errors, 1);
	snprintf(expect, sizeof(expect), "%s:1: includes nested more than %d deep\n", last,
		 POLICY_INCLUDE_DEPTH);
	cr_expect_str_eq(errs, expect);
	cr_expect_eq(pol.net.value, NET_NONE);
	cr_expect_eq(ctx.depth, 0);
}

/* --- includes: lookup -------------------------------------------------------- */

/*
 *   $R/a/main       include common
 *   $R/a/common     write ${WORKSPACE}/one
 *   $R/b/main       include common
 *   $R/search/common write ${WORKSPACE}/two
 */
static void include_tree(char a_main[PATH_MAX], char b_main[PATH_MAX])
{
	char p[PATH_MAX];

	join(p, ws, "one");
	mkdirs(p);
	join(p, ws, "two");
	mkdirs(p);
	policy_file(a_main, "a/main", "include common\n");
	policy_file(p, "a/common", "write ${WORKSPACE}/one\n");
	policy_file(b_main, "b/main", "include common\n");
	policy_file(p, "search/common", "# the search directory's\nwrite ${WORKSPACE}/two\n");
}

Test(include, including_files_directory_searched_first, .init = setup, .fini = teardown)
{
	char a_main[PATH_MAX], b_main[PATH_MAX], common[PATH_MAX];

	include_tree(a_main, b_main);
	expect_clean(policy_load(&ctx, a_main));
	cr_expect_not_null(entry("@W/one", PATH_WRITE));
	cr_expect_null(entry("@W/two", PATH_WRITE));
	join(common, root, "a/common");
	const struct rule *r = entry_rule("@W/one", PATH_WRITE);
	cr_expect_str_eq(r->file, common);
	cr_expect_eq(r->line, 1);
}

Test(include, search_directories_used_when_not_beside, .init = setup, .fini = teardown)
{
	char a_main[PATH_MAX], b_main[PATH_MAX], common[PATH_MAX];

	include_tree(a_main, b_main);
	expect_clean(policy_load(&ctx, b_main));
	cr_expect_null(entry("@W/one", PATH_WRITE));
	const struct rule *r = entry_rule("@W/two", PATH_WRITE);
	join(common, search, "common");
	cr_expect_str_eq(r->file, common);
	cr_expect_eq(r->line, 2);
}

Test(include, name_with_slash_relative_to_including_file, .init = setup, .fini = teardown)
{
	char main_[PATH_MAX], p[PATH_MAX];

	join(p, ws, "one");
	mkdirs(p);
	policy_file(main_, "a/main", "include parts/one\n");
	policy_file(p, "a/parts/one", "write ${WORKSPACE}/one\n");
	expect_clean(policy_load(&ctx, main_));
	cr_expect_str_eq(entry_rule("@W/one", PATH_WRITE)->file, p);
}

Test(include, buffer_includes_beside_its_name, .init = setup, .fini = teardown)
{
	char name[PATH_MAX], p[PATH_MAX];
	static const char text[] = "include common\n";

	join(p, ws, "one");
	mkdirs(p);
	policy_file(p, "a/common", "write ${WORKSPACE}/one\n");
	join(name, root, "a/buffer");
	expect_clean(policy_parse_buffer(&ctx, name, text, sizeof(text) - 1));
	cr_expect_not_null(entry("@W/one", PATH_WRITE));
}

Test(include, load_by_name_uses_search, .init = setup, .fini = teardown)
{
	char p[PATH_MAX];

	policy_file(p, "search/mine", "net isolated\n");
	expect_clean(policy_load(&ctx, "mine"));
	cr_expect_eq(pol.net.value, NET_ISOLATED);
	cr_expect_str_eq(pol.net.rule->file, p);
	cr_expect_eq(pol.n_files, 1);
	cr_expect_str_eq(pol.files[0], p);
}

/* --- what parses ------------------------------------------------------------ */

Test(parse_valid, comments_and_blank_lines_ignored, .init = setup, .fini = teardown)
{
	char d[PATH_MAX];

	join(d, ws, "a#b");
	mkdirs(d);
	expect_clean(parse("# comment\n"
			   "\n"
			   "   \n"
			   "\t# indented comment\n"
			   "net all # trailing comment\n"
			   "write ${WORKSPACE}/a#b #another\n"
			   "#write /nonexistent\n"));
	cr_expect_eq(pol.net.value, NET_ALL);
	cr_expect_eq(pol.net.rule->line, 5);
	cr_expect_str_eq(pol.net.rule->text, "net all");
	/* '#' inside an argument is part of it. */
	cr_expect_not_null(entry("@W/a#b", PATH_WRITE));
	cr_expect_eq(pol.n_write, 1);
}

Test(parse_valid, empty_buffer_is_an_empty_policy, .init = setup, .fini = teardown)
{
	expect_clean(policy_parse_buffer(&ctx, "p", "", 0));
	cr_expect_eq(pol.paths.count, 0);
	cr_expect_eq(pol.net.value, NET_NONE);
	cr_expect_null(pol.net.rule);
}

Test(parse_valid, crlf_line_endings_accepted, .init = setup, .fini = teardown)
{
	cr_expect_eq(parse("net all\r\nnet-connect 80\r\n\r\nfrobnicate\r\ntimeout 2m"), -1);
	/* The CR is not part of the last argument nor of the directive name. */
	cr_expect_str_eq(errs, "p:4: unknown directive 'frobnicate'\n");
	cr_expect_eq(pol.net.value, NET_ALL);
	cr_expect(port_listed(&pol.net_connect, 80));
	cr_expect_eq(pol.timeout.value, 120);
	cr_expect_eq(pol.timeout.rule->line, 5);
}

Test(parse_valid, quoted_paths_keep_blanks, .init = setup, .fini = teardown)
{
	char d[PATH_MAX];

	join(d, ws, "my dir/sub dir");
	mkdirs(d);
	expect_clean(parse("write \"${WORKSPACE}/my dir\"\n"
			   "write ${WORKSPACE}/\"my dir\"/\"sub dir\"\t\n"
			   "read-deny \"@R/q\\\"uote\" \"@R/back\\\\slash\"\n"));
	cr_expect_not_null(entry("@W/my dir", PATH_WRITE));
	cr_expect_not_null(entry("@W/my dir/sub dir", PATH_WRITE));
	cr_expect_not_null(entry("@R/q\"uote", PATH_READ_DENY));
	cr_expect_not_null(entry("@R/back\\slash", PATH_READ_DENY));
	cr_expect_eq(pol.n_write, 2);
	cr_expect_eq(pol.n_read_deny, 2);
}

/* The rule text is the directive as the tokenizer would read it again:
 * an argument with blanks, quotes or backslashes comes back quoted. */
Test(parse_valid, rule_text_requotes_arguments, .init = setup, .fini = teardown)
{
	const struct pathset_entry *e;

	expect_clean(parse("read-deny \"/q a\" /plain \"/b\\\\s\\\"q\"\n"));
	e = pathset_get(&pol.paths, "/plain", 6);
	cr_assert_not_null(e);
	cr_expect_str_eq(((const struct rule *)e->data[PATH_READ_DENY])->text,
			 "read-deny \"/q a\" /plain \"/b\\\\s\\\"q\"");
}

Test(parse_valid, backslash_outside_quotes_is_literal, .init = setup, .fini = teardown)
{
	expect_clean(parse("read-deny @R/a\\nb\n"));
	cr_expect_not_null(entry("@R/a\\nb", PATH_READ_DENY));
}

Test(parse_valid, double_dollar_is_a_literal_dollar, .init = setup, .fini = teardown)
{
	char d[PATH_MAX];

	join(d, ws, "cost$5");
	mkdirs(d);
	expect_clean(parse("write ${WORKSPACE}/cost$$5\nread-deny /x$$${HOME}/y$$$$\n"));
	cr_expect_not_null(entry("@W/cost$5", PATH_WRITE));
	cr_expect_not_null(entry("/x$@H/y$$", PATH_READ_DENY));
}

Test(parse_valid, builtin_variables_and_tilde_expanded, .init = setup, .fini = teardown)
{
	char d[PATH_MAX];

	join(d, home, "proj");
	mkdirs(d);
	join(d, tmpd, "build");
	mkdirs(d);
	expect_clean(parse("write ~\n"
			   "write ~/proj\n"
			   "read-deny ${HOME}/.ssh\n"
			   "write ${WORKSPACE}\n"
			   "write ${TMPDIR}/build\n"
			   "unix-socket ${HOME}/proj/../agent.sock\n"
			   "log-file ~/logs/cordon.log\n"));
	cr_expect_not_null(entry("@H", PATH_WRITE));
	cr_expect_not_null(entry("@H/proj", PATH_WRITE));
	cr_expect_not_null(entry("@H/.ssh", PATH_READ_DENY));
	cr_expect_not_null(entry("@W", PATH_WRITE));
	cr_expect_not_null(entry("@T/build", PATH_WRITE));
	cr_expect_not_null(entry("@H/agent.sock", PATH_SOCKET));
	cr_expect_eq(pol.n_write, 4);
	cr_expect_eq(pol.n_socket, 1);
	char *logfile = S("@H/logs/cordon.log");
	cr_expect_str_eq(pol.log_file.value, logfile);
	cr_expect_eq(pol.log_file.rule->line, 7);
	free(logfile);
}

Test(parse_valid, expand_allows_environment_variable, .init = setup, .fini = teardown)
{
	char d[PATH_MAX];

	join(d, ws, "proj/sub");
	mkdirs(d);
	expect_clean(parse("expand PROJ EMPTY\nwrite ${PROJ}\nread-deny ${PROJ}/sub/.env\n"));
	cr_expect_eq(pol.expand.n, 2);
	cr_expect_str_eq(pol.expand.v[0], "PROJ");
	cr_expect_eq(pol.expand.rules[0]->line, 1);
	cr_expect_not_null(entry("@W/proj", PATH_WRITE));
	cr_expect_not_null(entry("@W/proj/sub/.env", PATH_READ_DENY));
}

Test(parse_valid, expand_carries_into_later_buffers, .init = setup, .fini = teardown)
{
	char d[PATH_MAX];

	join(d, ws, "proj");
	mkdirs(d);
	expect_clean(parse("expand PROJ\n"));
	expect_clean(parse("write ${PROJ}\n"));
	cr_expect_not_null(entry("@W/proj", PATH_WRITE));
}

Test(parse_valid, utf8_paths_accepted, .init = setup, .fini = teardown)
{
	char d[PATH_MAX];

	join(d, ws, "caf\xc3\xa9-\xe2\x82\xac-\xf0\x9f\x98\x80");
	mkdirs(d);
	expect_clean(parse("write ${WORKSPACE}/caf\xc3\xa9-\xe2\x82\xac-\xf0\x9f\x98\x80\n"));
	cr_expect_not_null(entry("@W/caf\xc3\xa9-\xe2\x82\xac-\xf0\x9f\x98\x80", PATH_WRITE));
}

Test(parse_valid, optional_missing_root_skipped, .init = setup, .fini = teardown)
{
	char *want;

	expect_clean(parse("net all\nwrite ?${WORKSPACE}/missing ?~/.cache/none ?${WORKSPACE}\n"));
	cr_expect_eq(pol.n_write, 1);
	cr_expect_not_null(entry("@W", PATH_WRITE));
	cr_expect_null(entry("@W/missing", PATH_WRITE));
	cr_expect_eq(pol.paths.count, 1);
	cr_assert_eq(pol.skipped.n, 2);
	want = S("@W/missing");
	cr_expect_str_eq(pol.skipped.v[0], want);
	free(want);
	want = S("@H/.cache/none");
	cr_expect_str_eq(pol.skipped.v[1], want);
	free(want);
	cr_expect_eq(pol.skipped.rules[0]->line, 2);
	cr_expect_str_eq(pol.skipped.rules[0]->text,
			 "write ?${WORKSPACE}/missing ?~/.cache/none ?${WORKSPACE}");
}

Test(parse_valid, optional_root_beneath_a_file_skipped, .init = setup, .fini = teardown)
{
	char f[PATH_MAX];

	join(f, ws, "file");
	write_file(f, "x", 1);
	expect_clean(parse("write ?${WORKSPACE}/file/sub\n"));
	cr_expect_eq(pol.skipped.n, 1);
	cr_expect_eq(pol.n_write, 0);
}

Test(parse_valid, write_root_through_symlink_stored_resolved, .init = setup, .fini = teardown)
{
	char real[PATH_MAX], link[PATH_MAX];

	join(real, ws, "real");
	mkdirs(real);
	join(link, ws, "link");
	cr_assert_eq(symlink("real", link), 0);
	expect_clean(parse("write ${WORKSPACE}/link\n"));
	cr_expect_not_null(entry("@W/real", PATH_WRITE));
	cr_expect_null(pathset_get(&pol.paths, link, strlen(link)));
	cr_expect_eq(pol.paths.count, 1);
	/* The rule is the line as written, before expansion. */
	cr_expect_str_eq(entry_rule("@W/real", PATH_WRITE)->text, "write ${WORKSPACE}/link");
}

Test(parse_valid, write_root_may_be_a_file, .init = setup, .fini = teardown)
{
	char f[PATH_MAX];

	join(f, ws, "notes.txt");
	write_file(f, "x", 1);
	expect_clean(parse("write ${WORKSPACE}/notes.txt\n"));
	cr_expect_not_null(entry("@W/notes.txt", PATH_WRITE));
}

Test(parse_valid, write_root_path_normalised, .init = setup, .fini = teardown)
{
	char d[PATH_MAX];

	join(d, ws, "a/b");
	mkdirs(d);
	expect_clean(parse("write ${WORKSPACE}//a/./b/../b/\n"));
	cr_expect_not_null(entry("@W/a/b", PATH_WRITE));
	cr_expect_eq(pol.paths.count, 1);
}

Test(parse_valid, read_deny_of_missing_path_accepted, .init = setup, .fini = teardown)
{
	expect_clean(parse("read-deny ${WORKSPACE}/nope/deeper ~/.ssh\n"));
	cr_expect_not_null(entry("@W/nope/deeper", PATH_READ_DENY));
	cr_expect_not_null(entry("@H/.ssh", PATH_READ_DENY));
	cr_expect_eq(pol.n_read_deny, 2);
	cr_expect_eq(pol.n_write, 0);
}

/* docs/policy.md: read-deny and unix-socket paths "need not exist". One
 * beneath a regular file cannot exist; denying it is harmless and must not
 * be reported as a missing *write root*. */
Test(parse_valid, read_deny_beneath_a_file_accepted, .init = setup, .fini = teardown)
{
	char f[PATH_MAX];

	join(f, ws, "file");
	write_file(f, "x", 1);
	expect_clean(parse("read-deny ${WORKSPACE}/file/x\nunix-socket ${WORKSPACE}/file/s.sock\n"));
	cr_expect_not_null(entry("@W/file/x", PATH_READ_DENY));
	cr_expect_not_null(entry("@W/file/s.sock", PATH_SOCKET));
}

/* A deny entry may be a pattern (docs/policy.md): each path that matches
 * when the policy is read is an entry, with the line that wrote it; one
 * matching nothing is no error. */
Test(parse_valid, deny_patterns_match_what_exists, .init = setup, .fini = teardown)
{
	char d[PATH_MAX];
	static const char *const made[] = { ".git/modules/a/hooks", ".git/modules/b/hooks",
					    ".git/modules/c", "keys" };

	for (size_t i = 0; i < sizeof(made) / sizeof(made[0]); i++) {
		join(d, ws, made[i]);
		mkdirs(d);
	}
	join(d, ws, "keys/x.pem");
	write_file(d, "x", 1);
	join(d, ws, "keys/y.pem");
	write_file(d, "y", 1);
	join(d, ws, "keys/z.txt");
	write_file(d, "z", 1);
	expect_clean(parse("write-deny ${WORKSPACE}/.git/modules/*/hooks\n"
			   "read-deny ${WORKSPACE}/keys/*.pem ${WORKSPACE}/nothing/*\n"));
	cr_expect_not_null(entry("@W/.git/modules/a/hooks", PATH_WRITE_DENY));
	cr_expect_not_null(entry("@W/.git/modules/b/hooks", PATH_WRITE_DENY));
	cr_expect_null(entry("@W/.git/modules/c/hooks", PATH_WRITE_DENY));
	cr_expect_null(entry("@W/.git/modules/*/hooks", PATH_WRITE_DENY));
	cr_expect_not_null(entry("@W/keys/x.pem", PATH_READ_DENY));
	cr_expect_not_null(entry("@W/keys/y.pem", PATH_READ_DENY));
	cr_expect_null(entry("@W/keys/z.txt", PATH_READ_DENY));
	cr_expect_eq(pol.n_write_deny, 2);
	cr_expect_eq(pol.n_read_deny, 2);
	cr_expect_eq(entry_rule("@W/keys/y.pem", PATH_READ_DENY)->line, 2);
	/* a file named as written, with a [ in its name, stays denied */
	reset();
	join(d, ws, "sec[1]");
	write_file(d, "s", 1);
	join(d, ws, "sec1");
	write_file(d, "t", 1);
	expect_clean(parse("read-deny ${WORKSPACE}/sec[1]\n"));
	cr_expect_not_null(entry("@W/sec[1]", PATH_READ_DENY));
	cr_expect_not_null(entry("@W/sec1", PATH_READ_DENY));
	/* write roots are never patterns: a literal path, which must exist */
	reset();
	cr_expect_neq(parse("write ${WORKSPACE}/.git/modules/*\n"), 0);
	cr_expect(strstr(errs, "does not exist"), "reports:\n%s", errs);
}

/* Only what the policy writes is a pattern: a variable's value (here ~, a
 * directory named with [ and ]) is put in literally. */
Test(parse_valid, deny_pattern_takes_variables_literally, .init = setup, .fini = teardown)
{
	char odd[PATH_MAX], d[PATH_MAX];

	join(odd, root, "h[1]");
	join(d, odd, "a/secret");
	mkdirs(d);
	join(d, root, "h1/a/secret");
	mkdirs(d);
	reset();
	ctx.home = odd;
	expect_clean(parse("read-deny ~/*/secret\n"));
	join(d, odd, "a/secret");
	cr_expect(pathset_get(&pol.paths, d, strlen(d)) != NULL, "%s not denied", d);
	join(d, root, "h1/a/secret");
	cr_expect(pathset_get(&pol.paths, d, strlen(d)) == NULL, "%s denied", d);
	cr_expect_eq(pol.n_read_deny, 1);
}

Test(parse_valid, read_deny_through_symlink_stores_both_forms, .init = setup, .fini = teardown)
{
	char real[PATH_MAX], link[PATH_MAX];

	join(real, ws, "real");
	mkdirs(real);
	join(link, ws, "sl");
	cr_assert_eq(symlink(real, link), 0);
	expect_clean(parse("read-deny ${WORKSPACE}/sl/secret\n"));
	const struct rule *resolved = entry_rule("@W/real/secret", PATH_READ_DENY);
	const struct rule *lexical = entry_rule("@W/sl/secret", PATH_READ_DENY);
	cr_expect_eq(resolved, lexical);
	cr_expect_eq(resolved->line, 1);
	cr_expect_eq(pol.paths.count, 2);
	cr_expect_eq(pol.n_read_deny, 1);
}

Test(parse_valid, read_deny_of_dangling_symlink_stores_both_forms, .init = setup, .fini = teardown)
{
	char link[PATH_MAX];

	join(link, ws, "dangling");
	cr_assert_eq(symlink("gone/secret", link), 0);
	expect_clean(parse("read-deny ${WORKSPACE}/dangling\n"));
	cr_expect_not_null(entry("@W/gone/secret", PATH_READ_DENY));
	cr_expect_not_null(entry("@W/dangling", PATH_READ_DENY));
}

Test(parse_valid, scalars_override, .init = setup, .fini = teardown)
{
	expect_clean(parse("net none\nsubprocess no\nnet all\n"));
	cr_expect_eq(pol.net.value, NET_ALL);
	cr_assert_not_null(pol.net.rule);
	cr_expect_eq(pol.net.rule->line, 3);
	cr_expect_str_eq(pol.net.rule->text, "net all");
	cr_expect_str_eq(pol.net.rule->file, "p");
	cr_expect_eq(pol.subprocess.value, 0);
	cr_expect_eq(pol.subprocess.rule->line, 2);
	/* Untouched scalars keep their built-in value and no rule. */
	cr_expect_eq(pol.mode.value, MODE_ENFORCE);
	cr_expect_null(pol.mode.rule);
}

Test(parse_valid, every_enum_value_accepted, .init = setup, .fini = teardown)
{
	expect_clean(parse("net isolated\nsubprocess yes\nprivate-tmp yes\nenv clean\n"
			   "backend landlock\non-unsupported warn\nmode warn\nlog all\n"
			   "log-format json\nlog-file stderr\n"));
	cr_expect_eq(pol.net.value, NET_ISOLATED);
	cr_expect_eq(pol.subprocess.value, 1);
	cr_expect_eq(pol.private_tmp.value, 1);
	cr_expect_eq(pol.env.value, ENV_CLEAN);
	cr_expect_eq(pol.backend.value, BACKEND_LANDLOCK);
	cr_expect_eq(pol.on_unsupported.value, UNSUPPORTED_WARN);
	cr_expect_eq(pol.mode.value, MODE_WARN);
	cr_expect_eq(pol.log.value, LOG_ALL);
	cr_expect_eq(pol.log_format.value, LOG_JSON);
	cr_expect_null(pol.log_file.value);
	cr_expect_eq(pol.log_file.rule->line, 10);
}

Test(parse_valid, shim_defaults_to_yes_and_takes_no_and_yes, .init = setup, .fini = teardown)
{
	cr_expect_eq(pol.shim.value, 1);
	cr_expect_null(pol.shim.rule);
	expect_clean(parse("shim no\n"));
	cr_expect_eq(pol.shim.value, 0);
	cr_assert_not_null(pol.shim.rule);
	cr_expect_eq(pol.shim.rule->line, 1);
	cr_expect_str_eq(pol.shim.rule->text, "shim no");
	expect_clean(parse("net all\nshim yes\n"));
	cr_expect_eq(pol.shim.value, 1);
	cr_expect_eq(pol.shim.rule->line, 2);
	cr_expect_str_eq(pol.shim.rule->text, "shim yes");
}

Test(parse_valid, lists_extend, .init = setup, .fini = teardown)
{
	char d[PATH_MAX];

	join(d, ws, "a");
	mkdirs(d);
	join(d, ws, "b");
	mkdirs(d);
	expect_clean(parse("write ${WORKSPACE}/a\nenv-deny *_TOKEN\n"
			   "write ${WORKSPACE}/b\nenv-deny AWS_* GITHUB_*\n"));
	cr_expect_eq(pol.n_write, 2);
	cr_expect_eq(entry_rule("@W/a", PATH_WRITE)->line, 1);
	cr_expect_eq(entry_rule("@W/b", PATH_WRITE)->line, 3);
	cr_assert_eq(pol.env_deny.n, 3);
	cr_expect_str_eq(pol.env_deny.v[0], "*_TOKEN");
	cr_expect_str_eq(pol.env_deny.v[2], "GITHUB_*");
	cr_expect_eq(pol.env_deny.rules[2]->line, 4);
}

Test(parse_valid, ports_and_ranges_listed, .init = setup, .fini = teardown)
{
	expect_clean(parse("net-connect 80 443 8000-8002\nnet-bind 1-1024\n"));
	cr_expect_eq(ports_covered(&pol.net_connect), 5);
	static const unsigned in[] = { 80, 443, 8000, 8001, 8002 };
	static const unsigned out[] = { 1, 79, 81, 442, 444, 7999, 8003, 65535 };
	for (size_t i = 0; i < sizeof(in) / sizeof(in[0]); i++)
		cr_expect(port_listed(&pol.net_connect, in[i]), "port %u", in[i]);
	for (size_t i = 0; i < sizeof(out) / sizeof(out[0]); i++)
		cr_expect(!port_listed(&pol.net_connect, out[i]), "port %u", out[i]);
	for (size_t i = 0; i < pol.net_connect.n; i++)
		cr_expect_eq(pol.net_connect.v[i].rule->line, 1);
	cr_expect_eq(ports_covered(&pol.net_bind), 1024);
	cr_expect(!port_listed(&pol.net_bind, 1025));
	cr_expect(port_listed(&pol.net_bind, 1));
	cr_expect_str_eq(pol.net_bind.v[0].rule->text, "net-bind 1-1024");
}

Test(parse_valid, ports_extended_by_later_lines, .init = setup, .fini = teardown)
{
	expect_clean(parse("net-connect 80\nnet-connect 443 65535\n"));
	cr_expect_eq(ports_covered(&pol.net_connect), 3);
	cr_expect(port_listed(&pol.net_connect, 65535));
}

Test(parse_valid, durations_in_every_unit, .init = setup, .fini = teardown)
{
	static const struct {
		const char *text;
		int seconds;
	} rows[] = {
		{ "90", 90 },     { "90s", 90 },     { "15m", 900 },
		{ "2h", 7200 },   { "1d", 86400 },   { "0", 0 },
		{ "007", 7 },     { "2147483647", 2147483647 },
		{ "24855d", 24855 * 86400 },
	};

	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		char line[64];
		reset();
		snprintf(line, sizeof(line), "timeout %s\n", rows[i].text);
		expect_clean(parse(line));
		cr_expect_eq(pol.timeout.value, rows[i].seconds, "timeout %s: %d", rows[i].text,
			     pol.timeout.value);
		cr_expect_not_null(pol.timeout.rule, "timeout %s", rows[i].text);
	}
}

Test(parse_valid, rule_names_file_line_and_text, .init = setup, .fini = teardown)
{
	char f[PATH_MAX];

	policy_file(f, "p.policy", "# header\n\nwrite ${WORKSPACE}   \"${WORKSPACE}\"\nnet isolated\n");
	expect_clean(policy_load(&ctx, f));
	const struct rule *r = entry_rule("@W", PATH_WRITE);
	cr_expect_str_eq(r->file, f);
	cr_expect_eq(r->line, 3);
	cr_expect_str_eq(r->text, "write ${WORKSPACE} ${WORKSPACE}");
	cr_expect_str_eq(pol.net.rule->file, f);
	cr_expect_eq(pol.net.rule->line, 4);
	cr_expect_str_eq(pol.net.rule->text, "net isolated");
	/* Both arguments name one root, counted per argument. */
	cr_expect_eq(pol.paths.count, 1);
	cr_expect_eq(pol.n_files, 1);
	cr_expect_str_eq(pol.files[0], f);
}

/* --- options (--name VALUE) ----------------------------------------------------- */

Test(option, write_adds_root_with_command_line_rule, .init = setup, .fini = teardown)
{
	char d[PATH_MAX], text[PATH_MAX + 16];

	join(d, ws, "cli");
	mkdirs(d);
	expect_clean(policy_apply_option(&ctx, "write", d));
	const struct rule *r = entry_rule("@W/cli", PATH_WRITE);
	snprintf(text, sizeof(text), "--write %s", d);
	cr_expect_str_eq(r->text, text);
	cr_expect_eq(r->line, 0);
	cr_expect_str_eq(r->file, "<command line>");
	cr_expect_eq(pol.n_write, 1);
}

Test(option, overrides_policy_file, .init = setup, .fini = teardown)
{
	expect_clean(parse("net all\n"));
	expect_clean(policy_apply_option(&ctx, "net", "none"));
	cr_expect_eq(pol.net.value, NET_NONE);
	cr_expect_eq(pol.net.rule->line, 0);
	cr_expect_str_eq(pol.net.rule->text, "--net none");
}

Test(option, value_is_one_argument, .init = setup, .fini = teardown)
{
	char d[PATH_MAX];

	join(d, ws, "a b");
	mkdirs(d);
	expect_clean(policy_apply_option(&ctx, "write", d));
	cr_expect_not_null(entry("@W/a b", PATH_WRITE));
}

Test(option, unknown_name_reported, .init = setup, .fini = teardown)
{
	cr_expect_eq(policy_apply_option(&ctx, "wirte", "/x"), -1);
	cr_expect_eq(ctx.errors, 1);
	cr_expect_str_eq(errs, "<command line>:0: unknown directive 'wirte' (did you mean 'write'?)\n");
}

Test(option, bad_value_reported, .init = setup, .fini = teardown)
{
	cr_expect_eq(policy_apply_option(&ctx, "net", "sideways"), -1);
	cr_expect_str_eq(errs,
			 "<command line>:0: bad value 'sideways' for net: expected none, isolated or all\n");
}

Test(option, shim_no_overrides_with_command_line_rule, .init = setup, .fini = teardown)
{
	expect_clean(parse("shim yes\n"));
	expect_clean(policy_apply_option(&ctx, "shim", "no"));
	cr_expect_eq(pol.shim.value, 0);
	cr_expect_eq(pol.shim.rule->line, 0);
	cr_expect_str_eq(pol.shim.rule->file, "<command line>");
	cr_expect_str_eq(pol.shim.rule->text, "--shim no");
}

Test(option, shim_bad_value_reported_setting_kept, .init = setup, .fini = teardown)
{
	cr_expect_eq(policy_apply_option(&ctx, "shim", "off"), -1);
	cr_expect_eq(ctx.errors, 1);
	cr_expect_str_eq(errs, "<command line>:0: bad value 'off' for shim: expected no or yes\n");
	cr_expect_eq(pol.shim.value, 1, "a bad value changed the setting");
}

Test(option, include_refused, .init = setup, .fini = teardown)
{
	cr_expect_eq(policy_apply_option(&ctx, "include", "secrets"), -1);
	cr_expect_eq(ctx.errors, 1);
	cr_expect_str_eq(errs, "cordon:0: --include is not an option; use --policy secrets\n");
}

Test(option, missing_value_reported, .init = setup, .fini = teardown)
{
	cr_expect_eq(policy_apply_option(&ctx, "write", NULL), -1);
	cr_expect_eq(ctx.errors, 1);
	cr_expect_str_eq(errs, "cordon:0: option --write needs a value\n");
}

/* --- the compiled policy (policy_serialize) -------------------------------------- */

/* What cordon run hands the shim and digests for the audit parses back to
 * the same shim setting. */
Test(serialize, shim_round_trips, .init = setup, .fini = teardown)
{
	for (int v = 0; bool_names[v]; v++) {
		char directive[16], *text = NULL;
		size_t len = 0;
		FILE *f;

		reset();
		snprintf(directive, sizeof(directive), "shim %s\n", bool_names[v]);
		expect_clean(parse(directive));
		f = open_memstream(&text, &len);
		cr_assert_not_null(f);
		cr_assert_eq(policy_serialize(&pol, f), 0);
		cr_assert_eq(fclose(f), 0);
		const char *at = strstr(text, directive);
		cr_expect(at && at > text && at[-1] == '\n', "no line \"%.*s\" in:\n%s",
			  (int)strlen(directive) - 1, directive, text);
		reset();
		expect_clean(policy_parse_buffer(&ctx, "compiled", text, len));
		cr_expect_eq(pol.shim.value, v, "shim %s came back as %d", bool_names[v],
			     pol.shim.value);
		free(text);
	}
}

/* --- shipped policies ----------------------------------------------------------- */

static const char *src_dir(void)
{
	const char *s = getenv("CORDON_SRC");
	return s && *s ? s : ".";
}

Test(shipped, every_policy_parses, .init = setup, .fini = teardown)
{
	char dir[PATH_MAX];
	const char *dirs[2] = { dir, NULL };
	unsigned count = 0;
	DIR *d;
	struct dirent *de;

	join(dir, src_dir(), "policy.d");
	d = opendir(dir);
	cr_assert_not_null(d, "opendir %s: %s", dir, strerror(errno));
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		reset();
		ctx.search = dirs;
		int r = policy_load(&ctx, de->d_name);
		cr_expect_eq(r, 0, "policy %s: %d", de->d_name, r);
		cr_expect_eq(ctx.errors, 0, "policy %s:\n%s", de->d_name, errs);
		cr_expect_str_eq(errs, "", "policy %s", de->d_name);
		count++;
	}
	closedir(d);
	cr_expect_geq(count, 5, "only %u policies in %s", count, dir);
}

Test(shipped, default_policy_compiles_as_documented, .init = setup, .fini = teardown)
{
	char dir[PATH_MAX];
	const char *dirs[2] = { dir, NULL };

	join(dir, src_dir(), "policy.d");
	ctx.search = dirs;
	expect_clean(policy_load(&ctx, "default"));
	cr_expect_not_null(entry("@W", PATH_WRITE));
	cr_expect_eq(pol.n_write, 1);
	cr_expect_not_null(entry("@H/.ssh", PATH_READ_DENY));
	cr_expect_not_null(entry("/etc/shadow", PATH_READ_DENY));
	cr_expect_eq(pol.net.value, NET_NONE);
	cr_expect_not_null(pol.net.rule);
	cr_expect_eq(pol.private_tmp.value, 1);
	cr_expect_eq(pol.n_files, 2);
	cr_expect_gt(pol.env_deny.n, 0);
}

Test(shipped, agent_policy_compiles_as_documented, .init = setup, .fini = teardown)
{
	char dir[PATH_MAX], d[PATH_MAX];
	const char *dirs[2] = { dir, NULL };

	join(dir, src_dir(), "policy.d");
	ctx.search = dirs;
	/* One cache exists, the others are skipped. */
	join(d, home, ".cache/pip");
	mkdirs(d);
	expect_clean(policy_load(&ctx, "agent"));
	cr_expect_not_null(entry("@W", PATH_WRITE));
	cr_expect_not_null(entry("@H/.cache/pip", PATH_WRITE));
	cr_expect_eq(pol.n_write, 2);
	cr_expect_gt(pol.skipped.n, 5);
	cr_expect_eq(pol.env.value, ENV_CLEAN);
	cr_expect_eq(pol.timeout.value, 600);
	cr_expect_eq(pol.net.value, NET_NONE);
	cr_expect_not_null(entry("@H/.aws", PATH_READ_DENY));
}
