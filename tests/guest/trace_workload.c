// SPDX-License-Identifier: GPL-2.0
/*
 * Workloads for trace_events.sh: each one does a known thing and prints
 * the ids the test needs to check the trace against, as "key=value" words
 * on one line of stdout.  Exit status 0 when the workload did all it
 * claims; anything else means the trace cannot be judged.  Each one is
 * killed by SIGALRM after WORKLOAD_TIMEOUT_S seconds rather than hang the
 * test (which turns RT throttling off around the ping-pong).
 *
 *   forkexec PATH        fork a child that execs PATH
 *                        -> parent=P child=C status=S
 *   nicechild NICE COMM CPU
 *                        fork a child that moves to CPU, sets its nice
 *                        value and its comm, then exits
 *                        -> parent=P child=C status=S
 *   pingpong N NAME_A NAME_B
 *                        two SCHED_FIFO threads pinned to one CPU (CPU 1
 *                        when present) pass a byte back and forth N times
 *                        over two pipes -> cpu=X a=TID_A b=TID_B n=N
 *   forks M DRAIN_S      wait for a line on stdin, vfork M children that
 *                        exit at once (vfork: a fork without copying the
 *                        address space, many times faster under TCG),
 *                        sleep DRAIN_S seconds, then exit
 *                        -> parent=P forks=M ms=MILLISECONDS_FORKING
 *   creds RU EU SU RG EG SG N
 *                        set the real, effective and saved group then
 *                        user ids, check them, call getppid() N times
 *                        -> pid=P
 *   faults N CPU         on CPU, map N pages, call getppid(), write a byte
 *                        to each page (N page faults), call getppid()
 *                        -> pid=P n=N minflt=FAULTS (its own minor faults
 *                        from before the first call to after the second)
 *   wakefifo N CPU       a SCHED_OTHER parent and a SCHED_FIFO child, both
 *                        pinned to CPU: the parent wakes the child N times
 *                        through a pipe, the child answers through another
 *                        -> cpu=X waker=P wakee=C n=N
 */
#define _GNU_SOURCE
#include <errno.h>
#include <grp.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define PINGPONG_RT_PRIO	10
#define WORKLOAD_TIMEOUT_S	240

static void die(const char *what)
{
	fprintf(stderr, "trace_workload: %s: %s\n", what, strerror(errno));
	exit(2);
}

static pid_t gettid_(void)
{
	return (pid_t)syscall(SYS_gettid);
}

static int wait_child(pid_t child)
{
	int status;

	if (waitpid(child, &status, 0) != child)
		die("waitpid");
	return status;
}

static int do_forkexec(const char *path)
{
	pid_t child;
	int status;

	child = fork();
	if (child < 0)
		die("fork");
	if (!child) {
		execl(path, path, (char *)NULL);
		_exit(127);
	}
	status = wait_child(child);
	printf("parent=%d child=%d status=%d\n", getpid(), child, status);
	return status ? 1 : 0;
}

static int do_nicechild(int nice_value, const char *comm, int cpu)
{
	cpu_set_t set;
	pid_t child;
	int status;

	child = fork();
	if (child < 0)
		die("fork");
	if (!child) {
		CPU_ZERO(&set);
		CPU_SET(cpu, &set);
		/* Returns on the new CPU. */
		if (sched_setaffinity(0, sizeof(set), &set) || sched_getcpu() != cpu)
			_exit(6);
		if (setpriority(PRIO_PROCESS, 0, nice_value))
			_exit(3);
		if (getpriority(PRIO_PROCESS, 0) != nice_value)
			_exit(4);
		if (prctl(PR_SET_NAME, comm, 0, 0, 0))
			_exit(5);
		_exit(0);
	}
	status = wait_child(child);
	printf("parent=%d child=%d status=%d\n", getpid(), child, status);
	return status ? 1 : 0;
}

/*
 * Ping-pong.  Thread B blocks in read(ab) before thread A exists; from
 * then on, on a CPU where both are the only SCHED_FIFO tasks of their
 * priority and neither can be preempted by the other (same priority, both
 * pinned), every handoff is one switch:
 *   A: write(ab) wakes B, read(ba) blocks    -> A to B, N times
 *   B: write(ba) wakes A, read(ab) blocks    -> B to A, N - 1 times,
 *      and after the last write B blocks in read(done_b): B to A once more.
 * A then finds its done_a byte and exits while B still sleeps.  B is
 * released on another CPU: pthread_join() returns before the exiting A
 * has switched out for the last time, and B woken on A's CPU would be
 * where that switch goes.  (With one CPU, this thread cannot run before
 * the SCHED_FIFO A has switched out.)
 */
struct pingpong {
	int ab[2], ba[2], done_a[2], done_b[2], ready[2];
	long n;
	const char *name_a, *name_b;
	pid_t tid_a, tid_b;
	int err;
};

