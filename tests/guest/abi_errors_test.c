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
#include <poll.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <sys/syscall.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "lttng_abi.h"

/* kselftest's 30 s per case is too short for the debug kernel under TCG. */
#undef TEST_TIMEOUT_DEFAULT
#define TEST_TIMEOUT_DEFAULT 300

#define UNKNOWN_CMD		0x0000F6FFu

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

/* One sub-buffer: a discard data channel (as lttng-modules), never overwrite. */
TEST_F(abi, one_subbuf_in_discard_mode_only)
{
	struct channel_conf c = good_conf();
	int fd;

	c.num_subbuf = 1;
	fd = ioctl(self->session, LTTNG_CHANNEL, &c);
	EXPECT_LE(0, fd) TH_LOG("discard, 1 sub-buffer: %s", strerror(errno));
	if (fd >= 0)
		close(fd);
	c.overwrite = 1;
	errno = 0;
	EXPECT_EQ(-1, ioctl(self->session, LTTNG_CHANNEL, &c));
	EXPECT_EQ(EINVAL, errno);
	/* Metadata keeps two: an unread packet must show as readable. */
	c.overwrite = 0;
	errno = 0;
	EXPECT_EQ(-1, ioctl(self->session, LTTNG_METADATA, &c));
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
 * GET_NEXT_SUBBUF_METADATA_CHECK (live sessions): the metadata of the
 * sched events takes several 4 KiB packets; only the last one, which ends
 * the text, is coherent.  Data streams do not know the command.
 */
TEST_F(abi, metadata_check_marks_the_last_packet)
{
	struct channel_conf c = good_conf();
	struct event_conf ev;
	int stream, meta, mstream, event, n = 0, last = -1, ncoherent = 0;
	uint32_t coherent;

	memset(&ev, 0, sizeof(ev));
	strcpy(ev.name, "sched_*");
	event = ioctl(self->chan, LTTNG_EVENT, &ev);
	ASSERT_LE(0, event) TH_LOG("EVENT: %s", strerror(errno));
	EXPECT_EQ(0, ioctl(event, LTTNG_ENABLE));
	meta = ioctl(self->session, LTTNG_METADATA, &c);
	ASSERT_LE(0, meta) TH_LOG("METADATA: %s", strerror(errno));
	mstream = ioctl(meta, LTTNG_STREAM);
	ASSERT_LE(0, mstream);
	stream = ioctl(self->chan, LTTNG_STREAM);
	ASSERT_LE(0, stream);
	ASSERT_EQ(0, ioctl(self->session, LTTNG_SESSION_START));
	for (;;) {
		coherent = 7;
		if (ioctl(mstream, RB_GET_NEXT_SUBBUF_METADATA_CHECK, &coherent))
			break;
		n++;
		ncoherent += coherent == 1;
		last = coherent;
		EXPECT_LE(coherent, 1U);
		ASSERT_EQ(0, ioctl(mstream, RB_PUT_NEXT_SUBBUF));
	}
	EXPECT_EQ(EAGAIN, errno);
	EXPECT_LE(2, n) TH_LOG("%d metadata packets", n);
	EXPECT_EQ(1, last) TH_LOG("the last of %d packets is not coherent", n);
	EXPECT_EQ(1, ncoherent) TH_LOG("%d coherent packets of %d", ncoherent, n);
	EXPECT_EQ(-1, ioctl(stream, RB_GET_NEXT_SUBBUF_METADATA_CHECK, &coherent));
	EXPECT_EQ(ENOTTY, errno);
	close(stream);
	close(mstream);
	close(meta);
	close(event);
}

/* Reads @mstream's packets while there are any; each one's version in @v. */
static int metadata_drain(int mstream, uint64_t *v, int *nv)
{
	int n = 0;

	while (!ioctl(mstream, RB_GET_NEXT_SUBBUF)) {
		if (ioctl(mstream, RB_GET_METADATA_VERSION, &v[n < 63 ? n : 63]))
			return -1;
		n++;
		if (ioctl(mstream, RB_PUT_NEXT_SUBBUF))
			return -1;
	}
	*nv = n;
	return errno == EAGAIN ? 0 : -1;
}

/*
 * SESSION_METADATA_REGEN: EBUSY unless the session is active; then the
 * whole text again, under version 1 from the first packet the reader
 * takes after it; two more make version 3, whose first packet, held
 * across a fourth, still says 3; then version 4 comes whole.
 */
TEST_F(abi, metadata_regen_restarts_the_text)
{
	struct channel_conf c = good_conf();
	int meta, mstream, event, n0, n1, n3, i;
	uint64_t v0[64], v1[64], v3[64], held = 9;
	struct event_conf ev;

	/* Events enough for a text of several packets. */
	memset(&ev, 0, sizeof(ev));
	strcpy(ev.name, "sched_*");
	event = ioctl(self->chan, LTTNG_EVENT, &ev);
	ASSERT_LE(0, event) TH_LOG("EVENT: %s", strerror(errno));
	ASSERT_EQ(0, ioctl(event, LTTNG_ENABLE));
	meta = ioctl(self->session, LTTNG_METADATA, &c);
	ASSERT_LE(0, meta) TH_LOG("METADATA: %s", strerror(errno));
	mstream = ioctl(meta, LTTNG_STREAM);
	ASSERT_LE(0, mstream);
	EXPECT_EQ(-1, ioctl(self->session, LTTNG_SESSION_METADATA_REGEN));
	EXPECT_EQ(EBUSY, errno);
	ASSERT_EQ(0, ioctl(self->session, LTTNG_SESSION_START));
	ASSERT_EQ(0, metadata_drain(mstream, v0, &n0)) TH_LOG("%s", strerror(errno));
	ASSERT_LE(2, n0);
	for (i = 0; i < n0 && i < 64; i++)
		EXPECT_EQ(0, v0[i]);

	ASSERT_EQ(0, ioctl(self->session, LTTNG_SESSION_METADATA_REGEN))
		TH_LOG("METADATA_REGEN: %s", strerror(errno));
	ASSERT_EQ(0, metadata_drain(mstream, v1, &n1)) TH_LOG("%s", strerror(errno));
	EXPECT_LE(2, n1) TH_LOG("%d packets after the regeneration", n1);
	for (i = 0; i < n1 && i < 64; i++)
		EXPECT_EQ(1, v1[i]) TH_LOG("packet %d of %d", i, n1);

	/* The first packet of version 3 read, then held across a regeneration. */
	ASSERT_EQ(0, ioctl(self->session, LTTNG_SESSION_METADATA_REGEN));
	ASSERT_EQ(0, ioctl(self->session, LTTNG_SESSION_METADATA_REGEN));
	ASSERT_EQ(0, ioctl(mstream, RB_GET_NEXT_SUBBUF));
	ASSERT_EQ(0, ioctl(self->session, LTTNG_SESSION_METADATA_REGEN));
	EXPECT_EQ(0, ioctl(mstream, RB_GET_METADATA_VERSION, &held));
	EXPECT_EQ(3, held);
	ASSERT_EQ(0, ioctl(mstream, RB_PUT_NEXT_SUBBUF));
	ASSERT_EQ(0, metadata_drain(mstream, v3, &n3)) TH_LOG("%s", strerror(errno));
	/*
	 * Text is pushed a packet at a time, as the reader asks: once the
	 * held packet is read, the rest of version 3 gives way to the whole
	 * of version 4, as many packets as version 1 had, give or take the
	 * one the digits of the clock offset can move across a boundary.
	 */
	ASSERT_GE(64, n3);
	for (i = 0; i < n3; i++)
		EXPECT_EQ(4, v3[i]) TH_LOG("packet %d of %d", i, n3);
	EXPECT_LE(n1 - 1, n3) TH_LOG("%d packets of version 4, %d of version 1", n3, n1);
	EXPECT_GE(n1 + 1, n3) TH_LOG("%d packets of version 4, %d of version 1", n3, n1);

	ASSERT_EQ(0, ioctl(self->session, LTTNG_SESSION_STOP));
	EXPECT_EQ(-1, ioctl(self->session, LTTNG_SESSION_METADATA_REGEN));
	EXPECT_EQ(EBUSY, errno);
	close(mstream);
	close(meta);
	close(event);
}

/* A FILTER argument: the header, then code and relocation table. */
struct filter_arg {
	uint32_t len;
	uint32_t reloc_offset;
	uint64_t seqnum;
	unsigned char data[96];
} __attribute__((packed));

/* Opcodes of lttng-tools' filter bytecode (src/common/bytecode/bytecode.h). */
enum { F_RETURN = 1, F_MUL = 2, F_EQ = 12, F_AND = 57, F_LOAD_FIELD_REF = 59,
       F_LOAD_STRING = 64, F_LOAD_S64 = 65, F_LOAD_DOUBLE = 66, F_GET_SYMBOL = 82 };

/* Append to @f's code ("o" opcode, "w" u16, "q" u64, "s" a string). */
static void fput_code(struct filter_arg *f, const char *fmt, ...)
{
	va_list ap;
	uint64_t q;
	uint16_t w;

	va_start(ap, fmt);
	for (; *fmt; fmt++) {
		switch (*fmt) {
		case 'o':
			f->data[f->len++] = va_arg(ap, int);
			break;
		case 'w':
			w = va_arg(ap, int);
			memcpy(f->data + f->len, &w, 2);
			f->len += 2;
			break;
		case 'q':
			q = va_arg(ap, uint64_t);
			memcpy(f->data + f->len, &q, 8);
			f->len += 8;
			break;
		default:
			strcpy((char *)f->data + f->len, va_arg(ap, char *));
			f->len += strlen((char *)f->data + f->len) + 1;
		}
	}
	va_end(ap);
	f->reloc_offset = f->len;
}

/* Append a relocation: the instruction at @at refers to @name. */
static void fput_reloc(struct filter_arg *f, uint16_t at, const char *name)
{
	memcpy(f->data + f->len, &at, 2);
	strcpy((char *)f->data + f->len + 2, name);
	f->len += 2 + strlen(name) + 1;
}

static int filter_on_new_event(int chan, struct filter_arg *f)
{
	struct event_conf ev;
	int event, ret;

	memset(&ev, 0, sizeof(ev));
	strcpy(ev.name, "sched_switch");
	event = ioctl(chan, LTTNG_EVENT, &ev);
	if (event < 0)
		return -2;
	ret = ioctl(event, LTTNG_FILTER, f);
	ret = ret ? errno : 0;
	close(event);
	return ret;
}

/*
 * FILTER: a bad address is EFAULT; a length of 0 or over 65536 bytes, or a
 * relocation table past the end, EINVAL; the bytecode lttng-tools makes
 * is taken, once (EEXIST), before ENABLE (EBUSY after); and each way a
 * bytecode can be unsafe to run is EINVAL: an opcode the tracer does not
 * run (unknown, arithmetic, floating point), a stack underflow or
 * overflow, no RETURN, a jump backwards, into an instruction or with
 * another stack depth, a string without its NUL, a field reference
 * without relocation or a relocation of something else, a GET_SYMBOL
 * outside a reference.
 */
TEST_F(abi, filter_bytecode_is_checked)
{
	static const struct {
		const char *why;
		const char *fmt;
		int a[12];
	} bad[] = {
		{ "unknown opcode", "oo", { 200, F_RETURN } },
		{ "arithmetic", "oqoqoo", { F_LOAD_S64, 1, F_LOAD_S64, 2, F_MUL, F_RETURN } },
		{ "floating point", "oqo", { F_LOAD_DOUBLE, 0, F_RETURN } },
		{ "stack underflow", "oqoo", { F_LOAD_S64, 1, F_EQ, F_RETURN } },
		{ "no RETURN", "oq", { F_LOAD_S64, 1 } },
		{ "jump backwards", "oqowoqo",
		  { F_LOAD_S64, 1, F_AND, 0, F_LOAD_S64, 1, F_RETURN } },
		{ "jump into an instruction", "oqowoqo",
		  { F_LOAD_S64, 1, F_AND, 14, F_LOAD_S64, 1, F_RETURN } },
		{ "jump with another depth", "oqowoqoqo",
		  { F_LOAD_S64, 1, F_AND, 30, F_LOAD_S64, 1, F_LOAD_S64, 1, F_RETURN } },
		{ "GET_SYMBOL alone", "owo", { F_GET_SYMBOL, 0, F_RETURN } },
		{ "field reference without relocation", "owoqoo",
		  { F_LOAD_FIELD_REF, 0, F_LOAD_S64, 1, F_EQ, F_RETURN } },
	};
	struct filter_arg f;
	struct event_conf ev;
	unsigned int i, k;
	int event;

	memset(&ev, 0, sizeof(ev));
	strcpy(ev.name, "sched_switch");
	event = ioctl(self->chan, LTTNG_EVENT, &ev);
	ASSERT_LE(0, event) TH_LOG("EVENT: %s", strerror(errno));
	EXPECT_EQ(-1, ioctl(event, LTTNG_FILTER, (void *)8));
	EXPECT_EQ(EFAULT, errno);
	memset(&f, 0, sizeof(f));
	EXPECT_EQ(-1, ioctl(event, LTTNG_FILTER, &f));
	EXPECT_EQ(EINVAL, errno);
	f.len = 65537;
	EXPECT_EQ(-1, ioctl(event, LTTNG_FILTER, &f));
	EXPECT_EQ(EINVAL, errno);
	f.len = 16;
	f.reloc_offset = f.len + 1;
	EXPECT_EQ(-1, ioctl(event, LTTNG_FILTER, &f));
	EXPECT_EQ(EINVAL, errno);

	/* prev_tid == 5, as lttng-tools compiles it */
	memset(&f, 0, sizeof(f));
	fput_code(&f, "owoqoo", F_LOAD_FIELD_REF, 0xffff, F_LOAD_S64, (uint64_t)5, F_EQ,
		  F_RETURN);
	fput_reloc(&f, 0, "prev_tid");
	EXPECT_EQ(0, ioctl(event, LTTNG_FILTER, &f)) TH_LOG("%s", strerror(errno));
	EXPECT_EQ(-1, ioctl(event, LTTNG_FILTER, &f));
	EXPECT_EQ(EEXIST, errno);
	close(event);

	memset(&f, 0, sizeof(f));
	fput_code(&f, "oqo", F_LOAD_S64, (uint64_t)1, F_RETURN);
	event = ioctl(self->chan, LTTNG_EVENT, &ev);
	ASSERT_LE(0, event);
	ASSERT_EQ(0, ioctl(event, LTTNG_ENABLE));
	EXPECT_EQ(-1, ioctl(event, LTTNG_FILTER, &f));
	EXPECT_EQ(EBUSY, errno);
	close(event);
	/* A string literal as lttng-tools sends it, then without its NUL. */
	memset(&f, 0, sizeof(f));
	fput_code(&f, "osos", F_LOAD_STRING, "a*", F_LOAD_STRING, "a");
	f.data[f.len++] = F_EQ;
	f.data[f.len++] = F_RETURN;
	f.reloc_offset = f.len;
	EXPECT_EQ(0, filter_on_new_event(self->chan, &f));
	f.len = f.reloc_offset = 2;
	EXPECT_EQ(EINVAL, filter_on_new_event(self->chan, &f));
	/* A relocation of an instruction that is not a reference. */
	memset(&f, 0, sizeof(f));
	fput_code(&f, "oqo", F_LOAD_S64, (uint64_t)1, F_RETURN);
	fput_reloc(&f, 0, "prev_tid");
	EXPECT_EQ(EINVAL, filter_on_new_event(self->chan, &f));

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		memset(&f, 0, sizeof(f));
		for (k = 0; bad[i].fmt[k]; k++) {
			char one[2] = { bad[i].fmt[k], 0 };

			if (one[0] == 'q')
				fput_code(&f, one, (uint64_t)bad[i].a[k]);
			else
				fput_code(&f, one, bad[i].a[k]);
		}
		EXPECT_EQ(EINVAL, filter_on_new_event(self->chan, &f))
			TH_LOG("%s: not refused", bad[i].why);
	}
}

