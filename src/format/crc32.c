/*
 * CRC-32 (IEEE 802.3, reflected, as zlib's crc32()), four bits at a time from a 16-entry table:
 * small, no initialisation, and async-signal-safe, because the recorder's writer runs from
 * fatal-signal handlers.
 */
#include "format.h"

static const uint32_t crc_nibble[16] = {
	0x00000000, 0x1db71064, 0x3b6e20c8, 0x26d930ac, 0x76dc4190, 0x6b6b51f4, 0x4db26158,
	0x5005713c, 0xedb88320, 0xf00f9344, 0xd6d6a3e8, 0xcb61b38c, 0x9b64c2b0, 0x86d3d2d4,
	0xa00ae278, 0xbdbdf21c,
};

uint32_t
profil_crc32(uint32_t crc, const void *data, size_t len)
{
	const uint8_t *p = data;

	crc = ~crc;
	while (len-- > 0) {
		crc ^= *p++;
		crc = (crc >> 4) ^ crc_nibble[crc & 15];
		crc = (crc >> 4) ^ crc_nibble[crc & 15];
	}
	return ~crc;
}
