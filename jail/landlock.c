/*
 * landlock.c - the file system, TCP port and scope rules, with Landlock.
 *
 * Reads are not handled (the policy's broad read) unless the policy has
 * read-deny entries, so they cost nothing in the kernel; every write right
 * the running kernel knows is handled and granted beneath the write roots
 * only, plus what terminals and the usual devices need. With read-deny
 * entries (those file permissions do not already close: deny_list_make),
 * reading files is handled and granted everywhere except beneath them
 * (listing directories and executing stay unhandled). The ABI is
 * negotiated best-effort, as the kernel's
 * Documentation/userspace-api/landlock.rst describes: start from every
 * right cordon knows (ABI 7) and remove, ABI by ABI, what this kernel lacks.
 */
#ifdef __linux__

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../shim/path.h"
#include "compat.h"
#include "layers.h"

#define FS_WRITE_ABI1                                                                    \
	(LANDLOCK_ACCESS_FS_WRITE_FILE | LANDLOCK_ACCESS_FS_REMOVE_DIR |                 \
	 LANDLOCK_ACCESS_FS_REMOVE_FILE | LANDLOCK_ACCESS_FS_MAKE_CHAR |                 \
	 LANDLOCK_ACCESS_FS_MAKE_DIR | LANDLOCK_ACCESS_FS_MAKE_REG |                     \
	 LANDLOCK_ACCESS_FS_MAKE_SOCK | LANDLOCK_ACCESS_FS_MAKE_FIFO |                   \
	 LANDLOCK_ACCESS_FS_MAKE_BLOCK | LANDLOCK_ACCESS_FS_MAKE_SYM)

/* The rights that make sense on a file (not a directory) rule. */
#define FS_FILE_RIGHTS                                                                   \
	(LANDLOCK_ACCESS_FS_WRITE_FILE | LANDLOCK_ACCESS_FS_READ_FILE |                  \
	 LANDLOCK_ACCESS_FS_TRUNCATE | LANDLOCK_ACCESS_FS_IOCTL_DEV)

int landlock_abi(char *err, size_t errsize)
{
	long abi = syscall(SYS_landlock_create_ruleset, NULL, 0, LANDLOCK_CREATE_RULESET_VERSION);

	if (abi >= 1)
		return (int)abi;
	if (errno == ENOSYS)
		snprintf(err, errsize, "Landlock is not built into this kernel (CONFIG_SECURITY_LANDLOCK)");
	else if (errno == EOPNOTSUPP)
		snprintf(err, errsize, "Landlock is built in but not enabled: add it to the lsm= boot parameter");
	else
		snprintf(err, errsize, "Landlock: %s", strerror(errno));
	return 0;
}

/*
 * The rules' O_PATH descriptors are close-on-exec and apply() runs just
 * before exec: up to this many are left for the exec to close, which saves
 * a close(2) per rule (a policy denying /etc/shadow makes one rule per
 * entry of /etc); past it, each is closed at once, so that a program's
 * RLIMIT_NOFILE is never in doubt.
 */
#define RULE_FDS_KEPT 256
static unsigned rule_fds_kept;

static void rule_fd_done(int fd)
{
	if (rule_fds_kept < RULE_FDS_KEPT)
		rule_fds_kept++;
	else
		close(fd);
}

/* A rule granting @handled beneath @path (relative to @dirfd); @dtype is
 * its type from a directory listing (DT_DIR, DT_REG...) or DT_UNKNOWN
 * (then fstat tells). */
static int add_path(int ruleset, int dirfd, const char *path, unsigned char dtype,
		    uint64_t handled, bool must_exist, char *err, size_t errsize)
{
	struct cordon_path_beneath_attr pb;
	struct stat st;
	/* A listed entry is never followed: a symlink needs no rule. */
	int fd = openat(dirfd, path, O_PATH | O_CLOEXEC | (dirfd == AT_FDCWD ? 0 : O_NOFOLLOW));

	if (fd < 0) {
		if (!must_exist)
			return 0;
		return jail_fail(err, errsize, "unable to open write root %s", path);
	}
	if (dtype == DT_UNKNOWN) {
		if (fstat(fd, &st) < 0) {
			close(fd);
			return jail_fail(err, errsize, "unable to stat %s", path);
		}
		if (S_ISLNK(st.st_mode)) {
			close(fd);
			return 0;
		}
		dtype = S_ISDIR(st.st_mode) ? DT_DIR : DT_REG;
	}
	pb.allowed_access = dtype == DT_DIR ? handled : handled & FS_FILE_RIGHTS;
	pb.parent_fd = fd;
	if (pb.allowed_access &&
	    syscall(SYS_landlock_add_rule, ruleset, CORDON_RULE_PATH_BENEATH, &pb, 0) < 0) {
		int r = jail_fail(err, errsize, "unable to add a Landlock rule for %s", path);
		close(fd);
		return r;
	}
	rule_fd_done(fd);
	return 0;
}

