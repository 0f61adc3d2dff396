/*
 * serve.c - profil serve: a recorder that keeps running, and an HTTP endpoint that continuous
 * profilers scrape.  GET /debug/pprof/profile?seconds=N answers, as Go's net/http/pprof does,
 * a gzipped pprof profile of the next N seconds, so go tool pprof, Parca and Grafana Alloy read
 * it as they read a Go service's.  It records from outside, as `profil record` and `profil top`
 * do (a command, -p or -a), into a private directory removed at the end; a window is what that
 * recording gained between its start and its end (src/fleet/window.h).
 *
 * HTTP is libmicrohttpd's (requests parsed by a maintained library, not here), driven from the
 * recorder's own loop rather than from a thread of its own: its epoll descriptor is the loop's
 * watch descriptor and MHD_run is called when it is readable and every 100 ms (timeouts, the
 * windows' ends).  So one thread owns the recording session, as it must (not thread-safe): a
 * request starts its window there (a snapshot of the running images, then the mark), its
 * connection is suspended until the window ends, and the profile is built there too, then the
 * connection resumed.  The recorder's rings wait while a profile is built (as they do while
 * `profil top` draws); they hold seconds of samples.
 *
 * What listens is bounded: loopback unless --token is given (a bearer token compared in
 * constant time on every request), requests' memory (URL and headers), no body, seconds
 * 1..3600, a few windows at a time (429), a few dozen connections, 10 s of silence before a
 * connection is closed; nothing but the three paths below answers (404), and no path names a
 * file.
 */
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <netdb.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <microhttpd.h>

#include "cmd.h"
#include "fleet/push.h"
#include "fleet/window.h"
#include "outdir.h"
#include "outside/outside.h"

#define SERVE_WINDOWS		4	/* profile windows open at once; more get 429 */
#define SERVE_CONNECTIONS	64	/* connections at once; more are closed on accept */
#define SERVE_TIMEOUT		10	/* seconds a connection may stay silent */
#define SERVE_MEMORY		16384	/* bytes of a request's line and headers (414, 431) */
#define SERVE_TOKEN_MAX		4096
#define SERVE_SECONDS_MAX	3600
#define SERVE_SECONDS_DEFAULT	30	/* net/http/pprof's */
#define SERVE_TICK_NS		100000000u

#define PROFILE_PATH		"/debug/pprof/profile"

#define PUSH_WINDOW_DEFAULT	15	/* seconds: --window */
#define PUSH_FLUSH_MS		5000	/* at the end, for the windows still queued */

/* One profile request: its window, then its answer. */
struct request {
	struct MHD_Connection *c;
	int waiting;			/* suspended until its window ends */
	uint64_t end_ns;		/* monotonic */
	struct profil_window w;
	char *data;			/* the profile, or NULL */
	size_t len;
	int err;			/* -errno of building it */
};

struct serve {
	struct MHD_Daemon *d;
	char dir[PATH_MAX];		/* the recording: made for this run, removed after */
	char *token;			/* NULL: none asked for */
	size_t token_len;
	struct profil_outside *s;	/* the session, while the recorder's loop calls us */
	struct request *open[SERVE_WINDOWS];
	size_t nopen;
	int ended;			/* the recording ended: no new window */
	char log[256];			/* libmicrohttpd's last message, said if it cannot start */
	struct profil_push *push;	/* --push: each window posted to Pyroscope, or NULL */
	const char *push_url;
	struct profil_window pw;	/* the push window open now (pw_open) */
	int pw_open;
	uint64_t pw_end_ns;		/* monotonic */
	uint64_t pw_from;		/* UNIX seconds */
	uint64_t window_ns;
	uint64_t said_dropped;		/* dropped windows said so far */
};

