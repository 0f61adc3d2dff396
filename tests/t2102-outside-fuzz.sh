#!/bin/sh
# t2102-outside-fuzz: the outside recorder's parser of the kernel's records (tests/fuzz/outside.c,
# built with ASan and UBSan) runs for 10 s on seeds written by tests/fuzz/outside-seeds.py: an
# exec'ed command with mappings, flat and deep samples, a thread, a fork and exec, exits and a
# lost record.  No crash, leak, out-of-bounds read or undefined behaviour, whatever the sizes,
# pids and lengths say.
. "$(dirname "$0")/lib.sh"
test_needs python3:python3

python3 "$ROOT/tests/fuzz/outside-seeds.py" corpus
fuzz_corpus outside 16384 "the outside recorder's records"
test_done
