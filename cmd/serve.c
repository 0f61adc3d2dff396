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
#include "serve.h"
#include "fleet/push.h"
#include "fleet/window.h"
#include "outdir.h"
#include "outside/outside.h"

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
	profil_serve_http_run(sv);
	for (i = 0; i < sv->nopen; i++)
		due |= sv->open[i]->end_ns <= now;
	if (due) {
		if (s != NULL)
			profil_outside_snapshot(s);
		for (i = sv->nopen; i-- > 0;)
			if (sv->open[i]->end_ns <= now)
				profil_serve_profile_end(sv, i);
		profil_serve_http_run(sv);
	}
	return 0;
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
	if (http != NULL && profil_serve_parse_addr(http, &ss, &sslen, &loopback) != 0)
		return 2;
	if (http != NULL && !loopback && token == NULL) {
		profil_cmd_error("another address than loopback needs --token FILE (a bearer "
		    "token every request must carry)", http);
		return 2;
	}
	if (token != NULL && profil_serve_read_token(&sv, token) != 0)
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
	if (http == NULL || profil_serve_http_start(&sv, &ss, sslen) == 0) {
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
			profil_serve_http_finish(&sv);
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
