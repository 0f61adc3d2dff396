/*
 * serve_http.c - profil serve's HTTP side (serve.c says how it is driven and bounded): the
 * daemon's start and end, its requests (the index, a profile window started, suspended and
 * answered, everything else refused), the listening address and the token.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <microhttpd.h>

#include "cmd.h"
#include "serve.h"

static enum MHD_Result
answer(struct MHD_Connection *c, unsigned int status, const char *type, const char *body,
    size_t len, enum MHD_ResponseMemoryMode mode)
{
	struct MHD_Response *r = MHD_create_response_from_buffer(len, (void *)(uintptr_t)body,
	    mode);
	enum MHD_Result ret;

	if (r == NULL) {
		if (mode == MHD_RESPMEM_MUST_FREE)
			free((void *)(uintptr_t)body);
		return MHD_NO;
	}
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, type);
	MHD_add_response_header(r, "X-Content-Type-Options", "nosniff");
	MHD_add_response_header(r, MHD_HTTP_HEADER_CACHE_CONTROL, "no-store");
	if (status == MHD_HTTP_UNAUTHORIZED)
		MHD_add_response_header(r, MHD_HTTP_HEADER_WWW_AUTHENTICATE, "Bearer");
	if (status == MHD_HTTP_METHOD_NOT_ALLOWED)
		MHD_add_response_header(r, MHD_HTTP_HEADER_ALLOW, "GET");
	/* net/http/pprof's headers: clients save the body as a file named profile. */
	if (status == MHD_HTTP_OK && strcmp(type, "application/octet-stream") == 0)
		MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_DISPOSITION,
		    "attachment; filename=\"profile\"");
	ret = MHD_queue_response(c, status, r);
	MHD_destroy_response(r);
	return ret;
}

/* An error with its reason, one line of text (net/http/pprof's serveError). */
static enum MHD_Result
refuse(struct MHD_Connection *c, unsigned int status, const char *fmt, ...)
{
	char buf[256];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf) - 1, fmt, ap);
	va_end(ap);
	if (n < 0)
		n = 0;
	if ((size_t)n > sizeof(buf) - 2)
		n = sizeof(buf) - 2;
	buf[n++] = '\n';
	return answer(c, status, "text/plain; charset=utf-8", buf, (size_t)n,
	    MHD_RESPMEM_MUST_COPY);
}

/*
 * GET /: the endpoints.  The viewer of the last window (profil_export_html, issue 22) is to be
 * served here in place of this list once it exists; the list then moves under it.
 */
static const char index_html[] =
	"<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
	"<title>profil serve</title></head><body>\n"
	"<h1>profil serve</h1>\n"
	"<p>A recorder that keeps running.  Each request is answered at the end of its own\n"
	"window: the profile of the next N seconds.</p>\n<ul>\n"
	"<li><a href=\"" PROFILE_PATH "?seconds=30\">" PROFILE_PATH "?seconds=30</a>: a gzipped\n"
	"pprof profile of the next 30 seconds (1 to 3600), as Go's net/http/pprof serves it, for\n"
	"<code>go tool pprof</code>, Parca and Grafana Alloy; samples are labelled with pid and\n"
	"tid.</li>\n</ul>\n</body></html>\n";

/*
 * Whether the request carries the token: "Authorization: Bearer <token>", compared over the
 * token's whole length whatever the first difference, so the time taken says nothing of it.
 */
static int
authorized(const struct serve *sv, struct MHD_Connection *c)
{
	const char *h = MHD_lookup_connection_value(c, MHD_HEADER_KIND,
	    MHD_HTTP_HEADER_AUTHORIZATION);
	unsigned char diff = 0;
	size_t i, len;

	if (sv->token == NULL)
		return 1;
	if (h == NULL || strncasecmp(h, "Bearer ", 7) != 0)
		return 0;
	h += 7;
	len = strlen(h);
	for (i = 0; i < sv->token_len; i++)
		diff |= (unsigned char)(sv->token[i] ^ (i < len ? h[i] : 0));
	return diff == 0 && len == sv->token_len;
}

struct query {
	int nargs, nseconds;
	const char *seconds, *unknown;
};

static enum MHD_Result
query_arg(void *cls, enum MHD_ValueKind kind, const char *key, const char *value)
{
	struct query *q = cls;

	(void)kind;
	q->nargs++;
	/*
	 * The same seconds twice is one: Parca adds its own to the job's params (its
	 * targetsFromGroup), and net/http/pprof reads the first.  Two that differ are refused.
	 */
	if (strcmp(key, "seconds") == 0) {
		if (value == NULL)
			value = "";
		if (q->seconds == NULL || strcmp(q->seconds, value) != 0)
			q->nseconds++;
		q->seconds = value;
	} else if (q->unknown == NULL) {
		q->unknown = key;
	}
	return MHD_YES;
}

