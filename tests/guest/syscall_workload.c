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
 *   syscall_workload compat       through the ia32 entry (int $0x80): getpid,
 *                                 write of COMPAT_LEN bytes from a buffer
 *                                 below 4 GiB to /dev/null, and number
 *                                 UNKNOWN_NR with arguments 1 to 6
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#define WRITE_LEN	37
#define MISSING		"/nonexistent/lttng-syscall-test"
#define UNKNOWN_NR	1000
#define COMPAT_LEN	13
#define IA32_WRITE	4
#define IA32_GETPID	20

/*
 * A system call through the ia32 entry, from this 64-bit program: the
 * number in eax, the arguments in ebx, ecx, edx, esi, edi and ebp.  ebp
 * is saved on the stack, below the red zone this function may use.
 */
static long int80(long nr, long a1, long a2, long a3, long a4, long a5,
		  long a6)
{
	long ret;

	asm volatile("sub $128, %%rsp\n\t"
		     "push %%rbp\n\t"
		     "mov %[a6], %%rbp\n\t"
		     "int $0x80\n\t"
		     "pop %%rbp\n\t"
		     "add $128, %%rsp"
		     : "=a" (ret)
		     : "a" (nr), "b" (a1), "c" (a2), "d" (a3), "S" (a4),
		       "D" (a5), [a6] "r" (a6)
		     : "memory", "r8", "r9", "r10", "r11");
	return ret;
}

static int compat(long tid)
{
	long fd, pid, wr, unknown;
	char *buf;

	buf = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS | MAP_32BIT, -1, 0);
	fd = syscall(SYS_openat, AT_FDCWD, "/dev/null", O_WRONLY, 0);
	if (buf == MAP_FAILED || fd < 0) {
		perror("compat setup");
		return 1;
	}
	memset(buf, 'c', COMPAT_LEN);
	pid = int80(IA32_GETPID, 0, 0, 0, 0, 0, 0);
	wr = int80(IA32_WRITE, fd, (long)buf, COMPAT_LEN, 0, 0, 0);
	unknown = int80(UNKNOWN_NR, 1, 2, 3, 4, 5, 6);
	printf("tid=%ld pid=%ld fd=%ld cbuf=0x%lX write=%ld unknown_nr=%d unknown_ret=%ld\n",
	       tid, pid, fd, (unsigned long)buf, wr, UNKNOWN_NR, unknown);
	return 0;
}

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
	if (argc == 2 && !strcmp(argv[1], "compat"))
		return compat(tid);
	if (argc != 2 || strcmp(argv[1], "list")) {
		fprintf(stderr, "usage: %s list | repeat N | compat\n", argv[0]);
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
