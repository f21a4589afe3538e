/*
 * tally.c - the run's refusals, counted by operation and by target.
 */
#include "tally.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <uthash.h>

#include "../shim/log.h"
#include "util.h"

/* Distinct targets kept; refusals beyond are counted, not listed. */
#define TALLY_TARGETS_MAX 10000

/* The operations are kept most refused first, then by name: refusals come
 * from the shims and from the supervisor on two channels, in no order
 * between them that a summary should show. */
static void count_op(struct tally *t, const char *op)
{
	size_t i;

	for (i = 0; i < t->n_ops; i++)
		if (strcmp(t->ops[i].name, op) == 0)
			break;
	if (i == t->n_ops) {
		if (t->n_ops == sizeof(t->ops) / sizeof(t->ops[0]))
			i = t->n_ops - 1;  /* never: the shim logs a dozen operations */
		else
			snprintf(t->ops[t->n_ops++].name, sizeof(t->ops[0].name), "%s", op);
	}
	t->ops[i].count++;
	while (i > 0 && (t->ops[i].count > t->ops[i - 1].count ||
			 (t->ops[i].count == t->ops[i - 1].count &&
			  strcmp(t->ops[i].name, t->ops[i - 1].name) < 0))) {
		struct tally_op tmp = t->ops[i];
		t->ops[i] = t->ops[i - 1];
		t->ops[i - 1] = tmp;
		i--;
	}
}

void tally_add(struct tally *t, const char *verdict, const char *op, const char *target,
	       enum reason reason, const char *why, const char *layer)
{
	struct tally_target *e;
	size_t ol = strlen(op), tl = strlen(target), kl = ol + 1 + tl;
	char key[64 + PATH_MAX];

	if (strcmp(verdict, "also") != 0) {
		if (strcmp(verdict, "warn") == 0)
			t->warned++;
		else
			t->denied++;
		count_op(t, op);
	}
	if (kl >= sizeof(key)) {
		t->dropped++;
		return;
	}
	memcpy(key, op, ol + 1);
	memcpy(key + ol + 1, target, tl + 1);
	HASH_FIND(hh, t->targets, key, kl, e);
	if (e) {
		e->count++;
		return;
	}
	if (t->n_targets >= TALLY_TARGETS_MAX || !(e = calloc(1, sizeof(*e) + kl + 1))) {
		t->dropped++;
		return;
	}
	memcpy(e->key, key, kl + 1);
	e->keylen = kl;
	e->target = e->key + ol + 1;
	e->count = 1;
	e->seq = t->n_targets++;
	e->reason = reason;
	e->why = why;
	e->layer = strcmp(layer, "supervisor") == 0 ? "supervisor"
		   : strcmp(layer, "kernel") == 0 ? "kernel" : "shim";
	HASH_ADD_KEYPTR(hh, t->targets, e->key, e->keylen, e);
}

void tally_recv(struct tally *t, int fd, tally_keep_fn keep, void *arg)
{
	char rec[128 + PATH_MAX + LOG_LINE_MAX];
	ssize_t n;

	while ((n = recv(fd, rec, sizeof(rec) - 1, MSG_DONTWAIT)) > 0 ||
	       (n < 0 && errno == EINTR)) {
		const char *f[7] = { NULL };
		size_t k = 0;
		if (n < 0)
			continue;
		rec[n] = '\0';
		/* "1\0VERDICT\0OP\0REASON\0TARGET\0[LAYER\0]", or held back:
		 * "2\0VERDICT\0OP\0REASON\0TARGET\0LAYER\0LINE\0" */
		for (const char *p = rec; k < 7 && p < rec + n; p += strlen(p) + 1)
			f[k++] = p;
		bool held = k >= 1 && strcmp(f[0], "2") == 0;
		char *end;
		long reason = k >= 5 ? strtol(f[3], &end, 10) : -1;
		if (k < 5 || (strcmp(f[0], "1") != 0 && !(held && k == 7)) || *end || reason < 0 ||
		    reason > INT_MAX || strcmp(reason_text((enum reason)reason), "?") == 0 ||
		    !*f[2] || strlen(f[2]) >= 16) {
			t->dropped++;
			continue;
		}
		if (held && keep && !keep(arg, f[6]))
			continue;
		tally_add(t, strcmp(f[1], "warn") == 0 || strcmp(f[1], "also") == 0 ? f[1] : "deny", f[2], f[4],
			  (enum reason)reason, NULL,
			  k >= 6 && strcmp(f[5], "kernel") == 0 ? "kernel" : "shim");
	}
}

