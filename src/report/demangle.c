/*
 * demangle.c - demangling by binutils' libiberty, the demangler of c++filt, gdb and perf.  It
 * knows C++ and both Rust manglings (legacy, which is C++'s _ZN form with a hash for last
 * component, and v0); the C++ runtime's __cxa_demangle, used before, knows C++ alone.
 */
#include <stdlib.h>
#include <string.h>

#include <libiberty/demangle.h>

#include "report/demangle.h"

/*
 * rustc-demangle's rule for LLVM's suffix: ".llvm." followed only by hex digits and '@'.  The
 * suffix names no other function (ThinLTO made a local symbol global under a unique name), so
 * it is dropped for C++ too, where c++filt would print "[clone .llvm.123]".
 */
static size_t
without_llvm_suffix(const char *name)
{
	const char *s = strstr(name, ".llvm."), *p;

	if (s == NULL || s[6] == '\0')
		return strlen(name);
	for (p = s + 6; *p != '\0'; p++)
		if (!((*p >= '0' && *p <= '9') || (*p >= 'A' && *p <= 'F') || *p == '@'))
			return strlen(name);
	return (size_t)(s - name);
}

char *
profil_demangle(const char *name)
{
	char *copy, *d;
	size_t len;

	/* Itanium C++ and Rust legacy start _Z, Rust v0 _R: everything else is shown as it is. */
	if (name[0] != '_' || (name[1] != 'Z' && name[1] != 'R'))
		return NULL;
	len = without_llvm_suffix(name);
	copy = strndup(name, len);
	if (copy == NULL)
		return NULL;
	/*
	 * No DMGL_VERBOSE: it would keep the hash of Rust legacy names and print v0's crate
	 * disambiguators, and spell std::string out in full.  DMGL_AUTO tries Rust first, as
	 * legacy Rust names are also valid C++ names.
	 */
	d = cplus_demangle(copy, DMGL_PARAMS | DMGL_ANSI | DMGL_AUTO);
	free(copy);
	return d;
}
