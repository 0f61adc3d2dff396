#!/bin/sh
# -g records call stacks by walking frame pointers; "a frame-pointer walk that can never fault
# (every read validated against the thread's stack bounds); without frame pointers the stacks
# are short, not wrong".
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

test_expect_success 'the header says stacks were recorded' '
	test $(( $(dump_field g.dump flags) & 1 )) -eq 1 && test "$(dump_field g.dump max_depth)" -gt 1
'

test_expect_success 'samples in main_work50 have main as their caller' '
	set -- $(sym_range "$REC/split" main_work50) && w0=$1 w1=$2 &&
	set -- $(sym_range "$REC/split" main) && m0=$1 m1=$2 &&
	total=0 good=0 &&
	grep "^sample" g.dump | while read -r _ count _ _ leaf caller _; do
		case $leaf in *"=$REC/split+"*) ;; *) continue ;; esac
		off=$((${leaf##*+}))
		[ $off -ge $w0 ] && [ $off -lt $w1 ] || continue
		c=-1
		case $caller in *"=$REC/split+"*) c=$((${caller##*+})) ;; esac
		total=$((total + count))
		[ $c -gt $m0 ] && [ $c -le $m1 ] && good=$((good + count))
		echo "$total $good"
	done | tail -n 1 > counts &&
	read -r total good < counts && echo "$good of $total have main as caller" &&
	test "$total" -ge 200 && test $((good * 100)) -ge $((total * 95))
'

test_expect_success 'stacks reach the libc start routine (deep, not just leaf+1)' '
	awk "\$1 == \"sample\" && NF >= 7" g.dump | grep -q "libc.so.6+"
'

test_expect_success 'without -g every sample is the pc alone' '
	"$PROFIL" record -o flat -- "$REC/split" 0.2 "$PLUGIN" > /dev/null &&
	"$PROFIL" dump flat/*.profil > flat.dump &&
	test "$(awk "\$1 == \"sample\" && NF != 5" flat.dump | wc -l)" -eq 0 &&
	test $(( $(dump_field flat.dump flags) & 1 )) -eq 0
'

test_expect_success 'hostile frame pointers (null, odd, unmapped, heap, cycles) never fault' '
	for clock in perf timer; do
		"$PROFIL" record -g --clock $clock -F 10000 -o bad$clock -- \
			"$REC/badfp" 60000000 > bad.out || return 1
		grep survived bad.out && "$PROFIL" dump bad$clock/*.profil > bad.dump &&
		test "$(dump_total bad.dump)" -gt 50 || return 1
	done
'

test_done
