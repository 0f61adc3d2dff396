/*
 * serve.h - profil serve's state, shared by serve.c (options, the recorder's loop, --push)
 * and serve_http.c (the HTTP daemon and its requests).  Private to cmd/.
 */
#ifndef PROFIL_CMD_SERVE_H
#define PROFIL_CMD_SERVE_H

#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#include <microhttpd.h>

#include "fleet/push.h"
#include "fleet/window.h"
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

/* serve_http.c; each int function returns 0, or -1 after a message. */
int profil_serve_parse_addr(const char *arg, struct sockaddr_storage *ss, socklen_t *sslen,
    int *loopback);
int profil_serve_read_token(struct serve *sv, const char *path);
int profil_serve_http_start(struct serve *sv, const struct sockaddr_storage *ss,
    socklen_t sslen);
void profil_serve_http_run(struct serve *sv);
void profil_serve_profile_end(struct serve *sv, size_t i);
void profil_serve_http_finish(struct serve *sv);

#endif /* PROFIL_CMD_SERVE_H */
