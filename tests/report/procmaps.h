/*
 * procmaps.h - what the report test generators (mkprofile, mkstacks) need to write profiles of
 * their own live process as the recorder would: its executable mappings with build-ids, file
 * offsets of addresses, the base names of their objects.  Header-only, one generator a program.
 */
#ifndef PROFIL_TEST_PROCMAPS_H
#define PROFIL_TEST_PROCMAPS_H

#include <dlfcn.h>
#include <elf.h>
#include <fcntl.h>
#include <link.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format/format.h"

/* The build-ids of loaded objects, by their load address, as the recorder reads them. */
struct build_id {
	uintptr_t addr;
	uint8_t id[PROFIL_FORMAT_MAX_BUILD_ID];
	uint32_t len;
};
static struct build_id ids[256];
static size_t nids;

static __attribute__((unused)) int
note_cb(struct dl_phdr_info *info, size_t size, void *arg)
{
	int i;

	(void)size;
	(void)arg;
	for (i = 0; i < info->dlpi_phnum && nids < 256; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		const char *p, *end;

		if (ph->p_type != PT_NOTE)
			continue;
		p = (const char *)(info->dlpi_addr + ph->p_vaddr);
		end = p + ph->p_memsz;
		while (p + sizeof(ElfW(Nhdr)) <= end) {
			const ElfW(Nhdr) *nh = (const ElfW(Nhdr) *)p;
			const char *name = p + sizeof(*nh);
			const char *desc = name + ((nh->n_namesz + 3) & ~3u);

			if (nh->n_type == NT_GNU_BUILD_ID && nh->n_namesz == 4 &&
			    memcmp(name, "GNU", 4) == 0 &&
			    nh->n_descsz <= PROFIL_FORMAT_MAX_BUILD_ID) {
				ids[nids].addr = info->dlpi_addr + ph->p_vaddr;
				memcpy(ids[nids].id, desc, nh->n_descsz);
				ids[nids].len = nh->n_descsz;
				nids++;
			}
			p = desc + ((nh->n_descsz + 3) & ~3u);
		}
	}
	return 0;
}

/* Executable file mappings of /proc/self/maps, with the build-id of the object they belong
 * to (the note lies in the same file, within a few MiB below or above). */
static struct profil_file_mapping maps[256];
static size_t nmaps;

static __attribute__((unused)) void
maps_read(uint32_t epoch)
{
	unsigned long long start, end, off;
	char line[1024], perms[8];
	FILE *f = fopen("/proc/self/maps", "r");
	size_t i, j;
	int pos;

	nids = 0;
	dl_iterate_phdr(note_cb, NULL);
	while (f != NULL && fgets(line, sizeof(line), f) != NULL && nmaps < 256) {
		if (sscanf(line, "%llx-%llx %7s %llx %*s %*s %n", &start, &end, perms, &off,
		    &pos) < 4 || perms[2] != 'x' || (line[pos] != '/' && line[pos] != '['))
			continue;
		line[strcspn(line, "\n")] = '\0';
		for (i = 0; i < nmaps; i++)
			if (maps[i].start == start && strcmp(maps[i].path, line + pos) == 0)
				break;
		if (i < nmaps)
			continue;
		memset(&maps[nmaps], 0, sizeof(maps[nmaps]));
		maps[nmaps].start = start;
		maps[nmaps].end = end;
		maps[nmaps].offset = off;
		maps[nmaps].load_epoch = epoch;
		maps[nmaps].unload_epoch = PROFIL_EPOCH_NEVER;
		maps[nmaps].prot = 5;
		maps[nmaps].path = strdup(line + pos);
		for (j = 0; j < nids; j++) {
			Dl_info di1, di2;

			if (dladdr((void *)(uintptr_t)start, &di1) &&
			    dladdr((void *)ids[j].addr, &di2) && di1.dli_fbase == di2.dli_fbase) {
				memcpy(maps[nmaps].build_id, ids[j].id, ids[j].len);
				maps[nmaps].build_id_len = ids[j].len;
			}
		}
		nmaps++;
	}
	if (f != NULL)
		fclose(f);
}

/* The library at path is gone after epoch: its mappings end there. */
static __attribute__((unused)) void
maps_unload(const char *path, uint32_t epoch)
{
	size_t i;

	for (i = 0; i < nmaps; i++)
		if (strcmp(maps[i].path, path) == 0 && maps[i].unload_epoch == PROFIL_EPOCH_NEVER)
			maps[i].unload_epoch = epoch;
}

static __attribute__((unused)) uint64_t
file_offset(uint64_t pc)
{
	size_t i;

	for (i = 0; i < nmaps; i++)
		if (pc >= maps[i].start && pc < maps[i].end)
			return pc - maps[i].start + maps[i].offset;
	return 0;
}

static __attribute__((unused)) const char *
path_of(const void *addr)
{
	Dl_info di;
	const char *s;

	if (!dladdr(addr, &di) || di.dli_fname == NULL)
		return "?";
	s = strrchr(di.dli_fname, '/');
	return s != NULL ? s + 1 : di.dli_fname;
}

/* Opens path for a profile, then writes the preamble, h and every mapping read.  Returns the
 * descriptor, or -1 after a message. */
static __attribute__((unused)) int
profile_begin(struct profil_writer *w, const char *path, const struct profil_file_header *h)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	size_t i;

	if (fd < 0) {
		perror(path);
		return -1;
	}
	profil_writer_init(w, fd);
	profil_writer_header(w, h);
	for (i = 0; i < nmaps; i++)
		profil_writer_mapping(w, &maps[i]);
	return fd;
}

#endif /* PROFIL_TEST_PROCMAPS_H */
