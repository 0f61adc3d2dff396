/*
 * frame.c - DWARF call frame information (.eh_frame, .debug_frame) run into unwind table rows:
 * every CIE and FDE is read with its bounds checked, each FDE's instructions are executed from
 * its CIE's initial state, and each location where the rules change becomes a row of what an
 * x86-64 walk needs (the CFA, the caller's rbp and rbx, the return address at CFA - 8).  Rules
 * the walk cannot follow become PROFIL_CFA_BAD rows, so that a stack is cut there rather than
 * given a wrong parent.  DWARF 5 section 6.4; the .eh_frame differences are the LSB's.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cfi.h"
#include "dwarf.h"

/* DWARF register numbers on x86-64. */
#define DW_RBX	3
#define DW_RBP	6
#define DW_RSP	7
#define DW_RA	16

#define MAX_CIE_INSNS	4096			/* real CIEs hold a dozen bytes */
#define CIE_CACHE	64
#define MAX_REMEMBER	16

/* ---- rules ---- */

enum rule_kind { R_SAME, R_UNDEF, R_OFFSET, R_AT_FP, R_OTHER };

struct rule {
	uint8_t kind;
	int64_t off;
};

enum cfa_def { C_REG, C_DEREF_FP, C_PLT, C_OTHER };

struct state {
	uint8_t cfa_def;
	uint64_t cfa_reg;
	int64_t cfa_off;
	uint8_t plt_k;
	struct rule rbx, rbp, ra;
};

struct cie {
	uint64_t code_align;
	int64_t data_align;
	uint64_t ra_reg;
	uint8_t fde_enc;
	int aug_z;
	int signal;
	const uint8_t *insns, *insns_end;
	int bad;
};

static int
fits(int64_t v, int64_t lo, int64_t hi)
{
	return v >= lo && v <= hi;
}

/* A callee-saved register's rule as the walk takes it (enum profil_fp_rule), *off set. */
static uint8_t
saved_rule(const struct rule *r, int16_t *off)
{
	switch (r->kind) {
	case R_SAME:
		return PROFIL_FP_SAME;
	case R_OFFSET:
	case R_AT_FP:
		if (!fits(r->off, INT16_MIN, INT16_MAX))
			return PROFIL_FP_LOST;
		*off = (int16_t)r->off;
		return r->kind == R_OFFSET ? PROFIL_FP_AT_CFA : PROFIL_FP_AT_FP;
	default:
		return PROFIL_FP_LOST;
	}
}

/* What the walk needs of a state. */
static void
row_of(const struct state *st, const struct cie *cie, struct profil_unwind_row *row)
{
	memset(row, 0, sizeof(*row));
	if (cie->signal) {
		row->cfa = PROFIL_CFA_SIGNAL;
		return;
	}
	if (st->ra.kind == R_UNDEF) {
		row->cfa = PROFIL_CFA_END;
		return;
	}
	row->cfa = PROFIL_CFA_BAD;
	if (st->ra.kind != R_OFFSET || st->ra.off != -8 || !fits(st->cfa_off, INT32_MIN, INT32_MAX))
		return;
	switch (st->cfa_def) {
	case C_REG:
		if (st->cfa_reg == DW_RSP)
			row->cfa = PROFIL_CFA_SP;
		else if (st->cfa_reg == DW_RBP)
			row->cfa = PROFIL_CFA_FP;
		else if (st->cfa_reg == DW_RBX)
			row->cfa = PROFIL_CFA_BX;
		else
			return;
		break;
	case C_DEREF_FP:
		row->cfa = PROFIL_CFA_FP_DEREF;
		break;
	case C_PLT:
		row->cfa = PROFIL_CFA_PLT;
		row->cfa_off = (int32_t)st->cfa_off;
		row->fp_off = st->plt_k;
		return;
	default:
		return;
	}
	row->cfa_off = (int32_t)st->cfa_off;
	row->fp = saved_rule(&st->rbp, &row->fp_off);
	row->bx = saved_rule(&st->rbx, &row->bx_off);
}

/*
 * The two CFA expressions compilers emit that a walk can follow: a realigned frame's
 * (DW_OP_breg6 N; DW_OP_deref) and the lazy PLT's (DW_OP_breg7 N; DW_OP_breg16 0; DW_OP_lit15;
 * DW_OP_and; DW_OP_litK; DW_OP_ge; DW_OP_lit3; DW_OP_shl; DW_OP_plus).
 */
