/*
 * test_devices.c - the devices every program may write (policy_add_devices):
 * opened for writing and truncated, yes; created, removed, renamed or
 * chmod'ed, no; and nothing beside them in /dev.
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
