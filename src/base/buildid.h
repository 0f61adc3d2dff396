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

#endif