/*
 * The read-deny entries Landlock must carve out: those the program could
 * read without it. An entry its file permissions already close to cordon's
 * user (the program's: no_new_privs stops setuid and file capabilities
 * from adding any later) is left to them, when that user does not own it
 * (an owner could open it up again): /etc/shadow run as anyone but root.
 * That spares a rule for each other entry of its directory (132 in /etc
 * here, 1.1 ms of start-up), and files put there during the run stay
 * readable.
 */
struct deny_list {
	const char **v;
	size_t n;
};

static bool closed_by_permissions(const char *path)
{
	struct stat st;

	if (fstatat(AT_FDCWD, path, &st, AT_SYMLINK_NOFOLLOW) < 0 || st.st_uid == geteuid() ||
	    S_ISLNK(st.st_mode))
		return false;
	/* Beneath a directory, nothing is reached without search. */
	return faccessat(AT_FDCWD, path, S_ISDIR(st.st_mode) ? X_OK : R_OK, AT_EACCESS) < 0 &&
	       errno == EACCES;
}

static int deny_list_make(const struct policy *pol, struct deny_list *dl)
{
	const struct pathset_entry *e, *tmp;

	dl->n = 0;
	dl->v = pol->n_read_deny ? malloc(pol->n_read_deny * sizeof(*dl->v)) : NULL;
	if (pol->n_read_deny && !dl->v)
		return -ENOMEM;
	HASH_ITER(hh, pol->paths.head, e, tmp) {
		if ((e->kinds & 1u << PATH_READ_DENY) && dl->n < pol->n_read_deny &&
		    !closed_by_permissions(e->path))
			dl->v[dl->n++] = e->path;
	}
	return 0;
}

static bool is_read_deny(const struct deny_list *dl, const char *path)
{
	for (size_t i = 0; i < dl->n; i++)
		if (strcmp(dl->v[i], path) == 0)
			return true;
	return false;
}

/* Is a read-deny entry at or beneath @dir? */
static bool deny_beneath(const struct deny_list *dl, const char *dir)
{
	size_t len = strlen(dir);

	for (size_t i = 0; i < dl->n; i++)
		if (path_is_under(dl->v[i], strlen(dl->v[i]), dir, len))
			return true;
	return false;
}

static int grant_except(int ruleset, const struct deny_list *dl, const char *dir,
			unsigned char dtype, uint64_t rights, char *err, size_t errsize);

/*
 * Reads beneath /dev, where read-deny is in force: its directories of
 * plain files (policy_dev_dirs), and its devices every program uses, which
 * their own rules grant (PATH_DEVICE, with the write rights). No other
 * device: a disk or a swap device holds the bytes of every file read-deny
 * keeps, and a console or an input device what the user types.
 */
static int grant_dev(int ruleset, const struct deny_list *dl, uint64_t rights, char *err,
		     size_t errsize)
{
	int r = 0;

	if (is_read_deny(dl, "/dev"))
		return 0;
	for (size_t i = 0; i < policy_n_dev_dirs && !r; i++)
		r = grant_except(ruleset, dl, policy_dev_dirs[i], DT_UNKNOWN, rights, err, errsize);
	return r;
}

/*
 * Grant @rights beneath @dir except beneath the read-deny entries there.
 * Landlock rules only add, so the exception is made by granting each child
 * of @dir that leads to no read-deny entry, and descending into those that
 * do. A symlink needs no rule: what it points to is covered where it lies.
 * @dtype: as add_path's (the listing's type saves a stat per rule, and a
 * policy denying /etc/shadow makes a rule for every other entry of /etc).
 */