static int
usage(FILE *f)
{
	fprintf(f, "usage: profil serve [--http ADDR:PORT [--token FILE]]\n"
	    "           [--push URL [--window SECS] [--app NAME] [--push-auth FILE]]\n"
	    "           [-F HZ] [-g] [--wall]\n"
	    "           (-p PID[,PID...] | -a | -- COMMAND [ARGS...])\n"
	    "  --http ADDR:PORT  where to listen: 127.0.0.1:PORT, [::1]:PORT, or :PORT\n"
	    "                  (loopback); another address only with --token; PORT 0 picks one\n"
	    "  --token FILE    every request must say Authorization: Bearer <the file's token>\n"
	    "  -F, --freq HZ   samples per second of each thread's CPU time, 1..20000\n"
	    "                  (default 1000; 100 with --wall)\n"
	    "  -g              record call stacks\n"
	    "  --wall          also sample threads while they wait\n"
	    "  -p, --pid PIDS  running processes, until they exit\n"
	    "  -a, --all-cpus  every process of the machine, until SIGINT or SIGTERM\n"
	    "  GET /debug/pprof/profile?seconds=N  a gzipped pprof of the next N seconds\n"
	    "                  (1..3600, default 30), as Go's net/http/pprof answers\n"
	    "  --push URL      post each window's pprof to a Pyroscope server's /ingest\n"
	    "  --window SECS   the push window, 1..3600 seconds (default 15)\n"
	    "  --app NAME      the application name in Pyroscope (default profil)\n"
	    "  --push-auth FILE  user:password (basic auth) or a bearer token, first line\n");
	return f == stdout ? 0 : 2;
}

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
static void
profile_end(struct serve *sv, size_t i)
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
static void
http_run(struct serve *sv)
{
	MHD_UNSIGNED_LONG_LONG t;
	int i;

	for (i = 0; i < 8; i++) {
		MHD_run(sv->d);
		if (MHD_get_timeout(sv->d, &t) != MHD_YES || t > 0)
			break;
	}
}

/* --push: the queue's losses, said as they grow (a server down for long drops windows). */
static void
push_say(struct serve *sv, int end)
{
	struct profil_push_stats st;

	profil_push_stats(sv->push, &st);
	if (st.dropped > sv->said_dropped && !end)
		fprintf(stderr, "profil serve: %llu windows dropped so far, the push queue full "
		    "(%s): '%s'\n", (unsigned long long)st.dropped, st.last_error, sv->push_url);
	sv->said_dropped = st.dropped;
	if (!end)
		return;
	fprintf(stderr, "profil serve: pushed %llu of %llu windows (%llu bytes); %llu dropped "
	    "(%llu bytes), %llu rejected, %zu unsent; %llu failed attempts%s%s: '%s'\n",
	    (unsigned long long)st.sent, (unsigned long long)st.windows,
	    (unsigned long long)st.sent_bytes, (unsigned long long)st.dropped,
	    (unsigned long long)st.dropped_bytes, (unsigned long long)st.rejected, st.queued,
	    (unsigned long long)st.failed, st.last_error[0] != '\0' ? ", the last: " : "",
	    st.last_error, sv->push_url);
}

/* CLOCK_REALTIME to the nearest second: /ingest's from and until are whole UNIX seconds. */
static uint64_t
unix_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec + (ts.tv_nsec >= 500000000);
}

/*
 * --push: the push window that ends is built and queued, and the next one marked.  s is the
 * session while it records from outside (its running images are snapshot first; NULL from
 * inside, where the program rewrites them itself); at the end, the files are final and the
 * last window ends with the recording.
 */
static void
push_tick(struct serve *sv, struct profil_outside *s, uint64_t now, int end)
{
	int err;

	if (sv->push == NULL)
		return;
	if (sv->pw_open ? now >= sv->pw_end_ns || end : !end) {
		if (s != NULL)
			profil_outside_snapshot(s);
		if (sv->pw_open) {
			char *data = NULL;
			size_t len = 0;

			err = profil_window_pprof(&sv->pw, &data, &len);
			profil_window_release(&sv->pw);
			sv->pw_open = 0;
			if (err == 0)
				err = profil_push_window(sv->push, data, len, sv->pw_from,
				    unix_seconds());
			free(data);
			if (err != 0 && err != -EMSGSIZE)
				fprintf(stderr, "profil serve: a window not pushed: %s\n",
				    strerror(-err));
			push_say(sv, 0);
		}
		if (!end && profil_window_mark(&sv->pw, sv->dir, sv->nopen == 0) == 0) {
			sv->pw_open = 1;
			sv->pw_from = unix_seconds();
			sv->pw_end_ns = now + sv->window_ns;
		}
	}
	profil_push_poll(sv->push);
}

