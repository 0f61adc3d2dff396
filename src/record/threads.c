/*
 * Thread names for the file: noted when a thread ends (its last name), and for the living at
 * every flush from /proc/self/task/<tid>/comm.  Async-signal-safe (raw reads, no allocation).
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "base/append.h"
#include "record.h"

void
profil_record_thread_note(uint32_t tid, const char *name)
{
	struct profil_record_thread *t = NULL;
	size_t i;

	for (i = 0; i < profil_rec.nthreads; i++) {
		if (profil_rec.threads[i].tid == tid) {
			t = &profil_rec.threads[i];
			break;
		}
	}
	if (t == NULL) {
		if (profil_rec.nthreads == PROFIL_RECORD_MAX_THREADS)
			return;
		t = &profil_rec.threads[profil_rec.nthreads++];
		t->tid = tid;
		t->name[0] = '\0';
	}
	if (name != NULL && name[0] != '\0') {
		strncpy(t->name, name, sizeof(t->name) - 1);
		t->name[sizeof(t->name) - 1] = '\0';
	}
}

static void
note_task(pid_t tid, void *unused)
{
	char path[64] = "/proc/self/task/", name[32];
	size_t pl = strlen(path);
	int fd;
	ssize_t n;

	(void)unused;
	pl = profil_append_uint(path, pl, sizeof(path), (unsigned long)tid);
	profil_append(path, pl, sizeof(path), "/comm");
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	n = read(fd, name, sizeof(name) - 1);
	close(fd);
	if (n <= 0)
		return;
	name[n] = '\0';
	if (name[n - 1] == '\n')
		name[n - 1] = '\0';
	profil_record_thread_note((uint32_t)tid, name);
}

void
profil_record_threads_scan(void)
{
	profil_threads_foreach(note_task, NULL);
}
