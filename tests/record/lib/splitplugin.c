/* The dlopen'ed library of the split test: 15% of the CPU, and closed before the end. */
#include "../burn.h"

BURNER(plugin_work15)