size_t tally_brief(const struct tally *t, char *buf, size_t size)
{
	size_t n = 0;

	buf[0] = '\0';
	if (!t->denied && !t->warned)
		return 0;
#define PUT(...)                                                                        \
	do {                                                                            \
		int w_ = snprintf(buf + n, size - n, __VA_ARGS__);                      \
		n += w_ > 0 && (size_t)w_ < size - n ? (size_t)w_ : 0;                  \
	} while (0)
	if (t->denied)
		PUT("%ld call%s refused", t->denied, t->denied == 1 ? "" : "s");
	if (t->warned)
		PUT("%s%ld call%s allowed by mode warn only", t->denied ? ", " : "", t->warned,
		    t->warned == 1 ? "" : "s");
	for (size_t i = 0; i < t->n_ops; i++)
		PUT("%s%s %ld", i ? ", " : " (", t->ops[i].name, t->ops[i].count);
	if (t->n_ops)
		PUT(")");
#undef PUT
	return n;
}

static int by_count(const void *a, const void *b)
{
	const struct tally_target *x = *(const struct tally_target *const *)a;
	const struct tally_target *y = *(const struct tally_target *const *)b;

	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

struct tally_target **tally_list(const struct tally *t, size_t *n)
{
	struct tally_target **all = calloc(t->n_targets ? t->n_targets : 1, sizeof(*all));
	struct tally_target *e, *tmp;

	*n = 0;
	if (!all)
		return NULL;
	HASH_ITER(hh, t->targets, e, tmp)
		all[(*n)++] = e;
	qsort(all, *n, sizeof(*all), by_count);
	return all;
}

/* The @max most refused targets, most first, into @v; returns how many. */
static size_t top(const struct tally *t, struct tally_target **v, size_t max)
{
	size_t n;
	struct tally_target **all = tally_list(t, &n);

	if (!all)
		return 0;
	if (n > max)
		n = max;
	memcpy(v, all, n * sizeof(*v));
	free(all);
	return n;
}

static void hint(const struct tally_target *e, char *buf, size_t size)
{
	buf[0] = '\0';
	if (!e->why)
		log_hint(buf, size, e->key, e->target, e->reason);
}

void tally_print(const struct tally *t, FILE *out)
{
	struct tally_target *v[TALLY_TOP];
	char brief[512], allow[PATH_MAX + 64];
	size_t n = top(t, v, TALLY_TOP);

	tally_brief(t, brief, sizeof(brief));
	fprintf(out, "cordon: summary: %s\n", brief[0] ? brief : "nothing refused");
	for (size_t i = 0; i < n; i++) {
		hint(v[i], allow, sizeof(allow));
		fprintf(out, "cordon: %6ld  %s %s: %s%s%s\n", v[i]->count, v[i]->key, v[i]->target,
			v[i]->why ? v[i]->why : reason_text(v[i]->reason),
			allow[0] ? "; to allow: " : "", allow);
	}
	if (t->n_targets > n)
		fprintf(out, "cordon: ... and %zu more target%s\n", t->n_targets - n,
			t->n_targets - n == 1 ? "" : "s");
}

static void json_string(FILE *out, const char *s)
{
	char buf[2 * PATH_MAX + 64];

	log_json_string(buf, sizeof(buf), s);
	fputs(buf, out);
}

void tally_json(const struct tally *t, FILE *out, int status, int signal, bool timed_out)
{
	struct tally_target *v[TALLY_TOP];
	char allow[PATH_MAX + 64];
	size_t n = top(t, v, TALLY_TOP);

	fprintf(out, "{\"v\":1,\"refused\":%ld,\"warned\":%ld,\"refused_by_op\":{", t->denied,
		t->warned);
	for (size_t i = 0; i < t->n_ops; i++) {
		fprintf(out, "%s", i ? "," : "");
		json_string(out, t->ops[i].name);
		fprintf(out, ":%ld", t->ops[i].count);
	}
	fprintf(out, "},\"targets\":%zu,\"top\":[", t->n_targets);
	for (size_t i = 0; i < n; i++) {
		hint(v[i], allow, sizeof(allow));
		fprintf(out, "%s{\"op\":", i ? "," : "");
		json_string(out, v[i]->key);
		fputs(",\"target\":", out);
		json_string(out, v[i]->target);
		fprintf(out, ",\"count\":%ld,\"reason\":", v[i]->count);
		json_string(out, v[i]->why ? v[i]->why : reason_text(v[i]->reason));
		fputs(",\"layer\":", out);
		json_string(out, v[i]->layer);
		fputs(",\"allow\":", out);
		json_string(out, allow[0] ? allow : NULL);
		fputs("}", out);
	}
	fputs("],", out);
	if (status >= 0)
		fprintf(out, "\"status\":%d,", status);
	else
		fputs("\"status\":null,", out);
	if (signal)
		fprintf(out, "\"signal\":%d,", signal);
	else
		fputs("\"signal\":null,", out);
	fprintf(out, "\"timed_out\":%s}\n", timed_out ? "true" : "false");
}

/* --- the last run, saved and read back ------------------------------------ */

void tally_save(const struct tally *t, const struct tally_run *run, FILE *out)
{
	size_t n;
	struct tally_target **all = tally_list(t, &n);

	fputs("{\"v\":1,\"cmd\":", out);
	json_string(out, run->cmd);
	fputs(",\"cwd\":", out);
	json_string(out, run->cwd);
	fputs(",\"time\":", out);
	json_string(out, run->when);
	fputs(",\"mode\":", out);
	json_string(out, run->mode);
	fprintf(out, ",\"status\":%d,\"signal\":%d,\"timed_out\":%s,\"refused\":%ld,\"warned\":%ld,"
		"\"dropped\":%ld,\"ops\":\"", run->status, run->signal,
		run->timed_out ? "true" : "false", t->denied, t->warned, t->dropped);
	for (size_t i = 0; i < t->n_ops; i++)
		fprintf(out, "%s%s=%ld", i ? "," : "", t->ops[i].name, t->ops[i].count);
	fputs("\"}\n", out);
	for (size_t i = 0; all && i < n; i++) {
		fputs("{\"op\":", out);
		json_string(out, all[i]->key);
		fputs(",\"target\":", out);
		json_string(out, all[i]->target);
		fprintf(out, ",\"count\":%ld,\"code\":%d,\"reason\":", all[i]->count,
			all[i]->why ? -1 : (int)all[i]->reason);
		json_string(out, all[i]->why ? all[i]->why : reason_text(all[i]->reason));
		fputs(",\"layer\":", out);
		json_string(out, all[i]->layer);
		fputs("}\n", out);
	}
	free(all);
}

struct kv {
	const char *key, *val;        /* val: a decoded string, or a bare token */
	bool str;
};

/* "\u00XX" and the other escapes of JSON, decoded in place from @s (after
 * the opening quote); returns the character after the closing quote, or
 * NULL. Bytes come back as putj() wrote them: \u00XX is the byte XX. */
static char *json_unquote(char *s, char **start)
{
	char *w = s;

	*start = s;
	for (; *s && *s != '"'; s++) {
		if (*s != '\\') {
			*w++ = *s;
			continue;
		}
		s++;
		switch (*s) {
		case '"': case '\\': case '/': *w++ = *s; break;
		case 'n': *w++ = '\n'; break;
		case 't': *w++ = '\t'; break;
		case 'r': *w++ = '\r'; break;
		case 'b': *w++ = '\b'; break;
		case 'f': *w++ = '\f'; break;
		case 'u': {
			char hex[5] = { 0 }, *end;
			for (int i = 0; i < 4; i++)
				if (!(hex[i] = s[1 + i]))
					return NULL;
			unsigned long c = strtoul(hex, &end, 16);
			if (*end || c == 0 || c > 0xff)
				return NULL;  /* tally_save writes only bytes, never NUL */
			*w++ = (char)c;
			s += 4;
			break;
		}
		default:
			return NULL;
		}
	}
	if (*s != '"')
		return NULL;
	*w = '\0';
	return s + 1;
}

/* One flat JSON object (strings and bare values, no nesting) into @kv;
 * returns how many pairs, or -1. */
static int json_flat(char *s, struct kv *kv, int max)
{
	int n = 0;

	while (*s == ' ')
		s++;
	if (*s++ != '{')
		return -1;
	while (*s == ' ')
		s++;
	if (*s == '}')
		return 0;
	for (;;) {
		char *key;
		if (n == max || *s != '"' || !(s = json_unquote(s + 1, &key)) || *s++ != ':')
			return -1;
		kv[n].key = key;
		if (*s == '"') {
			char *val;
			if (!(s = json_unquote(s + 1, &val)))
				return -1;
			kv[n].val = val;
			kv[n].str = true;
		} else {
			kv[n].val = s;
			kv[n].str = false;
			s += strcspn(s, ",}");
			if (!*s || s == kv[n].val)
				return -1;
		}
		n++;
		char c = *s;
		*s++ = '\0';  /* ends a bare value; a string's quote is already past */
		if (c == '}')
			return *s ? -1 : n;
		if (c != ',')
			return -1;
	}
}

static const char *kv_get(const struct kv *kv, int n, const char *key, bool str)
{
	for (int i = 0; i < n; i++)
		if (strcmp(kv[i].key, key) == 0)
			return kv[i].str == str ? kv[i].val : NULL;
	return NULL;
}

static bool kv_long(const struct kv *kv, int n, const char *key, long lo, long hi, long *out)
{
	const char *v = kv_get(kv, n, key, false);
	char *end;

	if (!v)
		return false;
	errno = 0;
	*out = strtol(v, &end, 10);
	return !errno && !*end && end != v && *out >= lo && *out <= hi;
}

static bool kv_copy(const struct kv *kv, int n, const char *key, char *buf, size_t size)
{
	const char *v = kv_get(kv, n, key, true);

	if (!v || strlen(v) >= size)
		return false;
	memcpy(buf, v, strlen(v) + 1);
	return true;
}

int tally_load(struct tally *t, struct tally_run *run, FILE *in, char *err, size_t errsize)
{
	char *line = NULL;
	size_t cap = 0;
	unsigned lineno = 0;
	int ret = 0;

	memset(run, 0, sizeof(*run));
	while (ret == 0 && getline(&line, &cap, in) > 0) {
		struct kv kv[16];
		long v, count, code;
		int n;

		lineno++;
		line[strcspn(line, "\n")] = '\0';
		n = json_flat(line, kv, 16);
		if (lineno == 1) {
			long st = -1, sig = 0;
			if (n < 0 || !kv_long(kv, n, "v", 1, 1, &v) ||
			    !kv_copy(kv, n, "cmd", run->cmd, sizeof(run->cmd)) ||
			    !kv_copy(kv, n, "cwd", run->cwd, sizeof(run->cwd)) ||
			    !kv_copy(kv, n, "time", run->when, sizeof(run->when)) ||
			    !kv_copy(kv, n, "mode", run->mode, sizeof(run->mode)) ||
			    !kv_long(kv, n, "status", -1, 255, &st) ||
			    !kv_long(kv, n, "signal", 0, 128, &sig) ||
			    !kv_long(kv, n, "refused", 0, LONG_MAX, &t->denied) ||
			    !kv_long(kv, n, "warned", 0, LONG_MAX, &t->warned) ||
			    !kv_long(kv, n, "dropped", 0, LONG_MAX, &t->dropped))
				ret = -1;
			run->status = (int)st;
			run->signal = (int)sig;
			/* "create=2,rename=1": the calls by operation. */
			char *ops = (char *)kv_get(kv, n, "ops", true), *save = NULL;
			if (!ops)
				ret = -1;
			for (char *o = ops ? strtok_r(ops, ",", &save) : NULL; o && ret == 0;
			     o = strtok_r(NULL, ",", &save)) {
				char *eq = strchr(o, '='), *end;
				long c = eq ? strtol(eq + 1, &end, 10) : -1;
				if (!eq || eq == o || eq - o >= 16 || *end || c < 1 ||
				    t->n_ops == sizeof(t->ops) / sizeof(t->ops[0])) {
					ret = -1;
					break;
				}
				*eq = '\0';
				snprintf(t->ops[t->n_ops].name, sizeof(t->ops[0].name), "%s", o);
				t->ops[t->n_ops++].count = c;
			}
			const char *to = kv_get(kv, n, "timed_out", false);
			run->timed_out = to && strcmp(to, "true") == 0;
			continue;
		}
		const char *op = n > 0 ? kv_get(kv, n, "op", true) : NULL;
		const char *target = n > 0 ? kv_get(kv, n, "target", true) : NULL;
		const char *layer = n > 0 ? kv_get(kv, n, "layer", true) : NULL;
		if (!op || !target || !layer || !*op || strlen(op) >= 16 ||
		    !kv_long(kv, n, "count", 1, LONG_MAX, &count) ||
		    !kv_long(kv, n, "code", -1, INT_MAX, &code) ||
		    (code >= 0 && strcmp(reason_text((enum reason)code), "?") == 0)) {
			ret = -1;
			break;
		}
		/* Counted as targets only: the run's totals are its own line's. */
		tally_add(t, "also", op, target, code < 0 ? REASON_OUTSIDE_ROOTS : (enum reason)code,
			  code < 0 ? "refused by the supervisor" : NULL, layer);
		struct tally_target *e;
		size_t ol = strlen(op), kl = ol + 1 + strlen(target);
		char key[64 + PATH_MAX];
		if (kl < sizeof(key)) {
			memcpy(key, op, ol + 1);
			memcpy(key + ol + 1, target, strlen(target) + 1);
			HASH_FIND(hh, t->targets, key, kl, e);
			if (e)
				e->count = count;
		}
	}
	if (ret == 0 && lineno == 0) {
		free(line);
		return errf(err, errsize, "the record is empty");
	}
	if (ret < 0)
		errf(err, errsize, "line %u is not as cordon writes it", lineno);
	free(line);
	return ret;
}

void tally_free(struct tally *t)
{
	struct tally_target *e, *tmp;

	HASH_ITER(hh, t->targets, e, tmp) {
		HASH_DEL(t->targets, e);
		free(e);
	}
	t->n_targets = 0;
}
