/*
 * read.c - the encodings of DWARF call frame information, read with their bounds checked:
 * fixed-size little-endian values, LEB128, and .eh_frame's pointer encodings (DW_EH_PE_*).
 */
#include "dwarf.h"

uint64_t
cfi_get_n(struct cursor *c, size_t n)
{
	uint64_t v = 0;

	if (c->bad || (size_t)(c->end - c->p) < n) {
		c->bad = 1;
		return 0;
	}
	for (size_t i = n; i-- > 0;)
		v = v << 8 | c->p[i];
	c->p += n;
	return v;
}

uint64_t
cfi_uleb(struct cursor *c)
{
	uint64_t v = 0;
	unsigned int shift = 0;

	while (!c->bad) {
		uint8_t b;

		if (c->p >= c->end) {
			c->bad = 1;
			break;
		}
		b = *c->p++;
		if (shift < 64)
			v |= (uint64_t)(b & 0x7f) << shift;
		shift += 7;
		if (!(b & 0x80))
			return v;
		if (shift > 70)
			c->bad = 1;
	}
	return 0;
}

int64_t
cfi_sleb(struct cursor *c)
{
	uint64_t v = 0;
	unsigned int shift = 0;
	uint8_t b = 0;

	while (!c->bad) {
		if (c->p >= c->end) {
			c->bad = 1;
			return 0;
		}
		b = *c->p++;
		if (shift < 64)
			v |= (uint64_t)(b & 0x7f) << shift;
		shift += 7;
		if (!(b & 0x80))
			break;
		if (shift > 70)
			c->bad = 1;
	}
	if (shift < 64 && (b & 0x40))
		v |= ~UINT64_C(0) << shift;
	return (int64_t)v;
}

void
cfi_skip(struct cursor *c, uint64_t n)
{
	if (c->bad || (uint64_t)(c->end - c->p) < n)
		c->bad = 1;
	else
		c->p += n;
}

/* v * align in two's complement: hostile operands wrap instead of overflowing (UB). */
int64_t
cfi_factored(uint64_t v, int64_t align)
{
	return (int64_t)(v * (uint64_t)align);
}

/* A pointer in encoding enc (DW_EH_PE_*); 0 with c->bad for what .eh_frame does not use. */
uint64_t
cfi_pointer(struct cursor *c, const struct section *s, uint8_t enc)
{
	const uint64_t here = s->vaddr + (uint64_t)(c->p - s->data);
	uint64_t v;

	if (enc == 0xff)
		return 0;
	if (enc & 0x80) {	/* DW_EH_PE_indirect: a personality's, never an address here */
		c->bad = 1;
		return 0;
	}
	switch (enc & 0x0f) {
	case 0x00:
		v = cfi_get_n(c, 8);
		break;
	case 0x01:
		v = cfi_uleb(c);
		break;
	case 0x02:
		v = cfi_get_n(c, 2);
		break;
	case 0x03:
		v = cfi_get_n(c, 4);
		break;
	case 0x04:
		v = cfi_get_n(c, 8);
		break;
	case 0x09:
		v = (uint64_t)cfi_sleb(c);
		break;
	case 0x0a:
		v = (uint64_t)(int64_t)(int16_t)cfi_get_n(c, 2);
		break;
	case 0x0b:
		v = (uint64_t)(int64_t)(int32_t)cfi_get_n(c, 4);
		break;
	case 0x0c:
		v = cfi_get_n(c, 8);
		break;
	default:
		c->bad = 1;
		return 0;
	}
	switch (enc & 0x70) {
	case 0x00:
		return v;
	case 0x10:
		return v + here;
	default:
		c->bad = 1;
		return 0;
	}
}
