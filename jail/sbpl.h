/*
 * sbpl.h - the Seatbelt profile (SBPL, the Scheme dialect of macOS's
 * sandbox) that enforces a compiled policy.
 *
 * Pure: it reads the policy and, through @is_dir, whether each write root
 * is a directory, and writes text. It is built on every platform, so
 * `cordon seatbelt` prints the profile a macOS run would apply anywhere,
 * and the suites test it on Linux.
 */
#ifndef CORDON_SBPL_H
#define CORDON_SBPL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "../shim/policy.h"

/* Whether @path names a directory (a root covering what lies beneath, a
 * subpath) rather than a file (a literal); a path that cannot be examined
 * counts as a directory. */
typedef bool sbpl_is_dir_fn(const char *path);

/* The one a run uses: stat(2) says. */
bool sbpl_stat_is_dir(const char *path);

/* The port rules one profile may spell out (Seatbelt has no port ranges):
 * a larger set of ports is refused rather than cut short. */
#define SBPL_MAX_PORTS 1024

/*
 * Write the profile for @pol to @out. Returns 0, or -EINVAL with the
 * reason in @err when the policy asks for what a profile cannot say
 * (more than SBPL_MAX_PORTS ports), or -EIO when writing failed.
 */
int sbpl_profile(const struct policy *pol, sbpl_is_dir_fn *is_dir, FILE *out, char *err,
		 size_t errsize);

/* @path as Seatbelt sees it: /tmp, /var and /etc are links into /private
 * on macOS, and the sandbox matches the resolved path. Writes into @buf
 * (PATH_MAX + 8 bytes) and returns it. */
const char *sbpl_resolved(const char *path, char *buf, size_t size);

/* @s as an SBPL string literal, quotes included: '"' and '\' escaped,
 * control characters as \n, \t, \r or \xHH; other bytes (UTF-8) as they
 * are. Nothing in @s can end the string early. */
void sbpl_put_string(FILE *out, const char *s);

#endif /* CORDON_SBPL_H */
