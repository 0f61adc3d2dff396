/*
 * stacks.c - call stacks from what the kernel copies with each sample (the user registers and
 * the top of the user stack), walked at record time by the unwind tables of the objects the
 * process maps (src/cfi), so that files keep one count per distinct stack rather than the
 * stack copies.  One table per object for the whole session, found by build-id and path; each
 * image keeps its mappings as a sorted space for the walk, rebuilt when they change.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "session.h"

/*
 * The object of a mapping, loaded on first use: its row in s->objects, or -errno.  Each object
 * is allocated apart, so that the modules of every image can keep pointing at its table.
 */
static ssize_t
object_of(struct profil_outside *s, pid_t pid, const struct profil_file_mapping *m)
{
	char mf[96];
	char key[2 * PROFIL_FORMAT_MAX_BUILD_ID + PROFIL_FORMAT_MAX_PATH + 2], *k = key;
	struct profil_outside_object *o;
	ssize_t row;
	int added, fd, err;

	for (size_t i = 0; i < m->build_id_len; i++)
		k += sprintf(k, "%02x", m->build_id[i]);
	snprintf(k, sizeof(key) - (size_t)(k - key), "/%s", m->path);
	row = profil_strtab_intern(&s->objkeys, key, &added);
	if (row < 0 || !added)
		return row;
	if ((size_t)row >= s->objcap) {
		size_t cap = s->objcap ? s->objcap * 2 : 64;
		struct profil_outside_object **p;

		while (cap <= (size_t)row)
			cap *= 2;
		p = realloc(s->objects, cap * sizeof(*p));
		if (p == NULL)
			return -ENOMEM;	/* the key stays: the object is not tried again */
		/* Rows of keys whose object could not be made stay NULL: unreadable. */
		memset(p + s->objcap, 0, (cap - s->objcap) * sizeof(*p));
		s->objects = p;
		s->objcap = cap;
	}
	o = calloc(1, sizeof(*o));
	if (o == NULL)
		return -ENOMEM;
	s->objects[row] = o;
	if (strcmp(m->path, "[vdso]") == 0) {
		err = profil_cfi_object_load_vdso(&o->cfi);
	} else if (m->path[0] != '/') {
		return row;	/* anonymous code: no file, no unwind table */
	} else {
		/*
		 * The process's own view of the file first (root only): a library deleted by an
		 * upgrade, or one in another mount namespace, is still the one it maps.
		 */
		snprintf(mf, sizeof(mf), "/proc/%d/map_files/%llx-%llx", (int)pid,
		    (unsigned long long)m->start, (unsigned long long)m->end);
		fd = profil_file_open_regular(mf, NULL);
		if (fd < 0)
			fd = profil_file_open_regular(m->path, NULL);
		if (fd < 0)
			return row;
		err = profil_cfi_object_load(&o->cfi, fd, profil_cfi_inflate_zlib);
		close(fd);
	}
	if (err < 0)
		return row;
	/* A file replaced since it was mapped would give another object's rules. */
	if (m->build_id_len > 0 && (o->cfi.build_id_len != m->build_id_len ||
	    memcmp(o->cfi.build_id, m->build_id, m->build_id_len) != 0)) {
		profil_cfi_object_release(&o->cfi);
		return row;
	}
	o->ok = 1;
	return row;
}

static int
module_cmp(const void *a, const void *b)
{
	const struct profil_unwind_module *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

/* The walk's view of the image's live mappings. */
static int
space_build(struct profil_outside *s, struct profil_outside_image *im)
{
	size_t n = 0;

	if (im->modcap < im->nmaps) {
		struct profil_unwind_module *p = realloc(im->mods, im->nmaps * sizeof(*p));

		if (p == NULL)
			return -ENOMEM;
		im->mods = p;
		im->modcap = im->nmaps;
	}
	for (size_t i = 0; i < im->nmaps; i++) {
		const struct profil_outside_map *m = &im->maps[i];
		struct profil_unwind_module *mod = &im->mods[n];
		const struct profil_outside_object *obj;
		ssize_t row;

		if (!m->live)
			continue;
		mod->start = m->m.start;
		mod->end = m->m.end;
		mod->bias = 0;
		mod->table = NULL;
		mod->cut = 0;
		row = object_of(s, im->pid, &m->m);
		obj = row >= 0 && (size_t)row < s->objcap ? s->objects[row] : NULL;
		if (obj != NULL && obj->ok && profil_cfi_object_bias(&obj->cfi, m->m.start,
		    m->m.offset, &mod->bias) == 0)
			mod->table = &obj->cfi.table;
		else if (m->m.path[0] == '/')
			mod->cut = 1;	/* code of a file we could not read: its rules unknown */
		n++;
	}
	qsort(im->mods, n, sizeof(*im->mods), module_cmp);
	im->nmods = n;
	im->mods_stale = 0;
	return 0;
}

size_t
profil_outside_unwind(struct profil_outside *s, struct profil_outside_image *im,
    const struct profil_unwind_regs *regs, const uint8_t *stack, size_t len, uint64_t *pcs,
    size_t max)
{
	struct profil_unwind_space space;
	struct profil_unwind_memory mem = { regs->sp, regs->sp + len, stack };
	enum profil_unwind_end end;
	size_t n;

	if (im->mods_stale && space_build(s, im) < 0)
		im->nmods = 0;
	if (mem.hi < mem.lo)
		mem.hi = mem.lo;
	space.mods = im->mods;
	space.nmods = im->nmods;
	n = profil_unwind_waiting(&space, regs, &mem, im->pid, pcs, max, &end);
	s->stats.stacks++;
	switch (end) {
	case PROFIL_UNWIND_DEPTH:
		s->stats.cut_depth++;
		break;
	case PROFIL_UNWIND_SHORT:
		s->stats.cut_short++;
		break;
	case PROFIL_UNWIND_NORULE:
		s->stats.cut_rule++;
		break;
	default:
		break;
	}
	return n;
}

void
profil_outside_objects_free(struct profil_outside *s)
{
	for (size_t i = 0; i < s->objkeys.n && i < s->objcap; i++) {
		if (s->objects[i] != NULL && s->objects[i]->ok)
			profil_cfi_object_release(&s->objects[i]->cfi);
		free(s->objects[i]);
	}
	free(s->objects);
	s->objects = NULL;
	s->objcap = 0;
	profil_strtab_release(&s->objkeys);
}
