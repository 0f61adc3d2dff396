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
 * answered (profil_record_unwind_build_locked).  The recorder's thread never allocates: its
 * first malloc or free would make glibc reserve an arena (64 MiB of the program's address
 * space).  Without a recorder thread of its own table, the program's thread does both, as it
 * then reads the mappings itself.
 *
 * Nothing here ever waits for a handler.  An old space is freed once its slot's in-flight count
 * is seen at zero, at the next rebuild; a handler stopped inside a walk (SIGSTOP, a debugger)
 * pins its slot, and with every other slot pinned the current space stays: stale, never unsafe.
 * Memory is bounded by PROFIL_UNWIND_SLOTS spaces and the objects they name.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../cfi/cfi.h"
#include "record.h"

#define MAX_OBJECTS	1024
/* Files are mapped whole to be read: larger ones are walked by frame pointers. */
#define MAX_FILE	(1ULL << 31)

enum { OBJ_FREE = 0, OBJ_NEW, OBJ_OK, OBJ_BAD };

struct object {
	int state;
	const char *path;		/* a mapping's path in the path arena */
	uint8_t build_id[PROFIL_FORMAT_MAX_BUILD_ID];
	uint32_t build_id_len;
	unsigned int refs;		/* modules of unfreed spaces */
	int opened;			/* the open step has been tried */
	void *img;			/* the file, mapped by the open step */
	size_t img_len;
	struct profil_cfi_object cfi;
};

/* A published space, with the objects its modules hold a reference to. */
struct space {
	struct profil_unwind_space space;	/* first: the handler's pointer is the block's */
	uint16_t *objs;
	struct profil_unwind_module mods[];
};

static struct object objects[MAX_OBJECTS];
static struct profil_unwind_shared shared;

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

		if (o->state == OBJ_FREE) {
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
	room->state = OBJ_NEW;
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
		if (o == NULL || o->state != OBJ_NEW || o->opened)
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

/* The table of a new object, from the file the open step mapped. */
static void
object_load(struct object *o)
{
	int err;

	if (is_vdso(o->path)) {
		err = profil_cfi_object_load_vdso(&o->cfi);
	} else if (o->img != NULL) {
		err = profil_cfi_object_load_image(&o->cfi, o->img, o->img_len);
		munmap(o->img, o->img_len);
		o->img = NULL;
	} else if (o->opened) {
		err = -ENOENT;
	} else {
		return;		/* not opened yet: a mapping found by a periodic read */
	}
	if (err == 0 && o->build_id_len > 0 && (o->cfi.build_id_len != o->build_id_len ||
	    memcmp(o->cfi.build_id, o->build_id, o->build_id_len) != 0)) {
		/* A file replaced since it was mapped would give another object's rules. */
		profil_cfi_object_release(&o->cfi);
		err = -ESTALE;
	}
	o->state = err == 0 ? OBJ_OK : OBJ_BAD;
}

static int
module_cmp(const void *a, const void *b)
{
	const struct profil_unwind_module *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

/* A space of the live mappings whose objects have tables; NULL without memory. */
static struct space *
space_new(void)
{
	struct space *s;
	size_t i, n = 0;

	for (i = 0; i < profil_rec.nmaps; i++)
		n += wanted(&profil_rec.maps[i]);
	s = malloc(sizeof(*s) + n * (sizeof(s->mods[0]) + sizeof(s->objs[0])));
	if (s == NULL)
		return NULL;
	s->objs = (uint16_t *)(s->mods + n);
	n = 0;
	for (i = 0; i < profil_rec.nmaps; i++) {
		const struct profil_record_map *r = &profil_rec.maps[i];
		struct profil_unwind_module *mod = &s->mods[n];
		struct object *o;

		if (!wanted(r) || (o = object_of(&r->m)) == NULL)
			continue;
		if (o->state == OBJ_NEW)
			object_load(o);
		if (o->state != OBJ_OK ||
		    profil_cfi_object_bias(&o->cfi, r->m.start, r->m.offset, &mod->bias) < 0)
			continue;
		mod->start = r->m.start;
		mod->end = r->m.end;
		mod->table = &o->cfi.table;
		s->objs[n] = (uint16_t)(o - objects);
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

/* Frees the spaces of the slots no handler is in, and the objects no space names. */
static void
reclaim(void)
{
	unsigned int cur = atomic_load(&shared.cur) % PROFIL_UNWIND_SLOTS;
	size_t i;

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

		if ((o->state == OBJ_OK || o->state == OBJ_BAD) && o->refs == 0) {
			if (o->state == OBJ_OK)
				profil_cfi_object_release(&o->cfi);
			memset(o, 0, sizeof(*o));
		}
	}
}

/*
 * Builds the tables of new objects and publishes a space of the live mappings.  On a thread
 * that may allocate and has not been interrupted in our code (not in signal context).  Lock
 * held.
 */
void
profil_record_unwind_build_locked(void)
{
	struct space *s;
	unsigned int cur, i;

	if (profil_rec.stacks.unwind == NULL)
		return;
	s = space_new();
	/* Files opened for mappings gone since: their images go back now. */
	for (i = 0; i < MAX_OBJECTS; i++)
		if (objects[i].state == OBJ_NEW && objects[i].opened)
			object_load(&objects[i]);
	if (s == NULL) {
		reclaim();
		return;
	}
	cur = atomic_load(&shared.cur) % PROFIL_UNWIND_SLOTS;
	for (i = 1; i < PROFIL_UNWIND_SLOTS; i++) {
		struct profil_unwind_slot *slot = &shared.slots[(cur + i) % PROFIL_UNWIND_SLOTS];

		if (atomic_load(&slot->space) == NULL) {
			atomic_store(&slot->space, &s->space);
			atomic_store(&shared.cur, (cur + i) % PROFIL_UNWIND_SLOTS);
			reclaim();
			return;
		}
	}
	/* Every other slot pinned by a stopped handler: the current space stays. */
	space_free(s);
	reclaim();
}

/* fork child: the handlers counted in flight were on threads the child does not have. */
void
profil_record_unwind_fork_child(void)
{
	for (size_t i = 0; i < PROFIL_UNWIND_SLOTS; i++)
		atomic_store(&shared.slots[i].inflight, 0);
}

/* A recorder that gives up, before any handler ran: everything back to the program. */
void
profil_record_unwind_release(void)
{
	for (size_t i = 0; i < MAX_OBJECTS; i++) {
		struct object *o = &objects[i];

		if (o->img != NULL)
			munmap(o->img, o->img_len);
		o->img = NULL;
	}
	atomic_store(&shared.cur, (atomic_load(&shared.cur) + 1) % PROFIL_UNWIND_SLOTS);
	for (size_t i = 0; i < PROFIL_UNWIND_SLOTS; i++)
		atomic_store(&shared.slots[i].inflight, 0);
	reclaim();
	for (size_t i = 0; i < PROFIL_UNWIND_SLOTS; i++) {
		const struct profil_unwind_space *sp = atomic_load(&shared.slots[i].space);

		if (sp != NULL) {
			atomic_store(&shared.slots[i].space, NULL);
			space_free((struct space *)(uintptr_t)sp);
		}
	}
	reclaim();
}
