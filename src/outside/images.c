/*
 * What the kernel's records say about each process image: its executable mappings (with the
 * epoch rule of docs/FORMAT.md: a mapping replaced by another at an overlapping address ends,
 * and samples taken after are told apart), its threads and their names, and its samples
 * counted once per distinct (thread, epoch, stack) in the profile model's table
 * (src/profile/samples.c).  An image ends at its process's exit or exec, and is then written
 * to its file and freed: memory follows the processes alive.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buildid.h"
#include "profile/maps.h"
#include "session.h"

/* ---- pids ---- */

struct pid_key {
	const struct profil_outside *s;
	pid_t pid;
};

static int
pid_same(const void *arg, size_t row)
{
	const struct pid_key *k = arg;

	return k->s->pids[row].pid == k->pid;
}

static struct profil_outside_pid *
pid_row(struct profil_outside *s, pid_t pid)
{
	struct pid_key k = { s, pid };
	ssize_t row;

	if (s->npids == s->pidcap) {
		size_t cap = s->pidcap ? s->pidcap * 2 : 64;
		struct profil_outside_pid *p = realloc(s->pids, cap * sizeof(*p));

		if (p == NULL)
			return NULL;
		s->pids = p;
		s->pidcap = cap;
	}
	row = profil_index_get(&s->pid_index, profil_hash_mix(0, (uint64_t)pid), pid_same, &k,
	    s->npids);
	if (row < 0)
		return NULL;
	if ((size_t)row == s->npids) {
		s->pids[row].pid = pid;
		s->pids[row].image = NULL;
		s->npids++;
	}
	return &s->pids[row];
}

/* ---- images ---- */

static void
image_free(struct profil_outside_image *im)
{
	size_t i;

	if (im == NULL)
		return;
	for (i = 0; i < im->nmaps; i++)
		free(im->maps[i].m.path);
	free(im->maps);
	free(im->mods);
	for (i = 0; i < im->nthreads; i++) {
		free(im->threads[i].wall_pcs);
		if (im->threads[i].wall_fd >= 0)
			close(im->threads[i].wall_fd);
	}
	free(im->threads);
	profil_index_release(&im->thread_index);
	profil_samples_release(&im->stacks);
	free(im->progname);
	free(im->exe);
	free(im->name);
	profil_outside_jit_free(im);
	free(im);
}

struct profil_outside_image *
profil_outside_image_new(struct profil_outside *s, pid_t pid, const char *progname, const char *exe)
{
	struct profil_outside_pid *row = pid_row(s, pid);
	struct profil_outside_image *im;

	if (row == NULL)
		return NULL;
	im = calloc(1, sizeof(*im));
	if (im == NULL)
		return NULL;
	im->pid = pid;
	im->progname = strdup(progname != NULL ? progname : "");
	im->exe = strdup(exe != NULL ? exe : "");
	im->exit_kind = PROFIL_EXIT_RUNNING;
	im->exit_code = -1;
	/*
	 * The command's image waits for its status from waitpid(), however it was first seen:
	 * with its exec record lost on a full ring (-a under load) it is known by its samples.
	 */
	im->hold = s->root != 0 && pid == s->root;
	if (im->progname == NULL || im->exe == NULL) {
		image_free(im);
		return NULL;
	}
	/* A pid whose last image never saw its end (records lost) ends now. */
	if (row->image != NULL)
		profil_outside_image_end(s, row->image, PROFIL_EXIT_RUNNING, -1);
	row->image = im;
	s->stats.processes++;
	return im;
}

struct thread_key {
	const struct profil_outside_image *im;
	uint32_t tid;
};

static int
thread_same(const void *arg, size_t row)
{
	const struct thread_key *k = arg;

	return k->im->threads[row].tid == k->tid;
}

