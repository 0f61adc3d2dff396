#!/bin/sh
# t4004-fuzz-reader: the libFuzzer harnesses (tests/fuzz/, built with ASan and UBSan) run on real
# seed files: the profile reader for 15 s, then the exporters behind it (folded, pprof, SVG) for
# 10 s: no crash, leak or undefined behaviour.  Every input has its checksums fixed (or is tried
# both ways), so the checks behind the CRC are reached too.  `make fuzz` runs each for
# FUZZ_SECONDS (default 300).
. "$(dirname "$0")/lib.sh"

FUZZ_CORPUS= FUZZ_TARGET=reader FUZZ_SECONDS=${FUZZ_SECONDS_CHECK:-15} sh "$ROOT/tests/fuzz/run.sh"
FUZZ_CORPUS= FUZZ_TARGET=export FUZZ_SECONDS=${FUZZ_SECONDS_CHECK:-10} sh "$ROOT/tests/fuzz/run.sh"
test_done
