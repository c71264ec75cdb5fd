// SPDX-License-Identifier: GPL-2.0
/*
 * abi_fuzz: fuzz the LTTng 2.x ABI of the staging driver, /proc/lttng and
 * every file it hands out, from several threads at once while probes fire;
 * then check that the driver is still sound.
 *
 * First deterministic sub-runs: hostile pointers on every command that
 * takes one, absurd buffer geometry, every command sent to every kind of
 * file it does not belong to, and command numbers with mangled direction
 * or size bits.  Then FUZZ_ITERS random operations by FUZZ_THREADS threads
 * sharing one pool of files of every kind (root, session, channel,
 * metadata channel, event, data and metadata stream, tracepoint and
 * syscall list): ioctls of any known command (and random numbers) with a
 * valid, corrupted or hostile argument; close in any order (a session
 * before its channels, a session destroyed while its streams are mapped
 * and spliced); mmap, munmap, mprotect, splice, read, write, poll, lseek;
 * start and stop in any order.  One more thread makes the probes fire
 * (fork and exec, getppid, sched_yield).  The pool's mutex only guards the
 * bookkeeping: the calls themselves race.  Last, a fresh session must
 * record, every file must be released (the module's reference count back
 * where it was), the kernel log must be clean and no call may have hung.
 *
 * Environment: FUZZ_SEED (default time-based, printed first), FUZZ_ITERS
 * (operations, 3000), FUZZ_THREADS (3), FUZZ_TIME_CAP (seconds of fuzzing
 * at most; 40 per 3000 operations, so that a machine too slow for them
 * still ends in time, and says so), FUZZ_HUGE=0 (no absurd buffer geometry while fuzzing; the
 * geometry_refused case still tries it), FUZZ_HANG_MS (a call that takes
 * longer hangs, 20000; small values test the watchdog).  A seed replays
 * each thread's choices, not the interleaving of the threads.
 *
 * Output: KTAP; exit status 0 only when every case passed.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

#include "lttng_abi.h"

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#define MAX_WORKERS	8
#define ARGMAX		1024			/* largest argument built */

/* The kinds of file the driver hands out, and /proc/lttng itself. */
enum kind {
	K_ROOT, K_SESSION, K_CHANNEL, K_METACHAN, K_EVENT, K_STREAM, K_MSTREAM,
	K_TPLIST, K_SCLIST, K_GROUP, K_NOTIFIER, K_NOTIF, K_COUNTER, NR_KINDS
};
#define KB(k)		(1u << (k))
#define K_ALL		(KB(NR_KINDS) - 1)

static const char *const kind_name[NR_KINDS] = {
	"root", "session", "channel", "metadata-channel", "event", "stream",
	"metadata-stream", "tracepoint-list", "syscall-list", "notifier-group",
	"event-notifier", "notification", "error-counter",
};

/* What /proc/self/fd/N links to, from the names the driver gives its files. */
static const char *const kind_link[NR_KINDS] = {
	"/proc/lttng", "anon_inode:[lttng_session]", "anon_inode:[lttng_channel]",
	"anon_inode:[lttng_channel]", "anon_inode:[lttng_event]",
	"anon_inode:[lttng_stream]", "anon_inode:[lttng_stream]",
	"anon_inode:[lttng_tracepoint_list]", "anon_inode:[lttng_syscall_list]",
	"anon_inode:[lttng_event_notifier_group]", "anon_inode:[lttng_event_notifier]",
	"anon_inode:[lttng_notification]", "anon_inode:[lttng_counter]",
};

/* Command numbers, as lttng-tools 2.13.9 hard-codes them (fact sheet, section 2). */
#define NR_SESSION		0x0000F645u
#define NR_TRACER_VERSION	0x800CF646u
#define NR_TRACEPOINT_LIST	0x0000F647u
#define NR_WAIT_QUIESCENT	0x0000F648u
#define NR_SYSCALL_LIST		0x0000F64Au
#define NR_ABI_VERSION		0x8008F64Bu
#define NR_METADATA		0x4140F654u
#define NR_CHANNEL		0x4140F655u
#define NR_START		0x0000F656u
#define NR_STOP			0x0000F657u
#define NR_TRACK_PID		0x4004F658u
#define NR_UNTRACK_PID		0x4004F659u
#define NR_METADATA_REGEN	0x0000F659u
#define NR_STATEDUMP		0x0000F65Cu
#define NR_SET_NAME		0x4100F65Du
#define NR_SET_CTIME		0x401AF65Eu
#define NR_TRACK_ID		0x4008F6A1u
#define NR_UNTRACK_ID		0x4008F6A2u
#define NR_STREAM		0x0000F662u
#define NR_EVENT		0x4234F663u
#define NR_CONTEXT		0x4134F671u
#define NR_ENABLE		0x0000F682u
#define NR_DISABLE		0x0000F683u
#define NR_FILTER		0x0000F690u
#define NR_GROUP_CREATE		0x0000F64Cu
#define NR_NOTIF_FD		0x0000F6B1u
#define NR_COUNTER		0x40C0F684u
#define NR_NOTIFIER_CREATE	0x425CF6B0u
#define NR_COUNTER_AGGREGATE	0xC04EF6C1u
#define NR_COUNTER_CLEAR	0x4044F6C2u
#define NR_CAPTURE		0x0000F6B8u
#define NR_ADD_CALLSITE		0x0000F691u
#define NR_SNAPSHOT		0x0000F600u
#define NR_GET_CONSUMED		0x8008F601u
#define NR_GET_PRODUCED		0x8008F602u
#define NR_GET_SUBBUF		0x4008F603u
#define NR_PUT_SUBBUF		0x0000F604u
#define NR_GET_NEXT		0x0000F605u
#define NR_PUT_NEXT		0x0000F606u
#define NR_SUBBUF_SIZE		0x8008F607u
#define NR_PADDED_SIZE		0x8008F608u
#define NR_MAX_SUBBUF_SIZE	0x8008F609u
#define NR_MMAP_LEN		0x8008F60Au
#define NR_MMAP_READ_OFFSET	0x8008F60Bu
#define NR_FLUSH		0x0000F60Cu
#define NR_METADATA_VERSION	0x8008F60Du
#define NR_SAMPLE_POSITIONS	0x0000F60Eu
#define NR_FLUSH_EMPTY		0x0000F60Fu
#define NR_CACHE_DUMP		0x0000F610u
#define NR_CLEAR		0x0000F611u
#define NR_METADATA_CHECK	0x8004F612u
#define NR_TS_BEGIN		0x8008F620u
#define NR_TS_END		0x8008F621u
#define NR_DISCARDED		0x8008F622u
#define NR_CONTENT_SIZE		0x8008F623u
#define NR_PACKET_SIZE		0x8008F624u
#define NR_STREAM_ID		0x8008F625u
#define NR_CURRENT_TS		0x8008F626u
#define NR_SEQ_NUM		0x8008F627u
#define NR_INSTANCE_ID		0x8008F628u

#define CTF_MAGIC		0xC1FC1FC1u
#define TSDL_MAGIC		0x75D11D57u
#define PACKET_HEADER_SIZE	84	/* a data packet's header and context */

/* How a command takes its argument. */
enum argt {
	A_NONE,		/* none: the value is ignored */
	A_VALUE,	/* an int passed by value (TRACK_PID) */
	A_IN,		/* the kernel reads a structure */
	A_OUT,		/* the kernel writes a value */
	A_INOUT,
};

/* What a well-formed input looks like. */
enum in_kind {
	IN_NONE, IN_CHANNEL, IN_METADATA, IN_EVENT, IN_CONTEXT, IN_NAME, IN_CTIME,
	IN_TRACKER, IN_FILTER, IN_POS, IN_RAW, IN_NOTIFIER, IN_COUNTER, IN_CINDEX,
	IN_CAPTURE,
};

#define CH_NONE		-1	/* returns 0 on success */
#define CH_STREAM	-2	/* returns a stream of the channel's kind */
#define CH_MAYFD	-3	/* not implemented here; lttng-modules returns a file */

struct cmd {
	uint32_t nr;
	const char *name;
	unsigned int owners;	/* the kinds that implement it; 0: none */
	uint8_t arg;		/* enum argt */
	uint8_t in;		/* enum in_kind */
	uint16_t size;		/* bytes behind the pointer */
	int8_t child;		/* the kind of file it returns, or CH_* */
};

#define D	KB(K_STREAM)
#define M	KB(K_MSTREAM)
#define S	(D | M)
#define R	KB(K_ROOT)
#define SE	KB(K_SESSION)
#define CHN	KB(K_CHANNEL)
#define EV	KB(K_EVENT)
#define EN	(KB(K_EVENT) | KB(K_NOTIFIER))
#define GR	KB(K_GROUP)

/* Every command the driver implements, then the known ones it does not. */
static const struct cmd cmds[] = {
	{ NR_SESSION, "SESSION", R, A_NONE, IN_NONE, 0, K_SESSION },
	{ NR_TRACER_VERSION, "TRACER_VERSION", R, A_OUT, IN_NONE, 12, CH_NONE },
	{ NR_TRACEPOINT_LIST, "TRACEPOINT_LIST", R, A_NONE, IN_NONE, 0, K_TPLIST },
	{ NR_WAIT_QUIESCENT, "WAIT_QUIESCENT", R, A_NONE, IN_NONE, 0, CH_NONE },
	{ NR_SYSCALL_LIST, "SYSCALL_LIST", R, A_NONE, IN_NONE, 0, K_SCLIST },
	{ NR_ABI_VERSION, "TRACER_ABI_VERSION", R, A_OUT, IN_NONE, 8, CH_NONE },
	{ NR_METADATA, "METADATA", SE, A_IN, IN_METADATA, 320, K_METACHAN },
	{ NR_CHANNEL, "CHANNEL", SE, A_IN, IN_CHANNEL, 320, K_CHANNEL },
	{ NR_START, "SESSION_START", SE, A_NONE, IN_NONE, 0, CH_NONE },
	{ NR_STOP, "SESSION_STOP", SE, A_NONE, IN_NONE, 0, CH_NONE },
	{ NR_TRACK_PID, "TRACK_PID", SE, A_VALUE, IN_NONE, 0, CH_NONE },
	{ NR_UNTRACK_PID, "UNTRACK_PID", SE, A_VALUE, IN_NONE, 0, CH_NONE },
	{ NR_METADATA_REGEN, "METADATA_REGEN", SE, A_NONE, IN_NONE, 0, CH_NONE },
	{ NR_STATEDUMP, "STATEDUMP", SE, A_NONE, IN_NONE, 0, CH_NONE },
	{ NR_SET_NAME, "SET_NAME", SE, A_IN, IN_NAME, 256, CH_NONE },
	{ NR_SET_CTIME, "SET_CREATION_TIME", SE, A_IN, IN_CTIME, 26, CH_NONE },
	{ NR_TRACK_ID, "TRACK_ID", SE, A_IN, IN_TRACKER, 8, CH_NONE },
	{ NR_UNTRACK_ID, "UNTRACK_ID", SE, A_IN, IN_TRACKER, 8, CH_NONE },
	{ NR_STREAM, "STREAM", CHN | KB(K_METACHAN), A_NONE, IN_NONE, 0, CH_STREAM },
	{ NR_EVENT, "EVENT", CHN, A_IN, IN_EVENT, 564, K_EVENT },
	{ NR_CONTEXT, "CONTEXT", CHN, A_IN, IN_CONTEXT, 308, CH_NONE },
	{ NR_ENABLE, "ENABLE", SE | CHN | EN, A_NONE, IN_NONE, 0, CH_NONE },
	{ NR_DISABLE, "DISABLE", SE | CHN | EN, A_NONE, IN_NONE, 0, CH_NONE },
	{ NR_FILTER, "FILTER", EN, A_IN, IN_FILTER, 16, CH_NONE },
	{ NR_ADD_CALLSITE, "ADD_CALLSITE", EN, A_IN, IN_RAW, 8, CH_NONE },
	{ NR_CAPTURE, "CAPTURE", EN, A_IN, IN_CAPTURE, 16, CH_NONE },
	{ NR_GROUP_CREATE, "EVENT_NOTIFIER_GROUP_CREATE", R, A_NONE, IN_NONE, 0, K_GROUP },
	{ NR_NOTIF_FD, "EVENT_NOTIFIER_GROUP_NOTIFICATION_FD", GR, A_NONE, IN_NONE, 0,
	  K_NOTIF },
	{ NR_COUNTER, "COUNTER", GR, A_IN, IN_COUNTER, 192, K_COUNTER },
	{ NR_NOTIFIER_CREATE, "EVENT_NOTIFIER_CREATE", GR, A_IN, IN_NOTIFIER, 604,
	  K_NOTIFIER },
	{ NR_COUNTER_AGGREGATE, "COUNTER_AGGREGATE", KB(K_COUNTER), A_INOUT, IN_CINDEX, 78,
	  CH_NONE },
	{ NR_COUNTER_CLEAR, "COUNTER_CLEAR", KB(K_COUNTER), A_IN, IN_CINDEX, 68, CH_NONE },
	{ NR_SNAPSHOT, "SNAPSHOT", S, A_NONE, IN_NONE, 0, CH_NONE },
	{ NR_GET_CONSUMED, "SNAPSHOT_GET_CONSUMED", S, A_OUT, IN_NONE, 8, CH_NONE },
	{ NR_GET_PRODUCED, "SNAPSHOT_GET_PRODUCED", S, A_OUT, IN_NONE, 8, CH_NONE },
	{ NR_GET_SUBBUF, "GET_SUBBUF", D, A_IN, IN_POS, 8, CH_NONE },
	{ NR_PUT_SUBBUF, "PUT_SUBBUF", S, A_NONE, IN_NONE, 0, CH_NONE },
	{ NR_GET_NEXT, "GET_NEXT_SUBBUF", S, A_NONE, IN_NONE, 0, CH_NONE },
	{ NR_PUT_NEXT, "PUT_NEXT_SUBBUF", S, A_NONE, IN_NONE, 0, CH_NONE },
	{ NR_SUBBUF_SIZE, "GET_SUBBUF_SIZE", S, A_OUT, IN_NONE, 8, CH_NONE },
	{ NR_PADDED_SIZE, "GET_PADDED_SUBBUF_SIZE", S, A_OUT, IN_NONE, 8, CH_NONE },
	{ NR_MAX_SUBBUF_SIZE, "GET_MAX_SUBBUF_SIZE", S, A_OUT, IN_NONE, 8, CH_NONE },
	{ NR_MMAP_LEN, "GET_MMAP_LEN", S, A_OUT, IN_NONE, 8, CH_NONE },
	{ NR_MMAP_READ_OFFSET, "GET_MMAP_READ_OFFSET", S, A_OUT, IN_NONE, 8, CH_NONE },
	{ NR_FLUSH, "FLUSH", S, A_NONE, IN_NONE, 0, CH_NONE },
	{ NR_METADATA_VERSION, "GET_METADATA_VERSION", M, A_OUT, IN_NONE, 8, CH_NONE },
	{ NR_SAMPLE_POSITIONS, "SNAPSHOT_SAMPLE_POSITIONS", S, A_NONE, IN_NONE, 0, CH_NONE },
	{ NR_FLUSH_EMPTY, "FLUSH_EMPTY", D, A_NONE, IN_NONE, 0, CH_NONE },
	{ NR_CACHE_DUMP, "METADATA_CACHE_DUMP", M, A_NONE, IN_NONE, 0, CH_NONE },
	{ NR_METADATA_CHECK, "GET_NEXT_SUBBUF_METADATA_CHECK", M, A_OUT, IN_NONE, 4, CH_NONE },
	{ NR_CLEAR, "CLEAR", D, A_NONE, IN_NONE, 0, CH_NONE },
	{ NR_TS_BEGIN, "GET_TIMESTAMP_BEGIN", D, A_OUT, IN_NONE, 8, CH_NONE },
	{ NR_TS_END, "GET_TIMESTAMP_END", D, A_OUT, IN_NONE, 8, CH_NONE },
	{ NR_DISCARDED, "GET_EVENTS_DISCARDED", D, A_OUT, IN_NONE, 8, CH_NONE },
	{ NR_CONTENT_SIZE, "GET_CONTENT_SIZE", D, A_OUT, IN_NONE, 8, CH_NONE },
	{ NR_PACKET_SIZE, "GET_PACKET_SIZE", D, A_OUT, IN_NONE, 8, CH_NONE },
	{ NR_STREAM_ID, "GET_STREAM_ID", D, A_OUT, IN_NONE, 8, CH_NONE },
	{ NR_CURRENT_TS, "GET_CURRENT_TIMESTAMP", D, A_OUT, IN_NONE, 8, CH_NONE },
	{ NR_SEQ_NUM, "GET_SEQ_NUM", D, A_OUT, IN_NONE, 8, CH_NONE },
	{ NR_INSTANCE_ID, "INSTANCE_ID", D, A_OUT, IN_NONE, 8, CH_NONE },
	/* Known to lttng-tools or lttng-modules, not implemented by the driver. */
	{ 0x800CF641u, "OLD_TRACER_VERSION", 0, A_OUT, IN_NONE, 12, CH_NONE },
	{ 0xC052F6C0u, "COUNTER_READ", 0, A_INOUT, IN_RAW, 82, CH_NONE },
	{ 0xC004F664u, "SYSCALL_MASK", 0, A_INOUT, IN_RAW, 4, CH_NONE },
	{ 0x0000F658u, "LIST_TRACKER_PIDS", 0, A_NONE, IN_NONE, 0, CH_MAYFD },
	{ 0x4008F6A0u, "LIST_TRACKER_IDS", 0, A_IN, IN_TRACKER, 8, CH_MAYFD },
	{ 0x8100F65Du, "SET_NAME (legacy)", 0, A_IN, IN_NAME, 256, CH_NONE },
	{ 0x801AF65Eu, "SET_CREATION_TIME (legacy)", 0, A_IN, IN_CTIME, 26, CH_NONE },
	{ 0x8004F658u, "TRACK_PID (legacy)", 0, A_VALUE, IN_NONE, 0, CH_NONE },
	{ 0x8004F659u, "UNTRACK_PID (legacy)", 0, A_VALUE, IN_NONE, 0, CH_NONE },
	{ 0x8008F6A1u, "TRACK_ID (legacy)", 0, A_IN, IN_TRACKER, 8, CH_NONE },
	{ 0x8008F6A2u, "UNTRACK_ID (legacy)", 0, A_IN, IN_TRACKER, 8, CH_NONE },
};

