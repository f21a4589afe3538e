/*
 * seatbelt.c - the "seatbelt" backend: macOS's sandbox, with the profile
 * jail/sbpl.c writes for the policy.
 *
 * The profile is applied in the child, just before exec, with
 * sandbox_init(3) and the profile's text: what `sandbox-exec -p PROFILE`
 * does, without exec'ing sandbox-exec first. That matters: sandbox-exec is
 * a platform binary, System Integrity Protection strips DYLD_* from its
 * environment, and the program it started would run without the shim. A
 * sandbox, once applied, holds for the process and everything it starts;
 * there is no supervisor (Seatbelt decides metadata calls and unix sockets
 * itself).
 *
 * Not built or run on the machines the suites run on: sbpl.c, which makes
 * the profile, is, and is tested there.
 */
#ifdef __APPLE__

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* sandbox_init() is deprecated in the SDK, not gone: it is what
 * sandbox-exec and every command-line sandbox on macOS use. */
#pragma clang diagnostic push
#pragma clang diagnostic ignored "-Wdeprecated-declarations"
#include <sandbox.h>

#include "jail.h"
#include "sbpl.h"

static int seatbelt_probe(const struct policy *pol, bool full, struct jail_host *host)
{
	(void)pol;
	(void)full;
	memset(host, 0, sizeof(*host));
	return 0;  /* every macOS since 10.5 has it; applying says if not */
}

static size_t seatbelt_features(const struct policy *pol, const struct jail_host *h,
				struct jail_feature *out, size_t max)
{
	(void)h;
	const struct jail_feature all[] = {
		{ "writes outside the write roots", "Seatbelt", "refuses and explains, before the call",
		  true },
		{ "reads of read-deny entries", "Seatbelt", "refuses after resolving",
		  pol->n_read_deny > 0 },
		{ "read-deny inside a write root", "Seatbelt", "refuses", false },
		{ "writes beneath write-deny entries", "Seatbelt", "refuses", pol->n_write_deny > 0 },
		{ "chmod, chown, utimes, xattrs outside", "Seatbelt", "refuses", false },
		{ "TCP connects to unlisted ports", "Seatbelt", "refuses", pol->net.value == NET_NONE },
		{ "TCP binds to unlisted ports", "Seatbelt", "refuses", pol->net.value == NET_NONE },
		{ "UDP, raw and other sockets (net none)", "Seatbelt", "refuses sendto/connect",
		  pol->net.value == NET_NONE },
		/* The host's loopback stands in: other programs listening
		 * there are reachable, unlike in a namespace of its own. */
		{ "a private network (net isolated)", NULL, "the host's loopback only (Seatbelt)",
		  pol->net.value == NET_ISOLATED },
		{ "connect to unix sockets outside", "Seatbelt", "refuses unlisted ones", true },
		{ "new processes (subprocess no)", "Seatbelt", "refuses fork, posix_spawn, system",
		  !pol->subprocess.value },
		{ "signals to processes outside", "Seatbelt", NULL, false },
	};
	size_t n = 0;

	for (size_t i = 0; i < sizeof(all) / sizeof(all[0]) && n < max; i++)
		out[n++] = all[i];
	return n;
}

static int seatbelt_apply(const struct policy *pol, const struct jail_host *h, int *supervise,
			  char *err, size_t errsize)
{
	char *text = NULL, *why = NULL;
	size_t len = 0;
	FILE *m;
	int r;

	(void)h;
	*supervise = -1;
	m = open_memstream(&text, &len);
	if (!m) {
		snprintf(err, errsize, "unable to make the Seatbelt profile: %s", strerror(errno));
		return -ENOMEM;
	}
	r = sbpl_profile(pol, sbpl_stat_is_dir, m, err, errsize);
	fclose(m);
	if (r < 0) {
		free(text);
		return r;
	}
	if (sandbox_init(text, 0, &why) != 0) {
		/* Never run unconfined: the launcher dies on this. */
		snprintf(err, errsize, "Seatbelt refused the profile (cordon seatbelt prints it): %s",
			 why ? why : "no reason given");
		if (why)
			sandbox_free_error(why);
		free(text);
		return -EPERM;
	}
	free(text);
	return 0;
}

static const struct jail_backend jail_seatbelt = {
	.name = "seatbelt",
	.probe = seatbelt_probe,
	.features = seatbelt_features,
	.apply = seatbelt_apply,
};

const struct jail_backend *jail_platform(void)
{
	return &jail_seatbelt;
}

#pragma clang diagnostic pop

#endif /* __APPLE__ */
