/*
 * policy.h - the compiled policy and the one decision function, shared by
 * the shim (which enforces it) and the launcher (which builds it from the
 * policy language and explains it).
 *
 * A struct policy is built once and then only read: every decision function
 * here is pure (no system call, no allocation, no global state), so the shim
 * can call it from any thread and the tests can drive it as a table of
 * "policy op path -> allow|deny rule" rows. Paths handed to it are canonical
 * (see path.h); resolving them is the caller's job.
 */
#ifndef CORDON_POLICY_H
#define CORDON_POLICY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#include "pathset.h"

/* Where a setting came from: one directive of one policy file, or the
 * command line (file "<command line>", line 0). */
struct rule {
	struct rule *next;           /* the policy's list of all its rules */
	const char *file;
	unsigned line;
	char text[];                 /* the directive as written */
};

enum op {
	OP_READ,                     /* open for reading, exec, stat-like */
	OP_WRITE,                    /* create, modify, delete, rename, metadata */
	OP_WRITE_DATA,               /* open an existing file for writing, truncate */
	OP_CONNECT,                  /* connect(2) / sendto(2) to an address */
	OP_BIND,                     /* bind(2) */
	OP_REMOVE,                   /* delete, or either end of a rename: OP_WRITE, and
	                                no write-deny entry may lie beneath (moving
	                                .git aside would leave a .git/hooks to make) */
	OP__COUNT
};

enum net_mode { NET_NONE, NET_ISOLATED, NET_ALL };
enum run_mode { MODE_ENFORCE, MODE_WARN, MODE_OFF };
enum log_level { LOG_DENY, LOG_ALL, LOG_OFF };
/* LOG_AUTO: LOG_TERM when the log goes to a terminal, else LOG_TEXT
 * (log_format_for); LOG_TERM is LOG_SHORT in colour, never written. */
enum log_format { LOG_TEXT, LOG_JSON, LOG_SHORT, LOG_AUTO, LOG_TERM };
enum backend { BACKEND_AUTO, BACKEND_LANDLOCK, BACKEND_SEATBELT, BACKEND_NOOP };
enum on_unsupported { UNSUPPORTED_ERROR, UNSUPPORTED_WARN, UNSUPPORTED_IGNORE };
enum env_mode { ENV_INHERIT, ENV_CLEAN };

/* Kinds of path set members. */
enum path_kind {
	PATH_WRITE,                  /* write root: create/modify/delete beneath */
	PATH_READ_DENY,              /* neither read nor written beneath */
	PATH_SOCKET,                 /* unix socket the program may connect to */
	PATH_DEVICE,                 /* device the program may open for writing
	                                and ioctl, but not create or remove */
	PATH_WRITE_DENY,             /* read, never written, even in a root */
};

/* A scalar setting and the directive that set it last (NULL: built-in). */
struct setting {
	int value;
	const struct rule *rule;
};

/* TCP ports lo..hi (a single port has lo == hi); the first range that
 * holds a port decides. Ranges keep "net-connect 1-65535" one entry. */
/* Where a log goes: an absolute path, "fd:N", or NULL (the default). */
struct dest {
	char *value;
	const struct rule *rule;
};

struct port_rule {
	uint16_t lo, hi;
	const struct rule *rule;
};

struct port_list {
	struct port_rule *v;
	size_t n;
};

struct strlist {
	char **v;
	const struct rule **rules;
	size_t n;
};

struct policy {
	struct pathset paths;         /* write roots, read-deny, sockets */
	size_t n_write, n_read_deny, n_socket, n_write_deny;
	/* The write-deny entries of paths (each spelling), for the walk of
	 * policy_decide_path(OP_REMOVE); n_write_deny_entries of them. */
	const struct pathset_entry **write_deny_entries;
	size_t n_write_deny_entries;
	struct strlist skipped;       /* optional roots that did not exist */
	struct strlist write_deny_patterns; /* as glob(3) took them (the values of
	                                 ~ and ${NAME} escaped), for git-worktree */
	struct setting net;           /* enum net_mode */
	struct port_list net_connect; /* TCP ports connect may reach */
	struct port_list net_bind;    /* TCP ports bind may take */
	struct setting subprocess;    /* bool */
	struct setting private_tmp;   /* bool */
	struct setting private_ipc;   /* bool: an IPC namespace of its own */
	struct setting git_worktree;  /* bool: a linked worktree's git dirs */
	struct setting userns;        /* bool: new namespaces (nested sandboxes) */
	struct setting env;           /* enum env_mode */
	struct strlist env_pass;      /* fnmatch(3) patterns */
	struct strlist env_deny;      /* fnmatch(3) patterns */
	struct strlist expand;        /* variables allowed in ${...} */
	struct setting timeout;       /* seconds; 0 = none */
	struct setting backend;       /* enum backend */
	struct setting on_unsupported;/* enum on_unsupported */
	struct setting shim;          /* bool: cordon run preloads libcordon.so */
	struct setting mode;          /* enum run_mode */
	struct setting log;           /* enum log_level */
	struct setting log_format;    /* enum log_format */
	struct setting log_summary;   /* bool: counts of refusals at exit */
	struct dest log_file;         /* the deny log */
	struct dest audit_file;       /* cordon run's events; NULL: none */
	struct dest summary_file;     /* cordon run's summary as JSON; NULL: none */
	struct rule *rules;           /* owned; every rule above points here */
	char **files;                 /* owned names of the files read */
	size_t n_files;
};