/* The thread's row, added (without a name) if new; NULL without memory. */
struct profil_outside_thread *
profil_outside_thread_of(struct profil_outside_image *im, uint32_t tid)
{
	struct thread_key k = { im, tid };
	ssize_t row;

	if (im->nthreads == im->threadcap) {
		size_t cap = im->threadcap ? im->threadcap * 2 : 8;
		struct profil_outside_thread *p = realloc(im->threads, cap * sizeof(*p));

		if (p == NULL)
			return NULL;
		im->threads = p;
		im->threadcap = cap;
	}
	row = profil_index_get(&im->thread_index, profil_hash_mix(1, tid), thread_same, &k,
	    im->nthreads);
	if (row < 0)
		return NULL;
	if ((size_t)row == im->nthreads) {
		im->threads[row].tid = tid;
		im->threads[row].name[0] = '\0';
		im->threads[row].alive = 0;
		im->threads[row].wall_runs = 0;
		im->threads[row].wall_fd = -1;
		im->threads[row].wall_pcs = NULL;
		im->threads[row].wall_depth = 0;
		memset(&im->threads[row].wall_cpu, 0, sizeof(im->threads[row].wall_cpu));
		im->threads[row].cpu_row = -1;
		im->nthreads++;
	}
	return &im->threads[row];
}


/* A thread starts or ends: the process lives while one of its threads does. */
void
profil_outside_thread_alive(struct profil_outside_image *im, uint32_t tid, int alive)
{
	struct profil_outside_thread *t = profil_outside_thread_of(im, tid);

	if (t == NULL || t->alive == alive)
		return;
	t->alive = alive;
	/* --wall: what was known of its waits goes with it (its tid may come back). */
	if (!alive) {
		/* Waits for a CPU held back for a stack that no CPU sample gave: without. */
		if (t->wall_cpu.unplaced > 0) {
			const uint64_t cut[2] = { PROFIL_PC_WAIT_CPU, PROFIL_PC_CUT_STACK };

			if (profil_outside_sample_add(im, tid, cut, 2, t->wall_cpu.unplaced) < 0)
				im->lost += t->wall_cpu.unplaced;
			else
				im->samples += t->wall_cpu.unplaced;
		}
		free(t->wall_pcs);
		t->wall_pcs = NULL;
		if (t->wall_fd >= 0)
			close(t->wall_fd);
		t->wall_fd = -1;
		memset(&t->wall_cpu, 0, sizeof(t->wall_cpu));
		t->cpu_row = -1;
	}
	im->live_threads += alive ? 1 : -1;
}

void
profil_outside_thread_name(struct profil_outside_image *im, uint32_t tid, const char *name,
    size_t n)
{
	struct profil_outside_thread *t = profil_outside_thread_of(im, tid);

	if (t == NULL)
		return;
	if (n >= sizeof(t->name))
		n = sizeof(t->name) - 1;
	memcpy(t->name, name, n);
	t->name[n] = '\0';
}

/*
 * A new thread or process is named as the thread that made it, until it names itself.  The name
 * is copied out first: adding tid may move the table that from's row is in.
 */
void
profil_outside_thread_name_after(struct profil_outside_image *im, uint32_t tid,
    struct profil_outside_image *from, uint32_t from_tid)
{
	const struct profil_outside_thread *t = profil_outside_thread_of(from, from_tid);
	char name[sizeof(t->name)];

	if (t == NULL)
		return;
	memcpy(name, t->name, sizeof(name));
	profil_outside_thread_name(im, tid, name, strlen(name));
}

/* The GNU build-id of an ELF file; 0 when there is none or no regular file. */
static uint32_t
file_build_id(const char *path, uint8_t *id)
{
	uint8_t note[4096];
	size_t n = 0;
	int fd = profil_file_open_regular(path, NULL);

	if (fd < 0)
		return 0;
	n = profil_build_id_fd(fd, id, PROFIL_FORMAT_MAX_BUILD_ID, note, sizeof(note));
	close(fd);
	return (uint32_t)n;
}

/*
 * Whether a mapping is anonymous memory: what the kernel names "//anon" (or [heap], [stack],
 * [anon:NAME] in /proc), where JIT compilers put their code.  The vDSO is code of a file.
 */
