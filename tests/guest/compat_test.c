// SPDX-License-Identifier: GPL-2.0
/*
 * compat_test: a 32-bit program (built -m32 -static) reads a stream the
 * way a 32-bit lttng-consumerd would, through the driver's compat_ioctl.
 * The reader commands that carry an unsigned long have other numbers for
 * it (the argument's size is part of the number) and take or give 4
 * bytes: each answer is checked against the channel's geometry and the
 * one empty packet a stopped session leaves in every stream, and the 4
 * bytes after each answer must stay as they were.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "lttng_abi.h"

/* _IOR/_IOW(0xF6, nr, unsigned long) as a 32-bit caller encodes them. */
#define C32_GET_CONSUMED	0x8004F601u
#define C32_GET_PRODUCED	0x8004F602u
#define C32_GET_SUBBUF		0x4004F603u
#define C32_GET_SUBBUF_SIZE	0x8004F607u
#define C32_GET_PADDED_SIZE	0x8004F608u
#define C32_GET_MAX_SUBBUF_SIZE	0x8004F609u
#define C32_GET_MMAP_LEN	0x8004F60Au
#define C32_GET_MMAP_READ_OFFSET 0x8004F60Bu
#define RB_PUT_SUBBUF		0x0000F604u

#define SUBBUF	4096u
#define NSUBBUF	4u
/* The header of an empty packet (abi_errors_test: stop_flushes_one_empty_packet). */
#define EMPTY_PACKET 84u
#define CTF_MAGIC 0xC1FC1FC1u

/* A 4-byte answer and the 4 bytes after it, which must not change. */
struct out32 {
	uint32_t v;
	uint32_t canary;
};

static int get32(int fd, unsigned int cmd, uint32_t *v)
{
	struct out32 o = { .v = 0xdeadbeef, .canary = 0x5a5a5a5a };
	int ret = ioctl(fd, cmd, &o);

	if (o.canary != 0x5a5a5a5a)
		return -2;
	*v = o.v;
	return ret;
}

static struct channel_conf conf(void)
{
	struct channel_conf c;

	memset(&c, 0, sizeof(c));
	c.subbuf_size = SUBBUF;
	c.num_subbuf = NSUBBUF;
	c.output = 1;	/* mmap */
	return c;
}

