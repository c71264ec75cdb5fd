// SPDX-License-Identifier: GPL-2.0
/*
 * Every allocation a tracer command makes may fail, and then the command
 * fails cleanly: each command of a session's life (SESSION, CHANNEL,
 * METADATA, EVENT and ENABLE of trace events and of a system call,
 * CONTEXT, STREAM, SESSION_START) runs again and again with its first,
 * second, third ... slab allocation made to fail (/proc/thread-self/
 * fail-nth, the way syzkaller injects faults), until it runs through
 * without reaching the injected failure.  A run that met the failure must
 * succeed anyway or fail with ENOMEM, and leave the session usable: the
 * next run retries the same command on it.  KASAN, lockdep and kmemleak
 * (scanned by run-tests after the last test) watch the error paths.
 * Needs CONFIG_FAULT_INJECTION and CONFIG_FAILSLAB: the debug variant.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "lttng_abi.h"

#undef TEST_TIMEOUT_DEFAULT
#define TEST_TIMEOUT_DEFAULT 1200

#define FAIL_NTH "/proc/thread-self/fail-nth"
#define FAILSLAB "/sys/kernel/debug/failslab/"

static int proc_fd, session_fd, chan_fd, meta_fd;

/* A line in the kernel log, for the host's log check. */
static void kmsg_mark(const char *what)
{
	int fd = open("/dev/kmsg", O_WRONLY);

	if (fd >= 0) {
		if (write(fd, what, strlen(what)) < 0)
			perror("/dev/kmsg");
		close(fd);
	}
}

static int put(const char *path, const char *val)
{
	int fd = open(path, O_WRONLY), ret;

	if (fd < 0)
		return -1;
	ret = write(fd, val, strlen(val)) == (ssize_t)strlen(val) ? 0 : -1;
	close(fd);
	return ret;
}

static int do_session(void) { return ioctl(proc_fd, LTTNG_SESSION); }

static int do_channel(void)
{
	struct channel_conf c;

	memset(&c, 0, sizeof(c));
	c.subbuf_size = 4096;
	c.num_subbuf = 4;
	return ioctl(session_fd, LTTNG_CHANNEL, &c);
}

static int do_metadata(void)
{
	struct channel_conf c;

	memset(&c, 0, sizeof(c));
	c.subbuf_size = 4096;
	c.num_subbuf = 2;
	return ioctl(session_fd, LTTNG_METADATA, &c);
}

static int do_event(const char *name, uint32_t instrumentation)
{
	struct event_conf ev;
	int fd, ret;

	memset(&ev, 0, sizeof(ev));
	snprintf(ev.name, sizeof(ev.name), "%s", name);
	ev.instrumentation = instrumentation;
	fd = ioctl(chan_fd, LTTNG_EVENT, &ev);
	if (fd < 0)
		return fd;
	ret = ioctl(fd, LTTNG_ENABLE);
	if (ret) {
		int err = errno;

		close(fd);
		errno = err;
		return ret;
	}
	return fd;
}

static int do_sched_events(void) { return do_event("sched_*", 0); }
static int do_syscall_event(void) { return do_event("getppid", 5); }

/*
 * Commands that succeed once per object (CONTEXT twice is EEXIST; a
 * channel hands out each stream once) run on a fresh object each try,
 * made before the failure is armed: an injected failure may be absorbed
 * (kmemleak and debug-objects fall back on pools of their own), and the
 * command must still be tried with its next allocation failed.
 */
static int try_session = -1, try_chan = -1, try_meta = -1;

static int fresh_channel(void)
{
	try_chan = do_channel();
	return try_chan < 0 ? -1 : 0;
}

static int fresh_metadata(void)
{
	struct channel_conf c;

	try_session = ioctl(proc_fd, LTTNG_SESSION);
	if (try_session < 0)
		return -1;
	memset(&c, 0, sizeof(c));
	c.subbuf_size = 4096;
	c.num_subbuf = 2;
	try_meta = ioctl(try_session, LTTNG_METADATA, &c);
	return try_meta < 0 ? -1 : 0;
}

static void close_fresh(void)
{
	if (try_meta >= 0)
		close(try_meta);
	if (try_chan >= 0)
		close(try_chan);
	if (try_session >= 0)
		close(try_session);
	try_session = try_chan = try_meta = -1;
}

static int do_context(void)
{
	struct context_conf c;

	memset(&c, 0, sizeof(c));
	c.ctx = 6;	/* tid */
	return ioctl(try_chan, LTTNG_CONTEXT, &c);
}

static int do_stream(void) { return ioctl(try_chan, LTTNG_STREAM); }
static int do_meta_stream(void) { return ioctl(try_meta, LTTNG_STREAM); }
static int do_start(void) { return ioctl(session_fd, LTTNG_SESSION_START); }

