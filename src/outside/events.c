/*
 * The kernel's side of the outside recorder: one perf task-clock event per CPU on the recorded
 * process, inherited by every thread and child it makes from then on, each CPU's event owning
 * a ring buffer that the kernel writes samples and side-band records into (mmap with the
 * file's build-id, comm and exec, fork, exit, lost).  An event on one CPU only may be mmapped
 * with inherit set; a per-thread one (cpu -1) may not, so this is what `perf record` does too.
 * Reading copies the records out, and a queue puts them in time order across the CPUs.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <asm/perf_regs.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "session.h"

#define DEFAULT_PAGES	64	/* 256 KiB a CPU: half of an unprivileged user's allowance */
#define STACK_PAGES	128	/* with call chains: the whole allowance of 516 KiB */
#define COPY_PAGES	1024	/* with stack copies: retried smaller where that is refused */
#define MIN_PAGES	8

void
profil_outside_sysctl(const char *name, char *out, size_t cap)
{
	char path[128];

	snprintf(path, sizeof(path), "/proc/sys/kernel/%s", name);
	if (profil_read_text(path, out, cap) <= 0)
		snprintf(out, cap, "?");
	out[strcspn(out, "\n")] = '\0';
}

/* Why the kernel refused: the limit involved, named so the user can act on it. */
static void
explain(int e, int every, const char *what, char *err, size_t errlen)
{
	char v[32];

	if (err == NULL || errlen == 0)
		return;
	switch (e) {
	case EACCES:
	case EPERM:
		profil_outside_sysctl("perf_event_paranoid", v, sizeof(v));
		if (every)
			snprintf(err, errlen, "%s: %s (every process needs kernel.perf_event_paranoid "
			    "0 or less, or CAP_PERFMON; it is %s)", what, strerror(e), v);
		else
			snprintf(err, errlen, "%s: %s (kernel.perf_event_paranoid=%s, or no ptrace "
			    "access to the process)", what, strerror(e), v);
		break;
	case EMFILE:
	case ENFILE:
		snprintf(err, errlen, "%s: %s (RLIMIT_NOFILE: one descriptor per CPU and thread)",
		    what, strerror(e));
		break;
	default:
		snprintf(err, errlen, "%s: %s", what, strerror(e));
		break;
	}
}

static unsigned int
max_stack(void)
{
	char v[32];
	unsigned long n;

	profil_outside_sysctl("perf_event_max_stack", v, sizeof(v));
	n = strtoul(v, NULL, 10);
	return n > 0 && n < 1024 ? (unsigned int)n : 127;
}

uint64_t
profil_outside_sample_type(const struct profil_outside *s)
{
	uint64_t t = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME;

	if (s->opts.depth > 1 && s->opts.frame_pointers)
		t |= PERF_SAMPLE_CALLCHAIN;
	else if (s->opts.depth > 1)
		/* What a walk by unwind tables starts from (images.c reads them in this order). */
		t |= PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;
	/* The kernel's frames come from its callchain; the user's as before. */
	if (s->kernel && s->opts.depth > 1 && !s->opts.frame_pointers)
		t |= PERF_SAMPLE_CALLCHAIN;
	return t;
}

