/*
 * log.c - the deny log line, text or JSON, into a fixed buffer.
 *
 * Text:
 *   cordon: deny create /root/x (open O_WRONLY|O_CREAT, as "x") pid 812
 *   /usr/bin/touch: outside write roots [/src/proj]; to allow: write /root [shim]
 * JSON (one object a line, "v" is the format version):
 *   {"v":1,"decision":"deny","op":"create","call":"open","flags":"O_WRONLY|O_CREAT",
 *    "path":"x","target":"/root/x","reason":"outside write roots","matched":null,
 *    "rule":null,"roots":["/src/proj"],"hint":"write /root","pid":812,
 *    "exe":"/usr/bin/touch","layer":"shim","mode":"enforce"}
 *
 * Everything is appended with bounds checks by hand: snprintf is not
 * async-signal-safe and may consult the locale.
 */
#include "log.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/fs.h>
#include <stdbool.h>
#include <stddef.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "path.h"

#define MAX_ROOTS_LISTED 8

struct out {
	char *p;
	size_t len, cap;   /* cap excludes room kept for the ending */
	int cut;
};

static void put(struct out *o, const char *s, size_t n)
{
	if (o->len + n > o->cap) {
		n = o->cap - o->len;
		o->cut = 1;
	}
	memcpy(o->p + o->len, s, n);
	o->len += n;
}

static void puts_(struct out *o, const char *s)
{
	put(o, s, strlen(s));
}

static void putu(struct out *o, unsigned long v)
{
	char tmp[24];
	size_t i = sizeof(tmp);

	do
		tmp[--i] = (char)('0' + v % 10);
	while ((v /= 10));
	put(o, tmp + i, sizeof(tmp) - i);
}

/* A JSON string, or null; control characters and non-ASCII bytes that
 * might not be UTF-8 are escaped as \u00XX. */
static void putj(struct out *o, const char *s)
{
	static const char hex[] = "0123456789abcdef";

	if (!s) {
		puts_(o, "null");
		return;
	}
	put(o, "\"", 1);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '"' || c == '\\') {
			char e[2] = { '\\', (char)c };
			put(o, e, 2);
		} else if (c < 0x20 || c >= 0x7f) {
			char e[6] = { '\\', 'u', '0', '0', hex[c >> 4], hex[c & 15] };
			put(o, e, 6);
		} else {
			put(o, (const char *)&c, 1);
		}
	}
	put(o, "\"", 1);
}

/* A path in quotes, with control characters, '"' and '\\' as octal
 * escapes, so one event stays one line. */
static void putq(struct out *o, const char *s)
{
	const char *c;

	put(o, "\"", 1);
	for (c = s; *c; c++) {
		unsigned char ch = (unsigned char)*c;
		if (ch < 0x20 || ch == 0x7f || ch == '"' || ch == '\\') {
			static const char oct[] = "01234567";
			char e[4] = { '\\', oct[ch >> 6], oct[(ch >> 3) & 7], oct[ch & 7] };
			put(o, e, 4);
		} else {
			put(o, c, 1);
		}
	}
	put(o, "\"", 1);
}

/* A path in text: as is, unless it holds a character that needs putq. */
static void putt(struct out *o, const char *s)
{
	const char *c;

	for (c = s; *c && (unsigned char)*c >= 0x20 && *c != 0x7f; c++)
		;
	if (*c)
		putq(o, s);
	else
		puts_(o, s);
}

size_t log_format_addr(char *buf, size_t size, const struct sockaddr *sa, socklen_t len, int type)
{
	struct out o = { buf, 0, size ? size - 1 : 0, 0 };
	char host[INET6_ADDRSTRLEN] = "?";
	unsigned long port = 0;

	if (!size)
		return 0;
	if (len < (socklen_t)sizeof(sa_family_t)) {
		puts_(&o, "(no address)");
	} else if (sa->sa_family == AF_UNIX) {
		const struct sockaddr_un *un = (const void *)sa;
		size_t off = offsetof(struct sockaddr_un, sun_path);
		size_t n = len > off ? len - off : 0;
		if (n > sizeof(un->sun_path))
			n = sizeof(un->sun_path);
		if (n && un->sun_path[0] == '\0') {
			puts_(&o, "unix:@");
			put(&o, un->sun_path + 1, n - 1);
		} else {
			puts_(&o, "unix:");
			put(&o, un->sun_path, strnlen(un->sun_path, n));
		}
	} else {
		if (sa->sa_family == AF_INET && len >= (socklen_t)sizeof(struct sockaddr_in)) {
			const struct sockaddr_in *in = (const void *)sa;
			inet_ntop(AF_INET, &in->sin_addr, host, sizeof(host));
			port = ntohs(in->sin_port);
		} else if (sa->sa_family == AF_INET6 &&
			   len >= (socklen_t)offsetof(struct sockaddr_in6, sin6_scope_id)) {
			const struct sockaddr_in6 *in6 = (const void *)sa;
			inet_ntop(AF_INET6, &in6->sin6_addr, host, sizeof(host));
			port = ntohs(in6->sin6_port);
		}
		if (sa->sa_family == AF_INET6)
			put(&o, "[", 1);
		puts_(&o, host);
		if (sa->sa_family == AF_INET6)
			put(&o, "]", 1);
		put(&o, ":", 1);
		putu(&o, port);
		puts_(&o, type == SOCK_STREAM ? "/tcp" : type == SOCK_DGRAM ? "/udp" : "");
	}
	buf[o.len] = '\0';
	return o.len;
}

