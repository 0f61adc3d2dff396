/*
 * pcsample(2): sampling "is disabled by a call to one of the exec family of functions".  Each
 * exec function of libc is interposed (glibc's call each other internally, so all of them):
 * every clock is disarmed and pending ticks discarded before the image is replaced, and
 * profiling resumes if exec fails.  Interval timers would survive execve and kill the new image
 * with "Profiling timer expired"; ours must not.
 */
#include <stdarg.h>
#include <unistd.h>

#include "engine.h"

extern char **environ;

#define EXEC_WRAP(call)                                              \
	do {                                                         \
		int token_, r_;                                      \
		if (profil_real.execve == NULL)                      \
			profil_real_resolve();                       \
		profil_engine_hooks_run(PROFIL_HOOK_EXEC_BEFORE, 0); \
		token_ = profil_engine_exec_prepare();               \
		r_ = (call);                                         \
		profil_engine_exec_failed(token_);                   \
		profil_engine_hooks_run(PROFIL_HOOK_EXEC_FAILED, 0); \
		return r_;                                           \
	} while (0)

PROFIL_API int
execve(const char *path, char *const argv[], char *const envp[])
{
	EXEC_WRAP(profil_real.execve(path, argv, envp));
}

PROFIL_API int
execv(const char *path, char *const argv[])
{
	EXEC_WRAP(profil_real.execv(path, argv));
}

PROFIL_API int
execvp(const char *file, char *const argv[])
{
	EXEC_WRAP(profil_real.execvp(file, argv));
}

PROFIL_API int
execvpe(const char *file, char *const argv[], char *const envp[])
{
	EXEC_WRAP(profil_real.execvpe(file, argv, envp));
}

PROFIL_API int
fexecve(int fd, char *const argv[], char *const envp[])
{
	EXEC_WRAP(profil_real.fexecve(fd, argv, envp));
}

PROFIL_API int
execveat(int dirfd, const char *path, char *const argv[], char *const envp[], int flags)
{
	EXEC_WRAP(profil_real.execveat(dirfd, path, argv, envp, flags));
}

/* The list forms: count the arguments, then build argv on the stack as glibc does. */
static size_t
count_args(va_list ap)
{
	size_t n = 1;

	while (va_arg(ap, char *) != NULL)
		n++;
	return n;
}

#define ARGV_FROM_LIST(argv, arg0, last)                        \
	size_t n_;                                              \
	va_list ap_;                                            \
	va_start(ap_, last);                                    \
	n_ = count_args(ap_);                                   \
	va_end(ap_);                                            \
	char *argv[n_ + 1];                                     \
	argv[0] = (char *)(arg0);                               \
	va_start(ap_, last);                                    \
	for (size_t i_ = 1; i_ <= n_; i_++)                     \
		argv[i_] = va_arg(ap_, char *)

PROFIL_API int
execl(const char *path, const char *arg, ...)
{
	ARGV_FROM_LIST(argv, arg, arg);
	va_end(ap_);
	return execve(path, argv, environ);
}

PROFIL_API int
execlp(const char *file, const char *arg, ...)
{
	ARGV_FROM_LIST(argv, arg, arg);
	va_end(ap_);
	return execvp(file, argv);
}

PROFIL_API int
execle(const char *path, const char *arg, ...)
{
	char *const *envp;

	ARGV_FROM_LIST(argv, arg, arg);
	envp = va_arg(ap_, char *const *);
	va_end(ap_);
	return execve(path, argv, envp);
}
