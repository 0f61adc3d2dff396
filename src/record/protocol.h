/*
 * protocol.h - what `profil record` (cmd/record.c) and the preloaded recorder (src/record/)
 * say to each other: the environment variables the command sets and the library reads, and the
 * clock names of --clock and PROFIL_RECORD_CLOCK.  Header only, no code: the command includes
 * it without linking anything of the library.  Defaults are the library's (record.c).
 */
#ifndef PROFIL_RECORD_PROTOCOL_H
#define PROFIL_RECORD_PROTOCOL_H

/* Output directory, created if missing; the library makes it absolute for the children. */
#define PROFIL_RECORD_ENV_DIR		"PROFIL_RECORD_DIR"
/* Samples per CPU second per thread, 1..PROFIL_HZ_MAX. */
#define PROFIL_RECORD_ENV_HZ		"PROFIL_RECORD_HZ"
/* One of the PROFIL_RECORD_CLOCK_* names below. */
#define PROFIL_RECORD_ENV_CLOCK		"PROFIL_RECORD_CLOCK"
/*
 * Call stacks: "cfi" walked by the unwind tables of each object's call frame information, "fp"
 * by frame pointers, "1" the default (cfi); "0": flat.
 */
#define PROFIL_RECORD_ENV_STACKS	"PROFIL_RECORD_STACKS"
#define PROFIL_RECORD_STACKS_CFI	"cfi"
#define PROFIL_RECORD_STACKS_FP		"fp"
/*
 * "1": threads are sampled while they wait too, on the wall clock at the requested rate
 * (profil record --wall), from the recorder's thread.
 */
#define PROFIL_RECORD_ENV_WALL		"PROFIL_RECORD_WALL"
/* "0": images started by exec from a recorded process are not recorded. */
#define PROFIL_RECORD_ENV_EXEC		"PROFIL_RECORD_EXEC"
/* Distinct stacks per in-memory table. */
#define PROFIL_RECORD_ENV_ENTRIES	"PROFIL_RECORD_ENTRIES"
/* Periodic flush interval in ms; 0 disables it. */
#define PROFIL_RECORD_ENV_FLUSH_MS	"PROFIL_RECORD_FLUSH_MS"
/*
 * Set by the library to the pid of the first recorded image, for PROFIL_RECORD_EXEC=0.  A
 * launcher clears it by setting it empty (not by unsetting it: bash keeps only the variables
 * its main() found, and the library replaces this entry in place).
 */
#define PROFIL_RECORD_ENV_ACTIVE	"PROFIL_RECORD_ACTIVE"

/*
 * An abstract AF_UNIX datagram socket of the command's ("@name": the name without the leading
 * NUL byte).  A process whose profile cannot be written sends "ERRNO PATH" there, and "0 PATH"
 * when a later write of the same file succeeds, so that `profil record` exits 1 with the error
 * while the program's own exit status stays its own.  Unset with a bare LD_PRELOAD: nothing sent.
 */
#define PROFIL_RECORD_ENV_REPORT	"PROFIL_RECORD_REPORT"

/*
 * Set by `profil record` when it runs under a seccomp filter, to the number of filters its
 * /proc/self/status counts (Seccomp_filters): it forks the command under those same filters, so
 * a process clone survives them.  Only then may the engine and the recorder make the probe
 * child of src/engine/seccomp.c, and only while the count is still the same and the process has
 * one thread.  Unset, the calls a filter might kill are never made.
 */
#define PROFIL_RECORD_ENV_CLONE_OK	"PROFIL_RECORD_CLONE_OK"

#define PROFIL_RECORD_CLOCK_AUTO	"auto"
#define PROFIL_RECORD_CLOCK_TIMER	"timer"
#define PROFIL_RECORD_CLOCK_PERF	"perf"
#define PROFIL_RECORD_CLOCK_RING	"ring"
/* The command's alone: recording from outside, where the library is not loaded at all. */
#define PROFIL_RECORD_CLOCK_OUTSIDE	"outside"

#endif /* PROFIL_RECORD_PROTOCOL_H */
