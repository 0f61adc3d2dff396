/*
 * inside.c - what `profil record` needs around the inside recorder: the socket on which the
 * recorder reports profiles it could not write (src/record/protocol.h, PROFIL_RECORD_REPORT),
 * and the probe of perf events made safe under a seccomp filter that would kill it.
 */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cmd.h"
#include "outside/outside.h"
#include "record/protocol.h"

/*
 * Where the inside recorder says a profile could not be written (PROFIL_RECORD_REPORT): an
 * abstract datagram socket, so that nothing of it is in the program's descriptors or file
 * system.  Abstract names have no permissions and are listed in /proc/net/unix for every user:
 * each datagram comes with its sender's credentials (SO_PASSCRED), and only ours and root's
 * are believed.  Returns it, or -1: then nothing is reported, as with a bare LD_PRELOAD.
 */
int
profil_cmd_report_open(void)
{
	struct sockaddr_un sa;
	unsigned int rnd = 0;
	char name[64];
	size_t n;
	int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0), one = 1;

	if (fd < 0)
		return -1;
	if (setsockopt(fd, SOL_SOCKET, SO_PASSCRED, &one, sizeof(one)) != 0) {
		close(fd);
		return -1;
	}
	if (getrandom(&rnd, sizeof(rnd), GRND_NONBLOCK) < 0)
		rnd = (unsigned int)time(NULL);
	n = (size_t)snprintf(name, sizeof(name), "profil-record.%ld.%08x", (long)getpid(), rnd);
	memset(&sa, 0, sizeof(sa));
	sa.sun_family = AF_UNIX;
	memcpy(sa.sun_path + 1, name, n);
	if (bind(fd, (struct sockaddr *)&sa, (socklen_t)(offsetof(struct sockaddr_un, sun_path) +
	    1 + n)) != 0 || setenv(PROFIL_RECORD_ENV_REPORT, name, 1) != 0) {
		close(fd);
		return -1;
	}
	return fd;
}

/* Says each profile whose last write failed, with the error; returns how many. */
int
profil_cmd_report_read(int fd)
{
	struct failure {
		char path[PATH_MAX];
		int err;
	} *f = calloc(64, sizeof(*f));
	char buf[PATH_MAX + 32], what[160], *p;
	union {
		struct cmsghdr h;
		char space[CMSG_SPACE(sizeof(struct ucred))];
	} ctl;
	struct iovec iov;
	struct msghdr msg;
	struct cmsghdr *c;
	struct ucred cred;
	size_t nf = 0, i;
	int failed = 0, more = 0, trusted;
	ssize_t n;
	long err;

	if (f == NULL)
		return 0;
	for (;;) {
		iov.iov_base = buf;
		iov.iov_len = sizeof(buf) - 1;
		memset(&msg, 0, sizeof(msg));
		msg.msg_iov = &iov;
		msg.msg_iovlen = 1;
		msg.msg_control = ctl.space;
		msg.msg_controllen = sizeof(ctl.space);
		n = recvmsg(fd, &msg, MSG_DONTWAIT);
		if (n <= 0)
			break;
		trusted = 0;
		for (c = CMSG_FIRSTHDR(&msg); c != NULL; c = CMSG_NXTHDR(&msg, c)) {
			if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_CREDENTIALS ||
			    c->cmsg_len < CMSG_LEN(sizeof(cred)))
				continue;
			memcpy(&cred, CMSG_DATA(c), sizeof(cred));
			trusted = cred.uid == geteuid() || cred.uid == 0;
		}
		if (!trusted)
			continue;	/* another user's datagram: not our recorder's */
		buf[n] = '\0';
		err = strtol(buf, &p, 10);
		if (*p != ' ' || err < 0)
			continue;
		for (i = 0; i < nf && strcmp(f[i].path, p + 1) != 0; i++)
			;
		if (i == nf && nf == 64) {
			more += err != 0;
			continue;
		}
		if (i == nf)
			snprintf(f[nf++].path, sizeof(f->path), "%s", p + 1);
		f[i].err = (int)err;
	}
	for (i = 0; i < nf; i++) {
		if (f[i].err == 0)
			continue;
		snprintf(what, sizeof(what), "cannot write profile (%s)", strerror(f[i].err));
		profil_cmd_error(what, f[i].path);
		failed++;
	}
	free(f);
	return failed + more;
}

/*
 * proc(5) "Seccomp: 2": this process runs under a seccomp filter, as the command will; with
 * filters, how many ("Seccomp_filters", Linux 5.9; -1 where the kernel does not say).
 */
int
profil_cmd_seccomp_filtered(long *filters)
{
	char line[256];
	long mode = 0, n = -1;
	FILE *f = fopen("/proc/thread-self/status", "r");

	if (f != NULL) {
		while (fgets(line, sizeof(line), f) != NULL) {
			if (sscanf(line, "Seccomp: %ld", &mode) == 1)
				continue;
			if (sscanf(line, "Seccomp_filters: %ld", &n) == 1)
				break;
		}
		fclose(f);
	}
	if (filters != NULL)
		*filters = n;
	return mode == 2;
}

int profil_cmd_probe_killed;

/*
 * Under a seccomp filter, perf events are probed in a child: a filter that kills
 * perf_event_open(2) (systemd's SystemCallFilter=) must not kill profil.
 */
int
profil_cmd_outside_probe(void)
{
	int status;
	pid_t pid;

	if (!profil_cmd_seccomp_filtered(NULL))
		return profil_outside_probe();
	fflush(NULL);
	pid = fork();
	if (pid == 0)
		_exit(-profil_outside_probe() & 0xff);
	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		return -ENOSYS;
	if (WIFSIGNALED(status)) {
		profil_cmd_probe_killed = WTERMSIG(status) == SIGSYS;
		return -ENOSYS;
	}
	return -WEXITSTATUS(status);
}
