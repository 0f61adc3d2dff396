/*
 * object.c - an ELF object's unwind table: its segments, its GNU build-id and the rows of its
 * call frame information.  Only the headers and the sections needed are read (pread, never a
 * mapping of a file that could shrink under us), each size checked against the file first.
 */
#include <elf.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/buildid.h"
#include "cfi.h"

/* More than any real object's call frame information (libLLVM's is 30 MB). */
#define MAX_SECTION	(256u << 20)
/* What a compressed section may inflate to: a bomb of 64 KB costs no more than this. */
#define MAX_INFLATED	(64u << 20)
#define MAX_PHDRS	4096u

struct source {
	int fd;
	const uint8_t *mem;
	uint64_t size;
	profil_cfi_inflate_fn *inflate;
	int entries;			/* the entries' ranges, not rows */
};

static int
source_read(const struct source *src, uint64_t off, void *buf, size_t len)
{
	size_t done = 0;

	if (off > src->size || len > src->size - off)
		return -ENOEXEC;
	if (src->mem != NULL) {
		memcpy(buf, src->mem + off, len);
		return 0;
	}
	while (done < len) {
		ssize_t n = pread(src->fd, (uint8_t *)buf + done, len - done, (off_t)(off + done));

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			return -ENOEXEC;
		done += (size_t)n;
	}
	return 0;
}

/* A copy of [off, off + len), at most MAX_SECTION bytes. */
static int
source_copy(const struct source *src, uint64_t off, uint64_t len, uint8_t **out)
{
	uint8_t *p;
	int err;

	if (len > MAX_SECTION)
		return -EFBIG;
	p = malloc(len ? (size_t)len : 1);
	if (p == NULL)
		return -ENOMEM;
	err = source_read(src, off, p, (size_t)len);
	if (err < 0) {
		free(p);
		return err;
	}
	*out = p;
	return 0;
}

/* The build-id from the notes in [off, off + len). */
static void
build_id(struct profil_cfi_object *o, const struct source *src, uint64_t off, uint64_t len)
{
	uint8_t *notes;

	if (len > 65536 || source_copy(src, off, len, &notes) < 0)
		return;
	o->build_id_len = profil_build_id_notes(notes, (size_t)len, o->build_id,
	    sizeof(o->build_id));
	free(notes);
}

/* The file offset of image address a, within a segment. */
static int
offset_of(const struct profil_cfi_object *o, uint64_t a, uint64_t *off, uint64_t *room)
{
	for (size_t i = 0; i < o->nloads; i++) {
		const struct profil_cfi_load *l = &o->loads[i];

		if (a >= l->vaddr && a - l->vaddr < l->filesz) {
			*off = l->offset + (a - l->vaddr);
			*room = l->filesz - (a - l->vaddr);
			return 0;
		}
	}
	return -ENOENT;
}

/* Rows from a section of the file at offset off, image address vaddr. */
static int
section_rows(struct profil_cfi_object *o, const struct source *src, uint64_t off, uint64_t len,
    uint64_t vaddr, int eh)
{
	uint8_t *data;
	int err = source_copy(src, off, len, &data);

	if (err < 0)
		return err;
	if (src->entries)
		err = profil_cfi_entries(data, (size_t)len, vaddr, eh, &o->entries);
	else
		err = profil_cfi_rows(data, (size_t)len, vaddr, eh, &o->table);
	free(data);
	return err;
}

/*
 * The bytes of a compressed section (an Elf64_Chdr, then a zlib stream), inflated by the
 * caller's inflater.  -ENOTSUP: no inflater, or another compression.  What the header claims
 * is bounded by MAX_INFLATED and by the section's size times zlib's largest ratio (1032).
 */
static int
section_inflate(const struct source *src, const Elf64_Shdr *sh, uint8_t **out, uint64_t *len)
{
	Elf64_Chdr ch;
	uint8_t *z, *p;
	uint64_t zlen;
	int err;

	if (src->inflate == NULL)
		return -ENOTSUP;
	if (sh->sh_size < sizeof(ch))
		return -ENOEXEC;
	err = source_read(src, sh->sh_offset, &ch, sizeof(ch));
	if (err < 0)
		return err;
	if (ch.ch_type != ELFCOMPRESS_ZLIB)
		return -ENOTSUP;
	zlen = sh->sh_size - sizeof(ch);
	if (ch.ch_size > MAX_INFLATED || ch.ch_size / 1032 > zlen)
		return -EFBIG;
	err = source_copy(src, sh->sh_offset + sizeof(ch), zlen, &z);
	if (err < 0)
		return err;
	p = malloc(ch.ch_size ? (size_t)ch.ch_size : 1);
	err = p == NULL ? -ENOMEM : src->inflate(z, (size_t)zlen, p, (size_t)ch.ch_size);
	free(z);
	if (err < 0) {
		free(p);
		return err;
	}
	*out = p;
	*len = ch.ch_size;
	return 0;
}

