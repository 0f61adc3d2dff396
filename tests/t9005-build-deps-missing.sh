#!/bin/sh
# t9005-build-deps-missing: a plain `make` on a machine without libelf-dev or libdw-dev stopped
# at the compiler's "gelf.h: No such file or directory", which names neither the package nor the
# command that installs it (issue 23).  Now make checks what the profil command is built with
# (pkg-config's libdw, zlib, libmicrohttpd and libcurl, binutils' libiberty) before any of it
# compiles, and says to run tools/deps.sh.  The machine is made to lack them honestly: pkg-config given an empty search
# path finds no .pc file, and a compiler whose library search finds no libiberty.a.
. "$(dirname "$0")/lib.sh"

mkdir empty-pc bin
# A cc that finds every library but libiberty, as one on a machine without libiberty-dev.
cat > bin/cc <<'EOS'
#!/bin/sh
for a in "$@"; do
	[ "$a" = "-print-file-name=libiberty.a" ] && { echo libiberty.a; exit 0; }
done
exec cc "$@"
EOS
chmod +x bin/cc

test_expect_success 'no pkg-config file of libdw, zlib, ...: named, with tools/deps.sh' '
	PKG_CONFIG_LIBDIR="$TRASH/empty-pc" make -C "$ROOT" B="$TRASH/b" "$TRASH/b/profil" \
		> out 2> err
	rc=$? && cat err && test $rc -ne 0 &&
	grep "^profil: missing libraries the profil command is built with (tools/deps.sh" err &&
	grep ": .libdw zlib libmicrohttpd libcurl.$" err &&
	! grep "No such file" err && ! test -e "$TRASH/b/cli"
'

test_expect_success 'no libiberty: named alone' '
	make -C "$ROOT" B="$TRASH/b2" CC="$TRASH/bin/cc" "$TRASH/b2/profil" > out2 2> err2
	rc=$? && cat err2 && test $rc -ne 0 &&
	grep "^profil: missing libraries .*tools/deps.sh.*: .libiberty.$" err2 &&
	! test -e "$TRASH/b2/cli"
'

# tools/deps.sh installs the build machine's libraries, no help to a cross compiler: the
# message says which pkg-config to point at the target's instead.
test_expect_success 'a cross CC: pointed at its target'"'"'s pkg-config, not at tools/deps.sh' '
	printf "#!/bin/sh\necho aarch64-linux-gnu\n" > "$TRASH/cross-cc" &&
	chmod +x "$TRASH/cross-cc" &&
	(cd "$ROOT" && PKG_CONFIG_LIBDIR="$TRASH/empty-pc" CC="$TRASH/cross-cc" \
		tools/check-cli-deps.sh libdw) 2> err4
	rc=$? && cat err4 && test $rc -eq 1 && ! grep deps.sh err4 &&
	grep "for aarch64-linux-gnu (CC is a cross compiler.*PKG_CONFIG=aarch64-linux-gnu-pkg-config or PKG_CONFIG_LIBDIR=/usr/lib/aarch64-linux-gnu/pkgconfig): .libdw libiberty.$" err4
'

test_expect_success 'all there: the check says nothing' '
	(cd "$ROOT" && tools/check-cli-deps.sh libdw zlib) > out3 2>&1 && ! test -s out3
'

test_done
