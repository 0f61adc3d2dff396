/*
 * Signal context: the recorder's aggregation.  Open addressing over a table mapped before
 * arming: a tick finds its key's entry and adds to its count, or claims an empty slot with a
 * compare-and-swap, fills it and publishes it.  A slot another thread is still filling is
 * passed over, so the same key may occupy two entries (readers add them up); a full table or
 * pool drops the tick and counts it.
 */
#include <sys/syscall.h>
#include <unistd.h>

#include "base/hash.h"
#include "stacks.h"

#define MAX_PROBE 64
#define MAX_DEPTH 256

static int
same_key(const struct profil_stack_table *t, const struct profil_stack_entry *e, uint32_t tid,
    uint32_t epoch, const uint64_t *pcs, size_t depth)
{
	const uint64_t *have = t->pool + e->pcs;
	size_t i;

	if (e->tid != tid || e->epoch != epoch || e->depth != depth)
		return 0;
	for (i = 0; i < depth; i++)
		if (have[i] != pcs[i])
			return 0;
	return 1;
}

__thread uint32_t profil_sample_tid __attribute__((tls_model("initial-exec")));

static uint32_t
current_tid(void)
{
#if defined(__x86_64__)
	long tid;

	if (profil_sample_tid != 0)
		return profil_sample_tid;

	/* gettid(2) inline: it cannot fail, and libc's wrapper is one more symbol to trust. */
	__asm__ volatile("syscall" : "=a"(tid) : "0"((long)SYS_gettid) : "rcx", "r11", "memory");
	return (uint32_t)tid;
#else
	if (profil_sample_tid != 0)
		return profil_sample_tid;
	return (uint32_t)syscall(SYS_gettid);
#endif
}

static void
copy_pcs(uint64_t *dst, const uint64_t *src, size_t n)
{
	while (n-- > 0)
		*dst++ = *src++;
}

/* Enters the current table; see struct profil_stacks for why the re-check makes it safe. */
static struct profil_stack_table *
table_enter(struct profil_stacks *s)
{
	struct profil_stack_table *t;

	for (;;) {
		t = atomic_load(&s->cur);
		atomic_fetch_add(&t->inflight, 1);
		if (atomic_load(&s->cur) == t)
			return t;
		atomic_fetch_sub(&t->inflight, 1);
	}
}

/* The index of the key's entry, its weight added; -1 when no room was found. */
static long
table_add(struct profil_stack_table *t, uint32_t tid, uint32_t epoch, const uint64_t *pcs,
    size_t depth, uint64_t weight, uint64_t h)
{
	size_t i, off, mask = t->nentries - 1;

	for (i = 0; i < MAX_PROBE; i++) {
		struct profil_stack_entry *e = &t->entries[(h + i) & mask];
		uint_least64_t st = atomic_load_explicit(&e->state, memory_order_acquire);

		if (st == PROFIL_STACK_EMPTY) {
			uint_least64_t expect = PROFIL_STACK_EMPTY;

			if (!atomic_compare_exchange_strong_explicit(&e->state, &expect,
			    PROFIL_STACK_BUSY, memory_order_acquire, memory_order_acquire)) {
				st = expect;
				goto compare;
			}
			atomic_fetch_add_explicit(&t->used, 1, memory_order_relaxed);
			off = atomic_fetch_add_explicit(&t->pool_used, depth, memory_order_relaxed);
			if (off + depth > t->npool) {
				atomic_store_explicit(&e->state, PROFIL_STACK_DEAD,
				    memory_order_release);
				return -1;
			}
			copy_pcs(t->pool + off, pcs, depth);
			e->tid = tid;
			e->epoch = epoch;
			e->depth = (uint32_t)depth;
			e->pcs = (uint32_t)off;
			atomic_store_explicit(&e->count, weight, memory_order_relaxed);
			atomic_store_explicit(&e->state, h, memory_order_release);
			return (long)((h + i) & mask);
		}
compare:
		if (st == h && same_key(t, e, tid, epoch, pcs, depth)) {
			atomic_fetch_add_explicit(&e->count, weight, memory_order_relaxed);
			return (long)((h + i) & mask);
		}
	}
	return -1;
}

size_t
profil_stacks_drop_self(const struct profil_stacks *s, uint64_t *pcs, size_t depth)
{
	size_t i, n = depth > 0 ? 1 : 0;

	/* A return address: its call is the byte before.  Markers and 0 wrap past self_hi. */
	for (i = 1; i < depth; i++)
		if (pcs[i] - 1 < s->self_lo || pcs[i] - 1 >= s->self_hi)
			pcs[n++] = pcs[i];
	return n;
}

void
profil_stacks_add(struct profil_stacks *s, uint32_t tid, const uint64_t *pcs, size_t depth,
    uint64_t weight, uint64_t when)
{
	uint32_t epoch = atomic_load_explicit(&s->epoch, memory_order_relaxed);
	struct profil_stack_table *t;
	uint64_t h;
	size_t i;
	long row;

	if (depth == 0)
		return;
	h = profil_hash_mix(profil_hash_mix(0x70726f66, tid), epoch);
	for (i = 0; i < depth; i++)
		h = profil_hash_mix(h, pcs[i]);
	h |= 1ULL << 63;
	t = table_enter(s);
	row = table_add(t, tid, epoch, pcs, depth, weight, h);
	if (row < 0) {
		atomic_fetch_add_explicit(&s->dropped, weight, memory_order_relaxed);
	} else {
		if (s->last != NULL && pcs[0] < PROFIL_PC_WAIT_MIN)
			atomic_store_explicit(&s->last[tid & (s->nlast - 1)],
			    1 + ((uint64_t)(t - s->tables) << 32 | (uint64_t)row),
			    memory_order_release);
		/* Before leaving the table: a spill waits for its adders, so for their times. */
		if (s->times != NULL)
			profil_time_push(s->times, PROFIL_TIME_KEY(t - s->tables, row), when,
			    weight);
	}
	atomic_fetch_sub(&t->inflight, 1);
}

void
profil_stacks_tick(const struct profil_tick *tick, void *arg)
{
	struct profil_stacks *s = arg;
	/* Before the walk, which may take microseconds: the time is the tick's. */
	uint64_t when = s->times != NULL ? profil_time_tick(s->times, tick->precise) : 0;
	uint64_t pcs[MAX_DEPTH];
	size_t depth;

	if (s->max_depth > 1 && tick->uc != NULL) {
		size_t max = s->max_depth < MAX_DEPTH ? s->max_depth : MAX_DEPTH;

		if (s->unwind != NULL)
			depth = profil_unwind_context(tick->uc, s->unwind, pcs, max);
		else
			depth = profil_unwind_fp(tick->uc, pcs, max);
		pcs[0] = tick->pc;
		depth = profil_stacks_drop_self(s, pcs, depth);
	} else {
		pcs[0] = tick->pc;
		depth = 1;
	}
	profil_stacks_add(s, current_tid(), pcs, depth, tick->weight, when);
}