#undef D
#undef M
#undef S
#undef R
#undef SE
#undef CHN
#undef EV
#undef EN
#undef GR

struct filter_hdr {
	uint32_t len;
	uint32_t reloc_offset;
	uint64_t seqnum;
} __attribute__((packed));

struct tracker_args {
	uint32_t type;
	int32_t id;
};

/* The argument variants: valid ones first, then the hostile ones. */
enum av {
	AV_VALID, AV_CORRUPT, AV_MISALIGNED, AV_GUARD_EXACT, AV_GUARD_SHORT, AV_NULL, AV_ONE,
	AV_LOW, AV_KTEXT, AV_KDIRECT, AV_NONCANON, AV_PROTNONE, AV_RDONLY, NR_AV
};

static const char *const av_name[NR_AV] = {
	"valid", "corrupted", "misaligned", "ending at a PROT_NONE page",
	"cut by a PROT_NONE page", "NULL", "1", "unmapped low address",
	"kernel text address", "kernel direct-map address", "non-canonical address",
	"PROT_NONE page", "read-only page",
};

/* Percent weights of the variants in the fuzz loop. */
static const unsigned char av_weight[NR_AV] = { 34, 16, 7, 7, 6, 6, 4, 3, 4, 4, 3, 3, 3 };

#define KTEXT_ADDR	0xffffffff81000000UL
#define KDIRECT_ADDR	0xffff888000000000UL
#define NONCANON_ADDR	0x0000800000000000UL
#define LOW_ADDR	0x1000UL

/* Where a thread's call stands, for the watchdog. */
struct activity {
	atomic_llong since;	/* CLOCK_MONOTONIC ns the current call began; 0: none */
	const char *op;
	uint32_t nr;
	int kind;
	long iter;
	pid_t tid;
	char name[16];
};

struct thr {
	int id;
	pthread_t th;
	uint64_t rng;
	unsigned char *arena;	/* two read-write pages, then... */
	unsigned char *guard;	/* ...a PROT_NONE page */
	int pipe[2];
	unsigned char *drain;
	struct activity *act;
	long iter;
};

/* One file of the shared pool. */
struct slot {
	int fd;			/* -1: free */
	int kind;
	int users;		/* threads using fd now; it is closed once none is */
	bool dying;
	unsigned int uid;
	unsigned int sess;	/* the session it belongs to */
	bool mmap;		/* channels and streams: mmap output */
	bool overwrite;		/* data channels and streams: overwrite mode */
	unsigned long subbuf, nsub;
	unsigned long consumed;	/* streams: the last consumed position seen */
};

#define POOL	64
static struct slot pool[POOL];
static pthread_mutex_t pool_lock = PTHREAD_MUTEX_INITIALIZER;
static unsigned int next_uid = 1;
static const unsigned char kind_cap[NR_KINDS] = { 3, 5, 8, 3, 6, 14, 3, 2, 2, 2, 4, 2, 2 };

/* Stream mappings, which outlive their file when it is closed first. */
struct map {
	unsigned char *addr;	/* NULL: free */
	size_t len;
	int users;
	bool dying;
	unsigned int stream_uid;
	unsigned int sess;
};
#define MAPS	16
static struct map maps[MAPS];

/* Settings and shared state. */
static int fuzz_threads = 3;
static long fuzz_iters = 3000;
static double fuzz_cap;
static bool fuzz_huge = true;
static long long hang_ns = 20LL * 1000000000LL;	/* a call stuck this long hangs */
static unsigned long long seed;
static long page;
static long ncpus;
static unsigned char *protnone_page, *rdonly_page;
static struct activity acts[MAX_WORKERS + 2];
static struct thr mthr;		/* the main thread's, for the deterministic cases */
static atomic_long iter_next;
static atomic_int stop_fuzz, stop_events, stop_watchdog, fuzz_capped;
static long long t_start;

/* Statistics. */
enum op { OP_IOCTL, OP_CREATE, OP_CLOSE, OP_DATA, OP_MAP, OP_FILE, OP_STATE, OP_SPLICE, NR_OPS };
static const char *const op_name[NR_OPS] = {
	"ioctl", "create", "close", "stream-data", "mmap", "read/write/poll", "start/stop",
	"splice",
};
static atomic_long st_op[NR_OPS];
static atomic_long st_ioctl[NR_KINDS], st_ioctl_ok[NR_KINDS];
static atomic_long st_cmd_ok[ARRAY_SIZE(cmds)];
static atomic_llong st_cmd_ns[ARRAY_SIZE(cmds) + 1];	/* time in each command; last: random */
static atomic_llong st_close_ns;

/* The slowest calls of the fuzz phase. */
struct slow {
	long long ns;
	const char *op;
	uint32_t nr;
	int kind;
};
static struct slow slowest[5];
static atomic_llong slow_min;	/* the fastest of them */
static pthread_mutex_t slow_lock = PTHREAD_MUTEX_INITIALIZER;
static atomic_long st_errno[256];
static atomic_long st_closed, st_mapped, st_spliced_bytes, st_spawned;
static atomic_long bad_errno, bad_return;

/* Output: KTAP results in order, diagnostics as "# " lines. */
enum {
	C_HOSTILE, C_GEOMETRY, C_WRONG_KIND, C_ENCODING, C_ERRNOS, C_RETURNS, C_NEW_SESSION,
	C_FDS, C_KLOG, C_HANG, NR_CASES
};
static const char *const case_name[NR_CASES] = {
	"hostile_pointers_efault", "geometry_refused", "wrong_fd_kind_enotty",
	"bad_encoding_enotty", "errnos_are_clean", "returns_are_valid", "new_session_works",
	"fds_released", "kernel_log_clean", "no_hang",
};
static pthread_mutex_t out_lock = PTHREAD_MUTEX_INITIALIZER;
static atomic_int next_case;
static bool any_failed;

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static double secs_since(long long t0)
{
	return (now_ns() - t0) / 1e9;
}

static __attribute__((format(printf, 1, 2))) void diag(const char *fmt, ...)
{
	va_list ap;

	pthread_mutex_lock(&out_lock);
	fputs("# ", stdout);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	pthread_mutex_unlock(&out_lock);
}

static void report(int c, bool ok)
{
	pthread_mutex_lock(&out_lock);
	if (atomic_load(&next_case) == c) {
		printf("%s %d %s\n", ok ? "ok" : "not ok", c + 1, case_name[c]);
		atomic_store(&next_case, c + 1);
		if (!ok)
			any_failed = true;
	}
	pthread_mutex_unlock(&out_lock);
}

/* Every case not reported yet fails, for @why; out_lock held. */
static void emit_remaining_locked(const char *why)
{
	int c;

	for (c = atomic_load(&next_case); c < NR_CASES; c++)
		printf("not ok %d %s # %s\n", c + 1, case_name[c], why);
	atomic_store(&next_case, NR_CASES);
	any_failed = true;
	fflush(stdout);
}

/* The same from a signal handler: write(2) only. */
static void put_str(const char *s)
{
	ssize_t r = write(1, s, strlen(s));

	(void)r;
}

static void put_num(long n)
{
	unsigned long u = n < 0 ? -(unsigned long)n : (unsigned long)n;
	char b[24];
	int i = sizeof(b);

	b[--i] = 0;
	do {
		b[--i] = '0' + u % 10;
		u /= 10;
	} while (u && i > 1);
	if (n < 0)
		b[--i] = '-';
	put_str(b + i);
}

static void emit_remaining_async(const char *why)
{
	int c;

	for (c = atomic_load(&next_case); c < NR_CASES; c++) {
		put_str("not ok ");
		put_num(c + 1);
		put_str(" ");
		put_str(case_name[c]);
		put_str(" # ");
		put_str(why);
		put_str("\n");
	}
}

static const char *errname(int e)
{
	switch (e) {
#define E(x) case x: return #x
	E(EPERM); E(ENOENT); E(EINTR); E(EIO); E(ENXIO); E(E2BIG); E(EBADF);
	E(EAGAIN); E(ENOMEM); E(EACCES); E(EFAULT); E(EBUSY); E(EEXIST); E(ENODEV);
	E(EINVAL); E(ENFILE); E(EMFILE); E(ENOTTY); E(ENOSPC); E(ESPIPE); E(EPIPE);
	E(ERANGE); E(ENOSYS); E(ENODATA); E(EOVERFLOW); E(ENOBUFS); E(EOPNOTSUPP);
	E(ETIMEDOUT); E(ECHILD); E(ESRCH);
#undef E
	default:
		return "E?";
	}
}

/* Random numbers: xorshift64*, one state per thread. */
static uint64_t rnd(uint64_t *s)
{
	uint64_t x = *s;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*s = x;
	return x * 0x2545F4914F6CDD1DULL;
}

static uint32_t rn(struct thr *t, uint32_t n)
{
	return n ? (uint32_t)(rnd(&t->rng) % n) : 0;
}

static uint64_t r64(struct thr *t)
{
	return rnd(&t->rng);
}

static const struct cmd *find_cmd(uint32_t nr)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(cmds); i++)
		if (cmds[i].nr == nr)
			return &cmds[i];
	return NULL;
}

static const char *cmd_name(uint32_t nr)
{
	const struct cmd *c = find_cmd(nr);

	return c ? c->name : "random";
}

static bool is_pow2(uint64_t v)
{
	return v && !(v & (v - 1));
}

/*
 * The errnos a failing call may give, from the driver's code (lttng-abi.c,
 * lttng-stream.c, lttng-session.c, lttng-rb.c, lttng-events.c,
 * lttng-syscalls.c, lttng-record.c) and the VFS paths around it:
 *
 * ioctl:
 *   ENOTTY      a command the file does not know (-ENOTTY, or -ENOIOCTLCMD
 *               from the stream files, which vfs_ioctl() turns into ENOTTY;
 *               list files have no ioctl at all)
 *   EINVAL      bad geometry or mode (lttng_channel_check(), chan_geometry_ok()),
 *               a name without NUL, a bad syscall enabler, a FILTER bytecode
 *               the driver cannot run safely, a
 *               stream command that needs a held sub-buffer, GET_MMAP_LEN and
 *               GET_MMAP_READ_OFFSET of a splice channel, an unaligned GET_SUBBUF
 *   EFAULT      every copy_from_user(), memdup_user(), get_user(), put_user()
 *   EOPNOTSUPP  an unsupported instrumentation or context, TRACK_PID
 *               of one process
 *   EPERM       CONTEXT once the session has been active
 *   EEXIST      CONTEXT added twice, a second FILTER
 *   EBUSY       FILTER after ENABLE, SESSION_START twice, SESSION_STOP of a stopped session,
 *               METADATA_REGEN of a session not started, a
 *               buffer that already has its reader, GET_NEXT_SUBBUF and
 *               GET_SUBBUF while a sub-buffer is held, METADATA_CACHE_DUMP
 *               before everything was consumed, a metadata push that finds
 *               the next sub-buffer not delivered
 *   ENOENT      STREAM once every buffer was handed out, a channel whose
 *               client transport is not loaded
 *   ENOMEM      allocations (channel buffers too big for memory, events)
 *   EAGAIN      no sub-buffer ready (GET_NEXT_SUBBUF, GET_SUBBUF, SNAPSHOT),
 *               a metadata push into a finalized buffer
 *   ENODATA     the channel is finalized and drained
 *   ENOBUFS     a metadata push (GET_NEXT_SUBBUF) with no free sub-buffer
 *   EBADF       a uprobe EVENT whose fd (random bytes) is not open
 *   EIO         ADD_CALLSITE of a uprobe on a file uprobes cannot read
 *               (/proc/lttng: its fd is the pool's; uprobe_register())
 *   E2BIG       ADD_CALLSITE past the call sites a uprobe event may have
 *   ENOSPC      CAPTURE past the 16 captures of an event notifier
 * Not allowed: ENOSYS above all (lttng-tools then retries legacy command
 * numbers), EINTR (nothing here waits interruptibly), EMFILE/ENFILE (the
 * pool is bounded).
 *
 * read: EINVAL (files without .read), EIO (/proc/lttng has no proc_read),
 *   EFAULT (a hostile buffer on a list file or a notification fd), EAGAIN
 *   (a notification fd, made O_NONBLOCK, with nothing to read).
 * write: the same, and EBADF for the list files, opened read-only.
 * lseek: ESPIPE (no_llseek), EINVAL (a negative position on a list file).
 * pread: ESPIPE, EINVAL, EIO, EFAULT.
 * mmap: EINVAL (a splice channel's stream, a wrong length or offset), EPERM
 *   (a writable stream mapping), ENODEV (files without .mmap), EACCES, EIO
 *   (/proc/lttng has no proc_mmap).
 * mprotect: EACCES (the driver clears VM_MAYWRITE of stream mappings).
 * splice: EINVAL (nothing held, unaligned offset or length, files without
 *   .splice_read), EAGAIN (a full pipe), ESPIPE, EFAULT (a hostile offset
 *   pointer), ENOMEM.
 */
enum sc { SC_IOCTL, SC_READ, SC_WRITE, SC_LSEEK, SC_PREAD, SC_MMAP, SC_MPROTECT, SC_SPLICE,
	  SC_OTHER };
static const char *const sc_name[] = {
	"ioctl", "read", "write", "lseek", "pread", "mmap", "mprotect", "splice", "call",
};

static bool errno_allowed(int sc, uint32_t nr, int e)
{
	switch (sc) {
	case SC_IOCTL:
		/* The uprobe commands' own: EVENT's fd, ADD_CALLSITE's file. */
		if (nr == NR_EVENT && e == EBADF)
			return true;
		if (nr == NR_ADD_CALLSITE && (e == EIO || e == E2BIG))
			return true;
		/* A seventeenth capture. */
		if (nr == NR_CAPTURE && e == ENOSPC)
			return true;
		return e == ENOTTY || e == EINVAL || e == EFAULT || e == EOPNOTSUPP ||
		       e == EPERM || e == EEXIST || e == EBUSY || e == ENOENT || e == ENOMEM ||
		       e == EAGAIN || e == ENODATA || e == ENOBUFS;
	case SC_READ:
		/* EAGAIN: a notification fd with nothing to read (O_NONBLOCK) */
		return e == EINVAL || e == EIO || e == EFAULT || e == EAGAIN;
	case SC_WRITE:
		return e == EINVAL || e == EIO || e == EFAULT || e == EBADF;
	case SC_LSEEK:
		return e == ESPIPE || e == EINVAL;
	case SC_PREAD:
		return e == ESPIPE || e == EINVAL || e == EIO || e == EFAULT;
	case SC_MMAP:
		return e == EINVAL || e == EPERM || e == ENODEV || e == EACCES || e == EIO;
	case SC_MPROTECT:
		return e == EACCES;
	case SC_SPLICE:
		return e == EINVAL || e == EAGAIN || e == ESPIPE || e == EFAULT || e == ENOMEM;
	default:
		return false;
	}
}

static void count_errno(int e)
{
	atomic_fetch_add(&st_errno[e > 0 && e < 256 ? e : 0], 1);
}

static void check_errno(struct thr *t, int sc, int kind, uint32_t nr, int av, int e)
{
	long n;

	count_errno(e);
	if (errno_allowed(sc, nr, e))
		return;
	n = atomic_fetch_add(&bad_errno, 1);
	if (n < 30)
		diag("unexpected errno %s (%d) from %s %s (0x%08x) on a %s fd, argument %s, "
		     "iteration %ld, thread %d", errname(e), e, sc_name[sc],
		     sc == SC_IOCTL ? cmd_name(nr) : "", nr, kind_name[kind],
		     av >= 0 ? av_name[av] : "-", t ? t->iter : -1, t ? t->id : 0);
}

static __attribute__((format(printf, 2, 3))) void anomaly(struct thr *t, const char *fmt, ...)
{
	char buf[512];
	va_list ap;
	long n;

	n = atomic_fetch_add(&bad_return, 1);
	if (n >= 30)
		return;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	diag("%s (iteration %ld, thread %d)", buf, t ? t->iter : -1, t ? t->id : 0);
}

static void act_begin(struct activity *a, const char *op, uint32_t nr, int kind, long iter)
{
	a->op = op;
	a->nr = nr;
	a->kind = kind;
	a->iter = iter;
	atomic_store(&a->since, now_ns());
}

static void act_end(struct activity *a)
{
	long long ns = now_ns() - atomic_load(&a->since);
	size_t k, min = 0;

	atomic_store(&a->since, 0);
	if (ns <= atomic_load(&slow_min))
		return;
	pthread_mutex_lock(&slow_lock);
	for (k = 1; k < ARRAY_SIZE(slowest); k++)
		if (slowest[k].ns < slowest[min].ns)
			min = k;
	if (ns > slowest[min].ns) {
		slowest[min].ns = ns;
		slowest[min].op = a->op;
		slowest[min].nr = a->nr;
		slowest[min].kind = a->kind;
		for (k = 0, min = 0; k < ARRAY_SIZE(slowest); k++)
			if (slowest[k].ns < slowest[min].ns)
				min = k;
		atomic_store(&slow_min, slowest[min].ns);
	}
	pthread_mutex_unlock(&slow_lock);
}