/*
 * Event notifiers, at the ABI: a group with its notification fd (once:
 * EBUSY) and error counter (once: EBUSY; a bad geometry EINVAL); a
 * notifier on getppid filtered to this thread, capturing nothing.  With
 * nobody reading, 200 calls fill the 128 slots of the queue: exactly 128
 * notifications come out, each with the notifier's token, and the
 * counter's bucket of the notifier says 72, the rest; COUNTER_CLEAR sets
 * it back to 0; a bucket past the counter is EINVAL.  A CAPTURE that is
 * not a field reference is EINVAL, and CAPTURE on a channel's event too;
 * after ENABLE it is EBUSY.  Once the group is closed, a blocking read of
 * the drained notification fd returns 0 and poll() says POLLHUP.
 */
TEST_F(abi, notifier_queue_counts_what_it_drops)
{
	struct event_notifier_conf en;
	struct counter_conf cc;
	struct counter_aggregate agg;
	struct counter_clear clr;
	struct notification_hdr h;
	struct filter_arg f;
	struct event_conf ev;
	struct pollfd pfd;
	int group, notif, counter, nf, event, n, i, tokens_ok = 0;

	group = ioctl(self->proc, LTTNG_EVENT_NOTIFIER_GROUP_CREATE);
	ASSERT_LE(0, group) TH_LOG("GROUP_CREATE: %s", strerror(errno));
	notif = ioctl(group, LTTNG_NOTIFICATION_FD);
	ASSERT_LE(0, notif);
	EXPECT_EQ(-1, ioctl(group, LTTNG_NOTIFICATION_FD));
	EXPECT_EQ(EBUSY, errno);
	memset(&cc, 0, sizeof(cc));
	cc.bitness = 1;
	cc.number_dimensions = 2;
	EXPECT_EQ(-1, ioctl(group, LTTNG_COUNTER, &cc));
	EXPECT_EQ(EINVAL, errno);
	cc.number_dimensions = 1;
	cc.dimensions[0].size = 16;
	counter = ioctl(group, LTTNG_COUNTER, &cc);
	ASSERT_LE(0, counter) TH_LOG("COUNTER: %s", strerror(errno));
	EXPECT_EQ(-1, ioctl(group, LTTNG_COUNTER, &cc));
	EXPECT_EQ(EBUSY, errno);

	memset(&en, 0, sizeof(en));
	strcpy(en.event.name, "getppid");
	en.event.instrumentation = 5;			/* system call */
	en.event.u[0] = 1;				/* entry only */
	en.event.token = 0x1234567890abcdefULL;
	en.error_counter_index = 7;
	nf = ioctl(group, LTTNG_EVENT_NOTIFIER_CREATE, &en);
	ASSERT_LE(0, nf) TH_LOG("EVENT_NOTIFIER_CREATE: %s", strerror(errno));
	/* $ctx.vtid == gettid(), as lttng-tools compiles it */
	memset(&f, 0, sizeof(f));
	fput_code(&f, "owoqoo", 70 /* GET_CONTEXT_REF */, 0xffff, F_LOAD_S64,
		  (uint64_t)syscall(SYS_gettid), F_EQ, F_RETURN);
	fput_reloc(&f, 0, "$ctx.vtid");
	ASSERT_EQ(0, ioctl(nf, LTTNG_FILTER, &f)) TH_LOG("%s", strerror(errno));
	/* A capture must be a field reference, and only a notifier's. */
	memset(&f, 0, sizeof(f));
	fput_code(&f, "oqo", F_LOAD_S64, (uint64_t)1, F_RETURN);
	EXPECT_EQ(-1, ioctl(nf, LTTNG_CAPTURE, &f));
	EXPECT_EQ(EINVAL, errno);
	memset(&ev, 0, sizeof(ev));
	strcpy(ev.name, "sched_switch");
	event = ioctl(self->chan, LTTNG_EVENT, &ev);
	ASSERT_LE(0, event);
	memset(&f, 0, sizeof(f));
	fput_code(&f, "oowo", 81 /* GET_PAYLOAD_ROOT */, F_GET_SYMBOL, 2, F_RETURN);
	fput_reloc(&f, 1, "prev_tid");
	EXPECT_EQ(-1, ioctl(event, LTTNG_CAPTURE, &f));
	EXPECT_EQ(EINVAL, errno);
	close(event);
	ASSERT_EQ(0, ioctl(nf, LTTNG_ENABLE));
	/* Captures are linked at the first ENABLE: no more after it. */
	memset(&f, 0, sizeof(f));
	fput_code(&f, "oowo", 81 /* GET_PAYLOAD_ROOT */, F_GET_SYMBOL, 2, F_RETURN);
	fput_reloc(&f, 1, "ret");
	EXPECT_EQ(-1, ioctl(nf, LTTNG_CAPTURE, &f));
	EXPECT_EQ(EBUSY, errno);

	for (i = 0; i < 200; i++)
		syscall(SYS_getppid);
	ASSERT_EQ(0, ioctl(nf, LTTNG_DISABLE));
	fcntl(notif, F_SETFL, O_NONBLOCK);
	for (n = 0;; n++) {
		if (read(notif, &h, sizeof(h)) != sizeof(h))
			break;
		tokens_ok += h.token == en.event.token && !h.capture_buf_size;
	}
	EXPECT_EQ(EAGAIN, errno);
	EXPECT_EQ(128, n);
	EXPECT_EQ(128, tokens_ok);
	memset(&agg, 0, sizeof(agg));
	agg.number_dimensions = 1;
	agg.indexes[0] = 7;
	ASSERT_EQ(0, ioctl(counter, LTTNG_COUNTER_AGGREGATE, &agg));
	EXPECT_EQ(72, agg.value);
	memset(&clr, 0, sizeof(clr));
	clr.number_dimensions = 1;
	clr.indexes[0] = 7;
	EXPECT_EQ(0, ioctl(counter, LTTNG_COUNTER_CLEAR, &clr));
	ASSERT_EQ(0, ioctl(counter, LTTNG_COUNTER_AGGREGATE, &agg));
	EXPECT_EQ(0, agg.value);
	agg.indexes[0] = 16;
	EXPECT_EQ(-1, ioctl(counter, LTTNG_COUNTER_AGGREGATE, &agg));
	EXPECT_EQ(EINVAL, errno);
	/* The group closed (its last notifier first): end of the stream. */
	close(nf);
	close(group);
	fcntl(notif, F_SETFL, 0);
	EXPECT_EQ(0, read(notif, &h, sizeof(h)));
	pfd.fd = notif;
	pfd.events = POLLIN;
	EXPECT_EQ(1, poll(&pfd, 1, 0));
	EXPECT_TRUE(pfd.revents & POLLHUP);
	close(counter);
	close(notif);
}

