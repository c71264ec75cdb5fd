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
