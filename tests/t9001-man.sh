#!/bin/sh
# t9001-man: the man pages are part of the change (STYLE.md).  Each page passes mandoc's lint
# with nothing at WARNING level or above (STYLE messages, such as source lines over 80 bytes,
# are not failures), renders with a NAME under mandoc and without a warning under groff (what
# man-db's man(1) uses), names its own file in .Dt, and every function that
# include/profil.h exports is documented by some page, under a file name that `make install`
# puts in man3.
. "$(dirname "$0")/lib.sh"
test_needs mandoc:mandoc groff-base:groff
MAN=$ROOT/man

for page in "$MAN"/man[1-9]/*.[1-9]; do
	[ -f "$page" ] || continue
	name=$(basename "$page")
	test_expect_success "$name: mandoc -Tlint finds no warning or error" '
		mandoc -Tlint -W warning "$page" > lint 2>&1
		cat lint
		! test -s lint
	'
	test_expect_success "$name: renders, with a NAME section and its own title" '
		mandoc -Tascii "$page" > out 2> err &&
		! test -s err &&
		sed "s/.$(printf "\\b")//g" out | grep -q "^NAME\$" &&
		title=$(sed -n "s/^\.Dt \([^ ]*\) \([0-9]\).*/\1.\2/p" "$page" | tr "[:upper:]" "[:lower:]") &&
		test "$title" = "$name"
	'
	# man(1) on Debian (man-db) formats with groff, not mandoc.
	test_expect_success "$name: groff -mandoc renders it without a warning" '
		groff -mandoc -Tutf8 -ww -z "$page" > groff.err 2>&1
		cat groff.err
		! test -s groff.err
	'
done

# Every PROFIL_API declaration has a page: .Nm in one of man3, installed as NAME.3 (a file of
# its own, or the link the Makefile's install rule makes).
for fn in $(sed -n 's/^PROFIL_API [^(]*[ *]\([a-z_]*\)(.*/\1/p' "$ROOT/include/profil.h"); do
	test_expect_success "$fn(3) is documented and installed under its name" '
		grep -lx "\.Nm $fn *,\{0,1\}" "$MAN"/man3/*.3 > pages &&
		test -s pages &&
		{ test -f "$MAN/man3/$fn.3" ||
		  grep -q "ln -sf [a-z_]*\.3 .*/man3/$fn\.3" "$ROOT/Makefile"; }
	'
done
test_done
