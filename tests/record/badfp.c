/*
 * badfp - spins with the frame pointer register holding hostile values: null, odd, unmapped,
 * a heap address, a stack slot that points to itself, the top of the stack.  Recorded with
 * -g, a frame-pointer walk that trusted rbp would fault or loop; ours must not.  Also runs the
 * spins on a second thread.  Prints "survived".
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

/* spin_with_rbp(value, iterations): rbp = value while spinning; saved and restored around. */
void spin_with_rbp(uintptr_t rbp, unsigned long n);
__asm__(".text\n"
    ".globl spin_with_rbp\n"
    ".type spin_with_rbp, @function\n"
    "spin_with_rbp:\n"
    "	push %rbp\n"
    "	mov %rdi, %rbp\n"
    "1:	dec %rsi\n"
    "	jnz 1b\n"
    "	pop %rbp\n"
    "	ret\n"
    ".size spin_with_rbp, .-spin_with_rbp\n");

static unsigned long iterations = 20000000;

static void *
spins(void *unused)
{
	uintptr_t cycle[2];
	uintptr_t below[4];
	void *heap = malloc(64);
	uintptr_t values[8];
	int i;

	(void)unused;
	cycle[0] = (uintptr_t)&cycle[0];	/* a frame whose caller is itself */
	cycle[1] = (uintptr_t)spin_with_rbp;
	below[0] = (uintptr_t)&below[0] - 64;	/* a "caller" further down the stack */
	below[1] = (uintptr_t)spin_with_rbp;
	values[0] = 0;
	values[1] = 1;
	values[2] = (uintptr_t)0xdeadbeef000ULL;
	values[3] = (uintptr_t)heap;
	values[4] = (uintptr_t)&cycle[0];
	values[5] = (uintptr_t)&below[0];
	values[6] = ~(uintptr_t)7;
	values[7] = (uintptr_t)&cycle[0] + 3;
	for (i = 0; i < 8; i++)
		spin_with_rbp(values[i], iterations);
	free(heap);
	return NULL;
}

int
main(int argc, char **argv)
{
	pthread_t t;

	if (argc > 1)
		iterations = strtoul(argv[1], NULL, 10);
	spins(NULL);
	if (pthread_create(&t, NULL, spins, NULL) != 0 || pthread_join(t, NULL) != 0)
		return 1;
	printf("survived\n");
	return 0;
}
