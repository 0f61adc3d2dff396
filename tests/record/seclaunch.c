/*
 * seclaunch - installs a seccomp filter that kills on one named system call, then execs
 * PROGRAM: the filter is in force from the program's first instruction, as systemd's
 * SystemCallFilter= puts it.  "process" kills the process (SECCOMP_RET_KILL_PROCESS), "thread"
 * the calling thread (SECCOMP_RET_KILL_THREAD); "errno" makes the call fail with EPERM instead,
 * as a container's default profile does.  "clone threadonly" kills every clone(2) without
 * CLONE_THREAD and answers clone3(2) with ENOSYS, so that glibc falls back to clone(2) for its
 * threads: minijail's "clone: arg0 & CLONE_THREAD", which lets a program start threads alone.
 * usage: seclaunch SYSCALL process|thread|errno PROGRAM [ARGS...]
 *        seclaunch clone threadonly PROGRAM [ARGS...]
 */
#include <errno.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sched.h>
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
	struct sock_filter threads[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, ARCH, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
#ifdef SYS_clone3
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_clone3, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | ENOSYS),
#endif
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_clone, 0, 3),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[0])),
		BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, CLONE_THREAD, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = { .len = sizeof(f) / sizeof(f[0]), .filter = f };
	size_t i;

	if (argc < 4)
		return 2;
	if (strcmp(argv[1], "clone") == 0 && strcmp(argv[2], "threadonly") == 0) {
		prog.len = sizeof(threads) / sizeof(threads[0]);
		prog.filter = threads;
		goto install;
	}
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
install:
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 ||
	    syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog) != 0) {
		perror("seccomp");
		return 1;
	}
	execvp(argv[3], argv + 3);
	perror("exec");
	return 127;
}
