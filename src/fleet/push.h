/*
 * push.h - a Pyroscope push client: each window's pprof posted to the server's /ingest, from a
 * bounded queue, with retries while the server is down.  The command line's side only (it links
 * libcurl); never loaded into a profiled program.
 *
 * The request, as Pyroscope's HTTP API documents it ("Pyroscope server HTTP API", Ingestion)
 * and as its handler (pkg/ingester/pyroscope/ingest_handler.go) reads it:
 *
 *	POST URL/ingest?name=APP%7Bk%3Dv%2C...%7D&from=UNIX&until=UNIX&format=pprof&spyName=profil
 *	Content-Type: application/octet-stream
 *	body: the gzipped profile.proto itself
 *
 * With format=pprof the handler takes the body as the profile, gzipped or not; multipart/form-
 * data with a "profile" part is the other way in (pyroscope-go's, without format=pprof), needed
 * only for a custom sample_type_config, which profil's sample types (cpu/nanoseconds, wall)
 * do not need: Pyroscope names them process_cpu and wall.  name is APP{labels}, URL-encoded;
 * the server parses it with labelset.Parse and keeps a 2xx answer as stored.
 *
 * Nothing here blocks: profil_push_window() copies a window into the queue, profil_push_poll()
 * does what the network allows now.  One request is in flight at a time, so windows arrive in
 * order.  Not thread-safe: one thread uses an object (distinct objects in distinct threads
 * are fine).  Functions return 0 or -errno and never print.
 */
#ifndef PROFIL_FLEET_PUSH_H
#define PROFIL_FLEET_PUSH_H

#include <stddef.h>
#include <stdint.h>

struct profil_push;

/* What profil_push_new() is given; 0 or NULL fields take the defaults said. */
struct profil_push_opts {
	const char *url;	/* the server: http:// or https://, with a path prefix or not */
	const char *app;	/* application name: letters, digits and _ . - / */
	const char *labels;	/* "key=value,..." or NULL; keys letters, digits, _ and .;
				   values printable, without space , = { } */
	size_t queue_max;	/* bytes of windows waiting, the one in flight aside; 8 MiB */
	unsigned int timeout_ms;	/* each request, connection included; 10 s */
	unsigned int retry_max_ms;	/* the longest wait between attempts; 30 s */
	const char *auth_file;	/* NULL, or a file whose first line is "user:password" (HTTP
				   basic, as Grafana Cloud's stack user and token) or a token
				   (sent as "Authorization: Bearer TOKEN") */
	const char *tenant;	/* NULL, or X-Scope-OrgID of a multi-tenant Pyroscope */
};

/* What a caller prints at the end, or when asked: every window is sent, rejected, dropped or
 * still queued. */
struct profil_push_stats {
	uint64_t windows;		/* given to profil_push_window */
	uint64_t sent, sent_bytes;	/* answered 2xx */
	uint64_t attempts;		/* requests made */
	uint64_t failed;		/* attempts without a 2xx: no answer, time-out, error */
	uint64_t retried;		/* attempts that repeated a window */
	uint64_t rejected;		/* windows given up: a 3xx or 4xx (not 408, 429) answer */
	uint64_t dropped, dropped_bytes;	/* windows dropped, queue full or larger than it */
	size_t queued, queued_bytes;	/* not sent yet, the one in flight included */
	long last_status;		/* the last HTTP status answered, 0 if none yet */
	char last_error[192];		/* the last failure said ("" if none) */
};

/*
 * profil_push_new - a client for the server at o->url, for windows named o->app{o->labels}.
 * Nothing is sent before the first window.  Returns NULL with errno and a sentence in err
 * (errlen bytes): EINVAL for a URL that is not http(s) or has a query, an application name or
 * labels Pyroscope's labelset.Parse would refuse or read otherwise; an errno of reading
 * o->auth_file; ENOMEM.  Initializes libcurl (curl_global_init), which libcurl 7.84 and later
 * make thread-safe; before them call it from one thread at a time.
 */
struct profil_push *profil_push_new(const struct profil_push_opts *o, char *err, size_t errlen);

/*
 * profil_push_window - queues the window from_unix_s..until_unix_s (UNIX seconds) whose
 * gzipped pprof is pprof[0..len): the bytes are copied, nothing is sent until the next
 * profil_push_poll().  Never blocks.  When the queue would pass queue_max bytes the oldest
 * windows waiting (not the one in flight) are dropped to make room, and counted.  Returns 0
 * (also after dropping older windows), -EMSGSIZE when the window alone is larger than
 * queue_max (it is dropped and counted), -EINVAL for len 0 or until before from, -ENOMEM.
 */
int profil_push_window(struct profil_push *p, const void *pprof, size_t len,
    uint64_t from_unix_s, uint64_t until_unix_s);

/*
 * profil_push_fd - one descriptor for the caller's poll(2) loop (POLLIN): readable when
 * profil_push_poll() has work, whether a socket is ready, a request's time-out or a retry is
 * due.  Valid until profil_push_free(); the caller must not read or close it.
 */
int profil_push_fd(const struct profil_push *p);

/*
 * profil_push_poll - does what can be done without blocking: reads and writes the sockets
 * that are ready, finishes answered or timed-out requests, starts the next window when one is
 * due.  Call it when profil_push_fd() is readable and after profil_push_window(); calling it
 * more often is harmless.  A window answered 2xx is done; one that got no answer, a 5xx, 408
 * or 429 is tried again after a backoff (1 s doubling to retry_max_ms, half of it random,
 * at least Retry-After), as long as it is not dropped; another answer rejects it.  Returns
 * the number of windows queued, or -errno of the descriptors (the client is then unusable).
 */
int profil_push_poll(struct profil_push *p);

/*
 * profil_push_flush - polls until every queued window is sent or rejected, or timeout_ms has
 * passed; blocks, for the end of a run.  Returns 0, or -ETIMEDOUT with windows left (they
 * stay queued: stats say how many).
 */
int profil_push_flush(struct profil_push *p, unsigned int timeout_ms);

/*
 * profil_push_label_fix - makes value (in place) a label value profil_push_new() accepts: each
 * byte it would refuse (space , = { }, control or not ASCII) becomes '_'.  For values taken
 * from the machine, as a host or program name.
 */
void profil_push_label_fix(char *value);

/* profil_push_stats - the counters so far (struct profil_push_stats). */
void profil_push_stats(const struct profil_push *p, struct profil_push_stats *st);

/* profil_push_free - stops a request in flight, frees the queue (p may be NULL). */
void profil_push_free(struct profil_push *p);

#endif /* PROFIL_FLEET_PUSH_H */
