/*
 * push.c - the Pyroscope push client of push.h on libcurl's multi interface, driven through
 * one epoll descriptor: libcurl's sockets (its socket callback) and one timerfd for its
 * time-outs and our retries, so that a caller's loop waits on a single descriptor however many
 * sockets a request uses, and descriptor numbers past FD_SETSIZE (profil serve -a holds many)
 * are no problem, as they would be for curl_multi_fdset.
 */
#include "fleet/push.h"

#include <curl/curl.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include "fleet/target.h"
#include "outside/outside.h"

#define PUSH_QUEUE_MAX	(8u << 20)
#define PUSH_TIMEOUT_MS	10000u
#define PUSH_RETRY_MAX_MS	30000u
#define PUSH_RETRY_MIN_MS	1000u
#define NS_PER_MS	1000000ull

struct push_window {
	struct push_window *next;
	uint64_t from, until;
	unsigned int attempts;
	size_t len;
	unsigned char data[];
};

struct profil_push {
	CURLM *multi;
	CURL *easy;
	struct curl_slist *headers;
	char *prefix;			/* URL up to the times: ...ingest?name=...&format=pprof */
	char *url;			/* the request's */
	char *userpwd;			/* basic auth, wiped when freed */
	char *bearer;			/* the header line, wiped when freed */
	int epfd, timerfd;
	unsigned int timeout_ms, retry_max_ms;
	size_t queue_max;
	struct push_window *head, *tail;	/* head is the one in flight when busy */
	size_t waiting_bytes;		/* queued bytes, the one in flight aside */
	int busy;
	unsigned int failures;		/* in a row: the backoff's exponent */
	uint64_t next_try;		/* monotonic ns when the head may be sent */
	uint64_t curl_due;		/* monotonic ns libcurl wants its time-out call; 0 none */
	uint64_t rng;
	char errbuf[CURL_ERROR_SIZE];
	char answer[120];		/* the answer's first bytes, for a failure's message */
	size_t answer_len;
	struct profil_push_stats st;
};

/* libcurl says which sockets it waits on: they go into (or out of) the epoll set. */
static int
on_socket(CURL *easy, curl_socket_t s, int what, void *arg, void *sockp)
{
	struct profil_push *p = arg;
	struct epoll_event ev = { .data.fd = s };

	(void)easy;
	if (what == CURL_POLL_REMOVE) {
		/* libcurl may have closed it already: then it left the set by itself. */
		epoll_ctl(p->epfd, EPOLL_CTL_DEL, s, NULL);
		return 0;
	}
	ev.events = (what & CURL_POLL_IN ? EPOLLIN : 0) | (what & CURL_POLL_OUT ? EPOLLOUT : 0);
	if (epoll_ctl(p->epfd, sockp != NULL ? EPOLL_CTL_MOD : EPOLL_CTL_ADD, s, &ev) != 0) {
		if (errno == ENOENT)
			epoll_ctl(p->epfd, EPOLL_CTL_ADD, s, &ev);
		else if (errno == EEXIST)
			epoll_ctl(p->epfd, EPOLL_CTL_MOD, s, &ev);
	}
	/* Any non-NULL pointer marks the socket as known, for the next call's MOD. */
	curl_multi_assign(p->multi, s, p);
	return 0;
}

/* libcurl asks to be called back in timeout_ms (-1: never); it must not be called from here. */
static int
on_timer(CURLM *multi, long timeout_ms, void *arg)
{
	struct profil_push *p = arg;

	(void)multi;
	if (timeout_ms < 0)
		p->curl_due = 0;
	else
		p->curl_due = profil_monotonic_ns() + (uint64_t)timeout_ms * NS_PER_MS + 1;
	return 0;
}

/* The first bytes of the answer are kept for a failure's message; the rest is read and let go. */
static size_t
on_answer(char *data, size_t size, size_t nmemb, void *arg)
{
	struct profil_push *p = arg;
	size_t n = size * nmemb, room = sizeof(p->answer) - 1 - p->answer_len;

	memcpy(p->answer + p->answer_len, data, n < room ? n : room);
	p->answer_len += n < room ? n : room;
	p->answer[p->answer_len] = '\0';
	return n;
}

