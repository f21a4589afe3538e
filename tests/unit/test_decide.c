/*
 * test_decide.c - the decision engine (shim/policy.c) as data: each row is
 * "policy, op, target -> allow|deny, reason, rule line", run by one body
 * against policy_decide_path() or policy_decide_net(). The policies are
 * parsed by the real parser so the rows read like policy files.
 *
 * Fixture, per row (a fresh process each), removed afterwards:
 *
 *   $W/                  mkdtemp("/tmp/cordon-decide-XXXXXX"), canonical;
 *                        ${WORKSPACE} in the policies, "W" in the targets
 *     proj/              write root in most rows
 *       src/
 *       secret/          read-deny inside the write root
 *         cache/         write root inside that read-deny
 *     project/           shares the prefix "proj" with proj/, not beneath it
 *     deny/              read-deny
 *       out/             write root inside the read-deny
 *     run/               holds listed unix sockets (which need not exist)
 *
 * Targets: a path ("/..." as is, "W..." beneath $W), or an address:
 *   "tcp HOST:PORT", "udp HOST:PORT" (HOST numeric, IPv6 in brackets),
 *   "short HOST:PORT" (TCP, sockaddr one byte shorter than the family needs;
 *   for IPv6 below the kernel's minimum of 24 bytes, SIN6_LEN_RFC2133),
 *   "abstract NAME", "unspec", "netlink", "packet", "familyonly" (salen 1).
 */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>

#include <arpa/inet.h>
#include <errno.h>
#include <ftw.h>
#include <limits.h>
#include <linux/netlink.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "../../launcher/parse.h"
#include "fixture.h"

#define SIN6_LEN_RFC2133 24  /* sockaddr_in6 without sin6_scope_id; Linux accepts it */

static char ws[512];
static struct policy pol;
static struct parse_ctx ctx;
static char errs[8192];
static size_t errs_len;

struct row {
	const char *policy;
	enum op op;
	const char *target;
	bool allow;
	enum reason reason;
	unsigned line;        /* line of the deciding rule; 0: none (built-in) */
};

/* Policies. Line numbers matter: rows name the line that decides. */
#define P_PROJ  "write ${WORKSPACE}/proj\n"
#define P_ROOT  "write /\n"
#define P_NEST  "write ${WORKSPACE}/proj\n"                 /* 1 */ \
		"read-deny ${WORKSPACE}/proj/secret\n"      /* 2 */ \
		"write ${WORKSPACE}/proj/secret/cache\n"    /* 3 */
#define P_DENY  "read-deny ${WORKSPACE}/deny\n"             /* 1 */ \
		"write ${WORKSPACE}/deny/out\n"             /* 2 */
#define P_SAME  "write ${WORKSPACE}/proj\n"                 /* 1 */ \
		"read-deny ${WORKSPACE}/proj\n"             /* 2 */
#define P_SOCK  "write ${WORKSPACE}/proj\n"                 /* 1 */ \
		"unix-socket ${WORKSPACE}/run/agent.sock\n" /* 2 */
#define P_SOCKD "read-deny ${WORKSPACE}/run\n"              /* 1 */ \
		"unix-socket ${WORKSPACE}/run/agent.sock\n" /* 2 */
#define P_WDENY "write ${WORKSPACE}/proj\n"                 /* 1 */ \
		"write-deny ${WORKSPACE}/proj/.git/hooks\n" /* 2 */ \
		"write-deny ${WORKSPACE}/proj/secret\n"    /* 3 */ \
		"write ${WORKSPACE}/proj/secret/cache\n"   /* 4 */
#define N_DFLT  "# no net line: the built-in none\n"
#define N_NONE  "net none\n"
#define N_ISO   "net isolated\n"
#define N_ALL   "net all\n"
#define N_PORTS "net none\n"                                /* 1 */ \
		"net-connect 443 8000-8002\n"               /* 2 */ \
		"net-bind 8080\n"                           /* 3 */

#define ALLOW true
#define DENY false