static int grant_except(int ruleset, const struct deny_list *dl, const char *dir,
			unsigned char dtype, uint64_t rights, char *err, size_t errsize)
{
	char child[PATH_MAX];
	struct dirent *de;
	DIR *d;
	int r = 0;

	if (is_read_deny(dl, dir))
		return 0;
	if (!deny_beneath(dl, dir))
		return add_path(ruleset, AT_FDCWD, dir, dtype, rights, false, err, errsize);
	d = opendir(dir);
	if (!d)
		return 0;  /* gone, or not a directory: nothing to grant */
	while ((de = readdir(d)) && !r) {
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0 ||
		    de->d_type == DT_LNK)
			continue;
		int n = snprintf(child, sizeof(child), "%s/%s", strcmp(dir, "/") ? dir : "",
				 de->d_name);
		if (n < 0 || (size_t)n >= sizeof(child))
			continue;
		if (strcmp(child, "/dev") == 0)
			r = grant_dev(ruleset, dl, rights, err, errsize);
		else if (deny_beneath(dl, child))
			r = grant_except(ruleset, dl, child, de->d_type, rights, err, errsize);
		else  /* a leaf of the walk: opened by name in @d */
			r = add_path(ruleset, dirfd(d), de->d_name, de->d_type, rights, false, err,
				     errsize);
	}
	closedir(d);
	return r;
}

/*
 * Landlock cannot deny reads beneath a directory it grants: rules only add
 * rights, and a rule on a directory covers everything created in it later.
 * Granting read on each entry of a write root but the denied one (as for
 * the read-deny entries outside the roots) would leave every file the
 * program creates there later unreadable to it. So such an entry is
 * something this layer does not enforce, said before the run.
 */
size_t landlock_read_deny_in_root(const struct policy *pol, const char **deny, const char **root)
{
	const struct pathset_entry *e, *tmp, *w, *wtmp;
	size_t n = 0;

	HASH_ITER(hh, pol->paths.head, e, tmp) {
		if (!(e->kinds & 1u << PATH_READ_DENY))
			continue;
		HASH_ITER(hh, pol->paths.head, w, wtmp) {
			if (w == e || !(w->kinds & 1u << PATH_WRITE) ||
			    !path_is_under(e->path, e->len, w->path, w->len))
				continue;
			/* Nearest entry wins: a write root between the two
			 * (inside the denied one) opens it again. */
			if (!n++) {
				*deny = e->path;
				*root = w->path;
			}
			break;
		}
	}
	return n;
}

static int add_ports(int ruleset, const struct port_list *l, uint64_t access, char *err,
		     size_t errsize)
{
	for (size_t i = 0; i < l->n; i++) {
		for (unsigned port = l->v[i].lo; port <= l->v[i].hi; port++) {
			struct cordon_net_port_attr np = { access, port };
			if (syscall(SYS_landlock_add_rule, ruleset, CORDON_RULE_NET_PORT, &np, 0) < 0)
				return jail_fail(err, errsize, "unable to add a Landlock rule for port %u",
					    port);
		}
	}
	return 0;
}

