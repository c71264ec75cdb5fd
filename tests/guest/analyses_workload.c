// SPDX-License-Identifier: GPL-2.0
/*
 * analyses_workload: workloads whose numbers lttng-analyses must find in
 * the trace (tests/guest/analyses.sh, checked on the host by
 * tests/analyses-check).  Each runs in a child of its own, so that each
 * number belongs to one thread id; the children run one after the other.
 * Prints "key=value" lines, the ground truth:
 *
 *   cpu_tid, cpu_ns     a child at nice 7 that burns ~300 ms of CPU
 *                       (its rusage, exit included)
 *   sys_tid             a child that calls getppid() 1000 times and
 *                       openat("/nonexistent") 37 times (ENOENT)
 *   sleep_tid           a child that sleeps 25 times 2 ms
 *   io_tid, io_dev      a child that writes 20 blocks of 4 KiB with
 *                       O_DIRECT to DISK (one write() each), the
 *                       disk's dev_t as the kernel encodes it
 *   mem_tid             a child that touches 2000 new anonymous pages
 *   parent              this process
 *
 * usage: analyses_workload DISK
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/time.h>
#include <sys/wait.h>

#define SYS_GETPPID	1000
#define SYS_ENOENT	37
#define SLEEPS		25
#define IO_BLOCKS	20
#define MEM_PAGES	2000
#define BURN_NS		300000000LL

static long long thread_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static int burn(void)
{
	volatile unsigned long x = 0;

	if (setpriority(PRIO_PROCESS, 0, 7))
		return 1;
	while (thread_ns() < BURN_NS)
		for (int i = 0; i < 10000; i++)
			x += i;
	return 0;
}

static int sys(void)
{
	int i, bad = 0;

	for (i = 0; i < SYS_GETPPID; i++)
		syscall(SYS_getppid);
	for (i = 0; i < SYS_ENOENT; i++)
		bad += syscall(SYS_openat, AT_FDCWD, "/nonexistent-analyses",
			       O_RDONLY) != -1 || errno != ENOENT;
	return bad != 0;
}

static int sleeps(void)
{
	struct timespec ts = { 0, 2000000 };
	int i;

	for (i = 0; i < SLEEPS; i++)
		if (nanosleep(&ts, NULL))
			return 1;
	return 0;
}

static int io(const char *disk)
{
	void *buf;
	int fd, i;

	fd = open(disk, O_WRONLY | O_DIRECT);
	if (fd < 0 || posix_memalign(&buf, 4096, 4096))
		return 1;
	memset(buf, 0xa5, 4096);
	for (i = 0; i < IO_BLOCKS; i++)
		if (pwrite(fd, buf, 4096, (off_t)i * 4096) != 4096)
			return 1;
	return close(fd) != 0;
}

static int mem(void)
{
	long page = sysconf(_SC_PAGESIZE);
	char *p;
	int i;

	p = mmap(NULL, MEM_PAGES * page, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return 1;
	for (i = 0; i < MEM_PAGES; i++)
		p[i * page] = 1;
	return 0;
}

/* The CPU time of the last child waited for, exit included. */
static long long child_ns;

/* Run @fn in a child named @name; print "@key=TID"; 0 if it succeeded. */
static int child(const char *key, const char *name, int (*fn)(const char *),
		 const char *arg)
{
	struct rusage ru;
	int st;
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (pid < 0)
		return 1;
	if (!pid) {
		prctl(PR_SET_NAME, name);
		st = fn(arg);
		fflush(stdout);
		_exit(st);
	}
	if (wait4(pid, &st, 0, &ru) != pid || !WIFEXITED(st) || WEXITSTATUS(st)) {
		fprintf(stderr, "analyses_workload: %s failed\n", name);
		return 1;
	}
	child_ns = (ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000000LL +
		   (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1000LL;
	printf("%s=%d\n", key, pid);
	return 0;
}

static int burn_fn(const char *a) { return burn(); }
static int sys_fn(const char *a) { return sys(); }
static int sleep_fn(const char *a) { return sleeps(); }
static int io_fn(const char *a) { return io(a); }
static int mem_fn(const char *a) { return mem(); }

int main(int argc, char **argv)
{
	struct stat st;
	int bad = 0;

	if (argc != 2 || stat(argv[1], &st) || !S_ISBLK(st.st_mode)) {
		fprintf(stderr, "usage: analyses_workload DISK (a block device)\n");
		return 2;
	}
	bad |= child("cpu_tid", "an-cpu", burn_fn, NULL);
	printf("cpu_ns=%lld\n", child_ns);
	bad |= child("sys_tid", "an-sys", sys_fn, NULL);
	bad |= child("sleep_tid", "an-sleep", sleep_fn, NULL);
	bad |= child("io_tid", "an-io", io_fn, argv[1]);
	bad |= child("mem_tid", "an-mem", mem_fn, NULL);
	printf("parent=%d\n", getpid());
	/* The kernel's dev_t: major << 20 | minor (include/linux/kdev_t.h). */
	printf("io_dev=%u\n", major(st.st_rdev) << 20 | minor(st.st_rdev));
	printf("sys_getppid=%d\nsys_enoent=%d\nsleeps=%d\nio_blocks=%d\nmem_pages=%d\n",
	       SYS_GETPPID, SYS_ENOENT, SLEEPS, IO_BLOCKS, MEM_PAGES);
	return bad;
}
