/*
 * seckill - burns SECONDS/4 of CPU, installs a seccomp filter that kills the process on
 * open, openat, rename, renameat and renameat2 (for this thread, or with "tsync" for every
 * thread), burns the rest, prints "done" and exits 3.
 * usage: seckill thread|tsync SECONDS
 */
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "burn.h"

BURNER(free_work)
BURNER(filtered_work)

#if defined(__x86_64__)
#define ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define ARCH AUDIT_ARCH_AARCH64
#endif

#define KILL_IF(nr) \
	BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (nr), 0, 1), \
	BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS)

int
main(int argc, char **argv)
{
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, ARCH, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
#ifdef SYS_open
		KILL_IF(SYS_open),
#endif
#ifdef SYS_rename
		KILL_IF(SYS_rename),
#endif
		KILL_IF(SYS_openat),
		KILL_IF(SYS_renameat),
		KILL_IF(SYS_renameat2),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = { .len = sizeof(f) / sizeof(f[0]), .filter = f };
	unsigned long flags;
	double s;

	if (argc < 3)
		return 2;
	flags = strcmp(argv[1], "tsync") == 0 ? SECCOMP_FILTER_FLAG_TSYNC : 0;
	s = atof(argv[2]);
	free_work(s / 4);
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 ||
	    syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, flags, &prog) != 0) {
		perror("seccomp");
		return 1;
	}
	filtered_work(s * 3 / 4);
	printf("done\n");
	fflush(stdout);
	exit(3);
}
