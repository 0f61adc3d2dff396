/*
 * mcount: code compiled with -pg calls it on every function entry, on every thread, also inside
 * signal handlers and in the middle of malloc.  So the path is lock-free and allocation-free:
 * each thread counts into a table of its own (the file's slots, so the kernel keeps them), a
 * per-thread busy flag turns away re-entry from a signal handler (as OpenBSD's and glibc's
 * mcount do), and a full table drops the arc, counts it and says so once on stderr.
 */
#include <errno.h>
#include <pthread.h>
#include <string.h>

#include "gmon.h"

#if defined(__x86_64__)
/*
 * The entry gcc -pg calls after the prologue: 8(%rbp) is the instrumented function's return
 * address into its caller (frompc) and 0(%rsp) our own return address inside the function
 * (selfpc), as in glibc's sysdeps/x86_64/_mcount.S.  The function's arguments are still in
 * registers: every argument register is saved, the vector ones too, since the C half may reach
 * libc's SSE/AVX string functions when a thread claims its table.
 */
__asm__(
	"	.text\n"
	"	.globl	mcount\n"
	"	.type	mcount, @function\n"
	"	.globl	_mcount\n"
	"	.type	_mcount, @function\n"
	"	.p2align 4\n"
	"mcount:\n"
	"_mcount:\n"
	"	.cfi_startproc\n"
	/* Entry: %rsp = 8 mod 16.  9 registers, padding, 8 xmm (movups: never trust it). */
	"	subq	$216, %rsp\n"
	"	.cfi_adjust_cfa_offset 216\n"
	"	movq	%rax, 0(%rsp)\n"
	"	movq	%rcx, 8(%rsp)\n"
	"	movq	%rdx, 16(%rsp)\n"
	"	movq	%rsi, 24(%rsp)\n"
	"	movq	%rdi, 32(%rsp)\n"
	"	movq	%r8, 40(%rsp)\n"
	"	movq	%r9, 48(%rsp)\n"
	"	movq	%r10, 56(%rsp)\n"
	"	movq	%r11, 64(%rsp)\n"
	"	movups	%xmm0, 80(%rsp)\n"
	"	movups	%xmm1, 96(%rsp)\n"
	"	movups	%xmm2, 112(%rsp)\n"
	"	movups	%xmm3, 128(%rsp)\n"
	"	movups	%xmm4, 144(%rsp)\n"
	"	movups	%xmm5, 160(%rsp)\n"
	"	movups	%xmm6, 176(%rsp)\n"
	"	movups	%xmm7, 192(%rsp)\n"
	"	movq	216(%rsp), %rsi\n"
	"	movq	8(%rbp), %rdi\n"
	"	call	profil_gmon_mcount\n"
	"	movups	192(%rsp), %xmm7\n"
	"	movups	176(%rsp), %xmm6\n"
	"	movups	160(%rsp), %xmm5\n"
	"	movups	144(%rsp), %xmm4\n"
	"	movups	128(%rsp), %xmm3\n"
	"	movups	112(%rsp), %xmm2\n"
	"	movups	96(%rsp), %xmm1\n"
	"	movups	80(%rsp), %xmm0\n"
	"	movq	64(%rsp), %r11\n"
	"	movq	56(%rsp), %r10\n"
	"	movq	48(%rsp), %r9\n"
	"	movq	40(%rsp), %r8\n"
	"	movq	32(%rsp), %rdi\n"
	"	movq	24(%rsp), %rsi\n"
	"	movq	16(%rsp), %rdx\n"
	"	movq	8(%rsp), %rcx\n"
	"	movq	0(%rsp), %rax\n"
	"	addq	$216, %rsp\n"
	"	.cfi_adjust_cfa_offset -216\n"
	"	ret\n"
	"	.cfi_endproc\n"
	"	.size	mcount, .-mcount\n"
	"	.size	_mcount, .-_mcount\n");
#elif defined(__aarch64__)
/*
 * aarch64 (glibc's sysdeps/aarch64/machine-gmon.h): gcc passes the instrumented function's
 * return address in x0 and treats the call as an ordinary one, so plain C does.
 */
