/*
 * kaudit.c - what Landlock refused, read from the kernel's audit records.
 *
 * A program that goes around the shim (statically linked, raw system
 * calls) is refused by Landlock without a word. Since ABI 7 Landlock can
 * log each denial to the audit subsystem: restricted with
 * LANDLOCK_RESTRICT_SELF_LOG_NEW_EXEC_ON, the program's denials after
 * exec are logged too. cordon reads them as a multicast listener of the
 * audit netlink socket (AUDIT_NLGRP_READLOG, which needs CAP_AUDIT_READ),
 * when the audit subsystem is on; it never turns it on itself, that is the
 * administrator's call (auditctl -e 1).
 *
 * One denial is several records with one serial number:
 *   1423 LANDLOCK_ACCESS  domain=1e868bc41 blockers=fs.make_reg path="/tmp/x" ...
 *   1424 LANDLOCK_DOMAIN  domain=1e868bc41 status=allocated mode=enforcing pid=N ...
 *        (once, with the domain's first denial: pid is who restricted itself)
 *   1300 SYSCALL          arch=... syscall=257 ... pid=M ... exe="/usr/bin/dash"
 *   1320 EOE              (the end)
 * The run's domain is the one cordon's child allocated; a domain the
 * program made for itself inside it is its own business.
 */
#ifdef __linux__

#include <errno.h>
#include <limits.h>
#include <linux/audit.h>
#include <linux/netlink.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include "jail.h"
#include "layers.h"

#ifndef AUDIT_LANDLOCK_ACCESS
#define AUDIT_LANDLOCK_ACCESS 1423
#define AUDIT_LANDLOCK_DOMAIN 1424
#endif

/*
 * The denials being put together from their records. Every process's
 * records come to this socket, and two events' records can arrive
 * interleaved (another program's, or another cordon's, between a denial's
 * LANDLOCK_ACCESS and its SYSCALL record): so each event is gathered by its
 * serial, and finished at its EOE record (or, lacking one, when the table
 * is full or the run's domain is gone).
 */
#define EVENTS_OPEN 16
struct event {
	unsigned long serial;        /* 0: a free slot */
	unsigned long age;           /* the oldest is finished first */
	bool access;                 /* its LANDLOCK_ACCESS was seen */
	bool ended;                  /* its EOE was seen */
	char access_domain[32];
	char blockers[512];
	char path[PATH_MAX];
	int pid;
	char call[32];
	char exe[PATH_MAX];
};

static struct {
	char domain[32];             /* the run's domain, once known */
	bool gone;                   /* the run's domain was freed: all is read */
	bool selftest;               /* the self-test's refusal was read */
	unsigned open;               /* slots of ev[] in use: none, none looked at
	                                (each lies on pages of its own, and every
	                                page touched costs a fault) */
	int child;                   /* the process cordon started */
	char self[PATH_MAX];         /* cordon's own executable */
	unsigned long ages;
	struct event ev[EVENTS_OPEN];
	char held[9000];             /* a record read but not yet taken in */
	ssize_t held_n;
} st;

/* The value of " KEY=" in @rec (length @n) into @out: a quoted string, a
 * hex-encoded one (audit's form for names with spaces or controls), or a
 * bare word. False when absent. */
static bool field(const char *rec, size_t n, const char *key, char *out, size_t size)
{
	size_t klen = strlen(key);
	const char *end = rec + n;

	for (const char *p = rec; p + klen + 1 < end; p++) {
		if ((p != rec && p[-1] != ' ') || strncmp(p, key, klen) != 0 || p[klen] != '=')
			continue;
		const char *v = p + klen + 1;
		size_t o = 0;
		if (*v == '"') {
			for (v++; v < end && *v != '"' && o + 1 < size; v++)
				out[o++] = *v;
		} else {
			const char *w = v;
			while (w < end && *w != ' ' && *w != '\n')
				w++;
			bool hex = (w - v) % 2 == 0 && w > v &&
				   (strcmp(key, "path") == 0 || strcmp(key, "exe") == 0);
			for (const char *h = v; hex && h < w; h++)
				hex = (*h >= '0' && *h <= '9') || (*h >= 'A' && *h <= 'F');
			for (; v < w && o + 1 < size; v += hex ? 2 : 1) {
				if (!hex) {
					out[o++] = *v;
					continue;
				}
				char b[3] = { v[0], v[1], 0 };
				out[o++] = (char)strtoul(b, NULL, 16);
			}
		}
		out[o] = '\0';
		return true;
	}
	return false;
}

