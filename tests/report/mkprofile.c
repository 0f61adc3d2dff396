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
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "format/format.h"
#include "procmaps.h"

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
	fd = profile_begin(&w, argv[1], &h);
	if (fd < 0)
		return 1;
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
