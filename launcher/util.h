/*
 * util.h - the launcher's error vocabulary and exit codes.
 *
 * Library code returns 0 or -errno; only the launcher's command functions
 * call die(). Messages read "cordon: unable to <verb> <object>: <reason>".
 */
#ifndef CORDON_UTIL_H
#define CORDON_UTIL_H

#include <stddef.h>
#include <sys/socket.h>

/* Exit codes (docs/cordon.1, "EXIT STATUS"). */
enum {
	EXIT_TIMEOUT = 124,      /* the timeout ended the program */
	EXIT_CORDON = 125,       /* cordon could not run the program */
	EXIT_NOEXEC = 126,       /* the program is not executable */
	EXIT_NOTFOUND = 127,     /* the program was not found */
};

__attribute__((noreturn, format(printf, 1, 2))) void die(const char *fmt, ...);
__attribute__((noreturn, format(printf, 1, 2))) void die_errno(const char *fmt, ...);
__attribute__((format(printf, 1, 2))) void warn(const char *fmt, ...);
__attribute__((format(printf, 1, 2))) void warn_errno(const char *fmt, ...);

/* Write a one-line reason into @err (for functions that return errors to
 * their caller rather than die); returns -1. */
__attribute__((format(printf, 3, 4))) int errf(char *err, size_t size, const char *fmt, ...);

/* "HOST:PORT" or "[IPV6]:PORT", the first @n bytes of @s, numeric (no
 * lookup), into @ss, its length and @port. Returns 0, or -1 when it is
 * not of that form, -2 for a port not from 0 to 65535, -3 for a host
 * that is no numeric address. */
int addr_parse(const char *s, size_t n, struct sockaddr_storage *ss, socklen_t *len,
	       unsigned long *port);

/* @argv as a shell would take it back ('quoted' where needed), cut with
 * "..." to fit @size. */
void shell_join(char *const *argv, char *buf, size_t size);

#endif /* CORDON_UTIL_H */
