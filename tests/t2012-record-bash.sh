#!/bin/sh
# bash honours every setting.  Issue 8: "bash exports its own getenv/setenv, and the recorder's
# constructor runs before bash's main, so every bash process writes to ./profil.out/ of its own
# working directory at 1000 Hz."  The recorder reads and writes the C library's environ array.
. "$(dirname "$0")/lib.sh"
. "$TEST_DIR/lib-record.sh"

if ! command -v bash > /dev/null; then
	echo "ok - bash honours the settings # SKIP no bash here"
	test_done
fi
cat > spin.sh <<'SPIN'
i=0; while [ $i -lt 200000 ]; do i=$((i + 1)); done
SPIN
cat > nested.sh <<'NESTED'
cd sub && bash "$1/spin.sh"
NESTED
cat > starts.sh <<'STARTS'
. "$1/spin.sh"; bash "$1/spin.sh"; sh "$1/spin.sh"; true
STARTS

test_expect_success 'LD_PRELOAD: PROFIL_RECORD_DIR and PROFIL_RECORD_HZ reach bash itself' '
	LD_PRELOAD=$B/libprofil-record.so PROFIL_RECORD_DIR=d PROFIL_RECORD_HZ=250 \
		PROFIL_RECORD_CLOCK=timer bash spin.sh &&
	! test -e profil.out && ls d/bash.*.profil &&
	"$PROFIL" dump d/bash.*.profil > d.dump &&
	test "$(dump_field d.dump requested_hz)" = 250 && test "$(dump_field d.dump clock)" = timer
'

test_expect_success '... and a bash child that changes directory writes there too' '
	mkdir sub && LD_PRELOAD=$B/libprofil-record.so PROFIL_RECORD_DIR=c bash nested.sh "$PWD" &&
	! test -e sub/profil.out && ! test -e sub/c && test $(ls c/bash.*.profil | wc -l) -ge 2
'

test_expect_success 'profil record -o -F --clock: bash honours all three' '
	"$PROFIL" record -o r -F 300 --clock timer -- bash spin.sh &&
	! test -e profil.out && "$PROFIL" dump r/bash.*.profil > r.dump &&
	test "$(dump_field r.dump requested_hz)" = 300 && test "$(dump_field r.dump clock)" = timer
'

# -x marks the first image with PROFIL_RECORD_ACTIVE; bash passes on only what its main() found.
# The first bash spins itself (sourcing spin.sh), so that it has samples of its own: from
# outside, an image without samples gets no file.
for clock in outside timer; do
	test_expect_success "profil record -x ($clock): bash records, the programs it starts do not" '
		rm -rf x && "$PROFIL" record -x --clock $clock -o x -- bash starts.sh "$PWD" &&
		ls x && ls x/bash.*.profil && ! ls x | grep -v "^bash\.[0-9]*\.profil$"
	'
done

test_done