/* Why a decision came out as it did. */
enum reason {
	REASON_WRITE_ROOT,            /* allow: beneath a write root */
	REASON_OUTSIDE_ROOTS,         /* deny: beneath no write root */
	REASON_READ_DENY,             /* deny: beneath a read-deny entry */
	REASON_READ_DEFAULT,          /* allow: reads are allowed by default */
	REASON_SOCKET,                /* allow: a listed unix socket */
	REASON_NET_ALL,               /* allow: net all */
	REASON_NET_NONE,              /* deny: net none, port not listed */
	REASON_NET_PORT,              /* allow: port listed */
	REASON_NET_LOOPBACK,          /* allow: net isolated, own loopback */
	REASON_NET_NOT_LOOPBACK,      /* deny: net isolated, not loopback */
	REASON_NET_UDP,               /* deny: net none refuses UDP */
	REASON_NET_FAMILY,            /* deny: address family refused */
	REASON_NET_LOCAL,             /* allow: AF_UNSPEC / AF_NETLINK */
	REASON_SUBPROCESS,            /* deny: subprocess no */
	REASON_POLICY_UNREADABLE,     /* deny: the shim could not read its policy */
	REASON_DEVICE,                /* allow: a device every program may write */
	REASON_DEVICE_ENTRY,          /* deny: creating or removing a device entry */
	REASON_WRITE_DENY,            /* deny: beneath a write-deny entry */
	REASON_NET_ABSTRACT,          /* deny: net none, an abstract unix socket */
	REASON_KERNEL_LAYER,          /* deny: the kernel layer refused what the shim allowed */
	REASON_NET_ANY_PORT,          /* deny: net none, a bind to port 0 (one at random) */
	REASON_HOLDS_WRITE_DENY,      /* deny: removing or renaming a directory that holds
	                                 a write-deny entry */
	REASON_DEVICE_READ,           /* deny: read-deny in force, a device beyond the
	                                 common ones (a disk holds every file) */
};

struct decision {
	bool allow;
	enum reason reason;
	const struct rule *rule;      /* the directive that decided, or NULL */
	const char *matched;          /* the path entry or NULL */
};

void policy_init(struct policy *p);

/* Add the devices every program may write (/dev/null, /dev/tty, /dev/pts,
 * ...) and the terminals on descriptors 0-2, as PATH_DEVICE entries. Both
 * layers call it, so the shim allows what the kernel layer allows. */
int policy_add_devices(struct policy *p);
void policy_free(struct policy *p);

/*
 * The directories of /dev whose files are files, not devices (POSIX shared
 * memory, message queues, huge pages): read like any other, where a policy
 * with read-deny entries reads no other entry of /dev but its devices
 * (policy_add_devices). A disk or a swap device holds the bytes of every
 * file read-deny keeps; consoles and input devices, what the user types.
 */
extern const char *const policy_dev_dirs[];
extern const size_t policy_n_dev_dirs;

/* Remember @e, an entry of p->paths with PATH_WRITE_DENY among its kinds
 * (once: a second note is a no-op). 0 or -ENOMEM. */
int policy_note_write_deny(struct policy *p, const struct pathset_entry *e);

/* Decide @op on the canonical @path (length @len). For OP_CONNECT and
 * OP_BIND the path is a unix socket's. A read refused as REASON_DEVICE_READ
 * is the caller's to allow when @path is a directory (a listing, which the
 * kernel layer does not decide either). */
void policy_decide_path(const struct policy *p, enum op op, const char *path, size_t len,
			struct decision *d);

/* Decide @op (OP_CONNECT, OP_BIND) of a socket of @socktype (SOCK_STREAM,
 * SOCK_DGRAM, ...) on the address @sa. An AF_UNIX pathname address is not
 * decided here: resolve it and call policy_decide_path(). */
void policy_decide_net(const struct policy *p, enum op op, int socktype,
		       const struct sockaddr *sa, socklen_t salen, struct decision *d);

/* Whether listen(2) on a socket of @socktype bound to @sa (its name, as
 * getsockname gives it) is a bind the policy decides (policy_decide_net,
 * OP_BIND): a TCP socket bound to no port, which listen binds to one at
 * random, or a unix socket bound to an abstract name. */
bool policy_listen_binds(const struct sockaddr *sa, socklen_t salen, int socktype);

/* Whether @path lies beneath /proc or /sys: the kernel's own interfaces
 * (a process's oom_score_adj, the sysctls of /proc/sys), never a write
 * root to suggest: one there opens all of them. */
bool policy_kernel_path(const char *path);

const char *op_name(enum op op);
const char *reason_text(enum reason r);

/* Name tables for the enums above, NULL-terminated, indexed by value. */
extern const char *const net_mode_names[];
extern const char *const run_mode_names[];
extern const char *const log_level_names[];
extern const char *const log_format_names[];
extern const char *const backend_names[];
extern const char *const on_unsupported_names[];
extern const char *const env_mode_names[];
extern const char *const bool_names[];

#endif /* CORDON_POLICY_H */
