/*
 * module_elf_debug.c - the files behind an ELF module: the session's libdwfl callbacks, the
 * separate debug file searched for without blocking on what is not a regular file, and the
 * debug store's copy by build-id of a binary rebuilt or gone since the recording.
 */
#include <elfutils/libdwelf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "report/module_elf.h"
#include "format/format.h"

static int find_debuginfo(Dwfl_Module *mod, void **userdata, const char *modname,
    GElf_Addr base, const char *file_name, const char *debuglink_file,
    GElf_Word debuglink_crc, char **debuginfo_file_name);

static void
session_release(void *p)
{
	struct elf_session *es = p;

	free(es->debuginfo_path);
	free(es);
}

/*
 * The module's own directory, its .debug/ and the debug store (/usr/lib/debug, where Debian's
 * -dbg and -dbgsym packages put build-id files): eu-addr2line's default search.  NULL only
 * without memory.
 */
struct elf_session *
module_elf_session(struct profil_symbolizer *sym)
{
	struct elf_session *es = sym->elf;

	if (es != NULL)
		return es;
	es = calloc(1, sizeof(*es));
	if (es == NULL)
		return NULL;
	if (sym->debug_dir != NULL) {
		/* libdwfl's list: the binary's own directory, its .debug/, then the store. */
		if (asprintf(&es->debuginfo_path, ":.debug:%s", sym->debug_dir) < 0) {
			free(es);
			return NULL;
		}
	}
	es->callbacks.find_elf = dwfl_build_id_find_elf;
	es->callbacks.find_debuginfo = find_debuginfo;
	es->callbacks.section_address = dwfl_offline_section_address;
	es->callbacks.debuginfo_path = &es->debuginfo_path;
	sym->elf = es;
	sym->elf_release = session_release;
	return es;
}

/*
 * Opens a binary named by a profile file.  The path is input like any other: a FIFO or a device
 * there must neither block the report nor be read, so only regular files are accepted.
 */
int
module_elf_open_regular(const char *path)
{
	int fd = profil_file_open_regular(path, NULL);

	return fd < 0 ? -1 : fd;
}

#define BUILD_ID_PATH (4096 + 2 * 64 + 32)

/* store/.build-id/xx/yyyy.debug, the debug store's file for a build-id: 0, or -1 if none. */
static int
build_id_path(char *out, const char *store, const unsigned char *id, size_t len)
{
	size_t i, n;

	if (len < 2 || len > 64)
		return -1;
	n = (size_t)snprintf(out, BUILD_ID_PATH, "%.4096s/.build-id/%02x/", store, id[0]);
	for (i = 1; i < len; i++)
		n += (size_t)snprintf(out + n, BUILD_ID_PATH - n, "%02x", id[i]);
	snprintf(out + n, BUILD_ID_PATH - n, ".debug");
	return 0;
}

/*
 * Whether the separate debug file open as fd belongs to the module: the same build-id when the
 * module has one, else the CRC-32 its .gnu_debuglink names (computed over the whole file,
 * which module_elf_open_regular made sure is a regular file).
 */
static int
debug_file_matches(Dwfl_Module *mod, int fd, GElf_Word crc)
{
	const unsigned char *bits;
	const void *dbits;
	uint8_t buf[65536];
	GElf_Addr vaddr;
	uint32_t c = 0;
	ssize_t n, dlen;
	int len, ok = 0;
	Elf *elf;

	len = dwfl_module_build_id(mod, &bits, &vaddr);
	if (len > 0) {
		elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
		if (elf == NULL)
			return 0;
		dlen = dwelf_elf_gnu_build_id(elf, &dbits);
		ok = dlen == len && memcmp(dbits, bits, (size_t)len) == 0;
		elf_end(elf);
		return ok;
	}
	if (lseek(fd, 0, SEEK_SET) != 0)
		return 0;
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		c = profil_crc32(c, buf, (size_t)n);
	ok = n == 0 && c == crc;
	return lseek(fd, 0, SEEK_SET) == 0 && ok;
}

/* Opens dir/name (dir may be "") if it is a regular file other than the module's own. */
static int
open_debug_candidate(const char *dir, const char *sub, const char *name, const char *self,
    char **found)
{
	char *path;
	int fd;

	if (asprintf(&path, "%s%s%s", dir, sub, name) < 0)
		return -1;
	if (self != NULL && strcmp(path, self) == 0) {
		free(path);
		return -1;
	}
	fd = module_elf_open_regular(path);
	if (fd < 0)
		free(path);
	else
		*found = path;
	return fd;
}

/*
 * libdwfl's find_debuginfo callback, in place of dwfl_standard_find_debuginfo, which opens the
 * candidates blocking: a FIFO named <bin>.debug, .debug/<bin>.debug or what .gnu_debuglink says
 * (with ../ in it) hung the report.  The same places, in the same order, each only when it is
 * a regular file: the build-id store, then the debug link next to the binary, in its .debug/
 * and under the store by the binary's directory.  No network: debuginfod is used only when
 * PROFIL_DEBUGINFOD is set (then libdwfl's own search, with DEBUGINFOD_URLS, comes last).
 */