static void
event_desc(const struct profil_outside *s, struct profil_perf_desc *d, int on_exec, size_t ring)
{
	memset(d, 0, sizeof(*d));
	/* A CPU's clock for every process on it (-a), else the followed threads' own. */
	d->cpu_clock = s->opts.system_wide;
	d->period_ns = s->period_ns;
	d->sample_type = profil_outside_sample_type(s);
	if (d->sample_type & PERF_SAMPLE_REGS_USER) {
		d->regs_user = PROFIL_OUTSIDE_REGS_USER;
		d->stack_user = s->opts.stack_copy;
	}
	d->disabled = on_exec;
	d->enable_on_exec = on_exec;
	d->inherit = !s->opts.system_wide;
	/*
	 * The kernel too where it lets us (root, CAP_PERFMON, perf_event_paranoid <= 1; see
	 * event_keep), as perf record does: the time a program spends in its system calls is
	 * its time.  Its frames come from the kernel's callchain; the user's as before.
	 */
	d->kernel = s->kernel;
	/* -a: the idle task's time is no program's (its loop would be most of a quiet machine). */
	d->exclude_idle = s->opts.system_wide;
	d->exclude_callchain_user = s->kernel && s->opts.depth > 1 && !s->opts.frame_pointers;
	d->sideband = 1;
	/*
	 * Build-ids in the mmap records, except on CPU-wide events (-a): with those, Debian's perf
	 * 6.1 recording anything beside profil aborts in its build-id code (util/build-id.c).
	 * The ids are then read from the files (images.c, map_add).
	 */
	d->build_id = !s->opts.system_wide;
	/* One clock for every CPU's records, so that they can be put in order. */
	d->monotonic = 1;
	/*
	 * Woken when a ring is half full; otherwise read on the recorder's own period.  Stack
	 * copies fill a ring fast: woken at a quarter, while three quarters are free.
	 */
	d->wakeup_bytes = (uint32_t)(s->opts.depth > 1 && !s->opts.frame_pointers ? ring / 4 :
	    ring / 2);
	if (s->opts.depth > 1 && (s->opts.frame_pointers || s->kernel)) {
		unsigned int m = max_stack();

		d->max_stack = (uint16_t)(s->opts.depth - 1 < m ? s->opts.depth - 1 : m);
	}
}

/*
 * Opens one event, without build-ids in mmap records on a kernel too old for them.  The
 * descriptor, or -1 with errno set.
 */
static int
event_open(const struct profil_outside *s, pid_t pid, int cpu, int on_exec, size_t ring)
{
	struct profil_perf_desc d;
	int fd;

	event_desc(s, &d, on_exec, ring);
	fd = profil_perf_open(&d, pid, cpu);
	if (fd == -EINVAL) {
		d.build_id = 0;
		fd = profil_perf_open(&d, pid, cpu);
	}
	if (fd < 0) {
		errno = -fd;
		return -1;
	}
	return fd;
}

/* A disabled user-space clock event (config), opened only to learn whether it may be. */
static int
probe_open(int cpu_clock, pid_t pid, int cpu)
{
	struct profil_perf_desc d = { .cpu_clock = cpu_clock, .period_ns = 1000000, .disabled = 1 };

	return profil_perf_open(&d, pid, cpu);
}

int
profil_outside_probe(void)
{
	int fd = probe_open(0, 0, -1);

	if (fd < 0)
		return fd;
	close(fd);
	return 0;
}

/* The CPUs online, from /sys (a list such as "0-3,6"); at most cap of them. */
static size_t
cpus_online(int *cpus, size_t cap)
{
	char buf[4096], *p;
	size_t n = 0;
	ssize_t len = -1;
	int fd = open("/sys/devices/system/cpu/online", O_RDONLY | O_CLOEXEC);

	if (fd >= 0) {
		len = read(fd, buf, sizeof(buf) - 1);
		close(fd);
	}
	if (len <= 0) {
		long c = sysconf(_SC_NPROCESSORS_ONLN);

		for (long i = 0; i < c && n < cap; i++)
			cpus[n++] = (int)i;
		return n;
	}
	buf[len] = '\0';
	for (p = buf; *p != '\0' && *p != '\n';) {
		char *end;
		long lo = strtol(p, &end, 10), hi = lo;

		if (end == p)
			break;
		if (*end == '-')
			hi = strtol(end + 1, &end, 10);
		for (long i = lo; i <= hi && n < cap; i++)
			cpus[n++] = (int)i;
		p = *end == ',' ? end + 1 : end;
	}
	return n;
}

int
profil_outside_probe_system(char *err, size_t errlen)
{
	int cpu, fd;

	if (cpus_online(&cpu, 1) != 1)
		cpu = 0;
	fd = probe_open(1, -1, cpu);
	if (fd < 0) {
		int e = -fd;

		explain(e, 1, "cannot record every process", err, errlen);
		return -e;
	}
	close(fd);
	return 0;
}

