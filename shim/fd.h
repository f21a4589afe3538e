/*
 * fd.h - where cordon keeps the descriptors it hands over or holds inside a
 * program (the policy memfd, the log pipe, the shim's root descriptors):
 * high, out of the way of the program's own numbering, so that fd 3 is
 * still the program's and `exec 3>log` clobbers nothing of cordon's.
 */
#ifndef CORDON_FD_H
#define CORDON_FD_H

#include <stdbool.h>

/* Move @fd to the lowest free number at or above 512 (1000 when the limit
 * on open files allows), close-on-exec if @cloexec. Returns the new number,
 * or @fd itself when it cannot be moved. Raw system calls, errno kept: the
 * shim calls it inside other programs. */
int fd_move_high(int fd, bool cloexec);

#endif /* CORDON_FD_H */
