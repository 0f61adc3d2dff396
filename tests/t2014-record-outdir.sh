#!/bin/sh
# The default output directory ./profil.out is not followed through a symbolic link, nor used
# if another user owns it: in a shared directory (/tmp) another user could plant either and
# collect the profiles, which name every mapped file.  An explicit PROFIL_RECORD_DIR (-o) is
# the user's own choice and may be a link.
. "$(dirname "$0")/lib.sh"
. "$TEST_DIR/lib-record.sh"

test_expect_success 'a symbolic link planted as ./profil.out: refused, one line, program unharmed' '
	mkdir elsewhere && ln -s elsewhere profil.out &&
	LD_PRELOAD=$B/libprofil-record.so "$REC/exits" exit 0.05 > /dev/null 2> l.err
	rc=$? && cat l.err && test $rc -eq 7 && test $(wc -l < l.err) -eq 1 &&
	grep "^profil: recorder disabled: cannot create output directory: .*profil.out" l.err &&
	! ls -A elsewhere | grep .
'

test_expect_success 'an explicit PROFIL_RECORD_DIR through a link is followed' '
	mkdir real && ln -s real link &&
	LD_PRELOAD=$B/libprofil-record.so PROFIL_RECORD_DIR=link "$REC/exits" exit 0.05 \
		> /dev/null 2> e.err; test $? -eq 7 && ! test -s e.err && ls real/exits.*.profil
'

if [ "$(id -u)" = 0 ] && id nobody > /dev/null 2>&1; then
	test_expect_success 'a ./profil.out owned by another user: refused' '
		mkdir other && cd other && mkdir profil.out && chown nobody profil.out &&
		LD_PRELOAD=$B/libprofil-record.so "$REC/exits" exit 0.05 > /dev/null 2> o.err
		rc=$? && cat o.err && test $rc -eq 7 &&
		grep "^profil: recorder disabled: cannot create output directory" o.err &&
		! ls -A profil.out | grep .
	'
fi

# The warning says why: the output directory removed under a running shell, which then execs.
# The shell's own recorder may be creating its file in the directory while rm empties it (its
# thread starts late on a busy machine): rm then fails, and is run again until the directory
# is gone.  It waits for the directory first (a while at most): removed before the recorder
# made it, it would be made afterwards, and nothing would fail.
test_expect_success 'a profile that cannot be created: the warning carries the errno text' '
	LD_PRELOAD=$B/libprofil-record.so PROFIL_RECORD_DIR=gone \
		sh -c "i=0; until [ -d gone ] || [ \$i -ge 200000 ]; do i=\$((i + 1)); done
			until rm -rf gone 2> /dev/null; do :; done
			exec \"$REC/exits\" exit 0.05" > /dev/null 2> g.err
	rc=$? && cat g.err && test $rc -eq 7 &&
	grep "^profil: cannot create profile: .*gone/\.sh\.[0-9.]*tmp.: No such file or dir" \
		g.err
'

test_done
