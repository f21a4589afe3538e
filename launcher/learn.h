/*
 * learn.h - `cordon learn`: the policy one run of a program needs.
 */
#ifndef CORDON_LEARN_H
#define CORDON_LEARN_H

#include "../shim/policy.h"
#include "cli.h"

/* Run @cli's program under @pol in mode warn and write the policy that
 * would let that run pass to @cli->output (renamed into place) or stdout.
 * @home and @workspace shorten the paths written. Returns the program's
 * exit status; dies (125) when the policy cannot be written. */
int cmd_learn(const struct cli *cli, struct policy *pol, const char *home, const char *workspace,
	      const char *tmpdir);

#endif /* CORDON_LEARN_H */