struct profil_push *
profil_push_new(const struct profil_push_opts *o, char *err, size_t errlen)
{
	struct profil_push *p;
	struct epoll_event ev = { .events = EPOLLIN };
	int rc = -ENOMEM;

	profil_push_say(err, errlen, "%s", "");
	if (o->url == NULL || o->app == NULL || !profil_push_name_ok(o->app, "-/")) {
		profil_push_say(err, errlen,
		    "the application name must be letters, digits, _ . - or /: '%s'",
		    o->app != NULL ? o->app : "");
		errno = EINVAL;
		return NULL;
	}
	if (o->labels != NULL && o->labels[0] != '\0' &&
	    (rc = profil_push_labels_ok(o->labels, err, errlen)) < 0) {
		errno = -rc;
		return NULL;
	}
	if ((p = calloc(1, sizeof(*p))) == NULL)
		return NULL;
	p->epfd = p->timerfd = -1;
	p->queue_max = o->queue_max != 0 ? o->queue_max : PUSH_QUEUE_MAX;
	p->timeout_ms = o->timeout_ms != 0 ? o->timeout_ms : PUSH_TIMEOUT_MS;
	p->retry_max_ms = o->retry_max_ms != 0 ? o->retry_max_ms : PUSH_RETRY_MAX_MS;
	if (p->retry_max_ms < PUSH_RETRY_MIN_MS)
		p->retry_max_ms = PUSH_RETRY_MIN_MS;
	p->rng = profil_monotonic_ns() ^ ((uint64_t)getpid() << 32) ^ (uintptr_t)p;
	rc = -ENOMEM;
	if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
		free(p);
		profil_push_say(err, errlen, "%s", "libcurl did not initialize");
		errno = ENOMEM;
		return NULL;
	}
	if ((p->easy = curl_easy_init()) == NULL || (p->multi = curl_multi_init()) == NULL)
		goto fail;
	if ((rc = profil_push_url_prefix(p->easy, o, &p->prefix, err, errlen)) < 0)
		goto fail;
	if (o->auth_file != NULL && (rc = profil_push_auth_read(o->auth_file, &p->userpwd,
	    &p->bearer, err, errlen)) < 0)
		goto fail;
	rc = -ENOMEM;
	if ((p->headers = curl_slist_append(NULL, "Content-Type: application/octet-stream")) ==
	    NULL)
		goto fail;
	/* No "Expect: 100-continue" for a large body: one round trip, and servers that ignore
	 * it would hold the request for a second. */
	if (curl_slist_append(p->headers, "Expect:") == NULL)
		goto fail;
	if (p->bearer != NULL && curl_slist_append(p->headers, p->bearer) == NULL)
		goto fail;
	if (o->tenant != NULL) {
		char *h = NULL;

		if (!profil_push_name_ok(o->tenant, "-/:")) {
			profil_push_say(err, errlen,
			    "the tenant must be letters, digits, _ . - / or ':': '%s'",
			    o->tenant);
			rc = -EINVAL;
			goto fail;
		}
		if (asprintf(&h, "X-Scope-OrgID: %s", o->tenant) < 0)
			goto fail;
		if (curl_slist_append(p->headers, h) == NULL) {
			free(h);
			goto fail;
		}
		free(h);
	}
	if ((p->epfd = epoll_create1(EPOLL_CLOEXEC)) < 0 ||
	    (p->timerfd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC)) < 0) {
		rc = -errno;
		goto fail;
	}
	ev.data.fd = p->timerfd;
	if (epoll_ctl(p->epfd, EPOLL_CTL_ADD, p->timerfd, &ev) != 0) {
		rc = -errno;
		goto fail;
	}
	curl_multi_setopt(p->multi, CURLMOPT_SOCKETFUNCTION, on_socket);
	curl_multi_setopt(p->multi, CURLMOPT_SOCKETDATA, p);
	curl_multi_setopt(p->multi, CURLMOPT_TIMERFUNCTION, on_timer);
	curl_multi_setopt(p->multi, CURLMOPT_TIMERDATA, p);

	/* No signals (the caller may have threads, and a SIGALRM of a blocking resolver would
	 * reach them), no redirects (they would drop or carry the credentials elsewhere). */
	curl_easy_setopt(p->easy, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(p->easy, CURLOPT_FOLLOWLOCATION, 0L);
#if LIBCURL_VERSION_NUM >= 0x075500
	curl_easy_setopt(p->easy, CURLOPT_PROTOCOLS_STR, "http,https");
#endif
	curl_easy_setopt(p->easy, CURLOPT_TIMEOUT_MS, (long)p->timeout_ms);
	curl_easy_setopt(p->easy, CURLOPT_CONNECTTIMEOUT_MS, (long)p->timeout_ms);
	curl_easy_setopt(p->easy, CURLOPT_POST, 1L);
	curl_easy_setopt(p->easy, CURLOPT_HTTPHEADER, p->headers);
	curl_easy_setopt(p->easy, CURLOPT_USERAGENT, "profil-push/1");
	curl_easy_setopt(p->easy, CURLOPT_WRITEFUNCTION, on_answer);
	curl_easy_setopt(p->easy, CURLOPT_WRITEDATA, p);
	curl_easy_setopt(p->easy, CURLOPT_ERRORBUFFER, p->errbuf);
	if (p->userpwd != NULL) {
		curl_easy_setopt(p->easy, CURLOPT_USERPWD, p->userpwd);
		curl_easy_setopt(p->easy, CURLOPT_HTTPAUTH, (long)CURLAUTH_BASIC);
	}
	return p;
fail:
	if (rc == -ENOMEM && (errlen == 0 || err[0] == '\0'))
		profil_push_say(err, errlen, "%s", "out of memory");
	profil_push_free(p);
	errno = -rc;
	return NULL;
}

