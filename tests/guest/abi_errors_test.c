// SPDX-License-Identifier: GPL-2.0
/*
 * The session, channel and stream files refuse bad input the way
 * lttng-tools expects (fact sheet, sections 2.10 and 5): EINVAL for a bad
 * channel geometry, ENOTTY for unknown commands, EAGAIN then ENODATA from
 * an empty stream, and any closing order is safe.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "kselftest_harness.h"

/* kselftest's 30 s per case is too short for the debug kernel under TCG. */
#undef TEST_TIMEOUT_DEFAULT
#define TEST_TIMEOUT_DEFAULT 300

/* Numbers as lttng-tools 2.13.9 hard-codes them (fact sheet, section 2). */
#define LTTNG_SESSION		0x0000F645u
#define LTTNG_TRACEPOINT_LIST	0x0000F647u
#define LTTNG_SYSCALL_LIST	0x0000F64Au
#define LTTNG_CHANNEL		0x4140F655u
#define LTTNG_METADATA		0x4140F654u
#define LTTNG_SESSION_START	0x0000F656u
#define LTTNG_SESSION_STOP	0x0000F657u
#define LTTNG_STREAM		0x0000F662u
#define LTTNG_EVENT		0x4234F663u
#define LTTNG_ENABLE		0x0000F682u
#define LTTNG_FILTER		0x0000F690u
#define RB_GET_NEXT_SUBBUF	0x0000F605u
#define RB_PUT_NEXT_SUBBUF	0x0000F606u
#define RB_GET_SUBBUF_SIZE	0x8008F607u
#define RB_GET_MAX_SUBBUF_SIZE	0x8008F609u
#define STREAM_GET_SEQ_NUM	0x8008F627u
#define UNKNOWN_CMD		0x0000F6FFu

struct channel_conf {
	uint64_t subbuf_size;
	uint64_t num_subbuf;
	uint32_t switch_timer_interval;
	uint32_t read_timer_interval;
	uint32_t output;
	int32_t overwrite;
	char padding[288];
} __attribute__((packed));

struct event_conf {
	char name[256];
	uint32_t instrumentation;
	uint64_t token;
	char padding[8];
	char u[288];
} __attribute__((packed));

static const char *const clients[] = {
	"lttng-ring-buffer-client-discard",
	"lttng-ring-buffer-client-overwrite",
	"lttng-ring-buffer-metadata-client",
	"lttng-ring-buffer-client-mmap-discard",
	"lttng-ring-buffer-client-mmap-overwrite",
	"lttng-ring-buffer-metadata-mmap-client",
};

static struct channel_conf good_conf(void)
{
	struct channel_conf c;

	memset(&c, 0, sizeof(c));
	c.subbuf_size = 4096;
	c.num_subbuf = 4;
	return c;
}

FIXTURE(abi) {
	int proc, session, chan;
};

FIXTURE_SETUP(abi)
{
	struct channel_conf c = good_conf();
	char cmd[128];
	unsigned int i;

	self->proc = self->session = self->chan = -1;
	/* lttng-sessiond loads the channel clients; do it in its place. */
	for (i = 0; i < sizeof(clients) / sizeof(clients[0]); i++) {
		snprintf(cmd, sizeof(cmd), "modprobe -q %s", clients[i]);
		if (system(cmd))
			TH_LOG("%s failed (built in?)", cmd);
	}
	ASSERT_EQ(0, access("/proc/lttng", F_OK));
	self->proc = open("/proc/lttng", O_RDWR);
	ASSERT_LE(0, self->proc);
	self->session = ioctl(self->proc, LTTNG_SESSION);
	ASSERT_LE(0, self->session) TH_LOG("SESSION: %s", strerror(errno));
	self->chan = ioctl(self->session, LTTNG_CHANNEL, &c);
	ASSERT_LE(0, self->chan) TH_LOG("CHANNEL: %s", strerror(errno));
}

FIXTURE_TEARDOWN(abi)
{
	if (self->chan >= 0)
		close(self->chan);
	if (self->session >= 0)
		close(self->session);
	if (self->proc >= 0)
		close(self->proc);
}

TEST_F(abi, channel_bad_config_is_einval)
{
	struct channel_conf bad[6];
	unsigned int i;

	for (i = 0; i < 6; i++)
		bad[i] = good_conf();
	bad[0].subbuf_size = 3000;		/* not a power of 2 */
	bad[1].subbuf_size = 1024;		/* below a page */
	bad[2].num_subbuf = 0;
	bad[3].num_subbuf = 3;
	bad[4].output = 2;
	bad[5].overwrite = 7;
	for (i = 0; i < 6; i++) {
		errno = 0;
		EXPECT_EQ(-1, ioctl(self->session, LTTNG_CHANNEL, &bad[i])) TH_LOG("case %u", i);
		EXPECT_EQ(EINVAL, errno) TH_LOG("case %u", i);
	}
	bad[0] = good_conf();
	bad[0].overwrite = 1;			/* metadata never overwrites */
	EXPECT_EQ(-1, ioctl(self->session, LTTNG_METADATA, &bad[0]));
	EXPECT_EQ(EINVAL, errno);
}

