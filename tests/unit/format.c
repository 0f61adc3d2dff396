/*
 * The profile format's writer and reader: a round trip with exact values, and hostile input
 * (every truncation, every single-byte corruption, a wrong version, absurd lengths) that the
 * reader must refuse with a message and without crashing.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "../tap.h"
#include "format/crc32.c"
#include "format/open.c"
#include "format/reader.c"
#include "format/writer.c"
#include "profile/profile.c"

static struct profil_writer w;
/* Sample 0 (5 ticks) in slots 0 and 5, sample 1 (2 ticks) in slot 7. */
static const struct profil_file_time times[] = { { 0, 0, 3 }, { 0, 5, 2 }, { 1, 7, 2 } };

/*
 * Parses a file of one sample of count ticks and the TIME records given, each of n[i] entries of
 * t with slot width slot[i]; returns what the reader says, its message in err, and the number
 * of entries read in *read.
 */
static int
time_file(uint64_t count, const struct profil_file_time *t, const size_t *n,
    const uint64_t *slot, int records, size_t *read, char *err, size_t errlen)
{
	struct profil_file_header h = { .pid = 1, .requested_hz = 1000, .clock = 1 };
	struct profil_file *f;
	uint64_t pc = 0x1000;
	uint8_t *buf;
	int fd = memfd_create("profil-time", 0), r, i;
	off_t end;

	h.progname = "p";
	h.exe = "";
	profil_writer_init(&w, fd);
	profil_writer_header(&w, &h);
	profil_writer_sample(&w, count, 1, 0, 1, &pc);
	for (i = 0; i < records; i++) {
		profil_writer_time(&w, slot[i], t, n[i]);
		t += n[i];
	}
	profil_writer_finish(&w);
	end = lseek(fd, 0, SEEK_END);
	buf = malloc((size_t)end);
	pread(fd, buf, (size_t)end, 0);
	close(fd);
	r = profil_file_parse(buf, (size_t)end, &f, err, errlen);
	*read = 0;
	if (r == 0) {
		*read = f->ntimes;
		profil_file_free(f);
	}
	free(buf);
	return r;
}

/* TIME records the reader must refuse, and a large table split over records. */
static void
check_times(void)
{
	static struct profil_file_time many[10000];
	struct profil_file_time bad[2] = { { 0, 1, 3 }, { 0, 2, 3 } };
	size_t n[2] = { 1, 1 }, i, got;
	uint64_t slot[2] = { 1000000, 1000000 };
	char err[256];
	int r;

	r = time_file(5, bad, n, slot, 2, &got, err, sizeof(err));
	tap_check(r < 0 && strstr(err, "exceed its count") != NULL,
	    "time counts beyond their sample's are refused: %s", err);
	bad[1].count = 2;
	slot[1] = 2000000;
	r = time_file(5, bad, n, slot, 2, &got, err, sizeof(err));
	tap_check(r < 0 && strstr(err, "slot of 2000000 ns") != NULL,
	    "a slot width that changes is refused: %s", err);
	slot[0] = 999;
	r = time_file(5, bad, n, slot, 1, &got, err, sizeof(err));
	tap_check(r < 0 && strstr(err, "slot of 999 ns") != NULL, "a slot under 1 us is refused: %s",
	    err);
	slot[0] = 1000000;
	bad[0].sample = 1;
	r = time_file(5, bad, n, slot, 1, &got, err, sizeof(err));
	tap_check(r < 0 && strstr(err, "names sample 1 of 1") != NULL,
	    "a time entry of a sample not written before it is refused: %s", err);
	bad[0].sample = 0;
	bad[0].count = 0;
	r = time_file(5, bad, n, slot, 1, &got, err, sizeof(err));
	tap_check(r < 0, "a zero count is refused: %s", err);
	/* More entries than one record holds: the writer splits them, the reader joins them. */
	for (i = 0; i < 10000; i++)
		many[i] = (struct profil_file_time){ 0, (uint32_t)i, 1 };
	n[0] = 10000;
	r = time_file(10000, many, n, slot, 1, &got, err, sizeof(err));
	tap_check(r == 0 && got == 10000 && w.records == 1 + 1 + 3 + 1 /* END */,
	    "10000 time entries go out as 3 records and read back (%s)", r ? err : "ok");
}

