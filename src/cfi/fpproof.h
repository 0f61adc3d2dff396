/*
 * fpproof.h - the frame-pointer proof of fpproof.c, for the walk of a waiting thread's stack
 * (waiting.c).  Private to src/cfi.
 */
#ifndef PROFIL_CFI_FPPROOF_H
#define PROFIL_CFI_FPPROOF_H

#include <stdint.h>
#include <sys/types.h>

#include "cfi.h"

/* Why a walk stopped at f: its rule needs the frame pointer (1, with its module and row), or
 * not (0). */
int profil_unwind_fp_needed(const struct profil_unwind_space *space,
    const struct profil_unwind_stop *f, const struct profil_unwind_module **mod,
    const struct profil_unwind_row **row);
/* The frame pointer of frame f, whose row says CFA = rbp + 16, proved from the code of pid's
 * function: 0 and *fp, or -1. */
int profil_unwind_fp_prove(pid_t pid, const struct profil_unwind_module *mod,
    const struct profil_unwind_row *row, const struct profil_unwind_memory *mem,
    const struct profil_unwind_stop *f, uint64_t *fp);

#endif /* PROFIL_CFI_FPPROOF_H */
