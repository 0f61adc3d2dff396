#!/bin/sh
# Issue 2: "The handler reads the PC from the ucontext (x86_64; aarch64 must at least compile)".
# The libraries are cross-built for aarch64 with the project's own flags, and the signal-context
# objects pass the same undefined-symbol check there.
. "$(dirname "$0")/lib.sh"
test_needs gcc-aarch64-linux-gnu:aarch64-linux-gnu-gcc
test_expect_success 'libprofil.so and the recorder build for aarch64 with -Werror' '
	make -s -C "$ROOT" B="$TRASH/arm" CC=aarch64-linux-gnu-gcc \
		"$TRASH/arm/libprofil.so" "$TRASH/arm/libprofil-record.so" "$TRASH/arm/signal-safe.ok" &&
	readelf -h "$TRASH/arm/libprofil.so" | grep -q AArch64
'
test_expect_success 'the aarch64 signal-context objects reference only allowed symbols' '
	NM=aarch64-linux-gnu-nm "$ROOT/tools/check-signal-safe.sh" "$TRASH"/arm/src/sample/*.o
'
test_done
