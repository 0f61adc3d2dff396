#!/bin/sh
# t9003-lint: `make lint` (cppcheck, warning and portability checks over src, cmd, tests, demo
# and bench) finds nothing.  A false positive is suppressed where it occurs, with
# "// cppcheck-suppress id" and a comment saying why, never globally.
. "$(dirname "$0")/lib.sh"
test_needs cppcheck:cppcheck
test_expect_success 'make lint finds nothing' '
	make -C "$ROOT" -s lint
'
test_done
