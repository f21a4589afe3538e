/*
 * fuzz_policy.c - libFuzzer target for the policy parser.
 *
 * Feeds arbitrary bytes to policy_parse_buffer() as one policy file. Paths
 * resolve against the real file system (read-only: the parser never
 * writes), includes are searched in an empty list of directories, and
 * ${HOME}/${WORKSPACE}/${TMPDIR} are fixed. Errors are swallowed; the
 * sanitizers judge.
 */
#include <stddef.h>
#include <stdint.h>

#include "../../launcher/parse.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void quiet(void *arg, const char *file, unsigned line, const char *msg)
{
	(void)arg;
	(void)file;
	(void)line;
	(void)msg;
}

static char *fake_getenv(const char *name)
{
	static char value[] = "/tmp";
	return name[0] == 'F' ? value : NULL;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const search[] = { NULL };
	struct policy pol;
	struct parse_ctx ctx;

	policy_init(&pol);
	parse_ctx_init(&ctx, &pol);
	ctx.error = quiet;
	ctx.home = "/root";
	ctx.workspace = "/tmp";
	ctx.tmpdir = "/tmp";
	ctx.search = search;
	ctx.getenv = fake_getenv;
	policy_parse_buffer(&ctx, "/nonexistent/fuzz.policy", (const char *)data, size);
	policy_free(&pol);
	return 0;
}
