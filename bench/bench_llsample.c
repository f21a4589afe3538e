/*
 * bench_llsample.c - the reference point the issue names: a sandbox with
 * the semantics of the kernel's sample Landlock sandboxer
 * (samples/landlock/sandboxer.c), for comparing in the same run.
 *
 *   bench_llsample RO[:RO...] RW[:RW...] PROGRAM [ARGS...]
 *
 * Like the sample, it handles every file system right the running kernel
 * knows (reads included), grants execute, read-file and read-dir beneath
 * each RO path and every right beneath each RW path, restricts itself
 * and execs PROGRAM. No network or scope rules (the sample adds them only
 * when asked). Written for cordon's bench from the Landlock documentation;
 * not a copy of the sample.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/landlock.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#define RO_RIGHTS                                                                       \
	((uint64_t)LANDLOCK_ACCESS_FS_EXECUTE | LANDLOCK_ACCESS_FS_READ_FILE |             \
	 LANDLOCK_ACCESS_FS_READ_DIR)
#define FILE_RIGHTS                                                                     \
	((uint64_t)LANDLOCK_ACCESS_FS_EXECUTE | LANDLOCK_ACCESS_FS_WRITE_FILE |            \
	 LANDLOCK_ACCESS_FS_READ_FILE | (1ULL << 14) /* TRUNCATE */ |                      \
	 (1ULL << 15) /* IOCTL_DEV */)

/* Every file system right of ABI n: 13 rights in ABI 1, REFER in 2,
 * TRUNCATE in 3, IOCTL_DEV in 5. */
static uint64_t fs_rights(long abi)
{
	int bits = abi >= 5 ? 16 : abi >= 3 ? 15 : abi >= 2 ? 14 : 13;

	return (1ULL << bits) - 1;
}

static int add_rules(int ruleset, char *list, uint64_t rights)
{
	for (char *p = strtok(list, ":"); p; p = strtok(NULL, ":")) {
		struct landlock_path_beneath_attr pb = { 0 };
		struct stat st;

		pb.parent_fd = open(p, O_PATH | O_CLOEXEC);
		if (pb.parent_fd < 0 || fstat(pb.parent_fd, &st) < 0) {
			fprintf(stderr, "bench_llsample: %s: %s\n", p, strerror(errno));
			return -1;
		}
		pb.allowed_access = S_ISDIR(st.st_mode) ? rights : rights & FILE_RIGHTS;
		if (syscall(SYS_landlock_add_rule, ruleset, LANDLOCK_RULE_PATH_BENEATH, &pb, 0)) {
			fprintf(stderr, "bench_llsample: rule for %s: %s\n", p, strerror(errno));
			return -1;
		}
		close(pb.parent_fd);
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct landlock_ruleset_attr attr = { 0 };
	long abi;
	int ruleset;

	if (argc < 4) {
		fprintf(stderr, "usage: bench_llsample RO[:RO...] RW[:RW...] PROGRAM [ARGS...]\n");
		return 2;
	}
	abi = syscall(SYS_landlock_create_ruleset, NULL, 0, LANDLOCK_CREATE_RULESET_VERSION);
	if (abi < 1) {
		fprintf(stderr, "bench_llsample: Landlock is not available: %s\n", strerror(errno));
		return 1;
	}
	attr.handled_access_fs = fs_rights(abi);
	ruleset = (int)syscall(SYS_landlock_create_ruleset, &attr, sizeof(attr.handled_access_fs), 0);
	if (ruleset < 0) {
		perror("bench_llsample: landlock_create_ruleset");
		return 1;
	}
	if (add_rules(ruleset, argv[1], RO_RIGHTS & attr.handled_access_fs) ||
	    add_rules(ruleset, argv[2], attr.handled_access_fs))
		return 1;
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) ||
	    syscall(SYS_landlock_restrict_self, ruleset, 0)) {
		perror("bench_llsample: landlock_restrict_self");
		return 1;
	}
	close(ruleset);
	execvp(argv[3], argv + 3);
	fprintf(stderr, "bench_llsample: %s: %s\n", argv[3], strerror(errno));
	return 127;
}
