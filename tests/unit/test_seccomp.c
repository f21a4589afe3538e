/*
 * test_seccomp.c - the seccomp filter, as data and live.
 *
 * As data: the filter libseccomp builds for two policies, exported as
 * pseudo-filter code, equals the reviewed golden files in tests/golden/
 * (regenerate with CORDON_GOLDEN_UPDATE=1 after reviewing the difference).
 * Live: in a forked child with the filter loaded, each refused call fails
 * with its errno and what must keep working works.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/btrfs.h>
#include <linux/fs.h>
#include <linux/fsverity.h>
#include <netinet/in.h>
#include <pthread.h>
#include <seccomp.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../../jail/layers.h"

static void policy_with(struct policy *p, int net, int subprocess)
{
	policy_init(p);
	p->net.value = net;
	p->subprocess.value = subprocess;
}

static char *export(const struct policy *p, size_t *len)
{
	int fd = (int)syscall(SYS_memfd_create, "pfc", 0);
	char *buf;

	cr_assert_geq(fd, 0);
	cr_assert_eq(seccomp_export(p, fd), 0);
	off_t n = lseek(fd, 0, SEEK_END);
	buf = calloc(1, (size_t)n + 1);
	cr_assert_eq(pread(fd, buf, (size_t)n, 0), n);
	close(fd);
	*len = (size_t)n;
	return buf;
}

static void compare_golden(const struct policy *p, const char *name)
{
	char path[4096];
	size_t len;
	char *got = export(p, &len);
	const char *src = getenv("CORDON_SRC");

	snprintf(path, sizeof(path), "%s/tests/golden/%s", src ? src : ".", name);
	if (getenv("CORDON_GOLDEN_UPDATE")) {
		FILE *f = fopen(path, "w");
		cr_assert_not_null(f);
		fwrite(got, 1, len, f);
		fclose(f);
	}
	FILE *f = fopen(path, "r");
	cr_assert_not_null(f, "no golden file %s", path);
	char *want = calloc(1, len + 2);
	size_t n = fread(want, 1, len + 1, f);
	fclose(f);
	cr_expect(n == len && memcmp(got, want, len) == 0,
		  "the filter differs from %s; review, then CORDON_GOLDEN_UPDATE=1", path);
	free(got);
	free(want);
}

/* A run loads the filters compiled at build time: they must be exactly what
 * libseccomp builds from this source, for every shape. */
Test(seccomp_compiled, every_shape_equals_what_libseccomp_builds)
{
	for (unsigned s = 0; s < SECCOMP_SHAPES; s++) {
		struct policy p;
		int fd = (int)syscall(SYS_memfd_create, "bpf", 0);

		policy_init(&p);
		seccomp_shape_policy(s, &p);
		cr_assert_eq(seccomp_shape(&p), s);
		cr_assert_geq(fd, 0);
		cr_assert_eq(seccomp_bpf_export(&p, fd), 0);
		off_t n = lseek(fd, 0, SEEK_END);
		char *bpf = malloc((size_t)n);
		cr_assert_not_null(bpf);
		cr_assert_eq(pread(fd, bpf, (size_t)n, 0), n);
		cr_expect_eq((size_t)n, seccomp_compiled[s].len * 8u, "shape %u: %zu bytes built, %u compiled",
			     s, (size_t)n, seccomp_compiled[s].len * 8u);
		cr_expect((size_t)n != seccomp_compiled[s].len * 8u ||
			  memcmp(bpf, seccomp_compiled[s].insns, (size_t)n) == 0,
			  "shape %u: the compiled filter differs from libseccomp's", s);
		free(bpf);
		close(fd);
		policy_free(&p);
	}
}

/* The supervisor finds a call, and the audit reader names one, by number
 * in tables compiled at build time (cordon does not link libseccomp): they
 * must say what libseccomp says, number by number, on every ABI the filter
 * sends from. */