/*
 * A uprobe EVENT takes an fd of a regular file (EBADF, EINVAL otherwise);
 * ADD_CALLSITE wants a uprobe event (EINVAL on a tracepoint's), a
 * readable offset (EFAULT), an offset uprobes can probe (an offset past
 * the end of the file is refused), once (EEXIST).
 */
static __attribute__((noinline)) int uprobe_site(int x)
{
	asm volatile("" ::: "memory");
	return x + 1;
}

/* The offset in this program's file of code at @fn, or 0. */
static uint64_t file_offset(int (*fn)(int))
{
	unsigned long start, end, offset, addr = (unsigned long)fn;
	char perms[8], line[512];
	uint64_t ret = 0;
	FILE *maps = fopen("/proc/self/maps", "r");

	if (!maps)
		return 0;
	while (fgets(line, sizeof(line), maps)) {
		if (sscanf(line, "%lx-%lx %7s %lx", &start, &end, perms,
			   &offset) == 4 && addr >= start && addr < end) {
			ret = addr - start + offset;
			break;
		}
	}
	fclose(maps);
	return ret;
}

TEST_F(abi, uprobe_bad_input_is_refused)
{
	struct event_conf ev;
	uint64_t off;
	int32_t fd;
	int event, tp;

	memset(&ev, 0, sizeof(ev));
	strcpy(ev.name, "sched_switch");
	tp = ioctl(self->chan, LTTNG_EVENT, &ev);
	ASSERT_LE(0, tp) TH_LOG("EVENT: %s", strerror(errno));
	off = 0;
	EXPECT_EQ(-1, ioctl(tp, LTTNG_ADD_CALLSITE, &off));
	EXPECT_EQ(EINVAL, errno);
	close(tp);

	strcpy(ev.name, "up_bad");
	ev.instrumentation = 6;
	fd = -1;
	memcpy(ev.u, &fd, sizeof(fd));
	EXPECT_EQ(-1, ioctl(self->chan, LTTNG_EVENT, &ev));
	EXPECT_EQ(EBADF, errno);
	fd = open("/", O_RDONLY | O_DIRECTORY);
	ASSERT_LE(0, fd);
	memcpy(ev.u, &fd, sizeof(fd));
	EXPECT_EQ(-1, ioctl(self->chan, LTTNG_EVENT, &ev));
	EXPECT_EQ(EINVAL, errno);
	close(fd);

	fd = open("/proc/self/exe", O_RDONLY);
	ASSERT_LE(0, fd);
	memcpy(ev.u, &fd, sizeof(fd));
	strcpy(ev.name, "up_good");
	event = ioctl(self->chan, LTTNG_EVENT, &ev);
	ASSERT_LE(0, event) TH_LOG("uprobe EVENT: %s", strerror(errno));
	EXPECT_EQ(-1, ioctl(self->chan, LTTNG_EVENT, &ev));
	EXPECT_EQ(EEXIST, errno);
	close(fd);
	EXPECT_EQ(-1, ioctl(event, LTTNG_ADD_CALLSITE, (void *)8));
	EXPECT_EQ(EFAULT, errno);
	off = 1ULL << 40;
	EXPECT_EQ(-1, ioctl(event, LTTNG_ADD_CALLSITE, &off));
	EXPECT_EQ(EINVAL, errno);
	/* This function's first instruction: one uprobes can probe. */
	off = file_offset(uprobe_site);
	ASSERT_NE(0, off);
	EXPECT_EQ(0, ioctl(event, LTTNG_ADD_CALLSITE, &off))
		TH_LOG("ADD_CALLSITE: %s", strerror(errno));
	EXPECT_EQ(-1, ioctl(event, LTTNG_ADD_CALLSITE, &off));
	EXPECT_EQ(EEXIST, errno);
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

/* A channel whose streams lttng-consumerd would map (output = mmap). */
static int mmap_channel(int session)
{
	struct channel_conf c = good_conf();

	c.output = 1;
	return ioctl(session, LTTNG_CHANNEL, &c);
}

/* Consume every delivered packet; return how many. */
static int drain(int stream)
{
	int n = 0;

	while (!ioctl(stream, RB_GET_NEXT_SUBBUF)) {
		ioctl(stream, RB_PUT_NEXT_SUBBUF);
		n++;
	}
	return n;
}

/*
 * The mapped buffer is read-only for good: a writable mapping is EPERM,
 * and a read-only one cannot be made writable.  Freshly allocated, it
 * holds zeros only.  And the padding of a packet never shows what the
 * sub-buffer held before: the buffer is filled with getppid events and
 * drained, then a few more events and a stop close short packets in
 * sub-buffers that held full ones; from the end of each packet's content
 * to its padded size, every byte is zero.
 */
TEST_F(abi, mapped_buffer_is_read_only_and_zeroed)
{
	unsigned long len = 0, off = 1, size = 0, padded = 0, i, nonzero = 0;
	int chan = mmap_channel(self->session), stream, event, n, cpu;
	uint64_t seq = 0, max_seq = 0;
	struct event_conf ev;
	cpu_set_t set;
	unsigned char *p;

	ASSERT_LE(0, chan) TH_LOG("CHANNEL: %s", strerror(errno));
	memset(&ev, 0, sizeof(ev));
	strcpy(ev.name, "getppid");
	ev.instrumentation = 5;		/* SYSCALL, entry and exit */
	event = ioctl(chan, LTTNG_EVENT, &ev);
	ASSERT_LE(0, event) TH_LOG("EVENT: %s", strerror(errno));
	ASSERT_EQ(0, ioctl(event, LTTNG_ENABLE));
	/* One CPU's stream, and this thread pinned to that CPU. */
	stream = ioctl(chan, LTTNG_STREAM);
	ASSERT_LE(0, stream);
	ASSERT_EQ(0, ioctl(stream, STREAM_INSTANCE_ID, &off));
	cpu = off;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	ASSERT_EQ(0, sched_setaffinity(0, sizeof(set), &set));
	ASSERT_EQ(0, ioctl(stream, RB_GET_MMAP_LEN, &len));
	ASSERT_EQ(4 * 4096, len);
	EXPECT_EQ(MAP_FAILED, mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, stream, 0));
	EXPECT_EQ(EPERM, errno);
	p = mmap(NULL, len, PROT_READ, MAP_SHARED, stream, 0);
	ASSERT_NE(MAP_FAILED, p) TH_LOG("mmap: %s", strerror(errno));
	EXPECT_EQ(-1, mprotect(p, len, PROT_READ | PROT_WRITE));
	EXPECT_EQ(EACCES, errno);
	for (i = 0; i < len; i++)
		nonzero += p[i] != 0;
	EXPECT_EQ(0, nonzero) TH_LOG("%lu non-zero bytes in a new buffer", nonzero);

	ASSERT_EQ(0, ioctl(self->session, LTTNG_SESSION_START));
	for (i = 0; i < 4000; i++)
		syscall(SYS_getppid);
	n = drain(stream);
	EXPECT_LE(3, n) TH_LOG("only %d packets filled", n);
	for (i = 0; i < 3; i++)
		syscall(SYS_getppid);
	ASSERT_EQ(0, ioctl(self->session, LTTNG_SESSION_STOP));
	for (n = 0, nonzero = 0; !ioctl(stream, RB_GET_NEXT_SUBBUF); n++) {
		ASSERT_EQ(0, ioctl(stream, STREAM_GET_SEQ_NUM, &seq));
		if (seq > max_seq)
			max_seq = seq;
		ASSERT_EQ(0, ioctl(stream, RB_GET_MMAP_READ_OFFSET, &off));
		ASSERT_EQ(0, ioctl(stream, RB_GET_SUBBUF_SIZE, &size));
		ASSERT_EQ(0, ioctl(stream, RB_GET_PADDED_SUBBUF_SIZE, &padded));
		ASSERT_LT(off, len);
		EXPECT_EQ(4096, padded);
		ASSERT_LT(0, size);
		ASSERT_LE(size, padded);
		for (i = size; i < padded; i++)
			nonzero += p[off + i] != 0;
		EXPECT_EQ(0, ioctl(stream, RB_PUT_NEXT_SUBBUF));
	}
	EXPECT_LE(1, n) TH_LOG("no packet after the refill");
	/* Packets 0 to 3 filled the 4 sub-buffers: these reuse them. */
	EXPECT_LE(4, max_seq) TH_LOG("the buffer did not wrap");
	EXPECT_EQ(0, nonzero) TH_LOG("%lu non-zero padding bytes in %d packets", nonzero, n);
	munmap(p, len);
	close(event);
	close(stream);
	close(chan);
}

