/*
 * demangle.h - the names of C++ and Rust functions as people read them, from the names their
 * compilers give the linker.
 */
#ifndef PROFIL_REPORT_DEMANGLE_H
#define PROFIL_REPORT_DEMANGLE_H

/*
 * profil_demangle - name (a symbol, without its @VERSION) as c++filt --no-verbose and rustfilt
 * show it: C++ (_Z) with its parameters, Rust legacy (_ZN...17h<hash>E) without the hash, Rust
 * v0 (_R) without crate disambiguators.  A trailing .llvm.<hex> (ThinLTO's name for a promoted
 * local) is dropped first, as rustc-demangle drops it.  Returns an allocated name, or NULL
 * when name is not a mangled name (C, assembly) or memory ran out: the caller then shows name
 * as it is.  Thread-safe (the demangler keeps no state); not async-signal-safe.
 */
char *profil_demangle(const char *name);

#endif /* PROFIL_REPORT_DEMANGLE_H */