static const struct row rows[] = {
	/* write roots: inside, at, outside, component boundaries */
	{ P_PROJ, OP_WRITE, "W/proj/src/main.c", ALLOW, REASON_WRITE_ROOT, 1 },
	{ P_PROJ, OP_WRITE, "W/proj", ALLOW, REASON_WRITE_ROOT, 1 },
	{ P_PROJ, OP_WRITE, "W/proj/new/deep/file", ALLOW, REASON_WRITE_ROOT, 1 },
	{ P_PROJ, OP_WRITE, "W/project", DENY, REASON_OUTSIDE_ROOTS, 0 },
	{ P_PROJ, OP_WRITE, "W/project/x", DENY, REASON_OUTSIDE_ROOTS, 0 },
	{ P_PROJ, OP_WRITE, "W/pro", DENY, REASON_OUTSIDE_ROOTS, 0 },
	{ P_PROJ, OP_WRITE, "W", DENY, REASON_OUTSIDE_ROOTS, 0 },
	{ P_PROJ, OP_WRITE, "W/elsewhere/passwd", DENY, REASON_OUTSIDE_ROOTS, 0 },
	{ P_PROJ, OP_WRITE, "/", DENY, REASON_OUTSIDE_ROOTS, 0 },
	{ "", OP_WRITE, "W/proj/x", DENY, REASON_OUTSIDE_ROOTS, 0 },
	{ P_ROOT, OP_WRITE, "W/elsewhere/passwd", ALLOW, REASON_WRITE_ROOT, 1 },
	{ P_ROOT, OP_WRITE, "/", ALLOW, REASON_WRITE_ROOT, 1 },
	{ P_ROOT, OP_READ, "/a/b/c", ALLOW, REASON_WRITE_ROOT, 1 },
	/* reads: allowed by default, write implies read */
	{ P_PROJ, OP_READ, "/etc/passwd", ALLOW, REASON_READ_DEFAULT, 0 },
	{ P_PROJ, OP_READ, "W/project/x", ALLOW, REASON_READ_DEFAULT, 0 },
	{ P_PROJ, OP_READ, "W/proj/src", ALLOW, REASON_WRITE_ROOT, 1 },
	{ "", OP_READ, "/", ALLOW, REASON_READ_DEFAULT, 0 },
	/* read-deny inside a write root wins; a write root inside it wins again */
	{ P_NEST, OP_READ, "W/proj/secret/key", DENY, REASON_READ_DENY, 2 },
	{ P_NEST, OP_WRITE, "W/proj/secret/key", DENY, REASON_READ_DENY, 2 },
	{ P_NEST, OP_WRITE, "W/proj/secret", DENY, REASON_READ_DENY, 2 },
	{ P_NEST, OP_READ, "W/proj/secret", DENY, REASON_READ_DENY, 2 },
	{ P_NEST, OP_WRITE, "W/proj/secret/cache/obj.o", ALLOW, REASON_WRITE_ROOT, 3 },
	{ P_NEST, OP_READ, "W/proj/secret/cache", ALLOW, REASON_WRITE_ROOT, 3 },
	{ P_NEST, OP_WRITE, "W/proj/secretive", ALLOW, REASON_WRITE_ROOT, 1 },
	{ P_NEST, OP_WRITE, "W/proj/secret/cachex", DENY, REASON_READ_DENY, 2 },
	{ P_DENY, OP_READ, "W/deny/x", DENY, REASON_READ_DENY, 1 },
	{ P_DENY, OP_WRITE, "W/deny", DENY, REASON_READ_DENY, 1 },
	{ P_DENY, OP_WRITE, "W/deny/out/f", ALLOW, REASON_WRITE_ROOT, 2 },
	{ P_DENY, OP_READ, "W/deny/out", ALLOW, REASON_WRITE_ROOT, 2 },
	{ P_DENY, OP_READ, "W/denyx", ALLOW, REASON_READ_DEFAULT, 0 },
	{ P_DENY, OP_CONNECT, "W/deny/s.sock", DENY, REASON_READ_DENY, 1 },
	/* write-deny inside a write root: read, never written (data, entries,
	 * metadata); a missing entry is covered; a root inside it wins */
	{ P_WDENY, OP_WRITE, "W/proj/.git/hooks/pre-commit", DENY, REASON_WRITE_DENY, 2 },
	{ P_WDENY, OP_WRITE_DATA, "W/proj/.git/hooks/pre-commit", DENY, REASON_WRITE_DENY, 2 },
	{ P_WDENY, OP_WRITE, "W/proj/.git/hooks", DENY, REASON_WRITE_DENY, 2 },
	{ P_WDENY, OP_READ, "W/proj/.git/hooks/pre-commit", ALLOW, REASON_WRITE_ROOT, 1 },
	{ P_WDENY, OP_WRITE, "W/proj/.git/index.lock", ALLOW, REASON_WRITE_ROOT, 1 },
	{ P_WDENY, OP_WRITE, "W/proj/.git/hooksx", ALLOW, REASON_WRITE_ROOT, 1 },
	{ P_WDENY, OP_WRITE, "W/proj/secret/key", DENY, REASON_WRITE_DENY, 3 },
	{ P_WDENY, OP_READ, "W/proj/secret/key", ALLOW, REASON_WRITE_ROOT, 1 },
	{ P_WDENY, OP_WRITE, "W/proj/secret/cache/o", ALLOW, REASON_WRITE_ROOT, 4 },
	{ P_WDENY, OP_CONNECT, "W/proj/secret/s.sock", ALLOW, REASON_WRITE_ROOT, 1 },
	/* removing or renaming a directory that holds an entry would take the
	 * entry with it (or leave its place to be made anew); making one is
	 * fine (what is made inside the entry is still refused), and its
	 * neighbours go freely */
	{ P_WDENY, OP_REMOVE, "W/proj/.git", DENY, REASON_HOLDS_WRITE_DENY, 2 },
	{ P_WDENY, OP_REMOVE, "W/proj", DENY, REASON_HOLDS_WRITE_DENY, 2 },
	{ P_WDENY, OP_WRITE, "W/proj/.git", ALLOW, REASON_WRITE_ROOT, 1 },
	{ P_WDENY, OP_REMOVE, "W/proj/.git/objects", ALLOW, REASON_WRITE_ROOT, 1 },
	{ P_WDENY, OP_REMOVE, "W/proj/.gitx", ALLOW, REASON_WRITE_ROOT, 1 },
	{ P_WDENY, OP_REMOVE, "W/proj/.git/hooks", DENY, REASON_WRITE_DENY, 2 },
	{ P_SAME, OP_WRITE, "W/proj/a", DENY, REASON_READ_DENY, 2 },
	{ P_SAME, OP_READ, "W/proj", DENY, REASON_READ_DENY, 2 },
	/* unix sockets (pathname): listed, unlisted, beneath a write root */
	{ P_SOCK, OP_CONNECT, "W/run/agent.sock", ALLOW, REASON_SOCKET, 2 },
	{ P_SOCK, OP_CONNECT, "W/run/other.sock", DENY, REASON_OUTSIDE_ROOTS, 0 },
	{ P_SOCK, OP_CONNECT, "W/run/agent.sock/x", ALLOW, REASON_SOCKET, 2 },
	{ P_SOCK, OP_CONNECT, "W/run/agent.sockx", DENY, REASON_OUTSIDE_ROOTS, 0 },
	{ P_SOCK, OP_CONNECT, "W/proj/build.sock", ALLOW, REASON_WRITE_ROOT, 1 },
	{ P_SOCK, OP_WRITE, "W/run/agent.sock", DENY, REASON_OUTSIDE_ROOTS, 0 },
	{ P_SOCK, OP_BIND, "W/proj/server.sock", ALLOW, REASON_WRITE_ROOT, 1 },
	{ P_SOCK, OP_BIND, "W/run/agent.sock", DENY, REASON_OUTSIDE_ROOTS, 0 },
	{ P_SOCK, OP_READ, "W/run/agent.sock", ALLOW, REASON_READ_DEFAULT, 0 },
	{ P_SOCKD, OP_CONNECT, "W/run/agent.sock", ALLOW, REASON_SOCKET, 2 },
	{ P_SOCKD, OP_CONNECT, "W/run/other.sock", DENY, REASON_READ_DENY, 1 },

	/* TCP connect under each mode */
	{ N_DFLT, OP_CONNECT, "tcp 1.2.3.4:443", DENY, REASON_NET_NONE, 0 },
	{ N_NONE, OP_CONNECT, "tcp 1.2.3.4:443", DENY, REASON_NET_NONE, 1 },
	{ N_NONE, OP_CONNECT, "tcp 127.0.0.1:8080", DENY, REASON_NET_NONE, 1 },
	{ N_NONE, OP_CONNECT, "tcp [::1]:80", DENY, REASON_NET_NONE, 1 },
	{ N_NONE, OP_CONNECT, "tcp [::ffff:127.0.0.1]:80", DENY, REASON_NET_NONE, 1 },
	{ N_ISO, OP_CONNECT, "tcp 1.2.3.4:443", DENY, REASON_NET_NOT_LOOPBACK, 1 },
	{ N_ISO, OP_CONNECT, "tcp 127.0.0.1:8080", ALLOW, REASON_NET_LOOPBACK, 1 },
	{ N_ISO, OP_CONNECT, "tcp 127.255.0.9:8080", ALLOW, REASON_NET_LOOPBACK, 1 },
	{ N_ISO, OP_CONNECT, "tcp 128.0.0.1:8080", DENY, REASON_NET_NOT_LOOPBACK, 1 },
	{ N_ISO, OP_CONNECT, "tcp [::1]:80", ALLOW, REASON_NET_LOOPBACK, 1 },
	{ N_ISO, OP_CONNECT, "tcp [::ffff:127.0.0.1]:80", ALLOW, REASON_NET_LOOPBACK, 1 },
	{ N_ISO, OP_CONNECT, "tcp [::ffff:1.2.3.4]:80", DENY, REASON_NET_NOT_LOOPBACK, 1 },
	{ N_ISO, OP_CONNECT, "tcp [2001:db8::1]:443", DENY, REASON_NET_NOT_LOOPBACK, 1 },
	{ N_ALL, OP_CONNECT, "tcp 1.2.3.4:443", ALLOW, REASON_NET_ALL, 1 },
	{ N_ALL, OP_CONNECT, "tcp 127.0.0.1:8080", ALLOW, REASON_NET_ALL, 1 },
	{ N_ALL, OP_CONNECT, "tcp [::1]:80", ALLOW, REASON_NET_ALL, 1 },
	{ N_ALL, OP_CONNECT, "tcp [::ffff:127.0.0.1]:80", ALLOW, REASON_NET_ALL, 1 },
	/* net none with listed ports: any host, TCP only, connect and bind apart */
	{ N_PORTS, OP_CONNECT, "tcp 1.2.3.4:443", ALLOW, REASON_NET_PORT, 2 },
	{ N_PORTS, OP_CONNECT, "tcp 127.0.0.1:443", ALLOW, REASON_NET_PORT, 2 },
	{ N_PORTS, OP_CONNECT, "tcp [2001:db8::1]:443", ALLOW, REASON_NET_PORT, 2 },
	{ N_PORTS, OP_CONNECT, "tcp 1.2.3.4:8001", ALLOW, REASON_NET_PORT, 2 },
	{ N_PORTS, OP_CONNECT, "tcp 1.2.3.4:8003", DENY, REASON_NET_NONE, 1 },
	{ N_PORTS, OP_CONNECT, "tcp 1.2.3.4:80", DENY, REASON_NET_NONE, 1 },
	{ N_PORTS, OP_CONNECT, "tcp 1.2.3.4:8080", DENY, REASON_NET_NONE, 1 },
	{ N_PORTS, OP_BIND, "tcp 0.0.0.0:8080", ALLOW, REASON_NET_PORT, 3 },
	{ N_PORTS, OP_BIND, "tcp [::]:8080", ALLOW, REASON_NET_PORT, 3 },
	{ N_PORTS, OP_BIND, "tcp 0.0.0.0:443", DENY, REASON_NET_NONE, 1 },
	{ N_NONE, OP_BIND, "tcp 127.0.0.1:8080", DENY, REASON_NET_NONE, 1 },
	{ N_NONE, OP_BIND, "tcp 127.0.0.1:0", DENY, REASON_NET_ANY_PORT, 1 },
	{ N_PORTS, OP_BIND, "tcp [::]:0", DENY, REASON_NET_ANY_PORT, 1 },
	{ N_NONE, OP_CONNECT, "tcp 127.0.0.1:0", DENY, REASON_NET_NONE, 1 },
	/* UDP */
	{ N_NONE, OP_CONNECT, "udp 127.0.0.1:53", DENY, REASON_NET_UDP, 1 },
	{ N_PORTS, OP_CONNECT, "udp 1.2.3.4:443", DENY, REASON_NET_UDP, 1 },
	{ N_PORTS, OP_BIND, "udp 0.0.0.0:8080", DENY, REASON_NET_UDP, 1 },
	{ N_ISO, OP_CONNECT, "udp 127.0.0.1:53", ALLOW, REASON_NET_LOOPBACK, 1 },
	{ N_ISO, OP_CONNECT, "udp [::1]:53", ALLOW, REASON_NET_LOOPBACK, 1 },
	{ N_ISO, OP_CONNECT, "udp 8.8.8.8:53", DENY, REASON_NET_NOT_LOOPBACK, 1 },
	{ N_ALL, OP_CONNECT, "udp 8.8.8.8:53", ALLOW, REASON_NET_ALL, 1 },
	/* bind under isolated: the private namespace has only its loopback */
	{ N_ISO, OP_BIND, "tcp 0.0.0.0:8080", ALLOW, REASON_NET_LOOPBACK, 1 },
	{ N_ALL, OP_BIND, "tcp 0.0.0.0:80", ALLOW, REASON_NET_ALL, 1 },
	/* abstract unix sockets follow the network mode */
	{ N_DFLT, OP_CONNECT, "abstract cordon-test", DENY, REASON_NET_ABSTRACT, 0 },
	{ N_NONE, OP_CONNECT, "abstract cordon-test", DENY, REASON_NET_ABSTRACT, 1 },
	{ N_PORTS, OP_BIND, "abstract cordon-test", DENY, REASON_NET_ABSTRACT, 1 },
	{ N_ISO, OP_CONNECT, "abstract cordon-test", ALLOW, REASON_NET_LOOPBACK, 1 },
	{ N_ISO, OP_BIND, "abstract cordon-test", ALLOW, REASON_NET_LOOPBACK, 1 },
	{ N_ALL, OP_CONNECT, "abstract cordon-test", ALLOW, REASON_NET_ALL, 1 },
	/* families local to the kernel: always */
	{ N_NONE, OP_CONNECT, "unspec", ALLOW, REASON_NET_LOCAL, 0 },
	{ N_DFLT, OP_CONNECT, "unspec", ALLOW, REASON_NET_LOCAL, 0 },
	{ N_NONE, OP_CONNECT, "netlink", ALLOW, REASON_NET_LOCAL, 0 },
	{ N_NONE, OP_BIND, "netlink", ALLOW, REASON_NET_LOCAL, 0 },
	{ N_ISO, OP_CONNECT, "netlink", ALLOW, REASON_NET_LOCAL, 0 },
	/* other families: only under all */
	{ N_NONE, OP_CONNECT, "packet", DENY, REASON_NET_FAMILY, 1 },
	{ N_DFLT, OP_BIND, "packet", DENY, REASON_NET_FAMILY, 0 },
	{ N_ISO, OP_BIND, "packet", DENY, REASON_NET_FAMILY, 1 },
	{ N_ALL, OP_BIND, "packet", ALLOW, REASON_NET_ALL, 1 },
	/* an address shorter than its family needs: never decided by its bytes */
	{ N_ALL, OP_CONNECT, "short 1.2.3.4:443", DENY, REASON_NET_FAMILY, 1 },
	{ N_ALL, OP_CONNECT, "short [::1]:80", DENY, REASON_NET_FAMILY, 1 },
	{ N_ISO, OP_CONNECT, "short 127.0.0.1:80", DENY, REASON_NET_FAMILY, 1 },
	{ N_PORTS, OP_CONNECT, "short 1.2.3.4:443", DENY, REASON_NET_FAMILY, 1 },
	{ N_ALL, OP_CONNECT, "familyonly", DENY, REASON_NET_FAMILY, 1 },
	{ N_ALL, OP_CONNECT, "empty", DENY, REASON_NET_FAMILY, 1 },
};

