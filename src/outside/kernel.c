/*
 * kernel.c - the kernel's side of the outside recorder's profiles: the time a process spent in
 * kernel mode as the kernel counts it, and names for the kernel code its samples hit.
 *
 * Names come from /proc/kallsyms, as perf's do: the text symbols of the kernel and of its
 * modules, each running to the next one's start.  They are copied into the profile (CODE
 * records, source PROFIL_CODE_KERNEL) when it is written, so that a report elsewhere, or after
 * a reboot that moved the kernel (KASLR), names the same functions.  Where kallsyms shows every
 * address as 0 (kernel.kptr_restrict, or a reader without CAP_SYSLOG), there are no names, and
 * the code stays "[kernel]" rather than being given a wrong one.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "session.h"

int64_t
profil_outside_system_ns(pid_t pid)
{
	char path[64], buf[1024], *p;
	unsigned long long stime = 0;
	long tck = sysconf(_SC_CLK_TCK);
	int field;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	if (profil_read_text(path, buf, sizeof(buf)) <= 0)
		return -1;
	/* proc(5): the command name (2) is in parentheses and may hold spaces; stime is 15. */
	p = strrchr(buf, ')');
	if (p == NULL)
		return -1;
	for (field = 2; field < 15 && p != NULL; field++)
		p = strchr(p + 1, ' ');
	if (p == NULL || sscanf(p + 1, "%llu", &stime) != 1 || tck <= 0)
		return -1;
	return (int64_t)(stime * (1000000000ULL / (unsigned long long)tck));
}

/* Reads the image's time in kernel mode again, while its process can still be read. */
void
profil_outside_system_update(struct profil_outside_image *im)
{
	int64_t ns = profil_outside_system_ns(im->pid);

	/* The count only grows: less is another process that got the pid after a reaping. */
	if (ns < 0 || (uint64_t)ns < im->system_base_ns + im->system_ns)
		return;
	im->system_ns = (uint64_t)ns - im->system_base_ns;
	im->system_known = 1;
}

