/*
 * noop.c - the backend that enforces nothing in the kernel. Chosen only
 * by name (backend noop); every feature it reports is shim-only, so a run
 * under it needs on-unsupported warn or ignore, and says so.
 */
#include <string.h>

#include "jail.h"

static int noop_probe(const struct policy *pol, bool full, struct jail_host *host)
{
	(void)pol;
	(void)full;
	memset(host, 0, sizeof(*host));
	return 0;
}

static size_t noop_features(const struct policy *pol, const struct jail_host *host,
			    struct jail_feature *out, size_t max)
{
	(void)host;
	if (max < 1)
		return 0;
	out[0] = (struct jail_feature){ "every restriction", NULL,
					"dynamically linked programs only",
					pol->mode.value == MODE_ENFORCE };
	return 1;
}

static int noop_apply(const struct policy *pol, const struct jail_host *host, int *supervise,
		      char *err, size_t errsize)
{
	(void)pol;
	(void)host;
	*supervise = -1;
	(void)err;
	(void)errsize;
	return 0;
}

const struct jail_backend jail_noop = {
	.name = "noop",
	.probe = noop_probe,
	.features = noop_features,
	.apply = noop_apply,
};

/* The platform's own backend: linux.c (or seatbelt.c) defines it; where
 * none is built, this one stands. A function, not a variable: a weak
 * constant could be folded to NULL by the compiler. */
__attribute__((weak)) const struct jail_backend *jail_platform(void)
{
	return NULL;
}

static const struct jail_backend *platform_named(const char *name)
{
	const struct jail_backend *b = jail_platform();
	return b && strcmp(b->name, name) == 0 ? b : NULL;
}

const struct jail_backend *jail_backend(enum backend b)
{
	switch (b) {
	case BACKEND_NOOP:
		return &jail_noop;
	case BACKEND_AUTO:
		return jail_platform();
	case BACKEND_LANDLOCK:
		return platform_named("landlock");
	case BACKEND_SEATBELT:
		return platform_named("seatbelt");
	}
	return NULL;
}