/* Writes a small profile into memory (memfd) and returns its bytes. */
static uint8_t *
sample_file(size_t *len)
{
	struct profil_file_header h = { 0 };
	struct profil_file_mapping m = { 0 };
	uint64_t pcs[3] = { 0x555555554123, 0x7f0000001000, 0x7f0000002000 };
	uint8_t *buf;
	int fd = memfd_create("profil-format", 0);
	off_t end;

	h.pid = 1234;
	h.ppid = 1;
	h.requested_hz = 1000;
	h.clock = 2;
	h.achieved_mhz = 998500;
	h.start_ns = 1;
	h.end_ns = 2000000001;
	h.samples = 7;
	h.ticks = 9;
	h.exit_kind = PROFIL_EXIT_SIGNAL;
	h.exit_code = 11;
	h.flags = PROFIL_HDR_STACKS | PROFIL_HDR_SYSTEM_NS;
	h.system_ns = 123456789;
	h.max_depth = 64;
	h.progname = "prog";
	h.exe = "/usr/bin/prog";
	profil_writer_init(&w, fd);
	profil_writer_header(&w, &h);
	m.start = 0x555555554000;
	m.end = 0x555555556000;
	m.offset = 0x1000;
	m.load_epoch = 0;
	m.unload_epoch = PROFIL_EPOCH_NEVER;
	m.prot = 5;
	m.build_id_len = 20;
	memset(m.build_id, 0xab, 20);
	m.path = "/usr/bin/prog";
	profil_writer_mapping(&w, &m);
	m.start = 0x7f0000000000;
	m.end = 0x7f0000010000;
	m.load_epoch = 1;
	m.unload_epoch = 2;
	m.build_id_len = 0;
	m.path = "/tmp/libgone.so";
	profil_writer_mapping(&w, &m);
	profil_writer_thread(&w, 1234, "main");
	profil_writer_thread(&w, 1235, "worker-1");
	profil_writer_processes(&w, 203);
	/* A JIT's names, written out of order; the second reused memory inside the first. */
	profil_writer_code(&w, 0x7e0000001000, 0x100, PROFIL_CODE_PERF_MAP, "JS:*fa x.js:1", 13);
	profil_writer_code(&w, 0x7e0000000000, 0x4000, PROFIL_CODE_JITDUMP, "Bench.work(int)", 15);
	profil_writer_sample(&w, 5, 1234, 0, 1, pcs);
	profil_writer_sample(&w, 2, 1235, 1, 3, pcs);
	profil_writer_time(&w, 1000000, times, 3);
	tap_check(profil_writer_finish(&w) == 0, "writer finishes without error");
	end = lseek(fd, 0, SEEK_END);
	buf = malloc((size_t)end);
	pread(fd, buf, (size_t)end, 0);
	close(fd);
	*len = (size_t)end;
	return buf;
}

