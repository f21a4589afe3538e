/*
 * util.c - die/warn: one line on stderr, prefixed "cordon: "; quoting for
 * messages.
 */
#include "util.h"

#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
