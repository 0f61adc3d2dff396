#!/bin/sh
# --call-graph fp records call stacks by walking frame pointers; "a frame-pointer walk that can
# never fault (every read validated against the thread's stack bounds); without frame pointers
# the stacks are short, not wrong".  -g (cfi) is t2103's; the hostile frames here face both.
. "$(dirname "$0")/lib.sh"
. "$TEST_DIR/lib-record.sh"

# sym_range BINARY NAME: "start end" (file offsets) of a function, through its R E segment.
sym_range() {
	delta=$(readelf -lW "$1" | awk '$1 == "LOAD" && $7 == "R" && $8 == "E" { print $3, $2 }')
	set -- "$1" "$2" $delta
	nm -S --defined-only "$1" | awk -v n="$2" '$4 == n { print $1, $2 }' | {
		read -r value size
		echo $((0x$value - $3 + $4)) $((0x$value - $3 + $4 + 0x$size))
	}
}

"$PROFIL" record -g -o g -- "$REC/split" 1.0 "$PLUGIN" > /dev/null
"$PROFIL" dump g/*.profil > g.dump
"$PROFIL" record --call-graph fp --clock ring -o gr -- "$REC/split" 1.0 "$PLUGIN" > /dev/null
"$PROFIL" dump gr/*.profil > gr.dump
"$PROFIL" record --call-graph fp --clock perf -o gs -- "$REC/split" 1.0 "$PLUGIN" > /dev/null
"$PROFIL" dump gs/*.profil > gs.dump

test_expect_success 'the header says stacks were recorded' '
	test $(( $(dump_field g.dump flags) & 1 )) -eq 1 &&
	test "$(dump_field g.dump max_depth)" -gt 1
'

# callers_ok DUMP: samples whose leaf is in main_work50 have main as the next frame (95%).
callers_ok() {
	set -- "$1" $(sym_range "$REC/split" main_work50) $(sym_range "$REC/split" main)
	dump=$1 w0=$2 w1=$3 m0=$4 m1=$5
	grep "^sample" "$dump" | while read -r _ count _ _ leaf caller _; do
		case $leaf in *"=$REC/split+"*) ;; *) continue ;; esac
		off=$((${leaf##*+}))
		[ $off -ge $w0 ] && [ $off -lt $w1 ] || continue
		c=-1
		case $caller in *"=$REC/split+"*) c=$((${caller##*+})) ;; esac
		total=$((${total:-0} + count))
		[ $c -gt $m0 ] && [ $c -le $m1 ] && good=$((${good:-0} + count))
		echo "$total ${good:-0}"
	done | tail -n 1 > counts &&
	read -r total good < counts && echo "$good of $total have main as caller" &&
	test "$total" -ge 200 && test $((good * 100)) -ge $((total * 95))
}

test_expect_success 'kernel call chains (outside): main_work50 is called by main' '
	test "$(dump_field g.dump clock)" = outside && callers_ok g.dump
'

test_expect_success 'kernel call chains (ring clock, inside): main_work50 is called by main' '
	test "$(dump_field gr.dump clock)" = ring && callers_ok gr.dump
'

test_expect_success 'frame-pointer walk in the handler (perf clock): main_work50 called by main' '
	test "$(dump_field gs.dump clock)" = perf && callers_ok gs.dump
'

test_expect_success 'stacks reach the libc start routine (deep, not just leaf+1)' '
	awk "\$1 == \"sample\" && NF >= 7" g.dump | grep -q "libc.so.6+" &&
	awk "\$1 == \"sample\" && NF >= 7" gr.dump | grep -q "libc.so.6+" &&
	awk "\$1 == \"sample\" && NF >= 7" gs.dump | grep -q "libc.so.6+"
'

test_expect_success 'without -g every sample is the pc alone' '
	"$PROFIL" record -o flat -- "$REC/split" 0.2 "$PLUGIN" > /dev/null &&
	"$PROFIL" dump flat/*.profil > flat.dump &&
	test "$(awk "\$1 == \"sample\" && NF != 5" flat.dump | wc -l)" -eq 0 &&
	test $(( $(dump_field flat.dump flags) & 1 )) -eq 0
'

test_expect_success 'hostile frame pointers (null, odd, unmapped, heap, cycles) never fault' '
	for clock in perf timer ring; do for cg in fp cfi; do
		"$PROFIL" record --call-graph $cg --clock $clock -F 10000 -o bad$clock$cg -- \
			"$REC/badfp" 60000000 > bad.out || return 1
		grep survived bad.out && "$PROFIL" dump bad$clock$cg/*.profil > bad.dump &&
		test "$(dump_total bad.dump)" -gt 50 || return 1
	done; done
'

# Threads the program creates start in the recorder's pthread_create wrapper (thread_main, in
# libprofil-record.so; issue 10: "the recorder's own frames never appear in the program's
# stacks").  Every walk from inside, in the handler (timer, perf) or from the ring's copies, by
# frame pointers and by unwind tables, goes through it to start_thread without showing it.
for clock in timer perf ring; do for cg in fp cfi; do
	test_expect_success "threads ($clock clock, $cg): no caller frame of the recorder, stacks reach start_thread" "
		\"\$PROFIL\" record --call-graph $cg --clock $clock -o th$clock$cg -- \"\$REC/threads\" 0.3 \
			> /dev/null &&
		\"\$PROFIL\" dump th$clock$cg/*.profil > th.dump &&
		\"\$PROFIL\" export --format=folded -o th.folded th$clock$cg &&
		test \"\$(dump_field th.dump clock)\" = $clock &&
		awk '\$1 == \"sample\" { for (i = 6; i <= NF; i++) if (\$i ~ /libprofil-record/) bad++ }
			END { print bad + 0, \"caller frames in the recorder\"; exit bad > 0 }' th.dump &&
		awk '\$1 == \"sample\" && \$5 ~ /libprofil-record/ { n += \$2 }
			END { print n + 0, \"samples with their pc in the recorder (its own time, shown)\" }' th.dump &&
		grep -Eq \"^threads;\${TO_THREAD}thread_work40_main;thread_work40\" th.folded &&
		! grep -q 'thread_main;' th.folded
	"
done; done

test_done
