/*
 * dlopen and dlclose, interposed: the mappings are read again right after each, so pcs in a
 * library loaded later, or closed before the end, can still be attributed.
 */
#include <dlfcn.h>

#include "record.h"

static void *(*real_dlopen)(const char *, int);
static int (*real_dlclose)(void *);

PROFIL_API void *
dlopen(const char *file, int mode)
{
	void *h;

	if (real_dlopen == NULL)
		real_dlopen = (void *(*)(const char *, int))dlsym(RTLD_NEXT, "dlopen");
	h = real_dlopen(file, mode);
	if (h != NULL)
		profil_record_maps_changed();
	return h;
}

PROFIL_API int
dlclose(void *handle)
{
	int r;

	if (real_dlclose == NULL)
		real_dlclose = (int (*)(void *))dlsym(RTLD_NEXT, "dlclose");
	r = real_dlclose(handle);
	profil_record_maps_changed();
	return r;
}
