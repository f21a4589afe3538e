/*
 * path.h - path normalisation and resolution, shared by the shim and the
 * launcher.
 *
 * Every function here writes into a caller-supplied buffer of PATH_MAX bytes,
 * allocates nothing, takes no locks and touches no global state, so the shim
 * may call it from any thread, after fork, and from a signal handler as far
 * as the system calls it makes (readlink, getcwd) are async-signal-safe.
 * Results longer than PATH_MAX - 1 are an error (-ENAMETOOLONG), never a
 * truncation. Errors are returned as negative errno values.
 */
#ifndef CORDON_PATH_H
#define CORDON_PATH_H

#include <limits.h>
#include <stddef.h>

/*
 * Lexically normalise the absolute path @in into @out (PATH_MAX bytes):
 * collapse "//", drop ".", apply ".." to the previous component ("/.." is
 * "/"), drop a trailing "/". No system call is made, so symlinks are not
 * followed: "/a/link/.." becomes "/a" whatever "link" points to. Returns the
 * length of @out, -EINVAL if @in is NULL, empty or relative, or -ENAMETOOLONG.
 * @in and @out may not overlap.
 */
int path_normalize(const char *in, char *out);

/*
 * Make @in absolute against @base (itself absolute, normally the working
 * directory or the directory a dirfd names) and normalise it lexically, as
 * path_normalize(). An absolute @in ignores @base. Returns the length of @out
 * or a negative errno.
 */
int path_absolute(const char *base, const char *in, char *out);

/* How path_resolve() treats components that do not exist. */
enum path_missing {
	PATH_MISSING_ERROR,  /* -ENOENT, like realpath(3) */
	PATH_MISSING_ALLOW,  /* resolve the existing prefix, append the rest
	                        lexically (for paths about to be created) */
};

/*
 * Resolve the absolute path @in to a canonical path without symlinks, "."
 * or "..", as the kernel would walk it: ".." after a symlink applies to the
 * symlink's target. At most 40 symlinks are followed (-ELOOP beyond, as in
 * path_resolution(7)). With PATH_MISSING_ALLOW, the first component that does
 * not exist ends the walk and the remainder is normalised lexically. Returns
 * the length of @out or a negative errno (-ENOENT, -ENOTDIR, -ELOOP,
 * -ENAMETOOLONG, -EACCES, ...).
 */
int path_resolve(const char *in, char *out, enum path_missing missing);

/*
 * Is @path (canonical, length @len) equal to or beneath the canonical @root
 * (length @rlen)? Matches at component boundaries only: "/src/proj" does not
 * contain "/src/project"; "/" contains everything.
 */
int path_is_under(const char *path, size_t len, const char *root, size_t rlen);

/* The length of the directory part of the absolute @path: "/a/b" 2, "/a"
 * and "/" 1. */
size_t path_parent_len(const char *path);

#endif /* CORDON_PATH_H */