static const struct op {
	const char *name;
	int (*run)(void);
	int *keep;		/* where the fd of the final run goes */
	int returns_fd;
	int (*fresh)(void);	/* a new object to run on, each try */
} ops[] = {
	{ "SESSION", do_session, &session_fd, 1, NULL },
	{ "CHANNEL", do_channel, &chan_fd, 1, NULL },
	{ "METADATA", do_metadata, &meta_fd, 1, NULL },
	{ "CONTEXT tid", do_context, NULL, 0, fresh_channel },
	{ "EVENT+ENABLE sched_*", do_sched_events, NULL, 1, NULL },
	{ "EVENT+ENABLE syscall getppid", do_syscall_event, NULL, 1, NULL },
	{ "STREAM", do_stream, NULL, 1, fresh_channel },
	{ "METADATA STREAM", do_meta_stream, NULL, 1, fresh_metadata },
	{ "SESSION_START", do_start, NULL, 0, NULL },
};

TEST(every_allocation_failure_is_clean)
{
	unsigned int i, nth, injected_total = 0, bad = 0;
	int fds[64], nfds = 0;

	if (access(FAIL_NTH, F_OK))
		SKIP(return, "no fault injection in this kernel");
	if (access(FAILSLAB, F_OK))
		mount("debugfs", "/sys/kernel/debug", "debugfs", 0, NULL);
	/* Commands allocate with GFP_KERNEL: failslab must not skip those. */
	ASSERT_EQ(0, put(FAILSLAB "ignore-gfp-wait", "N")) TH_LOG("failslab: %s", strerror(errno));
	ASSERT_EQ(0, put(FAILSLAB "verbose", "0"));
	/* lttng-sessiond loads the channel clients; do it in its place. */
	if (system("modprobe -q lttng-ring-buffer-client-discard") ||
	    system("modprobe -q lttng-ring-buffer-metadata-client"))
		TH_LOG("modprobe of the channel clients failed (built in?)");
	proc_fd = open("/proc/lttng", O_RDWR);
	ASSERT_LE(0, proc_fd);
	/*
	 * The allocation-failure reports the injected failures make (vmalloc's
	 * warn_alloc() when the vm_struct allocation fails under
	 * vmalloc_user()) are ours: qemu-run drops them between these marks.
	 */
	kmsg_mark("lttng-test: fault injection on");

	for (i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) {
		const struct op *op = &ops[i];
		unsigned int injected = 0;

		for (nth = 1; nth < 10000; nth++) {
			char buf[32] = "";
			int ret, err, fd;

			if (op->fresh)
				ASSERT_EQ(0, op->fresh()) TH_LOG("%s: set-up: %s", op->name,
								 strerror(errno));
			snprintf(buf, sizeof(buf), "%u", nth);
			fd = open(FAIL_NTH, O_RDWR);
			ASSERT_LE(0, fd);
			ASSERT_EQ((ssize_t)strlen(buf), write(fd, buf, strlen(buf)));
			errno = 0;
			ret = op->run();
			err = errno;
			memset(buf, 0, sizeof(buf));
			ASSERT_LT(0, pread(fd, buf, sizeof(buf) - 1, 0));
			/* Not reached: the command ran without failure. */
			if (atoi(buf) != 0) {
				ASSERT_EQ(0, pwrite(fd, "0", 1, 0) == 1 ? 0 : -1);
				close(fd);
				ASSERT_LE(0, ret) TH_LOG("%s: %s without injection", op->name,
							 strerror(err));
				if (op->keep)
					*op->keep = ret;
				else if (op->returns_fd && nfds < 64)
					fds[nfds++] = ret;
				close_fresh();
				break;
			}
			close(fd);
			injected++;
			if (ret < 0 && err != ENOMEM) {
				bad++;
				TH_LOG("%s, allocation %u failed: %s, not ENOMEM", op->name, nth,
				       strerror(err));
			}
			if (ret >= 0 && op->returns_fd)
				close(ret);
			if (ret >= 0 && op->run == do_start)
				ASSERT_EQ(0, ioctl(session_fd, LTTNG_SESSION_STOP));
			close_fresh();
		}
		ASSERT_GT(10000, nth) TH_LOG("%s never ran through", op->name);
		printf("# %s: %u allocations failed in turn\n", op->name, injected);
		fflush(stdout);	/* the harness's child ends with _exit() */
		injected_total += injected;
	}
	kmsg_mark("lttng-test: fault injection off");
	EXPECT_EQ(0, bad);
	EXPECT_LT(0, injected_total);
	EXPECT_EQ(0, ioctl(session_fd, LTTNG_SESSION_STOP));
	while (nfds--)
		close(fds[nfds]);
	close(meta_fd);
	close(chan_fd);
	close(session_fd);
	close(proc_fd);
}

TEST_HARNESS_MAIN
