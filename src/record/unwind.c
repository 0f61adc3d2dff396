/*
 * The unwind tables the signal handler walks by (--call-graph cfi): one table per object
 * (src/cfi), built off the signal path, and a sorted space of the live mappings published for
 * the handler in struct profil_unwind_shared (src/sample/stacks.h).
 *
 * Two steps, on two kinds of thread.  Files are opened by the recorder's thread, in its own
 * descriptor table, right after it reads the mappings for a dlopen or dlclose: each new object
 * is mapped read-only and its descriptor closed (profil_record_unwind_open_locked).  Tables are
 * built, and spaces published and freed, on a thread of the program that may allocate: the
 * constructor's, and the thread that called dlopen or dlclose, once the recorder's thread has
 * answered (profil_record_unwind_build).  The recorder's thread never allocates: its
 * first malloc or free would make glibc reserve an arena (64 MiB of the program's address
 * space).  Without a recorder thread of its own table, the program's thread does both, as it
 * then reads the mappings itself.
 *
 * Nothing allocates or frees while holding the recorder lock: a thread that gets a fatal signal
 * inside malloc takes that lock to write the file, and must never wait for a builder that waits
 * for the malloc lock it holds.  The builders' own lock (build_lock) is taken only by builders,
 * on threads of the program, never in signal context; the recorder lock is held only while the
 * mappings are read and objects are added or retired.
 *
 * Nothing here ever waits for a handler.  An old space is freed once its slot's in-flight count
 * is seen at zero, at the next rebuild; a handler stopped inside a walk (SIGSTOP, a debugger)
 * pins its slot, and with every other slot pinned the current space stays: stale, never unsafe.
 * Memory is bounded by PROFIL_UNWIND_SLOTS spaces and the objects they name.
 *
 * Until the thread that called dlopen has built the new space (after the library's
 * constructors ran), samples in the new library are walked by frame pointers; mappings made
 * without dlopen are found by the periodic reads but get tables only at the next dlopen.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cfi/cfi.h"
#include "record.h"

#define MAX_OBJECTS	1024
/* Files are mapped whole to be read: larger ones are walked by frame pointers. */
#define MAX_FILE	(1ULL << 31)

/*
 * An object's life: FREE -> NEW (found in the mappings; its file mapped by the open step) ->
 * LOADING (taken by a builder) -> OK or BAD -> FREE once no space names it.  Added and retired
 * (to and from FREE) under the recorder lock; path, build-id, opened and img are the open
 * step's, also under it; cfi and refs are the builders'.
 */
enum { OBJ_FREE = 0, OBJ_NEW, OBJ_LOADING, OBJ_OK, OBJ_BAD };

struct object {
	atomic_int state;
	const char *path;		/* a mapping's path in the path arena */
	uint8_t build_id[PROFIL_FORMAT_MAX_BUILD_ID];
	uint32_t build_id_len;
	unsigned int refs;		/* modules of unfreed spaces */
	int opened;			/* the open step has been tried */
	void *img;			/* the file, mapped by the open step */
	size_t img_len;
	struct profil_cfi_object cfi;
};

/* A live mapping with its object, copied under the recorder lock for a builder. */
struct live {
	uint64_t start, end, offset;
	uint16_t obj;
};

/* A published space, with the objects its modules hold a reference to. */
struct space {
	struct profil_unwind_space space;	/* first: the handler's pointer is the block's */
	uint16_t *objs;
	struct profil_unwind_module mods[];
};

static struct object objects[MAX_OBJECTS];
static struct profil_unwind_shared shared;
/* Error-checking: a fork from a signal handler that interrupted this thread's own build. */
static pthread_mutex_t build_lock = PTHREAD_ERRORCHECK_MUTEX_INITIALIZER_NP;
static int fork_taken;		/* the fork's prepare took build_lock */
static int builds_off;		/* a fork child of a half-done build: the space stays as it is */
static struct live live[PROFIL_RECORD_MAX_MAPS];	/* build_lock */
static size_t nlive;

struct profil_unwind_shared *
profil_record_unwind_shared(void)
{
	return &shared;
}

static int
is_vdso(const char *path)
{
	return strcmp(path, "[vdso]") == 0;
}

/* The object of a mapping, added as new when it is not there; NULL when there is no room. */
static struct object *
object_of(const struct profil_file_mapping *m)
{
	struct object *room = NULL;
	size_t i;

	for (i = 0; i < MAX_OBJECTS; i++) {
		struct object *o = &objects[i];

		if (atomic_load(&o->state) == OBJ_FREE) {
			if (room == NULL)
				room = o;
			continue;
		}
		if (o->build_id_len == m->build_id_len &&
		    memcmp(o->build_id, m->build_id, m->build_id_len) == 0 &&
		    strcmp(o->path, m->path) == 0)
			return o;
	}
	if (room == NULL)
		return NULL;
	memset(room, 0, sizeof(*room));
	atomic_store(&room->state, OBJ_NEW);
	room->path = m->path;
	room->build_id_len = m->build_id_len;
	memcpy(room->build_id, m->build_id, m->build_id_len);
	return room;
}