#define N_ROWS (sizeof(rows) / sizeof(rows[0]))

static void collect_error(void *arg, const char *file, unsigned line, const char *msg)
{
	int n;

	(void)arg;
	n = snprintf(errs + errs_len, sizeof(errs) - errs_len, "%s:%u: %s\n", file, line, msg);
	if (n > 0 && (size_t)n < sizeof(errs) - errs_len)
		errs_len += (size_t)n;
}

static void mkdir_in(const char *rel)
{
	char p[PATH_MAX];

	snprintf(p, sizeof(p), "%s/%s", ws, rel);
	cr_assert_eq(mkdir(p, 0755), 0, "mkdir %s: %s", p, strerror(errno));
}

static void setup(void)
{
	char tmpl[] = "/tmp/cordon-decide-XXXXXX";
	static const char *const no_search[] = { NULL };

	cr_assert_not_null(mkdtemp(tmpl), "mkdtemp: %s", strerror(errno));
	cr_assert_not_null(realpath(tmpl, ws));
	mkdir_in("proj");
	mkdir_in("proj/src");
	mkdir_in("proj/secret");
	mkdir_in("proj/secret/cache");
	mkdir_in("project");
	mkdir_in("deny");
	mkdir_in("deny/out");
	mkdir_in("run");
	policy_init(&pol);
	parse_ctx_init(&ctx, &pol);
	ctx.error = collect_error;
	ctx.home = ws;
	ctx.workspace = ws;
	ctx.tmpdir = ws;
	ctx.search = no_search;
}

