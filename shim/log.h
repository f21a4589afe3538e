/*
 * log.h - one function that formats every decision cordon reports.
 *
 * Pure formatting into a caller's fixed buffer: no allocation, no stdio, no
 * locale, nothing but stores into @buf, so the shim can call it from any
 * thread and inside a signal handler, and the launcher can use it for the
 * kernel layer's events. Lines longer than the buffer are cut and end in
 * "...\n" (text) or stay valid JSON with "truncated":true.
 */
#ifndef CORDON_LOG_H
#define CORDON_LOG_H

#include <stddef.h>
#include <sys/socket.h>
#include <sys/types.h>

#include "policy.h"

#define LOG_FORMAT_VERSION 1
#define LOG_LINE_MAX 4096

enum log_flags_kind { LOGF_NONE, LOGF_OPEN, LOGF_AT, LOGF_RENAME };

struct log_event {
	const char *verdict;          /* "deny", "warn" (refused, allowed by mode warn), "allow" */
	const char *op;               /* create, write, delete, ..., connect, spawn */
	const char *call;             /* the libc function */
	int flags;
	enum log_flags_kind flags_kind;
	const char *given;            /* the path as the program gave it, or NULL */
	const char *target;           /* resolved path or address */
	const struct decision *d;     /* NULL: @reason instead */
	const char *reason;           /* when there is no decision (broken policy) */
	pid_t pid;
	const char *exe;
	const char *layer;            /* "shim" or "kernel" */
	int mode;                     /* enum run_mode */
};

/* The format to write in, for @format as the policy says it and the log
 * descriptor @fd: LOG_AUTO becomes LOG_TERM on a terminal (NO_COLOR unset
 * or empty: @no_color), else LOG_TEXT. */
int log_format_for(int format, int fd, bool no_color);

/* Format @ev as one line (with its '\n') into @buf of @size bytes, in
 * @format (enum log_format). Returns the length written. */
size_t log_format_event(char *buf, size_t size, const struct log_event *ev,
			const struct policy *pol, int format);

/* The policy line that would allow a call @op on @target that was refused
 * for @reason ("write /tmp", "unix-socket /run/x.sock"), or "" if no simple
 * line would. Returns its length. */
size_t log_hint(char *buf, size_t size, const char *op, const char *target, enum reason reason);

/* @s as a JSON string (quoted, escaped; "null" for NULL) into @buf. */
size_t log_json_string(char *buf, size_t size, const char *s);

/* A socket address as text: "1.2.3.4:443/tcp" (@type SOCK_STREAM),
 * "[::1]:53/udp" (SOCK_DGRAM), "unix:@name" (abstract), "unix:/run/x.sock"
 * (a pathname, as given). Returns the length written. */
size_t log_format_addr(char *buf, size_t size, const struct sockaddr *sa, socklen_t len, int type);

/* Flags as text: "O_WRONLY|O_CREAT", "AT_REMOVEDIR", "RENAME_EXCHANGE". */
size_t log_format_flags(char *buf, size_t size, enum log_flags_kind kind, int flags);

#endif /* CORDON_LOG_H */