static int
fd_keep(struct profil_outside *s, int fd)
{
	if (s->nfds == s->fdcap) {
		size_t cap = s->fdcap ? s->fdcap * 2 : 16;
		int *p = realloc(s->fds, cap * sizeof(*p));

		if (p == NULL)
			return -ENOMEM;
		s->fds = p;
		s->fdcap = cap;
	}
	s->fds[s->nfds++] = fd;
	return 0;
}

/* One event, kept for closing at the end; returns its descriptor or -errno (err says why). */
static int
event_keep(struct profil_outside *s, pid_t pid, int cpu, int on_exec, size_t ring, char *err,
    size_t errlen)
{
	int fd = event_open(s, pid, cpu, on_exec, ring), e;

	/*
	 * The first event says whether the kernel may be sampled: perf_event_paranoid 2 refuses
	 * it to the unprivileged, who get user space alone, and the report the kernel's count of
	 * the time it left out (the header's system_ns).
	 */
	if (fd < 0 && s->kernel && s->nfds == 0 && (errno == EACCES || errno == EPERM)) {
		s->kernel = 0;
		fd = event_open(s, pid, cpu, on_exec, ring);
	}
	if (fd < 0) {
		e = errno;
		explain(e, pid == -1, "cannot open perf events", err, errlen);
		return -e;
	}
	if (fd_keep(s, fd) < 0) {
		close(fd);
		return -ENOMEM;
	}
	return fd;
}

/*
 * The events of pid, one per CPU, each with its ring.  Unprivileged, ring pages are charged to
 * kernel.perf_event_mlock_kb (per CPU) and then RLIMIT_MEMLOCK: a refused ring is retried
 * smaller before giving up.
 */
int
profil_outside_rings_open(struct profil_outside *s, pid_t pid, int on_exec, char *err,
    size_t errlen)
{
	static int cpus[4096];
	long page = sysconf(_SC_PAGESIZE);
	size_t ncpu = cpus_online(cpus, sizeof(cpus) / sizeof(cpus[0])), i;
	size_t pages = s->opts.ring_pages ? s->opts.ring_pages :
	    s->opts.depth <= 1 ? DEFAULT_PAGES : s->opts.frame_pointers ? STACK_PAGES : COPY_PAGES;

	s->rings = calloc(ncpu, sizeof(*s->rings));
	if (s->rings == NULL)
		return -ENOMEM;
	for (i = 0; i < ncpu; i++) {
		struct profil_outside_ring *r = &s->rings[i];
		void *m = MAP_FAILED;
		int fd, e;

		fd = event_keep(s, pid, cpus[i], on_exec, pages * (size_t)page, err, errlen);
		if (fd < 0)
			return fd;
		for (;;) {
			m = mmap(NULL, (pages + 1) * (size_t)page, PROT_READ | PROT_WRITE,
			    MAP_SHARED, fd, 0);
			if (m != MAP_FAILED || (errno != EPERM && errno != ENOMEM) ||
			    pages <= MIN_PAGES)
				break;
			pages /= 2;
		}
		if (m == MAP_FAILED) {
			char v[32];

			e = errno;
			profil_outside_sysctl("perf_event_mlock_kb", v, sizeof(v));
			snprintf(err, errlen, "cannot map a perf ring buffer: %s "
			    "(kernel.perf_event_mlock_kb=%s per CPU, then RLIMIT_MEMLOCK)",
			    strerror(e), v);
			return -e;
		}
		r->fd = fd;
		r->cpu = cpus[i];
		profil_perf_ring_init(&r->ring, m, (size_t)page, pages * (size_t)page);
		r->map_len = (pages + 1) * (size_t)page;
		s->nrings++;
	}
	return 0;
}

/* One more thread of an attached process: an event per CPU, written to that CPU's ring. */
int
profil_outside_event_add(struct profil_outside *s, pid_t tid, char *err, size_t errlen)
{
	size_t i;

	for (i = 0; i < s->nrings; i++) {
		int fd = event_keep(s, tid, s->rings[i].cpu, 0, s->rings[i].ring.size, err,
		    errlen), e;

		if (fd < 0)
			return fd;
		if (ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, s->rings[i].fd) != 0) {
			e = errno;
			explain(e, 0, "cannot redirect a perf event to its ring", err, errlen);
			return -e;
		}
	}
	return 0;
}