Test(seccomp_compiled, call_numbers_and_names_equal_libseccomps)
{
	const uint32_t abis[] = { SCMP_ARCH_X86_64, SCMP_ARCH_X86 };
	const char *sup[32];
	size_t nsup = supervised_names(sup, 32), seen = 0;

	for (size_t a = 0; a < sizeof(abis) / sizeof(abis[0]); a++) {
		for (uint32_t nr = 0; nr < 4096; nr++) {
			char *name = seccomp_syscall_resolve_num_arch(abis[a], (int)nr);
			const struct supervised_nr *e = NULL;
			for (size_t i = 0; i < n_supervised_nrs; i++)
				if (supervised_nrs[i].arch == abis[a] && supervised_nrs[i].nr == nr)
					e = &supervised_nrs[i];
			bool want = false;
			for (size_t i = 0; name && i < nsup; i++)
				want |= strcmp(sup[i], name) == 0;
			want |= name && strcmp(name, "socketcall") == 0;
			cr_expect_eq(e != NULL, want, "ABI %#x, call %u (%s): %s the table", abis[a], nr,
				     name ? name : "none", e ? "in" : "not in");
			if (e && name)
				cr_expect_str_eq(e->call == SUPERVISED_SOCKETCALL ? "socketcall"
										  : sup[e->call],
						 name, "ABI %#x, call %u", abis[a], nr);
			seen += e != NULL;
			free(name);
		}
	}
	cr_expect_eq(seen, n_supervised_nrs);
	cr_expect_gt(seen, 40u, "chmod to connect on two ABIs");

	for (int nr = 0; nr < 4096; nr++) {
		char *name = seccomp_syscall_resolve_num_arch(SCMP_ARCH_NATIVE, nr);
		const char *ours = (size_t)nr < n_native_syscall_names ? native_syscall_names[nr] : NULL;
		cr_expect((name == NULL) == (ours == NULL) && (!name || strcmp(name, ours) == 0),
			  "call %d: libseccomp says %s, the table %s", nr, name ? name : "none",
			  ours ? ours : "none");
		free(name);
	}
}

Test(seccomp_golden, net_none_no_subprocess)
{
	struct policy p;

	policy_with(&p, NET_NONE, 0);
	compare_golden(&p, "seccomp-net-none-no-subprocess.pfc");
	policy_free(&p);
}

Test(seccomp_golden, net_all_subprocess)
{
	struct policy p;

	policy_with(&p, NET_ALL, 1);
	compare_golden(&p, "seccomp-net-all.pfc");
	policy_free(&p);
}

/* Run @check in a child under the filter for @p; its exit status is the
 * number of failed expectations. */
static void *thread_fn(void *arg)
{
	return arg;
}

static int live_checks(void)
{
	int bad = 0, fd;

	/* refused */
	if (syscall(SYS_io_uring_setup, 1, calloc(1, 256)) != -1 || errno != ENOSYS)
		bad |= 1;
	if (socket(AF_INET, SOCK_DGRAM, 0) != -1 || errno != EACCES)
		bad |= 2;
	if (socket(AF_INET6, SOCK_RAW, 0) != -1 || errno != EACCES)
		bad |= 4;
	if (socket(AF_PACKET, SOCK_RAW, 0) != -1 || errno != EACCES)
		bad |= 8;
	if (unshare(CLONE_NEWUSER) != -1 || errno != EPERM)
		bad |= 16;
	if (syscall(SYS_fork) != -1 || errno != EACCES)
		bad |= 32;
	if (syscall(SYS_ptrace, 0, 0, 0, 0) != -1 || errno != EPERM)
		bad |= 64;
	/* TCP's other protocols (MPTCP, SCTP), also with the upper half of
	 * the argument set (the kernel would see 262 alone) */
	if (socket(AF_INET, SOCK_STREAM, 262) != -1 || errno != EPROTONOSUPPORT)
		bad |= 1024;
	if (socket(AF_INET6, SOCK_STREAM, IPPROTO_SCTP) != -1 || errno != EPROTONOSUPPORT)
		bad |= 2048;
	if (syscall(SYS_socket, AF_INET, SOCK_STREAM, 0x100000106L) != -1 || errno != EPROTONOSUPPORT)
		bad |= 4096;
	/* TCP Fast Open, a connect by a send; a send without it reaches the
	 * socket (not connected: EPIPE) */
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons(1),
				  .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	struct iovec iov = { .iov_base = (void *)"x", .iov_len = 1 };
	struct msghdr m = { .msg_name = &sa, .msg_namelen = sizeof(sa), .msg_iov = &iov,
			    .msg_iovlen = 1 };
	fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, IPPROTO_TCP);
	if (fd < 0 ||
	    sendto(fd, "x", 1, MSG_FASTOPEN, (struct sockaddr *)&sa, sizeof(sa)) != -1 ||
	    errno != EOPNOTSUPP ||
	    sendmsg(fd, &m, MSG_FASTOPEN | MSG_NOSIGNAL) != -1 || errno != EOPNOTSUPP ||
	    send(fd, "x", 1, MSG_NOSIGNAL) != -1 || errno != EPIPE)
		bad |= 8192;
	if (fd >= 0)
		close(fd);
	/* ioctls: chattr's and btrfs's subvolume ones sent to the supervisor
	 * (unserved here: ENOSYS), the others through */
	static struct {
		int64_t fd;
		char name[4088];
	} vol = { 0, "sub" };
	int flags = 0;
	fd = open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0 || ioctl(fd, BTRFS_IOC_SUBVOL_CREATE, &vol) != -1 || errno != ENOSYS)
		bad |= 16384;
	if (fd < 0 || ioctl(fd, FS_IOC_SETFLAGS, &flags) != -1 || errno != ENOSYS)
		bad |= 32768;
	if (fd < 0 || (ioctl(fd, FS_IOC_GETFLAGS, &flags) < 0 && errno == ENOSYS))
		bad |= 65536;
	if (fd >= 0)
		close(fd);
	/* still working */
	fd = socket(AF_INET, SOCK_STREAM, 0);
	if (fd < 0)
		bad |= 128;
	else
		close(fd);
	fd = socket(AF_UNIX, SOCK_STREAM, 0);
	if (fd < 0)
		bad |= 256;
	else
		close(fd);
	pthread_t t;
	if (pthread_create(&t, NULL, thread_fn, NULL) != 0 || pthread_join(t, NULL) != 0)
		bad |= 512;
	return bad;
}