/*
 * Ask @cmd of @stream into a buffer of 0xa5 bytes.  Returns 0, or 1 when
 * the command failed, 2 when the answer looks like a kernel address
 * (x86-64 kernel addresses have the top bit set), 3 when bytes after the
 * 8-byte answer changed.
 */
static int check_answer(int stream, unsigned int cmd)
{
	union {
		uint64_t v;
		unsigned char b[32];
	} out;
	unsigned int i;

	memset(&out, 0xa5, sizeof(out));
	if (ioctl(stream, cmd, &out))
		return 1;
	if (out.v >> 63)
		return 2;
	for (i = sizeof(out.v); i < sizeof(out.b); i++)
		if (out.b[i] != 0xa5)
			return 3;
	return 0;
}

/*
 * What the stream queries hand out: exactly the size of the answer (the
 * bytes after it are untouched) and no kernel address.
 */
TEST_F(abi, stream_answers_hold_no_kernel_address)
{
	int chan = mmap_channel(self->session), stream;
	unsigned int cmd;

	ASSERT_LE(0, chan) TH_LOG("CHANNEL: %s", strerror(errno));
	stream = ioctl(chan, LTTNG_STREAM);
	ASSERT_LE(0, stream);
	ASSERT_EQ(0, ioctl(self->session, LTTNG_SESSION_START));
	ASSERT_EQ(0, ioctl(self->session, LTTNG_SESSION_STOP));
	ASSERT_EQ(0, ioctl(stream, RB_SNAPSHOT));
	for (cmd = RB_SNAPSHOT_GET_CONSUMED; cmd <= RB_SNAPSHOT_GET_PRODUCED; cmd++)
		EXPECT_EQ(0, check_answer(stream, cmd)) TH_LOG("cmd %#x", cmd);
	ASSERT_EQ(0, ioctl(stream, RB_GET_NEXT_SUBBUF));
	for (cmd = RB_GET_SUBBUF_SIZE; cmd <= RB_GET_MMAP_READ_OFFSET; cmd++)
		EXPECT_EQ(0, check_answer(stream, cmd)) TH_LOG("cmd %#x", cmd);
	for (cmd = STREAM_GET_FIRST; cmd <= STREAM_GET_LAST; cmd++)
		EXPECT_EQ(0, check_answer(stream, cmd)) TH_LOG("cmd %#x", cmd);
	EXPECT_EQ(0, ioctl(stream, RB_PUT_NEXT_SUBBUF));
	close(stream);
	close(chan);
}

