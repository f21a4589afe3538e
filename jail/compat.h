/*
 * compat.h - kernel constants newer than the installed headers.
 *
 * Debian 12's linux-libc-dev describes Landlock ABI 2; the values below
 * are the kernel's uapi (include/uapi/linux/landlock.h) up to ABI 7, which
 * never change once released. Only what is missing is defined.
 */
#ifndef CORDON_JAIL_COMPAT_H
#define CORDON_JAIL_COMPAT_H

#ifdef __linux__

#include <linux/landlock.h>
#include <stdint.h>
#include <sys/syscall.h>

#ifndef LANDLOCK_ACCESS_FS_TRUNCATE
#define LANDLOCK_ACCESS_FS_TRUNCATE (1ULL << 14)      /* ABI 3 */
#endif
#ifndef LANDLOCK_ACCESS_FS_IOCTL_DEV
#define LANDLOCK_ACCESS_FS_IOCTL_DEV (1ULL << 15)     /* ABI 5 */
#endif
#ifndef LANDLOCK_ACCESS_NET_BIND_TCP
#define LANDLOCK_ACCESS_NET_BIND_TCP (1ULL << 0)      /* ABI 4 */
#define LANDLOCK_ACCESS_NET_CONNECT_TCP (1ULL << 1)
#endif
#ifndef LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET
#define LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET (1ULL << 0) /* ABI 6 */
#define LANDLOCK_SCOPE_SIGNAL (1ULL << 1)
#endif

#ifndef LANDLOCK_RESTRICT_SELF_LOG_NEW_EXEC_ON
#define LANDLOCK_RESTRICT_SELF_LOG_SAME_EXEC_OFF (1U << 0) /* ABI 7 */
#define LANDLOCK_RESTRICT_SELF_LOG_NEW_EXEC_ON (1U << 1)
#endif

/* seccomp user notifications: waking the supervisor on the caller's CPU
 * (include/uapi/linux/seccomp.h, Linux 6.6). */
#include <linux/seccomp.h>
#ifndef SECCOMP_IOCTL_NOTIF_SET_FLAGS
#define SECCOMP_IOCTL_NOTIF_SET_FLAGS SECCOMP_IOW(4, uint64_t)
#endif
#ifndef SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP
#define SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP (1UL << 0)
#endif

/* The structures as of ABI 6, under our own names so that a header that
 * has some of them does not clash. */
struct cordon_ruleset_attr {
	uint64_t handled_access_fs;
	uint64_t handled_access_net;  /* ABI 4 */
	uint64_t scoped;              /* ABI 6 */
};

struct cordon_path_beneath_attr {
	uint64_t allowed_access;
	int32_t parent_fd;
} __attribute__((packed));

struct cordon_net_port_attr {
	uint64_t allowed_access;
	uint64_t port;
};

#define CORDON_RULE_PATH_BENEATH 1
#define CORDON_RULE_NET_PORT 2

#ifndef SYS_landlock_create_ruleset
#define SYS_landlock_create_ruleset 444
#define SYS_landlock_add_rule 445
#define SYS_landlock_restrict_self 446
#endif

#endif /* __linux__ */
#endif /* CORDON_JAIL_COMPAT_H */