/* A profile's seconds from the query: 1..3600, or 0 after the 400 is queued in *ret. */
static long
profile_seconds(struct MHD_Connection *c, enum MHD_Result *ret)
{
	struct query q = { 0, 0, NULL, NULL };
	char *end;
	long v;

	MHD_get_connection_values(c, MHD_GET_ARGUMENT_KIND, query_arg, &q);
	if (q.unknown != NULL) {
		*ret = refuse(c, MHD_HTTP_BAD_REQUEST, "unknown parameter (only seconds)");
		return 0;
	}
	if (q.nseconds > 1) {
		*ret = refuse(c, MHD_HTTP_BAD_REQUEST, "seconds given twice, differently");
		return 0;
	}
	if (q.seconds == NULL)
		return SERVE_SECONDS_DEFAULT;
	errno = 0;
	v = strtol(q.seconds, &end, 10);
	if (errno != 0 || end == q.seconds || *end != '\0' || q.seconds[0] < '0' ||
	    q.seconds[0] > '9' || v < 1 || v > SERVE_SECONDS_MAX) {
		*ret = refuse(c, MHD_HTTP_BAD_REQUEST, "seconds must be a whole number from 1 "
		    "to %d", SERVE_SECONDS_MAX);
		return 0;
	}
	return v;
}

/* A request for a profile: its window is marked now, and its connection waits for the end. */
static enum MHD_Result
profile_start(struct serve *sv, struct MHD_Connection *c, void **con_cls)
{
	enum MHD_Result ret = MHD_NO;
	struct request *rq;
	long seconds = profile_seconds(c, &ret);
	int err;

	if (seconds == 0)
		return ret;
	if (sv->ended)
		return refuse(c, MHD_HTTP_SERVICE_UNAVAILABLE, "the recording has ended");
	if (sv->nopen == SERVE_WINDOWS)
		return refuse(c, MHD_HTTP_TOO_MANY_REQUESTS, "%d profiles are being recorded "
		    "already; try again when one ends", SERVE_WINDOWS);
	rq = calloc(1, sizeof(*rq));
	if (rq == NULL)
		return refuse(c, MHD_HTTP_INTERNAL_SERVER_ERROR, "out of memory");
	if (sv->s != NULL)
		profil_outside_snapshot(sv->s);
	/* Ended images are pruned only when no window open before needs their last counts. */
	err = profil_window_mark(&rq->w, sv->dir, sv->nopen == 0 && !sv->pw_open);
	if (err != 0) {
		free(rq);
		return refuse(c, MHD_HTTP_INTERNAL_SERVER_ERROR, "cannot read the recording: %s",
		    strerror(-err));
	}
	rq->c = c;
	rq->waiting = 1;
	rq->end_ns = profil_monotonic_ns() + (uint64_t)seconds * 1000000000u;
	sv->open[sv->nopen++] = rq;
	*con_cls = rq;
	MHD_suspend_connection(c);
	return MHD_YES;
}

/* The window's end: its profile is built and its connection resumed, to be answered. */
void
profil_serve_profile_end(struct serve *sv, size_t i)
{
	struct request *rq = sv->open[i];

	rq->err = profil_window_pprof(&rq->w, &rq->data, &rq->len);
	profil_window_release(&rq->w);
	rq->waiting = 0;
	sv->open[i] = sv->open[--sv->nopen];
	MHD_resume_connection(rq->c);
}

