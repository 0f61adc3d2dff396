/*
 * gmon-eperm - a program linked with libprofil but not compiled with -pg: the gmon runtime was
 * never set up, so OpenBSD profil(2)'s "The program was not linked with -pg" is EPERM.
 */
#include <errno.h>

#include "profil.h"
#include "../tap.h"

int
main(void)
{
	struct profil_gmon_status st;
	unsigned short buf[64];
	int r;

	errno = 0;
	r = profil_gmon(buf, sizeof(buf), sizeof(buf), 0, 65536, -1);
	tap_check(r == -1 && errno == EPERM, "\"The program was not linked with -pg\": EPERM");
	/* EPERM comes first: even a scale that is too large is refused for it. */
	errno = 0;
	r = profil_gmon(buf, sizeof(buf), sizeof(buf), 0, 65537, 1000);
	tap_check(r == -1 && errno == EPERM, "EPERM is checked before scale and dirfd");
	moncontrol(1);
	r = profil_gmon_status_get(&st);
	tap_check(r == 0 && !st.setup && !st.running, "moncontrol(1) does nothing without -pg");
	return tap_done();
}
