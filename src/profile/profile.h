/*
 * profile.h - the profile model: what a recording of one process image holds, as every reader
 * of it sees it.  Its header says which process it was and how it was recorded; its threads,
 * its file mappings with the epochs (mapping generations) in which they were present, names for
 * code no file names (JIT, the kernel), the distinct (thread, epoch, stack) samples with their
 * tick counts, and when those ticks were taken.  A recording of several processes is one of
 * these per image (a report session holds them side by side, src/report/report.h).
 *
 * The recorders fill it as records of the file (src/format: the writer and its one reader);
 * report, export, the viewer, top and serve read it.  src/profile/samples.c is its sample table
 * while it is being filled outside signal context, maps.c the epoch rule both recorders apply.
 */
#ifndef PROFIL_PROFILE_H
#define PROFIL_PROFILE_H

#include <stddef.h>
#include <stdint.h>
/* Bounds a reader enforces and a writer respects. */
#define PROFIL_FORMAT_MAX_RECORD	(1u << 20)	/* payload bytes of one record */
#define PROFIL_FORMAT_MAX_DEPTH		1024		/* pcs of one sample */
#define PROFIL_FORMAT_MAX_PATH		4096
#define PROFIL_FORMAT_MAX_NAME		256		/* progname, thread name */
#define PROFIL_FORMAT_MAX_BUILD_ID	64

/* How the recorded process ended, as far as the recorder saw. */
enum profil_exit_kind {
	PROFIL_EXIT_RUNNING = 0,	/* a periodic snapshot: the process never flushed again
					   (SIGKILL, power loss) or still runs */
	PROFIL_EXIT_NORMAL = 1,		/* exit(3), return from main, _exit(2); code = status
					   when known, else -1 */
	PROFIL_EXIT_SIGNAL = 2,		/* a fatal signal; code = its number */
	PROFIL_EXIT_EXEC = 3,		/* replaced by execve(2); the new image has its own
					   file */
};

/*
 * header.clock: the file's own values, fixed by the format whatever the library's enum becomes.
 * Timers and perf events with a signal per sample (the values of enum profil_clock, which the
 * inside recorder's engine reports); perf events written to ring buffers without a signal,
 * read inside the process (ring) or by the profil process from outside it (outside).
 */
#define PROFIL_FILE_CLOCK_TIMER		1
#define PROFIL_FILE_CLOCK_PERF		2
#define PROFIL_FILE_CLOCK_RING		3
#define PROFIL_FILE_CLOCK_OUTSIDE	4

/* header.flags */
#define PROFIL_HDR_STACKS	0x1	/* samples carry call stacks (-g) */
#define PROFIL_HDR_PROGRAM_SIGPROF 0x2	/* the program had its own SIGPROF or ITIMER_PROF */
#define PROFIL_HDR_WALL		0x4	/* waiting threads sampled too (--wall): PROFIL_PC_WAIT */
#define PROFIL_HDR_WAIT_CPU	0x8	/* and waits for a CPU too: PROFIL_PC_WAIT_CPU */
#define PROFIL_HDR_KERNEL	0x10	/* time in the kernel was sampled too: pcs at or above
					   PROFIL_PC_KERNEL_MIN, in the "[kernel]" mapping */
#define PROFIL_HDR_SYSTEM_NS	0x20	/* system_ns holds the kernel's own count */

/* Epochs: the mapping generation.  unload_epoch of a mapping still present at the end. */
#define PROFIL_EPOCH_NEVER	UINT32_MAX

struct profil_file_header {
	uint32_t pid;
	uint32_t ppid;
	uint32_t requested_hz;
	uint32_t clock;			/* 1 timer, 2 perf (a signal per sample), 3 ring, 4 outside */
	uint64_t achieved_mhz;		/* achieved rate, mHz: ticks per CPU second */
	uint64_t start_ns;		/* CLOCK_REALTIME at start */
	uint64_t end_ns;		/* CLOCK_REALTIME at the last flush */
	uint64_t cpu_ns;		/* process CPU time while recording */
	uint64_t samples;		/* signals or kernel records that produced a sample */
	uint64_t ticks;			/* periods the samples stand for (>= samples) */
	uint64_t dropped;		/* ticks lost: table or stack pool full, ring full */
	uint32_t exit_kind;		/* enum profil_exit_kind */
	int32_t exit_code;		/* status or signal number, see profil_exit_kind */
	uint32_t flags;			/* PROFIL_HDR_* */
	uint32_t max_depth;		/* stack depth limit used by the recorder */
	uint32_t threads;		/* threads armed */
	uint32_t thread_failures;	/* threads that could not be armed */
	char *progname;			/* basename of the program, NUL-terminated */
	char *exe;			/* /proc/self/exe at start, or "" */
	/* Appended after the strings (files before it end there): the CPU time the kernel
	 * accounted to the process in kernel mode while it was recorded (stime), ns, whether
	 * samples were taken there or not; meaningful with PROFIL_HDR_SYSTEM_NS. */
	uint64_t system_ns;
};