static enum MHD_Result
handle(void *cls, struct MHD_Connection *c, const char *url, const char *method,
    const char *version, const char *upload_data, size_t *upload_data_size, void **con_cls)
{
	struct serve *sv = cls;
	struct request *rq = *con_cls;
	const char *length;

	(void)version;
	(void)upload_data;
	if (rq != NULL) {
		char *data = rq->data;

		/* Resumed: the window's profile. */
		if (rq->waiting)
			return MHD_YES;
		if (rq->err != 0)
			return refuse(c, MHD_HTTP_INTERNAL_SERVER_ERROR, "cannot build the profile: "
			    "%s", strerror(-rq->err));
		rq->data = NULL;
		return answer(c, MHD_HTTP_OK, "application/octet-stream", data, rq->len,
		    MHD_RESPMEM_MUST_FREE);
	}
	if (!authorized(sv, c))
		return refuse(c, MHD_HTTP_UNAUTHORIZED, "a bearer token is required");
	/* A GET has no body: one announced is refused before it is read. */
	length = MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_CONTENT_LENGTH);
	if (*upload_data_size != 0 || (length != NULL && strcmp(length, "0") != 0) ||
	    MHD_lookup_connection_value(c, MHD_HEADER_KIND,
	    MHD_HTTP_HEADER_TRANSFER_ENCODING) != NULL)
		return refuse(c, MHD_HTTP_BAD_REQUEST, "a request body is not accepted");
	if (strcmp(url, "/") == 0 || strcmp(url, "/debug/pprof/") == 0) {
		if (strcmp(method, MHD_HTTP_METHOD_GET) != 0 &&
		    strcmp(method, MHD_HTTP_METHOD_HEAD) != 0)
			return refuse(c, MHD_HTTP_METHOD_NOT_ALLOWED, "GET only");
		return answer(c, MHD_HTTP_OK, "text/html; charset=utf-8", index_html,
		    sizeof(index_html) - 1, MHD_RESPMEM_PERSISTENT);
	}
	if (strcmp(url, PROFILE_PATH) == 0) {
		if (strcmp(method, MHD_HTTP_METHOD_GET) != 0)
			return refuse(c, MHD_HTTP_METHOD_NOT_ALLOWED, "GET only");
		return profile_start(sv, c, con_cls);
	}
	return refuse(c, MHD_HTTP_NOT_FOUND, "not found (%s and / answer)", PROFILE_PATH);
}

static void
completed(void *cls, struct MHD_Connection *c, void **con_cls,
    enum MHD_RequestTerminationCode toe)
{
	struct request *rq = *con_cls;

	(void)cls;
	(void)c;
	(void)toe;
	/* A request still waiting is in the open list; the daemon resumes it before closing. */
	if (rq == NULL || rq->waiting)
		return;
	free(rq->data);
	free(rq);
	*con_cls = NULL;
}

static void
logger(void *cls, const char *fmt, va_list ap)
{
	struct serve *sv = cls;

	vsnprintf(sv->log, sizeof(sv->log), fmt, ap);
}

/* libmicrohttpd's work: what its descriptors have, and as long as it says more is ready. */
void
profil_serve_http_run(struct serve *sv)
{
	MHD_UNSIGNED_LONG_LONG t;
	int i;

	for (i = 0; i < 8; i++) {
		MHD_run(sv->d);
		if (MHD_get_timeout(sv->d, &t) != MHD_YES || t > 0)
			break;
	}
}

/*
 * ADDR:PORT, [V6ADDR]:PORT or :PORT (loopback), numeric or a name the resolver knows; *loopback
 * says whether it is the machine's own.  Returns 0, or -1 after a message.
 */
int
profil_serve_parse_addr(const char *arg, struct sockaddr_storage *ss, socklen_t *sslen,
    int *loopback)
{
	struct addrinfo hints, *res = NULL;
	char host[256];
	const char *colon = strrchr(arg, ':'), *h = arg;
	size_t hlen;
	int e;

	if (colon == NULL || colon[1] == '\0') {
		profil_cmd_error("--http takes ADDR:PORT", arg);
		return -1;
	}
	hlen = (size_t)(colon - arg);
	if (hlen >= 2 && arg[0] == '[' && arg[hlen - 1] == ']') {
		h = arg + 1;
		hlen -= 2;
	}
	if (hlen >= sizeof(host)) {
		profil_cmd_error("--http: address too long", arg);
		return -1;
	}
	memcpy(host, h, hlen);
	host[hlen] = '\0';
	memset(&hints, 0, sizeof(hints));
	hints.ai_socktype = SOCK_STREAM;
	hints.ai_flags = AI_NUMERICSERV;
	e = getaddrinfo(hlen > 0 ? host : "127.0.0.1", colon + 1, &hints, &res);
	if (e != 0 || res == NULL || res->ai_addrlen > sizeof(*ss)) {
		char what[320];

		snprintf(what, sizeof(what), "--http: cannot use the address (%s)",
		    e != 0 ? gai_strerror(e) : "none");
		profil_cmd_error(what, arg);
		if (res != NULL)
			freeaddrinfo(res);
		return -1;
	}
	memcpy(ss, res->ai_addr, res->ai_addrlen);
	*sslen = res->ai_addrlen;
	freeaddrinfo(res);
	if (ss->ss_family == AF_INET) {
		const struct sockaddr_in *in = (const struct sockaddr_in *)ss;

		*loopback = (ntohl(in->sin_addr.s_addr) >> 24) == 127;
	} else {
		const struct sockaddr_in6 *in6 = (const struct sockaddr_in6 *)ss;

		*loopback = IN6_IS_ADDR_LOOPBACK(&in6->sin6_addr) ||
		    (IN6_IS_ADDR_V4MAPPED(&in6->sin6_addr) && in6->sin6_addr.s6_addr[12] == 127);
	}
	return 0;
}

