#!/bin/sh
# fork: the child records into its own file; exec: the new image is recorded as a new file
# (the environment carries on), or not at all with -x.  Files are <progname>.<pid>.profil.
. "$(dirname "$0")/lib.sh"
. "$TEST_DIR/lib-record.sh"

"$PROFIL" record -o fe -- "$REC/forkexec" 0.4 "$REC/exits" exit 0.3 > fe.out; echo "status $?"
child=$(sed -n "s/^child \([0-9]*\) .*/\1/p" fe.out)

test_expect_success 'parent, fork child and exec'"'"'ed image: three files' '
	ls fe && test $(ls fe | wc -l) -eq 3 &&
	test -f "fe/forkexec.$child.profil" && test -f "fe/exits.$child.profil"
'

test_expect_success 'the fork child'"'"'s file holds its own samples only, and says exec' '
	"$PROFIL" dump "fe/forkexec.$child.profil" > child.dump &&
	test "$(dump_field child.dump exit)" = exec &&
	"$PROFIL" report --tsv "fe/forkexec.$child.profil" > child.tsv &&
	test "$(report_samples child.tsv child_work)" -ge 300 &&
	test "$(report_samples child.tsv parent_work)" -eq 0
'

test_expect_success 'the parent'"'"'s file has the parent'"'"'s work and none of the child'"'"'s' '
	parent=$(ls fe | grep -v "\.$child\.profil$") && echo "$parent" &&
	"$PROFIL" report --tsv "fe/$parent" > parent.tsv &&
	test "$(report_samples parent.tsv parent_work)" -ge 300 &&
	test "$(report_samples parent.tsv child_work)" -eq 0
'

test_expect_success 'the exec'"'"'ed image is recorded under its own name, with the same pid' '
	"$PROFIL" dump "fe/exits.$child.profil" > exec.dump &&
	test "$(dump_field exec.dump pid)" = "$child" &&
	test "$(dump_field exec.dump exit)" = exit &&
	"$PROFIL" report --tsv "fe/exits.$child.profil" > exec.tsv &&
	test "$(report_samples exec.tsv exit_work)" -ge 200
'

test_expect_success '-x: exec'"'"'ed images are not recorded' '
	"$PROFIL" record -x -o nx -- "$REC/forkexec" 0.1 "$REC/exits" exit 0.1 > nx.out
	test $? -eq 7 && ls nx && test $(ls nx | wc -l) -eq 2 && ! ls nx | grep "^exits\."
'

test_expect_success 'exec of the same program: a second file, <progname>.<pid>.1.profil' '
	"$PROFIL" record -o same -- "$REC/exits" exec 0.1 "$REC/exits" exit 0.1 > same.out
	test $? -eq 7 && ls same &&
	pid=$(ls same | sed -n "s/^exits\.\([0-9]*\)\.profil$/\1/p") && test -n "$pid" &&
	"$PROFIL" dump "same/exits.$pid.profil" > s0.dump &&
	"$PROFIL" dump "same/exits.$pid.1.profil" > s1.dump &&
	test "$(dump_field s0.dump exit)" = exec && test "$(dump_field s1.dump exit)" = exit
'

test_expect_success 'children that chdir still write to the output directory' '
	"$PROFIL" record -o cd -- sh -c "cd / && \"$REC/exits\" exit 0.05" > /dev/null
	test $? -eq 7 && ls cd | grep "^exits\."
'

test_done
