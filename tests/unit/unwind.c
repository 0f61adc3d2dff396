/*
 * The in-process recorder's unwind spaces (src/record/unwind.c) driven by hand, from this
 * program's own mappings: a space built and published, the signal handler's walk over it
 * (profil_unwind_context on a captured context) reaching main, an old space kept while a
 * handler is counted inside it and freed at the next rebuild after it left, never more than
 * PROFIL_UNWIND_SLOTS spaces however many handlers are stuck, no build ever waiting, and the
 * table of an object whose mapping is gone freed.
 */
/* The table builder first: its DWARF register names are also <ucontext.h>'s. */
#include "cfi/frame.c"
#include "cfi/read.c"
#include "cfi/table.c"
#include "cfi/object.c"
#undef REG_RBP
#undef REG_RSP

#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <ucontext.h>

#include "../tap.h"
#include "record/unwind.c"

struct profil_record profil_rec;

/* The recorder lock, as record.c's for one thread. */
int
profil_record_lock(void)
{
	return 1;
}

void
profil_record_unlock(void)
{
}

/* This process's executable mappings, as maps.c would note them (no build-ids). */
static void
note_maps(void)
{
	FILE *f = fopen("/proc/self/maps", "r");
	char line[4096];

	while (f != NULL && fgets(line, sizeof(line), f) != NULL &&
	    profil_rec.nmaps < PROFIL_RECORD_MAX_MAPS) {
		unsigned long start, end, off;
		char perms[8], path[2048] = "";
		struct profil_record_map *r = &profil_rec.maps[profil_rec.nmaps];

		if (sscanf(line, "%lx-%lx %7s %lx %*s %*s %2047s", &start, &end, perms, &off,
		    path) < 4 || perms[2] != 'x' || (path[0] != '/' && strcmp(path, "[vdso]") != 0))
			continue;
		memset(r, 0, sizeof(*r));
		r->m.start = start;
		r->m.end = end;
		r->m.offset = off;
		r->m.path = strdup(path);
		r->live = 1;
		profil_rec.nmaps++;
	}
	if (f != NULL)
		fclose(f);
}

static size_t
spaces(void)
{
	size_t n = 0;

	for (size_t i = 0; i < PROFIL_UNWIND_SLOTS; i++)
		n += atomic_load(&shared.slots[i].space) != NULL;
	return n;
}

static size_t
objects_held(void)
{
	size_t n = 0;

	for (size_t i = 0; i < MAX_OBJECTS; i++)
		n += objects[i].state != OBJ_FREE;
	return n;
}

static const struct profil_unwind_space *
current(void)
{
	return atomic_load(&shared.slots[atomic_load(&shared.cur) % PROFIL_UNWIND_SLOTS].space);
}

static void
rebuild(void)
{
	profil_record_unwind_open_locked();
	profil_record_unwind_build();
}

static ucontext_t uc;
static uint64_t pcs[128];
static size_t depth;

__attribute__((noinline)) static void
walk_here(int n)
{
	if (n > 0) {
		walk_here(n - 1);
		__asm__ volatile("" ::: "memory");
		return;
	}
	getcontext(&uc);
	depth = profil_unwind_context(&uc, profil_rec.stacks.unwind, pcs, 128);
}

int
main(void)
{
	pthread_attr_t attr;
	void *addr;
	size_t size, held;
	unsigned int pinned, i;

	note_maps();
	profil_rec.stacks.unwind = profil_record_unwind_shared();
	rebuild();
	tap_check(current() != NULL && current()->nmods >= 2,
	    "a space of this program's %zu executable mappings: %zu modules with tables",
	    profil_rec.nmaps, current() ? current()->nmods : 0);
	held = objects_held();

	if (pthread_getattr_np(pthread_self(), &attr) == 0) {
		if (pthread_attr_getstack(&attr, &addr, &size) == 0) {
			profil_stack_bounds.lo = (uintptr_t)addr;
			profil_stack_bounds.hi = (uintptr_t)addr + size;
		}
		pthread_attr_destroy(&attr);
	}
	walk_here(5);
	tap_check(depth >= 8 && pcs[depth - 1] < PROFIL_PC_CUT_DEPTH,
	    "the handler's walk: %zu frames, to the outermost (last %#llx)", depth,
	    (unsigned long long)pcs[depth > 0 ? depth - 1 : 0]);
	profil_stack_bounds.hi = 0;
	walk_here(0);
	tap_check(depth == 1, "off the thread's known stack: the pc alone (%zu)", depth);

	/* A handler inside the current space while the program dlopens. */
	pinned = atomic_load(&shared.cur) % PROFIL_UNWIND_SLOTS;
	atomic_fetch_add(&shared.slots[pinned].inflight, 1);
	rebuild();
	tap_check(atomic_load(&shared.cur) % PROFIL_UNWIND_SLOTS != pinned &&
	    atomic_load(&shared.slots[pinned].space) != NULL && spaces() == 2,
	    "a rebuild publishes elsewhere and keeps the space a handler is in (%zu spaces)",
	    spaces());
	rebuild();
	tap_check(spaces() == 2, "the next frees the one no handler is in (%zu spaces)", spaces());

	/* Handlers stuck in every slot: builds return at once and hold no more. */
	for (i = 0; i < PROFIL_UNWIND_SLOTS; i++)
		if (i != pinned)
			atomic_fetch_add(&shared.slots[i].inflight, 1);
	for (i = 0; i < 10; i++)
		rebuild();
	tap_check(spaces() <= PROFIL_UNWIND_SLOTS && current() != NULL,
	    "every slot pinned, 10 rebuilds: %zu spaces, the current one kept", spaces());
	for (i = 0; i < PROFIL_UNWIND_SLOTS; i++)
		atomic_fetch_sub(&shared.slots[i].inflight, 1);
	rebuild();
	tap_check(spaces() == 1 && objects_held() == held,
	    "handlers gone: one space, %zu objects as before (%zu)", objects_held(), held);

	/* The program's own mapping goes (as a dlclose'd library's would). */
	for (i = 0; i < profil_rec.nmaps; i++)
		if (strcmp(profil_rec.maps[i].m.path, "[vdso]") == 0)
			profil_rec.maps[i].live = 0;
	rebuild();
	tap_check(objects_held() == held - 1 && current()->nmods >= 1,
	    "a mapping gone: its object freed (%zu objects, were %zu)", objects_held(), held);

	profil_record_unwind_release();
	tap_check(spaces() == 0 && objects_held() == 0, "released: nothing held");
	return tap_failures != 0;
}