TEST_F(abi, unknown_commands_are_enotty)
{
	int stream = ioctl(self->chan, LTTNG_STREAM);

	ASSERT_LE(0, stream);
	EXPECT_EQ(-1, ioctl(self->session, UNKNOWN_CMD));
	EXPECT_EQ(ENOTTY, errno);
	EXPECT_EQ(-1, ioctl(self->chan, UNKNOWN_CMD));
	EXPECT_EQ(ENOTTY, errno);
	EXPECT_EQ(-1, ioctl(stream, UNKNOWN_CMD));
	EXPECT_EQ(ENOTTY, errno);
	close(stream);
}

TEST_F(abi, stream_loop_ends_with_enoent)
{
	int fds[1024], n = 0, fd;
	uint64_t v = 0;

	while ((fd = ioctl(self->chan, LTTNG_STREAM)) >= 0 && n < 1024)
		fds[n++] = fd;
	EXPECT_EQ(-1, fd);
	EXPECT_EQ(ENOENT, errno);
	EXPECT_LE(sysconf(_SC_NPROCESSORS_ONLN), n);
	/* A checked command returns exactly 0. */
	ASSERT_LT(0, n);
	EXPECT_EQ(0, ioctl(fds[0], RB_GET_MAX_SUBBUF_SIZE, &v));
	EXPECT_EQ(4096, v);
	while (n--)
		close(fds[n]);
}

TEST_F(abi, empty_stream_eagain_then_enodata)
{
	int stream = ioctl(self->chan, LTTNG_STREAM);

	ASSERT_LE(0, stream);
	EXPECT_EQ(-1, ioctl(stream, RB_GET_NEXT_SUBBUF));
	EXPECT_EQ(EAGAIN, errno);
	/* Closing the session finalizes the buffers: drained is final. */
	close(self->chan);
	close(self->session);
	self->chan = self->session = -1;
	EXPECT_EQ(-1, ioctl(stream, RB_GET_NEXT_SUBBUF));
	EXPECT_EQ(ENODATA, errno);
	close(stream);
}

TEST_F(abi, stop_flushes_one_empty_packet)
{
	int stream = ioctl(self->chan, LTTNG_STREAM);
	uint64_t seq = 1;
	unsigned long size = 0;

	ASSERT_LE(0, stream);
	ASSERT_EQ(0, ioctl(self->session, LTTNG_SESSION_START));
	EXPECT_EQ(-1, ioctl(self->session, LTTNG_SESSION_START));
	EXPECT_EQ(EBUSY, errno);
	ASSERT_EQ(0, ioctl(self->session, LTTNG_SESSION_STOP));
	EXPECT_EQ(-1, ioctl(self->session, LTTNG_SESSION_STOP));
	EXPECT_EQ(EBUSY, errno);
	ASSERT_EQ(0, ioctl(stream, RB_GET_NEXT_SUBBUF));
	EXPECT_EQ(0, ioctl(stream, STREAM_GET_SEQ_NUM, &seq));
	EXPECT_EQ(0, seq);
	EXPECT_EQ(0, ioctl(stream, RB_GET_SUBBUF_SIZE, &size));
	EXPECT_EQ(84, size);
	EXPECT_EQ(0, ioctl(stream, RB_PUT_NEXT_SUBBUF));
	EXPECT_EQ(-1, ioctl(stream, RB_GET_NEXT_SUBBUF));
	EXPECT_EQ(EAGAIN, errno);
	close(stream);
}

TEST_F(abi, session_closed_first_is_safe)
{
	struct channel_conf c = good_conf();
	struct event_conf ev;
	int stream, meta, mstream, event;

	memset(&ev, 0, sizeof(ev));
	strcpy(ev.name, "no_such_event");
	c.output = 1;
	stream = ioctl(self->chan, LTTNG_STREAM);
	ASSERT_LE(0, stream);
	event = ioctl(self->chan, LTTNG_EVENT, &ev);
	ASSERT_LE(0, event) TH_LOG("EVENT: %s", strerror(errno));
	EXPECT_EQ(0, ioctl(event, LTTNG_ENABLE));
	meta = ioctl(self->session, LTTNG_METADATA, &c);
	ASSERT_LE(0, meta) TH_LOG("METADATA: %s", strerror(errno));
	mstream = ioctl(meta, LTTNG_STREAM);
	ASSERT_LE(0, mstream);
	EXPECT_EQ(-1, ioctl(meta, LTTNG_STREAM));
	ASSERT_EQ(0, ioctl(self->session, LTTNG_SESSION_START));
	close(self->session);
	close(self->chan);
	self->chan = self->session = -1;
	close(meta);
	/* The metadata written at start is still there to read. */
	EXPECT_EQ(0, ioctl(mstream, RB_GET_NEXT_SUBBUF));
	EXPECT_EQ(0, ioctl(mstream, RB_PUT_NEXT_SUBBUF));
	close(event);
	EXPECT_EQ(-1, ioctl(stream, RB_GET_NEXT_SUBBUF));
	EXPECT_EQ(ENODATA, errno);
	close(mstream);
	close(stream);
}