enum { FD_PROC, FD_SESSION, FD_CHAN, FD_STREAM, FD_EVENT, FD_META, FD_MSTREAM, NR_PASSED };

static int send_fds(int sock, const int *fds)
{
	char ctl[CMSG_SPACE(NR_PASSED * sizeof(int))];
	struct msghdr msg = { 0 };
	struct cmsghdr *cmsg;
	char byte = 0;
	struct iovec iov = { &byte, 1 };

	memset(ctl, 0, sizeof(ctl));
	msg.msg_iov = &iov;
	msg.msg_iovlen = 1;
	msg.msg_control = ctl;
	msg.msg_controllen = sizeof(ctl);
	cmsg = CMSG_FIRSTHDR(&msg);
	cmsg->cmsg_level = SOL_SOCKET;
	cmsg->cmsg_type = SCM_RIGHTS;
	cmsg->cmsg_len = CMSG_LEN(NR_PASSED * sizeof(int));
	memcpy(CMSG_DATA(cmsg), fds, NR_PASSED * sizeof(int));
	return sendmsg(sock, &msg, 0) == 1 ? 0 : -1;
}

static int recv_fds(int sock, int *fds)
{
	char ctl[CMSG_SPACE(NR_PASSED * sizeof(int))];
	struct msghdr msg = { 0 };
	struct cmsghdr *cmsg;
	char byte;
	struct iovec iov = { &byte, 1 };

	msg.msg_iov = &iov;
	msg.msg_iovlen = 1;
	msg.msg_control = ctl;
	msg.msg_controllen = sizeof(ctl);
	if (recvmsg(sock, &msg, 0) != 1)
		return -1;
	cmsg = CMSG_FIRSTHDR(&msg);
	if (!cmsg || cmsg->cmsg_type != SCM_RIGHTS ||
	    cmsg->cmsg_len != CMSG_LEN(NR_PASSED * sizeof(int)))
		return -1;
	memcpy(fds, CMSG_DATA(cmsg), NR_PASSED * sizeof(int));
	return 0;
}

