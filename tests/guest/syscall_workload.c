// SPDX-License-Identifier: GPL-2.0
/*
 * A fixed list of system calls with arguments chosen here, made through
 * syscall(2) so that libc adds nothing between them; prints what the
 * kernel returned so that the test knows the truth:
 *
 *   syscall_workload list         getpid, openat, write, a failing openat,
 *                                 a failing close, pipe2 (an argument the
 *                                 call writes through), and number
 *                                 UNKNOWN_NR, which no kernel has, with
 *                                 arguments 1 to 6
 *   syscall_workload repeat N     N getppid
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#define WRITE_LEN	37
#define MISSING		"/nonexistent/lttng-syscall-test"
#define UNKNOWN_NR	1000

int main(int argc, char **argv)
{
	char buf[WRITE_LEN];
	long tid, fd, wr, n, i;
	int open_errno, close_errno, fildes[2];
	long pipe_ret, unknown_ret;

	tid = syscall(SYS_gettid);
	if (argc == 3 && !strcmp(argv[1], "repeat")) {
		n = atol(argv[2]);
		printf("tid=%ld n=%ld\n", tid, n);
		fflush(stdout);
		for (i = 0; i < n; i++)
			syscall(SYS_getppid);
		return 0;
	}
	if (argc != 2 || strcmp(argv[1], "list")) {
		fprintf(stderr, "usage: %s list | repeat N\n", argv[0]);
		return 2;
	}
	memset(buf, 'x', sizeof(buf));
	fflush(stdout);
	syscall(SYS_getpid);
	fd = syscall(SYS_openat, AT_FDCWD, "/dev/null", O_WRONLY, 0);
	wr = syscall(SYS_write, fd, buf, sizeof(buf));
	open_errno = syscall(SYS_openat, AT_FDCWD, MISSING, O_RDONLY, 0) < 0 ?
		     errno : 0;
	close_errno = syscall(SYS_close, -1) < 0 ? errno : 0;
	pipe_ret = syscall(SYS_pipe2, fildes, 0);
	unknown_ret = syscall(UNKNOWN_NR, 1, 2, 3, 4, 5, 6) < 0 ? -errno : 0;
	printf("tid=%ld fd=%ld write=%ld open_errno=%d close_errno=%d pipe=%ld fildes=0x%lX unknown_nr=%d unknown_ret=%ld\n",
	       tid, fd, wr, open_errno, close_errno, pipe_ret,
	       (unsigned long)fildes, UNKNOWN_NR, unknown_ret);
	return 0;
}
