/*
 * sbpl.c - the Seatbelt profile of a policy (see sbpl.h).
 *
 * The profile denies by default and then allows, section by section, what
 * the policy grants. In SBPL the last rule that matches an operation
 * decides, so the order is the policy's precedence: what every program
 * needs, reads everywhere, writes beneath the roots, the network, and last
 * the entries that take rights away again (read-deny, write-deny, no
 * subprocesses), which therefore hold even inside a write root. Every
 * path and rule text goes out through sbpl_put_string() or a comment that
 * cannot hold a line break, so no name in a policy can add a rule.
 */
#include "sbpl.h"

#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <sys/stat.h>

#include "../shim/path.h"

/* The place of @r in the policy's list of rules. */
static size_t rule_index(const struct policy *pol, const void *r)
{
	size_t i = 0;

	for (const struct rule *x = pol->rules; x; x = x->next, i++)
		if (x == r)
			return i;
	return i;
}

struct item {
	const struct pathset_entry *e;
	size_t rule;                   /* rule_index() of its rule of the kind */
};

static int item_cmp(const void *a, const void *b)
{
	const struct item *x = a, *y = b;

	/* The policy's list is newest first: the first rule read, last. */
	if (x->rule != y->rule)
		return x->rule > y->rule ? -1 : 1;
	return strcmp(x->e->path, y->e->path);
}

/* The entries of @kind that @keep accepts (NULL: all), grouped by the rule
 * that made them in the order the rules were read, then sorted by path:
 * the profile is the same text for the same policy, whatever order the
 * set keeps. Returns their number, or (size_t)-1 when out of memory. */
static size_t sorted(const struct policy *pol, enum path_kind kind,
		     bool (*keep)(const struct policy *, const struct pathset_entry *),
		     struct item **out)
{
	const struct pathset_entry *e, *tmp;
	struct item *v = calloc(pol->paths.count + 1, sizeof(*v));
	size_t n = 0;

	if (!v)
		return (size_t)-1;
	HASH_ITER(hh, pol->paths.head, e, tmp) {
		if ((e->kinds & 1u << kind) && (!keep || keep(pol, e))) {
			v[n].e = e;
			v[n++].rule = rule_index(pol, e->data[kind]);
		}
	}
	qsort(v, n, sizeof(*v), item_cmp);
	*out = v;
	return n;
}

bool sbpl_stat_is_dir(const char *path)
{
	struct stat st;
	return stat(path, &st) != 0 || S_ISDIR(st.st_mode);
}

const char *sbpl_resolved(const char *path, char *buf, size_t size)
{
	static const char *const linked[] = { "/tmp", "/var", "/etc" };

	for (size_t i = 0; i < sizeof(linked) / sizeof(linked[0]); i++) {
		size_t n = strlen(linked[i]);
		if (strncmp(path, linked[i], n) == 0 && (path[n] == '/' || path[n] == '\0')) {
			snprintf(buf, size, "/private%s", path);
			return buf;
		}
	}
	snprintf(buf, size, "%s", path);
	return buf;
}

void sbpl_put_string(FILE *out, const char *s)
{
	fputc('"', out);
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		switch (*p) {
		case '"':
			fputs("\\\"", out);
			break;
		case '\\':
			fputs("\\\\", out);
			break;
		case '\n':
			fputs("\\n", out);
			break;
		case '\t':
			fputs("\\t", out);
			break;
		case '\r':
			fputs("\\r", out);
			break;
		default:
			if (*p < 0x20 || *p == 0x7f)
				fprintf(out, "\\x%02x", *p);
			else
				fputc(*p, out);
		}
	}
	fputc('"', out);
}

/* A comment line: ";; " and @s with every byte that is not printable
 * ASCII as \xHH, so that a rule's text (a file name with a newline in it)
 * stays inside the comment: only a line break ends one. */
static void put_comment(FILE *out, const char *prefix, const char *s)
{
	fprintf(out, ";; %s", prefix);
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (*p < 0x20 || *p >= 0x7f)
			fprintf(out, "\\x%02x", *p);
		else
			fputc(*p, out);
	}
	fputc('\n', out);
}

/* ";; why: the rule, where it was written" before the lines it made. */
static void put_rule(FILE *out, const struct rule *r)
{
	char where[PATH_MAX + 64];

	if (!r || !r->file || !r->text[0])  /* built in: the section says why */
		return;
	if (r->line)
		snprintf(where, sizeof(where), "%s:%u: ", r->file, r->line);
	else
		snprintf(where, sizeof(where), "command line: ");
	put_comment(out, where, r->text);
}

/* (FILTER "PATH") with PATH as Seatbelt sees it. */
static void put_filter(FILE *out, const char *filter, const char *path)
{
	char buf[PATH_MAX + 16];

	fprintf(out, "(%s ", filter);
	sbpl_put_string(out, sbpl_resolved(path, buf, sizeof(buf)));
	fputc(')', out);
}

/* What every program needs, whatever the policy: its own processes, the
 * system's read-only information and the few services the C library and
 * the Security framework talk to (user and group lookups, notifications,
 * logging, preferences, certificate trust). Nothing that can start or
 * drive another program on the program's behalf (LaunchServices, Apple
 * Events) is on the list. */