/* "audit(1796044237.676:3): ..." -> 3 */
static unsigned long serial_of(const char *rec, size_t n)
{
	const char *colon = memchr(rec, ':', n);
	return colon ? strtoul(colon + 1, NULL, 10) : 0;
}

int kaudit_open(char *why, size_t size)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK, .nl_groups = 1u << (AUDIT_NLGRP_READLOG - 1) };
	int fd;

	fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC | SOCK_NONBLOCK, NETLINK_AUDIT);
	if (fd < 0)
		return jail_fail(why, size, "no audit netlink socket: %s", strerror(errno));
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		int r = jail_fail(why, size, "unable to read the audit log (CAP_AUDIT_READ): %s",
				  strerror(errno));
		close(fd);
		return r;
	}
	int big = 1 << 22;
	setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &big, sizeof(big));
	/* Once per process: st is as the loader zeroed it. Not cleared
	 * again, which would fault in its 150 KiB (37 pages, 0.44 ms). */
	ssize_t n = readlink("/proc/self/exe", st.self, sizeof(st.self) - 1);
	st.self[n > 0 ? n : 0] = '\0';
	return fd;
}

/* Is the audit subsystem on? The kernel answers AUDIT_GET from a kernel
 * thread it makes for the answer (audit_send_reply): 0.17-0.35 ms on the
 * development VMs, up to a twentieth of a run. So it is asked only when a
 * run needs to know (see jail.h's log_enabled), on a socket of its own, so
 * that the answer is not mixed with the records. */
int kaudit_enabled(char *why, size_t size)
{
	struct {
		struct nlmsghdr h;
		struct audit_status s;
	} msg = { { NLMSG_LENGTH(0), AUDIT_GET, NLM_F_REQUEST, 1, 0 }, { 0 } };
	struct sockaddr_nl kernel = { .nl_family = AF_NETLINK };
	struct timeval tv = { 1, 0 };
	int q = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_AUDIT);

	if (q < 0)
		return jail_fail(why, size, "no audit netlink socket: %s", strerror(errno));
	setsockopt(q, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	errno = 0;
	if (sendto(q, &msg, msg.h.nlmsg_len, 0, (struct sockaddr *)&kernel, sizeof(kernel)) < 0 ||
	    recv(q, &msg, sizeof(msg), 0) < (ssize_t)NLMSG_LENGTH(sizeof(msg.s)) ||
	    msg.h.nlmsg_type != AUDIT_GET) {
		int e = errno ? errno : EPROTO;
		close(q);
		errno = e;
		return jail_fail(why, size, "unable to ask the audit subsystem its state: %s",
				 strerror(e));
	}
	close(q);
	if (!msg.s.enabled) {
		errno = ENOTSUP;
		return jail_fail(why, size, "the audit subsystem is off (auditctl -e 1 turns it on)");
	}
	return 0;
}