/*
 * FILTER: a bad address is EFAULT, a length over the 65536-byte limit or
 * a relocation offset past the end EINVAL, and a well-formed bytecode
 * EOPNOTSUPP (no interpreter: the event must not record unfiltered).
 */
TEST_F(abi, filter_is_refused_cleanly)
{
	struct {
		uint32_t len;
		uint32_t reloc_offset;
		uint64_t seqnum;
		char data[16];
	} __attribute__((packed)) bc;
	struct event_conf ev;
	int event;

	memset(&ev, 0, sizeof(ev));
	strcpy(ev.name, "sched_switch");
	event = ioctl(self->chan, LTTNG_EVENT, &ev);
	ASSERT_LE(0, event) TH_LOG("EVENT: %s", strerror(errno));
	EXPECT_EQ(-1, ioctl(event, LTTNG_FILTER, (void *)8));
	EXPECT_EQ(EFAULT, errno);
	memset(&bc, 0, sizeof(bc));
	bc.len = 65537;
	EXPECT_EQ(-1, ioctl(event, LTTNG_FILTER, &bc));
	EXPECT_EQ(EINVAL, errno);
	bc.len = sizeof(bc.data);
	bc.reloc_offset = bc.len + 1;
	EXPECT_EQ(-1, ioctl(event, LTTNG_FILTER, &bc));
	EXPECT_EQ(EINVAL, errno);
	bc.reloc_offset = 0;
	EXPECT_EQ(-1, ioctl(event, LTTNG_FILTER, &bc));
	EXPECT_EQ(EOPNOTSUPP, errno);
	close(event);
}

/*
 * Every file the tracer hands out is close-on-exec: a program the session
 * daemon starts must not inherit control of the tracer.
 */
TEST_F(abi, every_fd_is_cloexec)
{
	struct channel_conf c = good_conf();
	struct event_conf ev;
	int fds[8], errs[8], i;

	memset(&ev, 0, sizeof(ev));
	strcpy(ev.name, "sched_switch");
	fds[0] = self->session;
	fds[1] = self->chan;
	errno = 0;
#define MAKE(i, expr) do { fds[i] = (expr); errs[i] = errno; } while (0)
	MAKE(2, ioctl(self->session, LTTNG_METADATA, &c));
	MAKE(3, ioctl(self->chan, LTTNG_EVENT, &ev));
	MAKE(4, ioctl(self->chan, LTTNG_STREAM));
	MAKE(5, ioctl(self->proc, LTTNG_TRACEPOINT_LIST));
	MAKE(6, ioctl(self->proc, LTTNG_SYSCALL_LIST));
	MAKE(7, fds[2] < 0 ? -1 : ioctl(fds[2], LTTNG_STREAM));
#undef MAKE
	errs[0] = errs[1] = 0;
	for (i = 0; i < 8; i++) {
		EXPECT_LE(0, fds[i]) TH_LOG("fd %d: %s", i, strerror(errs[i]));
		if (fds[i] >= 0)
			EXPECT_EQ(FD_CLOEXEC, fcntl(fds[i], F_GETFD) & FD_CLOEXEC)
				TH_LOG("fd %d", i);
	}
	for (i = 7; i >= 2; i--)
		if (fds[i] >= 0)
			close(fds[i]);
}

/*
 * Buffers beyond the machine's memory are refused with ENOMEM at once;
 * the kernel logs nothing (the runner fails a boot that logs a WARNING
 * or a vmalloc failure).
 */
TEST_F(abi, channel_beyond_memory_is_enomem)
{
	struct channel_conf c = good_conf();
	unsigned int shift;

	for (shift = 30; shift <= 40; shift += 10) {
		c.num_subbuf = 1ULL << shift;
		errno = 0;
		EXPECT_EQ(-1, ioctl(self->session, LTTNG_CHANNEL, &c)) TH_LOG("2^%u", shift);
		EXPECT_EQ(ENOMEM, errno) TH_LOG("2^%u", shift);
		errno = 0;
		EXPECT_EQ(-1, ioctl(self->session, LTTNG_METADATA, &c)) TH_LOG("2^%u", shift);
		EXPECT_EQ(ENOMEM, errno) TH_LOG("2^%u", shift);
	}
}

TEST_HARNESS_MAIN