static void teardown(void)
{
	policy_free(&pol);
	if (strncmp(ws, "/tmp/cordon-decide-", 19) == 0)
		fixture_rmtree(ws);
}

/* "HOST:PORT" or "[HOST]:PORT" into @ss; returns the full length. */
static socklen_t inet_addr_of(const char *spec, struct sockaddr_storage *ss)
{
	char host[64];
	const char *colon = strrchr(spec, ':');
	size_t hlen;

	cr_assert_not_null(colon, "bad address %s", spec);
	hlen = (size_t)(colon - spec);
	if (spec[0] == '[') {
		spec++;
		hlen -= 2;
	}
	cr_assert_lt(hlen, sizeof(host));
	memcpy(host, spec, hlen);
	host[hlen] = '\0';
	uint16_t port = htons((uint16_t)atoi(colon + 1));

	memset(ss, 0, sizeof(*ss));
	struct sockaddr_in *in = (struct sockaddr_in *)ss;
	struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)ss;
	if (inet_pton(AF_INET, host, &in->sin_addr) == 1) {
		in->sin_family = AF_INET;
		in->sin_port = port;
		return sizeof(*in);
	}
	cr_assert_eq(inet_pton(AF_INET6, host, &in6->sin6_addr), 1, "bad host %s", host);
	in6->sin6_family = AF_INET6;
	in6->sin6_port = port;
	return sizeof(*in6);
}