/*
 * One memory mapping of a file with execute permission.  A PC belongs to the mapping whose
 * [start, end) holds it and whose epoch range [load_epoch, unload_epoch] holds the sample's
 * epoch; its offset in the file is pc - start + offset.
 */
struct profil_file_mapping {
	uint64_t start;
	uint64_t end;
	uint64_t offset;		/* file offset of start */
	uint64_t load_ns;		/* CLOCK_REALTIME when first seen */
	uint64_t unload_ns;		/* when seen gone, or 0 */
	uint32_t load_epoch;
	uint32_t unload_epoch;		/* PROFIL_EPOCH_NEVER if mapped at the end */
	uint32_t prot;			/* PROT_READ | PROT_WRITE | PROT_EXEC */
	uint32_t build_id_len;		/* 0 when the file has no GNU build-id note */
	uint8_t build_id[PROFIL_FORMAT_MAX_BUILD_ID];
	char *path;
};

/*
 * Code that no file names: a function a JIT compiler wrote into anonymous memory, named by the
 * program's perf map or jitdump file when the recording ended.  Only the names the samples need
 * are copied into the profile, so it is read later, or elsewhere, without those files.
 */
struct profil_file_code {
	uint64_t start;
	uint64_t size;			/* at least 1 */
	uint32_t source;		/* PROFIL_CODE_PERF_MAP or PROFIL_CODE_JITDUMP */
	char *name;
};

#define PROFIL_CODE_PERF_MAP	1	/* /tmp/perf-PID.map */
#define PROFIL_CODE_JITDUMP	2	/* jit-PID.dump */
#define PROFIL_CODE_KERNEL	3	/* /proc/kallsyms, of the kernel and its modules */

struct profil_file_thread {
	uint32_t tid;
	char *name;			/* comm (up to 15 bytes on Linux), "" if unknown */
};

/*
 * count ticks in thread tid, all with the same stack.  pcs[0] is the interrupted PC; pcs[1..]
 * are return addresses (subtract one to land in the call instruction).  depth >= 1.
 */
struct profil_file_sample {
	uint64_t count;
	uint32_t tid;
	uint32_t epoch;			/* mapping generation when the sample was taken */
	uint32_t depth;
	uint64_t *pcs;
};

/*
 * When ticks were taken: count ticks of samples[sample] fell in slot, the interval
 * [hdr.start_ns + slot * slot_ns, + slot_ns) of CLOCK_REALTIME.  Per sample, the counts of its
 * entries sum to at most its count (the rest are ticks whose time the recorder did not keep).
 */
struct profil_file_time {
	uint32_t sample;		/* index into samples[], in file order */
	uint32_t slot;
	uint64_t count;			/* >= 1 */
};

/* The width of a slot is at least this (a reader refuses less). */
#define PROFIL_TIME_MIN_SLOT_NS	1000

struct profil_file {
	struct profil_file_header hdr;
	struct profil_file_mapping *maps;
	size_t nmaps;
	struct profil_file_thread *threads;
	size_t nthreads;
	struct profil_file_sample *samples;
	size_t nsamples;
	uint64_t processes_seen;	/* PROCESSES: images the recording saw by then; 0: none */
	struct profil_file_code *codes;	/* sorted by start */
	size_t ncodes;
	uint64_t slot_ns;		/* width of a time slot; 0: the file has no TIME record */
	struct profil_file_time *times;	/* in file order; a (sample, slot) pair may repeat */
	size_t ntimes;
	uint32_t version;
	/* The reader's index of maps for profil_file_mapping_find(): their numbers sorted by
	 * (start, load_epoch), and the largest end among the first i + 1 of that order. */
	size_t *map_order;
	uint64_t *map_maxend;
};