static void
cfa_expression(struct state *st, const uint8_t *e, size_t len)
{
	struct cursor c = { e, e + len, 0 };
	/* After DW_OP_breg7 N; 0xff: the DW_OP_litK byte. */
	static const uint8_t plt[] = { 0x80, 0x00, 0x3f, 0x1a, 0xff, 0x2a, 0x33, 0x24, 0x22 };
	int64_t n;

	st->cfa_def = C_OTHER;
	if (len < 2)
		return;
	if (e[0] == 0x76) {		/* DW_OP_breg6 */
		c.p++;
		n = cfi_sleb(&c);
		if (!c.bad && c.end - c.p == 1 && c.p[0] == 0x06) {
			st->cfa_def = C_DEREF_FP;
			st->cfa_off = n;
		}
	} else if (e[0] == 0x77) {	/* DW_OP_breg7 */
		c.p++;
		n = cfi_sleb(&c);
		if (c.bad || c.end - c.p != (ptrdiff_t)sizeof(plt))
			return;
		for (size_t i = 0; i < sizeof(plt); i++)
			if (plt[i] != 0xff ? c.p[i] != plt[i] : c.p[i] < 0x30 || c.p[i] > 0x3f)
				return;
		st->cfa_def = C_PLT;
		st->cfa_off = n;
		st->plt_k = (uint8_t)(c.p[4] - 0x30);
	}
}

/* A register's rule DW_CFA_expression: the caller's rbp saved at rbp + N (DW_OP_breg6 N). */
static struct rule
reg_expression(const uint8_t *e, size_t len)
{
	struct cursor c = { e, e + len, 0 };
	struct rule r = { R_OTHER, 0 };

	if (len >= 2 && e[0] == 0x76) {
		c.p++;
		r.off = cfi_sleb(&c);
		if (!c.bad && c.p == c.end)
			r.kind = R_AT_FP;
	}
	return r;
}

static struct rule *
rule_of(struct state *st, uint64_t reg)
{
	if (reg == DW_RBX)
		return &st->rbx;
	if (reg == DW_RBP)
		return &st->rbp;
	if (reg == DW_RA)
		return &st->ra;
	return NULL;
}

static void
set_rule(struct state *st, uint64_t reg, uint8_t kind, int64_t off)
{
	struct rule *r = rule_of(st, reg);

	if (r != NULL) {
		r->kind = kind;
		r->off = off;
	}
}

/*
 * Runs instructions [p, end) from st, the location from *locp.  With rows set (an FDE), each
 * advance of the location adds the row of the state before it.  Returns 0, or -1 at an
 * instruction it cannot read, with *locp where that instruction applies.
 */
static int
run(const struct section *s, const struct cie *cie, const struct state *initial,
    struct state *st, const uint8_t *p, const uint8_t *end, uint64_t *locp, uint64_t loc_end,
    struct rows *rows)
{
	uint64_t loc = *locp;
	struct cursor c = { p, end, 0 };
	struct state stack[MAX_REMEMBER];
	size_t depth = 0;
	struct profil_unwind_row row;

