/*
 * A seccomp filter in force at start: the calls the recorder makes, each tried in a probe
 * (src/engine) before anything is armed, and what the recorder does without those it kills.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>

#include "protocol.h"
#include "life.h"
#include "record.h"

static void
try_files(void *unused)
{
	char buf[16];

	(void)unused;
	/* Paths under /proc: nothing can be made there, whatever the filter lets through. */
	profil_seccomp_step("mkdir");
	mkdir("/proc/profil-probe", 0700);
	profil_seccomp_step("openat");
	openat(AT_FDCWD, "/proc/profil-probe/a", O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW |
	    O_CLOEXEC, 0600);
	profil_seccomp_step("renameat");
	renameat(AT_FDCWD, "/proc/profil-probe/a", AT_FDCWD, "/proc/profil-probe/b");
	profil_seccomp_step("unlinkat");
	unlinkat(AT_FDCWD, "/proc/profil-probe/a", 0);
	profil_seccomp_step("readlink");
	if (readlink("/proc/self/exe", buf, sizeof(buf)) < 0)
		return;
}

static void
try_threads(void *unused)
{
	(void)unused;
#ifdef SYS_clone3
	/*
	 * glibc's pthread_create(3) calls clone3(2) with its 88-byte struct clone_args; flags
	 * with CLONE_THREAD and no CLONE_SIGHAND make it fail with EINVAL where it is allowed.
	 */
	uint64_t args[11] = { CLONE_THREAD };

	profil_seccomp_step("clone3");
	syscall(SYS_clone3, args, sizeof(args));
#endif
}

static void
try_table(void *unused)
{
	(void)unused;
	profil_seccomp_step("unshare");
	unshare(CLONE_FILES);
	profil_seccomp_step("close_range");
	syscall(SYS_close_range, ~0U - 1, ~0U, 0);
}

static void
try_prctl(void *unused)
{
	char name[17];

	(void)unused;
	profil_seccomp_step("prctl");
	prctl(PR_SET_NAME, "profil-probe");
	prctl(PR_GET_NAME, name);
}

static void
try_report(void *unused)
{
	int fd;

	(void)unused;
	profil_seccomp_step("socket");
	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	profil_seccomp_step("sendto");
	sendto(fd, "", 0, MSG_DONTWAIT | MSG_NOSIGNAL, NULL, 0);
}

void
profil_record_try_ring(void *unused)
{
	(void)unused;
	profil_ring_open(profil_record_tid(), profil_rec.hz, profil_rec.depth > 1);
}

void
profil_record_seccomp_degrade(const char *note)
{
	if (profil_life.seccomp_note != NULL)
		return;
	profil_life.seccomp_note = note;
	profil_life.seccomp_call = profil_seccomp_killer();
}

int
profil_record_seccomp_probe(void)
{
	if (profil_seccomp_kills(try_files, NULL) != 0)
		return -EPERM;
	if (profil_seccomp_kills(try_threads, NULL) != 0) {
		profil_life.no_threads = 1;
		profil_record_seccomp_degrade("no recorder thread, the profile is written at exit");
	}
	if (!profil_life.no_threads && profil_seccomp_kills(try_table, NULL) != 0) {
		profil_life.no_table = 1;
		profil_record_seccomp_degrade("the profile is written at exit");
	}
	/* The report of a failed write to `profil record` is left out, the write's line stays. */
	if (profil_rec.report_len != 0 && profil_seccomp_kills(try_report, NULL) != 0)
		profil_rec.report_len = 0;
	if (profil_seccomp_kills(try_prctl, NULL) != 0) {
		profil_life.no_prctl = 1;
		profil_record_seccomp_degrade("the recorder's threads are not named");
	}
	return 0;
}

/* "a seccomp filter kills CALL", for the one line on stderr. */
const char *
profil_record_seccomp_what(const char *before, const char *call, const char *after)
{
	static char what[160];

	snprintf(what, sizeof(what), "%sa seccomp filter kills %s%s%s", before,
	    call != NULL ? call : "a system call", after != NULL ? ": " : "",
	    after != NULL ? after : "");
	return what;
}