static const char *const base_profile =
	"(allow process-exec)\n"
	"(allow signal (target same-sandbox))\n"
	"(allow process-info* (target same-sandbox))\n"
	"(allow sysctl-read)\n"
	"(allow user-preference-read)\n"
	"(allow pseudo-tty)\n"
	"(allow ipc-posix-sem)\n"
	"(allow ipc-posix-shm-read-data ipc-posix-shm-read-metadata\n"
	"  (ipc-posix-name \"apple.shm.notification_center\"))\n"
	"(allow mach-lookup\n"
	"  (global-name \"com.apple.system.opendirectoryd.libinfo\")\n"
	"  (global-name \"com.apple.system.opendirectoryd.membership\")\n"
	"  (global-name \"com.apple.system.notification_center\")\n"
	"  (global-name \"com.apple.system.logger\")\n"
	"  (global-name \"com.apple.logd\")\n"
	"  (global-name \"com.apple.diagnosticd\")\n"
	"  (global-name \"com.apple.cfprefsd.daemon\")\n"
	"  (global-name \"com.apple.cfprefsd.agent\")\n"
	"  (global-name \"com.apple.bsd.dirhelper\")\n"
	"  (global-name \"com.apple.SecurityServer\")\n"
	"  (global-name \"com.apple.trustd\")\n"
	"  (global-name \"com.apple.trustd.agent\"))\n";

/* Devices macOS programs open for writing besides the policy's own
 * (policy_add_devices): the DTrace helper dyld opens in every process,
 * and /dev/fd, whose entries only duplicate descriptors already held. */
static const char *const darwin_devices =
	"(allow file-write-data file-ioctl\n"
	"  (literal \"/dev/dtracehelper\")\n"
	"  (subpath \"/dev/fd\"))\n";

/* The TCP ports of @l as (FILTER "HOST:PORT") filters for @op; the whole
 * range is one "*" filter. Returns the number written, or -1 past @budget. */
static int put_ports(FILE *out, const char *op, const char *filter, const char *host,
		     const struct port_list *l, size_t *budget)
{
	int n = 0;

	for (size_t i = 0; i < l->n; i++) {
		const struct port_rule *pr = &l->v[i];
		put_rule(out, pr->rule);
		if (pr->lo <= 1 && pr->hi == 65535) {
			fprintf(out, "(allow %s (%s \"%s:*\"))\n", op, filter, host);
			n++;
			continue;
		}
		size_t count = (size_t)pr->hi - pr->lo + 1;
		if (count > *budget)
			return -1;
		*budget -= count;
		fprintf(out, "(allow %s", op);
		for (unsigned port = pr->lo; port <= pr->hi; port++)
			fprintf(out, "\n  (%s \"%s:%u\")", filter, host, port);
		fputs(")\n", out);
		n++;
	}
	return n;
}

static int put_network(const struct policy *pol, FILE *out, char *err, size_t errsize)
{
	size_t budget = SBPL_MAX_PORTS;

	fputs("\n;; network: ", out);
	switch ((enum net_mode)pol->net.value) {
	case NET_NONE:
		fputs("none (only the TCP ports listed below)\n", out);
		if (put_ports(out, "network-outbound", "remote tcp", "*", &pol->net_connect,
			      &budget) < 0 ||
		    put_ports(out, "network-bind network-inbound", "local tcp", "*", &pol->net_bind,
			      &budget) < 0) {
			snprintf(err, errsize,
				 "net-connect and net-bind list more than %d ports, and a Seatbelt "
				 "profile has no port ranges (1-65535 is the one range it can say)",
				 SBPL_MAX_PORTS);
			return -EINVAL;
		}
		break;
	case NET_ISOLATED:
		/* There is no private network on macOS: the host's loopback
		 * stands in for it, reachable and bindable, nothing else. */
		fputs("isolated (the host's loopback: macOS has no private network)\n"
		      "(allow network-bind network-inbound (local ip \"localhost:*\"))\n"
		      "(allow network-outbound (remote ip \"localhost:*\"))\n",
		      out);
		break;
	case NET_ALL:
		/* Every address, and the resolver's socket for names; unix
		 * sockets stay as listed. */
		fputs("all (unix sockets only as listed)\n"
		      "(allow network-outbound (remote ip))\n"
		      "(allow network-bind network-inbound (local ip))\n"
		      "(allow system-socket)\n"
		      "(allow network-outbound (remote unix-socket (path-literal "
		      "\"/private/var/run/mDNSResponder\")))\n",
		      out);
		break;
	}
	return 0;
}

/* How a section writes each of its entries. */
struct section {
	enum path_kind kind;
	const char *title;           /* the comment before it, or NULL */
	const char *action;          /* "allow file-write*" */
	const char *filter;          /* "subpath"; NULL: subpath for a directory,
	                                literal for a file */
	const char *wrap;            /* the filter goes inside (WRAP ...), or NULL */
	bool (*keep)(const struct policy *, const struct pathset_entry *);
};