/* Indexes a filled profile for the lookups below: its names sorted by address, its mappings
 * by start.  Returns 0 or -ENOMEM. */
int profil_file_index(struct profil_file *f);

/* Frees a profile the reader returned, and all it holds; NULL is allowed. */
void profil_file_free(struct profil_file *f);

/* The mapping a pc of a sample taken in epoch belongs to, or NULL.  Logarithmic in the
 * mappings for a file whose mappings at one epoch do not overlap (what a recorder writes). */
const struct profil_file_mapping *profil_file_mapping_find(const struct profil_file *f,
    uint64_t pc, uint32_t epoch);

/* The named code (JIT) holding pc, or NULL: of the names that hold it, the one that starts
 * last (the innermost where ranges nest).  Logarithmic in the names. */
const struct profil_file_code *profil_file_code_find(const struct profil_file *f, uint64_t pc);

/* Text for enum values, for reports: "timer", "perf", "ring"; "running", "exit", "signal",
 * "exec". */
const char *profil_file_clock_name(uint32_t clock);
const char *profil_file_exit_name(uint32_t exit_kind);

/*
 * Frames a walk adds where it had to stop before the outermost frame, so that a cut stack is
 * never shown with a wrong parent: the last pc of a sample's stack.  They lie in the last page
 * of the address space, which holds no user code on any Linux architecture.
 */
#define PROFIL_PC_MARKER_MIN	UINT64_C(0xfffffffffffff000)
#define PROFIL_PC_CUT_DEPTH	UINT64_C(0xfffffffffffff001)	/* the depth limit */
#define PROFIL_PC_CUT_STACK	UINT64_C(0xfffffffffffff002)	/* the stack copy ended */
#define PROFIL_PC_CUT_RULE	UINT64_C(0xfffffffffffff003)	/* no unwind rule to follow */
/* The rule needs the frame pointer, which a waiting thread's registers (/proc) leave out. */
#define PROFIL_PC_CUT_FP	UINT64_C(0xfffffffffffff004)

/*
 * Kernel code (PROFIL_HDR_KERNEL): the upper half of the address space, where no user code is
 * on any 64-bit Linux architecture.  A recorder that samples the kernel writes one MAPPING,
 * path PROFIL_KERNEL_PATH, from here to PROFIL_PC_WAIT_MIN with offset equal to its start (so
 * offsets are addresses), and a CODE record (source PROFIL_CODE_KERNEL) for each kernel
 * function its samples' pcs fall in, when /proc/kallsyms gave their addresses.
 */
#define PROFIL_PC_KERNEL_MIN	UINT64_C(0x8000000000000000)
#define PROFIL_KERNEL_PATH	"[kernel]"

/*
 * The leaf frame of a sample of a thread that was waiting (profil record --wall): the page
 * below the cut markers, with the thread's state and the system call it waits in (nr, or
 * PROFIL_WAIT_NO_SYSCALL): pcs[1] is then the pc the thread waits at.
 */
#define PROFIL_PC_WAIT_MIN	UINT64_C(0xffffffffffffe000)
#define PROFIL_WAIT_SLEEPING	0	/* S: interruptible sleep */
#define PROFIL_WAIT_DISK	1	/* D: uninterruptible sleep, I/O most often */
#define PROFIL_WAIT_STOPPED	2	/* T, t: stopped, or traced */
#define PROFIL_WAIT_OTHER	3
#define PROFIL_WAIT_NO_SYSCALL	0x3ff
#define PROFIL_PC_WAIT(state, nr)	(PROFIL_PC_WAIT_MIN | (uint64_t)(state) << 10 | \
	((uint64_t)(nr) & 0x3ff))
/*
 * The leaf of time a thread was runnable but on no CPU (PROFIL_HDR_WAIT_CPU): state other,
 * and a number no system call has, so that a reader older than it still counts it as a
 * wait.  pcs[1] on are the stack the thread was last seen running.
 */
#define PROFIL_WAIT_CPU_NR	0x3fe
#define PROFIL_PC_WAIT_CPU	PROFIL_PC_WAIT(PROFIL_WAIT_OTHER, PROFIL_WAIT_CPU_NR)

#endif /* PROFIL_PROFILE_H */