/*
 * In a child without CAP_SYS_ADMIN in the initial user namespace: every
 * command, mapping and splice on the tracer's files is EPERM.  Returns a
 * bit per check that failed.
 */
static int unprivileged_uses(const int *fds, unsigned long len, int open_errno)
{
	struct { uint32_t major, minor, patchlevel; } v;
	unsigned long size;
	loff_t off = 0;
	int bad = 0, pipefd[2];

	if (ioctl(fds[FD_PROC], TRACER_VERSION, &v) != -1 || errno != EPERM)
		bad |= 1 << 0;
	if (ioctl(fds[FD_SESSION], LTTNG_SESSION_START) != -1 || errno != EPERM)
		bad |= 1 << 1;
	if (ioctl(fds[FD_CHAN], LTTNG_STREAM) != -1 || errno != EPERM)
		bad |= 1 << 2;
	if (ioctl(fds[FD_STREAM], RB_GET_MAX_SUBBUF_SIZE, &size) != -1 || errno != EPERM)
		bad |= 1 << 3;
	if (mmap(NULL, len, PROT_READ, MAP_SHARED, fds[FD_STREAM], 0) != MAP_FAILED ||
	    errno != EPERM)
		bad |= 1 << 4;
	if (pipe(pipefd) ||
	    splice(fds[FD_STREAM], &off, pipefd[1], NULL, 4096, 0) != -1 || errno != EPERM)
		bad |= 1 << 5;
	if (open("/proc/lttng", O_RDWR) != -1 || errno != open_errno)
		bad |= 1 << 6;
	if (ioctl(fds[FD_EVENT], LTTNG_ENABLE) != -1 || errno != EPERM)
		bad |= 1 << 7;
	if (ioctl(fds[FD_META], LTTNG_STREAM) != -1 || errno != EPERM)
		bad |= 1 << 8;
	if (ioctl(fds[FD_MSTREAM], RB_GET_NEXT_SUBBUF) != -1 || errno != EPERM)
		bad |= 1 << 9;
	if (mmap(NULL, len, PROT_READ, MAP_SHARED, fds[FD_MSTREAM], 0) != MAP_FAILED ||
	    errno != EPERM)
		bad |= 1 << 10;
	/* Not even what ends a session: that is root's to decide. */
	if (ioctl(fds[FD_SESSION], LTTNG_SESSION_STOP) != -1 || errno != EPERM)
		bad |= 1 << 11;
	if (ioctl(fds[FD_EVENT], LTTNG_DISABLE) != -1 || errno != EPERM)
		bad |= 1 << 12;
	if (ioctl(fds[FD_STREAM], RB_PUT_NEXT_SUBBUF) != -1 || errno != EPERM)
		bad |= 1 << 13;
	return bad;
}

