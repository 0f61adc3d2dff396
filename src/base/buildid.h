/*
 * The GNU build-id among an ELF file's notes, with libc alone: the preloaded recorder reads it
 * (src/record/maps.c, in its fatal-signal flush too) as the unwind tables' reader does
 * (src/cfi/object.c).  Inline, so neither links anything new and the signal-safety lists stay.
 */
#ifndef PROFIL_BASE_BUILDID_H
#define PROFIL_BASE_BUILDID_H

#include <elf.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

/*
 * The build-id among the notes in [notes, notes + len) (a PT_NOTE segment's bytes): copied to
 * id when 1 to max bytes long, and its length; 0 when there is none.  Stops at the first note
 * that overruns len.  AS-safe.
 */
static inline size_t
profil_build_id_notes(const void *notes, size_t len, uint8_t *id, size_t max)
{
	const uint8_t *p = notes;
	size_t off = 0;

	while (len - off >= sizeof(Elf64_Nhdr)) {
		Elf64_Nhdr nh;
		size_t nlen, dlen;

		memcpy(&nh, p + off, sizeof(nh));
		off += sizeof(nh);
		nlen = ((size_t)nh.n_namesz + 3) & ~(size_t)3;
		dlen = ((size_t)nh.n_descsz + 3) & ~(size_t)3;
		if (nlen > len - off || dlen > len - off - nlen)
			break;
		if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 &&
		    memcmp(p + off, "GNU", 4) == 0 && nh.n_descsz > 0 && nh.n_descsz <= max) {
			memcpy(id, p + off + nlen, nh.n_descsz);
			return nh.n_descsz;
		}
		off += nlen + dlen;
	}
	return 0;
}

/*
 * The build-id of the ELF file open as fd (32- or 64-bit, little-endian), from its PT_NOTE
 * segments read with pread(2) into note (cap bytes: a segment's first cap bytes are searched),
 * as profil_build_id_notes.  AS-safe: the caller's buffer, no allocation.
 */
static inline size_t
profil_build_id_fd(int fd, uint8_t *id, size_t max, uint8_t *note, size_t cap)
{
	union { Elf64_Ehdr e64; Elf32_Ehdr e32; } eh;
	union { Elf64_Phdr p64; Elf32_Phdr p32; } ph;
	uint64_t phoff, off, filesz;
	unsigned int n, size, i;
	size_t got = 0;
	int wide;

	if (pread(fd, &eh, sizeof(eh), 0) != (ssize_t)sizeof(eh) ||
	    memcmp(eh.e64.e_ident, ELFMAG, SELFMAG) != 0 ||
	    eh.e64.e_ident[EI_DATA] != ELFDATA2LSB ||
	    (eh.e64.e_ident[EI_CLASS] != ELFCLASS64 && eh.e64.e_ident[EI_CLASS] != ELFCLASS32))
		return 0;
	wide = eh.e64.e_ident[EI_CLASS] == ELFCLASS64;
	phoff = wide ? eh.e64.e_phoff : eh.e32.e_phoff;
	n = wide ? eh.e64.e_phnum : eh.e32.e_phnum;
	size = wide ? eh.e64.e_phentsize : eh.e32.e_phentsize;
	if (size != (wide ? sizeof(ph.p64) : sizeof(ph.p32)))
		return 0;
	for (i = 0; i < n && got == 0; i++) {
		ssize_t r;

		if (pread(fd, &ph, size, (off_t)(phoff + (uint64_t)i * size)) != (ssize_t)size ||
		    (wide ? ph.p64.p_type : ph.p32.p_type) != PT_NOTE)
			continue;
		off = wide ? ph.p64.p_offset : ph.p32.p_offset;
		filesz = wide ? ph.p64.p_filesz : ph.p32.p_filesz;
		r = pread(fd, note, filesz < cap ? (size_t)filesz : cap, (off_t)off);
		if (r > 0)
			got = profil_build_id_notes(note, (size_t)r, id, max);
	}
	return got;
}

#endif
