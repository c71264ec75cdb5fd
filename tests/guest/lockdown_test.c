// SPDX-License-Identifier: GPL-2.0
/*
 * lockdown=confidentiality refuses tracing, as it refuses tracefs: once
 * the kernel's lockdown level is raised, /proc/lttng cannot be opened and
 * the files opened before refuse every command that starts, extends or
 * reads a trace (and new mappings of a stream); what ends or releases
 * (SESSION_STOP, DISABLE, WAIT_QUIESCENT, FLUSH, PUT_NEXT_SUBBUF) is still
 * allowed, so that a session that was recording can be ended.  The level cannot be lowered again, so
 * run-tests runs this after every other test and after kmemleak's scan
 * (debugfs is refused under lockdown too).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <string.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "lttng_abi.h"

#define LOCKDOWN "/sys/kernel/security/lockdown"

static int read_level(char *buf, size_t len)
{
	int fd = open(LOCKDOWN, O_RDONLY);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n < 0)
		return -1;
	buf[n] = 0;
	return 0;
}

TEST(confidentiality_refuses_tracing)
{
	struct { uint32_t major, minor, patchlevel; } v;
	struct channel_conf c;
	int proc, session, chan, stream, fd;
	unsigned long len = 0;
	char level[128];

	if (access(LOCKDOWN, F_OK))
		mount("securityfs", "/sys/kernel/security", "securityfs", 0, NULL);
	ASSERT_EQ(0, read_level(level, sizeof(level)))
		TH_LOG("%s: %s (CONFIG_SECURITY_LOCKDOWN_LSM?)", LOCKDOWN, strerror(errno));
	ASSERT_NE(NULL, strstr(level, "[none]")) TH_LOG("lockdown already %s", level);
	/* Allowed before. */
	proc = open("/proc/lttng", O_RDWR);
	ASSERT_LE(0, proc) TH_LOG("open: %s", strerror(errno));
	session = ioctl(proc, LTTNG_SESSION);
	ASSERT_LE(0, session) TH_LOG("SESSION: %s", strerror(errno));
	ASSERT_EQ(0, ioctl(proc, TRACER_VERSION, &v));
	/* A recording session, read through a mapped stream. */
	if (system("modprobe -q lttng-ring-buffer-client-mmap-discard"))
		TH_LOG("modprobe lttng-ring-buffer-client-mmap-discard failed (built in?)");
	memset(&c, 0, sizeof(c));
	c.subbuf_size = 4096;
	c.num_subbuf = 4;
	c.output = 1;
	chan = ioctl(session, LTTNG_CHANNEL, &c);
	ASSERT_LE(0, chan) TH_LOG("CHANNEL: %s", strerror(errno));
	stream = ioctl(chan, LTTNG_STREAM);
	ASSERT_LE(0, stream);
	ASSERT_EQ(0, ioctl(stream, RB_GET_MMAP_LEN, &len));
	ASSERT_EQ(0, ioctl(session, LTTNG_SESSION_START));
	/* The reader holds a packet (FLUSH_EMPTY closes even an empty one). */
	ASSERT_EQ(0, ioctl(stream, RB_FLUSH_EMPTY));
	ASSERT_EQ(0, ioctl(stream, RB_GET_NEXT_SUBBUF)) TH_LOG("%s", strerror(errno));

	fd = open(LOCKDOWN, O_WRONLY);
	ASSERT_LE(0, fd);
	ASSERT_EQ(15, write(fd, "confidentiality", 15)) TH_LOG("%s", strerror(errno));
	close(fd);
	ASSERT_EQ(0, read_level(level, sizeof(level)));
	ASSERT_NE(NULL, strstr(level, "[confidentiality]")) TH_LOG("%s", level);

	errno = 0;
	EXPECT_EQ(-1, open("/proc/lttng", O_RDWR));
	EXPECT_EQ(EPERM, errno);
	errno = 0;
	EXPECT_EQ(-1, ioctl(proc, TRACER_VERSION, &v));
	EXPECT_EQ(EPERM, errno);
	errno = 0;
	EXPECT_EQ(-1, ioctl(stream, RB_GET_NEXT_SUBBUF));
	EXPECT_EQ(EPERM, errno);
	errno = 0;
	EXPECT_EQ(MAP_FAILED, mmap(NULL, len, PROT_READ, MAP_SHARED, stream, 0));
	EXPECT_EQ(EPERM, errno);
	errno = 0;
	EXPECT_EQ(-1, ioctl(chan, LTTNG_STREAM));
	EXPECT_EQ(EPERM, errno);
	/* What "lttng stop" and "lttng destroy" do stays possible. */
	EXPECT_EQ(0, ioctl(stream, RB_PUT_NEXT_SUBBUF)) TH_LOG("PUT: %s", strerror(errno));
	EXPECT_EQ(0, ioctl(chan, LTTNG_DISABLE)) TH_LOG("DISABLE: %s", strerror(errno));
	EXPECT_EQ(0, ioctl(proc, LTTNG_WAIT_QUIESCENT)) TH_LOG("WAIT_QUIESCENT: %s", strerror(errno));
	EXPECT_EQ(0, ioctl(stream, RB_FLUSH)) TH_LOG("FLUSH: %s", strerror(errno));
	EXPECT_EQ(0, ioctl(session, LTTNG_SESSION_STOP)) TH_LOG("STOP: %s", strerror(errno));
	errno = 0;
	EXPECT_EQ(-1, ioctl(session, LTTNG_SESSION_START));
	EXPECT_EQ(EPERM, errno);
	close(stream);
	close(chan);
	close(session);
	close(proc);
}

TEST_HARNESS_MAIN