/* The recording ended: its last window is pushed, and the queue given a few seconds. */
static void
push_finish(struct serve *sv)
{
	sv->s = NULL;
	push_tick(sv, NULL, profil_monotonic_ns(), 1);
	profil_push_flush(sv->push, PUSH_FLUSH_MS);
	push_say(sv, 1);
}

/* The push client for --push URL, its labels the host and what is recorded. */
static int
push_start(struct serve *sv, const char *app, const char *auth, const char *what)
{
	struct profil_push_opts po = { .url = sv->push_url, .app = app, .auth_file = auth };
	char host[256] = "", program[256], labels[600], err[256];
	const char *base = strrchr(what, '/');

	gethostname(host, sizeof(host) - 1);
	snprintf(program, sizeof(program), "%s", base != NULL ? base + 1 : what);
	profil_push_label_fix(host);
	profil_push_label_fix(program);
	snprintf(labels, sizeof(labels), "host=%s,program=%s", host[0] ? host : "_",
	    program[0] ? program : "_");
	po.labels = labels;
	if ((sv->push = profil_push_new(&po, err, sizeof(err))) == NULL) {
		fprintf(stderr, "profil: %s\n", err);
		return -1;
	}
	return 0;
}

/* The recorder's watch: a request, or a tick (windows that end, connections that time out). */
static int
watch(struct profil_outside *s, int woken, void *arg)
{
	struct serve *sv = arg;
	uint64_t now = profil_monotonic_ns();
	size_t i;
	int due = 0;

	(void)woken;
	sv->s = s;
	push_tick(sv, s, now, 0);
	if (sv->d == NULL)
		return 0;
	http_run(sv);
	for (i = 0; i < sv->nopen; i++)
		due |= sv->open[i]->end_ns <= now;
	if (due) {
		if (s != NULL)
			profil_outside_snapshot(s);
		for (i = sv->nopen; i-- > 0;)
			if (sv->open[i]->end_ns <= now)
				profile_end(sv, i);
		http_run(sv);
	}
	return 0;
}

/*
 * ADDR:PORT, [V6ADDR]:PORT or :PORT (loopback), numeric or a name the resolver knows; *loopback
 * says whether it is the machine's own.  Returns 0, or -1 after a message.
 */
static int
parse_addr(const char *arg, struct sockaddr_storage *ss, socklen_t *sslen, int *loopback)
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
static int
read_token(struct serve *sv, const char *path)
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

static int
http_start(struct serve *sv, const struct sockaddr_storage *ss, socklen_t sslen)
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
static void
http_finish(struct serve *sv)
{
	const union MHD_DaemonInfo *info;
	uint64_t until = profil_monotonic_ns() + 5000000000u;

	sv->ended = 1;
	sv->s = NULL;
	while (sv->nopen > 0)
		profile_end(sv, sv->nopen - 1);
	do {
		MHD_run_wait(sv->d, 100);
		info = MHD_get_daemon_info(sv->d, MHD_DAEMON_INFO_CURRENT_CONNECTIONS);
	} while (info != NULL && info->num_connections > 0 &&
	    profil_monotonic_ns() < until);
	MHD_stop_daemon(sv->d);
}

