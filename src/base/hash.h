/*
 * The multiply-xorshift hashes of the tables' keys (words: addresses, ids, counts).  Not for
 * anything an attacker chooses to collide: a seeded table (src/jit/jitdump.c) mixes its own.
 * Inline: the signal-context stack tables and mcount use them as the command does.
 */
#ifndef PROFIL_BASE_HASH_H
#define PROFIL_BASE_HASH_H

#include <stdint.h>

/* Odd constants of well-spread bits (the golden ratio's, then xxHash's and its 64-bit prime). */
#define PROFIL_HASH_K1	0x9e3779b97f4a7c15ULL
#define PROFIL_HASH_K2	0xc2b2ae3d27d4eb4fULL
#define PROFIL_HASH_K3	0x165667b19e3779f9ULL

/* a, b and c, each times its constant, combined: the high bits are the well-mixed ones. */
static inline uint64_t
profil_hash_spread(uint64_t a, uint64_t b, uint64_t c)
{
	return a * PROFIL_HASH_K1 ^ b * PROFIL_HASH_K2 ^ c * PROFIL_HASH_K3;
}

/* A key of up to three words, its high bits folded down for tables that take the low ones. */
static inline uint64_t
profil_hash3(uint64_t a, uint64_t b, uint64_t c)
{
	uint64_t h = profil_hash_spread(a, b, c);

	return h ^ h >> 29;
}

/* One more word v into the running hash h, for keys of any length (a stack's PCs). */
static inline uint64_t
profil_hash_mix(uint64_t h, uint64_t v)
{
	h ^= v;
	h *= PROFIL_HASH_K1;
	return h ^ (h >> 29);
}

#endif
