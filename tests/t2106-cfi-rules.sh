#!/bin/sh
# t2106-cfi-rules: the unwind tables built from hand-written call frame information and the
# walk over them (tests/report/cfirows.c): a prologue's rows, an epilogue's remember and
# restore_state, an unreadable instruction (a cut from there on), an offset after a CFA
# expression, an lld-linked mapping's segment, and a walk ending complete or with each marker.
. "$(dirname "$0")/lib.sh"

test_run_prog cfirows "$B/tests/report/cfirows"
test_done