static int
find_debuginfo(Dwfl_Module *mod, void **userdata, const char *modname, GElf_Addr base,
    const char *file_name, const char *debuglink_file, GElf_Word debuglink_crc,
    char **debuginfo_file_name)
{
	const struct profil_symbolizer *sym = *userdata;
	const char *store = "/usr/lib/debug", *slash;
	static const char *const sub[2] = { "", ".debug/" };
	char *dir, *found = NULL, *under = NULL;
	char bpath[BUILD_ID_PATH];
	const unsigned char *bits;
	GElf_Addr vaddr;
	size_t i;
	int len, fd = -1;

	/* module_elf_report() made the session the module's userdata. */
	if (sym != NULL && sym->debug_dir != NULL)
		store = sym->debug_dir;
	len = dwfl_module_build_id(mod, &bits, &vaddr);
	if (len > 0 && build_id_path(bpath, store, bits, (size_t)len) == 0) {
		fd = module_elf_open_regular(bpath);
		if (fd >= 0 && debug_file_matches(mod, fd, 0)) {
			*debuginfo_file_name = strdup(bpath);
			return fd;
		}
		if (fd >= 0)
			close(fd);
	}
	if (debuglink_file != NULL && file_name != NULL) {
		slash = strrchr(file_name, '/');
		dir = slash != NULL ? strndup(file_name, (size_t)(slash - file_name + 1)) :
		    strdup("");
		if (dir == NULL)
			return -1;
		for (i = 0; i < 3 && fd < 0; i++) {
			if (i < 2)
				fd = open_debug_candidate(dir, sub[i], debuglink_file, file_name,
				    &found);
			else if (dir[0] == '/' && asprintf(&under, "%s%s", store, dir) >= 0)
				fd = open_debug_candidate(under, "", debuglink_file, file_name,
				    &found);
			if (fd >= 0 && !debug_file_matches(mod, fd, debuglink_crc)) {
				close(fd);
				free(found);
				found = NULL;
				fd = -1;
			}
		}
		free(under);
		free(dir);
		if (fd >= 0) {
			*debuginfo_file_name = found;
			return fd;
		}
	}
	if (getenv("PROFIL_DEBUGINFOD") != NULL)
		return dwfl_standard_find_debuginfo(mod, userdata, modname, base, file_name,
		    debuglink_file, debuglink_crc, debuginfo_file_name);
	return -1;
}

/* Reports the ELF file at path (fd consumed) as the session's only module, at its own
 * addresses: a bias of 0 for shared objects and PIEs, nothing to move for executables. */
int
module_elf_report(struct profil_symbolizer *sym, struct elf_module *mod, const char *path, int fd)
{
	mod->dwfl = dwfl_begin(&module_elf_session(sym)->callbacks);
	if (mod->dwfl == NULL) {
		close(fd);
		return -ENOMEM;
	}
	dwfl_report_begin(mod->dwfl);
	mod->dm = dwfl_report_elf(mod->dwfl, mod->base->name, path, fd, 0, true);
	if (mod->dm == NULL)
		close(fd);
	else {
		void **userdata;

		if (dwfl_module_info(mod->dm, &userdata, NULL, NULL, NULL, NULL, NULL, NULL) !=
		    NULL)
			*userdata = sym;
	}
	dwfl_report_end(mod->dwfl, NULL, NULL);
	if (mod->dm == NULL) {
		dwfl_end(mod->dwfl);
		mod->dwfl = NULL;
		return -ENOEXEC;
	}
	return 0;
}

/* The file's build-id equals the recorded one, or one of them is unknown. */
int
module_elf_build_id_matches(struct elf_module *mod)
{
	const unsigned char *bits;
	GElf_Addr vaddr;
	int len;

	if (mod->base->build_id_len == 0)
		return 1;
	len = dwfl_module_build_id(mod->dm, &bits, &vaddr);
	if (len <= 0)
		return 1;
	return (size_t)len == mod->base->build_id_len && memcmp(bits, mod->base->build_id, (size_t)len) == 0;
}

/*
 * A binary rebuilt or deleted since the recording may still have its old self in the debug
 * store, as /usr/lib/debug/.build-id/xx/yyyy.debug; such a file keeps the program headers,
 * symbols and DWARF of the code that ran.
 */
int
module_elf_open_by_build_id(struct profil_symbolizer *sym, struct elf_module *mod)
{
	char path[BUILD_ID_PATH];
	int fd;

	if (build_id_path(path, sym->debug_dir != NULL ? sym->debug_dir : "/usr/lib/debug",
	    mod->base->build_id, mod->base->build_id_len) != 0)
		return -1;
	fd = module_elf_open_regular(path);
	if (fd >= 0) {
		free(mod->opened);
		/* Without memory the unwind entries are read from the module's path, or not. */
		mod->opened = strdup(path);
	}
	return fd;
}
