/*
 * layers.h - the Linux layers the "landlock" backend (linux.c) is made of.
 * Each returns 0 or -errno with a reason in @err; each is applied in the
 * child, in the order: network namespace, mount namespace, capabilities,
 * Landlock, seccomp
 * (seccomp last: it forbids what the earlier steps need).
 */
#ifndef CORDON_JAIL_LAYERS_H
#define CORDON_JAIL_LAYERS_H

#ifdef __linux__

#include <errno.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "../shim/policy.h"

/* Write a reason into @err and return -errno (errno as it was on entry,
 * or -EINVAL when it was 0): every layer's failure path. */
__attribute__((format(printf, 3, 4)))
static inline int jail_fail(char *err, size_t size, const char *fmt, ...)
{
	int e = errno;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, size, fmt, ap);
	va_end(ap);
	return e ? -e : -EINVAL;
}

/* Landlock: the highest ABI this kernel offers (0: none, reason in @err). */
int landlock_abi(char *err, size_t errsize);
/* @log_exec: have the program's refusals logged to the audit subsystem
 * after exec too (ABI 7; kaudit.c reads them). */
int landlock_apply(const struct policy *pol, int abi, bool log_exec, char *err, size_t errsize);
/* How many read-deny entries lie beneath a write root (which Landlock
 * cannot enforce); the first one and its root in *@deny and *@root. */
size_t landlock_read_deny_in_root(const struct policy *pol, const char **deny, const char **root);

/* write-deny entries inside the write roots as read-only mounts in a
 * mount namespace of the program's own (mountns.c): whether this process
 * can make that namespace (@own_userns: netns_apply() makes a user
 * namespace first); apply (nothing when no entry lies inside a root). */
bool mountns_possible(bool own_userns);
int mountns_apply(const struct policy *pol, char *err, size_t errsize);

/* private-ipc: an IPC namespace of the program's own (ipcns.c), possible
 * where mountns_possible() says a namespace is. */
int ipcns_apply(char *err, size_t errsize);

/* seccomp: can a filter be loaded here? (tried in a throw-away child) */
int seccomp_probe(char *err, size_t errsize);
/* Load the compiled filter for @pol's shape; *@listener: the descriptor
 * of its user notifications (the supervised calls), or -1 when another
 * supervisor already has them (a cordon inside cordon: then the filter
 * lets them through to the outer one, and @err says so). */
int seccomp_apply(const struct policy *pol, int *listener, char *err, size_t errsize);
/* The filter as libseccomp's pseudo-filter code, for tests and `status`. */
int seccomp_export(const struct policy *pol, int fd);

/* The filter's inputs, three booleans of the policy, as a number below
 * SECCOMP_SHAPES; seccomp_shape_policy sets them in @pol from @shape. */
#define SECCOMP_SHAPES 8
unsigned seccomp_shape(const struct policy *pol);
void seccomp_shape_policy(unsigned shape, struct policy *pol);
/* The filter as BPF, built by libseccomp now (build/gen-seccomp, tests). */
int seccomp_bpf_export(const struct policy *pol, int fd);

/* The filters compiled at build time (build/gen/seccomp_filters.c), by
 * shape: raw struct sock_filter instructions. */
struct seccomp_compiled {
	const void *insns;
	unsigned short len;
};
extern const struct seccomp_compiled seccomp_compiled[SECCOMP_SHAPES];

/* The system calls the filter sends to the supervisor, by number as
 * seccomp reports them (the ABI's AUDIT_ARCH_ and its number; x32's calls
 * come as x86-64's with the x32 bit and are not listed), and the index of
 * their name in supervised_names(), or SUPERVISED_SOCKETCALL (i386's
 * socketcall, a connect or a listen when its first argument is
 * SYS_CONNECT or SYS_LISTEN). And the
 * names of the native ABI's calls, by number (NULL in the gaps). Both are
 * libseccomp's, compiled at build time with the filters. */
struct supervised_nr {
	uint32_t arch;
	uint32_t nr;
	uint16_t call;
};
#define SUPERVISED_SOCKETCALL 0xffffu
extern const struct supervised_nr supervised_nrs[];
extern const size_t n_supervised_nrs;
extern const char *const native_syscall_names[];
extern const size_t n_native_syscall_names;

/* The system calls the supervisor answers (supervise.c), by libseccomp
 * name: up to @max into @names; returns how many. supervised_names: all of
 * them, in the order supervised_nr's call indexes. supervised_calls: those
 * the filter sends whatever their arguments, for a policy with or without
 * net none (listen is sent under net none only). supervised_ioctls: the
 * ioctl commands the filter sends (the other ioctls are not). */
size_t supervised_names(const char **names, size_t max);
size_t supervised_calls(const char **names, size_t max, bool net_none);
size_t supervised_ioctls(uint32_t *cmds, size_t max);
/* Answer one notification on @listener (see struct jail_backend). */
struct supervise_event;
int supervise_one(int listener, const struct policy *pol, struct supervise_event *ev);

/* Landlock's refusals in the audit log (kaudit.c): start reading them
 * (a descriptor, or -errno and why not), ask whether any will come (0, or
 * -errno and why not), and read one. */
int kaudit_open(char *why, size_t size);
int kaudit_enabled(char *why, size_t size);
int kaudit_read(int fd, const struct policy *pol, int child, struct supervise_event *ev);

/* A private network namespace with only loopback, up. */
int netns_probe(char *err, size_t errsize);
int netns_apply(char *err, size_t errsize);

/* Drop the capabilities a sandboxed program has no business with. */
int caps_drop(char *err, size_t errsize);

#endif /* __linux__ */
#endif /* CORDON_JAIL_LAYERS_H */
