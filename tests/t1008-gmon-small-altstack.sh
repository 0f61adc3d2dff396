#!/bin/sh
# The -pg runtime's ticks never land on a program's small alternate signal stack.  Issue 23:
# "a program on a 2048- or 3072-byte sigaltstack ... dies of SIGSEGV ... under the -pg runtime".
. "$(dirname "$0")/lib.sh"
. "$TEST_DIR/pg/gmon.sh"

for size in 2048 3072; do
	for hz in 100 1000; do
		test_expect_success "$size-byte alternate stacks, -pg at $hz Hz: status 0, histogram" '
			mkdir -p d$size$hz && (cd d$size$hz && PROFIL_HZ=$hz \
				"$PG/smallalt" $size 0.5 2 > out 2> err)
			rc=$? && echo "status $rc" && cat d$size$hz/out d$size$hz/err &&
			test $rc -eq 0 && grep -x done d$size$hz/out &&
			f=$(gmon_file d$size$hz) && test -n "$f" &&
			gprof -b -p "$PG/smallalt" "$f" | grep -w small_work
		'
	done
done

test_expect_success '-pg: a stack overflow still reaches the program handler, status 7' '
	mkdir over && (cd over && "$PG/smallalt" overflow > out)
	rc=$? && echo "status $rc" && test $rc -eq 7 && grep -x caught over/out
'

test_done
