/* plugin.c - a shared library the report tests dlopen(3), call, and dlclose(3) again. */

int plugin_call(int (*cb)(int line));

/* Calls cb with the line of the call, so the test knows where the return address points. */
__attribute__((noinline, visibility("default"))) int
plugin_call(int (*cb)(int line))
{
	int r = cb(__LINE__);

	return r + 1;
}
