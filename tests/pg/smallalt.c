/* smallalt built with -pg: the gmon runtime's ticks beside a small sigaltstack (t1008). */
#include "../record/smallalt.c"
