/* classic.h - state shared by the classic interfaces profil(3) and pcsample(2). */
#ifndef PROFIL_CLASSIC_H
#define PROFIL_CLASSIC_H

#include "engine/engine.h"

/* The rate and clock chosen by profil_rate_set(), for the next start. */
unsigned int profil_classic_hz(void);
enum profil_clock profil_classic_clock(void);

#endif /* PROFIL_CLASSIC_H */