	while (c.p < c.end && !c.bad) {
		uint8_t op = *c.p++;
		uint64_t reg, delta = 0, newloc;
		int64_t off;
		const uint8_t *blk;

		switch (op >> 6) {
		case 1:
			delta = (op & 0x3f) * cie->code_align;
			goto advance;
		case 2:
			off = cfi_factored(cfi_uleb(&c), cie->data_align);
			set_rule(st, op & 0x3f, R_OFFSET, off);
			continue;
		case 3:
			reg = op & 0x3f;
			if (rule_of(st, reg) != NULL)
				*rule_of(st, reg) = *rule_of((struct state *)initial, reg);
			continue;
		default:
			break;
		}
		switch (op) {
		case 0x00:	/* nop */
			break;
		case 0x01:	/* set_loc */
			newloc = cfi_pointer(&c, s, cie->fde_enc);
			if (c.bad || newloc < loc)
				goto bad;
			delta = newloc - loc;
			goto advance;
		case 0x02:
			delta = cfi_get_n(&c, 1) * cie->code_align;
			goto advance;
		case 0x03:
			delta = cfi_get_n(&c, 2) * cie->code_align;
			goto advance;
		case 0x04:
			delta = cfi_get_n(&c, 4) * cie->code_align;
			goto advance;
		case 0x05:	/* offset_extended */
			reg = cfi_uleb(&c);
			off = cfi_factored(cfi_uleb(&c), cie->data_align);
			set_rule(st, reg, R_OFFSET, off);
			break;
		case 0x06:	/* restore_extended */
			reg = cfi_uleb(&c);
			if (rule_of(st, reg) != NULL)
				*rule_of(st, reg) = *rule_of((struct state *)initial, reg);
			break;
		case 0x07:	/* undefined */
			set_rule(st, cfi_uleb(&c), R_UNDEF, 0);
			break;
		case 0x08:	/* same_value */
			set_rule(st, cfi_uleb(&c), R_SAME, 0);
			break;
		case 0x09:	/* register */
			reg = cfi_uleb(&c);
			(void)cfi_uleb(&c);
			set_rule(st, reg, R_OTHER, 0);
			break;
		case 0x0a:	/* remember_state */
			if (depth == MAX_REMEMBER)
				goto bad;
			stack[depth++] = *st;
			break;
		case 0x0b:	/* restore_state: the CFA too, as GCC's epilogues expect */
			if (depth == 0)
				goto bad;
			*st = stack[--depth];
			break;
		case 0x0c:	/* def_cfa */
			st->cfa_def = C_REG;
			st->cfa_reg = cfi_uleb(&c);
			st->cfa_off = (int64_t)cfi_uleb(&c);
			break;
		case 0x0d:	/* def_cfa_register: only after a register rule */
			st->cfa_reg = cfi_uleb(&c);
			if (st->cfa_def != C_REG)
				st->cfa_def = C_OTHER;
			break;
		case 0x0e:	/* def_cfa_offset: likewise */
			st->cfa_off = (int64_t)cfi_uleb(&c);
			if (st->cfa_def != C_REG)
				st->cfa_def = C_OTHER;
			break;
		case 0x0f:	/* def_cfa_expression */
			off = (int64_t)cfi_uleb(&c);
			blk = c.p;
			cfi_skip(&c, (uint64_t)off);
			if (!c.bad)
				cfa_expression(st, blk, (size_t)off);
			break;
		case 0x10:	/* expression */
			reg = cfi_uleb(&c);
			off = (int64_t)cfi_uleb(&c);
			blk = c.p;
			cfi_skip(&c, (uint64_t)off);
			if (!c.bad && rule_of(st, reg) != NULL)
				*rule_of(st, reg) = reg_expression(blk, (size_t)off);
			break;
		case 0x11:	/* offset_extended_sf */
			reg = cfi_uleb(&c);
			off = cfi_factored((uint64_t)cfi_sleb(&c), cie->data_align);
			set_rule(st, reg, R_OFFSET, off);
			break;
		case 0x12:	/* def_cfa_sf */
			st->cfa_def = C_REG;
			st->cfa_reg = cfi_uleb(&c);
			st->cfa_off = cfi_factored((uint64_t)cfi_sleb(&c), cie->data_align);
			break;
		case 0x13:	/* def_cfa_offset_sf */
			st->cfa_off = cfi_factored((uint64_t)cfi_sleb(&c), cie->data_align);
			if (st->cfa_def != C_REG)
				st->cfa_def = C_OTHER;
			break;
		case 0x14:	/* val_offset */
		case 0x15:	/* val_offset_sf */
			reg = cfi_uleb(&c);
			if (op == 0x14)
				(void)cfi_uleb(&c);
			else
				(void)cfi_sleb(&c);
			set_rule(st, reg, R_OTHER, 0);
			break;
		case 0x16:	/* val_expression */
			reg = cfi_uleb(&c);
			cfi_skip(&c, cfi_uleb(&c));
			set_rule(st, reg, R_OTHER, 0);
			break;
		case 0x2e:	/* GNU_args_size */
			(void)cfi_uleb(&c);
			break;
		case 0x2f:	/* GNU_negative_offset_extended */
			reg = cfi_uleb(&c);
			off = cfi_factored(0 - cfi_uleb(&c), cie->data_align);
			set_rule(st, reg, R_OFFSET, off);
			break;
		default:
			goto bad;
		}
		continue;
advance:
		if (c.bad)
			goto bad;
		if (delta == 0)
			continue;	/* an empty range: nothing to add */
		if (rows != NULL) {
			if (delta >= loc_end - loc)
				break;	/* rules past the entry's end are not used */
			row_of(st, cie, &row);
			cfi_push(rows, loc, 1, &row);
		}
		loc += delta;
	}
	*locp = loc;
	return c.bad ? -1 : 0;
bad:
	*locp = loc;
	return -1;
}

