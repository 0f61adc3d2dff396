/*
 * The libc functions behind the ones the engine interposes, looked up once at load time: dlsym
 * takes the loader's lock, which is no place to be after fork in a threaded program.
 */
#include <dlfcn.h>

#include "engine.h"

struct profil_real profil_real;

#define RESOLVE(name) (profil_real.name = (__typeof__(profil_real.name))dlsym(RTLD_NEXT, #name))

__attribute__((constructor)) void
profil_real_resolve(void)
{
	if (profil_real.execve != NULL)
		return;
	RESOLVE(pthread_create);
	RESOLVE(execvp);
	RESOLVE(execvpe);
	RESOLVE(execv);
	RESOLVE(fexecve);
	RESOLVE(execveat);
	RESOLVE(sigaction);
	RESOLVE(signal);
	RESOLVE(setenv);
	/* Last: it marks the table complete. */
	RESOLVE(execve);
}
