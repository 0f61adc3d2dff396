#!/bin/sh
# t3001-symbols: the symbolizer names code in the main PIE (through an inlined call), a linked
# shared library, a dlopen'ed library closed before the lookup, and libc, with file:line from
# the live process's /proc/self/maps; a deleted binary and a stale build-id degrade to
# module+0xoffset with the reason in the module's status.
. "$(dirname "$0")/lib.sh"

cp "$B/tests/report/libplugin.so" gone.so
test_run_prog symbolize "$B/tests/report/symbolize" "$B/tests/report/libplugin.so" "$PWD/gone.so"
test_done
