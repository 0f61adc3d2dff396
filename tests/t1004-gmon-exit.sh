#!/bin/sh
# The profile survives every way a process ends, because the buffer is a shared mapping of the
# file (OpenBSD profil(2): "the kernel writes out the profiling information on behalf of the
# terminating process"), and a fatal signal still ends the process with the same status.
. "$(dirname "$0")/lib.sh"
test_needs binutils:gprof
. "$TEST_DIR/pg/gmon.sh"

# run DIR END: gmon-work END in DIR; prints the shell's status for it.
run() {
	mkdir "$1" && (cd "$1" && exec "$PG/gmon-work" "$2") > "$1.out" 2>&1
	echo $?
}

# A profile with the 1000 calls and the 100 ms in spin_a that gmon-work makes before it ends:
# the calls exactly, and spin_a in the histogram.  100 ms of CPU is ten ticks at 100 Hz on an
# idle machine; beside two CPU burners a CPU timer's expirations coalesce and as few as four
# were seen, so the histogram is asked to hold spin_a, not a share of it.
whole() {
	f=$(gmon_file "$1") && test -n "$f" &&
	test "$(gmon_calls "$PG/gmon-work" "$f" counted)" = 1000 &&
	gprof -b -p "$PG/gmon-work" "$f" | awk '$NF == "spin_a" && $3 > 0 { ok = 1 } END { exit !ok }'
}

rc=$(run exit exit)
test_expect_success 'exit: status 0, the whole profile' 'test $rc -eq 0 && whole exit'
rc=$(run _exit _exit)
test_expect_success '_exit(3): status 3, the whole profile (glibc writes nothing)' '
	test $rc -eq 3 && whole _exit
'
rc=$(run segv segv)
test_expect_success 'SIGSEGV: the process dies of it (status 139), the whole profile' '
	test $rc -eq 139 && whole segv
'
rc=$(run abort abort)
test_expect_success 'SIGABRT: the process dies of it (status 134), the whole profile' '
	test $rc -eq 134 && whole abort
'
rc=$(run kill kill)
test_expect_success 'SIGKILL, which nothing can catch: status 137, the whole profile' '
	test $rc -eq 137 && whole kill
'

# Under a seccomp filter no file can be opened at exit; the shared mapping needs none.
rc=$(run seccomp seccomp)
test_expect_success 'seccomp strict mode, then a forbidden call: killed (137), the whole profile' '
	test $rc -eq 137 && whole seccomp &&
	test "$(gmon_calls "$PG/gmon-work" "$(gmon_file seccomp)" spin_b)" = 400 &&
	gprof -b -p "$PG/gmon-work" "$(gmon_file seccomp)" |
	    awk "\$NF == \"spin_b\" && \$3 > 0 { ok = 1 } END { exit !ok }"
'

# The exit's merge is crash-safe: whatever system call of it the process dies at (a seccomp
# filter kills it there, as SIGKILL or exit_group from another thread could), the name holds a
# whole profile that counts each call once (moncontrol(3)).  Merged in place and cut short, the
# originals behind the merged arcs counted twice.
for call in ftruncate rename openat write mmap munmap; do
	run killat-$call killat-$call > /dev/null
	test_expect_success "killed at $call during the exit merge: each call counted once" '
		cat killat-$call.out; whole killat-$call
	'
done

# "A forked child keeps profiling and writes its own file".
rc=$(run fork fork)
child=$(sed -n 's/^child //p' fork.out)
test_expect_success 'fork: the parent and the child each write their own file' '
	test $rc -eq 0 && test $(ls fork/gmon.gmon-work.*.out | wc -l) = 2 &&
	test -f fork/gmon.gmon-work.$child.out
'
test_expect_success 'the child file has what the child did, and what came before the fork' '
	f=fork/gmon.gmon-work.$child.out &&
	test "$(gmon_calls "$PG/gmon-work" $f child_only)" = 7 &&
	test "$(gmon_calls "$PG/gmon-work" $f counted)" = 1000 &&
	test -z "$(gmon_calls "$PG/gmon-work" $f parent_only)"
'
test_expect_success 'the parent file has none of what the child did' '
	f=$(ls fork/gmon.gmon-work.*.out | grep -v "\.$child\.out") &&
	test "$(gmon_calls "$PG/gmon-work" $f parent_only)" = 5 &&
	test -z "$(gmon_calls "$PG/gmon-work" $f child_only)" && whole_file=$f &&
	gprof -b -p "$PG/gmon-work" $f | awk "\$NF == \"spin_b\" { exit 1 }"
'

# "exec ends profiling cleanly": no tick reaches the new image, the file stays complete.
rc=$(run exec exec)
test_expect_success 'exec: the new image runs to its end (status 0), the profile is whole' '
	test $rc -eq 0 && whole exec
'

# A fork child that execs becomes another program: it leaves no copy of the parent's profile.
rc=$(run forkexec forkexec)
child=$(sed -n 's/^child //p' forkexec.out)
test_expect_success 'fork, then exec in the child: only the parent file remains' '
	test $rc -eq 0 && test -n "$child" && test $(ls forkexec/gmon.gmon-work.*.out | wc -l) = 1 &&
	! test -e forkexec/gmon.gmon-work.$child.out && whole forkexec
'
test_expect_success '... while after an exec that failed, the child had its file back' '
	grep -qx "restored 1" forkexec.out
'

test_done
