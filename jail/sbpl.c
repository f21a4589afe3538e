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

/* How many read-deny and write-deny entries lie above @e: an entry that
 * takes rights away, or gives them back, inside another is written after
 * it (and so wins over it, the nearest entry deciding). */
static unsigned level_of(const struct policy *pol, const struct pathset_entry *e)
{
	unsigned mask = 1u << PATH_READ_DENY | 1u << PATH_WRITE_DENY, n = 0;
	size_t len = e->len;

	while (len > 1) {
		while (len > 1 && e->path[len - 1] != '/')  /* "/a/b" -> "/a/" */
			len--;
		if (len > 1)
			len--;                               /* -> "/a"; "/" stays */
		const struct pathset_entry *a = pathset_get(&pol->paths, e->path, len);
		n += a && (a->kinds & mask);
	}
	return n;
}

/* The entries of @kind that @keep accepts (NULL: all) and whose level_of()
 * is @level (-1: any), grouped by the rule that made them in the order the
 * rules were read, then sorted by path: the profile is the same text for
 * the same policy, whatever order the set keeps. Returns their number, or
 * (size_t)-1 when out of memory. */
static size_t sorted(const struct policy *pol, enum path_kind kind,
		     bool (*keep)(const struct policy *, const struct pathset_entry *),
		     int level, struct item **out)
{
	const struct pathset_entry *e, *tmp;
	struct item *v = calloc(pol->paths.count + 1, sizeof(*v));
	size_t n = 0;

	if (!v)
		return (size_t)-1;
	HASH_ITER(hh, pol->paths.head, e, tmp) {
		if ((e->kinds & 1u << kind) && (!keep || keep(pol, e)) &&
		    (level < 0 || level_of(pol, e) == (unsigned)level)) {
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

/* @s with every byte that is not printable ASCII as \xHH: in a comment,
 * only a line break would end it early. */
static void put_comment_text(FILE *out, const char *s)
{
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (*p < 0x20 || *p >= 0x7f)
			fprintf(out, "\\x%02x", *p);
		else
			fputc(*p, out);
	}
}

/* A comment line: ";; ", @prefix and @s, both escaped. */
static void put_comment(FILE *out, const char *prefix, const char *s)
{
	fputs(";; ", out);
	put_comment_text(out, prefix);
	put_comment_text(out, s);
	fputc('\n', out);
}

/* ";; why: the rule, where it was written" before the lines it made. */
static void put_rule(FILE *out, const struct rule *r)
{
	char line[16];

	if (!r || !r->file || !r->text[0])  /* built in: the section says why */
		return;
	fputs(";; ", out);
	if (r->line) {
		put_comment_text(out, r->file);
		snprintf(line, sizeof(line), ":%u: ", r->line);
		fputs(line, out);
	} else {
		fputs("command line: ", out);
	}
	put_comment_text(out, r->text);
	fputc('\n', out);
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
	"(allow file-read-data file-write-data file-ioctl\n"
	"  (literal \"/dev/dtracehelper\")\n"
	"  (subpath \"/dev/fd\"))\n";

/* The TCP ports of @l as (FILTER "HOST:PORT") filters for @op, each port
 * once, under the rule that first listed it; a list holding the whole
 * range is one "*" filter. -1 past @budget distinct ports. */
static int put_ports(FILE *out, const char *op, const char *filter, const char *host,
		     const struct port_list *l, size_t *budget)
{
	uint8_t seen[65536 / 8] = { 0 };

	for (size_t i = 0; i < l->n; i++) {
		if (l->v[i].lo <= 1 && l->v[i].hi == 65535) {
			put_rule(out, l->v[i].rule);
			fprintf(out, "(allow %s (%s \"%s:*\"))\n", op, filter, host);
			return 0;
		}
	}
	for (size_t i = 0; i < l->n; i++) {
		const struct port_rule *pr = &l->v[i];
		bool first = true;
		for (unsigned port = pr->lo; port <= pr->hi; port++) {
			if (seen[port / 8] & 1u << port % 8)
				continue;
			seen[port / 8] |= (uint8_t)(1u << port % 8);
			if (!*budget)
				return -1;
			--*budget;
			if (first) {
				put_rule(out, pr->rule);
				fprintf(out, "(allow %s", op);
				first = false;
			}
			fprintf(out, "\n  (%s \"%s:%u\")", filter, host, port);
		}
		if (!first)
			fputs(")\n", out);
	}
	return 0;
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
				 "net-connect and net-bind list more than %d distinct ports, and a Seatbelt "
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
		       const struct section *sec, int level)
{
	struct item *v;
	size_t n = sorted(pol, sec->kind, sec->keep, level, &v);

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
		PATH_DEVICE, "devices: read, written and ioctl'd, never created or removed",
		"allow file-read-data file-write-data file-ioctl", NULL, NULL, NULL
	};
	static const struct section writes = {
		PATH_WRITE, NULL, "allow file-write* network-bind network-outbound", NULL, NULL, NULL
	};
	static const struct section sockets = {
		PATH_SOCKET, "unix sockets the program may connect to",
		"allow network-outbound", "path-literal", "remote unix-socket", NULL
	};
	/* Then by level_of(), outermost first, so that the nearest entry
	 * decides as in the shim (policy_decide_path); at one level the
	 * allows given back, then the denials, then the devices (a device
	 * entry decides for itself, even where it is denied). */
	static const struct section late[] = {
		{ PATH_WRITE, NULL, "allow file-read* file-write* network-bind network-outbound",
		  NULL, NULL, inside_denied },
		{ PATH_SOCKET, NULL, "allow network-outbound", "path-literal", "remote unix-socket",
		  inside_denied },
		{ PATH_READ_DENY, NULL, "deny file-read* file-write* network-outbound", "subpath",
		  NULL, NULL },
		{ PATH_WRITE_DENY, NULL, "deny file-write*", "subpath", NULL, NULL },
	};
	/* A device inside a denied entry is the nearest entry for itself. */
	static const struct section late_devices = {
		PATH_DEVICE, NULL, "allow file-read* file-write-data file-ioctl", NULL, NULL,
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
	if (pol->n_read_deny)
		fputs(";; read-deny is in force: of /dev, only the devices every program uses\n"
		      ";; (below) are read; a disk holds every file, the denied ones too\n"
		      "(deny file-read-data (require-all (subpath \"/dev\")\n"
		      "  (require-any (vnode-type BLOCK-DEVICE) (vnode-type CHARACTER-DEVICE))))\n",
		      out);

	if ((r = put_section(out, pol, is_dir, &devices, -1)) < 0)
		return r;
	fputs(darwin_devices, out);

	fputs("\n;; writes: beneath the write roots (a file root is that file only), and\n"
	      ";; the unix sockets there\n", out);
	if (pol->private_tmp.value)
		put_comment(out, "", "private-tmp yes: the run's own TMPDIR is a write root too, "
				     "made when it starts");
	if ((r = put_section(out, pol, is_dir, &writes, -1)) < 0 ||
	    (r = put_section(out, pol, is_dir, &sockets, -1)) < 0)
		return r;
	if ((r = put_network(pol, out, err, errsize)) < 0)
		return r;
	/* Last, so that they win over every allow above. */
	if (pol->n_read_deny || pol->n_write_deny)
		fputs("\n;; read-deny (neither read nor written) and write-deny (never written),\n"
		      ";; even inside a write root; an entry inside another is given after it,\n"
		      ";; so the nearest one decides\n", out);
	unsigned deepest = 0;
	for (const struct pathset_entry *e = pol->paths.head; e; e = e->hh.next)
		if (level_of(pol, e) > deepest)
			deepest = level_of(pol, e);
	for (unsigned level = 0; (pol->n_read_deny || pol->n_write_deny) && level <= deepest;
	     level++)
		for (size_t i = 0; i <= sizeof(late) / sizeof(late[0]); i++)
			if ((r = put_section(out, pol, is_dir,
					     i < sizeof(late) / sizeof(late[0]) ? &late[i]
										 : &late_devices,
					     (int)level)) < 0)
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