static void act_init(struct activity *a, const char *name)
{
	if (name != a->name)
		snprintf(a->name, sizeof(a->name), "%s", name);
	a->tid = (pid_t)syscall(SYS_gettid);
}

/* Is @fd a file of @kind?  From the name the driver gave it. */
static bool fd_is(long fd, int kind)
{
	char path[64], link[128];
	ssize_t n;

	if (fd < 0 || fd > INT_MAX)
		return false;
	snprintf(path, sizeof(path), "/proc/self/fd/%ld", fd);
	n = readlink(path, link, sizeof(link) - 1);
	if (n < 0)
		return false;
	link[n] = 0;
	return !strcmp(link, kind_link[kind]);
}

static bool fd_is_lttng(long fd)
{
	char path[64], link[128];
	ssize_t n;

	if (fd < 0 || fd > INT_MAX)
		return false;
	snprintf(path, sizeof(path), "/proc/self/fd/%ld", fd);
	n = readlink(path, link, sizeof(link) - 1);
	if (n < 0)
		return false;
	link[n] = 0;
	return strstr(link, "lttng") != NULL;
}

/* Valid arguments. */

static const char *const tp_names[] = {
	"sched_switch", "sched_wakeup", "sched_wak*", "sched_process_*", "sched_process_fork",
	"timer_hrtimer_*", "irq_handler_*", "signal_*", "no_such_event", "sched_switch",
};

static const char *const sc_names[] = {
	"getppid", "sched_yield", "ioctl", "close", "read*", "no_such_syscall", "getppid",
	"*",
};

static void valid_channel(struct thr *t, struct channel_conf *cc, bool metadata)
{
	static const unsigned long sub[] = { 4096, 8192, 16384 };
	static const unsigned long num[] = { 2, 4, 8 };

	memset(cc, 0, sizeof(*cc));
	cc->subbuf_size = metadata ? sub[rn(t, 2)] : sub[rn(t, 3)];
	cc->num_subbuf = num[rn(t, 3)];
	if (metadata) {
		cc->output = rn(t, 10) ? 1 : 0;		/* lttng-tools always maps it */
		return;
	}
	if (!rn(t, 4))
		cc->switch_timer_interval = 10000 + rn(t, 490000);
	switch (rn(t, 3)) {
	case 0:
		break;
	case 1:
		cc->read_timer_interval = 200000;
		break;
	default:
		cc->read_timer_interval = 20000 + rn(t, 480000);
	}
	cc->output = rn(t, 2);
	cc->overwrite = rn(t, 2);
}

static void valid_event(struct thr *t, struct event_conf *ev)
{
	size_t nsc = ARRAY_SIZE(sc_names);

	memset(ev, 0, sizeof(*ev));
	if (rn(t, 10) < 7) {
		snprintf(ev->name, sizeof(ev->name), "%s", tp_names[rn(t, ARRAY_SIZE(tp_names))]);
		ev->instrumentation = 0;			/* TRACEPOINT */
	} else {
		/* "*" (every system call) is the costly one: rarely. */
		snprintf(ev->name, sizeof(ev->name), "%s",
			 sc_names[rn(t, rn(t, 4) ? nsc - 1 : nsc)]);
		ev->instrumentation = 5;			/* SYSCALL */
		ev->u[0] = rn(t, 3);				/* entry, exit or both */
	}
}

/*
 * A filter as lttng-tools compiles "FIELD OP N", "... && $ctx.procname ==
 * "a*"" or "FIELD[I] OP N" into @code, its header in @fh; returns its
 * bytes.  Fields of sched_switch, of system calls, and one no event has.
 */
static size_t valid_filter(struct thr *t, unsigned char *code, struct filter_hdr *fh)
{
	static const char *const fields[] = { "prev_tid", "next_comm", "prev_state", "fd",
		"filename", "ret", "nosuchfield", "ip", "msg" };
	const char *field = fields[rn(t, ARRAY_SIZE(fields))];
	uint64_t v = rn(t, 2) ? rn(t, 3) : r64(t);
	size_t n = 0, ref = 0, ctx = 0, k;
	uint16_t w;
	bool and = rn(t, 2), index = !rn(t, 3);

	if (index) {
		code[n++] = 81;				/* GET_PAYLOAD_ROOT */
		ref = n;
		code[n++] = 82;				/* GET_SYMBOL: name at 2 */
		w = 2;
		memcpy(code + n, &w, 2);
		n += 2;
		code[n++] = 85;				/* GET_INDEX_U64 */
		memcpy(code + n, &v, 8);
		n += 8;
		code[n++] = 86;				/* LOAD_FIELD */
	} else {
		code[n++] = 59;				/* LOAD_FIELD_REF */
		code[n++] = 0xff;
		code[n++] = 0xff;
	}
	code[n++] = 65;					/* LOAD_S64 */
	memcpy(code + n, &v, 8);
	n += 8;
	code[n++] = 12 + rn(t, 6);			/* EQ .. LE */
	if (and) {
		k = n;
		code[n++] = 57;				/* AND */
		n += 2;
		ctx = n;
		code[n++] = 70;				/* GET_CONTEXT_REF */
		code[n++] = 0xff;
		code[n++] = 0xff;
		code[n++] = 64;				/* LOAD_STRING */
		memcpy(code + n, "a*", 3);
		n += 3;
		code[n++] = 12;				/* EQ */
		w = n;
		memcpy(code + k + 1, &w, 2);		/* skip to RETURN */
	}
	code[n++] = 1;					/* RETURN */
	fh->reloc_offset = n;
	w = ref;
	memcpy(code + n, &w, 2);
	strcpy((char *)code + n + 2, field);
	n += 2 + strlen(field) + 1;
	if (and) {
		w = ctx;
		memcpy(code + n, &w, 2);
		strcpy((char *)code + n + 2, "$ctx.procname");
		n += 2 + strlen("$ctx.procname") + 1;
	}
	fh->len = n;
	fh->seqnum = r64(t);
	return n;
}

/*
 * A capture as lttng-tools compiles "--capture FIELD", "FIELD[I]" or
 * "$ctx.NAME", with its header: a root, GET_SYMBOL, perhaps GET_INDEX_U64,
 * RETURN, then the relocation naming the symbol.
 */
static size_t valid_capture(struct thr *t, unsigned char *b)
{
	static const char *const names[] = { "prev_comm", "prev_tid", "next_comm", "fd",
		"filename", "nosuchfield", "procname", "vtid" };
	const char *name = names[rn(t, ARRAY_SIZE(names))];
	unsigned char *code = b + sizeof(struct filter_hdr);
	struct filter_hdr fh;
	uint64_t idx = rn(t, 2) ? rn(t, 20) : r64(t);
	size_t n = 0;
	uint16_t w;

	code[n++] = rn(t, 4) ? 81 : 79;			/* PAYLOAD or CONTEXT root */
	code[n++] = 82;					/* GET_SYMBOL */
	w = 2;
	memcpy(code + n, &w, 2);
	n += 2;
	if (!rn(t, 3)) {
		code[n++] = 85;				/* GET_INDEX_U64 */
		memcpy(code + n, &idx, 8);
		n += 8;
	}
	code[n++] = 1;					/* RETURN */
	fh.reloc_offset = n;
	w = 1;
	memcpy(code + n, &w, 2);
	strcpy((char *)code + n + 2, name);
	n += 2 + strlen(name) + 1;
	fh.len = n;
	fh.seqnum = r64(t);
	memcpy(b, &fh, sizeof(fh));
	return sizeof(fh) + n;
}

/* Fill @b with a well-formed argument of @c; return its size. */
static size_t build_valid(struct thr *t, const struct cmd *c, const struct slot *s,
			  unsigned char *b)
{
	static const uint32_t ctxs[] = { 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13,
					 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25,
					 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37 };
	/* Software perf counters (PERF_TYPE_SOFTWARE): every guest has them. */
	static const char *const perf_names[] = { "perf_cpu_cpu_clock",
		"perf_cpu_task_clock", "perf_cpu_page_fault", "perf_cpu_cs" };
	struct context_conf *cc;
	uint32_t sw;
	struct filter_hdr fh;
	struct tracker_args ta;
	unsigned long pos;
	uint32_t k;

	switch (c->in) {
	case IN_CHANNEL:
	case IN_METADATA:
		valid_channel(t, (struct channel_conf *)b, c->in == IN_METADATA);
		return sizeof(struct channel_conf);
	case IN_EVENT:
		valid_event(t, (struct event_conf *)b);
		return sizeof(struct event_conf);
	case IN_CONTEXT:
		cc = (struct context_conf *)b;
		cc->ctx = ctxs[rn(t, ARRAY_SIZE(ctxs))];
		if (cc->ctx == 1) {
			/* type u32 @0, config u64 @4, name @12 */
			sw = rn(t, ARRAY_SIZE(perf_names));
			memset(cc->u, 0, sizeof(cc->u));
			cc->u[0] = 1;
			cc->u[4] = sw;
			snprintf(cc->u + 12, 256, "%s", perf_names[sw]);
		}
		return sizeof(struct context_conf);
	case IN_NAME:
		snprintf((char *)b, 256, "fuzz-%u", rn(t, 100000));
		return 256;
	case IN_CTIME:
		snprintf((char *)b, 26, "%s", rn(t, 2) ? "20240131T101112+0100" :
						     "2024-01-31T10:11:12+01:00");
		return 26;
	case IN_TRACKER:
		ta.type = rn(t, 6);
		ta.id = rn(t, 5) ? -1 : (int32_t)rn(t, 100000);
		memcpy(b, &ta, sizeof(ta));
		return sizeof(ta);
	case IN_NOTIFIER:
		valid_event(t, (struct event_conf *)b);
		k = rn(t, 20);
		memcpy(b + sizeof(struct event_conf), &k, sizeof(k));
		return sizeof(struct event_notifier_conf);
	case IN_COUNTER:
		memset(b, 0, sizeof(struct counter_conf));
		((struct counter_conf *)b)->bitness = 1;
		((struct counter_conf *)b)->number_dimensions = 1;
		((struct counter_conf *)b)->dimensions[0].size = 1 + rn(t, 32);
		return sizeof(struct counter_conf);
	case IN_CINDEX:
		memset(b, 0, sizeof(struct counter_aggregate));
		((struct counter_aggregate *)b)->number_dimensions = 1;
		((struct counter_aggregate *)b)->indexes[0] = rn(t, 40);
		return c->size;
	case IN_CAPTURE:
		return valid_capture(t, b);
	case IN_FILTER:
		/*
		 * Half of the time a bytecode as lttng-tools makes it, which the
		 * driver takes and its probes then run (a byte of it changed now
		 * and then: mostly refused, sometimes a strange program that
		 * runs); else random bytes.  The deterministic cases send the
		 * header only, so that a buffer cut by a PROT_NONE page is cut in
		 * what the driver reads.
		 */
		if (t != &mthr && rn(t, 2)) {
			size_t n = valid_filter(t, b + sizeof(fh), &fh);

			if (!rn(t, 4))
				b[sizeof(fh) + rn(t, n)] = (unsigned char)r64(t);
			memcpy(b, &fh, sizeof(fh));
			return sizeof(fh) + n;
		}
		fh.len = t == &mthr ? 0 : rn(t, 33);
		fh.reloc_offset = rn(t, fh.len + 1);
		fh.seqnum = r64(t);
		memcpy(b, &fh, sizeof(fh));
		for (k = 0; k < fh.len; k++)
			b[sizeof(fh) + k] = (unsigned char)r64(t);
		return sizeof(fh) + fh.len;
	case IN_POS:
		pos = s ? s->consumed : 0;
		if (s && s->subbuf)
			pos += rn(t, 3) * s->subbuf;
		memcpy(b, &pos, sizeof(pos));
		return sizeof(pos);
	case IN_RAW:
		if (c->size <= ARGMAX && rn(t, 2))
			for (k = 0; k < c->size; k++)
				b[k] = (unsigned char)r64(t);
		return c->size;
	default:
		return c->size;
	}
}

/*
 * Buffer geometry a corruption produced: a valid one that would really
 * allocate more than 2 MiB per buffer is made invalid (the guest has 2 GiB);
 * an absurd one (2^40 bytes or more) is kept, unless FUZZ_HUGE=0: the
 * driver must refuse it without allocating.
 */
static void sanitize_geometry(struct channel_conf *cc)
{
	unsigned __int128 bytes = (unsigned __int128)cc->subbuf_size * cc->num_subbuf;

	if (!is_pow2(cc->subbuf_size) || !is_pow2(cc->num_subbuf) ||
	    cc->subbuf_size < 4096 || !cc->num_subbuf || bytes <= (1u << 21))
		return;
	if (fuzz_huge && bytes >= ((unsigned __int128)1 << 40))
		return;
	cc->num_subbuf = 3;
}

static const uint64_t odd_subbuf[] = {
	0, 1, 4095, 4097, 6144, 2048, 1ULL << 20, 1ULL << 40, 1ULL << 63, ~0ULL,
	0x8000000000000001ULL, 12288,
};
static const uint64_t odd_num[] = {
	0, 1, 3, 5, 2, 16, 1ULL << 40, 1ULL << 62, 1ULL << 63, ~0ULL, 1ULL << 52, 6,
};

static void corrupt(struct thr *t, const struct cmd *c, unsigned char *b, size_t size)
{
	struct channel_conf *cc = (struct channel_conf *)b;
	struct event_conf *ev = (struct event_conf *)b;
	struct filter_hdr *fh = (struct filter_hdr *)b;
	unsigned int n = 1 + rn(t, 4), k;
	uint64_t v;

	if (!size)
		return;
	if (!c || rn(t, 2)) {
		for (k = 0; k < n; k++)
			b[rn(t, size)] = (unsigned char)r64(t);
	} else {
		switch (c->in) {
		case IN_CHANNEL:
		case IN_METADATA:
			switch (rn(t, 6)) {
			case 0:
				cc->subbuf_size = odd_subbuf[rn(t, ARRAY_SIZE(odd_subbuf))];
				break;
			case 1:
				cc->num_subbuf = odd_num[rn(t, ARRAY_SIZE(odd_num))];
				break;
			case 2:
				cc->subbuf_size = odd_subbuf[rn(t, ARRAY_SIZE(odd_subbuf))];
				cc->num_subbuf = odd_num[rn(t, ARRAY_SIZE(odd_num))];
				break;
			case 3:
				cc->output = rn(t, 2) ? (uint32_t)r64(t) : 2 + rn(t, 3);
				break;
			case 4:
				cc->overwrite = rn(t, 2) ? (int32_t)r64(t) : -1 + 3 * (int)rn(t, 2);
				break;
			default:
				/* Timers of 1 us (every tick) up to 71 minutes. */
				cc->switch_timer_interval = rn(t, 2) ? 1 : (uint32_t)r64(t);
				cc->read_timer_interval = rn(t, 2) ? 1 : (uint32_t)r64(t);
			}
			if (!rn(t, 4))
				cc->padding[rn(t, sizeof(cc->padding))] = (char)r64(t);
			break;
		case IN_EVENT:
			switch (rn(t, 4)) {
			case 0:
				memset(ev->name, 'a' + rn(t, 26), sizeof(ev->name));
				break;
			case 1:
				ev->instrumentation = rn(t, 2) ? rn(t, 9) : (uint32_t)r64(t);
				break;
			case 2:
				for (k = 0; k < 4; k++)
					ev->u[k] = (unsigned char)r64(t);
				break;
			default:
				ev->token = r64(t);
				ev->padding[rn(t, 8)] = (char)r64(t);
			}
			break;
		case IN_NAME:
		case IN_CTIME:
			memset(b, 'x', size);
			break;
		case IN_FILTER:
			v = rn(t, 4);
			fh->len = v == 0 ? 65536 : v == 1 ? 65537 : v == 2 ? ~0u : (uint32_t)r64(t);
			fh->reloc_offset = rn(t, 2) ? fh->len + 1 : (uint32_t)r64(t);
			break;
		case IN_POS:
			v = rn(t, 3);
			v = v == 0 ? 1 : v == 1 ? ~0ULL : r64(t);
			memcpy(b, &v, sizeof(v));
			break;
		default:
			for (k = 0; k < n; k++)
				b[rn(t, size)] = (unsigned char)r64(t);
		}
	}
	if (c && (c->in == IN_CHANNEL || c->in == IN_METADATA))
		sanitize_geometry(cc);
	/*
	 * A tracepoint glob of only wildcards would enable every kernel event:
	 * legitimate, but too slow for a guest under emulation.
	 */
	if (c && c->in == IN_EVENT && ev->instrumentation == 0 &&
	    strnlen(ev->name, sizeof(ev->name)) < sizeof(ev->name) &&
	    strspn(ev->name, "*?[]!") == strlen(ev->name))
		snprintf(ev->name, sizeof(ev->name), "sched_switch");
}

static unsigned long value_arg(struct thr *t, int av)
{
	static const unsigned long vals[] = {
		0, 1, (unsigned long)INT_MIN, (unsigned long)INT_MAX, KTEXT_ADDR, 0xfffffffeUL,
	};

	if (av == AV_VALID)
		return (unsigned long)-1L;		/* -1: every process */
	if (av == AV_CORRUPT)
		return rn(t, 2) ? (unsigned long)getpid() : r64(t);
	return vals[rn(t, ARRAY_SIZE(vals))];
}

/*
 * Build and place the argument of @nr (@c when known) for the variant @av;
 * @tmp receives the bytes placed and *@sizep their count.
 */