int
profil_push_fd(const struct profil_push *p)
{
	return p->epfd;
}

static void
drop_head_waiting(struct profil_push *p)
{
	struct push_window *prev = p->busy ? p->head : NULL;
	struct push_window *w = prev != NULL ? prev->next : p->head;

	if (prev != NULL)
		prev->next = w->next;
	else
		p->head = w->next;
	if (p->tail == w)
		p->tail = prev;
	p->waiting_bytes -= w->len;
	p->st.queued--;
	p->st.queued_bytes -= w->len;
	p->st.dropped++;
	p->st.dropped_bytes += w->len;
	free(w);
}

int
profil_push_window(struct profil_push *p, const void *pprof, size_t len, uint64_t from_unix_s,
    uint64_t until_unix_s)
{
	struct push_window *w;

	if (len == 0 || until_unix_s < from_unix_s)
		return -EINVAL;
	p->st.windows++;
	if (len > p->queue_max) {
		p->st.dropped++;
		p->st.dropped_bytes += len;
		return -EMSGSIZE;
	}
	/* The oldest waiting windows make room: the newest tell the most about now. */
	while (p->waiting_bytes + len > p->queue_max)
		drop_head_waiting(p);
	if ((w = malloc(sizeof(*w) + len)) == NULL) {
		p->st.dropped++;
		p->st.dropped_bytes += len;
		return -ENOMEM;
	}
	w->next = NULL;
	w->from = from_unix_s;
	w->until = until_unix_s;
	w->attempts = 0;
	w->len = len;
	memcpy(w->data, pprof, len);
	if (p->tail != NULL)
		p->tail->next = w;
	else
		p->head = w;
	p->tail = w;
	p->waiting_bytes += len;
	p->st.queued++;
	p->st.queued_bytes += len;
	return 0;
}

static void
pop_head(struct profil_push *p)
{
	struct push_window *w = p->head;

	p->head = w->next;
	if (p->tail == w)
		p->tail = NULL;
	p->st.queued--;
	p->st.queued_bytes -= w->len;
	free(w);
}

/* 1 s doubling to retry_max_ms, the second half of each step random (so that a fleet that lost
 * its server together does not come back in step), and no sooner than a Retry-After. */
