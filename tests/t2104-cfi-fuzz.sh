#!/bin/sh
# t2104-cfi-fuzz: the unwind tables built from call frame information (src/cfi) and the walk
# over them (src/sample/walk.c) under libFuzzer with ASan and UBSan (tests/fuzz/cfi.c): seeds
# are the .eh_frame and .debug_frame of the test programs, a whole small library, and whole
# programs whose .debug_frame joins their .eh_frame, one compressed.  No
# crash, leak, out-of-bounds read or undefined behaviour; every table sorted; every walk
# within its depth and its memory.
. "$(dirname "$0")/lib.sh"

mkdir corpus
# seed NAME MODE FILE: MODE 0 .eh_frame, 1 .debug_frame, 2 the whole ELF file.
seed() {
	test -s "$3" || { echo "not ok - seed $1: $3 is missing (make tests)"; exit 1; }
	printf "\\$(printf %03o "$2")" > "corpus/$1"
	cat "$3" >> "corpus/$1"
}
objcopy -O binary --only-section=.eh_frame "$B/tests/record/cfistack" eh.bin &&
	seed cfistack-eh 0 eh.bin
objcopy -O binary --only-section=.eh_frame "$B/tests/record/cfithrow" eh2.bin &&
	seed cfithrow-eh 0 eh2.bin
objcopy -O binary --only-section=.debug_frame "$B/tests/record/libcfi.so" df.bin 2>/dev/null &&
	test -s df.bin && seed libcfi-debug 1 df.bin
seed libcfi-elf 2 "$B/tests/record/libcfi.so"
# Rules in .debug_frame beside the C runtime's .eh_frame, plain and compressed (zlib).
seed cfistack-df-elf 2 "$B/tests/record/cfistack-df"
seed cfistack-zdf-elf 2 "$B/tests/record/cfistack-zdf"

fuzz_corpus cfi 65536 "the unwind tables and the walk"
test_done