/* Build the address of a net target; sets *@socktype. */
static socklen_t net_addr_of(const char *target, struct sockaddr_storage *ss, int *socktype)
{
	*socktype = SOCK_STREAM;
	memset(ss, 0, sizeof(*ss));
	if (strncmp(target, "tcp ", 4) == 0)
		return inet_addr_of(target + 4, ss);
	if (strncmp(target, "udp ", 4) == 0) {
		*socktype = SOCK_DGRAM;
		return inet_addr_of(target + 4, ss);
	}
	if (strncmp(target, "short ", 6) == 0) {
		socklen_t n = inet_addr_of(target + 6, ss);
		return ss->ss_family == AF_INET6 ? SIN6_LEN_RFC2133 - 1 : n - 1;
	}
	if (strncmp(target, "abstract ", 9) == 0) {
		struct sockaddr_un *un = (struct sockaddr_un *)ss;
		size_t len = strlen(target + 9);
		un->sun_family = AF_UNIX;
		memcpy(un->sun_path + 1, target + 9, len);   /* sun_path[0] == '\0' */
		return (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + len);
	}
	if (strcmp(target, "unspec") == 0) {
		ss->ss_family = AF_UNSPEC;
		return sizeof(struct sockaddr);
	}
	if (strcmp(target, "netlink") == 0) {
		ss->ss_family = AF_NETLINK;
		return sizeof(struct sockaddr_nl);
	}
	if (strcmp(target, "packet") == 0) {
		ss->ss_family = AF_PACKET;
		return sizeof(struct sockaddr_storage);
	}
	if (strcmp(target, "familyonly") == 0) {
		ss->ss_family = AF_INET;
		return 1;
	}
	if (strcmp(target, "empty") == 0)
		return 0;
	cr_assert_fail("unknown target %s", target);
	return 0;
}

