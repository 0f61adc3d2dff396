#!/bin/sh
# t4020-export-firefox: `profil export --format=firefox` writes a Gecko profile that the Firefox
# Profiler's own importer reads (its npm package @firefox-devtools/profiler-cli bundles the
# profiler's src/profile-logic: the upgraders, process-profile.ts and the call tree), with the
# samples of each thread at their times.  tests/export/gecko.py checks the same file against the
# format's definition field by field and lists its samples.  mktimed writes a profile of known
# times: thread "phases" runs phase_a in the first second and phase_b in the next; thread
# "worker" runs worker_fn, enters the kernel, waits in read(2) and for a CPU (--wall).  A real
# program of two phases and two named threads (tests/progs/phases) is checked the same ways.
. "$(dirname "$0")/lib.sh"
test_needs npm:npm nodejs:node python3:python3

P=$B/profil
FF_VERSION=0.10.0
NPM_DIR=$B/tests/npm
FF=$NPM_DIR/node_modules/@firefox-devtools/profiler-cli
if ! grep -q "\"version\": \"$FF_VERSION\"" "$FF/package.json" 2> /dev/null; then
	mkdir -p "$NPM_DIR" &&
	npm install --no-audit --no-fund --silent --prefix "$NPM_DIR" \
		"@firefox-devtools/profiler-cli@$FF_VERSION" > npm.log 2>&1 ||
		{ sed 's/^/# /' npm.log; echo "not ok - npm installed the Firefox Profiler's CLI"; }
fi
# Its daemon keeps a session per loaded profile: here, in the trash directory; nothing is
# symbolicated (the frames are named), so nothing is asked of the network.
export PROFILER_CLI_SESSION_DIR="$TRASH/sessions" PROFILER_CLI_NO_SYMBOLICATE=1
mkdir -p "$PROFILER_CLI_SESSION_DIR"
ff() {
	node "$FF/dist/profiler-cli.js" "$@"
}
# ff_load FILE: the importer's daemon loads FILE as the current session, started here rather
# than by `profiler-cli load`, which gives it 500 ms to start, too few on a busy machine.  Its
# log says whether the profile loaded (or why not: shown).  ff_stop ends it.
ff_session=0
ff_load() {
	ff_session=$((ff_session + 1))
	ff_log=$PROFILER_CLI_SESSION_DIR/s$ff_session.log
	node "$FF/dist/profiler-cli.js" --daemon "$TRASH/$1" --session "s$ff_session" \
		> /dev/null 2>&1 &
	ff_pid=$!
	i=0
	while [ $i -lt 600 ] && ! grep -q "Profile loaded successfully\|Failed to load" \
		"$ff_log" 2> /dev/null; do
		sleep 0.1
		i=$((i + 1))
	done
	grep -q "Profile loaded successfully" "$ff_log" 2> /dev/null ||
		{ grep "ERROR" "$ff_log" 2> /dev/null; false; }
}
ff_pid=
ff_stop() {
	[ -n "$ff_pid" ] || return 0
	ff stop "s$ff_session" > /dev/null 2>&1
	kill "$ff_pid" 2> /dev/null
	wait "$ff_pid" 2> /dev/null
	ff_pid=
}
trap 'ff_stop; rm -rf "$TRASH"' EXIT
# ff_self RANGE THREAD: "function self-samples" lines of THREAD in RANGE (seconds, "" for all).
ff_self() {
	{ [ -z "$1" ] || ff zoom push "$1" > /dev/null; } &&
	ff thread samples --thread "$2" --include-idle --limit 0 --json > self.json &&
	{ [ -z "$1" ] || ff zoom pop > /dev/null; } &&
	python3 -c 'import json, sys
for f in json.load(open("self.json"))["topFunctionsBySelf"]:
    if f["selfSamples"]:
        print(f["name"], f["selfSamples"])' | sort
}

"$B/tests/report/mktimed" m.profil || echo "not ok - mktimed wrote a profile"
pid=$("$P" dump m.profil | sed -n 's/^header .* pid=\([0-9]*\) .*/\1/p')

test_expect_success 'JSON and gzip: the same profile, the format checked field by field' '
	"$P" export --format=firefox -o m.json m.profil &&
	"$P" export -f firefox -o m.json.gz m.profil &&
	gzip -t m.json.gz && gzip -dc m.json.gz | cmp - m.json &&
	python3 "$TEST_DIR/export/gecko.py" m.json.gz m.samples
