/*
 * pb.h - protocol buffers' wire format (pb.c), for the pprof export.
 */
#ifndef PROFIL_EXPORT_PB_H
#define PROFIL_EXPORT_PB_H

#include <stddef.h>
#include <stdint.h>

/* A growable byte buffer; an allocation failure is sticky and reported at the end. */
struct pb {
	uint8_t *p;
	size_t len, cap;
	int error;
};

/* len bytes of data, as they are. */
void profil_pb_bytes(struct pb *b, const void *data, size_t len);
/* v as a varint. */
void profil_pb_varint(struct pb *b, uint64_t v);
/* A varint field; proto3 omits zero scalars, and so does it. */
void profil_pb_uint(struct pb *b, unsigned field, uint64_t v);
/* A length-delimited field of len bytes. */
void profil_pb_len(struct pb *b, unsigned field, const void *data, size_t len);
/* Appends sub as a length-delimited field of b and empties sub. */
void profil_pb_msg(struct pb *b, unsigned field, struct pb *sub);

#endif /* PROFIL_EXPORT_PB_H */