int
main(void)
{
	struct profil_file *f;
	char err[256];
	size_t len, i, refused, crashed = 0;
	uint8_t *buf = sample_file(&len), *copy;
	int r;

	tap_check(profil_crc32(0, "123456789", 9) == 0xcbf43926,
	    "CRC-32 of \"123456789\" is the IEEE check value cbf43926");
	r = profil_file_parse(buf, len, &f, err, sizeof(err));
	tap_check(r == 0, "a written file reads back (%s)", r ? err : "ok");
	if (r != 0)
		return tap_done();
	tap_check(f->hdr.pid == 1234 && f->hdr.ppid == 1 && f->hdr.requested_hz == 1000 &&
	    f->hdr.clock == 2 && f->hdr.achieved_mhz == 998500 && f->hdr.end_ns == 2000000001 &&
	    f->hdr.samples == 7 && f->hdr.ticks == 9 && f->hdr.exit_kind == PROFIL_EXIT_SIGNAL &&
	    f->hdr.exit_code == 11 &&
	    f->hdr.flags == (PROFIL_HDR_STACKS | PROFIL_HDR_SYSTEM_NS) &&
	    f->hdr.system_ns == 123456789 &&
	    strcmp(f->hdr.progname, "prog") == 0 && strcmp(f->hdr.exe, "/usr/bin/prog") == 0,
	    "header fields round-trip, system_ns after the strings");
	tap_check(f->nmaps == 2 && f->maps[0].offset == 0x1000 && f->maps[0].build_id_len == 20 &&
	    f->maps[0].build_id[19] == 0xab && strcmp(f->maps[1].path, "/tmp/libgone.so") == 0 &&
	    f->maps[1].unload_epoch == 2, "mappings round-trip with build-id and epochs");
	tap_check(f->nthreads == 2 && strcmp(f->threads[1].name, "worker-1") == 0,
	    "threads round-trip");
	tap_check(f->processes_seen == 203, "the count of images that ran round-trips");
	tap_check(f->ncodes == 2 && f->codes[0].start == 0x7e0000000000 &&
	    f->codes[0].source == PROFIL_CODE_JITDUMP &&
	    strcmp(f->codes[1].name, "JS:*fa x.js:1") == 0, "JIT names round-trip, by address");
	tap_check(profil_file_code_find(f, 0x7e00000010ff) == &f->codes[1] &&
	    profil_file_code_find(f, 0x7e0000001100) == &f->codes[0] &&
	    profil_file_code_find(f, 0x7e0000000000) == &f->codes[0] &&
	    profil_file_code_find(f, 0x7e0000004000) == NULL &&
	    profil_file_code_find(f, 0x7dffffffffff) == NULL,
	    "a pc is named by the innermost name holding it, and only inside one");
	tap_check(f->nsamples == 2 && f->samples[0].count == 5 && f->samples[0].depth == 1 &&
	    f->samples[1].depth == 3 && f->samples[1].pcs[2] == 0x7f0000002000 &&
	    f->samples[1].epoch == 1, "samples round-trip, leaf first");
	tap_check(f->slot_ns == 1000000 && f->ntimes == 3 && f->times[1].sample == 0 &&
	    f->times[1].slot == 5 && f->times[1].count == 2 && f->times[2].sample == 1 &&
	    f->times[2].slot == 7, "times round-trip, with their slot width");
	tap_check(profil_file_mapping_find(f, 0x7f0000001000, 1) == &f->maps[1] &&
	    profil_file_mapping_find(f, 0x7f0000001000, 3) == NULL &&
	    profil_file_mapping_find(f, 0x555555554123, 7) == &f->maps[0],
	    "a pc finds its mapping only within the mapping's epochs");
	profil_file_free(f);

	/* Every proper prefix is a truncated file. */
	refused = 0;
	for (i = 0; i < len; i++) {
		copy = malloc(i + 1);
		memcpy(copy, buf, i);
		r = profil_file_parse(copy, i, &f, err, sizeof(err));
		refused += r == -EINVAL && err[0] != '\0' && f == NULL;
		free(copy);
	}
	tap_check(refused == len, "all %zu truncations refused with a message", len);
	r = profil_file_parse(buf, len - 1, &f, err, sizeof(err));
	tap_check(r < 0 && strstr(err, "truncated") != NULL, "message says truncated: %s", err);

	/* Any changed byte outside the reserved preamble flags is caught. */
	refused = 0;
	for (i = 0; i < len; i++) {
		copy = malloc(len);
		memcpy(copy, buf, len);
		copy[i] ^= 0x5a;
		r = profil_file_parse(copy, len, &f, err, sizeof(err));
		if (r == 0)
			profil_file_free(f);
		refused += r < 0 || (i >= 12 && i < 16);
		crashed += r < 0 && err[0] == '\0';
		free(copy);
	}
	tap_check(refused == len && crashed == 0, "every corrupted byte refused (%zu of %zu)",
	    refused, len);

	copy = malloc(len);
	memcpy(copy, buf, len);
	copy[8] = 2;
	r = profil_file_parse(copy, len, &f, err, sizeof(err));
	tap_check(r < 0 && strstr(err, "unsupported version 2") != NULL, "wrong version: %s", err);

	/* A hostile length with a valid checksum: the frame is checked before any allocation. */
	memcpy(copy, buf, len);
	copy[20] = 0xff;
	copy[21] = 0xff;
	copy[22] = 0xff;
	copy[23] = 0x7f;
	r = profil_file_parse(copy, len, &f, err, sizeof(err));
	tap_check(r < 0 && strstr(err, "too large") != NULL, "huge record length: %s", err);
	free(copy);

	/*
	 * A file written before system_ns: its header ends with the strings.  The same file with
	 * those 8 bytes cut (and the frame's length and checksum made to match) reads, and says
	 * nothing of the kernel's time even if its flags claim it.
	 */
	{
		uint32_t plen, crc;
		size_t hl;

		memcpy(&plen, buf + 20, 4);
		hl = 8 + plen + 4;
		copy = malloc(len);
		memcpy(copy, buf, 16 + 8 + plen - 8);
		memcpy(copy + 16 + 8 + plen - 8 + 4, buf + 16 + hl, len - 16 - hl);
		plen -= 8;
		memcpy(copy + 20, &plen, 4);
		crc = profil_crc32(0, copy + 16, 8 + plen);
		memcpy(copy + 16 + 8 + plen, &crc, 4);
		r = profil_file_parse(copy, len - 8, &f, err, sizeof(err));
		tap_check(r == 0 && f->hdr.system_ns == 0 && f->hdr.flags == PROFIL_HDR_STACKS &&
		    strcmp(f->hdr.exe, "/usr/bin/prog") == 0,
		    "a header without system_ns reads, without it (%s)", r ? err : "ok");
		if (r == 0)
			profil_file_free(f);
		free(copy);
	}

	check_times();
	r = profil_file_parse("hello, world, not a profile", 27, &f, err, sizeof(err));
	tap_check(r < 0 && strstr(err, "magic") != NULL, "not a profile: %s", err);
	r = profil_file_read("/nonexistent/x.profil", &f, err, sizeof(err));
	tap_check(r == -ENOENT && f == NULL, "missing file: %s", err);
	free(buf);
	return tap_done();
}