'
# Each tick one sample (the format has no weight), in its thread, its category the leaf's.
cat > want.counts << EOF
1000 phases User run_main (in mktimed);phase_a (in mktimed)
1004 phases User run_main (in mktimed);phase_b (in mktimed)
7 phases User [no time recorded];run_main (in mktimed);phase_a (in mktimed)
6 phases User [no time recorded];run_main (in mktimed);phase_b (in mktimed)
600 worker User worker_main (in mktimed);worker_fn (in mktimed)
50 worker Kernel worker_main (in mktimed);do_syscall_64 (in [kernel])
200 worker Idle worker_main (in mktimed);[wait: read, sleeping]
30 worker Idle worker_main (in mktimed);[wait: CPU, runnable]
EOF
test_expect_success 'one sample a tick, frames named as profil report names them, wait and kernel' '
	awk -F "\t" "{ n[\$1 \" \" \$4 \" \" \$5]++ } END { for (k in n) print n[k], k }" \
		m.samples | sort > got.counts &&
	sort want.counts | diff - got.counts
'
test_expect_success 'each thread in time order: phase A in the first second, phase B after' '
	awk -F "\t" "\$1 == \"phases\" && \$5 !~ /^\\[no time/ {
		if (\$5 ~ /phase_a/ && (\$3 < 0 || \$3 >= 1000)) bad++
		if (\$5 ~ /phase_b/ && (\$3 < 1000 || \$3 >= 2000)) bad++ }
		\$5 ~ /wait: read/ && (\$3 < 1800 || \$3 >= 2000) { bad++ }
		\$5 ~ /wait: CPU/ && (\$3 < 1700 || \$3 >= 1730) { bad++ }
		END { exit bad > 0 }" m.samples
'
test_expect_success 'the ticks of one slot spread over it: 5 at 1500.1, .3, .5, .7 and .9 ms' '
	awk -F "\t" "\$1 == \"phases\" && \$3 >= 1500 && \$3 < 1501 { print \$3 }" m.samples \
		> slot.times &&
	printf "%s\n" 1500.100000 1500.300000 1500.500000 1500.700000 1500.900000 |
		diff - slot.times
'
test_expect_success 'ticks without a time: at the start, under [no time recorded]' '
	awk -F "\t" "\$5 ~ /^\\[no time recorded\\]/ && \$3 != 0 { bad++ }
		END { exit bad > 0 }" m.samples
'
# 7 of phase A and 6 of phase B in one place in time: interleaved in proportion, a b a b ... a,
# not 7 then 6 (which would draw phase B after phase A where the file says no such thing).
test_expect_success 'the stacks of one slot interleaved in proportion, not one after another' '
	awk -F "\t" "\$5 ~ /^\\[no time recorded\\]/ { sub(/.*;/, \"\", \$5); sub(/ .*/, \"\", \$5)
		printf \"%s \", \$5 } END { print \"\" }" m.samples > untimed.order &&
	echo "phase_a phase_b phase_a phase_b phase_a phase_b phase_a phase_b phase_a phase_b" \
		"phase_a phase_b phase_a " | diff - untimed.order
'

# The Firefox Profiler's own importer: it loads the file, its threads and samples are ours,
# and its time ranges select the phases.
# (The daemon is started by this shell, not by a check's subshell, so that it can be stopped.)
python3 -c 'import json
p = json.load(open("m.json"))
del p["threads"][0]["samples"]["schema"]["responsiveness"]
json.dump(p, open("bad.json", "w"))'
ff_load bad.json > bad.err
ff_stop
test_expect_success "the importer refuses what the format does not allow (it checks)" '
	grep -q "expected an eventDelay or responsiveness array" bad.err
'
ff_load m.json.gz > load.err
loaded=$?
test_expect_success "the Firefox Profiler's importer loads it" '
	test $loaded = 0 || { cat load.err; false; }
'
test_expect_success 'its threads: phases and worker, of the process, with their tids' '
	ff thread list --json > threads.json &&
	python3 -c "import json
