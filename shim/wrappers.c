/*
 * wrappers.c - the exported wrappers, expanded from syms.def.
 *
 * Each shape below is one wrapper body: classify the call, ask the core
 * (shim.c) for a verdict, act on it (see shim.h). Nothing here decides
 * anything; nothing here is written per symbol.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fts.h>
#include <ftw.h>
#include <sched.h>
#include <semaphore.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>   /* shm_open */
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/types.h>
#include <sys/xattr.h>
#include <unistd.h>
#include <utime.h>

#include "shim.h"

/* _FORTIFY_SOURCE entry points, which no header declares without it. */
int __open_2(const char *path, int flags);
int __open64_2(const char *path, int flags);
int __openat_2(int dirfd, const char *path, int flags);
int __openat64_2(int dirfd, const char *path, int flags);

/* The failure value of a return type: NULL for pointers, -1 otherwise. */
#define FAIL(ret) _Generic((ret)0, DIR *: (ret)0, FILE *: (ret)0, char *: (ret)0, \
			   default: (ret)(intptr_t)-1)

static inline bool needs_mode(int flags)
{
	return (flags & O_CREAT) || (flags & __O_TMPFILE) == __O_TMPFILE;
}

/* After libc opened for reading: refuse what resolves into read-deny, and
 * say so when the kernel refused it first. */
static inline int verified(enum shim_sym sym, int dirfd, const char *path, int fd)
{
	if (fd < 0 && errno == EACCES)
		shim_read_failed(sym, dirfd, path);
	if (fd < 0 || shim_check_opened_read(sym, path, fd))
		return fd;
	close(fd);
	errno = EACCES;
	return -1;
}