static void
backoff(struct profil_push *p, uint64_t now)
{
	uint64_t step = PUSH_RETRY_MIN_MS, wait;
	curl_off_t after = 0;

	for (unsigned int i = 1; i < p->failures && step < p->retry_max_ms; i++)
		step *= 2;
	if (step > p->retry_max_ms)
		step = p->retry_max_ms;
	p->rng ^= p->rng << 13;
	p->rng ^= p->rng >> 7;
	p->rng ^= p->rng << 17;
	wait = step / 2 + p->rng % (step / 2 + 1);
	if (curl_easy_getinfo(p->easy, CURLINFO_RETRY_AFTER, &after) == CURLE_OK && after > 0) {
		uint64_t ms = (uint64_t)after * 1000;

		if (ms > p->retry_max_ms)
			ms = p->retry_max_ms;
		if (ms > wait)
			wait = ms;
	}
	p->next_try = now + wait * NS_PER_MS;
}

/* The request of the head window ended: rc is libcurl's word on the transfer. */
static void
finish(struct profil_push *p, CURLcode rc, uint64_t now)
{
	long status = 0;

	curl_multi_remove_handle(p->multi, p->easy);
	p->busy = 0;
	if (rc == CURLE_OK)
		curl_easy_getinfo(p->easy, CURLINFO_RESPONSE_CODE, &status);
	if (rc == CURLE_OK && status >= 200 && status <= 299) {
		p->st.sent++;
		p->st.sent_bytes += p->head->len;
		p->st.last_status = status;
		p->failures = 0;
		pop_head(p);
		return;
	}
	p->st.failed++;
	if (rc != CURLE_OK) {
		snprintf(p->st.last_error, sizeof(p->st.last_error), "%.180s",
		    p->errbuf[0] != '\0' ? p->errbuf : curl_easy_strerror(rc));
	} else {
		p->st.last_status = status;
		p->answer[strcspn(p->answer, "\r\n")] = '\0';
		snprintf(p->st.last_error, sizeof(p->st.last_error), "HTTP %ld%s%s", status,
		    p->answer[0] != '\0' ? ": " : "", p->answer);
	}
	/* The server down, overloaded or slow is worth waiting for; a request it refuses (400
	 * malformed, 401 or 403 credentials, 404 no /ingest, 413 too large) would be refused
	 * again.  Pyroscope's handler answers 408 when it could not read the body in time. */
	if (rc != CURLE_OK || status >= 500 || status == 429 || status == 408) {
		p->failures++;
		p->waiting_bytes += p->head->len;
		backoff(p, now);
		return;
	}
	p->st.rejected++;
	pop_head(p);
}

static int
start(struct profil_push *p)
{
	struct push_window *w = p->head;
	char times[64];
	size_t n = strlen(p->prefix);
	char *url;

	snprintf(times, sizeof(times), "&from=%llu&until=%llu", (unsigned long long)w->from,
	    (unsigned long long)w->until);
	if ((url = realloc(p->url, n + strlen(times) + 1)) == NULL)
		return -ENOMEM;
	p->url = url;
	memcpy(url, p->prefix, n);
	strcpy(url + n, times);
	p->errbuf[0] = '\0';
	p->answer_len = 0;
	p->answer[0] = '\0';
	curl_easy_setopt(p->easy, CURLOPT_URL, url);
	curl_easy_setopt(p->easy, CURLOPT_POSTFIELDS, (const char *)w->data);
	curl_easy_setopt(p->easy, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)w->len);
	if (curl_multi_add_handle(p->multi, p->easy) != CURLM_OK)
		return -ENOMEM;
	p->busy = 1;
	p->waiting_bytes -= w->len;
	p->st.attempts++;
	if (w->attempts++ > 0)
		p->st.retried++;
	return 0;
}

/* The timerfd rings at the earliest of libcurl's time-out and the next retry. */
static int
arm(struct profil_push *p)
{
	uint64_t due = p->curl_due;
	struct itimerspec it = { 0 };

	if (!p->busy && p->head != NULL && (due == 0 || p->next_try < due))
		due = p->next_try;
	if (due != 0) {
		if (due < 1)
			due = 1;
		it.it_value.tv_sec = (time_t)(due / 1000000000u);
		it.it_value.tv_nsec = (long)(due % 1000000000u);
	}
	return timerfd_settime(p->timerfd, TFD_TIMER_ABSTIME, &it, NULL) == 0 ? 0 : -errno;
}