/* Code we can read the rules of: files by their path, and the vDSO. */
static int
wanted(const struct profil_record_map *r)
{
	size_t n;

	if (!r->live || r->m.path == NULL)
		return 0;
	if (is_vdso(r->m.path))
		return 1;
	n = strlen(r->m.path);
	/* "<path> (deleted)": whatever has that name now is not what is mapped. */
	return r->m.path[0] == '/' && !(n > 10 && strcmp(r->m.path + n - 10, " (deleted)") == 0);
}

/*
 * Maps the file of each new object, read-only: it is read from memory by the build step, on
 * another thread, which has no descriptor of it.  Opens as maps.c does: non-blocking, regular
 * files only.  Allocates nothing.  Lock held.
 */
void
profil_record_unwind_open_locked(void)
{
	size_t i;

	if (profil_rec.stacks.unwind == NULL)
		return;
	for (i = 0; i < profil_rec.nmaps; i++) {
		const struct profil_record_map *r = &profil_rec.maps[i];
		struct object *o;
		struct stat st;
		void *p;
		int fd;

		if (!wanted(r) || is_vdso(r->m.path))
			continue;
		o = object_of(&r->m);
		if (o == NULL || atomic_load(&o->state) != OBJ_NEW || o->opened)
			continue;
		o->opened = 1;
		fd = open(o->path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
		if (fd < 0)
			continue;
		if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0 &&
		    (unsigned long long)st.st_size <= MAX_FILE) {
			p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
			if (p != MAP_FAILED) {
				o->img = p;
				o->img_len = (size_t)st.st_size;
			}
		}
		close(fd);
	}
}

/* The table of an object a builder took (LOADING), from the file the open step mapped. */
static void
object_load(struct object *o)
{
	int err = -ENOENT;

	if (is_vdso(o->path)) {
		err = profil_cfi_object_load_vdso(&o->cfi);
	} else if (o->img != NULL) {
		err = profil_cfi_object_load_image(&o->cfi, o->img, o->img_len, NULL);
		munmap(o->img, o->img_len);
		o->img = NULL;
	}
	if (err == 0 && o->build_id_len > 0 && (o->cfi.build_id_len != o->build_id_len ||
	    memcmp(o->cfi.build_id, o->build_id, o->build_id_len) != 0)) {
		/* A file replaced since it was mapped would give another object's rules. */
		profil_cfi_object_release(&o->cfi);
		err = -ESTALE;
	}
	atomic_store(&o->state, err == 0 ? OBJ_OK : OBJ_BAD);
}

