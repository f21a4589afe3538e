/*
 * mem.c - memory mapped ahead (mem.h).
 */
#include <stdint.h>
#include <sys/mman.h>
#include <unistd.h>

#include "mem.h"

/* Linux 5.14's; musl's headers (cordon's C library) do not name it yet.
 * An older kernel refuses it (EINVAL), and the pages fault in as before. */
#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif

void mem_populate(const void *start, size_t bytes)
{
	uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
	uintptr_t from = (uintptr_t)start & ~(page - 1);
	uintptr_t to = ((uintptr_t)start + bytes + page - 1) & ~(page - 1);

	if (bytes && to > from)
		(void)madvise((void *)from, to - from, MADV_POPULATE_WRITE);
}

void stack_populate(const void *top, size_t bytes)
{
	uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
	uintptr_t end = (uintptr_t)top & ~(page - 1);

	if (end > bytes)
		mem_populate((const void *)(end - bytes), bytes);
}
