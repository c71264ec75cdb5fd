// SPDX-License-Identifier: GPL-2.0
/*
 * tracer_bench: the workloads of the tracer benchmark (tracer_bench.sh).
 *
 *   tracer_bench syscall N        N getppid() calls, back to back
 *   tracer_bench yield N          two SCHED_FIFO threads pinned to CPU 0
 *                                 each call sched_yield() N times: each
 *                                 call switches to the other thread (2
 *                                 context switches per operation, on a
 *                                 fixed code path)
 *   tracer_bench rename N         N prctl(PR_SET_NAME) calls, names
 *                                 alternating: one task_rename trace
 *                                 event each (a TRACE_EVENT() of the
 *                                 task system, not a system call)
 *   tracer_bench kmem N           N stat("/") calls: each takes the path
 *                                 name's buffer from the names_cache slab
 *                                 and gives it back (one kmem_cache_alloc
 *                                 and one kmem_cache_free trace event)
 *   tracer_bench rate R SECONDS   getppid() at R calls per second for
 *                                 SECONDS, paced every 1000 calls
 *   tracer_bench drain FILE       copy FILE, an ftrace trace_pipe_raw, to
 *                                 standard output until SIGTERM, then
 *                                 print "eof=<reads that returned 0>"
 *
 * The workloads print one line: "ops=<operations> ns=<elapsed nanoseconds>".
 *
 * drain is the ftrace consumer of the zero-loss rate: a read of
 * trace_pipe_raw returns 0 not only at the end but also when the ring
 * buffer could not hand over a page while a writer raced it (the buffer
 * not empty), so a plain cat stops for good under load and every later
 * event is overwritten; drain reads again, as lttng-consumerd would.
 *
 * The measured loops of syscall and pingpong run on CPU 0 between the
 * markers of insn_marks.h, for the instruction counts of scripts/bench
 * --insns (no-ops without its QEMU plugin).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include "insn_marks.h"

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

static long rounds;
static volatile int partner_up;

static void *yield_thread(void *arg)
{
	long i;

	pin_cpu0();
	partner_up = 1;
	for (i = 0; i < rounds; i++)
		sched_yield();
	return arg;
}

static long long yields(long n)
{
	struct sched_param fifo = { .sched_priority = 1 };
	long long t0;
	pthread_t t;
	long i;

	rounds = n;
	pin_cpu0();
	/*
	 * Real-time: yield then always hands the CPU to the other thread of
	 * the same priority (CFS may give it back to the caller); the
	 * partner inherits the policy.
	 */
	if (sched_setscheduler(0, SCHED_FIFO, &fifo)) {
		perror("sched_setscheduler");
		exit(1);
	}
	if (pthread_create(&t, NULL, yield_thread, NULL)) {
		fprintf(stderr, "pthread_create failed\n");
		exit(1);
	}
	/* Both threads runnable on CPU 0 before the first measured switch. */
	while (!partner_up)
		sched_yield();
	t0 = now_ns();
	insn_mark_start();
	for (i = 0; i < n; i++)
		sched_yield();
	insn_mark_stop();
	t0 = now_ns() - t0;
	pthread_join(t, NULL);
	return t0;
}

static long long syscalls(long n)
{
	long long t0;
	long i;

	pin_cpu0();
	t0 = now_ns();
	insn_mark_start();
	for (i = 0; i < n; i++)
		syscall(SYS_getppid);
	insn_mark_stop();
	return now_ns() - t0;
}

static long long renames(long n)
{
	static const char * const names[] = { "bench_even", "bench_odd" };
	long long t0;
	long i;

	pin_cpu0();
	t0 = now_ns();
	insn_mark_start();
	for (i = 0; i < n; i++)
		prctl(PR_SET_NAME, names[i & 1]);
	insn_mark_stop();
	t0 = now_ns() - t0;
	prctl(PR_SET_NAME, "tracer_bench");
	return t0;
}

static long long stats(long n)
{
	struct stat st;
	long long t0;
	long i;

	pin_cpu0();
	t0 = now_ns();
	insn_mark_start();
	for (i = 0; i < n; i++)
		stat("/", &st);
	insn_mark_stop();
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

static volatile long drain_eof;

/*
 * SIGTERM ends drain here, whatever it was doing: a flag tested before a
 * read could miss a signal that comes just before the read blocks on an
 * empty buffer, for good.  Every byte read is already written.
 */
static void drain_sigterm(int sig)
{
	char msg[32], digits[24];
	long v = drain_eof;
	int n = 0, i = 0;

	(void)sig;
	do
		digits[i++] = '0' + v % 10;
	while ((v /= 10) && i < (int)sizeof(digits));
	memcpy(msg, "eof=", 4);
	n = 4;
	while (i)
		msg[n++] = digits[--i];
	msg[n++] = '\n';
	if (write(2, msg, n) < 0)
		_exit(1);
	_exit(0);
}

static int drain(const char *path)
{
	static char buf[1 << 16];
	struct sigaction sa = { .sa_handler = drain_sigterm };
	ssize_t n, w, off;
	int fd;

	fd = open(path, O_RDONLY);
	if (fd < 0) {
		perror(path);
		return 1;
	}
	if (sigaction(SIGTERM, &sa, NULL)) {
		perror("sigaction");
		return 1;
	}
	for (;;) {
		n = read(fd, buf, sizeof(buf));
		if (n < 0) {
			perror(path);
			return 1;
		}
		if (n == 0) {
			drain_eof++;
			sched_yield();
			continue;
		}
		for (off = 0; off < n; off += w) {
			w = write(1, buf + off, n - off);
			if (w <= 0) {
				perror("write");
				return 1;
			}
		}
	}
}

int main(int argc, char **argv)
{
	long n = argc > 2 ? atol(argv[2]) : 0;
	long long ns;

	if (argc == 3 && !strcmp(argv[1], "drain"))
		return drain(argv[2]);
	if (argc == 3 && !strcmp(argv[1], "syscall") && n > 0) {
		ns = syscalls(n);
	} else if (argc == 3 && !strcmp(argv[1], "yield") && n > 0) {
		ns = yields(n);
	} else if (argc == 3 && !strcmp(argv[1], "rename") && n > 0) {
		ns = renames(n);
	} else if (argc == 3 && !strcmp(argv[1], "kmem") && n > 0) {
		ns = stats(n);
	} else if (argc == 4 && !strcmp(argv[1], "rate") && n > 0 &&
		   atol(argv[3]) > 0) {
		ns = paced(n, atol(argv[3]), &n);
	} else {
		fprintf(stderr,
			"usage: %s syscall N | yield N | rename N | kmem N | rate R SECONDS | drain FILE\n",
			argv[0]);
		return 2;
	}
	printf("ops=%ld ns=%lld\n", n, ns);
	return 0;
}