void
profil_outside_events_close(struct profil_outside *s)
{
	size_t i;

	/* Disabled first, so that no record is written between the last read and the close. */
	for (i = 0; i < s->nfds; i++)
		ioctl(s->fds[i], PERF_EVENT_IOC_DISABLE, 0);
	profil_outside_read(s, 1);
	for (i = 0; i < s->nrings; i++)
		munmap(s->rings[i].ring.meta, s->rings[i].map_len);
	for (i = 0; i < s->nfds; i++)
		close(s->fds[i]);
	free(s->rings);
	free(s->fds);
	s->rings = NULL;
	s->fds = NULL;
	s->nrings = s->nfds = s->fdcap = 0;
}

size_t
profil_outside_pollfds(const struct profil_outside *s, struct pollfd *fds, size_t max)
{
	size_t i;

	for (i = 0; i < s->nrings && i < max; i++) {
		fds[i].fd = s->rings[i].fd;
		fds[i].events = POLLIN;
		fds[i].revents = 0;
	}
	return i;
}

uint64_t
profil_outside_drain_ns(const struct profil_outside *s)
{
	/* A sample's bytes as attr_init() asks for them: header, ip, pid/tid, time, then more. */
	uint64_t bytes = 8 + 3 * 8, ns, size = UINT64_MAX;
	size_t i;

	if (s->opts.depth > 1 && s->opts.frame_pointers)
		bytes += 8 + 8 * ((uint64_t)s->opts.depth + 2);
	else if (s->opts.depth > 1)
		bytes += 8 + 4 * 8 + 8 + s->opts.stack_copy + 8 + (s->kernel ? 8 + 8 * 32 : 0);
	for (i = 0; i < s->nrings; i++)
		if (s->rings[i].ring.size < size)
			size = s->rings[i].ring.size;
	if (s->nrings == 0 || s->opts.hz == 0)
		return 100 * 1000 * 1000;
	/*
	 * A CPU runs one thread at a time, and each is sampled every period of its CPU time: a
	 * ring takes at most hz samples a second.  A quarter of the time it takes to fill.
	 */
	ns = size * 1000000000 / 4 / ((uint64_t)s->opts.hz * bytes);
	return ns < 1000000 ? 1000000 : ns > 100000000 ? 100000000 : ns;
}

/*
 * A sample's stack copy cut to the part the kernel filled (dyn_size, rounded up to 8 so that
 * the records behind it in the arena stay aligned): the rest is padding, and a record waits
 * in the queue for a read or two.  What is left still decodes: size, the copy, dyn_size
 * (nothing of ours follows it).
 */
static size_t
sample_trim(uint8_t *rec, size_t len, const struct profil_perf_sample *smp)
{
	struct perf_event_header h;
	size_t off = smp->stack_off;
	uint64_t keep = (smp->stack_dyn + 7) & ~(uint64_t)7;

	if (smp->stack_size == 0 || keep >= smp->stack_size)
		return len;
	memmove(rec + off + 8 + keep, rec + off + 8 + smp->stack_size, 8);
	memcpy(rec + off, &keep, 8);
	len = off + 8 + (size_t)keep + 8;
	memcpy(&h, rec, sizeof(h));
	h.size = (uint16_t)len;
	memcpy(rec, &h, sizeof(h));
	return len;
}

/*
 * The time of a record: a sample's own, or for every other record the one of the sample_id
 * trailer that sample_id_all adds; 0 for a record that does not hold it.  A sample is
 * trimmed (sample_trim) on the way.
 */
static uint64_t
record_take(const struct profil_outside *s, uint8_t *rec, size_t *len)
{
	struct perf_event_header h;
	struct profil_perf_sample smp;
	struct profil_perf_id id;
	uint64_t type = profil_outside_sample_type(s);

	memcpy(&h, rec, sizeof(h));
	if (h.type != PERF_RECORD_SAMPLE)
		return profil_perf_id_parse(type, rec, *len, 0, &id) == 0 ? id.time : 0;
	if (profil_perf_sample_parse(type, PROFIL_OUTSIDE_REGS_USER, rec, *len, &smp) < 0)
		return 0;
	*len = sample_trim(rec, *len, &smp);
	return smp.time;
}

