/*
 * cfi.c - libFuzzer harness for the unwind tables (src/cfi) and the walk over them
 * (src/sample/walk.c).  The first byte chooses what the rest is: an .eh_frame section, a
 * .debug_frame section, or a whole ELF image.  The table built must be sorted; then a walk
 * runs over it, with registers and stack memory taken from the input, and must stay inside
 * the memory it was given (ASan) and end within its depth.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cfi/cfi.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void
walk(const struct profil_unwind_table *t, const uint8_t *data, size_t size)
{
	struct profil_unwind_module mod = { 0x1000, 0x1000000, 0, t };
	struct profil_unwind_space space = { &mod, 1 };
	struct profil_unwind_regs regs = { 0x1000 + (t->base & 0xffff), 0x7f0000, 0x7f0040,
	    0x7f0020 };
	struct profil_unwind_memory mem;
	enum profil_unwind_end end;
	uint64_t pcs[64];
	size_t n;

	mod.bias = 0x1000 - (t->base < 0x1000 ? t->base : 0);
	if (size >= 8) {
		memcpy(&regs.pc, data, 8);
		data += 8;
		size -= 8;
	}
	/* Stack memory: the rest of the input, up to 4 KiB, at the sp. */
	mem.lo = regs.sp;
	mem.hi = regs.sp + (size < 4096 ? size : 4096);
	mem.data = data;
	n = profil_unwind_cfi(&space, &regs, &mem, pcs, 64, &end);
	if (n == 0 || n > 64)
		abort();
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct profil_cfi_object o;
	struct profil_unwind_table t;
	int mode;

	if (size < 1)
		return 0;
	mode = data[0] % 3;
	data++;
	size--;
	if (mode == 2) {
		uint64_t bias;

		if (profil_cfi_object_load_image(&o, data, size, profil_cfi_inflate_zlib) != 0)
			return 0;
		(void)profil_cfi_object_bias(&o, 0x1000, 0, &bias);
		t = o.table;
	} else if (profil_cfi_rows(data, size, 0x1000, mode == 0, &t) != 0) {
		return 0;
	}
	for (size_t i = 1; i < t.nrows; i++)
		if (t.rows[i].addr <= t.rows[i - 1].addr)
			abort();
	walk(&t, data, size);
	if (mode == 2)
		profil_cfi_object_release(&o);
	else
		free((void *)t.rows);
	return 0;
}