size_t log_format_flags(char *buf, size_t size, enum log_flags_kind kind, int flags)
{
	static const struct { int bit; const char *name; } open_bits[] = {
		{ O_CREAT, "O_CREAT" }, { O_EXCL, "O_EXCL" }, { O_TRUNC, "O_TRUNC" },
		{ O_APPEND, "O_APPEND" }, { O_NOFOLLOW, "O_NOFOLLOW" },
		{ O_DIRECTORY, "O_DIRECTORY" }, { O_PATH, "O_PATH" }, { O_CLOEXEC, "O_CLOEXEC" },
		{ O_NONBLOCK, "O_NONBLOCK" }, { O_SYNC, "O_SYNC" }, { O_NOCTTY, "O_NOCTTY" },
	}, at_bits[] = {
		{ AT_SYMLINK_NOFOLLOW, "AT_SYMLINK_NOFOLLOW" }, { AT_REMOVEDIR, "AT_REMOVEDIR" },
		{ AT_SYMLINK_FOLLOW, "AT_SYMLINK_FOLLOW" }, { AT_EMPTY_PATH, "AT_EMPTY_PATH" },
	}, rename_bits[] = {
		{ RENAME_NOREPLACE, "RENAME_NOREPLACE" }, { RENAME_EXCHANGE, "RENAME_EXCHANGE" },
		{ RENAME_WHITEOUT, "RENAME_WHITEOUT" },
	};
	struct out o = { buf, 0, size ? size - 1 : 0, 0 };
	const char *sep = "";
	size_t n = 0;

	if (!size)
		return 0;
	const void *table = NULL;
	if (kind == LOGF_OPEN) {
		int acc = flags & O_ACCMODE;
		puts_(&o, acc == O_WRONLY ? "O_WRONLY" : acc == O_RDWR ? "O_RDWR" : "O_RDONLY");
		sep = "|";
		/* O_TMPFILE includes O_DIRECTORY; its own bit is the rest. */
		const int tmp_bit = O_TMPFILE & ~O_DIRECTORY;
		if ((flags & tmp_bit) == tmp_bit) {
			puts_(&o, "|O_TMPFILE");
			flags &= ~tmp_bit;
		}
		table = open_bits;
		n = sizeof(open_bits) / sizeof(open_bits[0]);
	} else if (kind == LOGF_AT) {
		table = at_bits;
		n = sizeof(at_bits) / sizeof(at_bits[0]);
	} else if (kind == LOGF_RENAME) {
		table = rename_bits;
		n = sizeof(rename_bits) / sizeof(rename_bits[0]);
	}
	for (size_t i = 0; i < n; i++) {
		const struct { int bit; const char *name; } *b = (const void *)((const char *)table +
			i * sizeof(open_bits[0]));
		if (flags & b->bit) {
			puts_(&o, sep);
			puts_(&o, b->name);
			sep = "|";
		}
	}
	buf[o.len] = '\0';
	return o.len;
}

static const char *rule_where(const struct rule *r, char *buf, size_t size)
{
	struct out o = { buf, 0, size - 1, 0 };

	if (!r)
		return NULL;
	if (r->line) {
		puts_(&o, r->file);
		put(&o, ":", 1);
		putu(&o, r->line);
	} else {
		puts_(&o, r->text);
	}
	buf[o.len] = '\0';
	return buf;
}