/* One (ACTION FILTER...) form per rule, under a comment naming the rule. */
static int put_section(FILE *out, const struct policy *pol, sbpl_is_dir_fn *is_dir,
		       const struct section *sec)
{
	struct item *v;
	size_t n = sorted(pol, sec->kind, sec->keep, &v);

	if (n == (size_t)-1)
		return -ENOMEM;
	if (n && sec->title)
		fprintf(out, "\n;; %s\n", sec->title);
	for (size_t i = 0; i < n; i++) {
		if (i == 0 || v[i].rule != v[i - 1].rule) {
			put_rule(out, v[i].e->data[sec->kind]);
			fprintf(out, "(%s", sec->action);
		}
		const char *path = v[i].e->path;
		fprintf(out, "\n  %s%s%s", sec->wrap ? "(" : "", sec->wrap ? sec->wrap : "",
			sec->wrap ? " " : "");
		put_filter(out, sec->filter ? sec->filter : is_dir(path) ? "subpath" : "literal",
			   path);
		if (sec->wrap)
			fputc(')', out);
		if (i + 1 == n || v[i + 1].rule != v[i].rule)
			fputs(")\n", out);
	}
	free(v);
	return 0;
}

/* A write root whose nearest entry above it takes rights away (read-deny,
 * write-deny): policy_decide_path lets the nearest entry decide, so the
 * root opens its part of the denied one again. */
static bool inside_denied(const struct policy *pol, const struct pathset_entry *e)
{
	size_t plen = e->len > 1 ? path_parent_len(e->path) : 0;
	unsigned deny = 1u << PATH_READ_DENY | 1u << PATH_WRITE_DENY;
	const struct pathset_entry *d =
		plen ? pathset_nearest(&pol->paths, e->path, plen, 1u << PATH_WRITE | deny) : NULL;

	return d && (d->kinds & deny);
}

int sbpl_profile(const struct policy *pol, sbpl_is_dir_fn *is_dir, FILE *out, char *err,
		 size_t errsize)
{
	/* In order: each later one wins over those before it. */
	static const struct section devices = {
		PATH_DEVICE, "devices: written and ioctl'd, never created or removed",
		"allow file-write-data file-ioctl", NULL, NULL, NULL
	};
	static const struct section writes = {
		PATH_WRITE, NULL, "allow file-write* network-bind network-outbound", NULL, NULL, NULL
	};
	static const struct section sockets = {
		PATH_SOCKET, "unix sockets the program may connect to",
		"allow network-outbound", "path-literal", "remote unix-socket", NULL
	};
	static const struct section read_deny = {
		PATH_READ_DENY, "read-deny: neither read nor written, even inside a write root",
		"deny file-read* file-write* network-outbound", "subpath", NULL, NULL
	};
	static const struct section write_deny = {
		PATH_WRITE_DENY, "write-deny: read, never written, even inside a write root",
		"deny file-write*", "subpath", NULL, NULL
	};
	static const struct section reopened = {
		PATH_WRITE, "write roots inside those entries: the nearest entry decides",
		"allow file-read* file-write* network-bind network-outbound", NULL, NULL,
		inside_denied
	};
	int r;

	fputs(";; The Seatbelt profile of a cordon policy (cordon seatbelt prints it).\n"
	      ";; The last rule that matches an operation decides.\n", out);
	for (size_t i = 0; i < pol->n_files; i++)
		put_comment(out, "policy: ", pol->files[i]);
	fputs("(version 1)\n(deny default)\n\n;; what every program needs\n", out);
	fputs(base_profile, out);
	if (pol->subprocess.value)
		fputs("(allow process-fork)\n", out);
	fputs("\n;; reads: everywhere, but for read-deny below\n(allow file-read*)\n"
	      "(allow file-map-executable)\n", out);

	if ((r = put_section(out, pol, is_dir, &devices)) < 0)
		return r;
	fputs(darwin_devices, out);

	fputs("\n;; writes: beneath the write roots (a file root is that file only), and\n"
	      ";; the unix sockets there\n", out);
	if (pol->private_tmp.value)
		put_comment(out, "", "private-tmp yes: the run's own TMPDIR is a write root too, "
				     "made when it starts");
	if ((r = put_section(out, pol, is_dir, &writes)) < 0 ||
	    (r = put_section(out, pol, is_dir, &sockets)) < 0)
		return r;
	if ((r = put_network(pol, out, err, errsize)) < 0)
		return r;
	/* Last, so that they win over every allow above. */
	if ((r = put_section(out, pol, is_dir, &read_deny)) < 0 ||
	    (r = put_section(out, pol, is_dir, &write_deny)) < 0 ||
	    (r = put_section(out, pol, is_dir, &reopened)) < 0)
		return r;
	if (!pol->subprocess.value) {
		fputs("\n;; subprocess no\n", out);
		put_rule(out, pol->subprocess.rule);
		fputs("(deny process-fork)\n", out);
	}
	if (fflush(out) != 0 || ferror(out)) {
		snprintf(err, errsize, "unable to write the profile: %s", strerror(errno));
		return -EIO;
	}
	return 0;
}
