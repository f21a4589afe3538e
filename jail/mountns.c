/*
 * mountns.c - write-deny entries inside the write roots, made read-only
 * mounts in a mount namespace of the program's own.
 *
 * Landlock only adds rights, and a right on a directory covers its whole
 * subtree: granting the workspace while keeping its .git/hooks would take
 * .git itself from the grant, and with it git's index.lock. A read-only
 * bind mount has no such reach: the entry is cloned onto itself with
 * MOUNT_ATTR_RDONLY, and every write beneath it fails with EROFS whatever
 * Landlock grants around it, while .git beside it stays writable. A write
 * root given back inside a denied entry is cloned, as the host has it, back
 * on top. And each directory above a denied entry that could be moved (its
 * own directory is writable: .git in the workspace) is cloned onto itself,
 * a mount point that neither rename nor rmdir can take away (EBUSY): a
 * program that moved .git aside could otherwise make a new .git/hooks in
 * its place, out of the read-only mount's reach. The program cannot undo
 * any of it: CAP_SYS_ADMIN is dropped, seccomp refuses mount(2) and
 * umount2(2), and Landlock forbids changing the mount topology of a
 * restricted process.
 *
 * Every mount is made through descriptors (open_tree, mount_setattr,
 * move_mount; Linux 5.12), each target opened without following a symlink
 * (RESOLVE_NO_SYMLINKS), so a path swapped for a link cannot move a mount
 * elsewhere; "/" is made a slave first, so that nothing mounted here
 * propagates back to the host.
 */
#ifdef __linux__

#include <errno.h>
#include <fcntl.h>
#include <linux/mount.h>
#include <linux/openat2.h>
#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/capability.h>

#include "../shim/path.h"
#include "layers.h"

#ifndef AT_RECURSIVE
#define AT_RECURSIVE 0x8000
#endif
#ifndef MOVE_MOUNT_T_EMPTY_PATH
#define MOVE_MOUNT_T_EMPTY_PATH 0x00000040
#endif

/* Does the policy decide that @path cannot be written? */
static bool denied_path(const struct policy *pol, const char *path, size_t len)
{
	struct decision d;

	policy_decide_path(pol, OP_WRITE, path, len, &d);
	return !d.allow;
}

static bool denied(const struct policy *pol, const struct pathset_entry *e)
{
	return denied_path(pol, e->path, e->len);
}

/* An entry this layer mounts: a write-deny entry, or a write root inside
 * one, where Landlock lets writes through (some write root at or above
 * it). Outside every root Landlock refuses writes already. */
static bool candidate(const struct policy *pol, const struct pathset_entry *e)
{
	if (!(e->kinds & (1u << PATH_WRITE | 1u << PATH_WRITE_DENY)))
		return false;
	return pathset_nearest(&pol->paths, e->path, e->len, 1u << PATH_WRITE_DENY) &&
	       pathset_nearest(&pol->paths, e->path, e->len, 1u << PATH_WRITE);
}

bool mountns_possible(bool own_userns)
{
	struct __user_cap_header_struct hdr = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct data[2];

	if (own_userns)
		return true;  /* netns_apply() makes one first: all capabilities there */
	/* A seccomp filter (a container's, an outer cordon's) may refuse
	 * unshare and mount: the layer is then said to be missing rather
	 * than tried and failed. */
	if (prctl(PR_GET_SECCOMP, 0, 0, 0, 0) != 0)
		return false;
	if (syscall(SYS_capget, &hdr, data) < 0)
		return false;
	return (data[CAP_TO_INDEX(CAP_SYS_ADMIN)].effective & CAP_TO_MASK(CAP_SYS_ADMIN)) != 0;
}

struct mnt {
	const struct pathset_entry *e;
	bool ro;                      /* what the policy wants there */
	int src;                      /* O_PATH, as the host has it */
};

static int by_length(const void *a, const void *b)
{
	const struct mnt *x = a, *y = b;

	return x->e->len < y->e->len ? -1 : x->e->len > y->e->len;
}