/* Parse @policy, decide @op on @target. */
static void decide_row(const struct row *r, struct decision *d, char *what, size_t whatsize)
{
	int ret = policy_parse_buffer(&ctx, "t", r->policy, strlen(r->policy));

	cr_assert_eq(ret, 0, "policy does not parse:\n%s", errs);
	memset(d, 0xa5, sizeof(*d));
	if (r->target[0] == '/' || r->target[0] == 'W') {
		char path[PATH_MAX];
		if (r->target[0] == 'W')
			snprintf(path, sizeof(path), "%s%s", ws, r->target + 1);
		else
			snprintf(path, sizeof(path), "%s", r->target);
		snprintf(what, whatsize, "%s %s", op_name(r->op), path);
		policy_decide_path(&pol, r->op, path, strlen(path), d);
	} else {
		struct sockaddr_storage ss;
		int socktype;
		socklen_t salen = net_addr_of(r->target, &ss, &socktype);
		snprintf(what, whatsize, "%s %s", op_name(r->op), r->target);
		policy_decide_net(&pol, r->op, socktype, (const struct sockaddr *)&ss, salen, d);
	}
}

ParameterizedTestParameters(decide, row_gives_expected_decision)
{
	static size_t idx[N_ROWS];

	for (size_t i = 0; i < N_ROWS; i++)
		idx[i] = i;
	return cr_make_param_array(size_t, idx, N_ROWS);
}