/*
 * .debug_frame's rows where .eh_frame's have none.  A section that cannot be read, for any
 * reason (memory included: a hostile one may claim much), leaves the table as it was:
 * .eh_frame's rules stand on their own.
 */
static void
debug_rows(struct profil_cfi_object *o, const struct source *src, const Elf64_Shdr *sh)
{
	struct profil_unwind_table d, m;
	uint8_t *data;
	uint64_t len = sh->sh_size;
	int err;

	if (sh->sh_flags & SHF_COMPRESSED)
		err = section_inflate(src, sh, &data, &len);
	else
		err = source_copy(src, sh->sh_offset, len, &data);
	if (err < 0)
		return;
	if (src->entries) {
		/* What it cannot read is left out; .eh_frame's entries stand. */
		(void)profil_cfi_entries(data, (size_t)len, 0, 0, &o->entries);
		free(data);
		return;
	}
	err = profil_cfi_rows(data, (size_t)len, 0, 0, &d);
	free(data);
	if (err < 0 || d.nrows == 0)
		return;
	if (o->table.nrows == 0) {
		o->table = d;
		return;
	}
	if (profil_cfi_merge(&o->table, &d, &m) == 0) {
		free((void *)o->table.rows);
		o->table = m;
	}
	free((void *)d.rows);
}

/*
 * Without section headers: .eh_frame_hdr (PT_GNU_EH_FRAME) gives the address of .eh_frame,
 * which then runs to its terminator, within its segment.
 */
static int
rows_from_hdr(struct profil_cfi_object *o, const struct source *src, const Elf64_Phdr *hdr)
{
	uint8_t h[12];
	uint64_t ptr, off, room;
	int32_t rel;
	int err = source_read(src, hdr->p_offset, h, sizeof(h));

	if (err < 0)
		return err;
	/* Version 1, eh_frame_ptr encoded pcrel|sdata4 as every linker writes it. */
	if (h[0] != 1 || h[1] != 0x1b)
		return 0;
	memcpy(&rel, h + 4, 4);
	ptr = hdr->p_vaddr + 4 + (uint64_t)(int64_t)rel;
	if (offset_of(o, ptr, &off, &room) < 0)
		return 0;
	return section_rows(o, src, off, room > MAX_SECTION ? MAX_SECTION : room, ptr, 1);
}

static int
load(struct profil_cfi_object *o, const struct source *src)
{
	Elf64_Ehdr eh;
	Elf64_Phdr *ph = NULL, *ehdr_seg = NULL;
	Elf64_Shdr *sh = NULL;
	char *names = NULL;
	int err;
	size_t i;
	const Elf64_Shdr *eh_frame = NULL, *debug_frame = NULL;

	memset(o, 0, sizeof(*o));
	err = source_read(src, 0, &eh, sizeof(eh));
	if (err < 0)
		return err;
	if (memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 || eh.e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh.e_ident[EI_DATA] != ELFDATA2LSB || eh.e_machine != EM_X86_64 ||
	    eh.e_phentsize != sizeof(Elf64_Phdr) || eh.e_phnum > MAX_PHDRS ||
	    (eh.e_shnum > 0 && eh.e_shentsize != sizeof(Elf64_Shdr)))
		return -ENOEXEC;
	ph = calloc(eh.e_phnum ? eh.e_phnum : 1, sizeof(*ph));
	o->loads = calloc(eh.e_phnum ? eh.e_phnum : 1, sizeof(*o->loads));
	if (ph == NULL || o->loads == NULL) {
		err = -ENOMEM;
		goto out;
	}
	err = source_read(src, eh.e_phoff, ph, eh.e_phnum * sizeof(*ph));
	if (err < 0)
		goto out;
	for (i = 0; i < eh.e_phnum; i++) {
		if (ph[i].p_type == PT_LOAD) {
			o->loads[o->nloads].offset = ph[i].p_offset;
			o->loads[o->nloads].vaddr = ph[i].p_vaddr;
			o->loads[o->nloads].filesz = ph[i].p_filesz;
			o->loads[o->nloads].flags = ph[i].p_flags;
			o->nloads++;
		} else if (ph[i].p_type == PT_GNU_EH_FRAME) {
			ehdr_seg = &ph[i];
		} else if (ph[i].p_type == PT_NOTE && o->build_id_len == 0) {
			build_id(o, src, ph[i].p_offset, ph[i].p_filesz);
		}
	}
	if (eh.e_shnum > 0 && eh.e_shstrndx < eh.e_shnum) {
		sh = calloc(eh.e_shnum, sizeof(*sh));
		if (sh == NULL) {
			err = -ENOMEM;
			goto out;
		}
		err = source_read(src, eh.e_shoff, sh, eh.e_shnum * sizeof(*sh));
		if (err == 0 && sh[eh.e_shstrndx].sh_type == SHT_STRTAB &&
		    sh[eh.e_shstrndx].sh_size < 1u << 20 &&
		    source_copy(src, sh[eh.e_shstrndx].sh_offset, sh[eh.e_shstrndx].sh_size + 1,
		    (uint8_t **)&names) == 0) {
			size_t nlen = sh[eh.e_shstrndx].sh_size;

			names[nlen] = '\0';
			for (i = 0; i < eh.e_shnum; i++) {
				const char *name = sh[i].sh_name < nlen ? names + sh[i].sh_name : "";

				if (sh[i].sh_type == SHT_NOBITS)
					continue;
				if (strcmp(name, ".eh_frame") == 0)
					eh_frame = &sh[i];
				else if (strcmp(name, ".debug_frame") == 0)
					debug_frame = &sh[i];
			}
		}
	}
	err = 0;
	if (eh_frame != NULL && eh_frame->sh_size > 0)
		err = section_rows(o, src, eh_frame->sh_offset, eh_frame->sh_size,
		    eh_frame->sh_addr, 1);
	else if (ehdr_seg != NULL)
		err = rows_from_hdr(o, src, ehdr_seg);
	if (err == 0 && debug_frame != NULL)
		debug_rows(o, src, debug_frame);
	if (err == 0)
		profil_cfi_entries_finish(&o->entries);
out:
	free(names);
	free(sh);
	free(ph);
	if (err < 0)
		profil_cfi_object_release(o);
	return err;
}

