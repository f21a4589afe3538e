/*
 * policy.c - the decision function: given a compiled policy and one
 * operation, allow or deny and name the directive that decided.
 *
 * Paths: the nearest member of the path set decides, deepest first, so a
 * read-deny entry inside a write root wins over the root and a write root
 * inside a read-deny entry wins over the entry. Write implies read.
 *
 * Network: "all" allows everything; "isolated" allows what stays on the
 * program's own loopback (its private network namespace has nothing else);
 * "none" allows only TCP to the listed ports. AF_UNIX pathname sockets are
 * paths, decided by policy_decide_path(): a listed socket or one beneath a
 * write root. Abstract unix sockets belong to the network namespace and so
 * follow the network mode.
 */
#include "policy.h"

#include <netinet/in.h>
#include <stddef.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/un.h>
#include <unistd.h>

const char *const net_mode_names[] = { "none", "isolated", "all", NULL };
const char *const run_mode_names[] = { "enforce", "warn", "off", NULL };
const char *const log_level_names[] = { "deny", "all", "off", NULL };
const char *const log_format_names[] = { "text", "json", "short", "auto", NULL };
const char *const backend_names[] = { "auto", "landlock", "seatbelt", "noop", NULL };
const char *const on_unsupported_names[] = { "error", "warn", "ignore", NULL };
const char *const env_mode_names[] = { "inherit", "clean", NULL };
const char *const bool_names[] = { "no", "yes", NULL };

void policy_init(struct policy *p)
{
	memset(p, 0, sizeof(*p));
	p->net.value = NET_NONE;
	p->subprocess.value = 1;
	p->private_tmp.value = 0;
	p->private_ipc.value = 1;
	p->env.value = ENV_INHERIT;
	p->backend.value = BACKEND_AUTO;
	p->on_unsupported.value = UNSUPPORTED_ERROR;
	p->shim.value = 1;
	p->mode.value = MODE_ENFORCE;
	p->log.value = LOG_DENY;
	p->log_format.value = LOG_TEXT;
}

static void strlist_free(struct strlist *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->v[i]);
	free(l->v);
	free(l->rules);
	memset(l, 0, sizeof(*l));
}

void policy_free(struct policy *p)
{
	struct rule *r, *next;

	pathset_free(&p->paths);
	free(p->write_deny_entries);
	strlist_free(&p->skipped);
	strlist_free(&p->write_deny_patterns);
	strlist_free(&p->env_pass);
	strlist_free(&p->env_deny);
	strlist_free(&p->expand);
	free(p->net_connect.v);
	free(p->net_bind.v);
	free(p->log_file.value);
	free(p->audit_file.value);
	free(p->summary_file.value);
	for (r = p->rules; r; r = next) {
		next = r->next;
		free(r);
	}
	for (size_t i = 0; i < p->n_files; i++)
		free(p->files[i]);
	free(p->files);
	memset(p, 0, sizeof(*p));
}

static void decide(struct decision *d, bool allow, enum reason reason, const struct rule *rule,
		   const char *matched)
{
	d->allow = allow;
	d->reason = reason;
	d->rule = rule;
	d->matched = matched;
}

/* The devices every program may write, and what each is for. */
static const char *const devices[] = {
	"/dev/null",    /* discarding output */
	"/dev/zero",    /* mmap and dd sources opened read-write */
	"/dev/full",    /* tests of write errors */
	"/dev/random",  /* writes add entropy: harmless */
	"/dev/urandom",
	"/dev/tty",     /* the controlling terminal, whatever it is */
	"/dev/ptmx",    /* new pseudo-terminals (script, expect, tmux) */
	"/dev/pts",     /* their other ends, and the program's own terminal */
};

static const struct rule device_rule = { NULL, "built-in", 0, "" };

const char *const policy_dev_dirs[] = { "/dev/shm", "/dev/mqueue", "/dev/hugepages" };
const size_t policy_n_dev_dirs = sizeof(policy_dev_dirs) / sizeof(policy_dev_dirs[0]);

/* A read of @path that read-deny's /dev rule refuses (policy_dev_dirs):
 * beneath /dev, not in one of those directories. */
