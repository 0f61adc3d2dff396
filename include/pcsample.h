/*
 * pcsample.h - Solaris source compatibility: programs written for pcsample(2) include this
 * header.  The declaration lives in profil.h; see pcsample(3).
 */
#ifndef PCSAMPLE_H
#define PCSAMPLE_H

#include <profil.h>

#endif /* PCSAMPLE_H */