ParameterizedTest(size_t *i, decide, row_gives_expected_decision, .init = setup, .fini = teardown)
{
	const struct row *r = &rows[*i];
	char what[PATH_MAX + 64];
	struct decision d;

	decide_row(r, &d, what, sizeof(what));
	cr_expect_eq(d.allow, r->allow, "row %zu: %s: %s, want %s", *i, what,
		     d.allow ? "allow" : "deny", r->allow ? "allow" : "deny");
	cr_expect_eq(d.reason, r->reason, "row %zu: %s: reason '%s', want '%s'", *i, what,
		     reason_text(d.reason), reason_text(r->reason));
	if (r->line == 0) {
		cr_expect_null(d.rule, "row %zu: %s: decided by line %u (%s), want built-in", *i,
			       what, d.rule ? d.rule->line : 0, d.rule ? d.rule->text : "");
	} else {
		cr_assert_not_null(d.rule, "row %zu: %s: no rule, want line %u", *i, what, r->line);
		cr_expect_eq(d.rule->line, r->line, "row %zu: %s: decided by line %u (%s), want %u",
			     *i, what, d.rule->line, d.rule->text, r->line);
		cr_expect_str_eq(d.rule->file, "t", "row %zu", *i);
	}
	/* A decision made by a path entry names it; others match nothing. */
	if (r->reason == REASON_WRITE_ROOT || r->reason == REASON_SOCKET ||
	    r->reason == REASON_READ_DENY || r->reason == REASON_WRITE_DENY ||
	    r->reason == REASON_HOLDS_WRITE_DENY)
		cr_expect_not_null(d.matched, "row %zu: %s", *i, what);
	else
		cr_expect_null(d.matched, "row %zu: %s: matched %s", *i, what, d.matched);
}