int landlock_apply(const struct policy *pol, int abi, bool log_exec, char *err, size_t errsize)
{
	struct cordon_ruleset_attr attr = {
		.handled_access_fs = FS_WRITE_ABI1 | LANDLOCK_ACCESS_FS_REFER |
				     LANDLOCK_ACCESS_FS_TRUNCATE | LANDLOCK_ACCESS_FS_IOCTL_DEV,
		.handled_access_net = LANDLOCK_ACCESS_NET_BIND_TCP | LANDLOCK_ACCESS_NET_CONNECT_TCP,
		.scoped = LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET | LANDLOCK_SCOPE_SIGNAL,
	};
	size_t attr_size = sizeof(attr);
	const struct pathset_entry *e, *tmp;
	struct deny_list deny;
	int ruleset, r = 0;

	/* Remove what this kernel does not know, newest first. */
	switch (abi) {
	case 1:
		/* ABI 1: no REFER: renames across directories fail EXDEV. */
		attr.handled_access_fs &= ~LANDLOCK_ACCESS_FS_REFER;
		/* fallthrough */
	case 2:
		/* ABI 2: no TRUNCATE: truncate(2) and O_TRUNC unchecked. */
		attr.handled_access_fs &= ~LANDLOCK_ACCESS_FS_TRUNCATE;
		/* fallthrough */
	case 3:
		/* ABI 3: no TCP port rules; the attribute ends at the fs field. */
		attr.handled_access_net = 0;
		attr_size = offsetof(struct cordon_ruleset_attr, handled_access_net);
		/* fallthrough */
	case 4:
		/* ABI 4: no IOCTL_DEV: device ioctls unchecked. */
		attr.handled_access_fs &= ~LANDLOCK_ACCESS_FS_IOCTL_DEV;
		/* fallthrough */
	case 5:
		/* ABI 5: no scopes: abstract sockets and signals unchecked. */
		attr.scoped = 0;
		if (attr_size > offsetof(struct cordon_ruleset_attr, scoped))
			attr_size = offsetof(struct cordon_ruleset_attr, scoped);
		/* fallthrough */
	case 6:
		/* ABI 6: no logging flags (ABI 7), which log_exec needs. By
		 * default the program's denials after exec are not logged. */
		log_exec = false;
		break;
	default:
		break;
	}
	/* Only "none" restricts TCP ports: "isolated" has its own namespace,
	 * "all" reaches everything. Abstract sockets belong to the network
	 * namespace, so only "all" lets them reach outside the sandbox. */
	if (pol->net.value != NET_NONE)
		attr.handled_access_net = 0;
	if (pol->net.value == NET_ALL)
		attr.scoped &= ~LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET;

	if (deny_list_make(pol, &deny) < 0)
		return jail_fail(err, errsize, "unable to list the read-deny entries");
	if (deny.n)
		attr.handled_access_fs |= LANDLOCK_ACCESS_FS_READ_FILE;
	ruleset = (int)syscall(SYS_landlock_create_ruleset, &attr, attr_size, 0);
	if (ruleset < 0) {
		r = jail_fail(err, errsize, "unable to create a Landlock ruleset (ABI %d)", abi);
		free(deny.v);
		return r;
	}

	/* read-deny: reads are handled, and granted everywhere but there. */
	if (deny.n) {
		r = grant_except(ruleset, &deny, "/", DT_DIR, LANDLOCK_ACCESS_FS_READ_FILE, err,
				 errsize);
		if (r)
			goto out;
	}
	/* Write implies read. A read-deny entry beneath a write root is left
	 * to the shim: a run gets here with one only when on-unsupported
	 * allowed it (landlock_read_deny_in_root). */
	HASH_ITER(hh, pol->paths.head, e, tmp) {
		if (!(e->kinds & 1u << PATH_WRITE))
			continue;
		r = add_path(ruleset, AT_FDCWD, e->path, DT_UNKNOWN, attr.handled_access_fs, true, err,
			     errsize);
		if (r)
			goto out;
	}
	/* Devices (policy_add_devices): written, truncated (">/dev/null"
	 * opens O_TRUNC), ioctl'd; never created or removed. */
	HASH_ITER(hh, pol->paths.head, e, tmp) {
		if (!(e->kinds & 1u << PATH_DEVICE))
			continue;
		r = add_path(ruleset, AT_FDCWD, e->path, DT_UNKNOWN,
			     attr.handled_access_fs & FS_FILE_RIGHTS, false, err, errsize);
		if (r)
			goto out;
	}
	if (attr.handled_access_net) {
		r = add_ports(ruleset, &pol->net_connect, LANDLOCK_ACCESS_NET_CONNECT_TCP, err,
			      errsize);
		if (!r)
			r = add_ports(ruleset, &pol->net_bind, LANDLOCK_ACCESS_NET_BIND_TCP, err,
				      errsize);
		if (r)
			goto out;
	}
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0) {
		r = jail_fail(err, errsize, "unable to set no_new_privs");
		goto out;
	}
	/* Logged: the program's refusals, and the one of cordon's self-test
	 * between here and exec, which tells the reader that the kernel
	 * keeps its log (kaudit.c) before the program has done anything. */
	if (syscall(SYS_landlock_restrict_self, ruleset,
		    log_exec ? LANDLOCK_RESTRICT_SELF_LOG_NEW_EXEC_ON : 0) < 0)
		r = jail_fail(err, errsize, "unable to enforce the Landlock ruleset");
out:
	free(deny.v);
	close(ruleset);
	return r;
}

#endif /* __linux__ */