/* The operation a Landlock blocker stands for, as the shim names them. */
static const char *op_of(const char *blockers, enum op *op)
{
	/* A rename or link checks every right on both directories: all are
	 * listed, fs.refer among them. */
	if (strstr(blockers, "fs.refer")) {
		*op = OP_WRITE;
		return "rename";
	}
	static const struct {
		const char *prefix, *name;
		enum op op;
	} ops[] = {
		{ "fs.make_", "create", OP_WRITE },     { "fs.remove_", "delete", OP_WRITE },
		{ "fs.refer", "rename", OP_WRITE },     { "fs.write_file", "write", OP_WRITE_DATA },
		{ "fs.truncate", "write", OP_WRITE_DATA }, { "fs.ioctl_dev", "write", OP_WRITE_DATA },
		{ "fs.read_file", "read", OP_READ },    { "fs.read_dir", "read", OP_READ },
		{ "fs.execute", "read", OP_READ },      { "net.connect_tcp", "connect", OP_CONNECT },
		{ "net.bind_tcp", "bind", OP_BIND },
	};
	for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++)
		if (strncmp(blockers, ops[i].prefix, strlen(ops[i].prefix)) == 0) {
			*op = ops[i].op;
			return ops[i].name;
		}
	return NULL;
}

/* The event in @e put together, and its slot freed: 1 and @ev when it was
 * a denial in the run's domain (@ev points into the slot until the next
 * kaudit_read). */
static int finish(const struct policy *pol, struct event *e, struct supervise_event *ev)
{
	enum op op = OP_WRITE;
	const char *name;
	int r = 0;

	if (!e->access || !st.domain[0] || strcmp(e->access_domain, st.domain) != 0 ||
	    !(name = op_of(e->blockers, &op)))
		goto out;
	memset(ev, 0, sizeof(*ev));
	/* The first refusal of cordon's child while it was still cordon is
	 * its self-test (run.c's selftest, before exec): not the program's,
	 * but word that the kernel keeps its log. */
	if (!st.selftest && e->pid == st.child && st.self[0] && strcmp(e->exe, st.self) == 0) {
		st.selftest = true;
		r = 1;
		goto out;
	}
	ev->refused = true;
	ev->pid = e->pid;
	ev->op = name;
	ev->call = e->call;  /* the slot is reused on a later call only */
	ev->exe = e->exe[0] ? e->exe : NULL;
	ev->layer = "kernel";
	/* For an entry made, removed or moved, the record names the
	 * directory only: the target DIR with "/" and "*" after it says so,
	 * and decides (and suggests) as an entry of DIR. */
	size_t n = strnlen(e->path, sizeof(e->path) - 3);
	memcpy(ev->path, e->path, n);
	if (op == OP_WRITE) {
		n -= n == 1;  /* "/" */
		memcpy(ev->path + n, "/*", 2);
		n += 2;
	}
	ev->path[n] = '\0';
	if (op == OP_CONNECT || op == OP_BIND)
		ev->why = "a TCP port the policy does not list";
	else
		policy_decide_path(pol, op, ev->path, strlen(ev->path), &ev->d);
	if (!ev->why && ev->d.allow)
		ev->why = "the kernel layer refused what the policy allows";
	r = 1;
out:
	e->serial = 0;
	st.open--;
	return r;
}

/* The slot of the event @serial; a free one for a new event, or NULL when
 * all are taken (*@oldest: the one to finish first). */
static struct event *slot_of(unsigned long serial, struct event **oldest)
{
	struct event *free_slot = NULL;

	*oldest = NULL;
	for (size_t i = 0; i < EVENTS_OPEN; i++) {
		struct event *e = &st.ev[i];
		if (e->serial == serial)
			return e;
		if (!e->serial && !free_slot)
			free_slot = e;
		if (e->serial && (!*oldest || e->age < (*oldest)->age))
			*oldest = e;
	}
	if (free_slot) {
		st.open++;
		memset(free_slot, 0, offsetof(struct event, access_domain));
		free_slot->serial = serial;
		free_slot->age = ++st.ages;
		free_slot->pid = 0;
		free_slot->call[0] = free_slot->exe[0] = '\0';
	}
	return free_slot;
}