/* The decision names the nearest entry, not just any covering one. */
Test(decide, matched_names_nearest_entry, .init = setup, .fini = teardown)
{
	char path[PATH_MAX], want[PATH_MAX];
	struct decision d;

	cr_assert_eq(policy_parse_buffer(&ctx, "t", P_NEST, strlen(P_NEST)), 0, "%s", errs);
	snprintf(path, sizeof(path), "%s/proj/secret/cache/a/b", ws);
	policy_decide_path(&pol, OP_WRITE, path, strlen(path), &d);
	snprintf(want, sizeof(want), "%s/proj/secret/cache", ws);
	cr_assert_not_null(d.matched);
	cr_expect_str_eq(d.matched, want);
	snprintf(path, sizeof(path), "%s/proj/secret/x", ws);
	policy_decide_path(&pol, OP_READ, path, strlen(path), &d);
	snprintf(want, sizeof(want), "%s/proj/secret", ws);
	cr_assert_not_null(d.matched);
	cr_expect_str_eq(d.matched, want);
}

/* Linux accepts a sockaddr_in6 of SIN6_LEN_RFC2133 (24) bytes, without
 * sin6_scope_id, for connect(2) and bind(2) (net/ipv6: "addr_len <
 * SIN6_LEN_RFC2133" is the EINVAL check). The address and port are within
 * those bytes, so the decision must be the one for the full structure. */
Test(decide, rfc2133_sockaddr_in6_decided_by_address, .init = setup, .fini = teardown)
{
	static const struct {
		const char *policy;
		enum op op;
		const char *addr;
		bool allow;
		enum reason reason;
	} cases[] = {
		{ N_ALL, OP_CONNECT, "[2001:db8::1]:443", ALLOW, REASON_NET_ALL },
		{ N_ISO, OP_CONNECT, "[::1]:80", ALLOW, REASON_NET_LOOPBACK },
		{ N_PORTS, OP_CONNECT, "[2001:db8::1]:443", ALLOW, REASON_NET_PORT },
		{ N_PORTS, OP_BIND, "[::]:8080", ALLOW, REASON_NET_PORT },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct sockaddr_storage ss;
		struct decision d;

		policy_free(&pol);
		policy_init(&pol);
		ctx.errors = 0;
		cr_assert_eq(policy_parse_buffer(&ctx, "t", cases[i].policy, strlen(cases[i].policy)),
			     0, "%s", errs);
		inet_addr_of(cases[i].addr, &ss);
		policy_decide_net(&pol, cases[i].op, SOCK_STREAM, (const struct sockaddr *)&ss,
				  SIN6_LEN_RFC2133, &d);
		cr_expect_eq(d.allow, cases[i].allow, "case %zu: %s %s with a 24-byte sockaddr_in6: %s",
			     i, op_name(cases[i].op), cases[i].addr, reason_text(d.reason));
		cr_expect_eq(d.reason, cases[i].reason, "case %zu: reason '%s', want '%s'", i,
			     reason_text(d.reason), reason_text(cases[i].reason));
	}
}

/* A NULL address is refused, not dereferenced. */
Test(decide, null_address_denied, .init = setup, .fini = teardown)
{
	struct decision d;

	cr_assert_eq(policy_parse_buffer(&ctx, "t", N_ALL, strlen(N_ALL)), 0);
	policy_decide_net(&pol, OP_CONNECT, SOCK_STREAM, NULL, 16, &d);
	cr_expect(!d.allow);
	cr_expect_eq(d.reason, REASON_NET_FAMILY);
}
