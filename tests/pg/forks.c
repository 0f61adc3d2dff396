/*
 * forks - a -pg program that forks from many threads at once, for t2026:
 *
 *	forks THREADS FORKS
 *
 * Each of THREADS threads forks FORKS times, one child at a time; every child calls
 * child_work() 3 times (about 15 ms of CPU time each) and exits, and its thread waits for it,
 * then calls parent_work().  Once every thread has joined, main calls after_forks() 10 times
 * (about 20 ms each).  Prints "parent PID"; exits 0 if every child exited with 0.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MS 1000000ULL

void child_work(void);
void parent_work(void);
void after_forks(void);

static volatile unsigned long sink;
static int forks;
static int failed;

static unsigned long long
cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (unsigned long long)ts.tv_sec * 1000000000ULL + (unsigned long long)ts.tv_nsec;
}

/* Inlined, -fno-inline notwithstanding, so that the ticks land in the function that burns. */
static inline __attribute__((always_inline)) void
burn(unsigned long long ms, unsigned long mul)
{
	unsigned long long end = cpu_ns() + ms * MS;
	unsigned long x = sink;
	int i;

	while (cpu_ns() < end)
		for (i = 0; i < 100000; i++)
			x = x * mul + 1442695040888963407UL;
	sink = x;
}

void
child_work(void)
{
	burn(15, 6364136223846793005UL);
}

void
parent_work(void)
{
	sink++;
}

void
after_forks(void)
{
	burn(20, 2862933555777941757UL);
}

static void *
forker(void *unused)
{
	int i, status;
	pid_t pid;

	(void)unused;
	for (i = 0; i < forks; i++) {
		pid = fork();
		if (pid == 0) {
			child_work();
			child_work();
			child_work();
			exit(0);
		}
		if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
		    WEXITSTATUS(status) != 0)
			__atomic_store_n(&failed, 1, __ATOMIC_SEQ_CST);
		parent_work();
	}
	return NULL;
}

int
main(int argc, char **argv)
{
	pthread_t t[64];
	int i, n;

	if (argc != 3 || (n = atoi(argv[1])) < 1 || n > 64 || (forks = atoi(argv[2])) < 1)
		return 2;
	printf("parent %d\n", (int)getpid());
	fflush(stdout);
	for (i = 0; i < n; i++)
		if (pthread_create(&t[i], NULL, forker, NULL) != 0)
			return 1;
	for (i = 0; i < n; i++)
		pthread_join(t[i], NULL);
	for (i = 0; i < 10; i++)
		after_forks();
	return failed;
}