/* Parses the CIE at off; returns 0 with cie and its initial state filled, or -1. */
static int
read_cie(const struct section *s, size_t off, struct cie *cie, struct state *init)
{
	struct cursor c = { s->data + off, s->data + s->len, 0 };
	uint64_t len = cfi_get_n(&c, 4);
	const char *aug;
	size_t auglen;
	uint8_t version;
	uint64_t loc = 0;

	memset(cie, 0, sizeof(*cie));
	if (len == 0xffffffff) {
		len = cfi_get_n(&c, 8);
		if (c.bad || len < 8 || len > (uint64_t)(c.end - c.p))
			return -1;
		c.end = c.p + len;
		if (cfi_get_n(&c, 8) != (s->eh ? 0 : UINT64_MAX))
			return -1;
	} else {
		if (c.bad || len < 4 || len > (uint64_t)(c.end - c.p))
			return -1;
		c.end = c.p + len;
		if (cfi_get_n(&c, 4) != (s->eh ? 0 : 0xffffffff))
			return -1;
	}
	version = (uint8_t)cfi_get_n(&c, 1);
	if (c.bad || (version != 1 && version != 3 && version != 4))
		return -1;
	aug = (const char *)c.p;
	auglen = strnlen(aug, (size_t)(c.end - c.p));
	if (auglen == (size_t)(c.end - c.p))
		return -1;
	c.p += auglen + 1;
	if (version == 4) {
		if (cfi_get_n(&c, 1) != 8)	/* address_size */
			return -1;
		(void)cfi_get_n(&c, 1);	/* segment_selector_size */
	}
	cie->code_align = cfi_uleb(&c);
	cie->data_align = cfi_sleb(&c);
	cie->ra_reg = version == 1 ? cfi_get_n(&c, 1) : cfi_uleb(&c);
	cie->fde_enc = 0;
	if (aug[0] == 'z') {
		uint64_t alen = cfi_uleb(&c);
		const uint8_t *aend;

		if (c.bad || alen > (uint64_t)(c.end - c.p))
			return -1;
		aend = c.p + alen;
		cie->aug_z = 1;
		for (size_t i = 1; i < auglen; i++) {
			uint8_t enc;

			switch (aug[i]) {
			case 'L':
				(void)cfi_get_n(&c, 1);
				break;
			case 'P':
				enc = (uint8_t)cfi_get_n(&c, 1);
				(void)cfi_pointer(&c, s, enc & 0x7f);
				break;
			case 'R':
				cie->fde_enc = (uint8_t)cfi_get_n(&c, 1);
				break;
			case 'S':
				cie->signal = 1;
				break;
			case 'B':
			case 'G':
				break;
			default:
				i = auglen;	/* unknown: the length says where the data ends */
				break;
			}
		}
		if (c.bad || c.p > aend)
			return -1;
		c.p = aend;
	} else if (aug[0] != '\0') {
		return -1;
	}
	if (c.bad || cie->code_align == 0 || cie->ra_reg != DW_RA)
		return -1;
	cie->insns = c.p;
	cie->insns_end = c.end;
	if (c.end - c.p > MAX_CIE_INSNS)
		return -1;
	/* The state every FDE starts from; an x86-64 CIE says where the return address is. */
	memset(init, 0, sizeof(*init));
	init->cfa_def = C_OTHER;
	init->ra.kind = R_OTHER;
	return run(s, cie, init, init, cie->insns, cie->insns_end, &loc, 0, NULL);
}