/* -ECHILD once the run's domain is freed: every record of it was read. */
int kaudit_read(int fd, const struct policy *pol, int child, struct supervise_event *ev)
{
	char buf[sizeof(st.held)], v[64];

	st.child = child;
	for (;;) {
		/* Events ended (or, the domain gone, all of them) go first. */
		for (size_t i = 0; st.open && i < EVENTS_OPEN; i++) {
			struct event *e = &st.ev[i];
			if (e->serial && (e->ended || st.gone) && finish(pol, e, ev))
				return 1;
		}
		if (st.gone)
			return -ECHILD;

		ssize_t n;
		if (st.held_n > 0) {
			n = st.held_n;
			memcpy(buf, st.held, (size_t)n);
			st.held_n = 0;
		} else {
			n = recv(fd, buf, sizeof(buf) - 1, 0);
		}
		/* ENOBUFS: the socket overflowed and records were lost; the
		 * ones after still count. */
		if (n < 0 && (errno == EINTR || errno == ENOBUFS))
			continue;
		if (n < 0)
			return errno == EAGAIN ? 0 : -errno;
		if (n < (ssize_t)NLMSG_HDRLEN)
			continue;
		buf[n] = '\0';
		struct nlmsghdr *h = (struct nlmsghdr *)buf;
		const char *rec = NLMSG_DATA(h);
		size_t len = (size_t)n - NLMSG_HDRLEN;

		if (h->nlmsg_type == AUDIT_LANDLOCK_DOMAIN) {
			if (st.domain[0] && field(rec, len, "status", v, sizeof(v)) &&
			    strcmp(v, "deallocated") == 0 && field(rec, len, "domain", v, sizeof(v)) &&
			    strcmp(v, st.domain) == 0)
				st.gone = true;
			if (!st.domain[0] && field(rec, len, "status", v, sizeof(v)) &&
			    strcmp(v, "allocated") == 0 && field(rec, len, "pid", v, sizeof(v)) &&
			    atoi(v) == child)
				field(rec, len, "domain", st.domain, sizeof(st.domain));
			continue;
		}
		if (h->nlmsg_type != AUDIT_LANDLOCK_ACCESS && h->nlmsg_type != AUDIT_SYSCALL &&
		    h->nlmsg_type != AUDIT_EOE)
			continue;

		struct event *oldest, *e = slot_of(serial_of(rec, len), &oldest);
		if (!e) {
			/* No slot left: the oldest event is finished as it is,
			 * and this record taken in on the next call. */
			memcpy(st.held, buf, (size_t)n);
			st.held_n = n;
			if (finish(pol, oldest, ev))
				return 1;
			continue;
		}
		switch (h->nlmsg_type) {
		case AUDIT_LANDLOCK_ACCESS:
			e->access = field(rec, len, "domain", e->access_domain,
					  sizeof(e->access_domain)) &&
				    field(rec, len, "blockers", e->blockers, sizeof(e->blockers));
			if (!field(rec, len, "path", e->path, sizeof(e->path)))
				e->path[0] = '\0';
			if (field(rec, len, "dest", v, sizeof(v)))
				snprintf(e->path, sizeof(e->path), "port %s", v);
			break;
		case AUDIT_SYSCALL:
			if (field(rec, len, "pid", v, sizeof(v)))
				e->pid = atoi(v);
			if (!field(rec, len, "exe", e->exe, sizeof(e->exe)))
				e->exe[0] = '\0';
			if (field(rec, len, "syscall", v, sizeof(v))) {
				/* Numbered as on the native architecture. */
				int nr = atoi(v);
				const char *name = nr >= 0 && (size_t)nr < n_native_syscall_names
							   ? native_syscall_names[nr] : NULL;
				snprintf(e->call, sizeof(e->call), "%.31s", name ? name : "?");
			}
			break;
		default:  /* AUDIT_EOE */
			e->ended = true;
			break;
		}
	}
}

#endif /* __linux__ */