/*
 * The token of --token FILE: its first line, without the line's end; printable ASCII without
 * spaces (what a bearer token is made of, RFC 6750 b64token), 16 to 4096 bytes.
 */
int
profil_serve_read_token(struct serve *sv, const char *path)
{
	char buf[SERVE_TOKEN_MAX + 2];
	ssize_t n;
	size_t len, i;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);

	if (fd < 0) {
		profil_cmd_error(strerror(errno), path);
		return -1;
	}
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n < 0) {
		profil_cmd_error(strerror(errno), path);
		return -1;
	}
	buf[n] = '\0';
	len = strcspn(buf, "\r\n");
	buf[len] = '\0';
	for (i = 0; i < len; i++)
		if (buf[i] < 0x21 || buf[i] > 0x7e)
			break;
	if (len < 16 || len > SERVE_TOKEN_MAX || i < len) {
		profil_cmd_error("--token: the file's first line must be a token of 16 to 4096 "
		    "printable characters without spaces", path);
		return -1;
	}
	sv->token = strdup(buf);
	sv->token_len = len;
	return sv->token != NULL ? 0 : -1;
}

int
profil_serve_http_start(struct serve *sv, const struct sockaddr_storage *ss, socklen_t sslen)
{
	const union MHD_DaemonInfo *info;
	char host[INET6_ADDRSTRLEN] = "?";
	const void *a = ss->ss_family == AF_INET ?
	    (const void *)&((const struct sockaddr_in *)ss)->sin_addr :
	    (const void *)&((const struct sockaddr_in6 *)ss)->sin6_addr;

	(void)sslen;
	sv->d = MHD_start_daemon(MHD_USE_EPOLL | MHD_ALLOW_SUSPEND_RESUME | MHD_USE_ERROR_LOG |
	    (ss->ss_family == AF_INET6 ? MHD_USE_IPv6 : 0), 0, NULL, NULL, handle, sv,
	    MHD_OPTION_SOCK_ADDR, ss,
	    MHD_OPTION_EXTERNAL_LOGGER, logger, sv,
	    MHD_OPTION_CONNECTION_LIMIT, (unsigned int)SERVE_CONNECTIONS,
	    MHD_OPTION_CONNECTION_TIMEOUT, (unsigned int)SERVE_TIMEOUT,
	    MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)SERVE_MEMORY,
	    MHD_OPTION_NOTIFY_COMPLETED, completed, sv,
	    MHD_OPTION_END);
	if (sv->d == NULL) {
		profil_cmd_error(sv->log[0] != '\0' ? sv->log : "cannot listen", NULL);
		return -1;
	}
	info = MHD_get_daemon_info(sv->d, MHD_DAEMON_INFO_BIND_PORT);
	inet_ntop(ss->ss_family, a, host, sizeof(host));
	fprintf(stderr, "profil: serving http://%s%s%s:%u/ (%s?seconds=N)\n",
	    ss->ss_family == AF_INET6 ? "[" : "", host, ss->ss_family == AF_INET6 ? "]" : "",
	    info != NULL ? info->port : 0, PROFILE_PATH);
	return 0;
}

/*
 * The recording ended (the command exited, the processes ended, a signal): open windows are
 * answered with what they got, and the connections given a few seconds to take it.
 */
void
profil_serve_http_finish(struct serve *sv)
{
	const union MHD_DaemonInfo *info;
	uint64_t until = profil_monotonic_ns() + 5000000000u;

	sv->ended = 1;
	sv->s = NULL;
	while (sv->nopen > 0)
		profil_serve_profile_end(sv, sv->nopen - 1);
	do {
		MHD_run_wait(sv->d, 100);
		info = MHD_get_daemon_info(sv->d, MHD_DAEMON_INFO_CURRENT_CONNECTIONS);
	} while (info != NULL && info->num_connections > 0 &&
	    profil_monotonic_ns() < until);
	MHD_stop_daemon(sv->d);
}
