/*
 * util.c - die/warn: one line on stderr, prefixed "cordon: "; quoting for
 * messages; the stack mapped ahead of the parser.
 */
#include "util.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include <sys/socket.h>
#include <unistd.h>

static void vreport(const char *fmt, va_list ap, int err)
{
	fputs("cordon: ", stderr);
	vfprintf(stderr, fmt, ap);
	if (err)
		fprintf(stderr, ": %s", strerror(err));
	fputc('\n', stderr);
}

void die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreport(fmt, ap, 0);
	va_end(ap);
	exit(EXIT_CORDON);
}

void die_errno(const char *fmt, ...)
{
	int err = errno;
	va_list ap;

	va_start(ap, fmt);
	vreport(fmt, ap, err);
	va_end(ap);
	exit(EXIT_CORDON);
}

void warn(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreport(fmt, ap, 0);
	va_end(ap);
}

void warn_errno(const char *fmt, ...)
{
	int err = errno;
	va_list ap;

	va_start(ap, fmt);
	vreport(fmt, ap, err);
	va_end(ap);
}

int errf(char *err, size_t size, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, size, fmt, ap);
	va_end(ap);
	return -1;
}

void shell_join(char *const *argv, char *buf, size_t size)
{
	size_t n = 0;

	buf[0] = '\0';
	for (; *argv; argv++) {
		const char *a = *argv;
		bool quote = !*a || a[strspn(a, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
					 "0123456789@%+=:,./-_")] != '\0';
		char word[4 * 256];
		size_t w = 0;
		if (quote)
			word[w++] = '\'';
		for (; *a && w < sizeof(word) - 8; a++) {
			if (*a == '\'') {
				memcpy(word + w, "'\\''", 4);
				w += 4;
			} else {
				word[w++] = *a;
			}
		}
		if (*a) {
			memcpy(word + w, "...", 3);
			w += 3;
		}
		if (quote)
			word[w++] = '\'';
		if (n + (n ? 1 : 0) + w + 4 >= size) {
			snprintf(buf + n, size - n, "%s...", n ? " " : "");
			return;
		}
		if (n)
			buf[n++] = ' ';
		memcpy(buf + n, word, w);
		n += w;
		buf[n] = '\0';
	}
}

int addr_parse(const char *s, size_t n, struct sockaddr_storage *ss, socklen_t *len,
	       unsigned long *port)
{
	char host[INET6_ADDRSTRLEN + 2], digits[8], *end;
	const char *colon = memrchr(s, ':', n), *h = s;

	memset(ss, 0, sizeof(*ss));
	if (!colon || colon == s)
		return -1;
	size_t hl = (size_t)(colon - s), dl = n - hl - 1;
	if (h[0] == '[' && hl >= 2 && h[hl - 1] == ']') {
		h++;
		hl -= 2;
	}
	if (dl == 0 || dl >= sizeof(digits) || colon[1] == '-' || colon[1] == '+')
		return -2;
	memcpy(digits, colon + 1, dl);
	digits[dl] = '\0';
	errno = 0;
	*port = strtoul(digits, &end, 10);
	if (errno || *end || *port > 65535)
		return -2;
	if (hl >= sizeof(host))
		return -3;
	memcpy(host, h, hl);
	host[hl] = '\0';
	struct sockaddr_in *in = (struct sockaddr_in *)ss;
	struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)ss;
	if (inet_pton(AF_INET, host, &in->sin_addr) == 1) {
		in->sin_family = AF_INET;
		in->sin_port = htons((uint16_t)*port);
		*len = sizeof(*in);
	} else if (inet_pton(AF_INET6, host, &in6->sin6_addr) == 1) {
		in6->sin6_family = AF_INET6;
		in6->sin6_port = htons((uint16_t)*port);
		*len = sizeof(*in6);
	} else {
		return -3;
	}
	return 0;
}