static bool dev_read_refused(const char *path, size_t len)
{
	if (len <= 5 || memcmp(path, "/dev/", 5) != 0)
		return false;
	for (size_t i = 0; i < policy_n_dev_dirs; i++) {
		size_t n = strlen(policy_dev_dirs[i]);
		if (len >= n && memcmp(path, policy_dev_dirs[i], n) == 0 &&
		    (len == n || path[n] == '/'))
			return false;
	}
	return true;
}

int policy_add_devices(struct policy *p)
{
	char tty[256];

	for (size_t i = 0; i < sizeof(devices) / sizeof(devices[0]); i++) {
		int r = pathset_add(&p->paths, devices[i], PATH_DEVICE, &device_rule);
		if (r)
			return r;
	}
	/* The program's own terminal, wherever it is (a console, a serial
	 * line). TIOCSTI on it is refused by seccomp. */
	for (int fd = 0; fd <= 2; fd++) {
		if (isatty(fd) && ttyname_r(fd, tty, sizeof(tty)) == 0 && tty[0] == '/' &&
		    pathset_add(&p->paths, tty, PATH_DEVICE, &device_rule) != 0)
			return -ENOMEM;
	}
	return 0;
}

int policy_note_write_deny(struct policy *p, const struct pathset_entry *e)
{
	if (!e)
		return -EINVAL;
	for (size_t i = 0; i < p->n_write_deny_entries; i++)
		if (p->write_deny_entries[i] == e)
			return 0;
	const struct pathset_entry **v =
		realloc(p->write_deny_entries, (p->n_write_deny_entries + 1) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	v[p->n_write_deny_entries++] = e;
	p->write_deny_entries = v;
	return 0;
}

/* Whether a write-deny entry lies beneath @path (then @d says so): what
 * removing or renaming @path would take with it, or replace. A walk of the
 * write-deny entries, made only for removals and renames. */
static bool write_deny_beneath(const struct policy *p, const char *path, size_t len,
			       struct decision *d)
{
	if (len == 1 && path[0] == '/')
		len = 0;  /* beneath "/" is "/x" */
	for (size_t i = 0; i < p->n_write_deny_entries; i++) {
		const struct pathset_entry *e = p->write_deny_entries[i];
		if (e->len > len + 1 && memcmp(e->path, path, len) == 0 && e->path[len] == '/') {
			decide(d, false, REASON_HOLDS_WRITE_DENY, e->data[PATH_WRITE_DENY],
			       e->path);
			return true;
		}
	}
	return false;
}

void policy_decide_path(const struct policy *p, enum op op, const char *path, size_t len,
			struct decision *d)
{
	unsigned mask = 1u << PATH_WRITE | 1u << PATH_READ_DENY | 1u << PATH_DEVICE;
	const struct pathset_entry *e;

	if (op == OP_CONNECT)
		mask |= 1u << PATH_SOCKET;
	else if (op != OP_READ && p->n_write_deny)
		mask |= 1u << PATH_WRITE_DENY;
	e = pathset_nearest(&p->paths, path, len, mask);
	if (e && (e->kinds & 1u << PATH_DEVICE) && !(e->kinds & 1u << PATH_WRITE)) {
		if (op == OP_WRITE || op == OP_REMOVE)
			decide(d, false, REASON_DEVICE_ENTRY, NULL, e->path);
		else
			decide(d, true, REASON_DEVICE, NULL, e->path);
		return;
	}
	if (e && (e->kinds & 1u << PATH_READ_DENY)) {
		decide(d, false, REASON_READ_DENY, e->data[PATH_READ_DENY], e->path);
		return;
	}
	if (e && (e->kinds & mask & 1u << PATH_WRITE_DENY)) {
		decide(d, false, REASON_WRITE_DENY, e->data[PATH_WRITE_DENY], e->path);
		return;
	}
	if (e && (e->kinds & 1u << PATH_WRITE)) {
		if (op == OP_REMOVE && p->n_write_deny_entries && write_deny_beneath(p, path, len, d))
			return;
		decide(d, true, REASON_WRITE_ROOT, e->data[PATH_WRITE], e->path);
		return;
	}
	if (e) {
		decide(d, true, REASON_SOCKET, e->data[PATH_SOCKET], e->path);
		return;
	}
	if (op == OP_READ && p->n_read_deny && dev_read_refused(path, len))
		decide(d, false, REASON_DEVICE_READ, NULL, NULL);
	else if (op == OP_READ)
		decide(d, true, REASON_READ_DEFAULT, NULL, NULL);
	else
		decide(d, false, REASON_OUTSIDE_ROOTS, NULL, NULL);
}

static const struct port_rule *port_find(const struct port_list *l, uint16_t port)
{
	for (size_t i = 0; i < l->n; i++)
		if (l->v[i].lo <= port && port <= l->v[i].hi)
			return &l->v[i];
	return NULL;
}

/* Linux accepts a sockaddr_in6 without sin6_scope_id (RFC 2133's 24
 * bytes); address and port lie within them. */
#define SIN6_LEN_MIN ((socklen_t)offsetof(struct sockaddr_in6, sin6_scope_id))

static bool is_loopback(const struct sockaddr *sa, socklen_t salen)
{
	if (sa->sa_family == AF_INET && salen >= (socklen_t)sizeof(struct sockaddr_in)) {
		const struct sockaddr_in *in = (const struct sockaddr_in *)sa;
		return (ntohl(in->sin_addr.s_addr) >> 24) == 127;
	}
	if (sa->sa_family == AF_INET6 && salen >= SIN6_LEN_MIN) {
		const struct sockaddr_in6 *in6 = (const struct sockaddr_in6 *)sa;
		if (IN6_IS_ADDR_LOOPBACK(&in6->sin6_addr))
			return true;
		if (IN6_IS_ADDR_V4MAPPED(&in6->sin6_addr))
			return in6->sin6_addr.s6_addr[12] == 127;
	}
	return false;
}

static int sa_port(const struct sockaddr *sa, socklen_t salen)
{
	if (sa->sa_family == AF_INET && salen >= (socklen_t)sizeof(struct sockaddr_in))
		return ntohs(((const struct sockaddr_in *)sa)->sin_port);
	if (sa->sa_family == AF_INET6 && salen >= SIN6_LEN_MIN)
		return ntohs(((const struct sockaddr_in6 *)sa)->sin6_port);
	return -1;
}

void policy_decide_net(const struct policy *p, enum op op, int socktype,
		       const struct sockaddr *sa, socklen_t salen, struct decision *d)
{
	const struct rule *mode_rule = p->net.rule;
	int mode = p->net.value;

	if (!sa || salen < (socklen_t)sizeof(sa_family_t)) {
		decide(d, false, REASON_NET_FAMILY, mode_rule, NULL);
		return;
	}
	switch (sa->sa_family) {
	case AF_UNSPEC:   /* connect(AF_UNSPEC) dissolves an association */
	case AF_NETLINK:  /* talks to the local kernel only */
		decide(d, true, REASON_NET_LOCAL, NULL, NULL);
		return;
	case AF_UNIX:     /* only abstract names reach here */
		if (mode == NET_NONE)
			decide(d, false, REASON_NET_ABSTRACT, mode_rule, NULL);
		else
			decide(d, true, mode == NET_ALL ? REASON_NET_ALL : REASON_NET_LOOPBACK,
			       mode_rule, NULL);
		return;
	case AF_INET:
	case AF_INET6:
		break;
	default:
		if (mode == NET_ALL)
			decide(d, true, REASON_NET_ALL, mode_rule, NULL);
		else
			decide(d, false, REASON_NET_FAMILY, mode_rule, NULL);
		return;
	}

	int port = sa_port(sa, salen);
	if (port < 0) {
		decide(d, false, REASON_NET_FAMILY, mode_rule, NULL);
		return;
	}
	if (mode == NET_ALL) {
		decide(d, true, REASON_NET_ALL, mode_rule, NULL);
		return;
	}
	if (mode == NET_ISOLATED) {
		/* bind in a private namespace can only reach its loopback. */
		if (op == OP_BIND || is_loopback(sa, salen))
			decide(d, true, REASON_NET_LOOPBACK, mode_rule, NULL);
		else
			decide(d, false, REASON_NET_NOT_LOOPBACK, mode_rule, NULL);
		return;
	}
	if (socktype != SOCK_STREAM) {
		decide(d, false, REASON_NET_UDP, mode_rule, NULL);
		return;
	}
	if (op == OP_BIND && port == 0) {
		/* A port at random (bind to 0, or listen on an unbound socket):
		 * no net-bind line can name it. */
		decide(d, false, REASON_NET_ANY_PORT, mode_rule, NULL);
		return;
	}
	const struct port_rule *pr =
		port_find(op == OP_BIND ? &p->net_bind : &p->net_connect, (uint16_t)port);
	if (pr)
		decide(d, true, REASON_NET_PORT, pr->rule, NULL);
	else
		decide(d, false, REASON_NET_NONE, mode_rule, NULL);
}

bool policy_listen_binds(const struct sockaddr *sa, socklen_t salen, int socktype)
{
	if (sa->sa_family == AF_INET && socktype == SOCK_STREAM &&
	    salen >= (socklen_t)sizeof(struct sockaddr_in))
		return ((const struct sockaddr_in *)sa)->sin_port == 0;
	if (sa->sa_family == AF_INET6 && socktype == SOCK_STREAM && salen >= SIN6_LEN_MIN)
		return ((const struct sockaddr_in6 *)sa)->sin6_port == 0;
	return sa->sa_family == AF_UNIX && salen > offsetof(struct sockaddr_un, sun_path) &&
	       ((const struct sockaddr_un *)sa)->sun_path[0] == '\0';
}

bool policy_kernel_path(const char *path)
{
	return (strncmp(path, "/proc", 5) == 0 && (path[5] == '/' || path[5] == '\0')) ||
	       (strncmp(path, "/sys", 4) == 0 && (path[4] == '/' || path[4] == '\0'));
}

const char *op_name(enum op op)
{
	static const char *const names[OP__COUNT] = {
		[OP_READ] = "read",
		[OP_WRITE] = "write",
		[OP_REMOVE] = "remove",
		[OP_WRITE_DATA] = "write",
		[OP_CONNECT] = "connect",
		[OP_BIND] = "bind",
	};
	return (unsigned)op < OP__COUNT ? names[op] : "?";
}

const char *reason_text(enum reason r)
{
	switch (r) {
	case REASON_WRITE_ROOT:       return "inside write root";
	case REASON_OUTSIDE_ROOTS:    return "outside write roots";
	case REASON_READ_DENY:        return "inside read-deny";
	case REASON_WRITE_DENY:       return "inside write-deny";
	case REASON_HOLDS_WRITE_DENY: return "it would take with it write-deny";
	case REASON_READ_DEFAULT:     return "reads are allowed outside read-deny";
	case REASON_SOCKET:           return "listed unix socket";
	case REASON_NET_ALL:          return "network is all";
	case REASON_NET_NONE:         return "network is none and the port is not listed";
	case REASON_NET_PORT:         return "port is listed";
	case REASON_NET_LOOPBACK:     return "network is isolated: own loopback";
	case REASON_NET_NOT_LOOPBACK: return "network is isolated: only loopback is reachable";
	case REASON_NET_UDP:          return "network is none: only listed TCP ports";
	case REASON_NET_ANY_PORT:     return "network is none: a port taken at random (port 0) cannot be listed";
	case REASON_NET_ABSTRACT:     return "network is none: abstract unix sockets are shared with the host";
	case REASON_KERNEL_LAYER:     return "the kernel layer refused what the shim allowed (a rule only the kernel sees; the file's permissions allow it)";
	case REASON_NET_FAMILY:       return "address family not allowed by the network mode";
	case REASON_NET_LOCAL:        return "local to the kernel";
	case REASON_SUBPROCESS:       return "subprocesses are not allowed";
	case REASON_POLICY_UNREADABLE: return "the policy could not be read: everything is refused";
	case REASON_DEVICE:           return "a device every program may write";
	case REASON_DEVICE_ENTRY:     return "devices may be written, not created, removed or renamed";
	case REASON_DEVICE_READ:      return "read-deny is in force: of /dev, only the devices every program uses are read (a disk holds every file)";
	}
	return "?";
}
