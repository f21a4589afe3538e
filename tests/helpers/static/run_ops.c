/*
 * run_ops.c (static) - tests/helpers/run_ops.c, statically linked into
 * run_ops-static: the same operations in a program the shim cannot see,
 * so only the kernel layer of `cordon run` stands in its way. The two
 * operations that look libc up at run time (rtld-write, dlopen-write) are
 * left out: a static program has no dynamic libc to find.
 */
#define RUN_OPS_STATIC 1
#include "../run_ops.c"
