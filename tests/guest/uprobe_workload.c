// SPDX-License-Identifier: GPL-2.0
/*
 * uprobe_workload N: the user-space code uprobes.sh probes.  Prints the
 * address of uprobe_target() and the first byte of its code as this
 * process sees it (0xcc while a uprobe is registered there), then calls
 * uprobe_target() N times and passes the SDT probe lttng_test:tock N
 * times, alternately at its two sites.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/sdt.h>

__attribute__((noinline)) int uprobe_target(int i)
{
	asm volatile("" ::: "memory");
	return i * 3;
}

int main(int argc, char **argv)
{
	volatile int sum = 0;
	long i, n;

	if (argc != 2) {
		fprintf(stderr, "usage: %s N\n", argv[0]);
		return 2;
	}
	n = strtol(argv[1], NULL, 0);
	printf("%p %02x\n", (void *)uprobe_target,
	       *(volatile unsigned char *)uprobe_target);
	fflush(stdout);
	for (i = 0; i < n; i++) {
		sum += uprobe_target(i);
		if (i & 1)
			DTRACE_PROBE1(lttng_test, tock, i);
		else
			DTRACE_PROBE1(lttng_test, tock, -i);
	}
	return sum == -1;
}