/* The CIEs read, by offset, direct-mapped: FDEs share a few CIEs, each read once. */
struct cie_cache {
	size_t off;
	int valid, ok;
	struct cie cie;
	struct state init;
};

static void
read_fde(const struct section *s, struct cursor *c, size_t cie_off, struct cie_cache *cache,
    struct rows *rows)
{
	struct cie_cache *cc = &cache[(cie_off / 4) % CIE_CACHE];
	struct state st;
	uint64_t begin, range, loc;
	struct profil_unwind_row row;

	if (!cc->valid || cc->off != cie_off) {
		cc->valid = 1;
		cc->off = cie_off;
		cc->ok = read_cie(s, cie_off, &cc->cie, &cc->init) == 0;
	}
	if (!cc->ok)
		return;
	begin = cfi_pointer(c, s, s->eh ? cc->cie.fde_enc : 0);
	range = cfi_pointer(c, s, s->eh ? (cc->cie.fde_enc & 0x0f) : 0);
	if (cc->cie.aug_z)
		cfi_skip(c, cfi_uleb(c));
	/* .debug_frame keeps entries of functions the linker dropped, at address 0. */
	if (c->bad || range == 0 || begin + range < begin || (!s->eh && begin == 0))
		return;
	if (rows->ents != NULL) {
		cfi_push_entry(rows, begin, begin + range);
		return;
	}
	st = cc->init;
	loc = begin;
	if (run(s, &cc->cie, &cc->init, &st, c->p, c->end, &loc, begin + range, rows) == 0) {
		row_of(&st, &cc->cie, &row);
	} else {
		/* From an instruction we cannot read on, no rule is known: a cut, not the last. */
		memset(&row, 0, sizeof(row));
		row.cfa = PROFIL_CFA_BAD;
	}
	cfi_push(rows, loc, 1, &row);
	memset(&row, 0, sizeof(row));
	cfi_push(rows, begin + range, 0, &row);
}

/* Reads every entry of the section into rows (or, with rows->ents, their ranges). */
static int
walk(const uint8_t *data, size_t len, uint64_t vaddr, int eh, struct rows *rows)
{
	const struct section s = { data, len, vaddr, eh };
	struct cie_cache *cc = calloc(CIE_CACHE, sizeof(*cc));
	size_t off = 0;

	if (cc == NULL)
		return -ENOMEM;
	while (len - off >= 4) {
		struct cursor c = { data + off, data + len, 0 };
		uint64_t elen = cfi_get_n(&c, 4), id;
		size_t id_off, next;
		int wide = elen == 0xffffffff;

		if (elen == 0) {
			if (eh)
				break;		/* the terminator */
			off += 4;
			continue;
		}
		if (wide)
			elen = cfi_get_n(&c, 8);
		if (c.bad || elen > (uint64_t)(c.end - c.p))
			break;
		next = (size_t)(c.p - data) + (size_t)elen;
		c.end = c.p + elen;
		id_off = (size_t)(c.p - data);
		id = cfi_get_n(&c, wide ? 8 : 4);
		if (!c.bad) {
			const uint64_t cie_mark = eh ? 0 : wide ? UINT64_MAX : 0xffffffff;

			if (id != cie_mark) {
				/* .eh_frame: back from the id field; .debug_frame: from the start. */
				if (!eh)
					read_fde(&s, &c, (size_t)(id < len ? id : len), cc, rows);
				else if (id <= id_off)
					read_fde(&s, &c, id_off - (size_t)id, cc, rows);
			}
		}
		if (rows->err)
			break;
		off = next;
	}
	free(cc);
	return rows->err;
}

int
profil_cfi_rows(const uint8_t *data, size_t len, uint64_t vaddr, int eh,
    struct profil_unwind_table *out)
{
	struct rows rows = { 0 };
	int err = walk(data, len, vaddr, eh, &rows);

	if (err == 0)
		err = cfi_finish(&rows, out);
	free(rows.v);
	return err;
}

int
profil_cfi_entries(const uint8_t *data, size_t len, uint64_t vaddr, int eh,
    struct profil_cfi_entries *out)
{
	struct rows rows = { 0 };
	int err;

	rows.ents = out;
	rows.ents_cap = out->n;
	err = walk(data, len, vaddr, eh, &rows);
	free(rows.v);
	return err;
}
