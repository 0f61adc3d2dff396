/*
 * outside.c - libFuzzer harness of the outside recorder's record parser, profil_outside_apply():
 * whatever the records say (sizes, pids, lengths, names, call chains, build-ids), applying them
 * and writing the images never crashes, leaks, reads out of bounds or overflows.  The kernel
 * writes these records, but a ring can be cut short and a parser must not trust a length.
 *
 * The input is a sequence of records, each starting with its perf_event_header; a size that does
 * not fit is cut to what is left.  Files are written to a scratch directory, emptied after each
 * input, once each has been read back.
 */
#include <dirent.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "outside/session.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int dirfd_ = -1;

/*
 * Every profile written reads back: its TIME entries name samples written before them, with
 * counts within theirs, in slots of one width (the reader refuses anything else).
 */
static void
read_back(const char *name)
{
	struct profil_file *f;
	char path[64], err[256];
	int fd = openat(dirfd_, name, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return;
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	if (profil_file_read(path, &f, err, sizeof(err)) < 0) {
		fprintf(stderr, "outside fuzz: a written profile does not read: %s\n", err);
		abort();
	}
	profil_file_free(f);
	close(fd);
}

static void
empty_dir(void)
{
	int fd = dup(dirfd_);
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
	struct dirent *e;

	if (d == NULL)
		return;
	while ((e = readdir(d)) != NULL)
		if (e->d_name[0] != '.' || (e->d_name[1] != '\0' && strcmp(e->d_name, "..") != 0)) {
			read_back(e->d_name);
			unlinkat(dirfd_, e->d_name, 0);
		}
	rewinddir(d);
	closedir(d);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static uint64_t rec[(65536 + 8) / 8];
	struct profil_outside_opts o = { .hz = 1000, .depth = 1, .follow_exec = 1, .dirfd = -1 };
	struct profil_outside *s;
	size_t off = 0;

	if (dirfd_ < 0) {
		char tmpl[] = "/tmp/profil-fuzz-outside.XXXXXX";

		if (mkdtemp(tmpl) == NULL || (dirfd_ = open(tmpl, O_RDONLY | O_DIRECTORY)) < 0)
			abort();
	}
	/*
	 * The first byte chooses flat or deep stacks, whether exec'ed images are kept, stacks
	 * from the kernel's callchain or walked from stack copies, and whether the kernel is
	 * sampled too (its callchain before the user registers).
	 */
	if (size > 0) {
		o.depth = data[0] & 1 ? 128 : 1;
		o.follow_exec = !(data[0] & 2);
		o.frame_pointers = (data[0] & 4) != 0;
		o.user_only = (data[0] & 8) != 0;
		data++;
		size--;
	}
	o.dirfd = dirfd_;
	if (profil_outside_new(&o, &s) < 0)
		return 0;
	s->root = 100;
	/* kallsyms is read once a recording, ~100 ms: not once an input.  Names are not fuzzed. */
	s->ksyms_read = 1;
	while (off + sizeof(struct perf_event_header) <= size) {
		struct perf_event_header h;
		size_t n;

		memcpy(&h, data + off, sizeof(h));
		n = h.size < sizeof(h) ? sizeof(h) : h.size;
		if (n > size - off)
			n = size - off;
		memcpy(rec, data + off, n);
		profil_outside_apply(s, (const uint8_t *)rec, n);
		off += n;
	}
	profil_outside_status(s, 100, 0x0900);
	profil_outside_free(s);
	empty_dir();
	return 0;
}