/* The supervisor's table of ioctl numbers, written out by hand, against
 * the kernel's headers. */
Test(seccomp_compiled, supervised_ioctls_are_the_kernels_numbers)
{
	const unsigned long want[] = {
		FS_IOC_SETFLAGS, FS_IOC32_SETFLAGS, FS_IOC_SETVERSION, FS_IOC32_SETVERSION,
		FS_IOC_FSSETXATTR, FS_IOC_ENABLE_VERITY, FS_IOC_SET_ENCRYPTION_POLICY,
		BTRFS_IOC_SUBVOL_CREATE, BTRFS_IOC_SUBVOL_CREATE_V2, BTRFS_IOC_SNAP_CREATE,
		BTRFS_IOC_SNAP_CREATE_V2, BTRFS_IOC_SNAP_DESTROY, BTRFS_IOC_SNAP_DESTROY_V2,
		BTRFS_IOC_SUBVOL_SETFLAGS, BTRFS_IOC_SET_RECEIVED_SUBVOL,
		/* ext4's own (its header is not the kernel's uapi here) */
		_IOW('f', 4, long), _IOW('f', 4, int), _IO('f', 9),
	};
	uint32_t got[32];
	size_t n = supervised_ioctls(got, 32);

	cr_expect_eq(n, sizeof(want) / sizeof(want[0]) + 1);  /* and btrfs's i386 one */
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		size_t j = 0;
		while (j < n && got[j] != (uint32_t)want[i])
			j++;
		cr_expect_lt(j, n, "ioctl %#lx is not sent to the supervisor", want[i]);
	}
}

Test(seccomp_live, userns_yes_allows_new_namespaces_not_mount)
{
	struct policy p;
	char err[256] = "";
	int status;

	policy_with(&p, NET_ALL, 1);
	p.userns.value = 1;
	pid_t pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
		int listener;
		if (seccomp_apply(&p, &listener, err, sizeof(err)) != 0 || listener < 0)
			_exit(255);
		close(listener);  /* unserved: supervised calls fail ENOSYS */
		if (unshare(CLONE_NEWUSER) != 0)
			_exit(1);
		if (syscall(SYS_mount, "none", "/", "tmpfs", 0, NULL) != -1 || errno != EPERM)
			_exit(2);
		_exit(0);
	}
	cr_assert_eq(waitpid(pid, &status, 0), pid);
	cr_expect(WIFEXITED(status) && WEXITSTATUS(status) == 0, "status %d", status);
	policy_free(&p);
}

Test(seccomp_live, refused_calls_fail_and_threads_work)
{
	struct policy p;
	char err[256] = "";
	int status;

	policy_with(&p, NET_NONE, 0);
	pid_t pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
		int listener;
		if (seccomp_apply(&p, &listener, err, sizeof(err)) != 0 || listener < 0)
			_exit(255);
		close(listener);  /* unserved: supervised calls fail ENOSYS */
		int bad = live_checks();
		if (bad)
			fprintf(stderr, "live checks failed: %#x\n", (unsigned)bad);
		_exit(bad ? 1 : 0);
	}
	cr_assert_eq(waitpid(pid, &status, 0), pid);
	cr_expect(WIFEXITED(status) && WEXITSTATUS(status) == 0,
		  "status %d: a refused call went through or a needed one failed", status);
	policy_free(&p);
}