size_t log_hint(char *buf, size_t size, const char *op, const char *target, enum reason reason)
{
	struct out o = { buf, 0, size - 1, 0 };

	buf[0] = '\0';
	switch (reason) {
	case REASON_OUTSIDE_ROOTS:
		if (!target || target[0] != '/' || policy_kernel_path(target))
			break;
		if (strcmp(op, "connect") == 0) {
			puts_(&o, "unix-socket ");
			puts_(&o, target);
		} else {
			puts_(&o, "write ");
			put(&o, target, path_parent_len(target));
		}
		break;
	case REASON_NET_NONE:
		puts_(&o, strcmp(op, "bind") == 0 ? "net-bind PORT or net all"
						  : "net-connect PORT or net all");
		break;
	case REASON_NET_ABSTRACT:
	case REASON_NET_ANY_PORT:
		puts_(&o, "net isolated or net all");
		break;
	case REASON_NET_NOT_LOOPBACK:
	case REASON_NET_UDP:
	case REASON_NET_FAMILY:
		puts_(&o, "net all");
		break;
	case REASON_SUBPROCESS:
		puts_(&o, "subprocess yes");
		break;
	case REASON_POLICY_UNREADABLE:
	case REASON_KERNEL_LAYER:
	case REASON_DEVICE:
	case REASON_DEVICE_ENTRY:
	case REASON_DEVICE_READ:
	case REASON_READ_DENY:
	case REASON_WRITE_DENY:
	case REASON_HOLDS_WRITE_DENY:
	case REASON_WRITE_ROOT:
	case REASON_READ_DEFAULT:
	case REASON_SOCKET:
	case REASON_NET_ALL:
	case REASON_NET_PORT:
	case REASON_NET_LOOPBACK:
	case REASON_NET_LOCAL:
		break;
	}
	buf[o.len] = '\0';
	return o.len;
}

/* What would allow the refused call, or "" if nothing simple would. */
static const char *hint(const struct log_event *ev, char *buf, size_t size)
{
	buf[0] = '\0';
	if (ev->d && !ev->d->allow)
		log_hint(buf, size, ev->op, ev->target, ev->d->reason);
	return buf;
}

static void put_roots(struct out *o, const struct policy *pol, int json)
{
	const struct pathset_entry *e, *tmp;
	size_t shown = 0, total = 0;

	put(o, "[", 1);
	HASH_ITER(hh, pol->paths.head, e, tmp) {
		if (!(e->kinds & 1u << PATH_WRITE))
			continue;
		total++;
		if (shown == MAX_ROOTS_LISTED)
			continue;
		if (shown++)
			puts_(o, json ? "," : " ");
		if (json)
			putj(o, e->path);
		else
			putt(o, e->path);
	}
	if (total > shown && !json) {
		puts_(o, " ... ");
		putu(o, total - shown);
		puts_(o, " more");
	}
	put(o, "]", 1);
}

int log_format_for(int format, int fd, bool no_color)
{
	if (format != LOG_AUTO)
		return format;
	return !no_color && isatty(fd) ? LOG_TERM : LOG_TEXT;
}

/* The short form: verdict, operation, target, program; why, and what
 * would allow it. In colour for a terminal. */
static size_t format_short(struct out *o, const struct log_event *ev, const char *reason,
			   const char *help, bool colour)
{
	const char *on = strcmp(ev->verdict, "deny") == 0 ? "\033[1;31m"
			 : strcmp(ev->verdict, "warn") == 0 ? "\033[1;33m" : "\033[32m";
	const char *exe = ev->exe ? strrchr(ev->exe, '/') : NULL;

	puts_(o, "cordon: ");
	if (colour)
		puts_(o, on);
	puts_(o, ev->verdict);
	if (colour)
		puts_(o, "\033[0m");
	put(o, " ", 1);
	puts_(o, ev->op);
	put(o, " ", 1);
	putt(o, ev->target ? ev->target : "?");
	puts_(o, " (");
	putt(o, exe ? exe + 1 : ev->exe ? ev->exe : "?");
	puts_(o, "): ");
	puts_(o, reason);
	if (ev->d && ev->d->matched) {
		put(o, " ", 1);
		putt(o, ev->d->matched);
	}
	if (*help) {
		puts_(o, colour ? "; to allow: \033[1m" : "; to allow: ");
		putt(o, help);
		if (colour)
			puts_(o, "\033[0m");
	}
	if (strcmp(ev->layer, "shim") != 0) {
		puts_(o, " [");
		puts_(o, ev->layer);
		put(o, "]", 1);
	}
	return o->len;
}

