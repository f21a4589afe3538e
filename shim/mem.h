/*
 * mem.h - memory mapped ahead in one call rather than a page fault at a
 * time: on these VMs a fault costs ~10 µs, a page mapped by
 * madvise(MADV_POPULATE_WRITE) 0.5 µs. Linked into the shim and the
 * launcher; where the call is unknown (before Linux 5.14) or the range is
 * not all mapped, it fails and nothing changes.
 */
#ifndef CORDON_MEM_H
#define CORDON_MEM_H

#include <stddef.h>

/* The pages holding [@start, @start + @bytes). */
void mem_populate(const void *start, size_t bytes);

/* The @bytes of stack below @top (an address in the caller's frame, or
 * main's argv: the top of the initial stack). The kernel makes the initial
 * stack's mapping 128 KiB larger than the arguments at exec. */
void stack_populate(const void *top, size_t bytes);

#endif /* CORDON_MEM_H */