static int
anonymous(const char *path, size_t plen)
{
	if (plen == 0 || (plen >= 2 && path[0] == '/' && path[1] == '/'))
		return 1;
	return path[0] == '[' && !(plen == 6 && memcmp(path, "[vdso]", 6) == 0) &&
	    !(plen == 10 && memcmp(path, "[vsyscall]", 10) == 0);
}

/*
 * Anonymous code [start, start + len) joins the live anonymous mapping it overlaps or touches,
 * which grows to hold it (and absorbs the others it reaches): JITs map and protect their code
 * space piece by piece, and every piece is the same "[anon]", named by address.  Returns 1
 * when one was grown, 0 when the caller is to add a new one.
 */
static int
anon_join(struct profil_outside_image *im, uint64_t start, uint64_t len)
{
	struct profil_outside_map *into = NULL, *m;
	size_t i;

	for (i = 0; i < im->nmaps; i++) {
		m = &im->maps[i];
		if (!m->live || !profil_mapping_joins(&m->m, start, start + len))
			continue;
		if (into == NULL) {
			into = m;
			profil_mapping_grow(&into->m, start, start + len);
			continue;
		}
		/* A second one reached: absorbed, with the older load of the two. */
		profil_mapping_grow(&into->m, m->m.start, m->m.end);
		if (m->m.load_epoch < into->m.load_epoch) {
			into->m.load_epoch = m->m.load_epoch;
			into->m.load_ns = m->m.load_ns;
		}
		free(m->m.path);
		if (into == &im->maps[im->nmaps - 1])
			into = m;
		*m = im->maps[--im->nmaps];
		i--;
	}
	return into != NULL;
}

/*
 * A new executable mapping: the live ones it overlaps end in the current epoch, and the
 * samples from now on have the next; anonymous code joins the anonymous code it touches
 * instead (anon_join).  A jitdump file mapped executable is not code but where the names of
 * the JIT's code are (perf's convention): noted, not kept.
 */
void
profil_outside_map_add(struct profil_outside *s, struct profil_outside_image *im, uint64_t start,
    uint64_t len, uint64_t pgoff, uint32_t prot, const uint8_t *bid, uint32_t bidlen,
    const char *path, size_t plen, uint64_t when)
{
	struct profil_outside_map *m;
	int ended = 0, anon = anonymous(path, plen);
	size_t i;

	/* Not the kernel's (a ring cut short): the file could not hold it, nor a reader take it. */
	if (len == 0 || start + len < start)
		return;
	if (!anon && profil_jit_is_dump_path(path, plen)) {
		profil_outside_jit_dump(im, path, plen);
		return;
	}
	im->mods_stale = 1;
	for (i = 0; i < im->nmaps; i++) {
		m = &im->maps[i];
		if (m->live && profil_mapping_overlaps(&m->m, start, start + len) &&
		    !(anon && strcmp(m->m.path, "[anon]") == 0)) {
			m->live = 0;
			profil_mapping_end(&m->m, im->epoch, when);
			ended = 1;
		}
	}
	if (ended)
		im->epoch++;
	if (anon && anon_join(im, start, len))
		return;
	if (anon) {
		path = "[anon]";
		plen = 6;
		pgoff = 0;	/* no file: its pcs are named by address */
	}
	if (plen > PROFIL_FORMAT_MAX_PATH)
		plen = PROFIL_FORMAT_MAX_PATH;
	if (im->nmaps == im->mapcap) {
		size_t cap = im->mapcap ? im->mapcap * 2 : 16;
		struct profil_outside_map *p = realloc(im->maps, cap * sizeof(*p));

		if (p == NULL)
			return;
		im->maps = p;
		im->mapcap = cap;
	}
	m = &im->maps[im->nmaps];
	memset(m, 0, sizeof(*m));
	profil_mapping_start(&m->m, start, start + len, pgoff, prot & 7, im->epoch, when);
	m->m.path = strndup(path, plen);
	if (m->m.path == NULL)
		return;
	if (bidlen > 0) {
		memcpy(m->m.build_id, bid, bidlen);
		m->m.build_id_len = bidlen;
	} else if (path[0] == '/') {
		m->m.build_id_len = file_build_id(m->m.path, m->m.build_id);
	}
	m->live = 1;
	im->nmaps++;
	/* The first file mapped by an exec is the program (or a script's interpreter). */
	if (im->exe[0] == '\0' && path[0] == '/') {
		free(im->exe);
		im->exe = strdup(m->m.path);
		if (im->exe == NULL)
			im->exe = strdup("");
	}
	(void)s;
}

