#!/bin/sh
# The outside recorder (issue 8): profil opens perf events on the command before it execs and
# reads the kernel's records, so nothing is loaded into the program.  Every process and thread
# the kernel runs is followed: static programs, Go, raw clone(2), the dynamic loader's start-up;
# and a running process can be attached to and left running.
. "$(dirname "$0")/lib.sh"
. "$TEST_DIR/lib-record.sh"
test_needs linux-perf:perf golang-go:go util-linux:setpriv

if ! "$PROFIL" record --clock outside -o probe -- true 2> probe.err; then
	cat probe.err
	echo "ok - skipped: perf events refused here (the fallback is t2008's)"
	test_done
fi

# tsv_samples TSV FUNCTION: samples of FUNCTION in `profil report --tsv` (column 6, name 7).
tsv_samples() {
	report_samples "$1" "$2"
}

# The issue's shell loop: sh closes and re-opens fd 1 for every redirection, which raced the
# inside recorder's thread.  From outside there is no descriptor of ours in the program.
test_expect_success 'a shell loop writing files: every output intact, no stray file' '
	mkdir o &&
	"$PROFIL" record -o loop -- sh -c "for i in \$(seq 200); do echo \$i | sha256sum > o/\$i;
		done" &&
	bad=0 && for i in $(seq 200); do
		test "$(cat o/$i)" = "$(echo $i | sha256sum)" || bad=$((bad + 1))
	done && echo "$bad bad outputs" && test $bad -eq 0 &&
	test -z "$(ls -A loop | grep -v "\.profil$")" &&
	test "$(ls loop | grep -c "^sha256sum\.")" -ge 1
'

# No library, descriptor, environment variable, signal handler or thread of ours: the program
# sees exactly what it sees unprofiled.
test_expect_success 'nothing of the recorder is in the program' '
	what="ls /proc/self/fd | wc -l; env | grep -c \"^PROFIL\\|^LD_PRELOAD\"; \
		grep -c profil /proc/self/maps; grep \"^Sig[PBIC]\\|^ShdPnd\\|^Threads\" /proc/self/status; \
		ulimit -n"
	sh -c "$what" > alone.txt 2>&1
	"$PROFIL" record -q -o nothing -- sh -c "$what" > under.txt 2>&1
	cat under.txt && diff alone.txt under.txt
'