static int open_nofollow(const char *path)
{
	struct open_how how = { .flags = O_PATH | O_CLOEXEC, .resolve = RESOLVE_NO_SYMLINKS };

	return (int)syscall(SYS_openat2, AT_FDCWD, path, &how, sizeof(how));
}

/* Clone the mount tree at @path, as it now is, onto @path itself: a mount
 * point, which rename(2) and rmdir(2) refuse to move (EBUSY). */
static int pin(const char *path, char *err, size_t errsize)
{
	int src = open_nofollow(path), tree = -1, r = 0;

	if (src < 0)
		return jail_fail(err, errsize, "write-deny: unable to open %s: %s", path,
				 strerror(errno));
	tree = (int)syscall(SYS_open_tree, src, "",
			    OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | AT_EMPTY_PATH | AT_RECURSIVE);
	if (tree < 0 || syscall(SYS_move_mount, tree, "", src, "",
				MOVE_MOUNT_F_EMPTY_PATH | MOVE_MOUNT_T_EMPTY_PATH) < 0)
		r = jail_fail(err, errsize, "write-deny: unable to keep %s in place: %s", path,
			      strerror(errno));
	if (tree >= 0)
		close(tree);
	close(src);
	return r;
}

/* The directories above @e that could be moved (each one's own directory
 * is writable), added to @pins (deduplicated, @n of them, room for @cap).
 * Returns 0 or -ENOMEM. */
static int movable_above(const struct policy *pol, const struct pathset_entry *e, char **pins,
			 size_t *n, size_t cap)
{
	char dir[PATH_MAX];
	size_t len = e->len;

	memcpy(dir, e->path, len + 1);
	for (;;) {
		while (len > 1 && dir[len - 1] != '/')
			len--;
		if (len <= 1)
			return 0;            /* the parent is "/" */
		dir[--len] = '\0';          /* dir: the directory above */
		size_t plen = len;
		while (plen > 1 && dir[plen - 1] != '/')
			plen--;
		if (denied_path(pol, dir, plen > 1 ? plen - 1 : 1))
			return 0;            /* its directory is not writable: it stays */
		size_t i = 0;
		while (i < *n && strcmp(pins[i], dir) != 0)
			i++;
		if (i < *n)
			continue;
		if (*n == cap || !(pins[*n] = strdup(dir)))
			return -ENOMEM;
		(*n)++;
	}
}

static int by_string_length(const void *a, const void *b)
{
	size_t x = strlen(*(char *const *)a), y = strlen(*(char *const *)b);

	return x < y ? -1 : x > y;
}

/* Clone what @m->src is (and every mount beneath it) onto its path as it
 * now resolves, read-only when @m->ro. */
static int mount_one(const struct mnt *m, char *err, size_t errsize)
{
	struct mount_attr ro = { .attr_set = MOUNT_ATTR_RDONLY };
	int tree, dst, r = 0;

	tree = (int)syscall(SYS_open_tree, m->src, "",
			    OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | AT_EMPTY_PATH | AT_RECURSIVE);
	if (tree < 0)
		return jail_fail(err, errsize, "write-deny: unable to clone the mount of %s: %s",
				 m->e->path, strerror(errno));
	if (m->ro && syscall(SYS_mount_setattr, tree, "", AT_EMPTY_PATH | AT_RECURSIVE, &ro,
			     sizeof(ro)) < 0) {
		r = jail_fail(err, errsize, "write-deny: unable to make %s read-only: %s",
			      m->e->path, strerror(errno));
		goto out;
	}
	dst = open_nofollow(m->e->path);
	if (dst < 0) {
		r = jail_fail(err, errsize, "write-deny: unable to open %s to mount on it: %s",
			      m->e->path, strerror(errno));
		goto out;
	}
	if (syscall(SYS_move_mount, tree, "", dst, "",
		    MOVE_MOUNT_F_EMPTY_PATH | MOVE_MOUNT_T_EMPTY_PATH) < 0)
		r = jail_fail(err, errsize, "write-deny: unable to mount %s %s: %s", m->e->path,
			      m->ro ? "read-only" : "writable again", strerror(errno));
	close(dst);
out:
	close(tree);
	return r;
}