int
profil_cmd_serve(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "http", required_argument, NULL, 'H' },
		{ "token", required_argument, NULL, 'T' },
		{ "freq", required_argument, NULL, 'F' },
		{ "wall", no_argument, NULL, 'W' },
		{ "pid", required_argument, NULL, 'p' },
		{ "all-cpus", no_argument, NULL, 'a' },
		{ "push", required_argument, NULL, 'U' },
		{ "window", required_argument, NULL, 'N' },
		{ "app", required_argument, NULL, 'A' },
		{ "push-auth", required_argument, NULL, 'K' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct profil_cmd_record_opts o = { .hzv = 1000, .quiet = 1 };
	struct sockaddr_storage ss;
	socklen_t sslen = 0;
	struct profil_cmd_watch w;
	struct profil_cmd_outdir out;
	struct serve sv;
	const char *http = NULL, *token = NULL;
	const char *app = "profil", *push_auth = NULL;
	unsigned long window = PUSH_WINDOW_DEFAULT;
	char *end;
	int c, rc, loopback = 0, epfd = -1, refused;

	memset(&sv, 0, sizeof(sv));
	optind = 1;
	while ((c = getopt_long(argc, argv, "+F:gp:ah", longopts, NULL)) != -1) {
		switch (c) {
		case 'H':
			http = optarg;
			break;
		case 'T':
			token = optarg;
			break;
		case 'U':
			sv.push_url = optarg;
			break;
		case 'N':
			errno = 0;
			window = strtoul(optarg, &end, 10);
			if (errno != 0 || *end != '\0' || window < 1 || window > 3600) {
				profil_cmd_error("the push window must be 1 to 3600 s", optarg);
				return 2;
			}
			break;
		case 'A':
			app = optarg;
			break;
		case 'K':
			push_auth = optarg;
			break;
		case 'h':
			return usage(stdout);
		default:
			rc = profil_cmd_record_option(c, optarg, &o);
			if (rc < 0)
				return 2;
			if (rc == 0)
				return usage(stderr);
		}
	}
	if (http == NULL && sv.push_url == NULL) {
		profil_cmd_error("where profiles go: --http ADDR:PORT, --push URL or both", NULL);
		return usage(stderr);
	}
	if ((o.pids != NULL) + o.all + (optind < argc) != 1) {
		profil_cmd_error("what to record: -p PIDS, -a or a command, one of them", NULL);
		return usage(stderr);
	}
	if (o.wall && o.hz == NULL)
		o.hzv = 100;
	if (http != NULL && parse_addr(http, &ss, &sslen, &loopback) != 0)
		return 2;
	if (http != NULL && !loopback && token == NULL) {
		profil_cmd_error("another address than loopback needs --token FILE (a bearer "
		    "token every request must carry)", http);
		return 2;
	}
	if (token != NULL && read_token(&sv, token) != 0)
		return 2;
	sv.window_ns = (uint64_t)window * 1000000000u;
	if (sv.push_url != NULL && push_start(&sv, app, push_auth, o.all ? "all" :
	    o.pids != NULL ? "pids" : argv[optind]) != 0) {
		free(sv.token);
		return 2;
	}
	/* Where perf events are refused, a command is recorded from inside it (its profiles
	 * rewritten about once a second: windows to a second or so); -p and -a cannot be. */
	refused = profil_cmd_outside_refused(&o, o.pids != NULL ? o.pids : argv[optind],
	    o.pids != NULL || o.all ? "profil serve records -p and -a from outside" :
	    "recording from inside the program, windows to about a second", !o.all && !o.pids);
	if (refused == 1) {
		free(sv.token);
		profil_push_free(sv.push);
		return 1;
	}
	if (profil_cmd_outdir_private(&out, sv.dir, sizeof(sv.dir), "profil-serve") != 0) {
		free(sv.token);
		profil_push_free(sv.push);
		return 1;
	}
	o.dir = sv.dir;
	signal(SIGPIPE, SIG_IGN);
	rc = 1;
	if (http == NULL || http_start(&sv, &ss, sslen) == 0) {
		w.every_ns = SERVE_TICK_NS;
		w.fd = sv.d != NULL ?
		    MHD_get_daemon_info(sv.d, MHD_DAEMON_INFO_EPOLL_FD)->epoll_fd :
		    profil_push_fd(sv.push);
		/* Both: one epoll set of the two (without it the push client still runs on the
		 * ticks, 100 ms apart). */
		if (sv.d != NULL && sv.push != NULL &&
		    (epfd = epoll_create1(EPOLL_CLOEXEC)) >= 0) {
			struct epoll_event ev = { .events = EPOLLIN, .data.fd = w.fd };

			epoll_ctl(epfd, EPOLL_CTL_ADD, w.fd, &ev);
			ev.data.fd = profil_push_fd(sv.push);
			epoll_ctl(epfd, EPOLL_CTL_ADD, ev.data.fd, &ev);
			w.fd = epfd;
		}
		w.fn = watch;
		w.arg = &sv;
		o.watch = &w;
		rc = refused == 2 ? profil_cmd_record_inside(&o, argv + optind, &out) :
		    profil_cmd_record_outside(&o, optind < argc ? argv + optind : NULL, &out);
		if (sv.d != NULL)
			http_finish(&sv);
		if (sv.push != NULL)
			push_finish(&sv);
	}
	if (epfd >= 0)
		close(epfd);
	profil_push_free(sv.push);
	profil_cmd_outdir_release(&out);
	profil_cmd_outdir_remove(sv.dir);
	free(sv.token);
	return rc;
}