static int
queue_push(struct profil_outside *s, const uint8_t *rec, size_t len)
{
	struct profil_outside_rec *q;

	if (s->arena_len + len > s->arena_cap) {
		size_t cap = s->arena_cap ? s->arena_cap : 64 * 1024;
		uint8_t *a;

		while (cap < s->arena_len + len)
			cap *= 2;
		a = realloc(s->arena, cap);
		if (a == NULL)
			return -ENOMEM;
		s->arena = a;
		s->arena_cap = cap;
	}
	if (s->nqueue == s->queuecap) {
		size_t cap = s->queuecap ? s->queuecap * 2 : 1024;

		q = realloc(s->queue, cap * sizeof(*q));
		if (q == NULL)
			return -ENOMEM;
		s->queue = q;
		s->queuecap = cap;
	}
	memcpy(s->arena + s->arena_len, rec, len);
	q = &s->queue[s->nqueue++];
	q->off = s->arena_len;
	q->seq = s->seq++;
	q->time = record_take(s, s->arena + q->off, &len);
	q->len = (uint32_t)len;
	s->arena_len += len;
	return 0;
}

static void
ring_read(struct profil_outside *s, struct profil_outside_ring *r)
{
	/* A record that wraps around the ring's end: sizes are 16 bits. */
	static uint64_t buf[65536 / 8];
	const uint8_t *rec;
	size_t len;

	profil_perf_ring_begin(&r->ring);
	while ((rec = profil_perf_ring_next(&r->ring, buf, sizeof(buf), &len, NULL)) != NULL)
		/* Out of memory: the record is dropped, and counted as lost. */
		if (queue_push(s, rec, len) < 0)
			s->stats.lost++;
	profil_perf_ring_end(&r->ring);
}

static int
rec_cmp(const void *a, const void *b)
{
	const struct profil_outside_rec *x = a, *y = b;

	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/*
 * Every ring is read; then the records older than the start of the previous read are applied
 * in time order.  A record is in its ring within microseconds of its time stamp, so anything
 * stamped before the previous read began has been read by now, from whichever CPU.
 */
void
profil_outside_read(struct profil_outside *s, int final)
{
	uint64_t now = profil_monotonic_ns(), limit = s->last_read, drained = now;
	size_t i, done, keep = 0, arena = 0, sorted;

	for (i = 0; i < s->nrings; i++)
		ring_read(s, &s->rings[i]);
	s->last_read = now;
	if (s->nqueue == 0)
		return;
	qsort(s->queue, s->nqueue, sizeof(*s->queue), rec_cmp);
	sorted = s->nqueue;
	for (done = 0; done < sorted; done++) {
		const struct profil_outside_rec *q = &s->queue[done];

		if (!final && q->time >= limit)
			break;
		profil_outside_apply(s, s->arena + q->off, q->len);
		/*
		 * Applying can take long (an object's unwind tables are built at its first
		 * sample): the rings are drained meanwhile, so that they never fill.  What comes
		 * in is newer than the limit, and waits, unsorted, for the next read.
		 */
		if (!final && (done & 63) == 63 &&
		    profil_monotonic_ns() - drained > 20 * 1000 * 1000) {
			for (i = 0; i < s->nrings; i++)
				ring_read(s, &s->rings[i]);
			drained = profil_monotonic_ns();
		}
	}
	/* What waits moves to the front of the arena, in its new order. */
	if (done < s->nqueue) {
		uint8_t *a = malloc(s->arena_cap);

		if (a != NULL) {
			for (i = done; i < s->nqueue; i++) {
				struct profil_outside_rec *q = &s->queue[i];

				memcpy(a + arena, s->arena + q->off, q->len);
				q->off = arena;
				arena += q->len;
				s->queue[keep++] = *q;
			}
			free(s->arena);
			s->arena = a;
		} else {
			/* Cannot compact: apply everything now rather than lose it. */
			for (i = done; i < s->nqueue; i++)
				profil_outside_apply(s, s->arena + s->queue[i].off,
				    s->queue[i].len);
		}
	}
	s->nqueue = keep;
	s->arena_len = arena;
}