static int
ksym_cmp(const void *a, const void *b)
{
	const struct profil_outside_ksym *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* kallsyms' lines: "ffffffff81000000 T _text", "ffffffffc0a01000 t fn\t[module]". */
static void
ksyms_read(struct profil_outside *s)
{
	FILE *f;
	char *line = NULL;
	size_t cap = 0, n = 0, ncap = 0, names = 0, namecap = 0, i;
	struct profil_outside_ksym *k = NULL, *kk;
	char *nm = NULL, *np;

	s->ksyms_read = 1;
	f = fopen("/proc/kallsyms", "re");
	if (f == NULL)
		return;
	while (getline(&line, &cap, f) > 0) {
		unsigned long long addr;
		char type, *p, *end, name[256];
		size_t len;

		/* By hand: sscanf took half the command's time on a program that does nothing
		 * (150,000 lines). */
		addr = strtoull(line, &end, 16);
		if (end == line || *end != ' ' || end[1] == '\0' || end[2] != ' ')
			continue;
		type = end[1];
		p = end + 3;
		len = strcspn(p, " \t\n");
		if (len == 0)
			continue;
		if (len > sizeof(name) - 1)
			len = sizeof(name) - 1;
		memcpy(name, p, len);
		name[len] = '\0';
		/* Text only; 0 is what kptr_restrict shows in place of every address. */
		if (addr == 0 || (type != 't' && type != 'T' && type != 'w' && type != 'W'))
			continue;
		if (n == ncap) {
			ncap = ncap ? ncap * 2 : 65536;
			kk = realloc(k, ncap * sizeof(*k));
			if (kk == NULL)
				break;
			k = kk;
		}
		if (names + strlen(name) + 1 > namecap) {
			namecap = namecap ? namecap * 2 : 1 << 20;
			np = realloc(nm, namecap);
			if (np == NULL)
				break;
			nm = np;
		}
		k[n].addr = addr;
		k[n].name = names;
		k[n].wanted = 0;
		memcpy(nm + names, name, strlen(name) + 1);
		names += strlen(name) + 1;
		n++;
	}
	free(line);
	fclose(f);
	if (n == 0) {
		free(k);
		free(nm);
		return;
	}
	/* The kernel lists its own functions in address order, and most modules' too. */
	for (i = 1; i < n && k[i - 1].addr <= k[i].addr; i++)
		;
	if (i < n)
		qsort(k, n, sizeof(*k), ksym_cmp);
	s->ksyms = k;
	s->nksyms = n;
	s->ksym_names = nm;
}

/*
 * Read at the first profile with a kernel pc, the rings go unread meanwhile: 90 ms, 0.6 s on a
 * busy 2-core machine.  A ring of stack copies (-g, cfi) holds a quarter of a second of one
 * CPU's samples, and every process that ran in between lost all its records, fork to exit
 * (t2027): there the names are read at the start, before the command runs; elsewhere a ring
 * holds seconds, and a recording without kernel samples never pays for them.
 */
void
profil_outside_kernel_names(struct profil_outside *s)
{
	if (s->kernel && !s->ksyms_read && s->opts.depth > 1 && !s->opts.frame_pointers)
		ksyms_read(s);
}

/* The function holding pc: the last that starts at or before it, or none (-1). */
static ssize_t
ksym_find(const struct profil_outside *s, uint64_t pc)
{
	size_t lo = 0, hi = s->nksyms;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (s->ksyms[mid].addr <= pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo == 0 ? -1 : (ssize_t)lo - 1;
}

static void
ksym_want(struct profil_outside *s, uint64_t pc)
{
	ssize_t i;

	if (pc < PROFIL_PC_KERNEL_MIN || pc >= PROFIL_PC_WAIT_MIN)
		return;
	i = ksym_find(s, pc);
	if (i >= 0)
		s->ksyms[i].wanted = 1;
}

/* The boot's id (proc(5), /proc/sys/kernel/random/boot_id): a UUID, 16 bytes; 0 when absent. */
static size_t
boot_id(uint8_t *id)
{
	char text[64];
	size_t n = 0;
	unsigned int byte;
	const char *p;

	if (profil_read_text("/proc/sys/kernel/random/boot_id", text, sizeof(text)) <= 0)
		return 0;
	for (p = text; *p != '\0' && *p != '\n' && n < 16; p++) {
		if (*p == '-')
			continue;
		if (sscanf(p, "%2x", &byte) != 1)
			return 0;
		id[n++] = (uint8_t)byte;
		p++;
	}
	return n == 16 ? n : 0;
}

void
profil_outside_kernel_write(struct profil_outside *s, struct profil_outside_image *im,
    struct profil_writer *w)
{
	struct profil_file_mapping m;
	size_t i, d;

	if (!s->kernel)
		return;
	memset(&m, 0, sizeof(m));
	m.start = PROFIL_PC_KERNEL_MIN;
	m.end = PROFIL_PC_WAIT_MIN;
	m.offset = PROFIL_PC_KERNEL_MIN;
	m.load_ns = im->start_ns;
	m.unload_epoch = PROFIL_EPOCH_NEVER;
	m.prot = 5;
	m.path = (char *)PROFIL_KERNEL_PATH;
	/* Kernel addresses mean the same functions for as long as the boot lasts. */
	m.build_id_len = (uint32_t)boot_id(m.build_id);
	profil_writer_mapping(w, &m);
	/* kallsyms takes the kernel some 70 ms to print: read once, and only for a pc of it. */
	for (i = 0; i < im->stacks.n && !s->ksyms_read; i++) {
		const uint64_t *pcs = profil_samples_pcs(&im->stacks, i);

		for (d = 0; d < im->stacks.rows[i].depth; d++)
			if (pcs[d] >= PROFIL_PC_KERNEL_MIN && pcs[d] < PROFIL_PC_WAIT_MIN) {
				ksyms_read(s);
				break;
			}
	}
	if (s->nksyms == 0)
		return;
	/* A return address is looked up one byte back, in its call: both are wanted. */
	for (i = 0; i < im->stacks.n; i++) {
		const uint64_t *pcs = profil_samples_pcs(&im->stacks, i);

		for (d = 0; d < im->stacks.rows[i].depth; d++) {
			ksym_want(s, pcs[d]);
			if (d > 0)
				ksym_want(s, pcs[d] - 1);
		}
	}
	for (i = 0; i < s->nksyms; i++) {
		const struct profil_outside_ksym *k = &s->ksyms[i];
		uint64_t end;
		const char *name;

		if (!k->wanted)
			continue;
		s->ksyms[i].wanted = 0;
		/* The last function runs to the end of the kernel's half; aliases get a byte. */
		end = i + 1 < s->nksyms ? s->ksyms[i + 1].addr : PROFIL_PC_WAIT_MIN;
		if (end <= k->addr)
			end = k->addr + 1;
		name = s->ksym_names + k->name;
		profil_writer_code(w, k->addr, end - k->addr, PROFIL_CODE_KERNEL, name,
		    strlen(name));
	}
}

void
profil_outside_kernel_free(struct profil_outside *s)
{
	free(s->ksyms);
	free(s->ksym_names);
	s->ksyms = NULL;
	s->ksym_names = NULL;
	s->nksyms = 0;
}
