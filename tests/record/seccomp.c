/*
 * seccomp - a sandboxed worker: enters seccomp strict mode (read, write, _exit, sigreturn),
 * burns BLOCKS blocks of CPU work, writes "survived" and ends with exit(2), the only way out
 * strict mode allows (exit_group is not in it).
 * usage: seccomp BLOCKS
 */
#include <linux/seccomp.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "burn.h"

BURNER(sandboxed_work)

int
main(int argc, char **argv)
{
	unsigned long blocks;

	if (argc < 2)
		return 2;
	blocks = strtoul(argv[1], NULL, 10);
	if (prctl(PR_SET_SECCOMP, SECCOMP_MODE_STRICT) != 0)
		return 3;
	sandboxed_work_blocks(blocks);
	if (write(STDOUT_FILENO, "survived\n", 9) != 9)
		syscall(SYS_exit, 4);
	syscall(SYS_exit, 0);
	return 0;
}
