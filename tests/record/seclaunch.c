/*
 * seclaunch - installs a seccomp filter that kills on one named system call, then execs
 * PROGRAM: the filter is in force from the program's first instruction, as systemd's
 * SystemCallFilter= puts it.  "process" kills the process (SECCOMP_RET_KILL_PROCESS), "thread"
 * the calling thread (SECCOMP_RET_KILL_THREAD); "errno" makes the call fail with EPERM instead,
 * as a container's default profile does.
 * usage: seclaunch SYSCALL process|thread|errno PROGRAM [ARGS...]
 */
#include <errno.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#if defined(__x86_64__)
#define ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define ARCH AUDIT_ARCH_AARCH64
#endif

static const struct {
	const char *name;
	long nr;
} calls[] = {
	{ "unshare", SYS_unshare },
#ifdef SYS_clone3
	{ "clone3", SYS_clone3 },
#endif
	{ "timer_create", SYS_timer_create },
	{ "perf_event_open", SYS_perf_event_open },
	{ "membarrier", SYS_membarrier },
	{ "prctl", SYS_prctl },
	{ "close_range", SYS_close_range },
	{ "renameat", SYS_renameat },
#ifdef SYS_rename
	{ "rename", SYS_rename },
#endif
};

int
main(int argc, char **argv)
{
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, ARCH, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0, 0, 1),	/* nr, filled below */
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = { .len = sizeof(f) / sizeof(f[0]), .filter = f };
	size_t i;

	if (argc < 4)
		return 2;
	for (i = 0; i < sizeof(calls) / sizeof(calls[0]); i++)
		if (strcmp(calls[i].name, argv[1]) == 0)
			break;
	if (i == sizeof(calls) / sizeof(calls[0])) {
		fprintf(stderr, "seclaunch: unknown system call: %s\n", argv[1]);
		return 2;
	}
	f[4].k = (unsigned int)calls[i].nr;
	if (strcmp(argv[2], "thread") == 0)
		f[5].k = SECCOMP_RET_KILL_THREAD;
	else if (strcmp(argv[2], "errno") == 0)
		f[5].k = SECCOMP_RET_ERRNO | EPERM;
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 ||
	    syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog) != 0) {
		perror("seccomp");
		return 1;
	}
	execvp(argv[3], argv + 3);
	perror("exec");
	return 127;
}