static unsigned long place_arg(struct thr *t, const struct cmd *c, const struct slot *s,
			       uint32_t nr, int av, unsigned char *tmp, size_t *sizep)
{
	unsigned char *p;
	size_t size;
	unsigned int k;

	memset(tmp, 0, ARGMAX);
	*sizep = 0;
	if (c && c->arg == A_VALUE)
		return value_arg(t, av);
	if (c && c->arg != A_NONE) {
		size = build_valid(t, c, s, tmp);
	} else {
		if (c && av == AV_VALID)
			return 0;
		size = _IOC_SIZE(nr) ? _IOC_SIZE(nr) : 16;
		if (size > ARGMAX)
			size = ARGMAX;
		for (k = 0; k < size; k++)
			tmp[k] = (unsigned char)r64(t);
	}
	if (av == AV_CORRUPT)
		corrupt(t, c, tmp, size);
	*sizep = size;
	switch (av) {
	case AV_NULL:
		return 0;
	case AV_ONE:
		return 1;
	case AV_LOW:
		return LOW_ADDR;
	case AV_KTEXT:
		return KTEXT_ADDR;
	case AV_KDIRECT:
		return KDIRECT_ADDR;
	case AV_NONCANON:
		return rn(t, 2) ? NONCANON_ADDR : 0xdead000000000000UL;
	case AV_PROTNONE:
		return (unsigned long)protnone_page + rn(t, 64);
	case AV_RDONLY:
		return (unsigned long)rdonly_page + 64;
	case AV_GUARD_SHORT:
		k = 1 + rn(t, size < 8 ? size : 8);
		p = t->guard - size + k;
		memcpy(p, tmp, size - k);
		return (unsigned long)p;
	case AV_GUARD_EXACT:
		p = t->guard - size;
		break;
	case AV_MISALIGNED:
		p = t->arena + 64 + 1 + rn(t, 7);
		break;
	default:
		p = t->arena + 64;
	}
	memcpy(p, tmp, size);
	return (unsigned long)p;
}

static int choose_av(struct thr *t)
{
	unsigned int r = rn(t, 100), a;

	for (a = 0; a < NR_AV; a++) {
		if (r < av_weight[a])
			return a;
		r -= av_weight[a];
	}
	return AV_VALID;
}

/* The pool. */

static struct slot slot_copy(int i)
{
	struct slot s;

	pthread_mutex_lock(&pool_lock);
	s = pool[i];
	pthread_mutex_unlock(&pool_lock);
	return s;
}

/* Take a random live file of one of the kinds in @mask; -1 if none. */
static int pool_pick(struct thr *t, unsigned int mask)
{
	int cand[POOL], n = 0, i;

	pthread_mutex_lock(&pool_lock);
	for (i = 0; i < POOL; i++)
		if (pool[i].fd >= 0 && !pool[i].dying && (mask & KB(pool[i].kind)))
			cand[n++] = i;
	i = -1;
	if (n) {
		i = cand[rn(t, n)];
		pool[i].users++;
	}
	pthread_mutex_unlock(&pool_lock);
	return i;
}

static int pool_count(int kind)
{
	int i, n = 0;

	pthread_mutex_lock(&pool_lock);
	for (i = 0; i < POOL; i++)
		if (pool[i].fd >= 0 && pool[i].kind == kind)
			n++;
	pthread_mutex_unlock(&pool_lock);
	return n;
}

static void close_fd(struct thr *t, int fd, int kind)
{
	int r, e;

	act_begin(t->act, "close", 0, kind, t->iter);
	r = close(fd);
	e = errno;
	atomic_fetch_add(&st_close_ns, now_ns() - atomic_load(&t->act->since));
	act_end(t->act);
	atomic_fetch_add(&st_closed, 1);
	if (r)
		check_errno(t, SC_OTHER, kind, 0, -1, e);
}

/* Done with slot @i; the last user of a dying slot closes it. */
static void pool_put(struct thr *t, int i)
{
	int fd = -1, kind;

	pthread_mutex_lock(&pool_lock);
	kind = pool[i].kind;
	if (--pool[i].users == 0 && pool[i].dying) {
		fd = pool[i].fd;
		pool[i].fd = -1;
	}
	pthread_mutex_unlock(&pool_lock);
	if (fd >= 0)
		close_fd(t, fd, kind);
}

static void pool_kill(int i)
{
	pthread_mutex_lock(&pool_lock);
	pool[i].dying = true;
	pthread_mutex_unlock(&pool_lock);
}

/* Close every file of session @sess whose kind is in @mask, in random order. */
static void pool_kill_sess(struct thr *t, unsigned int sess, unsigned int mask)
{
	int fds[POOL], kinds[POOL], n = 0, i, j, tmp;

	pthread_mutex_lock(&pool_lock);
	for (i = 0; i < POOL; i++) {
		if (pool[i].fd < 0 || pool[i].sess != sess || !(mask & KB(pool[i].kind)))
			continue;
		pool[i].dying = true;
		if (pool[i].users)
			continue;
		fds[n] = pool[i].fd;
		kinds[n++] = pool[i].kind;
		pool[i].fd = -1;
	}
	pthread_mutex_unlock(&pool_lock);
	for (i = n - 1; i > 0; i--) {
		j = rn(t, i + 1);
		tmp = fds[i], fds[i] = fds[j], fds[j] = tmp;
		tmp = kinds[i], kinds[i] = kinds[j], kinds[j] = tmp;
	}
	for (i = 0; i < n; i++)
		close_fd(t, fds[i], kinds[i]);
}

static bool fd_in_pool(long fd)
{
	bool in = false;
	int i;

	pthread_mutex_lock(&pool_lock);
	for (i = 0; i < POOL; i++)
		if (pool[i].fd == fd)
			in = true;
	pthread_mutex_unlock(&pool_lock);
	return in;
}

/* A file a command should not have returned: close it unless it is ours. */
static void close_stray(long fd)
{
	if (fd > 2 && fd_is_lttng(fd) && !fd_in_pool(fd))
		close((int)fd);
}

/* Adopt a new file; with no room for it, close it at once. */
static void pool_add(struct thr *t, const struct slot *ns)
{
	int i, n = 0, free_i = -1;

	fcntl(ns->fd, F_SETFD, FD_CLOEXEC);
	pthread_mutex_lock(&pool_lock);
	for (i = 0; i < POOL; i++) {
		if (pool[i].fd < 0) {
			if (free_i < 0)
				free_i = i;
		} else if (pool[i].kind == ns->kind) {
			n++;
		}
	}
	if (free_i >= 0 && n < kind_cap[ns->kind]) {
		pool[free_i] = *ns;
		pool[free_i].users = 0;
		pool[free_i].dying = false;
		pool[free_i].uid = next_uid++;
		if (ns->kind == K_SESSION && !ns->sess)
			pool[free_i].sess = pool[free_i].uid;
		pool[free_i].consumed = 0;
	}
	pthread_mutex_unlock(&pool_lock);
	if (free_i < 0 || n >= kind_cap[ns->kind])
		close_fd(t, ns->fd, ns->kind);
}

/* Check a value a command wrote (a valid buffer, ret 0). */
static void check_out_value(struct thr *t, int i, const struct slot *s, uint32_t nr,
			    const unsigned char *p)
{
	/* An overwrite buffer maps the reader's spare sub-buffer too. */
	unsigned long v = 0, buf = s->subbuf * (s->nsub + s->overwrite);
	const struct cmd *c = find_cmd(nr);
	/*
	 * Only the bytes the command writes: a 4-byte answer placed right
	 * before the guard page (AV_GUARD_EXACT) has nothing readable after.
	 */
	size_t n = c && c->size < sizeof(v) ? c->size : sizeof(v);
	uint32_t w[2] = { 0, 0 };

	memcpy(&v, p, n);
	memcpy(w, p, n);
	switch (nr) {
	case NR_TRACER_VERSION:
	case NR_ABI_VERSION:
		if (w[0] != 2)
			anomaly(t, "%s gave major %u, not 2", cmd_name(nr), w[0]);
		return;
	case NR_GET_CONSUMED:
		if (i >= 0) {
			pthread_mutex_lock(&pool_lock);
			pool[i].consumed = v;
			pthread_mutex_unlock(&pool_lock);
		}
		return;
	case NR_MAX_SUBBUF_SIZE:
		if (s->subbuf && v != s->subbuf)
			anomaly(t, "GET_MAX_SUBBUF_SIZE gave %lu on a %s of %lu-byte sub-buffers",
				v, kind_name[s->kind], s->subbuf);
		return;
	case NR_MMAP_LEN:
		if (!s->mmap || (s->subbuf && v != buf))
			anomaly(t, "GET_MMAP_LEN gave %lu on a %s %s stream of %lu x %lu", v,
				s->mmap ? "mmap" : "splice", kind_name[s->kind], s->nsub,
				s->subbuf);
		return;
	case NR_MMAP_READ_OFFSET:
		if (!s->mmap || (s->subbuf && (v >= buf || v % s->subbuf)))
			anomaly(t, "GET_MMAP_READ_OFFSET gave %lu on a %s %s stream of %lu x %lu",
				v, s->mmap ? "mmap" : "splice", kind_name[s->kind], s->nsub,
				s->subbuf);
		return;
	case NR_SUBBUF_SIZE:
		if (!v || (s->subbuf && v > s->subbuf))
			anomaly(t, "GET_SUBBUF_SIZE gave %lu (sub-buffers of %lu)", v, s->subbuf);
		return;
	case NR_PADDED_SIZE:
		if (!v || v % page || (s->subbuf && v > s->subbuf))
			anomaly(t, "GET_PADDED_SUBBUF_SIZE gave %lu (sub-buffers of %lu)", v,
				s->subbuf);
		return;
	case NR_PACKET_SIZE:
		if (!v || v % (8 * page) || (s->subbuf && v > 8 * s->subbuf))
			anomaly(t, "GET_PACKET_SIZE gave %lu bits (sub-buffers of %lu bytes)", v,
				s->subbuf);
		return;
	case NR_CONTENT_SIZE:
		if (v < 8 * PACKET_HEADER_SIZE || (s->subbuf && v > 8 * s->subbuf))
			anomaly(t, "GET_CONTENT_SIZE gave %lu bits (sub-buffers of %lu bytes)", v,
				s->subbuf);
		return;
	case NR_INSTANCE_ID:
		if (v >= (unsigned long)ncpus)
			anomaly(t, "INSTANCE_ID gave %lu with %ld CPUs", v, ncpus);
		return;
	case NR_STREAM_ID:
		if (v > 100000)
			anomaly(t, "GET_STREAM_ID gave %lu", v);
		return;
	}
}

/*
 * One ioctl on @s (pool slot @i, or -1 for a file not in the pool): build
 * the argument, call, account, check what came back.  A new file goes to
 * *@child when @child is given, else into the pool.  Return the result or
 * -errno.
 */
static long call_ioctl(struct thr *t, int i, const struct slot *s, const struct cmd *c,
		       uint32_t nr, int av, struct slot *child)
{
	unsigned char tmp[ARGMAX] __attribute__((aligned(16)));
	struct channel_conf cc;
	struct slot ns;
	unsigned long arg;
	size_t size;
	long ret;
	int e, k;

	arg = place_arg(t, c, s, nr, av, tmp, &size);
	act_begin(t->act, "ioctl", nr, s->kind, t->iter);
	ret = ioctl(s->fd, nr, arg);
	e = errno;
	atomic_fetch_add(&st_cmd_ns[c ? c - cmds : (long)ARRAY_SIZE(cmds)],
			 now_ns() - atomic_load(&t->act->since));
	act_end(t->act);
	atomic_fetch_add(&st_ioctl[s->kind], 1);
	if (ret < 0) {
		check_errno(t, SC_IOCTL, s->kind, nr, av, e);
		return -e;
	}
	atomic_fetch_add(&st_ioctl_ok[s->kind], 1);
	if (c)
		atomic_fetch_add(&st_cmd_ok[c - cmds], 1);
	if (!c) {
		if (ret) {
			anomaly(t, "random command 0x%08x on a %s fd returned %ld", nr,
				kind_name[s->kind], ret);
			close_stray(ret);
		}
		return ret;
	}
	if (c->owners && !(c->owners & KB(s->kind)))
		anomaly(t, "%s succeeded (%ld) on a %s fd, which does not implement it",
			c->name, ret, kind_name[s->kind]);
	if (c->child == CH_NONE) {
		if (ret)
			anomaly(t, "%s returned %ld, not 0, on a %s fd", c->name, ret,
				kind_name[s->kind]);
		else if (c->arg == A_OUT && av <= AV_GUARD_EXACT)
			check_out_value(t, i, s, nr, (const unsigned char *)arg);
		return ret;
	}
	if (c->child == CH_MAYFD) {
		close_stray(ret);
		return ret;
	}
	k = c->child == CH_STREAM ? (s->kind == K_CHANNEL ? K_STREAM : K_MSTREAM) : c->child;
	if (!fd_is(ret, k) || fd_in_pool(ret)) {
		anomaly(t, "%s on a %s fd returned %ld, which is not a new %s file", c->name,
			kind_name[s->kind], ret, kind_name[k]);
		close_stray(ret);
		return ret;
	}
	memset(&ns, 0, sizeof(ns));
	ns.fd = (int)ret;
	ns.kind = k;
	ns.sess = s->sess;
	if (k == K_CHANNEL || k == K_METACHAN) {
		memcpy(&cc, tmp, sizeof(cc));
		ns.subbuf = cc.subbuf_size;
		ns.nsub = cc.num_subbuf;
		ns.mmap = cc.output == 1;
		ns.overwrite = k == K_CHANNEL && cc.overwrite == 1;
	} else if (k == K_STREAM || k == K_MSTREAM) {
		ns.subbuf = s->subbuf;
		ns.nsub = s->nsub;
		ns.mmap = s->mmap;
		ns.overwrite = s->overwrite;
	} else if (k == K_TPLIST || k == K_SCLIST) {
		ns.sess = 0;
	} else if (k == K_NOTIF) {
		/* A read must never wait for a notification. */
		fcntl(ns.fd, F_SETFL, O_NONBLOCK);
	}
	if (child)
		*child = ns;
	else
		pool_add(t, &ns);
	return ret;
}

/* call_ioctl() on pool slot @i with a well-formed argument. */
static long slot_ioctl(struct thr *t, int i, uint32_t nr)
{
	struct slot s = slot_copy(i);

	return call_ioctl(t, i, &s, find_cmd(nr), nr, AV_VALID, NULL);
}

/* A random command number: of the LTTng magic, or any but the VFS's own. */
static uint32_t random_nr(struct thr *t)
{
	static const uint16_t sizes[] = { 0, 1, 4, 8, 12, 16, 26, 256, 308, 320, 564, 604 };
	uint32_t nr, type;

	if (rn(t, 3)) {
		nr = (rn(t, 4) << 30) | (0xF6u << 8) | rn(t, 256);
		nr |= (uint32_t)(rn(t, 4) ? sizes[rn(t, ARRAY_SIZE(sizes))] : rn(t, 0x4000)) << 16;
		return nr;
	}
	/*
	 * do_vfs_ioctl() answers FIOCLEX, FIONBIO, FIGETBSZ, FICLONE, FIFREEZE,
	 * FS_IOC_* and the like itself, for every file: not the driver's.
	 */
	do {
		nr = (uint32_t)r64(t);
		type = (nr >> 8) & 0xff;
	} while (type == 0 || type == 'T' || type == 'f' || type == 'X' || type == 0x94);
	return nr;
}

/*
 * Commands that are slow by design: an enabler's ENABLE and DISABLE match
 * every kernel trace event again under the session lock, the lists format
 * every event, WAIT_QUIESCENT waits for a grace period.  Drawn less often,
 * so that 3000 operations fit the time of a debug kernel under emulation.
 */
static bool heavy(uint32_t nr, int kind)
{
	return ((nr == NR_ENABLE || nr == NR_DISABLE) &&
		(kind == K_EVENT || kind == K_NOTIFIER)) ||
	       nr == NR_SYSCALL_LIST || nr == NR_TRACEPOINT_LIST || nr == NR_WAIT_QUIESCENT;
}

static const struct cmd *pick_cmd(struct thr *t, int kind, uint32_t *nr);

static const struct cmd *choose_cmd(struct thr *t, int kind, uint32_t *nr)
{
	const struct cmd *c = pick_cmd(t, kind, nr);
	int k;

	for (k = 0; k < 2 && heavy(*nr, kind) && rn(t, 4); k++)
		c = pick_cmd(t, kind, nr);
	return c;
}

static const struct cmd *pick_cmd(struct thr *t, int kind, uint32_t *nr)
{
	const struct cmd *own[ARRAY_SIZE(cmds)];
	unsigned int r = rn(t, 100), n = 0;
	size_t k;

	if (r < 10) {
		*nr = random_nr(t);
		return find_cmd(*nr);
	}
	if (r < 55) {
		for (k = 0; k < ARRAY_SIZE(cmds); k++)
			if (cmds[k].owners & KB(kind))
				own[n++] = &cmds[k];
		if (n) {
			*nr = own[rn(t, n)]->nr;
			return find_cmd(*nr);
		}
	}
	k = rn(t, ARRAY_SIZE(cmds));
	*nr = cmds[k].nr;
	return &cmds[k];
}

/* Fuzz operations. */

static void op_ioctl(struct thr *t)
{
	const struct cmd *c;
	struct slot s;
	uint32_t nr;
	int i = pool_pick(t, K_ALL);

	if (i < 0)
		return;
	s = slot_copy(i);
	c = choose_cmd(t, s.kind, &nr);
	call_ioctl(t, i, &s, c, nr, choose_av(t), NULL);
	pool_put(t, i);
}

static const int parent_of[NR_KINDS] = {
	-1, K_ROOT, K_SESSION, K_SESSION, K_CHANNEL, K_CHANNEL, K_METACHAN, K_ROOT, K_ROOT,
	K_ROOT, K_GROUP, K_GROUP, K_GROUP,
};
static const uint32_t create_nr[NR_KINDS] = {
	0, NR_SESSION, NR_CHANNEL, NR_METADATA, NR_EVENT, NR_STREAM, NR_STREAM,
	NR_TRACEPOINT_LIST, NR_SYSCALL_LIST, NR_GROUP_CREATE, NR_NOTIFIER_CREATE, NR_NOTIF_FD,
	NR_COUNTER,
};