/*
 * Privilege is checked by every command, not only by open: the files of
 * a session handed over a UNIX socket to user nobody, or kept by root
 * that entered a user namespace of its own (root there, not in the
 * initial namespace), control nothing, and the session is left as it
 * was: root can still start it.
 */
TEST_F(abi, passed_fds_control_nothing)
{
	struct channel_conf c = good_conf();
	int fds[NR_PASSED], sv[2], status, how, i;
	struct event_conf ev;
	unsigned long len = 0;
	pid_t pid;

	fds[FD_PROC] = self->proc;
	fds[FD_SESSION] = self->session;
	fds[FD_CHAN] = mmap_channel(self->session);
	ASSERT_LE(0, fds[FD_CHAN]) TH_LOG("CHANNEL: %s", strerror(errno));
	fds[FD_STREAM] = ioctl(fds[FD_CHAN], LTTNG_STREAM);
	ASSERT_LE(0, fds[FD_STREAM]);
	ASSERT_EQ(0, ioctl(fds[FD_STREAM], RB_GET_MMAP_LEN, &len));
	memset(&ev, 0, sizeof(ev));
	strcpy(ev.name, "sched_switch");
	fds[FD_EVENT] = ioctl(fds[FD_CHAN], LTTNG_EVENT, &ev);
	ASSERT_LE(0, fds[FD_EVENT]) TH_LOG("EVENT: %s", strerror(errno));
	c.output = 1;
	fds[FD_META] = ioctl(self->session, LTTNG_METADATA, &c);
	ASSERT_LE(0, fds[FD_META]) TH_LOG("METADATA: %s", strerror(errno));
	fds[FD_MSTREAM] = ioctl(fds[FD_META], LTTNG_STREAM);
	ASSERT_LE(0, fds[FD_MSTREAM]);
	for (how = 0; how < 2; how++) {
		ASSERT_EQ(0, socketpair(AF_UNIX, SOCK_STREAM, 0, sv));
		pid = fork();
		ASSERT_LE(0, pid);
		if (pid == 0) {
			int got[NR_PASSED], bad;

			close(sv[0]);
			if (how == 0) {
				/* User nobody, with only what it is sent. */
				for (i = 0; i < NR_PASSED; i++)
					close(fds[i]);
				if (setgid(65534) || setuid(65534))
					_exit(200);
				if (recv_fds(sv[1], got))
					_exit(201);
				bad = unprivileged_uses(got, len, EACCES);
			} else {
				/* Root of a new user namespace, inherited files. */
				if (unshare(CLONE_NEWUSER))
					_exit(202);
				bad = unprivileged_uses(fds, len, EPERM);
			}
			if (bad)
				printf("# failed checks %#x (bit 0: /proc/lttng ioctl, 1: session, 2: channel, 3: stream ioctl, 4: mmap, 5: splice, 6: open, 7: event, 8: metadata channel, 9: metadata stream ioctl, 10: its mmap, 11: STOP, 12: DISABLE, 13: PUT)\n",
				       bad);
			fflush(stdout);
			_exit(bad ? 1 : 0);
		}
		close(sv[1]);
		if (how == 0)
			EXPECT_EQ(0, send_fds(sv[0], fds));
		close(sv[0]);
		ASSERT_EQ(pid, waitpid(pid, &status, 0));
		ASSERT_TRUE(WIFEXITED(status));
		EXPECT_EQ(0, WEXITSTATUS(status))
			TH_LOG("%s: exit status %d (200 and up: set-up failed)",
			       how ? "user-namespace root" : "user nobody", WEXITSTATUS(status));
	}
	/* Root still controls the session, which nobody started. */
	EXPECT_EQ(0, ioctl(fds[FD_STREAM], RB_GET_MAX_SUBBUF_SIZE, &len));
	EXPECT_EQ(0, ioctl(self->session, LTTNG_SESSION_START)) TH_LOG("%s", strerror(errno));
	EXPECT_EQ(0, ioctl(self->session, LTTNG_SESSION_STOP));
	for (i = FD_CHAN; i < NR_PASSED; i++)
		close(fds[i]);
}

TEST_HARNESS_MAIN
