/* shared.c - a shared library the report tests link against: code at a load address of its own. */

int shared_call(int (*cb)(int line));

/* Calls cb with the line of the call, so the test knows where the return address points. */
__attribute__((noinline, visibility("default"))) int
shared_call(int (*cb)(int line))
{
	int r = cb(__LINE__);

	return r + 1;
}
