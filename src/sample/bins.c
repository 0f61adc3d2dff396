/* Signal context: profil(3)'s pc-to-bin relation and the 16-bit bin update. */
#include "sample.h"

size_t
profil_bin_index(uintptr_t pc, uintptr_t offset, unsigned int scale)
{
	/*
	 * The pages print [(pc - offset) / 2] * scale / 65536.  Computed as
	 * (i / 65536) * scale + (i % 65536) * scale / 65536, which is the exact floor of
	 * i * scale / 65536 without the 64-bit overflow of the plain product.
	 */
	uintptr_t i = (pc - offset) / 2;

	return (size_t)((i >> 16) * scale + ((i & 0xffff) * scale >> 16));
}

void
profil_bins_tick(const struct profil_tick *tick, void *arg)
{
	const struct profil_bins *b = arg;
	size_t i = profil_bin_index(tick->pc, b->offset, b->scale);
	unsigned short *bin;

	/* Linux profil(3): "If the resulting value is less than bufsiz ... incremented". */
	if (i >= b->nbins)
		return;
	bin = &b->buf[i];
	/* Every thread ticks into one buffer; an aligned bin takes a lock-free add. */
	if (((uintptr_t)bin & 1) == 0)
		__atomic_fetch_add(bin, (unsigned short)tick->weight, __ATOMIC_RELAXED);
	else
		*bin = (unsigned short)(*bin + tick->weight);
}
