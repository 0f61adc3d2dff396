/*
 * libcfi.so - a library built without frame pointers (-O2 -fomit-frame-pointer), for
 * cfistack: work deep inside it, and a function small enough that samples land in the PLT
 * stub that calls it.
 */
__attribute__((visibility("default"))) unsigned long cfi_lib_work(unsigned long n);
__attribute__((visibility("default"))) unsigned long cfi_lib_tiny(unsigned long x);

__attribute__((noinline)) static unsigned long
lib_inner(unsigned long n)
{
	volatile unsigned long x = n;

	for (unsigned long i = 0; i < 20000; i++)
		x = x * 2654435761u + i;
	return x;
}

__attribute__((noinline)) unsigned long
cfi_lib_work(unsigned long n)
{
	/* Not a tail call: the caller's frame must be walked through. */
	return lib_inner(n) ^ n;
}

__attribute__((noinline)) unsigned long
cfi_lib_tiny(unsigned long x)
{
	return x + 1;
}
