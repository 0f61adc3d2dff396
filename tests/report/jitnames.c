/*
 * jitnames.c - the parsers of JIT names (src/jit) on hand-made perf maps and jitdump files with
 * known answers: lines and records fed in pieces as a JIT writes them, names of reused memory
 * (the newest wins), a jitdump's code moved, and files that are not what they claim.
 */
#include <errno.h>
#include <string.h>

#include "../tap.h"
#include "format/format.h"
#include "jit/jit.h"

static int
named(struct profil_jit_table *t, uint64_t pc, const char *want)
{
	const struct profil_jit_sym *s = profil_jit_find(t, pc);

	if (want == NULL)
		return s == NULL;
	return s != NULL && s->len == strlen(want) && memcmp(profil_jit_name(t, s), want, s->len) == 0;
}

/* A jitdump: header, then records appended by the helpers below. */
static uint8_t dump[4096];
static size_t dlen;

static void
put(const void *p, size_t n)
{
	memcpy(dump + dlen, p, n);
	dlen += n;
}

static void
put32(uint32_t v)
{
	put(&v, 4);
}

static void
put64(uint64_t v)
{
	put(&v, 8);
}

static void
load(uint64_t addr, uint64_t size, const char *name)
{
	size_t n = strlen(name) + 1;

	put32(0);			/* JIT_CODE_LOAD */
	put32((uint32_t)(56 + n + size));
	put64(1);			/* timestamp */
	put32(42);
	put32(42);
	put64(addr);			/* vma */
	put64(addr);			/* code address */
	put64(size);
	put64(7);			/* index */
	put(name, n);
	memset(dump + dlen, 0x90, size);
	dlen += size;
}

static void
move(uint64_t from, uint64_t to, uint64_t size)
{
	put32(1);			/* JIT_CODE_MOVE */
	put32(64);
	put64(2);
	put32(42);
	put32(42);
	put64(to);
	put64(from);
	put64(to);
	put64(size);
	put64(7);
}

int
main(void)
{
	static const char map[] =
	    "7f0000001000 100 JS:*fa /app/a.js:1:12\n"
	    "0x7f0000002000 0x40 Builtin:CallFunction\n"
	    "not a line at all\n"
	    "7f0000001000 20 long Bench.work(int)\r\n"
	    "7f0000003000 10 tail without newline";
	struct profil_jit_table t;
	size_t used;
	uint64_t next;
	ssize_t r;

	profil_jit_table_init(&t);
	/* Fed as written: first up to the middle of the first line, then the rest. */
	r = profil_jit_map_parse(&t, map, 20, &used);
	tap_check(r == 0 && used == 0, "half a line is left for later (%zd, %zu)", r, used);
	r = profil_jit_map_parse(&t, map, sizeof(map) - 1, &used);
	tap_check(r == 3 && used == sizeof(map) - 1 - strlen("7f0000003000 10 tail without newline"),
	    "three names, the bad line skipped, the unfinished one left (%zd)", r);
	tap_check(named(&t, 0x7f0000001000, "long Bench.work(int)") &&
	    named(&t, 0x7f000000101f, "long Bench.work(int)"),
	    "memory named again is named by the newest name, without its \\r");
	tap_check(named(&t, 0x7f0000001020, "JS:*fa /app/a.js:1:12") &&
	    named(&t, 0x7f00000010ff, "JS:*fa /app/a.js:1:12") && named(&t, 0x7f0000001100, NULL),
	    "the older, longer name still holds the rest of its range, and ends where it ends");
	tap_check(named(&t, 0x7f0000002000, "Builtin:CallFunction") && named(&t, 0x7f0000000fff, NULL),
	    "0x prefixes read; nothing below the first name");
	profil_jit_table_free(&t);

	profil_jit_table_init(&t);
	put32(0x4a695444);		/* "JiTD" */
	put32(1);
	put32(40);
	put32(62);			/* EM_X86_64 */
	put32(0);
	put32(42);
	put64(0);
	put64(0);
	load(0x7e0000001000, 64, "JS:*fb /app/b.js:2:1");
	load(0x7e0000002000, 32, "Interpreter");
	move(0x7e0000001000, 0x7e0000009000, 64);
	move(0x7e0000005000, 0x7e000000a000, 16);	/* of nothing known: no name */
	/* In pieces: the header alone, then a record cut inside its name, then everything. */
	r = profil_jit_dump_parse(&t, dump, 40, 0, &next);
	tap_check(r == 0 && next == 40, "the header alone: nothing yet, the records next (%zd)", r);
	r = profil_jit_dump_parse(&t, dump + 40, 60, 40, &next);
	tap_check(r == 0 && next == 40, "a record cut inside its name waits (%zd, %llu)", r,
	    (unsigned long long)next);
	r = profil_jit_dump_parse(&t, dump + 40, dlen - 40, 40, &next);
	tap_check(r == 3 && next == dlen, "two loads and a move of known code (%zd)", r);
	tap_check(named(&t, 0x7e000000103f, "JS:*fb /app/b.js:2:1") &&
	    named(&t, 0x7e0000009000, "JS:*fb /app/b.js:2:1") &&
	    named(&t, 0x7e000000201f, "Interpreter") && named(&t, 0x7e000000a000, NULL),
	    "moved code is named where it went");
	profil_jit_table_free(&t);

	profil_jit_table_init(&t);
	dump[0] ^= 0xff;
	tap_check(profil_jit_dump_parse(&t, dump, dlen, 0, &next) == -EINVAL,
	    "a file without the jitdump magic is refused");
	dump[0] ^= 0xff;
	memset(dump + 40 + 56, 'x', dlen - 40 - 56);	/* the first name never ends */
	tap_check(profil_jit_dump_parse(&t, dump, dlen, 0, &next) == -EINVAL,
	    "a name that runs past its record is refused");
	profil_jit_table_free(&t);

	tap_check(profil_jit_is_dump_path("/home/u/jit-1234.dump", 21) &&
	    !profil_jit_is_dump_path("/tmp/jit-12a4.dump", 18) &&
	    !profil_jit_is_dump_path("/tmp/jit-.dump", 14) &&
	    !profil_jit_is_dump_path("/tmp/xjit-1.dump", 16), "jitdump paths are jit-<pid>.dump");
	return tap_done();
}
