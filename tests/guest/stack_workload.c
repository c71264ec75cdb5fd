// SPDX-License-Identifier: GPL-2.0
/*
 * A known user call chain for contexts.sh's callstack-user case:
 * main -> outer -> mid -> leaf, where leaf enters getppid() with its own
 * syscall instruction, N times.  Built without optimisation and with
 * frame pointers (see the Makefile), so that the kernel's frame-pointer
 * walk of the user stack finds, from the innermost: an address in leaf
 * (the instruction after the syscall), then return addresses in mid,
 * outer and main.  Prints the start of each function and of end_marker,
 * the function laid out after them, so that the test can bound each:
 *   -> pid=P leaf=0x... mid=0x... outer=0x... main=0x... end=0x...
 * With a second argument DEPTH, each call comes from DEPTH nested frames
 * of deep() instead: -> pid=P
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

#define NOINLINE __attribute__((noinline))

static NOINLINE long leaf(void)
{
	long ret;

	asm volatile("syscall" : "=a"(ret) : "0"((long)SYS_getppid)
		     : "rcx", "r11", "memory");
	return ret;
}

static NOINLINE long mid(void)
{
	return leaf() + 1;
}

/* A user stack deeper than the tracer keeps: depth frames, then leaf. */
static NOINLINE long deep(long depth)
{
	if (depth > 0)
		return deep(depth - 1) + 1;
	return leaf();
}

static NOINLINE long outer(long n)
{
	long i, sum = 0;

	for (i = 0; i < n; i++)
		sum += mid();
	return sum;
}

static void end_marker(void);

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc > 2) {
		/* deep N DEPTH: N calls from DEPTH nested frames of deep() */
		for (long i = 0; i < n; i++)
			deep(atol(argv[2]));
		printf("pid=%d\n", getpid());
		return 0;
	}
	if (outer(n) <= 0)
		return 1;
	printf("pid=%d leaf=%p mid=%p outer=%p main=%p end=%p\n", getpid(),
	       (void *)leaf, (void *)mid, (void *)outer, (void *)main,
	       (void *)end_marker);
	end_marker();
	return 0;
}

static NOINLINE void end_marker(void)
{
}
