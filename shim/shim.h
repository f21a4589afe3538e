/*
 * shim.h - what the generated wrappers (wrappers.c) ask of the shim's
 * core (shim.c). Internal to libcordon.so.
 *
 * A wrapper classifies its call, asks one of the shim_begin_* functions,
 * and acts on the verdict:
 *   SHIM_PASS  call libc's own function with the original arguments
 *              (the shim is off, not ready, or the call is allowed and the
 *              shim has nothing better to do than let libc do it);
 *   SHIM_DENY  return failure: errno is set (EACCES for a refusal, or the
 *              error the kernel would give first, e.g. EEXIST);
 *   SHIM_VIA   perform the call on the resolved target (t->pfd, t->name)
 *              with the *at system call, then shim_end() the target;
 *   SHIM_DONE  the shim performed the call itself (open via openat2); its
 *              result is in *result;
 *   SHIM_VERIFY a read open under a policy with read-deny entries: call
 *              libc, then shim_check_opened_read() what it opened.
 * errno: on PASS and VIA it is the caller's errno as it was on entry.
 */
#ifndef CORDON_SHIM_H
#define CORDON_SHIM_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/socket.h>
#include <sys/types.h>

#define SHIM_EXPORT __attribute__((visibility("default")))

enum shim_verdict { SHIM_PASS, SHIM_DENY, SHIM_VIA, SHIM_DONE, SHIM_VERIFY };

/* Operation classes, as in syms.def. */
enum shim_class {
	CLASS_create, CLASS_write, CLASS_delete, CLASS_rename, CLASS_link, CLASS_metadata,
	CLASS_read, CLASS_connect, CLASS_bind, CLASS_exec, CLASS_spawn, CLASS_cwd, CLASS_state,
	CLASS__COUNT
};

/* One row of syms.def, for logs and counts. */
enum shim_sym {
#define SYM(name, ...) SYM_##name,
#include "syms.def"
#undef SYM
	SYM__COUNT
};

struct shim_symbol {
	const char *name;
	enum shim_class cls;
};

extern const struct shim_symbol shim_symbols[SYM__COUNT];
extern const char *const shim_class_names[CLASS__COUNT];

/* A path operand made ready for an *at call. */
struct shim_target {
	int pfd;                   /* directory to act in */
	enum shim_sym sym;         /* the call (for a VIA helper that decides) */
	const char *leaf;          /* last component, relative to pfd */
	bool close_pfd;
	bool leaf_by_via;          /* SHIM_FOLLOW_VIA: the VIA checks the leaf */
	size_t cwd_len;            /* the path is relative to a cached working
	                              directory this long (0: it is not) */
	char abs[PATH_MAX];        /* lexical absolute path, for the log */
	char rel[PATH_MAX];        /* scratch: the parent, relative to a root */
};

/* Resolve libc's own @name (dlsym RTLD_NEXT), once. Aborts with a message
 * if libc lacks it: a wrapper with nothing to call cannot keep its promise. */
void *shim_real(enum shim_sym sym);
#define REAL(name) ((__typeof__(&name))shim_real(SYM_##name))

/* Is the shim deciding? False before initialisation finished, during it
 * (the shim's own calls), and with mode off. */
bool shim_active(void);

/* open family: @dirfd/@path/@flags/@mode as given. With @result NULL, only
 * decide (never SHIM_DONE): libc performs the open. */
enum shim_verdict shim_begin_open(enum shim_sym sym, int dirfd, const char *path, int flags,
				  mode_t mode, int *result);

/* fopen family: @mode is the stdio mode string. On SHIM_DONE, *fd is an
 * open descriptor the wrapper hands to fdopen(). */
enum shim_verdict shim_begin_fopen(enum shim_sym sym, const char *path, const char *mode,
				   int *fd);
/* A read open checked after the fact (read-deny): libc opened @fd for
 * @path; false means refused (logged, errno EACCES): the caller closes. */
bool shim_check_opened_read(enum shim_sym sym, const char *path, int fd);

