/*
 * lastrun.h - the record of the last `cordon run`, for `cordon explain
 * --last`: $XDG_STATE_HOME/cordon/last-run.jsonl, or
 * ~/.local/state/cordon/last-run.jsonl (tally_save()'s format).
 */
#ifndef CORDON_LASTRUN_H
#define CORDON_LASTRUN_H

#include <stddef.h>

#include "tally.h"

/* The record's path into @out (PATH_MAX). Returns 0, or -1 with the reason
 * in @err when neither XDG_STATE_HOME nor HOME is an absolute path. */
int lastrun_path(char *out, char *err, size_t errsize);

/*
 * Replace the record with @t and @run. The directories below
 * XDG_STATE_HOME (or HOME) are opened without following links and made
 * when missing, and the file is renamed into place, so that a link a
 * sandboxed program left there cannot send the write elsewhere. Returns
 * 0, or -1 with errno set.
 */
int lastrun_save(const struct tally *t, const struct tally_run *run);

#endif /* CORDON_LASTRUN_H */
