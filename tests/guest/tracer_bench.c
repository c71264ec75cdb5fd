// SPDX-License-Identifier: GPL-2.0
/*
 * tracer_bench: the workloads of the tracer benchmark (tracer_bench.sh).
 *
 *   tracer_bench syscall N        N getppid() calls, back to back
 *   tracer_bench pingpong N       N round trips between two threads pinned
 *                                 to CPU 0 (2 context switches each)
 *   tracer_bench rate R SECONDS   getppid() at R calls per second for
 *                                 SECONDS, paced every 1000 calls
 *
 * Each prints one line: "ops=<operations> ns=<elapsed nanoseconds>".
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/syscall.h>

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void pin_cpu0(void)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(0, &set);
	if (sched_setaffinity(0, sizeof(set), &set)) {
		perror("sched_setaffinity");
		exit(1);
	}
}

static int ping[2], pong[2];
static long rounds;

static void *pong_thread(void *arg)
{
	char c;
	long i;

	pin_cpu0();
	for (i = 0; i < rounds; i++) {
		if (read(ping[0], &c, 1) != 1 || write(pong[1], &c, 1) != 1) {
			perror("pong");
			exit(1);
		}
	}
	return arg;
}

static long long pingpong(long n)
{
	pthread_t t;
	long long t0;
	char c = 'x';
	long i;

	rounds = n;
	if (pipe(ping) || pipe(pong)) {
		perror("pipe");
		exit(1);
	}
	pin_cpu0();
	if (pthread_create(&t, NULL, pong_thread, NULL)) {
		fprintf(stderr, "pthread_create failed\n");
		exit(1);
	}
	t0 = now_ns();
	for (i = 0; i < n; i++) {
		if (write(ping[1], &c, 1) != 1 || read(pong[0], &c, 1) != 1) {
			perror("ping");
			exit(1);
		}
	}
	t0 = now_ns() - t0;
	pthread_join(t, NULL);
	return t0;
}

static long long syscalls(long n)
{
	long long t0 = now_ns();
	long i;

	for (i = 0; i < n; i++)
		syscall(SYS_getppid);
	return now_ns() - t0;
}

static long long paced(long rate, long seconds, long *ops)
{
	long long t0 = now_ns(), end = t0 + seconds * 1000000000LL, t;
	long i, n = 0;

	pin_cpu0();
	while ((t = now_ns()) < end) {
		/* Ahead of the schedule: wait for it. */
		if (n > (t - t0) * (double)rate / 1e9) {
			usleep(100);
			continue;
		}
		for (i = 0; i < 1000; i++)
			syscall(SYS_getppid);
		n += 1000;
	}
	*ops = n;
	return now_ns() - t0;
}

int main(int argc, char **argv)
{
	long n = argc > 2 ? atol(argv[2]) : 0;
	long long ns;

	if (argc == 3 && !strcmp(argv[1], "syscall") && n > 0) {
		ns = syscalls(n);
	} else if (argc == 3 && !strcmp(argv[1], "pingpong") && n > 0) {
		ns = pingpong(n);
	} else if (argc == 4 && !strcmp(argv[1], "rate") && n > 0 &&
		   atol(argv[3]) > 0) {
		ns = paced(n, atol(argv[3]), &n);
	} else {
		fprintf(stderr,
			"usage: %s syscall N | pingpong N | rate R SECONDS\n",
			argv[0]);
		return 2;
	}
	printf("ops=%ld ns=%lld\n", n, ns);
	return 0;
}
