/*
 * Unit tests of profil(3)'s pure pc-to-bin relation, [(pc - offset) / 2] * scale / 65536, at
 * every boundary, against an independent 128-bit reference.
 */
#include <stdint.h>

#include "../tap.h"
#include "sample/sample.h"

static size_t
reference(uintptr_t pc, uintptr_t offset, unsigned int scale)
{
	unsigned __int128 i = (pc - offset) / 2;

	return (size_t)(i * scale / 65536);
}

int
main(void)
{
	static const unsigned int scales[] = { 1, 2, 3, 0x4000, 0x8000, 0xC000, 0xFFFF, 0x10000,
		12345, 65535 };
	const uintptr_t off = 0x555555554000;
	size_t s, d, bad = 0, tried = 0;

	/* FreeBSD profil(2): "A scale of 65536 maps each bin to 2 bytes of address range". */
	tap_check(profil_bin_index(off, off, 65536) == 0 && profil_bin_index(off + 1, off, 65536) == 0 &&
	    profil_bin_index(off + 2, off, 65536) == 1 && profil_bin_index(off + 3, off, 65536) == 1,
	    "scale 65536: 2 bytes per bin");
	/* "a scale of 32768 gives 4 bytes" */
	tap_check(profil_bin_index(off + 3, off, 32768) == 0 && profil_bin_index(off + 4, off, 32768) == 1 &&
	    profil_bin_index(off + 7, off, 32768) == 1 && profil_bin_index(off + 8, off, 32768) == 2,
	    "scale 32768: 4 bytes per bin");
	/* "16384 gives 8 bytes" */
	tap_check(profil_bin_index(off + 7, off, 16384) == 0 && profil_bin_index(off + 8, off, 16384) == 1 &&
	    profil_bin_index(off + 15, off, 16384) == 1 && profil_bin_index(off + 16, off, 16384) == 2,
	    "scale 16384: 8 bytes per bin");
	/*
	 * The pages' order (halve, then scale) and the BSD kernels' (scale, then halve) differ for
	 * scales that are not powers of two: at pc - offset = 3 with scale 0xC000 the pages give 0.
	 */
	tap_check(profil_bin_index(off + 3, off, 0xC000) == 0 && profil_bin_index(off + 4, off, 0xC000) == 1,
	    "scale 0xC000 follows the pages' order of operations");
	/* "The offset argument is the lowest address at which the kernel takes samples." */
	tap_check(profil_bin_index(off - 1, off, 65536) >= ((size_t)1 << 47) &&
	    profil_bin_index(0, off, 1) >= ((size_t)1 << 40),
	    "a pc below offset wraps to an index no buffer can hold");
	tap_check(profil_bin_index(UINTPTR_MAX, 0, 65536) == UINTPTR_MAX / 2 &&
	    profil_bin_index(UINTPTR_MAX, 0, 65535) == reference(UINTPTR_MAX, 0, 65535),
	    "the largest pc does not overflow the product");

	for (s = 0; s < sizeof(scales) / sizeof(scales[0]); s++) {
		for (d = 0; d < 200000; d++) {
			tried++;
			if (profil_bin_index(off + d, off, scales[s]) != reference(off + d, off, scales[s]))
				bad++;
		}
		for (d = 0; d < 64; d++) {
			uintptr_t pc = (uintptr_t)1 << d;

			tried++;
			if (profil_bin_index(pc + 12345, 12345, scales[s]) !=
			    reference(pc + 12345, 12345, scales[s]))
				bad++;
		}
	}
	tap_check(bad == 0, "matches the 128-bit reference for %zu (pc, scale) pairs (%zu differ)",
	    tried, bad);
	return tap_done();
}
