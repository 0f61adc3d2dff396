/* exit3 built with -pg: the gmon runtime under an inherited seccomp filter (t1009). */
#include "../record/exit3.c"