/* ---- samples ---- */

/* Adds weight to the entry of (tid, epoch, stack): its row, or -ENOMEM. */
int
profil_outside_sample_add(struct profil_outside_image *im, uint32_t tid, const uint64_t *pcs,
    uint32_t depth, uint64_t weight)
{
	return (int)profil_samples_add(&im->stacks, tid, im->epoch, pcs, depth, weight);
}

/*
 * weight samples of the entry row taken at when (CLOCK_MONOTONIC ns), in slots of one sampling
 * period from the image's start.  The timeline grows to its bound as it fills; out of memory,
 * the bound becomes what it has.
 */
void
profil_outside_image_time(struct profil_outside *s, struct profil_outside_image *im, int row,
    uint64_t when, uint64_t weight)
{
	struct profil_timeline *tl = &im->stacks.times;
	uint64_t t = when + (uint64_t)s->realtime_offset, slot;

	if (tl->base_ns == 0)
		profil_timeline_init(tl, NULL, 0, PROFIL_TIMELINE_MAX, s->period_ns);
	/*
	 * An image described from /proc when its first record was read starts then, after its
	 * first samples were taken: it starts at the first instead.  Records come in time
	 * order, so only the first can be before the start.
	 */
	if (t < im->start_ns && tl->n == 0)
		im->start_ns = t;
	slot = t > im->start_ns ? (t - im->start_ns) / tl->base_ns : 0;
	profil_samples_time(&im->stacks, (size_t)row, slot, weight);
}

int
profil_outside_image_count(struct profil_outside *s, struct profil_outside_image *im,
    uint32_t tid, const uint64_t *pcs, uint32_t depth, uint64_t weight, uint64_t when)
{
	int row = profil_outside_sample_add(im, tid, pcs, depth, weight);

	if (row < 0)
		return -ENOMEM;
	profil_outside_image_time(s, im, row, when, weight);
	im->samples += weight;
	return 0;
}

uint32_t
profil_outside_image_cpu_stack(const struct profil_outside_image *im,
    const struct profil_outside_thread *t, uint64_t *pcs, uint32_t max)
{
	uint32_t depth;

	if (t->cpu_row < 0 || (size_t)t->cpu_row >= im->stacks.n || max == 0)
		return 0;
	depth = im->stacks.rows[t->cpu_row].depth;
	depth = depth < max ? depth : max;
	memcpy(pcs, profil_samples_pcs(&im->stacks, (size_t)t->cpu_row), depth * sizeof(*pcs));
	return depth;
}

/* ---- reading /proc, for processes that ran before the events were opened ---- */

/*
 * The program's name for files and reports: comm, unless the kernel cut it at 15 bytes and the
 * executable's name is the longer original.
 */
static void
image_progname(struct profil_outside_image *im, const char *comm)
{
	const char *base = strrchr(im->exe, '/');
	char *p;

	base = base != NULL ? base + 1 : im->exe;
	if (strlen(comm) == 15 && strncmp(base, comm, 15) == 0)
		comm = base;
	p = strdup(comm);
	if (p != NULL) {
		free(im->progname);
		im->progname = p;
	}
}