PROFIL_API void _mcount(void *frompc);

PROFIL_API void
_mcount(void *frompc)
{
	profil_gmon_mcount((uintptr_t)frompc, (uintptr_t)__builtin_return_address(0));
}
#endif

/* One TLS access on the hot path; initial-exec: no __tls_get_addr, which may allocate. */
struct gmon_thread {
	struct profil_gmon_table *table;
	int busy;
	int claiming;		/* counted in profil_gmon_claiming (for a fork child) */
};
static __thread struct gmon_thread self __attribute__((tls_model("initial-exec")));

static pthread_key_t table_key;
static int table_key_made;
static atomic_int tables_broken;	/* the file could not grow: no new tables */

static void
report_full(void)
{
	if (!atomic_exchange(&profil_gmon_rt.reported, 1))
		profil_gmon_warn("arc table full, calls are not counted from here on",
		    profil_gmon_rt.name);
}

/* pthread key destructor: a thread that ends leaves its table to the next thread. */
static void
table_release(void *p)
{
	struct profil_gmon_table *t = p;

	self.table = NULL;
	atomic_store(&t->owned, 0);
}

atomic_int profil_gmon_claiming;

/* Run once by __monstartup, before the first mcount can record. */
int
profil_gmon_tables_init(void)
{
	size_t i;

	if (!table_key_made) {
		if (pthread_key_create(&table_key, table_release) != 0)
			return -EAGAIN;
		table_key_made = 1;
	}
	/* Not yet handed out reads as taken: a free table is one a thread has left. */
	for (i = 0; i < PROFIL_GMON_TABLES; i++) {
		profil_gmon_rt.tables[i].slots = (struct profil_gmon_arc *)(profil_gmon_rt.buf +
		    profil_gmon_rt.arcs_off) + i * profil_gmon_rt.nslots;
		atomic_store(&profil_gmon_rt.tables[i].owned, 1);
		profil_gmon_rt.tables[i].used = 0;
	}
	return 0;
}

/* Whether this thread is counted in profil_gmon_claiming, as a signal handler would see it. */
static void
claim_mark(int on)
{
	atomic_signal_fence(memory_order_seq_cst);
	self.claiming = on;
	atomic_signal_fence(memory_order_seq_cst);
}

static struct profil_gmon_table *
table_claim(void)
{
	struct profil_gmon *g = &profil_gmon_rt;
	struct profil_gmon_table *t = NULL;
	size_t i, n;

	/*
	 * Growing the file and writing the new table must not meet exit cutting the file: both
	 * sides use sequentially consistent operations (Dekker), exit waits for 0.
	 */
	atomic_fetch_add(&profil_gmon_claiming, 1);
	claim_mark(1);
	if (atomic_load(&g->state) != PROFIL_GMON_ON) {
		claim_mark(0);
		atomic_fetch_sub(&profil_gmon_claiming, 1);
		return NULL;
	}
	n = atomic_load(&g->ntables);
	for (i = 0; i < n && i < PROFIL_GMON_TABLES; i++) {
		int zero = 0;

		if (atomic_compare_exchange_strong(&g->tables[i].owned, &zero, 1)) {
			t = &g->tables[i];
			break;
		}
	}
	if (t == NULL) {
		if (atomic_load(&tables_broken))
			goto full;
		i = atomic_fetch_add(&g->ntables, 1);
		if (i >= PROFIL_GMON_TABLES) {
			atomic_store(&g->ntables, PROFIL_GMON_TABLES);
			goto full;
		}
		t = &g->tables[i];
		/* The file grows to cover the table, then every slot becomes an empty arc. */
		if (profil_gmon_file_grow(g->arcs_off + (i + 1) * g->nslots *
		    sizeof(struct profil_gmon_arc)) < 0) {
			/* A full filesystem: this thread's calls go uncounted, the rest runs on. */
			if (!atomic_exchange(&tables_broken, 1) &&
			    !atomic_exchange(&g->reported, 1))
				profil_gmon_warn("no room for a thread's arcs, its calls are not "
				    "counted", g->name);
			goto full;
		}
		for (n = 0; n < g->nslots; n++)
			t->slots[n].tag = PROFIL_GMON_TAG_ARC;
	}
	self.table = t;
	if (table_key_made)
		pthread_setspecific(table_key, t);
	claim_mark(0);
	atomic_fetch_sub(&profil_gmon_claiming, 1);
	return t;
full:
	claim_mark(0);
	atomic_fetch_sub(&profil_gmon_claiming, 1);
	atomic_fetch_add(&g->dropped, 1);
	report_full();
	return NULL;
}

