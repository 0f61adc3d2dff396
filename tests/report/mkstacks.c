/*
 * mkstacks.c - writes a -g profile of this live process with exact counts on known call stacks,
 * for the views that read stacks (--graph, --lines, --annotate), the splits (--threads,
 * --per-process, --pid) and --diff.  Its functions call one another as the stacks say; the
 * stacks are written, not sampled, so every figure of the views is known exactly:
 *
 *   100  leaf_a <- caller_top                        tid 1 "main"
 *   B    leaf_b <- caller_top                        tid 1 (B = 60, or MKSTACKS_LEAF_B)
 *    20  caller_top                                  tid 1
 *    40  leaf_a <- rec <- rec <- rec <- caller_top   tid 2 "worker"
 *    30  rec <- rec <- caller_top                    tid 2
 *    50  inl_add, inlined in hot_inline <- caller_top  tid 2
 *    10  plugin_call of NODEBUG.so (no DWARF)        tid 2
 *
 * usage: mkstacks OUT.profil NODEBUG.so
 * Prints "key value" lines: the pid, the source lines of the inlined code and of its call.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "format/format.h"
#include "procmaps.h"
#include "report/symbols.h"

/* Each line number is the line the code is on: what --lines and --annotate must name. */
static inline __attribute__((always_inline)) int
inl_add(volatile int *x, int i)
{
	*x += i * 3; return *x; }	static const int inl_line = __LINE__;

static int call_line;		/* set by the line itself, on its first run */

__attribute__((noinline)) int hot_inline(int n);
__attribute__((noinline)) int
hot_inline(int n)
{
	volatile int x = 0;
	int i, r = 0;

	for (i = 0; i < n; i++) {
		r += inl_add(&x, i); call_line = __LINE__;
	}
	return r;
}

__attribute__((noinline)) int leaf_a(int n);
__attribute__((noinline)) int
leaf_a(int n)
{
	volatile int x = n;

	return x * 7 + 1;
}

__attribute__((noinline)) int leaf_b(int n);
__attribute__((noinline)) int
leaf_b(int n)
{
	volatile int x = n;

	return x * 5 + 3;
}

__attribute__((noinline)) int rec(int n);
__attribute__((noinline)) int
rec(int n)
{
	volatile int x = n;

	return x > 0 ? rec(n - 1) + 1 : leaf_a(n);
}

__attribute__((noinline)) int caller_top(int n);
__attribute__((noinline)) int
caller_top(int n)
{
	return leaf_a(n) + leaf_b(n) + rec(n) + hot_inline(n);
}

/* A pc inside fn (entry + 2, so that a caller's pc - 1 is inside too). */
#define IN(fn) ((uint64_t)(uintptr_t)(fn) + 2)

/* The pc of hot_inline that runs inl_add's line, as the symbolizer reads the DWARF; 0 if none. */
static uint64_t
inline_pc(void)
{
	struct profil_symbolizer *sym = profil_symbolizer_new();
	const struct profil_location *loc;
	struct profil_module *mod = NULL;
	uint64_t pc, found = 0;
	size_t i;

	for (i = 0; i < nmaps && sym != NULL; i++)
		if ((uintptr_t)hot_inline >= maps[i].start && (uintptr_t)hot_inline < maps[i].end)
			mod = profil_symbolizer_module(sym, maps[i].path, maps[i].build_id,
			    maps[i].build_id_len);
	for (pc = (uintptr_t)hot_inline; mod != NULL && pc < (uintptr_t)hot_inline + 256; pc++) {
		if (profil_module_lookup(mod, file_offset(pc), &loc) != 0)
			break;
		if (loc->nframes == 2 && loc->frames[0].function != NULL &&
		    strcmp(loc->frames[0].function, "inl_add") == 0 &&
		    loc->frames[0].line == inl_line && loc->frames[1].line == call_line) {
			found = pc;
			break;
		}
	}
	profil_symbolizer_free(sym);
	return found;
}

int
main(int argc, char **argv)
{
	static struct profil_writer w;
	struct profil_file_header h;
	uint64_t s[8], plugin, inl, leaf_b_count = 60;
	uint32_t pid = (uint32_t)getpid();
	char path[4096];
	void *hp;
	int fd;

	if (argc != 3) {
		fprintf(stderr, "usage: mkstacks OUT.profil NODEBUG.so\n");
		return 2;
	}
	if (realpath(argv[2], path) == NULL || (hp = dlopen(path, RTLD_NOW)) == NULL) {
		fprintf(stderr, "mkstacks: cannot load %s\n", argv[2]);
		return 1;
	}
	caller_top(2);
	maps_read(0);
	plugin = (uintptr_t)dlsym(hp, "plugin_call") + 1;
	inl = inline_pc();
	if (inl == 0) {
		fprintf(stderr, "mkstacks: no pc of inl_add inlined in hot_inline\n");
		return 1;
	}
	printf("pid %u\ninl_line %d\ncall_line %d\n", pid, inl_line, call_line);
	if (getenv("MKSTACKS_LEAF_B") != NULL)
		leaf_b_count = strtoull(getenv("MKSTACKS_LEAF_B"), NULL, 10);

	memset(&h, 0, sizeof(h));
	h.pid = pid;
	h.ppid = (uint32_t)getppid();
	h.requested_hz = 1000;
	h.clock = PROFIL_FILE_CLOCK_RING;
	h.achieved_mhz = 1000000;	/* 1000 Hz: seconds are ticks / 1000 */
	h.samples = h.ticks = 250 + leaf_b_count;
	h.exit_kind = PROFIL_EXIT_NORMAL;
	h.threads = 2;
	h.max_depth = 8;
	h.flags = PROFIL_HDR_STACKS;
	h.progname = "mkstacks";
	h.exe = "";
	fd = profile_begin(&w, argv[1], &h);
	if (fd < 0)
		return 1;
	profil_writer_thread(&w, 1, "main");
	profil_writer_thread(&w, 2, "worker");
	s[0] = IN(leaf_a), s[1] = IN(caller_top);
	profil_writer_sample(&w, 100, 1, 0, 2, s);
	s[0] = IN(leaf_b);
	profil_writer_sample(&w, leaf_b_count, 1, 0, 2, s);
	s[0] = IN(caller_top);
	profil_writer_sample(&w, 20, 1, 0, 1, s);
	s[0] = IN(leaf_a), s[1] = s[2] = s[3] = IN(rec), s[4] = IN(caller_top);
	profil_writer_sample(&w, 40, 2, 0, 5, s);
	s[0] = s[1] = IN(rec), s[2] = IN(caller_top);
	profil_writer_sample(&w, 30, 2, 0, 3, s);
	s[0] = inl, s[1] = IN(caller_top);
	profil_writer_sample(&w, 50, 2, 0, 2, s);
	profil_writer_sample(&w, 10, 2, 0, 1, &plugin);
	if (profil_writer_finish(&w) != 0 || close(fd) != 0) {
		perror(argv[1]);
		return 1;
	}
	return 0;
}