/* A regular file's object, its rows or (entries_only) its entries' ranges alone. */
static int
load_fd(struct profil_cfi_object *o, int fd, profil_cfi_inflate_fn *inflate, int entries_only)
{
	struct stat st;
	struct source src = { fd, NULL, 0, inflate, entries_only };

	if (fstat(fd, &st) < 0)
		return -errno;
	if (!S_ISREG(st.st_mode))
		return -EINVAL;
	src.size = (uint64_t)st.st_size;
	return load(o, &src);
}

int
profil_cfi_object_load(struct profil_cfi_object *o, int fd, profil_cfi_inflate_fn *inflate)
{
	return load_fd(o, fd, inflate, 0);
}

int
profil_cfi_object_load_entries(struct profil_cfi_object *o, int fd,
    profil_cfi_inflate_fn *inflate)
{
	return load_fd(o, fd, inflate, 1);
}

int
profil_cfi_object_load_image(struct profil_cfi_object *o, const void *image, size_t len,
    profil_cfi_inflate_fn *inflate)
{
	struct source src = { -1, image, len, inflate, 0 };

	return load(o, &src);
}

int
profil_cfi_object_load_vdso(struct profil_cfi_object *o)
{
	const uint8_t *img = (const uint8_t *)getauxval(AT_SYSINFO_EHDR);
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)img;
	size_t len;

	if (img == NULL || memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0)
		return -ENOENT;
	/* Its section headers come last; the kernel maps the whole image. */
	len = eh->e_shoff + (size_t)eh->e_shnum * eh->e_shentsize;
	if (len < sizeof(*eh) || len > (64u << 10))
		return -ENOEXEC;
	return profil_cfi_object_load_image(o, img, len, NULL);
}

void
profil_cfi_object_release(struct profil_cfi_object *o)
{
	free((void *)o->table.rows);
	free(o->loads);
	free(o->entries.v);
	memset(o, 0, sizeof(*o));
}

int
profil_cfi_object_bias(const struct profil_cfi_object *o, uint64_t start, uint64_t pgoff,
    uint64_t *bias)
{
	/*
	 * The segment the mapping's first byte is in; mappings start page-aligned before it.
	 * lld puts a read-only segment and the executable one in the same page at different
	 * addresses: the executable one is what an executable mapping maps.
	 */
	for (int pass = 0; pass < 2; pass++) {
		for (size_t i = 0; i < o->nloads; i++) {
			const struct profil_cfi_load *l = &o->loads[i];
			uint64_t page = l->offset & ~UINT64_C(4095);

			if (pass == 0 && !(l->flags & PF_X))
				continue;
			if (pgoff >= page && pgoff < l->offset + l->filesz) {
				*bias = start - pgoff + l->offset - l->vaddr;
				return 0;
			}
		}
	}
	return -ENOENT;
}