size_t log_format_event(char *buf, size_t size, const struct log_event *ev,
			const struct policy *pol, int format)
{
	char flags[256], where[PATH_MAX + 64], help[PATH_MAX + 64];
	const struct decision *d = ev->d;
	const char *reason = d ? reason_text(d->reason) : ev->reason;
	const char *rule = d ? rule_where(d->rule, where, sizeof(where)) : NULL;
	bool json = format == LOG_JSON;
	/* Keep room for the ending: "...\n" or "\"truncated\":true}\n". */
	struct out o = { buf, 0, size > 24 ? size - 24 : 0, 0 };

	if (size <= 24)
		return 0;
	log_format_flags(flags, sizeof(flags), ev->flags_kind, ev->flags);
	if (json) {
		puts_(&o, "{\"v\":");
		putu(&o, LOG_FORMAT_VERSION);
		puts_(&o, ",\"decision\":");
		putj(&o, ev->verdict);
		puts_(&o, ",\"op\":");
		putj(&o, ev->op);
		puts_(&o, ",\"call\":");
		putj(&o, ev->call);
		puts_(&o, ",\"flags\":");
		putj(&o, flags);
		puts_(&o, ",\"path\":");
		putj(&o, ev->given);
		puts_(&o, ",\"target\":");
		putj(&o, ev->target);
		puts_(&o, ",\"reason\":");
		putj(&o, reason);
		puts_(&o, ",\"matched\":");
		putj(&o, d ? d->matched : NULL);
		puts_(&o, ",\"rule\":");
		putj(&o, rule);
		if (d && d->reason == REASON_OUTSIDE_ROOTS) {
			puts_(&o, ",\"roots\":");
			put_roots(&o, pol, 1);
		}
		if (*hint(ev, help, sizeof(help))) {
			puts_(&o, ",\"hint\":");
			putj(&o, help);
		}
		puts_(&o, ",\"pid\":");
		putu(&o, (unsigned long)ev->pid);
		puts_(&o, ",\"exe\":");
		putj(&o, ev->exe);
		puts_(&o, ",\"layer\":");
		putj(&o, ev->layer);
		puts_(&o, ",\"mode\":");
		putj(&o, run_mode_names[ev->mode]);
		o.cap = size - 1;
		if (o.cut)
			puts_(&o, ",\"truncated\":true");
		puts_(&o, "}\n");
		return o.len;
	}

	if (format == LOG_SHORT || format == LOG_TERM) {
		format_short(&o, ev, reason, hint(ev, help, sizeof(help)), format == LOG_TERM);
		o.cap = size - 1;
		if (o.cut)
			puts_(&o, "...");
		put(&o, "\n", 1);
		return o.len;
	}
	puts_(&o, "cordon: ");
	puts_(&o, ev->verdict);
	put(&o, " ", 1);
	puts_(&o, ev->op);
	put(&o, " ", 1);
	putt(&o, ev->target ? ev->target : "?");
	puts_(&o, " (");
	puts_(&o, ev->call);
	if (*flags) {
		put(&o, " ", 1);
		puts_(&o, flags);
	}
	if (ev->given && ev->target && strcmp(ev->given, ev->target) != 0) {
		puts_(&o, ", as ");
		putq(&o, ev->given);
	}
	puts_(&o, ") pid ");
	putu(&o, (unsigned long)ev->pid);
	put(&o, " ", 1);
	putt(&o, ev->exe);
	puts_(&o, ": ");
	puts_(&o, reason);
	if (d && d->matched) {
		put(&o, " ", 1);
		putt(&o, d->matched);
	}
	if (d && d->reason == REASON_OUTSIDE_ROOTS) {
		put(&o, " ", 1);
		put_roots(&o, pol, 0);
	}
	if (rule) {
		puts_(&o, " (");
		putt(&o, rule);
		put(&o, ")", 1);
	}
	if (*hint(ev, help, sizeof(help))) {
		puts_(&o, "; to allow: ");
		putt(&o, help);
	}
	puts_(&o, " [");
	puts_(&o, ev->layer);
	put(&o, "]", 1);
	o.cap = size - 1;
	if (o.cut)
		puts_(&o, "...");
	put(&o, "\n", 1);
	return o.len;
}

size_t log_json_string(char *buf, size_t size, const char *s)
{
	struct out o = { buf, 0, size ? size - 1 : 0, 0 };

	if (!size)
		return 0;
	putj(&o, s);
	buf[o.len] = '\0';
	return o.len;
}
