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

/* Distinct targets kept; refusals beyond are counted, not listed. */
#define TALLY_TARGETS_MAX 10000

struct tally_target {
	UT_hash_handle hh;
	long count;
	size_t seq;                   /* first seen: ties keep that order */
	enum reason reason;
	const char *why;              /* instead of reason, or NULL */
	const char *layer;            /* a string literal */
	char *target;                 /* into key, after the op's NUL */
	size_t keylen;
	char key[];                   /* "OP\0TARGET" */
};

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
}

void tally_add(struct tally *t, const char *verdict, const char *op, const char *target,
	       enum reason reason, const char *why, const char *layer)
{
	struct tally_target *e;
	size_t ol = strlen(op), tl = strlen(target), kl = ol + 1 + tl;
	char key[64 + PATH_MAX];

	if (strcmp(verdict, "warn") == 0)
		t->warned++;
	else
		t->denied++;
	count_op(t, op);
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
	e->layer = strcmp(layer, "supervisor") == 0 ? "supervisor" : "shim";
	HASH_ADD_KEYPTR(hh, t->targets, e->key, e->keylen, e);
}

void tally_recv(struct tally *t, int fd)
{
	char rec[128 + PATH_MAX];
	ssize_t n;

	while ((n = recv(fd, rec, sizeof(rec) - 1, MSG_DONTWAIT)) > 0 ||
	       (n < 0 && errno == EINTR)) {
		const char *f[5];
		size_t k = 0;
		if (n < 0)
			continue;
		rec[n] = '\0';
		/* "1\0VERDICT\0OP\0REASON\0TARGET\0" */
		for (const char *p = rec; k < 5 && p < rec + n; p += strlen(p) + 1)
			f[k++] = p;
		char *end;
		long reason = k == 5 ? strtol(f[3], &end, 10) : -1;
		if (k != 5 || strcmp(f[0], "1") != 0 || *end || reason < 0 || reason > INT_MAX ||
		    strcmp(reason_text((enum reason)reason), "?") == 0 || !*f[2] ||
		    strlen(f[2]) >= 16) {
			t->dropped++;
			continue;
		}
		tally_add(t, strcmp(f[1], "warn") == 0 ? "warn" : "deny", f[2], f[4],
			  (enum reason)reason, NULL, "shim");
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

/* The @max most refused targets, most first, into @top; returns how many. */
static size_t top(const struct tally *t, struct tally_target **v, size_t max)
{
	struct tally_target **all = calloc(t->n_targets ? t->n_targets : 1, sizeof(*all));
	struct tally_target *e, *tmp;
	size_t n = 0;

	if (!all)
		return 0;
	HASH_ITER(hh, t->targets, e, tmp)
		all[n++] = e;
	qsort(all, n, sizeof(*all), by_count);
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

void tally_free(struct tally *t)
{
	struct tally_target *e, *tmp;

	HASH_ITER(hh, t->targets, e, tmp) {
		HASH_DEL(t->targets, e);
		free(e);
	}
	t->n_targets = 0;
}