test_expect_success 'bash honours -o and -F (no environment read by the program)' '
	"$PROFIL" record -F 250 -o bashdir -- bash -c "i=0; while [ \$i -lt 40000 ]; do
		i=\$((i + 1)); done" &&
	! test -e profil.out && ls bashdir/bash.*.profil &&
	for f in bashdir/*.profil; do
		"$PROFIL" dump "$f" > b.dump && test "$(dump_field b.dump requested_hz)" = 250 ||
			return 1
	done
'

# A static program: no dynamic loader, nothing could have been preloaded.
cat > static.c <<'EOF'
static volatile double x;
__attribute__((noinline)) void static_a(long n) { for (long i = 0; i < n; i++) x += i * 0.5; }
__attribute__((noinline)) void static_b(long n) { for (long i = 0; i < n; i++) x += i * 0.5; }
int main(void) { static_a(150000000); static_b(50000000); return 3; }
EOF
test_expect_success 'a static C program: recorded, its split 3:1, its status kept' '
	cc -O1 -static -o static static.c &&
	"$PROFIL" record -o st -- ./static; rc=$? && echo "status $rc" && test $rc -eq 3 &&
	"$PROFIL" report --tsv st > st.tsv && a=$(tsv_samples st.tsv static_a) &&
	b=$(tsv_samples st.tsv static_b) && share_ok "$a" $((a + b)) 0.75 2 &&
	"$PROFIL" dump st/*.profil > st.dump && test "$(dump_field st.dump code)" = 3
'

# Go: statically linked, exits through exit_group directly, takes every signal.  Run by a shell,
# so its end is known only from the kernel's exit record: exit, not running.
cat > g.go <<'EOF'
package main

import "os"

var x float64

//go:noinline
func workA(n int) { for i := 0; i < n; i++ { x += float64(i) * 0.5 } }

//go:noinline
func workB(n int) { for i := 0; i < n; i++ { x += float64(i) * 0.5 } }

func main() { workA(150000000); workB(50000000); os.Exit(4) }
EOF
test_expect_success 'a static Go program: its split, and its exit seen' '
	test -n "${HOME:-}" || export GOCACHE="$TRASH/gocache"
	CGO_ENABLED=0 go build -o gobin g.go &&
	"$PROFIL" record -o go -- sh -c "./gobin; echo \$?" > go.out && cat go.out &&
	test "$(cat go.out)" = 4 &&
	"$PROFIL" report --tsv go > go.tsv && a=$(tsv_samples go.tsv main.workA) &&
	b=$(tsv_samples go.tsv main.workB) && share_ok "$a" $((a + b)) 0.75 2 &&
	"$PROFIL" dump go/gobin.*.profil > go.dump &&
	test "$(dump_field go.dump exit)" = exit
'

test_expect_success 'threads and processes made by raw clone(2): each a third' '
	"$PROFIL" record -o rc -- "$REC/rawclone" 0.4 > rc.out && grep -x done rc.out &&
	test "$(ls rc/rawclone.*.profil | wc -l)" -eq 2 &&
	"$PROFIL" report --tsv rc > rc.tsv && m=$(tsv_samples rc.tsv main_work) &&
	t=$(tsv_samples rc.tsv clone_thread_work) && p=$(tsv_samples rc.tsv clone_proc_work) &&
	n=$((m + t + p)) && share_ok $m $n 0.3333 2 && share_ok $t $n 0.3333 2 &&
	share_ok $p $n 0.3333 2
'

# Start-up in the dynamic loader: a loop of short processes spends most of its time there, as
# perf, recording the same run inside profil, shows.  The bound comes from the samples both took,
# whatever a busy machine left of them (a loaded run once gave profil 3 in ld.so of 4, perf 1 of
# 2: the same shares, too few for a fixed minimum); ld.so must be sampled at all.  perf samples
# user space alone (cpu-clock:u), so profil does too (--user-only).
test_expect_success 'the dynamic loader'"'"'s start-up is sampled, as perf sees it' '
	"$PROFIL" record --user-only -o ld -- perf record -q -e cpu-clock:u -c 1000000 -o ld.data -- \
		sh -c "for i in \$(seq 1500); do sha256sum /dev/null; done" > /dev/null 2> ld.err &&
	{ head -n 5 ld.err; ls ld | sed -n "s/\.[0-9]*\.profil$//p" | sort | uniq -c; } &&
	rm -f ld/perf.*.profil && "$PROFIL" report --tsv ld > ld.tsv &&
	ours=$(awk -F "\t" "NR > 1 { n += \$6; if (\$8 ~ /^ld-linux/) l += \$6 }
		END { print l + 0, n + 0 }" ld.tsv) &&
	theirs=$(perf report -i ld.data --stdio --sort dso -F sample,dso 2> /dev/null |
		awk "/^ *[0-9]/ { n += \$1; if (\$2 ~ /^ld-linux/) l += \$1 } END { print l + 0, n + 0 }") &&
	echo "ld.so: profil $ours, perf $theirs" &&
	set -- $ours $theirs &&
	awk -v a=$1 -v n=$2 -v b=$3 -v m=$4 "BEGIN {
		if (n < 1 || m < 1) exit 1
		p = a / n; q = b / m; r = (a + b) / (n + m)
		bound = 5 * sqrt(r * (1 - r) * (1 / n + 1 / m)) + 2 / n
		d = p - q; if (d < 0) d = -d
		printf \"profil %.3f of %d, perf %.3f of %d, bound %.3f\\n\", p, n, q, m, bound
		exit !(d <= bound && a >= 1) }"
'

# -p: attached to a running program, then detached on SIGINT; the program runs on and ends as it
# would have.  A second attachment lasts until the program exits.
test_expect_success '-p attaches and, on SIGINT, detaches: the program runs on unharmed' '
	"$REC/threads" 3.0 | grep -v "^cpu " | sort > alone.sorted
	"$REC/threads" 3.0 > att.out & pid=$!
	sleep 0.3 &&
	"$PROFIL" record -q -o att -p $pid 2> att.err & rec=$!
	sleep 1.5 && kill -INT $rec && wait $rec; rc=$? && echo "recorder $rc" && test $rc -eq 0 &&
	kill -0 $pid && wait $pid; prc=$? && echo "program $prc" && test $prc -eq 0 &&
	grep -v "^cpu " att.out | sort | diff alone.sorted - && cat att.err && ! test -s att.err &&
	"$PROFIL" dump att/threads.$pid.profil > att.dump &&
	test "$(dump_field att.dump exit)" = running &&
	n=$(dump_total att.dump) && echo "$n samples in 1.5 s of four threads" && test "$n" -ge 200 &&
	"$PROFIL" report --tsv att > att.tsv && test "$(tsv_samples att.tsv thread_work40)" -gt 0
'

test_expect_success '-p lasts until the process exits, and sees its exit' '
	"$REC/exits" exit 0.6 > /dev/null & pid=$!
	sleep 0.1 && "$PROFIL" record -o att2 -p $pid && wait $pid; test $? -eq 7 &&
	"$PROFIL" dump att2/exits.$pid.profil > att2.dump &&
	test "$(dump_field att2.dump exit)" = exit && test "$(dump_total att2.dump)" -ge 100
'

test_expect_success '-p: a process that does not exist, a bad list: clear errors' '
	"$PROFIL" record -o none -p 99999999999 2> none.err; test $? -eq 2 && cat none.err &&
	"$PROFIL" record -o none -p 4194303 2> none2.err; test $? -eq 1 && cat none2.err &&
	grep "^profil: cannot attach (no such process): .4194303.$" none2.err &&
	"$PROFIL" record -p 1,x 2> bad.err; test $? -eq 2 && grep "^profil: -p takes" bad.err &&
	"$PROFIL" record -p 1 -- true 2> both.err; test $? -eq 2
'

if command -v setpriv > /dev/null && [ "$(id -u)" -eq 0 ]; then
	test_expect_success '-p on another user'"'"'s process: permission refused, said' '
		sleep 5 & pid=$!
		chmod 755 "$TRASH" && cp "$PROFIL" ./profil-copy && chmod 755 profil-copy &&
		setpriv --reuid=65534 --regid=65534 --clear-groups ./profil-copy record \
			-o /tmp/profil-t2101-$$ -p $pid 2> perm.err; rc=$?
		kill $pid; rm -rf /tmp/profil-t2101-$$; cat perm.err && test $rc -eq 1 &&
		grep "^profil: cannot attach (cannot open perf events: .*ptrace" perm.err
	'
fi

# An image without samples gets no file, but the files say how many images ran.
test_expect_success 'processes without samples leave no file, and the report counts them' '
	"$PROFIL" record -o many -- sh -c "for i in \$(seq 100); do /bin/true; done" &&
	n=$(ls many | wc -l) && "$PROFIL" report many > many.txt 2> /dev/null &&
	head -n 1 many.txt && ran=$(sed -n "1s/.*(\([0-9]*\) ran, the others took no sample).*/\1/p" many.txt) &&
	echo "$n files, $ran ran" && test "$ran" -ge 200 && test "$n" -lt "$ran"
'

test_done
