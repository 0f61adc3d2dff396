/*
 * mkprofile.c - writes a profile file with the project's writer, as the recorder would, whose
 * samples sit at known functions of this live process: its own PIE, a linked library, a
 * dlopen'ed library closed before the end, libc, a library deleted afterwards and an
 * unmapped address.  The counts are exact, so the report's shares and seconds can be checked
 * exactly; the sampling statistics are the recorder's tests' business.
 *
 * usage: mkprofile OUT.profil PLUGIN.so GONE.so   (GONE.so is deleted)
 * Prints "function module count" per place, the expectation for the report.
 */
#include <dlfcn.h>
#include <elf.h>
#include <fcntl.h>
#include <link.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "format/format.h"

int shared_call(int (*cb)(int line));

/* A function of the main PIE, big enough that entry + 1 is inside it. */
__attribute__((noinline)) static int
pie_work(int n)
{
	volatile int x = 0;
	int i;

	for (i = 0; i < n; i++)
		x += i;
	return x;
}

/* The build-ids of loaded objects, by their load address, as the recorder reads them. */
struct build_id {
	uintptr_t addr;
	uint8_t id[PROFIL_FORMAT_MAX_BUILD_ID];
	uint32_t len;
};
static struct build_id ids[256];
static size_t nids;

static int
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

static void
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
static void
maps_unload(const char *path, uint32_t epoch)
{
	size_t i;

	for (i = 0; i < nmaps; i++)
		if (strcmp(maps[i].path, path) == 0 && maps[i].unload_epoch == PROFIL_EPOCH_NEVER)
			maps[i].unload_epoch = epoch;
}

static uint64_t
file_offset(uint64_t pc)
{
	size_t i;

	for (i = 0; i < nmaps; i++)
		if (pc >= maps[i].start && pc < maps[i].end)
			return pc - maps[i].start + maps[i].offset;
	return 0;
}

static const char *
path_of(const void *addr)
{
	Dl_info di;
	const char *s;

	if (!dladdr(addr, &di) || di.dli_fname == NULL)
		return "?";
	s = strrchr(di.dli_fname, '/');
	return s != NULL ? s + 1 : di.dli_fname;
}

int
main(int argc, char **argv)
{
	static struct profil_writer w;
	struct profil_file_header h;
	char plugin_path[4096], gone_path[4096];
	uint64_t pie, shared, plugin, libc, gone, vdso = 0, stack[2];
	void *hp, *hg;
	size_t i;
	int fd, reuse;

	if (argc != 4) {
		fprintf(stderr, "usage: mkprofile OUT.profil PLUGIN.so GONE.so\n");
		return 2;
	}
	if (realpath(argv[2], plugin_path) == NULL || realpath(argv[3], gone_path) == NULL) {
		perror("realpath");
		return 1;
	}
	pie_work(10);
	maps_read(0);
	hp = dlopen(plugin_path, RTLD_NOW);
	hg = dlopen(gone_path, RTLD_NOW);
	if (hp == NULL || hg == NULL) {
		fprintf(stderr, "mkprofile: %s\n", dlerror());
		return 1;
	}
	maps_read(1);
	pie = (uintptr_t)pie_work + 1;
	shared = (uintptr_t)shared_call + 1;
	plugin = (uintptr_t)dlsym(hp, "plugin_call") + 1;
	gone = (uintptr_t)dlsym(hg, "plugin_call") + 1;
	libc = (uintptr_t)dlsym(RTLD_DEFAULT, "getpid");
	printf("pie_work %s 500\n", path_of((void *)pie));
	printf("# pie_work at 0x%llx\n", (unsigned long long)pie - 1);
	printf("shared_call libshared.so 300\n");
	printf("plugin_call %s 120\n", path_of((void *)plugin));
	printf("getpid %s 50\n", path_of((void *)libc));
	printf("gone.so+0x%llx gone.so 20\n", (unsigned long long)file_offset(gone));
	printf("[unmapped] ? 10\n");
	/* The kernel's [vdso]: named by no file, shown as an offset without a warning. */
	for (i = 0; i < nmaps; i++)
		if (strcmp(maps[i].path, "[vdso]") == 0)
			vdso = maps[i].start + 0x10;
	printf("[vdso]+0x%llx [vdso] 5\n", (unsigned long long)file_offset(vdso));
	dlclose(hp);
	dlclose(hg);
	maps_unload(plugin_path, 1);
	maps_unload(gone_path, 1);

	memset(&h, 0, sizeof(h));
	h.pid = (uint32_t)getpid();
	h.ppid = (uint32_t)getppid();
	h.requested_hz = 1000;
	h.clock = 2;
	h.achieved_mhz = 800000;	/* 800 Hz: seconds are ticks / 800 */
	if (getenv("MKPROFILE_NO_RATE") != NULL)
		h.achieved_mhz = 0;	/* too little CPU time to measure one */
	h.samples = h.ticks = 1005;
	h.exit_kind = PROFIL_EXIT_NORMAL;
	h.threads = 1;
	h.max_depth = 2;
	h.flags = PROFIL_HDR_STACKS;
	h.progname = "mkprofile";
	h.exe = "";
	fd = open(argv[1], O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0) {
		perror(argv[1]);
		return 1;
	}
	profil_writer_init(&w, fd);
	profil_writer_header(&w, &h);
	for (i = 0; i < nmaps; i++)
		profil_writer_mapping(&w, &maps[i]);
	/*
	 * With MKPROFILE_REUSE set, another library takes the closed plugin's addresses in epoch 2,
	 * as a later dlopen may: the plugin's PCs sampled then are that library's.
	 */
	reuse = getenv("MKPROFILE_REUSE") != NULL;
	for (i = 0; reuse && i < nmaps; i++) {
		if (strcmp(maps[i].path, plugin_path) == 0) {
			struct profil_file_mapping m = maps[i];

			m.path = "/nonexistent/libreused.so";
			m.build_id_len = 0;
			m.load_epoch = 2;
			m.unload_epoch = PROFIL_EPOCH_NEVER;
			profil_writer_mapping(&w, &m);
		}
	}
	profil_writer_thread(&w, h.pid, "mkprofile");
	/* A caller frame must not count in the flat view: only the leaf does. */
	stack[0] = pie;
	stack[1] = shared;
	profil_writer_sample(&w, 400, h.pid, 0, 2, stack);
	profil_writer_sample(&w, 100, h.pid, 1, 1, &pie);	/* the same function, summed */
	profil_writer_sample(&w, 300, h.pid, 0, 1, &shared);
	profil_writer_sample(&w, 120, h.pid, 1, 1, &plugin);
	profil_writer_sample(&w, 50, h.pid, 1, 1, &libc);
	profil_writer_sample(&w, 20, h.pid, 1, 1, &gone);
	stack[0] = 0x10;
	profil_writer_sample(&w, 10, h.pid, 1, 1, stack);
	if (vdso != 0)
		profil_writer_sample(&w, 5, h.pid, 1, 1, &vdso);
	if (reuse) {
		printf("libreused.so+0x%llx libreused.so 7\n",
		    (unsigned long long)file_offset(plugin));
		profil_writer_sample(&w, 7, h.pid, 2, 1, &plugin);
	}
	if (profil_writer_finish(&w) != 0 || close(fd) != 0) {
		perror(argv[1]);
		return 1;
	}
	if (unlink(gone_path) != 0) {
		perror(gone_path);
		return 1;
	}
	return 0;
}