static void create(struct thr *t, int kind, int depth)
{
	struct slot ns, s;
	unsigned int n;
	long fd;
	int p;

	if (kind == K_ROOT) {
		act_begin(t->act, "open /proc/lttng", 0, K_ROOT, t->iter);
		fd = open("/proc/lttng", O_RDWR | O_CLOEXEC);
		act_end(t->act);
		if (fd < 0) {
			check_errno(t, SC_OTHER, K_ROOT, 0, -1, errno);
			return;
		}
		memset(&ns, 0, sizeof(ns));
		ns.fd = (int)fd;
		ns.kind = K_ROOT;
		pool_add(t, &ns);
		return;
	}
	p = pool_pick(t, KB(parent_of[kind]));
	if (p < 0) {
		if (depth < 4)
			create(t, parent_of[kind], depth + 1);
		return;
	}
	s = slot_copy(p);
	memset(&ns, 0, sizeof(ns));
	fd = call_ioctl(t, p, &s, find_cmd(create_nr[kind]), create_nr[kind], AV_VALID, &ns);
	pool_put(t, p);
	if (fd < 0 || !ns.fd)
		return;
	/* What lttng-sessiond does next with such a file, sometimes. */
	if (ns.kind == K_SESSION) {
		ns.sess = 0;
		if (rn(t, 2)) {
			call_ioctl(t, -1, &ns, find_cmd(NR_SET_NAME), NR_SET_NAME, AV_VALID, NULL);
			call_ioctl(t, -1, &ns, find_cmd(NR_SET_CTIME), NR_SET_CTIME, AV_VALID,
				   NULL);
		}
	} else if (ns.kind == K_CHANNEL && !rn(t, 3)) {
		call_ioctl(t, -1, &ns, find_cmd(NR_CONTEXT), NR_CONTEXT, AV_VALID, NULL);
	} else if ((ns.kind == K_EVENT || ns.kind == K_NOTIFIER) && !rn(t, 3)) {
		/* With a filter, as lttng-sessiond sends one, before ENABLE. */
		if (rn(t, 2))
			call_ioctl(t, -1, &ns, find_cmd(NR_FILTER), NR_FILTER, AV_VALID,
				   NULL);
		/* A notifier's captures, also before ENABLE. */
		for (n = ns.kind == K_NOTIFIER ? rn(t, 4) : 0; n; n--)
			call_ioctl(t, -1, &ns, find_cmd(NR_CAPTURE), NR_CAPTURE, AV_VALID,
				   NULL);
		call_ioctl(t, -1, &ns, find_cmd(NR_ENABLE), NR_ENABLE, AV_VALID, NULL);
	}
	pool_add(t, &ns);
}

static void op_create(struct thr *t)
{
	static const unsigned char weight[NR_KINDS] = { 4, 13, 15, 6, 7, 20, 6, 2, 1, 2, 2, 1, 1 };
	unsigned int r, k, tries;
	int kind = K_SESSION;

	for (tries = 0; tries < 4; tries++) {
		r = rn(t, 80);
		for (k = 0; k < NR_KINDS; k++) {
			if (r < weight[k])
				break;
			r -= weight[k];
		}
		kind = k < NR_KINDS ? (int)k : K_STREAM;
		if (pool_count(kind) < kind_cap[kind])
			break;
	}
	create(t, kind, 0);
}

/* A session that has a mapped stream, or any session; 0 if none. */
static unsigned int sess_with_map(struct thr *t)
{
	unsigned int cand[MAPS + POOL], n = 0, i;

	pthread_mutex_lock(&pool_lock);
	for (i = 0; i < MAPS; i++)
		if (maps[i].addr && maps[i].sess)
			cand[n++] = maps[i].sess;
	if (!n)
		for (i = 0; i < POOL; i++)
			if (pool[i].fd >= 0 && pool[i].kind == K_SESSION)
				cand[n++] = pool[i].sess;
	pthread_mutex_unlock(&pool_lock);
	return n ? cand[rn(t, n)] : 0;
}

static void op_close(struct thr *t)
{
	unsigned int r = rn(t, 100), sess;
	struct slot ns;
	int i, fd;

	if (r < 55) {
		/* Any file. */
		i = pool_pick(t, K_ALL);
		if (i >= 0) {
			pool_kill(i);
			pool_put(t, i);
		}
	} else if (r < 75) {
		/* A session file before its channels: destroyed when they go. */
		sess = sess_with_map(t);
		if (sess)
			pool_kill_sess(t, sess, KB(K_SESSION));
	} else if (r < 90) {
		/* A whole session while its streams are mapped and spliced. */
		sess = sess_with_map(t);
		if (sess)
			pool_kill_sess(t, sess, KB(K_SESSION) | KB(K_CHANNEL) | KB(K_METACHAN) |
						KB(K_EVENT));
	} else {
		/* A second fd of the same file: closing one must not release it. */
		i = pool_pick(t, K_ALL);
		if (i < 0)
			return;
		ns = slot_copy(i);
		fd = dup(ns.fd);
		pool_put(t, i);
		if (fd < 0) {
			check_errno(t, SC_OTHER, ns.kind, 0, -1, errno);
			return;
		}
		ns.fd = fd;
		pool_add(t, &ns);
	}
}

static int map_pick(struct thr *t, unsigned int stream_uid)
{
	int cand[MAPS], n = 0, i;

	pthread_mutex_lock(&pool_lock);
	for (i = 0; i < MAPS; i++)
		if (maps[i].addr && !maps[i].dying &&
		    (!stream_uid || maps[i].stream_uid == stream_uid))
			cand[n++] = i;
	i = -1;
	if (n) {
		i = cand[rn(t, n)];
		maps[i].users++;
	}
	pthread_mutex_unlock(&pool_lock);
	return i;
}

static void map_put(struct thr *t, int i)
{
	unsigned char *addr = NULL;
	size_t len = 0;

	pthread_mutex_lock(&pool_lock);
	if (--maps[i].users == 0 && maps[i].dying) {
		addr = maps[i].addr;
		len = maps[i].len;
		maps[i].addr = NULL;
	}
	pthread_mutex_unlock(&pool_lock);
	if (addr) {
		act_begin(t->act, "munmap", 0, K_STREAM, t->iter);
		if (munmap(addr, len))
			anomaly(t, "munmap of a stream mapping failed: %s", strerror(errno));
		act_end(t->act);
	}
}

/* Reading a stream mapping: a SIGBUS or SIGSEGV there is caught. */
static __thread sigjmp_buf *probe_env;

static __attribute__((noinline)) unsigned int read_bytes(const volatile unsigned char *p,
							 size_t len, size_t step)
{
	unsigned int sum = 0;
	size_t off;

	for (off = 0; off < len; off += step)
		sum += p[off];
	return sum;
}

/* Return 0, or the signal reading [p, p + len) raised. */
static int probe_read(const unsigned char *p, size_t len, size_t step)
{
	sigjmp_buf env;
	int sig;

	sig = sigsetjmp(env, 1);
	if (!sig) {
		probe_env = &env;
		read_bytes(p, len, step);
	}
	probe_env = NULL;
	return sig;
}

static void map_read(struct thr *t, int m, unsigned long off, size_t len)
{
	int sig;

	if (off >= maps[m].len)
		return;
	if (len > maps[m].len - off)
		len = maps[m].len - off;
	act_begin(t->act, "read a stream mapping", 0, K_STREAM, t->iter);
	sig = probe_read(maps[m].addr + off, len, 64);
	act_end(t->act);
	if (sig)
		anomaly(t, "signal %d reading a stream mapping at offset %lu of %zu", sig, off,
			maps[m].len);
}

/* The consumer's extraction of one sub-buffer, through mmap or splice. */
static void op_data(struct thr *t)
{
	static const uint32_t fields[] = {
		NR_TS_BEGIN, NR_TS_END, NR_DISCARDED, NR_CONTENT_SIZE, NR_PACKET_SIZE,
		NR_STREAM_ID, NR_SEQ_NUM, NR_INSTANCE_ID, NR_CURRENT_TS,
	};
	unsigned long padded = 0, roff = 0;
	bool keep;
	loff_t off;
	struct slot s;
	ssize_t n;
	long ret;
	int i, m, k;

	i = pool_pick(t, KB(K_STREAM) | KB(K_MSTREAM));
	if (i < 0)
		return;
	s = slot_copy(i);
	/* A flush closes the open packet: something to get, when tracing. */
	if (rn(t, 10) < 3)
		slot_ioctl(t, i, NR_FLUSH);
	if (s.kind == K_STREAM && !rn(t, 5)) {
		slot_ioctl(t, i, NR_SNAPSHOT);
		slot_ioctl(t, i, NR_GET_CONSUMED);
		s = slot_copy(i);
		ret = call_ioctl(t, i, &s, find_cmd(NR_GET_SUBBUF), NR_GET_SUBBUF, AV_VALID, NULL);
	} else {
		ret = slot_ioctl(t, i, NR_GET_NEXT);
	}
	if (ret)
		goto out;
	slot_ioctl(t, i, NR_SUBBUF_SIZE);
	/* The value, as the next call's output: racing threads may move it. */
	if (call_ioctl(t, i, &s, find_cmd(NR_PADDED_SIZE), NR_PADDED_SIZE, AV_VALID, NULL) == 0)
		memcpy(&padded, t->arena + 64, sizeof(padded));
	if (s.kind == K_STREAM)
		for (k = 0; k < 3; k++)
			slot_ioctl(t, i, fields[rn(t, ARRAY_SIZE(fields))]);
	if (s.mmap) {
		if (slot_ioctl(t, i, NR_MMAP_READ_OFFSET) == 0)
			memcpy(&roff, t->arena + 64, sizeof(roff));
		m = map_pick(t, s.uid);
		if (m >= 0) {
			map_read(t, m, roff, padded ? padded : (size_t)page);
			map_put(t, m);
		}
	} else if (padded) {
		/*
		 * The pipe gets the buffer's own pages.  Sometimes leave them
		 * there: this thread drains them only at its next splice, after
		 * other threads may have put the sub-buffer back, closed the
		 * stream and destroyed its session.
		 */
		keep = !rn(t, 4);
		while (read(t->pipe[0], t->drain, 1 << 16) > 0)
			;
		off = rn(t, 8) ? 0 : (loff_t)rn(t, 3) * page;
		for (k = 0; k < 4 && padded; k++) {
			act_begin(t->act, "splice", 0, s.kind, t->iter);
			n = splice(s.fd, &off, t->pipe[1], NULL, padded,
				   SPLICE_F_NONBLOCK | SPLICE_F_MOVE);
			act_end(t->act);
			if (n < 0) {
				check_errno(t, SC_SPLICE, s.kind, 0, -1, errno);
				break;
			}
			if ((size_t)n > padded || n % page)
				anomaly(t, "splice of %lu bytes from a stream gave %zd", padded, n);
			atomic_fetch_add(&st_spliced_bytes, n);
			if (keep)
				break;
			while (read(t->pipe[0], t->drain, 1 << 16) > 0)
				;
			if (!n)
				break;
			padded -= (size_t)n < padded ? (size_t)n : padded;
		}
	}
	k = rn(t, 20);
	if (k < 16)
		slot_ioctl(t, i, NR_PUT_NEXT);
	else if (k < 19)
		slot_ioctl(t, i, NR_PUT_SUBBUF);
out:
	pool_put(t, i);
}

static void op_map(struct thr *t)
{
	unsigned int r = rn(t, 100);
	unsigned long len = 0;
	unsigned char *addr;
	struct slot s;
	int i, m, prot, flags, e;
	off_t off = 0;

	if (r < 40) {
		i = pool_pick(t, rn(t, 4) ? KB(K_STREAM) | KB(K_MSTREAM) : K_ALL);
		if (i < 0)
			return;
		s = slot_copy(i);
		if (s.kind == K_STREAM || s.kind == K_MSTREAM) {
			len = s.subbuf * (s.nsub + s.overwrite);
			if (!len)
				len = page;
		} else {
			len = page;
		}
		prot = PROT_READ;
		flags = rn(t, 2) ? MAP_SHARED : MAP_PRIVATE;
		switch (rn(t, 10)) {
		case 0:
			len = len / 2 ? len / 2 : (unsigned long)page;
			break;
		case 1:
			len += page;
			break;
		case 2:
			off = page;
			break;
		case 3:
			prot |= PROT_WRITE;
			break;
		}
		act_begin(t->act, "mmap", 0, s.kind, t->iter);
		addr = mmap(NULL, len, prot, flags, s.fd, off);
		e = errno;
		act_end(t->act);
		if (addr == MAP_FAILED) {
			check_errno(t, SC_MMAP, s.kind, 0, -1, e);
		} else if (prot & PROT_WRITE || off || !s.mmap ||
			   len != s.subbuf * (s.nsub + s.overwrite) ||
			   (s.kind != K_STREAM && s.kind != K_MSTREAM)) {
			anomaly(t, "mmap of %lu bytes at offset %ld, prot %d, of a %s %s fd "
				"succeeded", len, (long)off, prot, s.mmap ? "mmap" : "splice",
				kind_name[s.kind]);
			munmap(addr, len);
		} else {
			atomic_fetch_add(&st_mapped, 1);
			pthread_mutex_lock(&pool_lock);
			for (m = 0; m < MAPS && maps[m].addr; m++)
				;
			if (m < MAPS) {
				maps[m].addr = addr;
				maps[m].len = len;
				maps[m].users = 0;
				maps[m].dying = false;
				maps[m].stream_uid = s.uid;
				maps[m].sess = s.sess;
				addr = NULL;
			}
			pthread_mutex_unlock(&pool_lock);
			if (addr)
				munmap(addr, len);
		}
		pool_put(t, i);
	} else if (r < 65) {
		m = map_pick(t, 0);
		if (m < 0)
			return;
		map_read(t, m, (unsigned long)rn(t, maps[m].len / page) * page, 4 * page);
		map_put(t, m);
	} else if (r < 80) {
		m = map_pick(t, 0);
		if (m < 0)
			return;
		act_begin(t->act, "mprotect", 0, K_STREAM, t->iter);
		if (!mprotect(maps[m].addr, maps[m].len, PROT_READ | PROT_WRITE)) {
			anomaly(t, "a stream mapping was made writable");
			mprotect(maps[m].addr, maps[m].len, PROT_READ);
		} else {
			check_errno(t, SC_MPROTECT, K_STREAM, 0, -1, errno);
		}
		act_end(t->act);
		map_put(t, m);
	} else {
		m = map_pick(t, 0);
		if (m < 0)
			return;
		pthread_mutex_lock(&pool_lock);
		maps[m].dying = true;
		pthread_mutex_unlock(&pool_lock);
		map_put(t, m);
	}
}

/* Plain file operations on any kind. */
static void op_file(struct thr *t)
{
	static const size_t lens[] = { 0, 1, 16, 64, 4096 };
	struct pollfd pfd;
	unsigned char *buf;
	struct slot s;
	size_t len;
	ssize_t n;
	off_t o;
	int i, e, r;

	i = pool_pick(t, K_ALL);
	if (i < 0)
		return;
	s = slot_copy(i);
	len = lens[rn(t, ARRAY_SIZE(lens))];
	r = rn(t, 12);
	switch (rn(t, 8)) {
	case 0:
		buf = r < 9 ? t->arena : r == 9 ? NULL : r == 10 ? (unsigned char *)KTEXT_ADDR :
		      t->guard - 32;
		act_begin(t->act, "read", 0, s.kind, t->iter);
		n = read(s.fd, buf, len);
		e = errno;
		act_end(t->act);
		if (n < 0)
			check_errno(t, SC_READ, s.kind, 0, -1, e);
		else if ((size_t)n > len)
			anomaly(t, "read of %zu bytes from a %s fd gave %zd", len,
				kind_name[s.kind], n);
		break;
	case 1:
		act_begin(t->act, "write", 0, s.kind, t->iter);
		n = write(s.fd, r < 10 ? t->arena : (unsigned char *)KTEXT_ADDR, len ? len : 1);
		e = errno;
		act_end(t->act);
		if (n < 0)
			check_errno(t, SC_WRITE, s.kind, 0, -1, e);
		else
			anomaly(t, "write to a %s fd succeeded (%zd)", kind_name[s.kind], n);
		break;
	case 2:
	case 3:
		pfd.fd = s.fd;
		pfd.events = POLLIN | POLLPRI | POLLOUT | POLLRDNORM | POLLRDBAND;
		pfd.revents = 0;
		act_begin(t->act, "poll", 0, s.kind, t->iter);
		n = poll(&pfd, 1, rn(t, 3));
		e = errno;
		act_end(t->act);
		if (n < 0)
			check_errno(t, SC_OTHER, s.kind, 0, -1, e);
		else if (pfd.revents & POLLNVAL)
			anomaly(t, "poll of a %s fd gave POLLNVAL", kind_name[s.kind]);
		break;
	case 4:
		o = r < 4 ? 0 : r < 8 ? (off_t)rn(t, 100000) : -(off_t)rn(t, 100000) - 1;
		act_begin(t->act, "lseek", 0, s.kind, t->iter);
		o = lseek(s.fd, o, rn(t, 3));
		e = errno;
		act_end(t->act);
		if (o < 0)
			check_errno(t, SC_LSEEK, s.kind, 0, -1, e);
		break;
	case 5:
		act_begin(t->act, "pread", 0, s.kind, t->iter);
		n = pread(s.fd, t->arena, len, r < 6 ? 0 : (off_t)rn(t, 1 << 20));
		e = errno;
		act_end(t->act);
		if (n < 0)
			check_errno(t, SC_PREAD, s.kind, 0, -1, e);
		break;
	default:
		/* Raw splice: any file, offsets and lengths aligned or not. */
		{
			static const size_t slens[] = { 0, 1, 4096, 8192, 65536, 1 << 20 };
			loff_t soff = r < 6 ? 0 : r < 9 ? (loff_t)rn(t, 5) * page :
					 (loff_t)r64(t) >> 1;

			len = slens[rn(t, ARRAY_SIZE(slens))];
			if (rn(t, 4) == 0)
				len += rn(t, page);
			while (read(t->pipe[0], t->drain, 1 << 16) > 0)
				;
			act_begin(t->act, "splice", 0, s.kind, t->iter);
			n = splice(s.fd, r == 11 ? (loff_t *)1 : r == 10 ? NULL : &soff, t->pipe[1],
				   NULL, len, SPLICE_F_NONBLOCK | (rn(t, 2) ? SPLICE_F_MOVE : 0));
			e = errno;
			act_end(t->act);
			atomic_fetch_add(&st_op[OP_SPLICE], 1);
			if (n < 0)
				check_errno(t, SC_SPLICE, s.kind, 0, -1, e);
			else if ((size_t)n > len)
				anomaly(t, "splice of %zu bytes from a %s fd gave %zd", len,
					kind_name[s.kind], n);
			while (read(t->pipe[0], t->drain, 1 << 16) > 0)
				;
		}
	}
	pool_put(t, i);
}

