#!/bin/sh
# t3020-report-wall-labels: wall time said as wall time in every header, title and export
# (issue 20, item 4).  A --wall recording's samples of waiting threads (their leaf a wait
# frame) stand for time spent waiting, not CPU time: the SVG title said "N samples, S s of CPU"
# of all of them.  Now the report's header, each process's line, the per-process tables and
# the SVG say the same thing, computed once: "N samples, T seconds of threads' time: C on a
# CPU, W waiting", with C and W the on-CPU and waiting samples the dump holds, each at the
# file's rate.  The pprof export's period is then a period of the wall clock.
. "$(dirname "$0")/lib.sh"
. "$TEST_DIR/lib-record.sh"

W=$REC/waits
# From outside where perf events are allowed; else the in-process recorder's --wall.
if "$PROFIL" record --clock outside -o probe -- true 2> /dev/null; then
	clock=outside
else
	clock=timer
fi

# expect DUMP: the line that the samples of DUMP stand for, from its counts and rate; the
# waits for a CPU (issue 20, item 2) are some of the waiting ones.
expect() {
	awk '$1 == "header" {
		for (i = 2; i <= NF; i++) {
			split($i, kv, "=")
			if (kv[1] == "achieved_hz") hz = kv[2]
			if (kv[1] == "requested_hz") req = kv[2]
		}
	}
	$1 == "sample" { n += $2; if ($5 ~ /^0xffffffffffffe[0-9a-f][0-9a-f][0-9a-f]=/) w += $2
		if ($5 ~ /^0xffffffffffffeffe=/) c += $2 }
	END {
		if (hz + 0 <= 0) hz = req
		printf "%d samples, %.3f seconds of threads\047 time: %.3f on a CPU, %.3f waiting " \
		    "(%.3f for a CPU)\n", n, n / hz, (n - w) / hz, w / hz, c / hz
		printf "%d samples (%d on a CPU, %d waiting, %d of them for a CPU)\n", n, n - w, w, c
	}' "$1"
}

# same GOT WANT: the two lines say the same counts, and seconds within a millisecond (the
# report sums each sample's seconds, awk divides the sums).
same() {
	echo "got:  $1" && echo "want: $2" &&
	printf '%s\n%s\n' "$1" "$2" | awk '{ gsub(/[^0-9.]+/, " "); $0 = $0; line[NR] = $0; n[NR] = NF }
		END {
			split(line[1], a); split(line[2], b)
			if (n[1] != n[2] || n[1] < 3) exit 1
			for (i = 1; i <= n[1]; i++) {
				d = a[i] - b[i]
				if (d < 0) d = -d
				if (d > (b[i] ~ /[.]/ ? 0.0015 : 0)) exit 1
			}
		}'
}

test_expect_success "a --wall recording ($clock clock) with CPU and waiting samples" '
	"$PROFIL" record -q --clock $clock --wall -o wall -- "$W" thirds 0.3 > out.txt &&
	"$PROFIL" dump wall/waits.*.profil > wall.dump &&
	expect wall.dump > want && cat want &&
	grep -q " ([1-9][0-9]* on a CPU, [1-9][0-9]* waiting, [0-9]* of them for a CPU)$" want
'

test_expect_success 'the report header says CPU and waiting seconds as the dump counts them' '
	"$PROFIL" report wall > report.txt 2> /dev/null && head -n 3 report.txt &&
	got=$(sed -n "1s/^Flat profile: 1 process, //p" report.txt) &&
	same "$got" "$(sed -n 1p want)"
'

test_expect_success 'the process line counts the rows beneath it: on a CPU and waiting' '
	got=$(sed -n "2s/^  waits\\[[0-9]*\\]: \\(.*)\\) at .* Hz achieved .*/\\1/p" report.txt) &&
	same "$got" "$(sed -n 2p want)" &&
	"$PROFIL" report --tsv wall 2> /dev/null |
		awk -F "\t" "NR > 1 { n += \$6 } END { print n }" > rows &&
	test "$(cat rows)" = "$(echo "$got" | cut -d " " -f 1)"
'

test_expect_success 'the per-process table and the call graph say the same' '
	"$PROFIL" report --per-process wall > pp.txt 2> /dev/null &&
	got=$(sed -n "s/^waits\\[[0-9]*\\]: \\(.*\\) (wall\\/.*)$/\\1/p" pp.txt) &&
	same "$got" "$(sed -n 1p want)" &&
	"$PROFIL" report --graph wall > graph.txt 2> /dev/null &&
	got=$(sed -n "1s/^Call graph: 1 process, //p" graph.txt) &&
	same "$got" "$(sed -n 1p want)"
'

test_expect_success 'the SVG title says CPU and waiting seconds, never all of it as CPU' '
	"$PROFIL" export -f svg -o wall.svg wall 2> /dev/null &&
	! grep -q "of CPU" wall.svg &&
	got=$(sed -n "s/^<text x=\"[0-9]*\" y=\"[0-9]*\">\\(.* waiting.*\\)\\. Hover.*/\\1/p" wall.svg) &&
	same "$got" "$(sed -n 1p want)"
'

test_expect_success 'the pprof export: a wall-clock period, wall the default type' '
	"$PROFIL" export -f pprof -o wall.pb.gz wall 2> /dev/null &&
	gzip -dc wall.pb.gz > wall.pb &&
	grep -c "wall" wall.pb > /dev/null &&
	if command -v go > /dev/null; then
		go tool pprof -raw wall.pb.gz 2> /dev/null > raw.txt &&
		grep "^PeriodType: wall nanoseconds$" raw.txt
	fi
'

# The CPU time says what it counts (issue 20): user and kernel where the kernel was sampled (as
# root, from outside), or the seconds in the kernel that were not.
CPU_SAID='seconds of (CPU, user and kernel|user CPU; [0-9.]* seconds in the kernel, not sampled|CPU, [0-9.]* of them in the kernel, not sampled there)'
test_expect_success 'without --wall every header still says seconds of CPU' '
	"$PROFIL" record -q --clock $clock -o cpu -- "$W" thirds 0.1 > /dev/null &&
	"$PROFIL" report cpu > cpu.txt 2> /dev/null && head -n 2 cpu.txt &&
	grep -Eq "^Flat profile: 1 process, [0-9]* samples, [0-9.]* $CPU_SAID$" cpu.txt &&
	grep -q "^  waits\\[[0-9]*\\]: [0-9]* samples at [0-9.]* Hz achieved" cpu.txt &&
	"$PROFIL" export -f svg -o cpu.svg cpu 2> /dev/null &&
	grep -Eq "y=\"[0-9]+\">[0-9]* samples, [0-9.]* $CPU_SAID\\. Hover" cpu.svg
'
test_done
