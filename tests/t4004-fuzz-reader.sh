#!/bin/sh
# t4004-fuzz-reader: the libFuzzer harness of the profile reader (tests/fuzz/reader.c, built with
# ASan and UBSan) runs for 20 s on real seed files: no crash, leak or undefined behaviour.  Every
# input is tried as is and with its checksums fixed, so the checks behind the CRC are reached
# too.  `make fuzz` runs the same for FUZZ_SECONDS (default 300).
. "$(dirname "$0")/lib.sh"

FUZZ_CORPUS= FUZZ_SECONDS=${FUZZ_SECONDS_CHECK:-20} sh "$ROOT/tests/fuzz/run.sh"
test_done
