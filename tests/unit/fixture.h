/*
 * fixture.h - what several suites need to clean up their temporary trees.
 * Header-only (static inline): each suite is one translation unit.
 */
#ifndef CORDON_TESTS_FIXTURE_H
#define CORDON_TESTS_FIXTURE_H

#include <ftw.h>
#include <stdio.h>
#include <sys/stat.h>

static inline int fixture_remove_entry(const char *path, const struct stat *st, int type,
				       struct FTW *ftw)
{
	(void)st;
	(void)type;
	(void)ftw;
	return remove(path);
}

/* rm -rf @dir, staying on its file system and never following a link out. */
static inline int fixture_rmtree(const char *dir)
{
	return nftw(dir, fixture_remove_entry, 16, FTW_DEPTH | FTW_PHYS | FTW_MOUNT);
}

#endif /* CORDON_TESTS_FIXTURE_H */