int mountns_apply(const struct policy *pol, char *err, size_t errsize)
{
	size_t n = 0, cap = 0, denies = 0, npins = 0;
	struct mnt *v = NULL;
	char **pins = NULL;
	int r = 0;

	for (const struct pathset_entry *e = pol->paths.head; e; e = e->hh.next)
		if (candidate(pol, e)) {
			cap++;
			denies += (e->kinds & 1u << PATH_WRITE_DENY) != 0;
		}
	if (!denies)
		return 0;  /* roots only: nothing to mount, no namespace */
	/* The child of a vfork-like clone: allocating is safe here (the
	 * parent is suspended and single-threaded), and exec frees it. */
	v = calloc(cap, sizeof(*v));
	if (!v)
		return jail_fail(err, errsize, "write-deny: out of memory");
	for (const struct pathset_entry *e = pol->paths.head; e; e = e->hh.next)
		if (candidate(pol, e))
			v[n++] = (struct mnt){ e, denied(pol, e), -1 };
	qsort(v, n, sizeof(*v), by_length);  /* every entry after those above it */

	if (unshare(CLONE_NEWNS) < 0) {
		r = jail_fail(err, errsize, "write-deny: unable to create a mount namespace: %s",
			      strerror(errno));
		goto out;
	}
	if (mount(NULL, "/", NULL, MS_REC | MS_SLAVE, NULL) < 0) {
		r = jail_fail(err, errsize, "write-deny: unable to keep the mounts from the host: %s",
			      strerror(errno));
		goto out;
	}
	/* Each entry as the host has it, before anything is mounted over
	 * its parents; a missing one is left to the shim (ENOTDIR: beneath
	 * a file, as .git/hooks in a linked worktree, whose .git is one). */
	for (size_t i = 0; i < n; i++) {
		v[i].src = open_nofollow(v[i].e->path);
		if (v[i].src < 0 && errno != ENOENT && errno != ENOTDIR) {
			r = jail_fail(err, errsize, "write-deny: unable to open %s: %s", v[i].e->path,
				      strerror(errno));
			goto out;
		}
	}
	/* The directories above each denied entry that exists, pinned before
	 * the entries are mounted, the outermost first. A path has at most
	 * PATH_MAX / 2 directories. */
	size_t pincap = 0;
	for (size_t i = 0; i < n; i++)
		pincap += v[i].ro && v[i].src >= 0 ? PATH_MAX / 2 : 0;
	pins = pincap ? calloc(pincap, sizeof(*pins)) : NULL;
	if (pincap && !pins) {
		r = jail_fail(err, errsize, "write-deny: out of memory");
		goto out;
	}
	for (size_t i = 0; i < n; i++)
		if (v[i].ro && v[i].src >= 0 && movable_above(pol, v[i].e, pins, &npins, pincap) < 0) {
			r = jail_fail(err, errsize, "write-deny: out of memory");
			goto out;
		}
	if (npins)
		qsort(pins, npins, sizeof(*pins), by_string_length);
	for (size_t i = 0; i < npins; i++)
		if ((r = pin(pins[i], err, errsize)))
			goto out;
	for (size_t i = 0; i < n; i++) {
		/* What is there now: the nearest entry mounted above it, or
		 * the host's (writable, as far as this layer goes). */
		bool now_ro = false;
		for (size_t j = i; j-- > 0;)
			if (v[j].src >= 0 && path_is_under(v[i].e->path, v[i].e->len, v[j].e->path,
							   v[j].e->len)) {
				now_ro = v[j].ro;
				break;
			}
		if (v[i].src < 0 || v[i].ro == now_ro)
			continue;
		if ((r = mount_one(&v[i], err, errsize)))
			goto out;
	}
out:
	for (size_t i = 0; i < n; i++)
		if (v[i].src >= 0)
			close(v[i].src);
	for (size_t i = 0; pins && i < npins; i++)
		free(pins[i]);
	free(pins);
	free(v);
	return r;
}

#endif /* __linux__ */
