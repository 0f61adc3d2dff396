/*
 * pushdrive - drives the push client (src/fleet/push.h) as profil serve would: a window every
 * -i ms for -n windows, each the bytes of a pprof file (-f) or, for an outage no receiver will
 * see, -z bytes of filler; a poll(2) loop on profil_push_fd() between windows; a final flush of
 * -w ms.  It then prints "key value" lines: the client's stats, the longest any call of the
 * client took and the latest a window was fed (the loop must never block), peak and start RSS.
 *
 *	pushdrive -u URL -a APP [-l LABELS] (-f FILE | -z SIZE) [-n N] [-i MS] [-s UNIX] [-W SECS]
 *	    [-q BYTES] [-t MS] [-r MS] [-w MS] [-A AUTHFILE] [-T TENANT]
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "fleet/push.h"
#include "outside/outside.h"

/* A field of /proc/self/status in kB (VmRSS, VmHWM). */
static long
status_kb(const char *key)
{
	char line[256];
	long kb = -1;
	size_t n = strlen(key);
	FILE *f = fopen("/proc/self/status", "r");

	if (f == NULL)
		return -1;
	while (fgets(line, sizeof(line), f) != NULL)
		if (strncmp(line, key, n) == 0 && line[n] == ':')
			kb = strtol(line + n + 1, NULL, 10);
	fclose(f);
	return kb;
}

static unsigned char *
load(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	unsigned char *buf = NULL;
	size_t cap = 0, n = 0, got;

	if (f == NULL)
		return NULL;
	do {
		if (n == cap) {
			unsigned char *b = realloc(buf, cap = cap ? 2 * cap : 65536);

			if (b == NULL) {
				free(buf);
				fclose(f);
				return NULL;
			}
			buf = b;
		}
		got = fread(buf + n, 1, cap - n, f);
		n += got;
	} while (got > 0);
	fclose(f);
	*len = n;
	return buf;
}

int
main(int argc, char **argv)
{
	struct profil_push_opts o = { 0 };
	struct profil_push_stats st;
	struct profil_push *p;
	const char *file = NULL;
	unsigned long n = 1, interval_ms = 100, window_s = 15, flush_ms = 5000;
	unsigned long long start = (unsigned long long)time(NULL) - 3600;
	size_t len = 0, filler = 0;
	unsigned char *body;
	uint64_t t0, next, slowest = 0, latest = 0, end;
	unsigned long fed = 0;
	long rss0;
	char err[256];
	int c, rc;

	while ((c = getopt(argc, argv, "u:a:l:f:z:n:i:s:W:q:t:r:w:A:T:")) != -1) {
		switch (c) {
		case 'u': o.url = optarg; break;
		case 'a': o.app = optarg; break;
		case 'l': o.labels = optarg; break;
		case 'f': file = optarg; break;
		case 'z': filler = strtoul(optarg, NULL, 10); break;
		case 'n': n = strtoul(optarg, NULL, 10); break;
		case 'i': interval_ms = strtoul(optarg, NULL, 10); break;
		case 's': start = strtoull(optarg, NULL, 10); break;
		case 'W': window_s = strtoul(optarg, NULL, 10); break;
		case 'q': o.queue_max = strtoul(optarg, NULL, 10); break;
		case 't': o.timeout_ms = (unsigned int)strtoul(optarg, NULL, 10); break;
		case 'r': o.retry_max_ms = (unsigned int)strtoul(optarg, NULL, 10); break;
		case 'w': flush_ms = strtoul(optarg, NULL, 10); break;
		case 'A': o.auth_file = optarg; break;
		case 'T': o.tenant = optarg; break;
		default: return 2;
		}
	}
	if (file != NULL) {
		if ((body = load(file, &len)) == NULL) {
			perror(file);
			return 1;
		}
	} else if ((body = malloc(len = filler ? filler : 1)) != NULL) {
		memset(body, 0xa5, len);
	} else {
		return 1;
	}
	if ((p = profil_push_new(&o, err, sizeof(err))) == NULL) {
		printf("error %s\n", err);
		free(body);
		return 1;
	}
	rss0 = status_kb("VmRSS");
	t0 = next = profil_monotonic_ns();
	while (fed < n) {
		struct pollfd pfd = { .fd = profil_push_fd(p), .events = POLLIN };
		uint64_t now = profil_monotonic_ns(), took;

		if (now >= next) {
			if (now - next > latest)
				latest = now - next;
			took = profil_monotonic_ns();
			rc = profil_push_window(p, body, len, start + fed * window_s,
			    start + (fed + 1) * window_s);
			if (rc < 0 && rc != -EMSGSIZE)
				printf("window_error %d\n", rc);
			fed++;
			next += interval_ms * 1000000u;
			took = profil_monotonic_ns() - took;
			slowest = took > slowest ? took : slowest;
			now = profil_monotonic_ns();
		} else if (poll(&pfd, 1, (int)((next - now) / 1000000u) + 1) < 0 &&
		    errno != EINTR) {
			perror("poll");
			return 1;
		}
		took = profil_monotonic_ns();
		if ((rc = profil_push_poll(p)) < 0)
			printf("poll_error %d\n", rc);
		took = profil_monotonic_ns() - took;
		slowest = took > slowest ? took : slowest;
	}
	end = profil_monotonic_ns();
	rc = profil_push_flush(p, (unsigned int)flush_ms);
	profil_push_stats(p, &st);
	printf("feed_ms %llu\n", (unsigned long long)((end - t0) / 1000000u));
	printf("flush %s\n", rc == 0 ? "done" : rc == -ETIMEDOUT ? "timeout" : "error");
	end = profil_monotonic_ns() - end;
	printf("flush_ms %llu\n", (unsigned long long)(end / 1000000u));
	printf("windows %llu\nsent %llu\nsent_bytes %llu\n", (unsigned long long)st.windows,
	    (unsigned long long)st.sent, (unsigned long long)st.sent_bytes);
	printf("attempts %llu\nfailed %llu\nretried %llu\nrejected %llu\n",
	    (unsigned long long)st.attempts, (unsigned long long)st.failed,
	    (unsigned long long)st.retried, (unsigned long long)st.rejected);
	printf("dropped %llu\ndropped_bytes %llu\nqueued %zu\nqueued_bytes %zu\n",
	    (unsigned long long)st.dropped, (unsigned long long)st.dropped_bytes, st.queued,
	    st.queued_bytes);
	printf("last_status %ld\nlast_error %s\n", st.last_status, st.last_error);
	printf("slowest_call_us %llu\nlatest_feed_us %llu\n", (unsigned long long)slowest / 1000,
	    (unsigned long long)latest / 1000);
	printf("window_bytes %zu\nrss_start_kb %ld\nrss_peak_kb %ld\n", len, rss0,
	    status_kb("VmHWM"));
	profil_push_free(p);
	free(body);
	return 0;
}