/* Mappings, threads and names of a running process, as /proc shows them now. */
int
profil_outside_image_synth(struct profil_outside *s, struct profil_outside_image *im)
{
	char path[64], buf[4096], comm[64];
	uint64_t now = profil_monotonic_ns() + (uint64_t)s->realtime_offset;
	struct dirent *d;
	ssize_t n;
	FILE *f;
	DIR *dir;
	char *line = NULL;
	size_t cap = 0;

	snprintf(path, sizeof(path), "/proc/%d/exe", im->pid);
	n = readlink(path, buf, sizeof(buf) - 1);
	if (n > 0) {
		buf[n] = '\0';
		free(im->exe);
		im->exe = strdup(buf);
		if (im->exe == NULL)
			return -ENOMEM;
	}
	snprintf(path, sizeof(path), "/proc/%d/comm", im->pid);
	if (profil_read_text(path, comm, sizeof(comm)) > 0) {
		comm[strcspn(comm, "\n")] = '\0';
		image_progname(im, comm);
	}
	snprintf(path, sizeof(path), "/proc/%d/stat", im->pid);
	if (profil_read_text(path, buf, sizeof(buf)) > 0) {
		char *p = strrchr(buf, ')');
		int ppid;

		if (p != NULL && sscanf(p + 1, " %*c %d", &ppid) == 1)
			im->ppid = (uint32_t)ppid;
	}
	im->start_ns = now;
	snprintf(path, sizeof(path), "/proc/%d/maps", im->pid);
	f = fopen(path, "re");
	if (f == NULL)
		return -errno;
	while (getline(&line, &cap, f) > 0) {
		unsigned long long start, end, off;
		char perms[8];
		int at = 0;

		if (sscanf(line, "%llx-%llx %7s %llx %*s %*s %n", &start, &end, perms, &off,
		    &at) < 4 || at == 0 || perms[2] != 'x' || end <= start)
			continue;
		line[strcspn(line, "\n")] = '\0';
		profil_outside_map_add(s, im, start, end - start, off,
		    (perms[0] == 'r' ? 1u : 0u) | (perms[1] == 'w' ? 2u : 0u) | 4u, NULL, 0,
		    line + at, strlen(line + at), now);
	}
	free(line);
	fclose(f);
	snprintf(path, sizeof(path), "/proc/%d/task", im->pid);
	dir = opendir(path);
	while (dir != NULL && (d = readdir(dir)) != NULL) {
		char tpath[96];
		long tid = strtol(d->d_name, NULL, 10);

		if (tid <= 0)
			continue;
		snprintf(tpath, sizeof(tpath), "/proc/%d/task/%ld/comm", im->pid, tid);
		if (profil_read_text(tpath, comm, sizeof(comm)) < 0)
			continue;
		comm[strcspn(comm, "\n")] = '\0';
		profil_outside_thread_name(im, (uint32_t)tid, comm, strlen(comm));
		profil_outside_thread_alive(im, (uint32_t)tid, 1);
	}
	if (dir != NULL)
		closedir(dir);
	return 0;
}

struct profil_outside_image *
profil_outside_image_of(struct profil_outside *s, pid_t pid, int create)
{
	struct profil_outside_pid *row = pid_row(s, pid);
	struct profil_outside_image *im;
	int64_t ns;

	if (row == NULL)
		return NULL;
	if (row->image != NULL || !create)
		return row->image;
	/* Records of a process whose start was not seen (a lost record): ask /proc. */
	im = profil_outside_image_new(s, pid, "", "");
	if (im != NULL)
		profil_outside_image_synth(s, im);
	/* Attached to (or seen late): its time in the kernel counts from now. */
	if (im != NULL && (ns = profil_outside_system_ns(pid)) > 0)
		im->system_base_ns = (uint64_t)ns;
	return im;
}

/* The image's end: written, then freed; its pid row forgets it. */
void
profil_outside_image_end(struct profil_outside *s, struct profil_outside_image *im,
    uint32_t kind, int32_t code)
{
	struct profil_outside_pid *row = pid_row(s, im->pid);

	im->exit_kind = kind;
	im->exit_code = code;
	if (im->end_ns == 0)
		im->end_ns = profil_monotonic_ns() + (uint64_t)s->realtime_offset;
	profil_outside_image_write(s, im);
	if (row != NULL && row->image == im)
		row->image = NULL;
	image_free(im);
}
