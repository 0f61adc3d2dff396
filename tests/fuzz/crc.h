/*
 * crc.h - for the fuzz harnesses: every record of a profile carries a CRC-32, so almost every
 * mutation would stop at the first checksum.  fix_crcs() rewrites the CRC of every record whose
 * frame fits (docs/FORMAT.md), so that inputs also reach the checks behind it.
 */
#ifndef PROFIL_FUZZ_CRC_H
#define PROFIL_FUZZ_CRC_H

#include <stddef.h>
#include <stdint.h>

#include "format/format.h"

static uint32_t
fuzz_get_u32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static void
fix_crcs(uint8_t *p, size_t size)
{
	size_t off = 16, len;
	uint32_t crc;

	while (off + 8 <= size) {
		len = fuzz_get_u32(p + off + 4);
		if (len > size - off - 8 || size - off - 8 - len < 4)
			break;
		crc = profil_crc32(0, p + off, 8 + len);
		p[off + 8 + len] = (uint8_t)crc;
		p[off + 9 + len] = (uint8_t)(crc >> 8);
		p[off + 10 + len] = (uint8_t)(crc >> 16);
		p[off + 11 + len] = (uint8_t)(crc >> 24);
		off += 12 + len;
	}
}

#endif /* PROFIL_FUZZ_CRC_H */