/* Whether a path call follows a final symlink. SHIM_FOLLOW_VIA: it does,
 * and its VIA acts on the last component without following (fchmodat2
 * with AT_SYMLINK_NOFOLLOW), failing on a symlink, so the fast path need
 * not look first; the VIA helper then decides where the link leads. */
enum shim_follow { SHIM_NOFOLLOW, SHIM_FOLLOW, SHIM_FOLLOW_VIA };

/* One path. */
enum shim_verdict shim_begin_path(enum shim_sym sym, int dirfd, const char *path, int atflags,
				  enum shim_follow how, bool via, struct shim_target *t);
/* Two paths: rename (both ends are written) and link (@b is created). */
enum shim_verdict shim_begin_path2(enum shim_sym sym, int da, const char *a, int db,
				   const char *b, int atflags, struct shim_target *ta,
				   struct shim_target *tb);
void shim_end(struct shim_target *t);

/* A descriptor the program holds. */
enum shim_verdict shim_begin_fd(enum shim_sym sym, int fd);
/* A file about to be created at @path (a mkstemp template). */
enum shim_verdict shim_begin_temp(enum shim_sym sym, const char *path);
/* Network. */
enum shim_verdict shim_begin_net(enum shim_sym sym, int fd, const struct sockaddr *sa,
				 socklen_t len);
/* listen(fd): decided on the name @fd is bound to (none: a port at random). */
enum shim_verdict shim_begin_listen(enum shim_sym sym, int fd);
/* The working directory changed (chdir, fchdir succeeded), or may change
 * unseen from now on (@untrusted: libc's nftw/fts, unshare(CLONE_FS)). */
void shim_cwd_changed(bool untrusted);

/* A new process; exec keeps the shim through shim_env(). */
enum shim_verdict shim_begin_spawn(enum shim_sym sym);

/*
 * A call the shim let through failed with errno EACCES (anything else:
 * nothing happens). If it was a write-family call and the file's own
 * permissions allow it, the kernel layer refused what the shim allowed:
 * logged and reported like a refusal, layer "kernel", errno kept. @b is
 * the second path of a rename or link (relative to @db), or NULL; @flags
 * an open's flags, or -1.
 */
/* A read open the shim let through to check it afterwards failed: with
 * EACCES on a read-deny path, logged and reported as the kernel layer's
 * refusal (it refused first). errno kept. */
void shim_read_failed(enum shim_sym sym, int dirfd, const char *path);

void shim_refused_after(enum shim_sym sym, int dirfd, const char *path, int db, const char *b,
			int flags);

/*
 * The environment to exec with: @envp (NULL: environ) with LD_PRELOAD and
 * cordon's variables put back if the program dropped them. Returns @envp
 * itself when nothing is missing; otherwise a block that shim_env_free()
 * releases (mmap, so it is safe between vfork and exec).
 */
char **shim_env(char *const *envp);
void shim_env_free(char **env, char *const *envp);

/*
 * POSIX shared memory and named semaphores (shm_open, sem_open): the file
 * of object @name, with @prefix ("sem." for a semaphore), into @out: in the
 * run's own directory under cordon run with private-ipc, else in /dev/shm
 * as glibc has it. 0, or -errno for a name glibc refuses.
 */
int shim_ipc_path(const char *name, const char *prefix, char out[PATH_MAX]);
/* sem_open of the file @path (shim_ipc_path), decided as @sym; @mode and
 * @value count with O_CREAT. */
void *shim_sem_open(enum shim_sym sym, const char *path, int oflag, mode_t mode,
		    unsigned value);
/* sem_close: 0 when @sem is one shim_sem_open mapped (now unmapped), else
 * -1 with errno EINVAL, as glibc. */
int shim_sem_close(void *sem);

/* Helpers for VIA expressions. */
int shim_remove_at(int pfd, const char *name);
/* chmod/fchmodat through a prepared target @t; @dirfd, @path, @flags as
 * the program gave them (for a final symlink, which the helper decides). */
int shim_chmod_via(struct shim_target *t, int dirfd, const char *path, mode_t mode, int flags);
const char *shim_proc_path(int pfd, const char *name, char buf[PATH_MAX]);

#endif /* CORDON_SHIM_H */