/*
 * fork(2) child: only the forking thread lives on; the others' tables are free for reuse, and
 * a claim another thread was making at the copy never ends here: counted on, it would keep
 * exit waiting in vain, and the child's profile unmerged.  A half-made table is harmless:
 * exit reads no further than the file's length, and skips empty slots.
 */
void
profil_gmon_thread_forget_all(void)
{
	size_t i, n = atomic_load(&profil_gmon_rt.ntables);

	atomic_store(&profil_gmon_claiming, self.claiming);
	for (i = 0; i < n && i < PROFIL_GMON_TABLES; i++) {
		atomic_store(&profil_gmon_rt.tables[i].inside, 0);
		if (&profil_gmon_rt.tables[i] != self.table)
			atomic_store(&profil_gmon_rt.tables[i].owned, 0);
	}
}

int
profil_gmon_table_is_mine(size_t i)
{
	return self.table == &profil_gmon_rt.tables[i];
}

void
profil_gmon_mcount(uintptr_t frompc, uintptr_t selfpc)
{
	struct profil_gmon *g = &profil_gmon_rt;
	struct profil_gmon_table *t;
	struct profil_gmon_arc *s;
	uintptr_t text = g->highpc - g->lowpc;
	uint64_t from, to;
	size_t i, mask;

	/* Acquire: the layout __monstartup wrote before turning profiling on (free on x86). */
	if (atomic_load_explicit(&g->state, memory_order_acquire) != PROFIL_GMON_ON)
		return;
	/* A signal handler that calls -pg code while this thread is inside mcount. */
	if (self.busy)
		return;
	self.busy = 1;
	atomic_signal_fence(memory_order_seq_cst);
	t = self.table;
	if (t == NULL && (t = table_claim()) == NULL)
		goto out;
	/*
	 * exit sets the state off, then membarrier(2) makes this store visible to it or this
	 * thread see the new state: either way no table is written while it is merged.
	 */
	atomic_store_explicit(&t->inside, 1, memory_order_relaxed);
	atomic_signal_fence(memory_order_seq_cst);
	if (atomic_load_explicit(&g->state, memory_order_relaxed) != PROFIL_GMON_ON)
		goto leave;
	/*
	 * glibc's mcount: calls from outside the text (signal trampolines, libc calling back, a
	 * thread's start) have no caller gprof can name, so no arc.
	 */
	if (selfpc - g->lowpc >= text || frompc - g->lowpc >= text)
		goto leave;
	/* PIE: gprof wants addresses as the executable's symbol table has them. */
	from = frompc - g->bias;
	to = selfpc - g->bias;
	mask = g->nslots - 1;
	for (i = profil_gmon_arc_hash(from, to, mask);; i = (i + 1) & mask) {
		s = &t->slots[i];
		if (s->self_pc == to && s->from_pc == from) {
			if (s->count != UINT32_MAX)
				s->count++;
			goto leave;
		}
		if (s->self_pc == 0)
			break;
	}
	/* maxarcs < nslots, so the probe above always ends at an empty slot. */
	if (t->used >= g->maxarcs) {
		atomic_fetch_add_explicit(&g->dropped, 1, memory_order_relaxed);
		report_full();
		goto leave;
	}
	s->from_pc = from;
	s->count = 1;
	s->self_pc = to;
	t->used++;
leave:
	atomic_signal_fence(memory_order_seq_cst);
	atomic_store_explicit(&t->inside, 0, memory_order_release);
out:
	atomic_signal_fence(memory_order_seq_cst);
	self.busy = 0;
}