/* Start and stop in any order, channel and event enable/disable. */
static void op_state(struct thr *t)
{
	static const uint32_t seq[] = { NR_START, NR_STOP, NR_ENABLE, NR_DISABLE, NR_START };
	unsigned int n = 2 + rn(t, 4), k;
	int i = pool_pick(t, KB(K_SESSION) | (rn(t, 3) ? 0 : KB(K_CHANNEL)) |
			     (rn(t, 6) ? 0 : KB(K_EVENT)));
	int kind;

	if (i < 0)
		return;
	kind = slot_copy(i).kind;
	if (kind == K_EVENT)
		n = 1;		/* heavy(): each one matches every event again */
	for (k = 0; k < n; k++)
		slot_ioctl(t, i, kind == K_SESSION ? seq[rn(t, ARRAY_SIZE(seq))] :
			   rn(t, 2) ? NR_ENABLE : NR_DISABLE);
	pool_put(t, i);
}

static void *worker(void *p)
{
	struct thr *t = p;
	unsigned int r;
	long it;

	act_init(t->act, t->act->name);
	while (!atomic_load(&stop_fuzz)) {
		it = atomic_fetch_add(&iter_next, 1);
		if (it >= fuzz_iters)
			break;
		if (secs_since(t_start) > fuzz_cap) {
			atomic_store(&fuzz_capped, 1);
			atomic_store(&stop_fuzz, 1);
			break;
		}
		t->iter = it;
		r = rn(t, 100);
		if (r < 9 || pool_count(K_SESSION) + pool_count(K_CHANNEL) < 2) {
			atomic_fetch_add(&st_op[OP_CREATE], 1);
			op_create(t);
		} else if (r < 13) {
			atomic_fetch_add(&st_op[OP_CLOSE], 1);
			op_close(t);
		} else if (r < 20) {
			atomic_fetch_add(&st_op[OP_DATA], 1);
			op_data(t);
		} else if (r < 24) {
			atomic_fetch_add(&st_op[OP_MAP], 1);
			op_map(t);
		} else if (r < 30) {
			atomic_fetch_add(&st_op[OP_FILE], 1);
			op_file(t);
		} else if (r < 33) {
			atomic_fetch_add(&st_op[OP_STATE], 1);
			op_state(t);
		} else {
			atomic_fetch_add(&st_op[OP_IOCTL], 1);
			op_ioctl(t);
		}
	}
	return NULL;
}

/* fork and exec /bin/true, waiting a bounded time. */
static void spawn_true(struct activity *a)
{
	long long t0;
	pid_t pid;
	int st;

	act_begin(a, "fork+exec /bin/true", 0, K_ROOT, 0);
	pid = fork();
	if (pid == 0) {
		execl("/bin/true", "true", (char *)NULL);
		_exit(127);
	}
	if (pid > 0) {
		t0 = now_ns();
		while (waitpid(pid, &st, WNOHANG) == 0) {
			if (now_ns() - t0 > 10000000000LL) {
				kill(pid, SIGKILL);
				waitpid(pid, &st, 0);
				break;
			}
			usleep(2000);
		}
		atomic_fetch_add(&st_spawned, 1);
	}
	act_end(a);
}

/* Make the probes fire: sched_switch, sched_process_*, syscalls. */
static void *events_thread(void *p)
{
	struct activity *a = p;
	long long last = now_ns();
	unsigned long n = 0;
	int k;

	act_init(a, "events");
	while (!atomic_load(&stop_events)) {
		for (k = 0; k < 16; k++)
			syscall(SYS_getppid);
		sched_yield();
		if (++n % 4 == 0)
			usleep(300);
		if (now_ns() - last > 100000000LL) {	/* every 100 ms */
			spawn_true(a);
			last = now_ns();
		}
	}
	return NULL;
}

/* The kernel log: /dev/kmsg from the start of the test on. */
static int kmsg_fd = -1;
static long klog_bad;

static bool klog_line_bad(const char *m)
{
	static const char *const pat[] = {
		"WARNING:", "BUG:", "BUG ", "Oops", "KASAN", "UBSAN", "general protection",
		"circular locking", "recursive locking", "INFO: lockdep", "Call Trace",
		"detected stall", "self-detected stall", "soft lockup", "hard LOCKUP",
		"blocked for more than", "vmalloc error", "allocation failure",
		"refcount_t", "list_add corruption", "list_del corruption", "use-after-free",
		"double free", "out-of-bounds", "Kernel panic",
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(pat); i++)
		if (strstr(m, pat[i]))
			return true;
	return false;
}

/* New kernel log records: print the bad ones (and what follows them). */
static long kmsg_scan(const char *phase)
{
	static int printed;
	char rec[4096], *m, *nl;
	long bad = 0, records;
	int ctx = 0;
	ssize_t n;

	if (kmsg_fd < 0)
		return 0;
	for (records = 0; records < 100000; records++) {
		n = read(kmsg_fd, rec, sizeof(rec) - 1);
		if (n < 0) {
			if (errno == EPIPE)
				continue;	/* records overwritten: go on */
			break;
		}
		rec[n] = 0;
		m = strchr(rec, ';');
		if (!m)
			continue;
		m++;
		nl = strchr(m, '\n');
		if (nl)
			*nl = 0;
		if (klog_line_bad(m)) {
			bad++;
			ctx = 16;
		}
		if (ctx > 0 && printed < 150) {
			diag("kernel log during %s: %s", phase, m);
			printed++;
		}
		if (ctx > 0)
			ctx--;
	}
	klog_bad += bad;
	return bad;
}

static long read_refcnt(void)
{
	FILE *f = fopen("/sys/module/lttng_tracer/refcnt", "r");
	long v = -1;

	if (!f)
		return -1;
	if (fscanf(f, "%ld", &v) != 1)
		v = -1;
	fclose(f);
	return v;
}

/* Watchdog: a call stuck hang_ns fails the test at once. */
static void dump_task(pid_t tid)
{
	char path[64], line[1024];
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/task/%d/stat", tid);
	f = fopen(path, "r");
	if (f) {
		if (fgets(line, sizeof(line), f))
			printf("#   stat: %.*s\n", (int)strcspn(line, "\n"), line);
		fclose(f);
	}
	snprintf(path, sizeof(path), "/proc/self/task/%d/stack", tid);
	f = fopen(path, "r");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f))
		printf("#   %s", line);
	fclose(f);
}

static void hang(struct activity *a, long long ns)
{
	size_t k;
	int tries;

	for (tries = 0; tries < 20 && pthread_mutex_trylock(&out_lock); tries++)
		usleep(100000);
	printf("# HANG: thread %s (tid %d) stuck for %.1f s in %s %s (0x%08x) on a %s fd, "
	       "iteration %ld (seed %llu)\n", a->name, a->tid, ns / 1e9, a->op,
	       a->nr ? cmd_name(a->nr) : "", a->nr, kind_name[a->kind], a->iter, seed);
	dump_task(a->tid);
	for (k = 0; k < ARRAY_SIZE(acts); k++) {
		if (&acts[k] == a || !atomic_load(&acts[k].since) || !acts[k].tid)
			continue;
		printf("# also in a call: thread %s, %s %s on a %s fd for %.1f s\n", acts[k].name,
		       acts[k].op, acts[k].nr ? cmd_name(acts[k].nr) : "",
		       kind_name[acts[k].kind], (now_ns() - atomic_load(&acts[k].since)) / 1e9);
		dump_task(acts[k].tid);
	}
	emit_remaining_locked("a call hung (see the HANG line)");
	fflush(stdout);
	_exit(1);
}

static void *watchdog(void *p)
{
	long long now, since;
	sigset_t set;
	size_t k;

	(void)p;
	sigemptyset(&set);
	sigaddset(&set, SIGALRM);
	pthread_sigmask(SIG_UNBLOCK, &set, NULL);
	while (!atomic_load(&stop_watchdog)) {
		usleep(250000);
		now = now_ns();
		for (k = 0; k < ARRAY_SIZE(acts); k++) {
			since = atomic_load(&acts[k].since);
			if (since && now - since > hang_ns)
				hang(&acts[k], now - since);
		}
	}
	return NULL;
}

static void on_alarm(int sig)
{
	(void)sig;
	put_str("# ALARM: the test ran past its time budget\n");
	emit_remaining_async("time budget exceeded");
	_exit(1);
}

static void on_fault(int sig, siginfo_t *si, void *uc)
{
	const ucontext_t *ctx = uc;
	size_t k;

	if (probe_env)
		siglongjmp(*probe_env, sig);
	put_str("# fatal signal ");
	put_num(sig);
	put_str(" at address ");
	put_num((long)si->si_addr);
	/* Where, as an offset from on_fault(): addr2line finds it in the binary. */
	put_str(", ip on_fault");
	if ((long)ctx->uc_mcontext.gregs[REG_RIP] >= (long)on_fault)
		put_str("+");
	put_num((long)ctx->uc_mcontext.gregs[REG_RIP] - (long)on_fault);
	put_str(", thread ");
	put_num(gettid());
	put_str("\n");
	/* What each thread was doing (async-signal-safe writes only). */
	for (k = 0; k < ARRAY_SIZE(acts); k++) {
		if (!acts[k].tid || !atomic_load(&acts[k].since))
			continue;
		put_str("# in a call: tid ");
		put_num(acts[k].tid);
		put_str(" ");
		put_str(acts[k].op ? acts[k].op : "?");
		put_str(" ");
		put_str(acts[k].nr ? cmd_name(acts[k].nr) : "");
		put_str(" on a ");
		put_str(kind_name[acts[k].kind]);
		put_str(" fd, iteration ");
		put_num(acts[k].iter);
		put_str("\n");
	}
	emit_remaining_async("the test crashed");
	_exit(1);
}

/* The main thread's own calls, watched too. */
static struct activity *mact = &acts[0];

static long mioctl(int fd, int kind, uint32_t nr, unsigned long arg)
{
	long ret;
	int e;

	act_begin(mact, "ioctl", nr, kind, -1);
	ret = ioctl(fd, nr, arg);
	e = errno;
	act_end(mact);
	errno = e;
	return ret;
}

static void mclose(int *fd)
{
	if (*fd < 0)
		return;
	act_begin(mact, "close", 0, K_SESSION, -1);
	close(*fd);
	act_end(mact);
	*fd = -1;
}

/* One file of each kind, for the deterministic cases. */
struct kit {
	int fd[NR_KINDS];
};

static bool kit_open(struct kit *k, const char *who)
{
	struct event_notifier_conf en;
	struct channel_conf cc;
	struct counter_conf cf;
	struct event_conf ev;
	int i;

	for (i = 0; i < NR_KINDS; i++)
		k->fd[i] = -1;
	k->fd[K_ROOT] = open("/proc/lttng", O_RDWR | O_CLOEXEC);
	if (k->fd[K_ROOT] < 0)
		goto fail;
	k->fd[K_SESSION] = mioctl(k->fd[K_ROOT], K_ROOT, NR_SESSION, 0);
	if (k->fd[K_SESSION] < 0)
		goto fail;
	memset(&cc, 0, sizeof(cc));
	cc.subbuf_size = 4096;
	cc.num_subbuf = 4;
	cc.output = 1;
	k->fd[K_CHANNEL] = mioctl(k->fd[K_SESSION], K_SESSION, NR_CHANNEL, (unsigned long)&cc);
	if (k->fd[K_CHANNEL] < 0)
		goto fail;
	cc.num_subbuf = 2;
	k->fd[K_METACHAN] = mioctl(k->fd[K_SESSION], K_SESSION, NR_METADATA,
				   (unsigned long)&cc);
	if (k->fd[K_METACHAN] < 0)
		goto fail;
	memset(&ev, 0, sizeof(ev));
	strcpy(ev.name, "sched_switch");
	k->fd[K_EVENT] = mioctl(k->fd[K_CHANNEL], K_CHANNEL, NR_EVENT, (unsigned long)&ev);
	if (k->fd[K_EVENT] < 0)
		goto fail;
	k->fd[K_STREAM] = mioctl(k->fd[K_CHANNEL], K_CHANNEL, NR_STREAM, 0);
	if (k->fd[K_STREAM] < 0)
		goto fail;
	k->fd[K_MSTREAM] = mioctl(k->fd[K_METACHAN], K_METACHAN, NR_STREAM, 0);
	if (k->fd[K_MSTREAM] < 0)
		goto fail;
	k->fd[K_TPLIST] = mioctl(k->fd[K_ROOT], K_ROOT, NR_TRACEPOINT_LIST, 0);
	if (k->fd[K_TPLIST] < 0)
		goto fail;
	k->fd[K_SCLIST] = mioctl(k->fd[K_ROOT], K_ROOT, NR_SYSCALL_LIST, 0);
	if (k->fd[K_SCLIST] < 0)
		goto fail;
	k->fd[K_GROUP] = mioctl(k->fd[K_ROOT], K_ROOT, NR_GROUP_CREATE, 0);
	if (k->fd[K_GROUP] < 0)
		goto fail;
	memset(&en, 0, sizeof(en));
	strcpy(en.event.name, "sched_switch");
	k->fd[K_NOTIFIER] = mioctl(k->fd[K_GROUP], K_GROUP, NR_NOTIFIER_CREATE,
				   (unsigned long)&en);
	if (k->fd[K_NOTIFIER] < 0)
		goto fail;
	k->fd[K_NOTIF] = mioctl(k->fd[K_GROUP], K_GROUP, NR_NOTIF_FD, 0);
	if (k->fd[K_NOTIF] < 0)
		goto fail;
	fcntl(k->fd[K_NOTIF], F_SETFL, O_NONBLOCK);
	memset(&cf, 0, sizeof(cf));
	cf.bitness = 1;
	cf.number_dimensions = 1;
	cf.dimensions[0].size = 8;
	k->fd[K_COUNTER] = mioctl(k->fd[K_GROUP], K_GROUP, NR_COUNTER, (unsigned long)&cf);
	if (k->fd[K_COUNTER] < 0)
		goto fail;
	return true;
fail:
	for (i = 0; i < NR_KINDS && k->fd[i] >= 0; i++)
		;
	diag("%s: setting up a %s file failed: %s", who, kind_name[i < NR_KINDS ? i : 0],
	     strerror(errno));
	return false;
}

static void kit_close(struct kit *k)
{
	static const int order[] = {
		K_EVENT, K_CHANNEL, K_METACHAN, K_SESSION, K_STREAM, K_MSTREAM, K_TPLIST,
		K_SCLIST, K_NOTIFIER, K_NOTIF, K_COUNTER, K_GROUP, K_ROOT,
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(order); i++)
		mclose(&k->fd[order[i]]);
}

