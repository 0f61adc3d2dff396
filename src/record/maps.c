/*
 * The memory mappings of the process, so that every pc can be attributed afterwards: read from
 * /proc/self/maps at start, after each dlopen and dlclose, at every flush and at exit.  A
 * mapping that disappears keeps its entry with the epoch it was last seen in.  Raw reads into a
 * static buffer and no allocation: this also runs from fatal-signal handlers.
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/buildid.h"
#include "profile/maps.h"
#include "record.h"

static char buf[64 * 1024];

static int
parse_hex(const char **pp, uint64_t *out)
{
	const char *p = *pp;
	uint64_t v = 0;
	int n = 0;

	for (;; p++, n++) {
		int d;

		if (*p >= '0' && *p <= '9')
			d = *p - '0';
		else if (*p >= 'a' && *p <= 'f')
			d = *p - 'a' + 10;
		else
			break;
		v = v << 4 | (uint64_t)d;
	}
	*pp = p;
	*out = v;
	return n > 0 ? 0 : -1;
}

static const char *
skip_field(const char *p, const char *end)
{
	while (p < end && *p != ' ')
		p++;
	while (p < end && *p == ' ')
		p++;
	return p;
}

/* The GNU build-id note of an ELF file, read with pread(2). */
static uint32_t
read_build_id(const char *path, uint8_t *id)
{
	struct stat st;
	static uint8_t note[1024];	/* off the stack of a fatal signal's flush; lock held */
	uint32_t got = 0;
	int fd;

	/*
	 * The name in /proc/self/maps is only a name: anything may be there now, a FIFO whose
	 * open(2) blocks or a device.  Non-blocking, and regular files only.
	 */
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (fd < 0)
		return 0;
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode))
		got = (uint32_t)profil_build_id_fd(fd, id, PROFIL_FORMAT_MAX_BUILD_ID, note,
		    sizeof(note));
	close(fd);
	return got;
}

static const char *
intern_path(const char *p, size_t n)
{
	char *s;

	if (profil_rec.paths_used + n + 1 > sizeof(profil_rec.paths))
		return NULL;
	s = profil_rec.paths + profil_rec.paths_used;
	memcpy(s, p, n);
	s[n] = '\0';
	profil_rec.paths_used += n + 1;
	return s;
}

/* One line of /proc/self/maps: "start-end perms offset dev inode path". */
static int
take_line(const char *p, const char *end, uint32_t epoch, uint64_t now)
{
	uint64_t start, stop, offset;
	const char *perms, *path;
	struct profil_record_map *r;
	size_t i, plen;
	uint32_t prot = 0;

	if (parse_hex(&p, &start) < 0 || *p++ != '-' || parse_hex(&p, &stop) < 0 || *p++ != ' ')
		return 0;
	perms = p;
	if (end - perms < 5 || perms[2] != 'x')
		return 0;
	prot = (perms[0] == 'r' ? PROT_READ : 0) | (perms[1] == 'w' ? PROT_WRITE : 0) | PROT_EXEC;
	p = skip_field(p, end);
	if (parse_hex(&p, &offset) < 0)
		return 0;
	p = skip_field(p, end);		/* offset's trailing spaces */
	p = skip_field(p, end);		/* dev */
	p = skip_field(p, end);		/* inode */
	path = p;
	plen = (size_t)(end - path);
	/*
	 * Files, the vDSO (clock_gettime runs there), and anonymous code, where JIT compilers put
	 * theirs ("", [heap], [anon:NAME]): named by address from the JIT's files, after the
	 * program ends (profil record does it).  offset is then meaningless: 0.
	 */
	if (plen == 0 || (path[0] == '[' && !(plen == 6 && memcmp(path, "[vdso]", 6) == 0))) {
		path = "[anon]";
		plen = 6;
		offset = 0;
	} else if (path[0] != '/' && (plen != 6 || memcmp(path, "[vdso]", 6) != 0)) {
		return 0;
	}
	if (plen > PROFIL_FORMAT_MAX_PATH)
		plen = PROFIL_FORMAT_MAX_PATH;
	for (i = 0; i < profil_rec.nmaps; i++) {
		r = &profil_rec.maps[i];
		if (r->live && r->m.start == start && r->m.end == stop && r->m.offset == offset &&
		    strncmp(r->m.path, path, plen) == 0 && r->m.path[plen] == '\0') {
			r->seen = 1;
			return 0;
		}
	}
	/*
	 * Anonymous code joins the live anonymous mapping it overlaps or touches, which grows to
	 * hold it: a JIT that grows its code space page by page would otherwise fill the table
	 * and split every stack by epoch, for code that is named by address anyway.
	 */
	for (i = 0; path[0] == '[' && i < profil_rec.nmaps; i++) {
		r = &profil_rec.maps[i];
		if (!r->live || !profil_mapping_joins(&r->m, start, stop))
			continue;
		profil_mapping_grow(&r->m, start, stop);
		r->seen = 1;
		return 0;
	}
	/*
	 * Entries are never reused: samples already counted name them by epoch.  A full table
	 * leaves later code unattributed ([unmapped] in reports), and says so once.
	 */
	if (profil_rec.nmaps == PROFIL_RECORD_MAX_MAPS) {
		profil_record_warn("mapping table full, code mapped from now on is not named",
		    "PROFIL_RECORD_MAX_MAPS");
		return 0;
	}
	r = &profil_rec.maps[profil_rec.nmaps];
	memset(r, 0, sizeof(*r));
	profil_mapping_start(&r->m, start, stop, offset, prot, epoch, now);
	r->m.path = (char *)intern_path(path, plen);
	if (r->m.path == NULL) {
		profil_record_warn("mapping path space full, code mapped from now on is not named",
		    "PROFIL_RECORD_PATHS");
		return 0;
	}
	/* "<path> (deleted)": the file is gone, and whatever has that name now is not it. */
	if (path[0] == '/' && !(plen > 10 && memcmp(path + plen - 10, " (deleted)", 10) == 0))
		r->m.build_id_len = read_build_id(r->m.path, r->m.build_id);
	r->live = 1;
	r->seen = 1;
	profil_rec.nmaps++;
	return 1;
}

void
profil_record_maps_snapshot(void)
{
	uint32_t epoch = atomic_load(&profil_rec.stacks.epoch);
	uint64_t now = profil_clock_ns(CLOCK_REALTIME);
	size_t have = 0, i;
	int fd, changed = 0;
	ssize_t n;

	fd = open("/proc/self/maps", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	for (i = 0; i < profil_rec.nmaps; i++)
		profil_rec.maps[i].seen = 0;
	for (;;) {
		char *line, *nl;

		n = read(fd, buf + have, sizeof(buf) - have);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		have += (size_t)n;
		line = buf;
		while ((nl = memchr(line, '\n', (size_t)(buf + have - line))) != NULL) {
			changed |= take_line(line, nl, epoch, now);
			line = nl + 1;
		}
		have = (size_t)(buf + have - line);
		memmove(buf, line, have);
		if (have == sizeof(buf))
			have = 0;	/* a line longer than the buffer: not ours to parse */
	}
	close(fd);
	if (n < 0)
		return;		/* a partial read proves nothing about what was unmapped */
	for (i = 0; i < profil_rec.nmaps; i++) {
		struct profil_record_map *r = &profil_rec.maps[i];

		if (r->live && !r->seen) {
			r->live = 0;
			profil_mapping_end(&r->m, epoch, now);
			changed = 1;
		}
	}
	/* Samples from now on are told apart from those taken before the change. */
	if (changed)
		atomic_store(&profil_rec.stacks.epoch, epoch + 1);
}
