#!/bin/sh
# t3001-symbols: the symbolizer names code in the main PIE (through an inlined call), a linked
# shared library, a dlopen'ed library closed before the lookup, and libc, with file:line from
# the live process's /proc/self/maps; a deleted binary and a stale build-id degrade to
# module+0xoffset with the reason in the module's status, unless a debug store has the deleted
# binary under its build-id.
. "$(dirname "$0")/lib.sh"

# A debug store in the style of /usr/lib/debug: the plugin under .build-id/xx/yyyy.debug.
id=$(readelf -n "$B/tests/report/libplugin.so" | awk '/Build ID:/ { print $3 }')
dir=debug/.build-id/$(echo "$id" | cut -c1-2)
mkdir -p "$dir"
cp "$B/tests/report/libplugin.so" "$dir/$(echo "$id" | cut -c3-).debug"

cp "$B/tests/report/libplugin.so" gone.so
test_run_prog symbolize "$B/tests/report/symbolize" "$B/tests/report/libplugin.so" "$PWD/gone.so" \
	"$PWD/debug" "$id"
test_done