static bool thr_setup(struct thr *t, int id, struct activity *a)
{
	unsigned char *m;

	t->id = id;
	t->rng = seed * 0x9E3779B97F4A7C15ULL + (uint64_t)id * 0xBF58476D1CE4E5B9ULL + 1;
	if (!t->rng)
		t->rng = 1;
	m = mmap(NULL, 3 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (m == MAP_FAILED || mprotect(m + 2 * page, page, PROT_NONE))
		return false;
	t->arena = m;
	t->guard = m + 2 * page;
	if (pipe2(t->pipe, O_NONBLOCK | O_CLOEXEC))
		return false;
	t->drain = malloc(1 << 16);
	t->act = a;
	return t->drain != NULL;
}

/* Case 1: hostile pointers give EFAULT; exact-fit ones are read and written exactly. */

static bool hostile_check(struct kit *k, uint32_t nr, int kind, int *checks)
{
	static const int hostile[] = {
		AV_NULL, AV_ONE, AV_LOW, AV_KTEXT, AV_KDIRECT, AV_NONCANON, AV_PROTNONE,
		AV_GUARD_SHORT, AV_RDONLY,
	};
	static const int control[] = { AV_VALID, AV_MISALIGNED, AV_GUARD_EXACT };
	const struct cmd *c = find_cmd(nr);
	unsigned char tmp[ARGMAX] __attribute__((aligned(16)));
	struct slot s;
	unsigned long arg;
	size_t size, j;
	bool ok = true;
	long ret;
	int e;

	memset(&s, 0, sizeof(s));
	s.fd = k->fd[kind];
	s.kind = kind;
	s.subbuf = 4096;
	s.nsub = kind == K_MSTREAM ? 2 : 4;
	s.mmap = true;
	for (j = 0; j < ARRAY_SIZE(hostile); j++) {
		if (hostile[j] == AV_RDONLY && c->arg != A_OUT)
			continue;	/* the kernel may read it: no fault to expect */
		arg = place_arg(&mthr, c, &s, nr, hostile[j], tmp, &size);
		if (hostile[j] == AV_PROTNONE)
			arg = (unsigned long)protnone_page;
		ret = mioctl(s.fd, kind, nr, arg);
		e = errno;
		(*checks)++;
		if (ret >= 0) {
			diag("%s on a %s fd with a %s argument succeeded (%ld), expected EFAULT",
			     c->name, kind_name[kind], av_name[hostile[j]], ret);
			if (c->child != CH_NONE && ret > 2 && fd_is_lttng(ret))
				close((int)ret);
			ok = false;
		} else if (e != EFAULT) {
			diag("%s on a %s fd with a %s argument: %s, expected EFAULT", c->name,
			     kind_name[kind], av_name[hostile[j]], errname(e));
			ok = false;
		}
	}
	for (j = 0; j < ARRAY_SIZE(control); j++) {
		arg = place_arg(&mthr, c, &s, nr, control[j], tmp, &size);
		ret = mioctl(s.fd, kind, nr, arg);
		e = errno;
		(*checks)++;
		if (ret < 0 && e == EFAULT) {
			diag("%s on a %s fd with a valid %zu-byte argument %s: EFAULT (the driver "
			     "reads or writes past the structure, or mishandles alignment)",
			     c->name, kind_name[kind], size, av_name[control[j]]);
			ok = false;
		} else if (ret > 0 && c->child == CH_NONE) {
			diag("%s on a %s fd returned %ld, not 0", c->name, kind_name[kind], ret);
			ok = false;
		} else if (ret > 2 && c->child != CH_NONE) {
			close((int)ret);
		}
	}
	return ok;
}

static void case_hostile(void)
{
	static const struct { uint32_t nr; int kind; } list[] = {
		{ NR_TRACER_VERSION, K_ROOT }, { NR_ABI_VERSION, K_ROOT },
		{ NR_CHANNEL, K_SESSION }, { NR_METADATA, K_SESSION }, { NR_SET_NAME, K_SESSION },
		{ NR_SET_CTIME, K_SESSION }, { NR_TRACK_ID, K_SESSION },
		{ NR_UNTRACK_ID, K_SESSION }, { NR_EVENT, K_CHANNEL }, { NR_CONTEXT, K_CHANNEL },
		{ NR_FILTER, K_EVENT },
		{ NR_GET_CONSUMED, K_STREAM }, { NR_GET_PRODUCED, K_STREAM },
		{ NR_GET_SUBBUF, K_STREAM }, { NR_SUBBUF_SIZE, K_STREAM },
		{ NR_PADDED_SIZE, K_STREAM }, { NR_MAX_SUBBUF_SIZE, K_STREAM },
		{ NR_MMAP_LEN, K_STREAM }, { NR_MMAP_READ_OFFSET, K_STREAM },
		{ NR_TS_BEGIN, K_STREAM }, { NR_TS_END, K_STREAM }, { NR_DISCARDED, K_STREAM },
		{ NR_CONTENT_SIZE, K_STREAM }, { NR_PACKET_SIZE, K_STREAM },
		{ NR_STREAM_ID, K_STREAM }, { NR_CURRENT_TS, K_STREAM }, { NR_SEQ_NUM, K_STREAM },
		{ NR_INSTANCE_ID, K_STREAM },
		{ NR_GET_CONSUMED, K_MSTREAM }, { NR_GET_PRODUCED, K_MSTREAM },
		{ NR_SUBBUF_SIZE, K_MSTREAM }, { NR_PADDED_SIZE, K_MSTREAM },
		{ NR_MAX_SUBBUF_SIZE, K_MSTREAM }, { NR_MMAP_LEN, K_MSTREAM },
		{ NR_MMAP_READ_OFFSET, K_MSTREAM }, { NR_METADATA_VERSION, K_MSTREAM },
	};
	struct kit k;
	int checks = 0;
	bool ok;
	size_t i;
	long r;

	if (!kit_open(&k, case_name[C_HOSTILE])) {
		kit_close(&k);
		report(C_HOSTILE, false);
		return;
	}
	/*
	 * Hold a sub-buffer of each stream, so that the commands about the held
	 * packet get as far as writing their value: start and stop close an
	 * empty packet in every data buffer, start writes the metadata.
	 */
	ok = mioctl(k.fd[K_SESSION], K_SESSION, NR_START, 0) == 0 &&
	     mioctl(k.fd[K_SESSION], K_SESSION, NR_STOP, 0) == 0;
	r = mioctl(k.fd[K_STREAM], K_STREAM, NR_GET_NEXT, 0);
	if (r)
		diag("hostile: GET_NEXT_SUBBUF of a stopped stream: %s", strerror(errno));
	ok = ok && !r;
	r = mioctl(k.fd[K_MSTREAM], K_MSTREAM, NR_GET_NEXT, 0);
	if (r)
		diag("hostile: GET_NEXT_SUBBUF of the metadata stream: %s", strerror(errno));
	ok = ok && !r;
	for (i = 0; i < ARRAY_SIZE(list); i++)
		if (!hostile_check(&k, list[i].nr, list[i].kind, &checks))
			ok = false;
	/* The list files' read(). */
	for (i = 0; i < 2; i++) {
		/* volatile: the compiler must not see the NULL coming. */
		unsigned char *volatile bad = i ? (unsigned char *)KTEXT_ADDR : NULL;
		ssize_t n;

		lseek(k.fd[K_TPLIST], 0, SEEK_SET);
		n = read(k.fd[K_TPLIST], bad, 64);
		checks++;
		if (n >= 0 || errno != EFAULT) {
			diag("read of the tracepoint list into %s: %zd (%s), expected EFAULT",
			     i ? "a kernel address" : "NULL", n, n < 0 ? errname(errno) : "-");
			ok = false;
		}
	}
	mioctl(k.fd[K_STREAM], K_STREAM, NR_PUT_NEXT, 0);
	mioctl(k.fd[K_MSTREAM], K_MSTREAM, NR_PUT_NEXT, 0);
	kit_close(&k);
	diag("hostile pointers: %d calls", checks);
	report(C_HOSTILE, ok);
}

/*
 * Case 2: absurd buffer geometry is refused, without trying to allocate it
 * (one sub-buffer is valid in discard mode: it is tried in overwrite mode).
 */
static void case_geometry(void)
{
	static const struct { uint64_t sub, num; uint32_t output; int32_t ow; } g[] = {
		{ 4096, 1ULL << 40, 0, 0 },		{ 1ULL << 40, 2, 0, 0 },
		{ 1ULL << 40, 1ULL << 40, 0, 0 },	{ 1ULL << 63, 2, 0, 0 },
		{ 4096, 1ULL << 62, 0, 0 },		{ 1ULL << 32, 1ULL << 32, 0, 0 },
		{ 4096, 1ULL << 52, 0, 0 },		{ 1ULL << 36, 16, 0, 0 },
		{ ~0ULL, 4, 0, 0 },			{ 4096, ~0ULL, 0, 0 },
		{ 0, 4, 0, 0 },				{ 4096, 0, 0, 0 },
		{ 4096, 1, 0, 1 },			{ 4097, 4, 0, 0 },
		{ 12288, 4, 0, 0 },			{ 4096, 3, 0, 0 },
		{ 2048, 4, 0, 0 },			{ 1ULL << 20, 3, 0, 0 },
		{ 4096, 1ULL << 40, 1, 1 },		{ 1ULL << 40, 4, 1, 1 },
	};
	struct channel_conf cc;
	int root, sess, fd, e, meta;
	char what[96];
	bool ok = true;
	long long t0;
	double dt;
	size_t i;
	long bad;

	kmsg_scan("the tests before geometry_refused");
	root = open("/proc/lttng", O_RDWR | O_CLOEXEC);
	sess = root < 0 ? -1 : mioctl(root, K_ROOT, NR_SESSION, 0);
	if (sess < 0) {
		diag("geometry: no session: %s", strerror(errno));
		mclose(&root);
		report(C_GEOMETRY, false);
		return;
	}
	for (i = 0; i < ARRAY_SIZE(g); i++) {
		for (meta = 0; meta < 2; meta++) {
			if (meta && g[i].ow)
				continue;
			memset(&cc, 0, sizeof(cc));
			cc.subbuf_size = g[i].sub;
			cc.num_subbuf = g[i].num;
			cc.output = meta ? 1 : g[i].output;
			cc.overwrite = g[i].ow;
			t0 = now_ns();
			fd = mioctl(sess, K_SESSION, meta ? NR_METADATA : NR_CHANNEL,
				    (unsigned long)&cc);
			e = errno;
			dt = secs_since(t0);
			snprintf(what, sizeof(what), "%s of %" PRIu64 " x %" PRIu64 " bytes",
				 meta ? "METADATA" : "CHANNEL", g[i].num, g[i].sub);
			if (fd >= 0) {
				diag("%s succeeded", what);
				mclose(&fd);
				ok = false;
			} else if (e != EINVAL && e != ENOMEM) {
				diag("%s: %s, expected EINVAL or ENOMEM", what, errname(e));
				ok = false;
			} else if (e == ENOMEM || dt > 1.0) {
				diag("%s: %s after %.3f s", what, errname(e), dt);
			}
			if (dt > 5.0) {
				diag("...which is too slow for a refusal: it allocated?");
				ok = false;
			}
		}
	}
	/* The session still works. */
	memset(&cc, 0, sizeof(cc));
	cc.subbuf_size = 4096;
	cc.num_subbuf = 2;
	fd = mioctl(sess, K_SESSION, NR_CHANNEL, (unsigned long)&cc);
	if (fd < 0) {
		diag("a valid CHANNEL after the refusals: %s", strerror(errno));
		ok = false;
	}
	mclose(&fd);
	mclose(&sess);
	mclose(&root);
	bad = kmsg_scan(case_name[C_GEOMETRY]);
	if (bad) {
		diag("geometry: the kernel logged %ld problem lines while refusing: the "
		     "geometry was only refused after trying to allocate it", bad);
		ok = false;
	}
	report(C_GEOMETRY, ok);
}

/* Case 3: each command sent to a kind of file it does not belong to is ENOTTY. */
static void case_wrong_kind(void)
{
	unsigned char *zero = mthr.arena + 64;
	struct kit k;
	int checks = 0, bad = 0, kind, e;
	size_t i;
	long ret;

	if (!kit_open(&k, case_name[C_WRONG_KIND])) {
		kit_close(&k);
		report(C_WRONG_KIND, false);
		return;
	}
	for (i = 0; i < ARRAY_SIZE(cmds); i++) {
		if (!cmds[i].owners)
			continue;
		for (kind = 0; kind < NR_KINDS; kind++) {
			if (cmds[i].owners & KB(kind))
				continue;
			/* A well-sized zeroed buffer: no EFAULT before the dispatch. */
			memset(zero, 0, 1024);
			ret = mioctl(k.fd[kind], kind, cmds[i].nr,
				     cmds[i].arg == A_VALUE ? (unsigned long)-1L :
							      (unsigned long)zero);
			e = errno;
			checks++;
			if (ret >= 0 || e != ENOTTY) {
				bad++;
				if (bad <= 30)
					diag("%s (0x%08x) on a %s fd: %s, expected ENOTTY",
					     cmds[i].name, cmds[i].nr, kind_name[kind],
					     ret >= 0 ? "success" : errname(e));
				if (ret > 2 && cmds[i].child != CH_NONE && fd_is_lttng(ret))
					close((int)ret);
			}
		}
	}
	kit_close(&k);
	diag("wrong fd kind: %d calls, %d not ENOTTY", checks, bad);
	report(C_WRONG_KIND, !bad);
}

/* Case 4: a command with its direction or size bits changed is ENOTTY. */
static void case_encoding(void)
{
	unsigned char *zero = mthr.arena + 64;
	uint32_t nr, v[6], dir, size;
	const struct cmd *o;
	int checks = 0, bad = 0, kind, e;
	struct kit k;
	size_t i, j;
	long ret;

	if (!kit_open(&k, case_name[C_ENCODING])) {
		kit_close(&k);
		report(C_ENCODING, false);
		return;
	}
	for (i = 0; i < ARRAY_SIZE(cmds); i++) {
		if (!cmds[i].owners)
			continue;
		for (kind = 0; !(cmds[i].owners & KB(kind)); kind++)
			;
		nr = cmds[i].nr;
		dir = _IOC_DIR(nr);
		size = _IOC_SIZE(nr);
		v[0] = (nr & ~(3u << 30)) | (((dir + 1) & 3) << 30);
		v[1] = (nr & ~(3u << 30)) | (((dir + 2) & 3) << 30);
		v[2] = (nr & ~(3u << 30)) | (((dir + 3) & 3) << 30);
		v[3] = (nr & ~(0x3fffu << 16)) | (((size + 8) & 0x3fff) << 16);
		v[4] = (nr & ~(0x3fffu << 16)) | (((size ? size - 1 : 4) & 0x3fff) << 16);
		v[5] = (nr & ~(0x3fffu << 16)) | ((size ? 0 : 320) << 16);
		for (j = 0; j < ARRAY_SIZE(v); j++) {
			o = find_cmd(v[j]);
			if (o && (o->owners & KB(kind)))
				continue;	/* another command of this file */
			memset(zero, 0, 1024);
			ret = mioctl(k.fd[kind], kind, v[j], (unsigned long)zero);
			e = errno;
			checks++;
			if (ret >= 0 || e != ENOTTY) {
				bad++;
				if (bad <= 30)
					diag("%s mangled to 0x%08x on a %s fd: %s, expected ENOTTY",
					     cmds[i].name, v[j], kind_name[kind],
					     ret >= 0 ? "success" : errname(e));
				if (ret > 2 && fd_is_lttng(ret))
					close((int)ret);
			}
		}
	}
	kit_close(&k);
	diag("mangled encodings: %d calls, %d not ENOTTY", checks, bad);
	report(C_ENCODING, !bad);
}

/* The fuzz phase: cases 5 and 6. */
static void fuzz(void)
{
	static struct thr thrs[MAX_WORKERS];
	pthread_t evth;
	long long t0;
	double dt;
	size_t k;
	int i, fd, kind, n;
	char line[512];
	size_t len;

	for (i = 0; i < fuzz_threads; i++) {
		snprintf(acts[1 + i].name, sizeof(acts[1 + i].name), "fuzz%d", i);
		if (!thr_setup(&thrs[i], i + 1, &acts[1 + i])) {
			diag("fuzz: thread setup failed: %s", strerror(errno));
			fuzz_threads = i;
			break;
		}
	}
	kmsg_scan("the deterministic cases");
	pthread_mutex_lock(&slow_lock);
	memset(slowest, 0, sizeof(slowest));
	atomic_store(&slow_min, 0);
	pthread_mutex_unlock(&slow_lock);
	t0 = t_start = now_ns();
	pthread_create(&evth, NULL, events_thread, &acts[1 + MAX_WORKERS]);
	for (i = 0; i < fuzz_threads; i++)
		pthread_create(&thrs[i].th, NULL, worker, &thrs[i]);
	for (i = 0; i < fuzz_threads; i++)
		pthread_join(thrs[i].th, NULL);
	dt = secs_since(t0);
	atomic_store(&stop_events, 1);
	pthread_join(evth, NULL);
	/* Close whatever is left, streams last, as a consumer would. */
	for (kind = 0; kind < NR_KINDS; kind++) {
		static const int order[] = {
			K_EVENT, K_CHANNEL, K_METACHAN, K_SESSION, K_TPLIST, K_SCLIST,
			K_NOTIFIER, K_NOTIF, K_COUNTER, K_GROUP, K_ROOT, K_STREAM, K_MSTREAM,
		};

		for (i = 0; i < POOL; i++) {
			if (pool[i].fd < 0 || pool[i].kind != order[kind])
				continue;
			fd = pool[i].fd;
			pool[i].fd = -1;
			mclose(&fd);
		}
	}
	for (i = 0; i < MAPS; i++) {
		if (!maps[i].addr)
			continue;
		munmap(maps[i].addr, maps[i].len);
		maps[i].addr = NULL;
	}
	/* Pages spliced from buffers that are gone by now: still readable. */
	for (i = 0; i < fuzz_threads; i++) {
		while (read(thrs[i].pipe[0], thrs[i].drain, 1 << 16) > 0)
			;
		close(thrs[i].pipe[0]);
		close(thrs[i].pipe[1]);
	}
	n = (int)(atomic_load(&iter_next) < fuzz_iters ? atomic_load(&iter_next) : fuzz_iters);
	diag("fuzz: %d operations by %d threads in %.1f s (%.1f ms each)%s", n, fuzz_threads,
	     dt, n ? dt * 1000 / n : 0, atomic_load(&fuzz_capped) ?
	     ", stopped early by FUZZ_TIME_CAP: this machine is slow for FUZZ_ITERS" : "");
	len = 0;
	for (k = 0; k < NR_OPS; k++)
		len += snprintf(line + len, sizeof(line) - len, " %s %ld", op_name[k],
				atomic_load(&st_op[k]));
	diag("operations:%s", line);
	len = 0;
	for (k = 0; k < NR_KINDS; k++)
		len += snprintf(line + len, sizeof(line) - len, " %s %ld (%ld ok)", kind_name[k],
				atomic_load(&st_ioctl[k]), atomic_load(&st_ioctl_ok[k]));
	diag("ioctls by fd kind:%s", line);
	len = 0;
	for (k = 1; k < ARRAY_SIZE(st_errno); k++)
		if (atomic_load(&st_errno[k]) && len < sizeof(line) - 40)
			len += snprintf(line + len, sizeof(line) - len, " %s %ld", errname(k),
					atomic_load(&st_errno[k]));
	diag("errnos:%s", line);
	len = 0;
	for (k = 0; k < ARRAY_SIZE(cmds); k++) {
		if (!atomic_load(&st_cmd_ok[k]))
			continue;
		if (len > sizeof(line) - 48) {
			diag("succeeded:%s", line);
			len = 0;
		}
		len += snprintf(line + len, sizeof(line) - len, " %s %ld", cmds[k].name,
				atomic_load(&st_cmd_ok[k]));
	}
	if (len)
		diag("succeeded:%s", line);
	{
		long long tot[ARRAY_SIZE(cmds) + 1], best;
		size_t top, b = 0;

		for (k = 0; k <= ARRAY_SIZE(cmds); k++)
			tot[k] = atomic_load(&st_cmd_ns[k]);
		len = 0;
		for (top = 0; top < 8; top++) {
			best = -1;
			for (k = 0; k <= ARRAY_SIZE(cmds); k++)
				if (tot[k] > best)
					best = tot[k], b = k;
			len += snprintf(line + len, sizeof(line) - len, " %s %.2f",
					b < ARRAY_SIZE(cmds) ? cmds[b].name : "random",
					best / 1e9);
			tot[b] = -2;
		}
		diag("seconds in ioctls (threads summed):%s; close %.2f", line,
		     atomic_load(&st_close_ns) / 1e9);
	}
	len = 0;
	for (k = 0; k < ARRAY_SIZE(slowest); k++)
		if (slowest[k].ns)
			len += snprintf(line + len, sizeof(line) - len, " %s%s%s on %s %.0f ms;",
					slowest[k].op, slowest[k].nr ? " " : "",
					slowest[k].nr ? cmd_name(slowest[k].nr) : "",
					kind_name[slowest[k].kind], slowest[k].ns / 1e6);
	diag("slowest calls:%s", line);
	diag("files closed %ld, streams mapped %ld, bytes spliced %ld, /bin/true spawned %ld",
	     atomic_load(&st_closed), atomic_load(&st_mapped), atomic_load(&st_spliced_bytes),
	     atomic_load(&st_spawned));
	if (atomic_load(&bad_errno))
		diag("%ld calls failed with an errno outside the allowed set",
		     atomic_load(&bad_errno));
	report(C_ERRNOS, !atomic_load(&bad_errno));
	if (atomic_load(&bad_return))
		diag("%ld calls returned something wrong", atomic_load(&bad_return));
	report(C_RETURNS, !atomic_load(&bad_return));
}

/* Case 7: a fresh session records sched_switch, read back through the stream ioctls. */
static bool drain_stream(int fd, bool meta, unsigned long *data, int *packets)
{
	unsigned long size, padded, roff, len, prev_seq = 0;
	uint64_t content = 0, packet = 0, seq = 0;
	unsigned char *map;
	uint32_t magic;
	bool ok = true;
	int k;

	if (mioctl(fd, K_STREAM, NR_MMAP_LEN, (unsigned long)&len)) {
		diag("new session: GET_MMAP_LEN: %s", strerror(errno));
		return false;
	}
	map = mmap(NULL, len, PROT_READ, MAP_SHARED, fd, 0);
	if (map == MAP_FAILED) {
		diag("new session: mmap of %lu bytes: %s", len, strerror(errno));
		return false;
	}
	for (k = 0; k < 64; k++) {
		if (mioctl(fd, K_STREAM, NR_GET_NEXT, 0)) {
			if (errno != EAGAIN && errno != ENODATA) {
				diag("new session: GET_NEXT_SUBBUF: %s", strerror(errno));
				ok = false;
			}
			break;
		}
		if (mioctl(fd, K_STREAM, NR_SUBBUF_SIZE, (unsigned long)&size) ||
		    mioctl(fd, K_STREAM, NR_PADDED_SIZE, (unsigned long)&padded) ||
		    mioctl(fd, K_STREAM, NR_MMAP_READ_OFFSET, (unsigned long)&roff)) {
			diag("new session: a sub-buffer query failed: %s", strerror(errno));
			ok = false;
			break;
		}
		if (padded != ((size + page - 1) & ~(page - 1)) || roff >= len ||
		    roff + padded > len) {
			diag("new session: sub-buffer of %lu bytes, padded %lu, at %lu of %lu",
			     size, padded, roff, len);
			ok = false;
		} else {
			memcpy(&magic, map + roff, sizeof(magic));
			if (magic != (meta ? TSDL_MAGIC : CTF_MAGIC)) {
				diag("new session: packet magic 0x%08x", magic);
				ok = false;
			}
		}
		if (!meta) {
			if (mioctl(fd, K_STREAM, NR_CONTENT_SIZE, (unsigned long)&content) ||
			    mioctl(fd, K_STREAM, NR_PACKET_SIZE, (unsigned long)&packet) ||
			    mioctl(fd, K_STREAM, NR_SEQ_NUM, (unsigned long)&seq)) {
				diag("new session: a packet query failed: %s", strerror(errno));
				ok = false;
			} else if (content != 8 * size || packet != 8 * padded ||
				   (k && seq != prev_seq + 1)) {
				diag("new session: packet %lu: %lu bytes, content %" PRIu64
				     " bits, packet %" PRIu64 " bits", (unsigned long)seq, size,
				     content, packet);
				ok = false;
			}
			prev_seq = seq;
			if (size > PACKET_HEADER_SIZE)
				*data += size - PACKET_HEADER_SIZE;
		} else {
			*data += size;
		}
		(*packets)++;
		if (mioctl(fd, K_STREAM, NR_PUT_NEXT, 0)) {
			diag("new session: PUT_NEXT_SUBBUF: %s", strerror(errno));
			ok = false;
			break;
		}
	}
	munmap(map, len);
	return ok;
}

static void case_new_session(void)
{
	int root = -1, sess = -1, chan = -1, ev = -1, meta = -1, mstream = -1;
	int streams[64], n = 0, fd, k, packets = 0, mpackets = 0;
	unsigned long data = 0, mdata = 0;
	struct event_conf evc;
	struct channel_conf cc;
	char name[256];
	bool ok = false;

	root = open("/proc/lttng", O_RDWR | O_CLOEXEC);
	if (root < 0) {
		diag("new session: open /proc/lttng: %s", strerror(errno));
		goto out;
	}
	sess = mioctl(root, K_ROOT, NR_SESSION, 0);
	memset(name, 0, sizeof(name));
	strcpy(name, "after-the-fuzz");
	if (sess < 0 || mioctl(sess, K_SESSION, NR_SET_NAME, (unsigned long)name)) {
		diag("new session: SESSION/SET_NAME: %s", strerror(errno));
		goto out;
	}
	memset(&cc, 0, sizeof(cc));
	cc.subbuf_size = 4096;
	cc.num_subbuf = 8;
	cc.output = 1;
	chan = mioctl(sess, K_SESSION, NR_CHANNEL, (unsigned long)&cc);
	cc.num_subbuf = 4;
	meta = chan < 0 ? -1 : mioctl(sess, K_SESSION, NR_METADATA, (unsigned long)&cc);
	if (chan < 0 || meta < 0) {
		diag("new session: CHANNEL/METADATA: %s", strerror(errno));
		goto out;
	}
	memset(&evc, 0, sizeof(evc));
	strcpy(evc.name, "sched_switch");
	ev = mioctl(chan, K_CHANNEL, NR_EVENT, (unsigned long)&evc);
	if (ev < 0 || mioctl(ev, K_EVENT, NR_ENABLE, 0)) {
		diag("new session: EVENT sched_switch/ENABLE: %s", strerror(errno));
		goto out;
	}
	mstream = mioctl(meta, K_METACHAN, NR_STREAM, 0);
	while (n < 64 && (fd = mioctl(chan, K_CHANNEL, NR_STREAM, 0)) >= 0)
		streams[n++] = fd;
	if (mstream < 0 || !n || errno != ENOENT) {
		diag("new session: %d streams, the last STREAM: %s", n, strerror(errno));
		goto out;
	}
	if (mioctl(sess, K_SESSION, NR_START, 0)) {
		diag("new session: SESSION_START: %s", strerror(errno));
		goto out;
	}
	if (mioctl(sess, K_SESSION, NR_START, 0) != -1 || errno != EBUSY) {
		diag("new session: a second SESSION_START did not give EBUSY");
		goto out;
	}
	for (k = 0; k < 60; k++) {
		usleep(500);
		sched_yield();
	}
	spawn_true(mact);
	if (mioctl(sess, K_SESSION, NR_STOP, 0)) {
		diag("new session: SESSION_STOP: %s", strerror(errno));
		goto out;
	}
	if (mioctl(sess, K_SESSION, NR_STOP, 0) != -1 || errno != EBUSY) {
		diag("new session: a second SESSION_STOP did not give EBUSY");
		goto out;
	}
	ok = true;
	for (k = 0; k < n; k++)
		if (!drain_stream(streams[k], false, &data, &packets))
			ok = false;
	if (!drain_stream(mstream, true, &mdata, &mpackets))
		ok = false;
	diag("new session: %d streams, %d packets with %lu bytes of records; metadata %d "
	     "packets, %lu bytes", n, packets, data, mpackets, mdata);
	if (!data) {
		diag("new session: no sched_switch record at all");
		ok = false;
	}
	if (!mdata) {
		diag("new session: no metadata");
		ok = false;
	}
out:
	mclose(&ev);
	mclose(&chan);
	mclose(&meta);
	mclose(&sess);
	mclose(&root);
	mclose(&mstream);
	while (n > 0)
		mclose(&streams[--n]);
	report(C_NEW_SESSION, ok);
}

/* Who holds LTTng files, for a reference count that did not come back. */
static void list_holders(void)
{
	char path[600], link[128];
	struct dirent *p, *f;
	DIR *pd, *fd;
	ssize_t n;
	int shown = 0;

	pd = opendir("/proc");
	if (!pd)
		return;
	while ((p = readdir(pd)) && shown < 20) {
		if (p->d_name[0] < '0' || p->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/fd", p->d_name);
		fd = opendir(path);
		if (!fd)
			continue;
		while ((f = readdir(fd)) && shown < 20) {
			snprintf(path, sizeof(path), "/proc/%s/fd/%s", p->d_name, f->d_name);
			n = readlink(path, link, sizeof(link) - 1);
			if (n <= 0)
				continue;
			link[n] = 0;
			if (strstr(link, "lttng")) {
				diag("pid %s fd %s: %s", p->d_name, f->d_name, link);
				shown++;
			}
		}
		closedir(fd);
	}
	closedir(pd);
}

/* Case 8: every file is released; the module's reference count is back. */
static void case_fds_released(long base)
{
	char path[300], link[128], line[512];
	struct dirent *d;
	long now = -1;
	bool ok = true;
	ssize_t n;
	FILE *f;
	DIR *dir;
	int k;

	dir = opendir("/proc/self/fd");
	while (dir && (d = readdir(dir))) {
		snprintf(path, sizeof(path), "/proc/self/fd/%s", d->d_name);
		n = readlink(path, link, sizeof(link) - 1);
		if (n <= 0)
			continue;
		link[n] = 0;
		if (strstr(link, "lttng")) {
			diag("still open: fd %s -> %s", d->d_name, link);
			ok = false;
		}
	}
	if (dir)
		closedir(dir);
	f = fopen("/proc/self/maps", "r");
	while (f && fgets(line, sizeof(line), f)) {
		if (strstr(line, "lttng")) {
			diag("still mapped: %s", line);
			ok = false;
		}
	}
	if (f)
		fclose(f);
	if (base < 0) {
		diag("/sys/module/lttng_tracer/refcnt does not exist (the driver is built in): "
		     "the module reference count is not checked");
	} else {
		/* Releases run before close() returns; allow a little for stragglers. */
		for (k = 0; k < 50; k++) {
			now = read_refcnt();
			if (now == base)
				break;
			usleep(100000);
		}
		diag("lttng_tracer refcnt: %ld before the test, %ld after", base, now);
		if (now != base) {
			list_holders();
			ok = false;
		}
	}
	report(C_FDS, ok);
}

static long env_long(const char *name, long def)
{
	const char *v = getenv(name);
	char *end;
	long r;

	if (!v || !*v)
		return def;
	r = strtol(v, &end, 0);
	return *end ? def : r;
}

int main(void)
{
	static const char *const modules[] = {
		"lttng-tracer", "lttng-ring-buffer-client-discard",
		"lttng-ring-buffer-client-overwrite", "lttng-ring-buffer-metadata-client",
		"lttng-ring-buffer-client-mmap-discard", "lttng-ring-buffer-client-mmap-overwrite",
		"lttng-ring-buffer-metadata-mmap-client",
	};
	struct sigaction sa;
	long long t0 = now_ns(), t1;
	char cmd[512], path[128], *p;
	pthread_t wd;
	sigset_t set;
	const char *v;
	size_t i, n, len;
	long base;
	int fd;

	setvbuf(stdout, NULL, _IOLBF, 0);
	v = getenv("FUZZ_SEED");
	seed = v && *v ? strtoull(v, NULL, 0) :
	       (unsigned long long)time(NULL) ^ ((unsigned long long)getpid() << 20);
	fuzz_iters = env_long("FUZZ_ITERS", 3000);
	fuzz_threads = (int)env_long("FUZZ_THREADS", 3);
	if (fuzz_threads < 1 || fuzz_threads > MAX_WORKERS)
		fuzz_threads = 3;
	fuzz_cap = (double)env_long("FUZZ_TIME_CAP", 0);
	if (fuzz_cap <= 0)
		fuzz_cap = 40.0 * (fuzz_iters > 3000 ? fuzz_iters : 3000) / 3000;
	fuzz_huge = env_long("FUZZ_HUGE", 1) != 0;
	hang_ns = env_long("FUZZ_HANG_MS", 20000) * 1000000LL;
	printf("TAP version 13\n");
	printf("# seed: %llu\n", seed);
	printf("1..%d\n", NR_CASES);
	diag("replay: FUZZ_SEED=%llu FUZZ_ITERS=%ld FUZZ_THREADS=%d%s", seed, fuzz_iters,
	     fuzz_threads, fuzz_huge ? "" : " FUZZ_HUGE=0");

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_fault;
	sa.sa_flags = SA_SIGINFO | SA_NODEFER;
	sigaction(SIGSEGV, &sa, NULL);
	sigaction(SIGBUS, &sa, NULL);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_alarm;
	sigaction(SIGALRM, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	/* Only the watchdog takes SIGALRM: it never sleeps uninterruptibly. */
	sigemptyset(&set);
	sigaddset(&set, SIGALRM);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	act_init(&acts[0], "main");
	pthread_create(&wd, NULL, watchdog, NULL);
	alarm((unsigned int)fuzz_cap + 120);

	/*
	 * lttng-sessiond loads the core and the channel clients: do it in its
	 * place, those not loaded yet, in one modprobe (each one costs seconds
	 * on a debug kernel under emulation).
	 */
	len = snprintf(cmd, sizeof(cmd), "modprobe -a -q");
	for (i = 0, n = 0; i < ARRAY_SIZE(modules); i++) {
		snprintf(path, sizeof(path), "/sys/module/%s", modules[i]);
		for (p = path; *p; p++)
			if (*p == '-')
				*p = '_';
		if (!access(path, F_OK))
			continue;
		len += snprintf(cmd + len, sizeof(cmd) - len, " %s", modules[i]);
		n++;
	}
	if (n) {
		snprintf(cmd + len, sizeof(cmd) - len, " 2>/dev/null");
		act_begin(mact, "modprobe", 0, K_ROOT, -1);
		if (system(cmd))
			diag("'%s' failed (built in, or missing)", cmd);
		act_end(mact);
		diag("time: %.1f s loading %zu modules", secs_since(t0), n);
	}
	fd = open("/proc/lttng", O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		diag("/proc/lttng cannot be opened (%s): the driver is not loaded, nothing "
		     "can run", strerror(errno));
		pthread_mutex_lock(&out_lock);
		emit_remaining_locked("/proc/lttng is absent");
		pthread_mutex_unlock(&out_lock);
		return 1;
	}
	close(fd);

	page = sysconf(_SC_PAGESIZE);
	ncpus = sysconf(_SC_NPROCESSORS_CONF);
	protnone_page = mmap(NULL, page, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	rdonly_page = mmap(NULL, page, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (protnone_page == MAP_FAILED || rdonly_page == MAP_FAILED ||
	    !thr_setup(&mthr, 0, &acts[0])) {
		diag("setup: %s", strerror(errno));
		pthread_mutex_lock(&out_lock);
		emit_remaining_locked("setup failed");
		pthread_mutex_unlock(&out_lock);
		return 1;
	}
	for (i = 0; i < POOL; i++)
		pool[i].fd = -1;
	kmsg_fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (kmsg_fd >= 0)
		lseek(kmsg_fd, 0, SEEK_END);
	else
		diag("/dev/kmsg: %s: the kernel log is not checked", strerror(errno));
	base = read_refcnt();

	t1 = t_start = now_ns();

	case_hostile();
	case_geometry();
	case_wrong_kind();
	case_encoding();
	diag("time: %.1f s for the deterministic cases", secs_since(t1));
	fuzz();
	kmsg_scan("the fuzzing");
	t1 = now_ns();
	case_new_session();
	close(mthr.pipe[0]);
	close(mthr.pipe[1]);
	case_fds_released(base);
	kmsg_scan("the last cases");
	diag("time: %.1f s for the last cases, %.1f s in all", secs_since(t1), secs_since(t0));
	if (kmsg_fd >= 0)
		diag("kernel log: %ld problem lines during the test", klog_bad);
	report(C_KLOG, kmsg_fd >= 0 && !klog_bad);
	atomic_store(&stop_watchdog, 1);
	pthread_join(wd, NULL);
	report(C_HANG, true);
	return any_failed ? 1 : 0;
}