#define OPEN_BODY(name, dirfd, call)                                                  \
	int fd;                                                                       \
	switch (shim_begin_open(SYM_##name, dirfd, path, flags, mode, &fd)) {        \
	case SHIM_DONE:                                                               \
		return fd;                                                            \
	case SHIM_DENY:                                                               \
		return -1;                                                            \
	case SHIM_VERIFY:                                                             \
		return verified(SYM_##name, dirfd, path, call);                       \
	case SHIM_PASS:                                                               \
	case SHIM_VIA:                                                                \
		break;                                                                \
	}                                                                             \
	fd = call;                                                                    \
	if (fd < 0 && errno == EACCES)                                                \
		shim_refused_after(SYM_##name, dirfd, path, AT_FDCWD, NULL, flags);   \
	return fd;

#define READ_MODE(last)                                                               \
	mode_t mode = 0;                                                              \
	if (needs_mode(flags)) {                                                      \
		va_list ap;                                                           \
		va_start(ap, last);                                                   \
		mode = va_arg(ap, mode_t);                                            \
		va_end(ap);                                                           \
	}

#define SHAPE_OPEN(name, cls, ret, params, args)                                      \
	SHIM_EXPORT ret name(const char *path, int flags, ...)                        \
	{                                                                             \
		READ_MODE(flags)                                                      \
		OPEN_BODY(name, AT_FDCWD, REAL(name)(path, flags, mode))              \
	}

#define SHAPE_OPENAT(name, cls, ret, params, args)                                    \
	SHIM_EXPORT ret name(int dirfd, const char *path, int flags, ...)             \
	{                                                                             \
		READ_MODE(flags)                                                      \
		OPEN_BODY(name, dirfd, REAL(name)(dirfd, path, flags, mode))          \
	}

#define SHAPE_OPEN2(name, cls, ret, params, args)                                     \
	SHIM_EXPORT ret name(const char *path, int flags)                             \
	{                                                                             \
		const mode_t mode = 0;                                                \
		OPEN_BODY(name, AT_FDCWD, REAL(name)(path, flags))                    \
	}

#define SHAPE_OPENAT2(name, cls, ret, params, args)                                   \
	SHIM_EXPORT ret name(int dirfd, const char *path, int flags)                  \
	{                                                                             \
		const mode_t mode = 0;                                                \
		OPEN_BODY(name, dirfd, REAL(name)(dirfd, path, flags))                \
	}

#define SHAPE_CREAT(name, cls, ret, params, args)                                     \
	SHIM_EXPORT ret name(const char *path, mode_t mode)                           \
	{                                                                             \
		const int flags = O_CREAT | O_WRONLY | O_TRUNC;                       \
		OPEN_BODY(name, AT_FDCWD, REAL(name)(path, mode))                     \
	}

#define SHAPE_FOPEN(name, cls, ret, params, args)                                     \
	SHIM_EXPORT ret name params                                                   \
	{                                                                             \
		int fd = -1;                                                          \
		FILE *f_;                                                              \
		switch (shim_begin_fopen(SYM_##name, path, mode, &fd)) {              \
		case SHIM_DENY:                                                       \
			return NULL;                                                  \
		case SHIM_DONE:                                                       \
			if (fd < 0)                                                   \
				return NULL;                                          \
			f_ = fdopen(fd, mode);                                         \
			if (!f_) {                                                     \
				int e_ = errno;                                       \
				close(fd);                                            \
				errno = e_;                                           \
			}                                                             \
			return f_;                                                     \
		case SHIM_VERIFY:                                                     \
			f_ = REAL(name) args;                                          \
			if (!f_ && errno == EACCES)                                   \
				shim_read_failed(SYM_##name, AT_FDCWD, path);         \
			if (f_ && !shim_check_opened_read(SYM_##name, path, fileno(f_))) { \
				fclose(f_);                                            \
				errno = EACCES;                                       \
				return NULL;                                          \
			}                                                             \
			return f_;                                                     \
		case SHIM_PASS:                                                       \
		case SHIM_VIA:                                                        \
			break;                                                        \
		}                                                                     \
		return REAL(name) args;                                               \
	}

#define FOLLOW SHIM_FOLLOW
#define NOFOLLOW SHIM_NOFOLLOW
#define FOLLOW_VIA SHIM_FOLLOW_VIA
/* NOVIA rows let libc do the call; the expression is never evaluated.
 * The row's argument arrives here expanded, hence the name test. */
#define NOVIA shim_novia()

static inline int shim_novia(void)
{
	abort();
}

#define HAS_VIA(via) (__builtin_strstr(#via, "shim_novia") == NULL)

/* A path call that failed with EACCES after the shim let it through: the
 * kernel layer may have refused it (shim_refused_after). */
#define AFTER(name, ret, r, da, a, db, b)                                             \
	do {                                                                          \
		if ((r) == FAIL(ret) && errno == EACCES)                              \
			shim_refused_after(SYM_##name, da, a, db, b, -1);             \
	} while (0)

#define SHAPE_PATH(name, cls, ret, params, args, dirfd, path_, atflags, how, via)     \
	SHIM_EXPORT ret name params                                                   \
	{                                                                             \
		struct shim_target tgt_;                                                 \
		ret r_;                                                               \
		switch (shim_begin_path(SYM_##name, dirfd, path_, atflags, how,       \
					HAS_VIA(via), &tgt_)) {                          \
		case SHIM_DENY:                                                       \
			return FAIL(ret);                                             \
		case SHIM_VIA: {                                                      \
			const int P = tgt_.pfd;                                          \
			const char *const N = tgt_.leaf;                                 \
			struct shim_target *const T = &tgt_;                             \
			char pbuf[PATH_MAX];                                          \
			(void)P, (void)N, (void)T, (void)pbuf;                        \
			r_ = (ret)(intptr_t)(via);                                    \
			shim_end(&tgt_);                                                 \
			break;                                                        \
		}                                                                     \
		case SHIM_PASS:                                                       \
		case SHIM_DONE:                                                       \
		case SHIM_VERIFY:                                                     \
		default:                                                              \
			r_ = REAL(name) args;                                         \
			break;                                                        \
		}                                                                     \
		AFTER(name, ret, r_, dirfd, path_, AT_FDCWD, NULL);                   \
		return r_;                                                            \
	}

#define SHAPE_PATH2(name, cls, ret, params, args, da, a, db, b, atflags, via)         \
	SHIM_EXPORT ret name params                                                   \
	{                                                                             \
		struct shim_target ta_, tb_;                                            \
		ret r_;                                                               \
		switch (shim_begin_path2(SYM_##name, da, a, db, b, atflags, &ta_, &tb_)) { \
		case SHIM_DENY:                                                       \
			return FAIL(ret);                                             \
		case SHIM_VIA: {                                                      \
			const int P1 = ta_.pfd, P2 = tb_.pfd;                           \
			const char *const N1 = ta_.leaf, *const N2 = tb_.leaf;          \
			r_ = (ret)(via);                                              \
			shim_end(&ta_);                                                \
			shim_end(&tb_);                                                \
			break;                                                        \
		}                                                                     \
		case SHIM_PASS:                                                       \
		case SHIM_DONE:                                                       \
		case SHIM_VERIFY:                                                     \
		default:                                                              \
			r_ = REAL(name) args;                                         \
			break;                                                        \
		}                                                                     \
		AFTER(name, ret, r_, da, a, db, b);                                   \
		return r_;                                                            \
	}

/* The shapes that decide, then let libc do the call (or @callee, which
 * vfork uses to be carried out by fork), or return @refused. */
#define CHECKED(name, ret, params, args, begin, refused, callee)                       \
	SHIM_EXPORT ret name params                                                   \
	{                                                                             \
		if ((begin) == SHIM_DENY)                                             \
			return refused;                                               \
		return REAL(callee) args;                                             \
	}

#define SHAPE_FD(name, cls, ret, params, args, fd)                                    \
	CHECKED(name, ret, params, args, shim_begin_fd(SYM_##name, fd), FAIL(ret), name)

/* posix_fallocate returns an error number rather than setting errno. */
#define SHAPE_FDERR(name, cls, ret, params, args, fd)                                 \
	CHECKED(name, ret, params, args, shim_begin_fd(SYM_##name, fd), errno, name)

#define SHAPE_TEMP(name, cls, ret, params, args, path_)                               \
	CHECKED(name, ret, params, args, shim_begin_temp(SYM_##name, path_), FAIL(ret), name)

/*
 * POSIX shared memory and named semaphores (shim.c's shim_ipc_path): the
 * name becomes a path as glibc makes it, in the run's own directory under
 * cordon run with private-ipc; glibc's own calls are never made, so that
 * every semaphore of the process is one the shim mapped (SEMCLOSE).
 */
#define IPC_PATH(name_, prefix)                                                      \
	char path[PATH_MAX];                                                          \
	{                                                                             \
		int e_ = shim_ipc_path(name_, prefix, path);                          \
		if (e_ < 0) {                                                         \
			errno = -e_;                                                  \
			return IPC_FAIL;                                              \
		}                                                                     \
	}

/* shm_open(name, oflag, mode): open(2) of the file, as glibc does. */
#define SHAPE_SHMOPEN(name, cls, ret, params, args)                                   \
	SHIM_EXPORT ret name(const char *name_, int oflag, mode_t mode)               \
	{                                                                             \
		enum { IPC_FAIL = -1 };                                               \
		IPC_PATH(name_, "")                                                   \
		const int flags = oflag | O_NOFOLLOW | O_CLOEXEC;                     \
		OPEN_BODY(name, AT_FDCWD,                                             \
			  (int)syscall(SYS_openat, AT_FDCWD, path, flags, mode))      \
	}

/* shm_unlink, sem_unlink: unlink(2) of the file, decided as a removal. */
#define SHAPE_IPCUNLINK(name, cls, ret, params, args, prefix)                         \
	SHIM_EXPORT ret name(const char *name_)                                       \
	{                                                                             \
		enum { IPC_FAIL = -1 };                                               \
		IPC_PATH(name_, prefix)                                               \
		struct shim_target tgt_;                                                 \
		int r_;                                                               \
		switch (shim_begin_path(SYM_##name, AT_FDCWD, path, 0, SHIM_NOFOLLOW, true, \
					&tgt_)) {                                        \
		case SHIM_DENY:                                                       \
			return -1;                                                    \
		case SHIM_VIA:                                                        \
			r_ = (int)syscall(SYS_unlinkat, tgt_.pfd, tgt_.leaf, 0);         \
			shim_end(&tgt_);                                                 \
			break;                                                        \
		case SHIM_PASS:                                                       \
		case SHIM_DONE:                                                       \
		case SHIM_VERIFY:                                                     \
		default:                                                              \
			r_ = (int)syscall(SYS_unlinkat, AT_FDCWD, path, 0);           \
			break;                                                        \
		}                                                                     \
		AFTER(name, ret, r_, AT_FDCWD, path, AT_FDCWD, NULL);                 \
		return r_;                                                            \
	}

/* sem_open(name, oflag[, mode, value]): the mode and value only with O_CREAT. */
#define SHAPE_SEMOPEN(name, cls, ret, params, args)                                   \
	SHIM_EXPORT ret name(const char *name_, int oflag, ...)                       \
	{                                                                             \
		sem_t *const IPC_FAIL = SEM_FAILED;                                   \
		mode_t mode = 0;                                                      \
		unsigned value = 0;                                                   \
		if (oflag & O_CREAT) {                                                \
			va_list ap;                                                   \
			va_start(ap, oflag);                                          \
			mode = va_arg(ap, mode_t);                                    \
			value = va_arg(ap, unsigned);                                 \
			va_end(ap);                                                   \
		}                                                                     \
		IPC_PATH(name_, "sem.")                                               \
		(void)IPC_FAIL;                                                       \
		return shim_sem_open(SYM_##name, path, oflag, mode, value);           \
	}

/* sem_close: every semaphore of the process was mapped by sem_open above. */
#define SHAPE_SEMCLOSE(name, cls, ret, params, args)                                  \
	SHIM_EXPORT ret name(sem_t *sem)                                              \
	{                                                                             \
		return shim_sem_close(sem);                                           \
	}

#define SHAPE_NET(name, cls, ret, params, args, fd, sa, len)                          \
	CHECKED(name, ret, params, args, shim_begin_net(SYM_##name, fd, sa, len), FAIL(ret), \
		name)

#define SHAPE_LISTEN(name, cls, ret, params, args, fd)                                \
	CHECKED(name, ret, params, args, shim_begin_listen(SYM_##name, fd), FAIL(ret), name)

#define SHAPE_NETMMSG(name, cls, ret, params, args)                                   \
	SHIM_EXPORT ret name params                                                   \
	{                                                                             \
		for (unsigned i = 0; v && i < n; i++)                                 \
			if (shim_begin_net(SYM_##name, fd, v[i].msg_hdr.msg_name,     \
					   v[i].msg_hdr.msg_namelen) == SHIM_DENY)    \
				return -1;                                            \
		return REAL(name) args;                                               \
	}

#define SHAPE_EXEC(name, cls, ret, params, args, envp, deny, callee)                          \
	SHIM_EXPORT ret name params                                                   \
	{                                                                             \
		if (CLASS_##cls == CLASS_spawn &&                                     \
		    shim_begin_spawn(SYM_##name) == SHIM_DENY)                        \
			return deny;                                                  \
		char **ENV = shim_env(envp);                                          \
		ret r_ = REAL(callee) args;                                           \
		shim_env_free(ENV, envp);                                             \
		return r_;                                                            \
	}

/* execl(path, arg0, ..., NULL[, envp]): gather into a vector and call
 * the vector form (itself wrapped). */
#define SHAPE_EXECL(name, cls, ret, params, args, vector, with_envp)                  \
	SHIM_EXPORT ret name(const char *path, const char *arg, ...)                  \
	{                                                                             \
		va_list ap;                                                           \
		size_t argc = 1;                                                      \
		va_start(ap, arg);                                                    \
		while (va_arg(ap, const char *))                               \
			argc++;                                                       \
		va_end(ap);                                                           \
		if (argc > 65536) {                                                   \
			errno = E2BIG;                                                \
			return -1;                                                    \
		}                                                                     \
		char **argv = __builtin_alloca((argc + 1) * sizeof(char *));          \
		char *const *envp = NULL;                                             \
		va_start(ap, arg);                                                    \
		argv[0] = (char *)arg;                                                \
		for (size_t i = 1; i < argc; i++)                             \
			argv[i] = va_arg(ap, char *);                                 \
		argv[argc] = NULL;                                                    \
		(void)va_arg(ap, char *); /* the NULL that ends the list */           \
		if (with_envp)                                                        \
			envp = va_arg(ap, char *const *);                             \
		va_end(ap);                                                           \
		return with_envp ? execve(path, argv, envp) : vector(path, argv);     \
	}

#define SHAPE_CWD(name, cls, ret, params, args)                                       \
	SHIM_EXPORT ret name params                                                   \
	{                                                                             \
		ret r_ = REAL(name) args;                                             \
		if (r_ == 0)                                                          \
			shim_cwd_changed(false);                                      \
		return r_;                                                            \
	}

#define SHAPE_CWDX(name, cls, ret, params, args, when)                                \
	SHIM_EXPORT ret name params                                                   \
	{                                                                             \
		if (when)                                                             \
			shim_cwd_changed(true);                                       \
		return REAL(name) args;                                               \
	}

#define SHAPE_SPAWN(name, cls, ret, params, args, deny, callee)                       \
	CHECKED(name, ret, params, args, shim_begin_spawn(SYM_##name), deny, callee)

/*
 * vfork: the child runs on its parent's stack until it execs or exits. A C
 * wrapper that called vfork would return twice from one frame, and the
 * child's next call would overwrite that frame under the suspended parent.
 * So on x86-64 the decision is a call that returns before vfork, and vfork
 * itself is reached by a jump: when it returns (twice), it returns straight
 * to the program, nothing of the shim's left on the stack. Shells (dash),
 * gcc's driver and Python's subprocess vfork for every program they run;
 * a fork in its place copies their page tables each time (2 ms a command
 * for dash here). Elsewhere vfork is carried out by fork.
 */
#if defined(__x86_64__) && defined(__ELF__)
/* libc's vfork, or NULL (errno set) when the policy refuses subprocesses. */
__attribute__((used)) void *shim_vfork_target(void);
void *shim_vfork_target(void)
{
	if (shim_begin_spawn(SYM_vfork) == SHIM_DENY)
		return NULL;
	return shim_real(SYM_vfork);
}

#ifdef __CET__
#define VFORK_ENDBR "	endbr64\n"
#else
#define VFORK_ENDBR ""
#endif

/* On entry the stack is 8 off 16-byte alignment (the return address):
 * 8 more for the call, given back before the jump. */
#define SHAPE_VFORK(name, cls, ret, params, args)                                     \
	__asm__(".pushsection .text\n"                                                \
		".globl " #name "\n"                                                   \
		".type " #name ", @function\n"                                         \
		#name ":\n"                                                            \
		"	.cfi_startproc\n"                                              \
		VFORK_ENDBR                                                          \
		"	subq $8, %rsp\n"                                               \
		"	.cfi_adjust_cfa_offset 8\n"                                    \
		"	call shim_vfork_target\n"                                      \
		"	addq $8, %rsp\n"                                               \
		"	.cfi_adjust_cfa_offset -8\n"                                   \
		"	testq %rax, %rax\n"                                            \
		"	jz 1f\n"                                                       \
		"	jmp *%rax\n"                                                   \
		"1:	movl $-1, %eax\n"                                              \
		"	ret\n"                                                         \
		"	.cfi_endproc\n"                                                \
		".size " #name ", .-" #name "\n"                                        \
		".popsection\n");
#else
#define SHAPE_VFORK(name, cls, ret, params, args)                                     \
	CHECKED(name, ret, params, args, shim_begin_spawn(SYM_##name), -1, fork)
#endif

#define SYM(name, shape, cls, ret, params, args, ...) \
	SHAPE_##shape(name, cls, ret, params, args, ##__VA_ARGS__)
#include "syms.def"
#undef SYM
