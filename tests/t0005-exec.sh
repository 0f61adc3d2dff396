#!/bin/sh
# pcsample(2): sampling "is disabled by a call to one of the exec family of functions".  The new
# image, which burns CPU for half a second, must never die of a tick that crossed exec.
. "$(dirname "$0")/lib.sh"

# The control: glibc's own profil() arms ITIMER_PROF, which survives execve, so the same
# experiment kills the new image with SIGPROF.  It shows this test can see the failure.
cat > glibc_profil.c <<'C'
#include <unistd.h>
static unsigned short bins[4096];
int main(int argc, char **argv)
{
	volatile unsigned long x = 0;
	(void)argc;
	profil(bins, sizeof(bins), 0, 65536);
	for (unsigned long i = 0; i < 100000000; i++)
		x += i;
	execl(argv[1], argv[1], "0.5", (char *)0);
	return 126;
}
C
test_expect_success 'control: glibc profil() then exec: the new image dies of SIGPROF' '
	cc -O1 -o glibc_profil glibc_profil.c &&
	{ ./glibc_profil "$PROGS/spin"; rc=$?; } ; test $rc -eq $((128 + 27))
'
for how in execv execve execvp execvpe execl execlp execle fexecve threads fork; do
	for api in profil pcsample; do
		for hz in 100 1000; do
			test_expect_success "$api at $hz Hz, then $how: the new image runs clean" "
				\"\$PROGS/exec\" $how $api $hz \"\$PROGS/spin\"
			"
		done
	done
done
test_done