TEST(compat_stream_reader)
{
	static const char *const clients[] = {
		"lttng-ring-buffer-client-mmap-discard",
		"lttng-ring-buffer-metadata-mmap-client",
	};
	struct channel_conf c = conf();
	int proc, session, chan, meta, stream, mstream;
	uint32_t v = 0, pos = 0;
	uint64_t v64 = 0;
	const uint32_t *map;
	unsigned int i;
	char cmd[128];

	ASSERT_EQ(4, sizeof(long)) TH_LOG("not built -m32");
	for (i = 0; i < sizeof(clients) / sizeof(clients[0]); i++) {
		snprintf(cmd, sizeof(cmd), "modprobe -q %s", clients[i]);
		if (system(cmd))
			TH_LOG("%s failed (built in?)", cmd);
	}
	proc = open("/proc/lttng", O_RDWR);
	ASSERT_LE(0, proc) TH_LOG("/proc/lttng: %s", strerror(errno));
	session = ioctl(proc, LTTNG_SESSION);
	ASSERT_LE(0, session) TH_LOG("SESSION: %s", strerror(errno));
	chan = ioctl(session, LTTNG_CHANNEL, &c);
	ASSERT_LE(0, chan) TH_LOG("CHANNEL: %s", strerror(errno));
	meta = ioctl(session, LTTNG_METADATA, &c);
	ASSERT_LE(0, meta) TH_LOG("METADATA: %s", strerror(errno));
	stream = ioctl(chan, LTTNG_STREAM);
	ASSERT_LE(0, stream) TH_LOG("STREAM: %s", strerror(errno));
	mstream = ioctl(meta, LTTNG_STREAM);
	ASSERT_LE(0, mstream) TH_LOG("metadata STREAM: %s", strerror(errno));
	ASSERT_EQ(0, ioctl(session, LTTNG_SESSION_START));
	ASSERT_EQ(0, ioctl(session, LTTNG_SESSION_STOP));

	/* Geometry. */
	EXPECT_EQ(0, get32(stream, C32_GET_MAX_SUBBUF_SIZE, &v));
	EXPECT_EQ(SUBBUF, v);
	EXPECT_EQ(0, get32(stream, C32_GET_MMAP_LEN, &v));
	EXPECT_EQ(SUBBUF * NSUBBUF, v);
	/* A native (8-byte) number from a 32-bit caller answers 8 bytes. */
	EXPECT_EQ(0, ioctl(stream, RB_GET_MAX_SUBBUF_SIZE, &v64));
	EXPECT_EQ(SUBBUF, v64);

	/* Random access: the stop's empty packet at position 0. */
	EXPECT_EQ(0, ioctl(stream, RB_SNAPSHOT));
	EXPECT_EQ(0, get32(stream, C32_GET_CONSUMED, &v));
	EXPECT_EQ(0, v);
	EXPECT_EQ(0, get32(stream, C32_GET_PRODUCED, &v));
	EXPECT_EQ(SUBBUF, v);
	ASSERT_EQ(0, ioctl(stream, C32_GET_SUBBUF, &pos)) TH_LOG("GET_SUBBUF: %s", strerror(errno));
	EXPECT_EQ(0, get32(stream, C32_GET_SUBBUF_SIZE, &v));
	EXPECT_EQ(EMPTY_PACKET, v);
	EXPECT_EQ(0, get32(stream, C32_GET_PADDED_SIZE, &v));
	EXPECT_EQ(SUBBUF, v);
	EXPECT_EQ(0, get32(stream, C32_GET_MMAP_READ_OFFSET, &v));
	EXPECT_EQ(0, v);
	map = mmap(NULL, SUBBUF * NSUBBUF, PROT_READ, MAP_SHARED, stream, 0);
	ASSERT_TRUE(map != MAP_FAILED) TH_LOG("mmap: %s", strerror(errno));
	EXPECT_EQ(CTF_MAGIC, map[v / 4]);
	EXPECT_EQ(0, ioctl(stream, RB_PUT_SUBBUF));

	/* Sequential read: the same packet, then nothing. */
	ASSERT_EQ(0, ioctl(stream, RB_GET_NEXT_SUBBUF));
	EXPECT_EQ(0, get32(stream, C32_GET_SUBBUF_SIZE, &v));
	EXPECT_EQ(EMPTY_PACKET, v);
	EXPECT_EQ(0, ioctl(stream, STREAM_GET_SEQ_NUM, &v64));
	EXPECT_EQ(0, v64);
	EXPECT_EQ(0, ioctl(stream, RB_PUT_NEXT_SUBBUF));
	EXPECT_EQ(-1, ioctl(stream, RB_GET_NEXT_SUBBUF));
	EXPECT_EQ(EAGAIN, errno);
	ioctl(stream, RB_SNAPSHOT);
	EXPECT_EQ(0, get32(stream, C32_GET_CONSUMED, &v));
	EXPECT_EQ(SUBBUF, v);

	/* Bad input: an unmapped answer address, GET_SUBBUF of metadata. */
	EXPECT_EQ(-1, ioctl(stream, C32_GET_MAX_SUBBUF_SIZE, (void *)8));
	EXPECT_EQ(EFAULT, errno);
	EXPECT_EQ(-1, ioctl(mstream, C32_GET_SUBBUF, &pos));
	EXPECT_EQ(ENOTTY, errno);
	EXPECT_EQ(0, get32(mstream, C32_GET_MAX_SUBBUF_SIZE, &v));
	EXPECT_EQ(SUBBUF, v);

	munmap((void *)map, SUBBUF * NSUBBUF);
	close(mstream);
	close(stream);
	close(meta);
	close(chan);
	close(session);
	close(proc);
}

TEST_HARNESS_MAIN