static int
module_cmp(const void *a, const void *b)
{
	const struct profil_unwind_module *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

/*
 * Under the recorder lock: the live mappings and their objects into live[], and the objects
 * ready to be loaded (their file mapped, or the vDSO) taken.  Allocates nothing.
 */
static void
take_mappings_locked(void)
{
	size_t i;

	nlive = 0;
	for (i = 0; i < profil_rec.nmaps; i++) {
		const struct profil_record_map *r = &profil_rec.maps[i];
		struct object *o;

		if (!wanted(r) || (o = object_of(&r->m)) == NULL)
			continue;
		live[nlive].start = r->m.start;
		live[nlive].end = r->m.end;
		live[nlive].offset = r->m.offset;
		live[nlive].obj = (uint16_t)(o - objects);
		nlive++;
	}
	/* Also files opened for mappings gone since: their images go back. */
	for (i = 0; i < MAX_OBJECTS; i++) {
		struct object *o = &objects[i];

		if (atomic_load(&o->state) == OBJ_NEW && (o->opened || is_vdso(o->path)))
			atomic_store(&o->state, OBJ_LOADING);
	}
}

/* A space of the live mappings whose objects have tables; NULL without memory. */
static struct space *
space_new(void)
{
	struct space *s;
	size_t i, n = 0;

	s = malloc(sizeof(*s) + nlive * (sizeof(s->mods[0]) + sizeof(s->objs[0])));
	if (s == NULL)
		return NULL;
	s->objs = (uint16_t *)(s->mods + nlive);
	for (i = 0; i < nlive; i++) {
		struct profil_unwind_module *mod = &s->mods[n];
		struct object *o = &objects[live[i].obj];

		if (atomic_load(&o->state) != OBJ_OK || profil_cfi_object_bias(&o->cfi,
		    live[i].start, live[i].offset, &mod->bias) < 0)
			continue;
		mod->start = live[i].start;
		mod->end = live[i].end;
		mod->table = &o->cfi.table;
		mod->cut = 0;
		s->objs[n] = live[i].obj;
		o->refs++;
		n++;
	}
	qsort(s->mods, n, sizeof(s->mods[0]), module_cmp);
	s->space.mods = s->mods;
	s->space.nmods = n;
	return s;
}

static void
space_free(struct space *s)
{
	for (size_t i = 0; i < s->space.nmods; i++)
		objects[s->objs[i]].refs--;
	free(s);
}

/*
 * Frees the spaces of the slots no handler is in, and retires the objects no space names.
 * build_lock held, not the recorder lock.
 */
static void
reclaim(void)
{
	unsigned int cur = atomic_load(&shared.cur) % PROFIL_UNWIND_SLOTS;
	size_t i;
	int retire = 0;

	for (i = 0; i < PROFIL_UNWIND_SLOTS; i++) {
		struct profil_unwind_slot *slot = &shared.slots[i];
		const struct profil_unwind_space *sp = atomic_load(&slot->space);

		if (i == cur || sp == NULL || atomic_load(&slot->inflight) != 0)
			continue;
		atomic_store(&slot->space, NULL);
		space_free((struct space *)(uintptr_t)sp);
	}
	for (i = 0; i < MAX_OBJECTS; i++) {
		struct object *o = &objects[i];
		int st = atomic_load(&o->state);

		if ((st == OBJ_OK || st == OBJ_BAD) && o->refs == 0) {
			/* Its table first, off the lock; then the entry, under it. */
			if (st == OBJ_OK)
				profil_cfi_object_release(&o->cfi);
			atomic_store(&o->state, OBJ_BAD);
			retire = 1;
		}
	}
	if (!retire || !profil_record_lock())
		return;
	for (i = 0; i < MAX_OBJECTS; i++) {
		struct object *o = &objects[i];

		if (atomic_load(&o->state) == OBJ_BAD && o->refs == 0) {
			memset(o, 0, sizeof(*o));
			atomic_store(&o->state, OBJ_FREE);
		}
	}
	profil_record_unlock();
}

/*
 * Builds the tables of new objects and publishes a space of the live mappings.  On a thread
 * of the program that may allocate, not in signal context, without the recorder lock (it is
 * taken here, briefly).
 */
void
profil_record_unwind_build(void)
{
	struct space *s;
	unsigned int cur, i;

	if (profil_rec.stacks.unwind == NULL || builds_off ||
	    pthread_mutex_lock(&build_lock) != 0)
		return;
	if (!profil_record_lock()) {
		pthread_mutex_unlock(&build_lock);
		return;		/* this thread is inside the recorder already */
	}
	take_mappings_locked();
	profil_record_unlock();
	for (i = 0; i < MAX_OBJECTS; i++)
		if (atomic_load(&objects[i].state) == OBJ_LOADING)
			object_load(&objects[i]);
	s = space_new();
	cur = atomic_load(&shared.cur) % PROFIL_UNWIND_SLOTS;
	for (i = 1; s != NULL && i < PROFIL_UNWIND_SLOTS; i++) {
		struct profil_unwind_slot *slot = &shared.slots[(cur + i) % PROFIL_UNWIND_SLOTS];

		if (atomic_load(&slot->space) == NULL) {
			atomic_store(&slot->space, &s->space);
			atomic_store(&shared.cur, (cur + i) % PROFIL_UNWIND_SLOTS);
			s = NULL;
		}
	}
	/* Every other slot pinned by a stopped handler: the current space stays. */
	if (s != NULL)
		space_free(s);
	reclaim();
	pthread_mutex_unlock(&build_lock);
}

/* fork: no build is half done in the child (called before the recorder lock is taken). */
void
profil_record_unwind_fork_prepare(void)
{
	fork_taken = pthread_mutex_lock(&build_lock) == 0;
}

void
profil_record_unwind_fork_parent(void)
{
	if (fork_taken)
		pthread_mutex_unlock(&build_lock);
}

/* fork child: the handlers counted in flight were on threads the child does not have. */
void
profil_record_unwind_fork_child(void)
{
	for (size_t i = 0; i < PROFIL_UNWIND_SLOTS; i++)
		atomic_store(&shared.slots[i].inflight, 0);
	/*
	 * Made anew, not unlocked: the forking thread has another id in the child, and an
	 * error-checking mutex is unlocked only by its owner's.
	 */
	build_lock = (pthread_mutex_t)PTHREAD_ERRORCHECK_MUTEX_INITIALIZER_NP;
	if (!fork_taken)
		builds_off = 1;
}

/* A recorder that gives up, before any handler ran: everything back to the program. */
void
profil_record_unwind_release(void)
{
	if (pthread_mutex_lock(&build_lock) != 0)
		return;
	for (size_t i = 0; i < MAX_OBJECTS; i++) {
		struct object *o = &objects[i];

		if (o->img != NULL)
			munmap(o->img, o->img_len);
		o->img = NULL;
		if (atomic_load(&o->state) == OBJ_NEW || atomic_load(&o->state) == OBJ_LOADING)
			atomic_store(&o->state, OBJ_BAD);
	}
	for (size_t i = 0; i < PROFIL_UNWIND_SLOTS; i++) {
		const struct profil_unwind_space *sp = atomic_load(&shared.slots[i].space);

		atomic_store(&shared.slots[i].inflight, 0);
		if (sp != NULL) {
			atomic_store(&shared.slots[i].space, NULL);
			space_free((struct space *)(uintptr_t)sp);
		}
	}
	reclaim();
	pthread_mutex_unlock(&build_lock);
}
