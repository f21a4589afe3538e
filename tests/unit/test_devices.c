/*
 * test_devices.c - the devices every program may write (policy_add_devices):
 * opened for writing and truncated, yes; created, removed, renamed or
 * chmod'ed, no; and nothing beside them in /dev. With read-deny in force,
 * the only devices read too.
 */
#include <criterion/criterion.h>
#include <string.h>

#include "../../shim/policy.h"

static struct policy pol;

static void setup(void)
{
	policy_init(&pol);
	cr_assert_eq(policy_add_devices(&pol), 0);
}

static void teardown(void)
{
	policy_free(&pol);
}

static struct decision decide(enum op op, const char *path)
{
	struct decision d;

	policy_decide_path(&pol, op, path, strlen(path), &d);
	return d;
}

Test(devices, write_data_to_dev_null_allowed, .init = setup, .fini = teardown)
{
	struct decision d = decide(OP_WRITE_DATA, "/dev/null");

	cr_expect(d.allow);
	cr_expect_eq(d.reason, REASON_DEVICE);
	cr_expect_str_eq(d.matched, "/dev/null");
}

Test(devices, pts_beneath_allowed, .init = setup, .fini = teardown)
{
	struct decision d = decide(OP_WRITE_DATA, "/dev/pts/7");

	cr_expect(d.allow);
	cr_expect_str_eq(d.matched, "/dev/pts");
}

Test(devices, removing_or_creating_a_device_refused, .init = setup, .fini = teardown)
{
	static const char *const paths[] = { "/dev/null", "/dev/tty", "/dev/pts/3" };

	for (size_t i = 0; i < sizeof(paths) / sizeof(paths[0]); i++) {
		struct decision d = decide(OP_WRITE, paths[i]);
		cr_expect(!d.allow, "%s", paths[i]);
		cr_expect_eq(d.reason, REASON_DEVICE_ENTRY, "%s", paths[i]);
	}
}

Test(devices, other_dev_entries_outside, .init = setup, .fini = teardown)
{
	static const char *const paths[] = { "/dev/sda", "/dev/nullx", "/dev/shm/x", "/dev" };

	for (size_t i = 0; i < sizeof(paths) / sizeof(paths[0]); i++) {
		struct decision d = decide(OP_WRITE_DATA, paths[i]);
		cr_expect(!d.allow, "%s", paths[i]);
		cr_expect_eq(d.reason, REASON_OUTSIDE_ROOTS, "%s", paths[i]);
	}
}

Test(devices, reads_unchanged, .init = setup, .fini = teardown)
{
	struct decision d = decide(OP_READ, "/dev/null");

	cr_expect(d.allow);
}

/* With a read-deny entry in force, /dev is read where programs read it:
 * the devices above and the directories of plain files in it; no disk
 * (whose blocks hold the very files read-deny keeps), no console, no
 * input device. Without one, reads are not decided at all. */
static const struct rule deny_rule = { NULL, "t", 1, "read-deny /home/u/.ssh" };

static void deny_something(void)
{
	cr_assert_eq(pathset_add(&pol.paths, "/home/u/.ssh", PATH_READ_DENY, &deny_rule), 0);
	pol.n_read_deny++;
}

Test(devices, read_deny_reads_only_common_devices, .init = setup, .fini = teardown)
{
	static const char *const refused[] = { "/dev/sda", "/dev/sda1", "/dev/nvme0n1", "/dev/zram0",
					       "/dev/tty1", "/dev/vcs", "/dev/input/event0",
					       "/dev/kmsg", "/dev/shmx", "/dev/mqueuex/a" };
	static const char *const allowed[] = { "/dev/null", "/dev/urandom", "/dev/tty", "/dev/pts/3",
					       "/dev/shm", "/dev/shm/x", "/dev/mqueue/q",
					       "/dev/hugepages/f", "/dev", "/devx/sda" };

	deny_something();
	for (size_t i = 0; i < sizeof(refused) / sizeof(refused[0]); i++) {
		struct decision d = decide(OP_READ, refused[i]);
		cr_expect(!d.allow, "%s", refused[i]);
		cr_expect_eq(d.reason, REASON_DEVICE_READ, "%s: %s", refused[i],
			     reason_text(d.reason));
	}
	for (size_t i = 0; i < sizeof(allowed) / sizeof(allowed[0]); i++)
		cr_expect(decide(OP_READ, allowed[i]).allow, "%s", allowed[i]);
	cr_expect_eq(decide(OP_READ, "/dev/null").reason, REASON_DEVICE);
	/* Writes are decided as before. */
	cr_expect_eq(decide(OP_WRITE_DATA, "/dev/sda").reason, REASON_OUTSIDE_ROOTS);
}

Test(devices, no_read_deny_reads_every_device, .init = setup, .fini = teardown)
{
	static const char *const paths[] = { "/dev/sda", "/dev/tty1", "/dev/input/event0" };

	for (size_t i = 0; i < sizeof(paths) / sizeof(paths[0]); i++) {
		struct decision d = decide(OP_READ, paths[i]);
		cr_expect(d.allow, "%s", paths[i]);
		cr_expect_eq(d.reason, REASON_READ_DEFAULT, "%s", paths[i]);
	}
}

Test(devices, write_root_on_a_device_reads_it, .init = setup, .fini = teardown)
{
	static const struct rule w = { NULL, "t", 2, "write /dev/sdb" };

	deny_something();
	cr_assert_eq(pathset_add(&pol.paths, "/dev/sdb", PATH_WRITE, &w), 0);
	cr_expect(decide(OP_READ, "/dev/sdb").allow);
	cr_expect_eq(decide(OP_READ, "/dev/sdb").reason, REASON_WRITE_ROOT);
	cr_expect(!decide(OP_READ, "/dev/sda").allow);
}
