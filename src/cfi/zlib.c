/*
 * zlib.c - the inflater of compressed call frame information (cfi.h), for the profil command
 * and the tools that link zlib.  Left out of the in-process recorder, which links libc alone.
 */
#include <errno.h>
#include <zlib.h>

#include "cfi.h"

int
profil_cfi_inflate_zlib(const uint8_t *src, size_t len, uint8_t *out, size_t size)
{
	uLongf n = (uLongf)size;

	if ((uLong)len != len || n != size)
		return -EFBIG;
	/* Linear in what it writes, and it writes no more than size. */
	if (uncompress(out, &n, src, (uLong)len) != Z_OK || n != size)
		return -EINVAL;
	return 0;
}
