/*
 * alloc.h - the allocator of cordon's musl build (alloc.c).
 */
#ifndef CORDON_ALLOC_H
#define CORDON_ALLOC_H

#include <stddef.h>

void *cordon_malloc(size_t n);
void cordon_free(void *p);
void *cordon_calloc(size_t count, size_t size);
void *cordon_realloc(void *p, size_t n);
void *cordon_aligned_alloc(size_t align, size_t n);
size_t cordon_malloc_usable_size(void *p);

#endif