static void *pong(void *arg)
{
	struct pingpong *pp = arg;
	char c = 0;
	long i;

	prctl(PR_SET_NAME, pp->name_b, 0, 0, 0);
	pp->tid_b = gettid_();
	if (write(pp->ready[1], &c, 1) != 1)
		pp->err = 1;
	for (i = 0; i < pp->n; i++) {
		if (read(pp->ab[0], &c, 1) != 1 || write(pp->ba[1], &c, 1) != 1) {
			pp->err = 1;
			break;
		}
	}
	if (read(pp->done_b[0], &c, 1) != 1)
		pp->err = 1;
	return NULL;
}

static void *ping(void *arg)
{
	struct pingpong *pp = arg;
	char c = 0;
	long i;

	prctl(PR_SET_NAME, pp->name_a, 0, 0, 0);
	pp->tid_a = gettid_();
	for (i = 0; i < pp->n; i++) {
		if (write(pp->ab[1], &c, 1) != 1 || read(pp->ba[0], &c, 1) != 1) {
			pp->err = 1;
			break;
		}
	}
	if (read(pp->done_a[0], &c, 1) != 1)
		pp->err = 1;
	return NULL;
}

/* The state letter of /proc/self/task/TID/stat ('S': sleeping). */
static char task_state(pid_t tid)
{
	char path[64], buf[512], *p;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/task/%d/stat", tid);
	f = fopen(path, "r");
	if (!f)
		return '?';
	p = fgets(buf, sizeof(buf), f);
	fclose(f);
	if (!p)
		return '?';
	p = strrchr(buf, ')');
	return p && p[1] == ' ' ? p[2] : '?';
}

static void rt_attr(pthread_attr_t *attr, int cpu)
{
	struct sched_param sp = { .sched_priority = PINGPONG_RT_PRIO };
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	errno = pthread_attr_init(attr);
	if (!errno)
		errno = pthread_attr_setaffinity_np(attr, sizeof(set), &set);
	if (!errno)
		errno = pthread_attr_setinheritsched(attr, PTHREAD_EXPLICIT_SCHED);
	if (!errno)
		errno = pthread_attr_setschedpolicy(attr, SCHED_FIFO);
	if (!errno)
		errno = pthread_attr_setschedparam(attr, &sp);
	if (errno)
		die("pthread_attr");
}

static int do_pingpong(long n, const char *name_a, const char *name_b)
{
	struct pingpong pp = { .n = n, .name_a = name_a, .name_b = name_b };
	int cpu = sysconf(_SC_NPROCESSORS_ONLN) > 1 ? 1 : 0;
	pthread_t ta, tb;
	pthread_attr_t attr;
	cpu_set_t set;
	char c = 1;
	int i;

	if (pipe(pp.ab) || pipe(pp.ba) || pipe(pp.done_a) || pipe(pp.done_b) ||
	    pipe(pp.ready))
		die("pipe");
	/* Keep this thread off the ping-pong CPU. */
	if (cpu) {
		CPU_ZERO(&set);
		CPU_SET(0, &set);
		if (sched_setaffinity(0, sizeof(set), &set))
			die("sched_setaffinity");
	}
	rt_attr(&attr, cpu);
	errno = pthread_create(&tb, &attr, pong, &pp);
	if (errno)
		die("pthread_create (SCHED_FIFO needs root)");
	if (read(pp.ready[0], &c, 1) != 1)
		die("read ready");
	/* B must be blocked in its first read(ab) before A exists. */
	for (i = 0; task_state(pp.tid_b) != 'S'; i++) {
		if (i == 10000) {
			fprintf(stderr, "trace_workload: pong thread never sleeps\n");
			return 2;
		}
		usleep(1000);
	}
	errno = pthread_create(&ta, &attr, ping, &pp);
	if (errno)
		die("pthread_create");
	/* A reads it after its loop, when B already sleeps in read(done_b). */
	if (write(pp.done_a[1], &c, 1) != 1)
		die("write done_a");
	pthread_join(ta, NULL);
	if (cpu) {
		CPU_ZERO(&set);
		CPU_SET(0, &set);
		if (sched_setaffinity(pp.tid_b, sizeof(set), &set))
			die("sched_setaffinity pong");
	}
	if (write(pp.done_b[1], &c, 1) != 1)
		die("write done_b");
	pthread_join(tb, NULL);
	printf("cpu=%d a=%d b=%d n=%ld\n", cpu, pp.tid_a, pp.tid_b, n);
	return pp.err ? 1 : 0;
}

static long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int do_forks(long m, unsigned int drain_s)
{
	char line[16];
	long i, t0;
	pid_t child;

	if (!fgets(line, sizeof(line), stdin))
		die("read go");
	t0 = now_ms();
	for (i = 0; i < m; i++) {
		child = vfork();
		if (child < 0)
			die("vfork");
		if (!child)
			_exit(0);
		if (wait_child(child))
			return 1;
	}
	t0 = now_ms() - t0;
	/* Let the consumer catch up before anyone else forks. */
	sleep(drain_s);
	printf("parent=%d forks=%ld ms=%ld\n", getpid(), m, t0);
	return 0;
}

