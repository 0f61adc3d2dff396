/* The linked shared library of the split test: a quarter of the CPU is spent here. */
#include "../burn.h"

BURNER(lib_work25)
