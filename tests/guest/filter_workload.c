// SPDX-License-Identifier: GPL-2.0
/*
 * filter_workload: events whose values filters.sh knows, each made once.
 *   - renames itself "fltwl", then "flt0" ... "flt9" (task_rename: oldcomm,
 *     newcomm), and back to "fltwl";
 *   - close(100000 + i) for i = 0..19 (EBADF: no process has such an fd);
 *   - openat() of each path given on the command line (ENOENT).
 * Exits 0 when every call gave the error or success expected.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/prctl.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	char name[16];
	int i, bad = 0;

	bad |= prctl(PR_SET_NAME, "fltwl") != 0;
	for (i = 0; i < 10; i++) {
		snprintf(name, sizeof(name), "flt%d", i);
		bad |= prctl(PR_SET_NAME, name) != 0;
	}
	bad |= prctl(PR_SET_NAME, "fltwl") != 0;
	for (i = 0; i < 20; i++)
		bad |= close(100000 + i) != -1 || errno != EBADF;
	for (i = 1; i < argc; i++)
		bad |= openat(AT_FDCWD, argv[i], O_RDONLY) != -1 || errno != ENOENT;
	if (bad)
		fprintf(stderr, "filter_workload: a call did not fail as planned\n");
	return bad;
}