int
profil_push_poll(struct profil_push *p)
{
	struct epoll_event ev[8];
	int n, running, rc;

	/* A handful of rounds: starting a request or finishing one makes libcurl ask for an
	 * immediate call, which the next round makes without waiting for the caller's loop. */
	for (int round = 0; round < 4; round++) {
		uint64_t now = profil_monotonic_ns();
		CURLMsg *m;
		int left, acted = 0;

		n = epoll_wait(p->epfd, ev, 8, 0);
		if (n < 0 && errno != EINTR)
			return -errno;
		for (int i = 0; i < n; i++) {
			int mask = 0;

			if (ev[i].data.fd == p->timerfd) {
				uint64_t ticks;

				if (read(p->timerfd, &ticks, sizeof(ticks)) < 0 && errno != EAGAIN)
					return -errno;
				continue;
			}
			mask |= ev[i].events & EPOLLIN ? CURL_CSELECT_IN : 0;
			mask |= ev[i].events & EPOLLOUT ? CURL_CSELECT_OUT : 0;
			mask |= ev[i].events & (EPOLLERR | EPOLLHUP) ? CURL_CSELECT_ERR : 0;
			curl_multi_socket_action(p->multi, ev[i].data.fd, mask, &running);
			acted = 1;
		}
		now = profil_monotonic_ns();
		if (p->curl_due != 0 && now >= p->curl_due) {
			p->curl_due = 0;
			curl_multi_socket_action(p->multi, CURL_SOCKET_TIMEOUT, 0, &running);
			acted = 1;
		}
		while ((m = curl_multi_info_read(p->multi, &left)) != NULL)
			if (m->msg == CURLMSG_DONE && p->busy)
				finish(p, m->data.result, now);
		if (!p->busy && p->head != NULL && now >= p->next_try) {
			if ((rc = start(p)) < 0)
				return rc;
			acted = 1;
		}
		if (!acted && (p->curl_due == 0 || p->curl_due > now))
			break;
	}
	if ((rc = arm(p)) < 0)
		return rc;
	return (int)(p->st.queued < 0x7fffffff ? p->st.queued : 0x7fffffff);
}

int
profil_push_flush(struct profil_push *p, unsigned int timeout_ms)
{
	uint64_t end = profil_monotonic_ns() + (uint64_t)timeout_ms * NS_PER_MS;
	struct pollfd pfd = { .fd = p->epfd, .events = POLLIN };
	int rc;

	while ((rc = profil_push_poll(p)) > 0) {
		uint64_t now = profil_monotonic_ns();

		if (now >= end)
			return -ETIMEDOUT;
		if (poll(&pfd, 1, (int)((end - now) / NS_PER_MS) + 1) < 0 && errno != EINTR)
			return -errno;
	}
	return rc;
}

void
profil_push_stats(const struct profil_push *p, struct profil_push_stats *st)
{
	*st = p->st;
}

void
profil_push_free(struct profil_push *p)
{
	if (p == NULL)
		return;
	if (p->multi != NULL && p->easy != NULL && p->busy)
		curl_multi_remove_handle(p->multi, p->easy);
	if (p->easy != NULL)
		curl_easy_cleanup(p->easy);
	if (p->multi != NULL)
		curl_multi_cleanup(p->multi);
	curl_slist_free_all(p->headers);
	while (p->head != NULL)
		pop_head(p);
	if (p->userpwd != NULL)
		explicit_bzero(p->userpwd, strlen(p->userpwd));
	if (p->bearer != NULL)
		explicit_bzero(p->bearer, strlen(p->bearer));
	free(p->userpwd);
	free(p->bearer);
	free(p->prefix);
	free(p->url);
	if (p->timerfd >= 0)
		close(p->timerfd);
	if (p->epfd >= 0)
		close(p->epfd);
	free(p);
	curl_global_cleanup();
}