for t in json.load(open(\"threads.json\"))[\"threads\"]:
    print(t[\"name\"], t[\"processName\"], t[\"pid\"], int(t[\"tid\"]) - $pid)" | sort > got &&
	printf "%s\n" "phases mktimed $pid 0" "worker mktimed $pid 1" | diff - got
'
test_expect_success 'its call tree: every sample of each function, and the waits as Idle' '
	ff_self "" t-0 > got &&
	printf "%s\n" "mktimed!phase_a 1007" "mktimed!phase_b 1010" | diff - got &&
	ff_self "" t-1 > got &&
	printf "%s\n" "[kernel]!do_syscall_64 50" "[wait: CPU, runnable] 30" \
		"[wait: read, sleeping] 200" "mktimed!worker_fn 600" | diff - got &&
	python3 -c "import json
for c in json.load(open(\"self.json\"))[\"categoryBreakdown\"][\"categories\"]:
    print(c[\"name\"], c[\"samples\"])
    for s in c[\"subcategories\"]:
        print(c[\"name\"] + \"/\" + s[\"name\"], s[\"samples\"])" | sort > got &&
	printf "%s\n" "Idle 230" "Idle/Waiting 200" "Idle/Waiting for a CPU 30" "Kernel 50" \
		"User 600" | diff - got
'
# Its ranges are in seconds from the profile's start: [0, 0.999] holds phase A's first 999
# ticks and the 13 without a time (at 0); [1.001, 2] phase B's last 999 and the 4 of slot 1500.
test_expect_success 'its time ranges: the first second is phase A, the next phase B' '
	ff_self 0,0.999 t-0 > got &&
	printf "%s\n" "mktimed!phase_a 1006" "mktimed!phase_b 6" | diff - got &&
	ff_self 1.001,2 t-0 > got &&
	printf "%s\n" "mktimed!phase_b 1003" | diff - got
'
ff_stop

# A recording without TIME records: said on stderr, its samples at its start under a root of
# their own, so a timeline never shows times that were not recorded.
cp "$B/tests/report/libplugin.so" gone.so
"$B/tests/report/mkprofile" one.profil "$B/tests/report/libplugin.so" gone.so > /dev/null ||
	echo "not ok - mkprofile wrote a profile"
"$P" export -f firefox -o one.json one.profil 2> one.err
ff_load one.json > load.err
loaded=$?
ff_stop
test_expect_success 'no times recorded: a warning, every sample at 0 under [no time recorded]' '
	test $loaded = 0 && err=one.err &&
	grep -q "^profil: warning: no sample times in this recording: .*: '\''one.profil'\''$" $err &&
	python3 "$TEST_DIR/export/gecko.py" one.json one.samples &&
	test "$(wc -l < one.samples)" = 1005 &&
	awk -F "\t" "\$3 != 0 || \$5 !~ /^\\[no time recorded\\];/ { bad++ } END { exit bad > 0 }" \
		one.samples
'
test_expect_success 'more ticks than the format can hold one by one: refused, no file' '
	python3 "$TEST_DIR/export/synth.py" mapping big.profil /bin/true 50000001 &&
	! "$P" export -f firefox -o big.json big.profil 2> err &&
	grep -q "^profil: 50000001 samples: .* one entry per sample" err && ! test -e big.json
'
test_expect_success 'no samples: refused (the importer opens no profile without threads)' '
	python3 "$TEST_DIR/export/synth.py" empty empty.profil &&
	! "$P" export -f firefox -o empty.json empty.profil 2> err &&
	grep -q "^profil: no samples: .*'\''empty.json'\''$" err && ! test -e empty.json
'
test_expect_success 'a symbolic link as the output is refused (src/export/output.c)' '
	echo keep > target && ln -s target link &&
	! "$P" export -f firefox -o link m.profil 2> err &&
	test "$(cat target)" = keep && grep -q "symbolic link" err
'

# A real -g recording of a program with named threads.
"$P" record -F 1000 -g -o rec -- "$PROGS/callers" 0.3 > /dev/null 2>&1 ||
	echo "not ok - profil record ran callers"
"$P" export -f firefox -o rec.json.gz rec 2> /dev/null
ff_load rec.json.gz > load.err
loaded=$?
ff_stop
test_expect_success 'a -g recording: checked, and loaded by the importer' '
	test $loaded = 0 || { cat load.err; false; } &&
	python3 "$TEST_DIR/export/gecko.py" rec.json.gz rec.samples && test -s rec.samples
'

# Each process a process, by pid: a shell and the two programs it runs.
"$P" record -F 1000 -g -o fk -- sh -c '"$0" 0.2 & "$0" 0.2; wait' "$PROGS/callers" \
	> /dev/null 2>&1 || echo "not ok - profil record ran sh and two callers"
"$P" export -f firefox -o fk.json fk 2> /dev/null
ff_load fk.json > load.err
loaded=$?
ff profile info --json > info.json 2> /dev/null
ff_stop
# (sh may take no sample: the processes expected are those of the files with samples.  A
# forked shell that execs callers leaves two files of one pid: when both have samples, the
# later is "pid.1", below.)
for f in fk/*.profil; do
	"$P" dump "$f" | grep -q "^sample " &&
		"$P" dump "$f" |
		sed -n "s/^header .* pid=\([0-9]*\) .*start_ns=\([0-9]*\) .*/\1 \2/p"
done | sort -k1,1n -k2,2n | awk '{ print $1 (n[$1]++ ? "." n[$1] - 1 : "") }' |
	LC_ALL=C sort > want.pids
test_expect_success 'each process recorded a process in the importer, by its pid' '
	test $loaded = 0 && test "$(wc -l < want.pids)" -ge 2 &&
	python3 -c "import json
i = json.load(open(\"info.json\"))
print(i[\"processCount\"])
print(\"\\n\".join(sorted(str(p[\"pid\"]) for p in i[\"processes\"])))" > got &&
	{ wc -l < want.pids && cat want.pids; } | diff - got
'

# An image that execs another keeps its pid: two files of one pid, which the importer would
# make one process (it groups threads by the pid as a string); the later image's pid is
# "pid.1", a process of its own.
"$P" record -o fe -- "$B/tests/record/forkexec" 0.2 "$B/tests/record/exits" exit 0.2 > fe.out \
	2>&1
child=$(sed -n "s/^child \([0-9]*\) .*/\1/p" fe.out)
"$P" export -f firefox -o fe.json fe 2> /dev/null
ff_load fe.json > load.err
loaded=$?
ff profile info --json > info.json 2> /dev/null
ff_stop
test_expect_success 'an exec: each image of the pid a process of its own in the importer' '
	test $loaded = 0 && test -n "$child" && test -e "fe/exits.$child.profil" &&
	python3 "$TEST_DIR/export/gecko.py" fe.json fe.samples &&
	python3 -c "import json
i = json.load(open(\"info.json\"))
print(i[\"processCount\"])
print(\"\\n\".join(sorted(str(p[\"pid\"]) for p in i[\"processes\"])))" > got &&
	{ echo 3 && printf "%s\n" "$child" "$child.1" \
		"$(ls fe | sed -n "s/^forkexec\.\([0-9]*\)\.profil$/\1/p" | grep -v "^$child$")" |
		LC_ALL=C sort; } | diff - got
'

# tests/progs/phases 0.3 2: thread a-then-b runs phase_a, then phase_b; b-then-a the other way
# round, at the same time; each prints when it switched.  The recorders time every tick, so
# each thread's samples are in its own order, in the file and in the importer's time ranges.
if [ -x "$PROGS/phases" ]; then
	"$P" record -F 1000 -g -o ph -- "$PROGS/phases" 0.3 2 > ph.out 2> /dev/null ||
		echo "not ok - profil record ran phases"
	slot=$("$P" dump ph/*.profil | awk '/^time / { print $2; exit }')
	"$P" export -f firefox -o ph.json ph 2> /dev/null
	test_expect_success 'phases: each thread in its own order, a slot apart at most' '
		test -n "$slot" &&
		python3 "$TEST_DIR/export/gecko.py" ph.json ph.samples &&
		python3 "$TEST_DIR/export/timeorder.py" ph.json ph.out "$slot" ph.samples > order &&
		awk "\$2 < 50 || \$3 < 50 { exit 1 }" order
	'
	ff_load ph.json > load.err
	loaded=$?
	ff thread list --json > threads.json 2> /dev/null
	# ph_range THREAD FIRST|SECOND: the self samples of THREAD's phases in the time range
	# before its switch (less a slot) or after it (plus one), in the importer.
	ph_range() {
		python3 -c "import json, sys
th = [t[\"threadHandle\"] for t in json.load(open(\"threads.json\"))[\"threads\"]
    if t[\"name\"] == sys.argv[1]]
sw = [float(l.split()[3]) for l in open(\"order\") if l.split()[0] == sys.argv[1]]
slot = float(sys.argv[3]) / 1e9
lo, hi = (0, sw[0] / 1e3 - slot) if sys.argv[2] == \"first\" else (sw[0] / 1e3 + slot, 1e6)
print(th[0], \"%.6f,%.6f\" % (lo, hi))" "$@"
	}
	for th in a-then-b b-then-a; do
		set -- $(ph_range $th first "$slot" 2> /dev/null) "" ""
		ff_self "$2" "$1" > $th.first 2> /dev/null
		set -- $(ph_range $th second "$slot" 2> /dev/null) "" ""
		ff_self "$2" "$1" > $th.second 2> /dev/null
	done
	ff_stop
	test_expect_success "phases in the importer: a thread's first phase alone before its switch" '
		test $loaded = 0 || { cat load.err; false; } &&
		grep -q "!phase_a " a-then-b.first && ! grep -q "!phase_b " a-then-b.first &&
		grep -q "!phase_b " a-then-b.second && ! grep -q "!phase_a " a-then-b.second &&
		grep -q "!phase_b " b-then-a.first && ! grep -q "!phase_a " b-then-a.first &&
		grep -q "!phase_a " b-then-a.second && ! grep -q "!phase_b " b-then-a.second
	'
else
	echo "ok - skipped: phases in time order, no tests/progs/phases (the recorders' branch)"
fi
test_done
