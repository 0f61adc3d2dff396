/*
 * The threads of a session numbered in the order first met (threads.h).
 */
#include <errno.h>
#include <stdlib.h>

#include "export/threads.h"

struct thread_key {
	const struct profil_thread_table *t;
	size_t file;
	uint32_t tid;
};

static int
thread_same(const void *arg, size_t i)
{
	const struct thread_key *k = arg;

	return k->t->ids[i].file == k->file && k->t->ids[i].tid == k->tid;
}

ssize_t
profil_thread_table_get(struct profil_thread_table *t, size_t file, uint32_t tid)
{
	struct thread_key k = { t, file, tid };
	ssize_t i;

	if (t->n == t->cap) {
		size_t cap = t->cap ? 2 * t->cap : 64;
		struct profil_thread_id *ids = realloc(t->ids, cap * sizeof(*ids));

		if (ids == NULL)
			return -ENOMEM;
		t->ids = ids;
		t->cap = cap;
	}
	i = profil_index_get(&t->index, profil_hash3(file, tid, 0), thread_same, &k, t->n);
	if (i < 0 || (size_t)i < t->n)
		return i;
	t->ids[i].file = file;
	t->ids[i].tid = tid;
	t->n++;
	return i;
}

void
profil_thread_table_release(struct profil_thread_table *t)
{
	free(t->ids);
	profil_index_release(&t->index);
	t->ids = NULL;
	t->n = t->cap = 0;
}
