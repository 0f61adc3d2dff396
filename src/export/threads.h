/*
 * threads.h - the threads of a session's files numbered in the order first met, (file, tid) ->
 * number, for the exports that draw a track a thread (html.c, firefox.c).  Internal to
 * src/export.
 */
#ifndef PROFIL_EXPORT_THREADS_H
#define PROFIL_EXPORT_THREADS_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "report/index.h"

struct profil_thread_id {
	size_t file;		/* the file's number in the session */
	uint32_t tid;
};

/* A zeroed table is empty. */
struct profil_thread_table {
	struct profil_thread_id *ids;	/* ids[i] is thread number i */
	size_t n, cap;
	struct profil_index index;
};

/*
 * The number of thread tid of file `file`, given on first use (it is then n - 1).  Returns it
 * or -ENOMEM.
 */
ssize_t profil_thread_table_get(struct profil_thread_table *t, size_t file, uint32_t tid);

void profil_thread_table_release(struct profil_thread_table *t);

#endif
