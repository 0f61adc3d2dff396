/*
 * pb.c - protocol buffers' wire format, written by hand: varints, length-delimited fields and
 * nested messages into growable buffers (the pprof export's encoder).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "export/pb.h"

void
profil_pb_bytes(struct pb *b, const void *data, size_t len)
{
	/* An empty buffer has no storage yet, and memcpy from NULL is undefined even for 0 bytes. */
	if (b->error || len == 0)
		return;
	if (b->len + len > b->cap) {
		size_t cap = b->cap ? b->cap : 4096;
		uint8_t *p;

		while (cap < b->len + len)
			cap *= 2;
		p = realloc(b->p, cap);
		if (p == NULL) {
			b->error = -ENOMEM;
			return;
		}
		b->p = p;
		b->cap = cap;
	}
	memcpy(b->p + b->len, data, len);
	b->len += len;
}

void
profil_pb_varint(struct pb *b, uint64_t v)
{
	uint8_t tmp[10];
	size_t n = 0;

	do {
		tmp[n++] = (uint8_t)((v & 0x7f) | (v > 0x7f ? 0x80 : 0));
		v >>= 7;
	} while (v != 0);
	profil_pb_bytes(b, tmp, n);
}

/* A varint field; proto3 omits zero scalars, and so do we. */
void
profil_pb_uint(struct pb *b, unsigned field, uint64_t v)
{
	if (v == 0)
		return;
	profil_pb_varint(b, (uint64_t)field << 3);
	profil_pb_varint(b, v);
}

void
profil_pb_len(struct pb *b, unsigned field, const void *data, size_t len)
{
	profil_pb_varint(b, (uint64_t)field << 3 | 2);
	profil_pb_varint(b, len);
	profil_pb_bytes(b, data, len);
}

/* Appends sub as a length-delimited field of b and empties sub. */
void
profil_pb_msg(struct pb *b, unsigned field, struct pb *sub)
{
	if (sub->error)
		b->error = sub->error;
	profil_pb_len(b, field, sub->p, sub->len);
	sub->len = 0;
}