static int do_creds(char **id, long n)
{
	uid_t ru = atoi(id[0]), eu = atoi(id[1]), su = atoi(id[2]);
	gid_t rg = atoi(id[3]), eg = atoi(id[4]), sg = atoi(id[5]);
	uid_t r, e, s;
	gid_t gr, ge, gs;
	long i;

	if (setgroups(0, NULL) || setresgid(rg, eg, sg) || setresuid(ru, eu, su))
		die("setgroups/setresgid/setresuid");
	if (getresuid(&r, &e, &s) || getresgid(&gr, &ge, &gs) ||
	    r != ru || e != eu || s != su || gr != rg || ge != eg || gs != sg) {
		fprintf(stderr, "trace_workload: ids not as asked\n");
		return 1;
	}
	for (i = 0; i < n; i++)
		syscall(SYS_getppid);
	printf("pid=%d\n", getpid());
	return 0;
}

/*
 * The parent wakes the SCHED_FIFO child on its own CPU: the wakeup marks
 * the parent (the current task) for rescheduling before the sched_wakeup
 * event fires (ttwu_do_wakeup()).  The child runs whenever it can, so it
 * is asleep in read() each time the parent writes: N wakeups, and the
 * child blocks N times, then exits.
 */
static int do_wakefifo(long n, int cpu)
{
	struct sched_param sp = { .sched_priority = PINGPONG_RT_PRIO };
	int pc[2], cp[2], status;
	cpu_set_t set;
	pid_t child;
	char c = 0;
	long i;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set) || sched_getcpu() != cpu)
		die("sched_setaffinity");
	if (pipe(pc) || pipe(cp))
		die("pipe");
	child = fork();
	if (child < 0)
		die("fork");
	if (!child) {
		if (sched_setscheduler(0, SCHED_FIFO, &sp) || write(cp[1], &c, 1) != 1)
			_exit(3);
		for (i = 0; i < n; i++)
			if (read(pc[0], &c, 1) != 1 || write(cp[1], &c, 1) != 1)
				_exit(4);
		_exit(0);
	}
	/* The child is SCHED_FIFO: from now on it runs whenever it can. */
	if (read(cp[0], &c, 1) != 1)
		die("wakefifo ready");
	for (i = 0; i < n; i++)
		if (write(pc[1], &c, 1) != 1 || read(cp[0], &c, 1) != 1)
			die("wakefifo pipe");
	status = wait_child(child);
	printf("cpu=%d waker=%d wakee=%d n=%ld\n", cpu, getpid(), child, n);
	return status ? 1 : 0;
}

static int do_faults(long n, int cpu)
{
	long page = sysconf(_SC_PAGESIZE), i;
	struct rusage r0, r1;
	cpu_set_t set;
	char *p;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set) || sched_getcpu() != cpu)
		die("sched_setaffinity");
	p = mmap(NULL, n * page, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		die("mmap");
	/* No transparent huge page: one fault per page. */
	madvise(p, n * page, MADV_NOHUGEPAGE);
	if (getrusage(RUSAGE_SELF, &r0))
		die("getrusage");
	syscall(SYS_getppid);
	for (i = 0; i < n; i++)
		p[i * page] = 1;
	syscall(SYS_getppid);
	if (getrusage(RUSAGE_SELF, &r1))
		die("getrusage");
	printf("pid=%d n=%ld minflt=%ld\n", getpid(), n,
	       r1.ru_minflt - r0.ru_minflt);
	return 0;
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	alarm(WORKLOAD_TIMEOUT_S);
	if (argc == 3 && !strcmp(argv[1], "forkexec"))
		return do_forkexec(argv[2]);
	if (argc == 5 && !strcmp(argv[1], "nicechild"))
		return do_nicechild(atoi(argv[2]), argv[3], atoi(argv[4]));
	if (argc == 5 && !strcmp(argv[1], "pingpong"))
		return do_pingpong(atol(argv[2]), argv[3], argv[4]);
	if (argc == 4 && !strcmp(argv[1], "forks"))
		return do_forks(atol(argv[2]), atoi(argv[3]));
	if (argc == 9 && !strcmp(argv[1], "creds"))
		return do_creds(argv + 2, atol(argv[8]));
	if (argc == 4 && !strcmp(argv[1], "faults"))
		return do_faults(atol(argv[2]), atoi(argv[3]));
	if (argc == 4 && !strcmp(argv[1], "wakefifo"))
		return do_wakefifo(atol(argv[2]), atoi(argv[3]));
	fprintf(stderr, "usage: %s forkexec PATH | nicechild NICE COMM CPU |\n"
		"       pingpong N NAME_A NAME_B | forks M DRAIN_S |\n"
		"       creds RU EU SU RG EG SG N | faults N CPU | wakefifo N CPU\n",
		argv[0]);
	return 2;
}
