/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The LTTng 2.x kernel ABI as the C tests drive it: command numbers as
 * lttng-tools 2.13.9 hard-codes them (fact sheet, section 2) and the
 * packed argument layouts they carry.  abi_fuzz.c keeps its own complete
 * table of every command.
 */
#ifndef TESTS_LTTNG_ABI_H
#define TESTS_LTTNG_ABI_H

#include <stdint.h>

/* /proc/lttng */
#define LTTNG_SESSION		0x0000F645u
#define TRACER_VERSION		0x800CF646u
#define LTTNG_TRACEPOINT_LIST	0x0000F647u
#define LTTNG_WAIT_QUIESCENT	0x0000F648u
#define LTTNG_SYSCALL_LIST	0x0000F64Au
/* session */
#define LTTNG_METADATA		0x4140F654u
#define LTTNG_CHANNEL		0x4140F655u
#define LTTNG_SESSION_START	0x0000F656u
#define LTTNG_SESSION_STOP	0x0000F657u
#define LTTNG_SESSION_METADATA_REGEN 0x0000F659u
/* channel, event */
#define LTTNG_STREAM		0x0000F662u
#define LTTNG_EVENT		0x4234F663u
#define LTTNG_CONTEXT		0x4134F671u
#define LTTNG_ENABLE		0x0000F682u
#define LTTNG_DISABLE		0x0000F683u
#define LTTNG_FILTER		0x0000F690u
#define LTTNG_ADD_CALLSITE	0x0000F691u
/* Event notifiers: /proc/lttng, the group, the error counter, a notifier. */
#define LTTNG_EVENT_NOTIFIER_GROUP_CREATE	0x0000F64Cu
#define LTTNG_NOTIFICATION_FD			0x0000F6B1u
#define LTTNG_COUNTER				0x40C0F684u
#define LTTNG_EVENT_NOTIFIER_CREATE		0x425CF6B0u
#define LTTNG_COUNTER_AGGREGATE			0xC04EF6C1u
#define LTTNG_COUNTER_CLEAR			0x4044F6C2u
#define LTTNG_CAPTURE				0x0000F6B8u
/* streams */
#define RB_SNAPSHOT		0x0000F600u
#define RB_SNAPSHOT_GET_CONSUMED 0x8008F601u
#define RB_SNAPSHOT_GET_PRODUCED 0x8008F602u
#define RB_GET_NEXT_SUBBUF	0x0000F605u
#define RB_PUT_NEXT_SUBBUF	0x0000F606u
#define RB_GET_SUBBUF_SIZE	0x8008F607u
#define RB_GET_PADDED_SUBBUF_SIZE 0x8008F608u
#define RB_GET_MAX_SUBBUF_SIZE	0x8008F609u
#define RB_GET_MMAP_LEN		0x8008F60Au
#define RB_GET_MMAP_READ_OFFSET	0x8008F60Bu
#define RB_FLUSH		0x0000F60Cu
#define RB_FLUSH_EMPTY		0x0000F60Fu
#define RB_GET_METADATA_VERSION	0x8008F60Du
#define RB_GET_NEXT_SUBBUF_METADATA_CHECK 0x8004F612u
/* The data stream's _IOR(.., __u64) queries: 0x20 to 0x28. */
#define STREAM_GET_FIRST	0x8008F620u
#define STREAM_GET_SEQ_NUM	0x8008F627u
#define STREAM_INSTANCE_ID	0x8008F628u
#define STREAM_GET_LAST		0x8008F628u

/* CHANNEL, METADATA */
struct channel_conf {
	uint64_t subbuf_size;
	uint64_t num_subbuf;
	uint32_t switch_timer_interval;
	uint32_t read_timer_interval;
	uint32_t output;		/* 0: splice, 1: mmap */
	int32_t overwrite;
	char padding[288];
} __attribute__((packed));

/* EVENT */
struct event_conf {
	char name[256];
	uint32_t instrumentation;	/* 0: tracepoint, 5: system call, 6: uprobe */
	uint64_t token;
	char padding[8];
	unsigned char u[288];
} __attribute__((packed));

/* EVENT_NOTIFIER_CREATE */
struct event_notifier_conf {
	struct event_conf event;
	uint64_t error_counter_index;
	char padding[32];
} __attribute__((packed));

/* COUNTER: one dimension of buckets, modular 64-bit, as lttng-sessiond */
struct counter_conf {
	uint32_t arithmetic;
	uint32_t bitness;
	uint32_t number_dimensions;
	int64_t global_sum_step;
	struct {
		uint64_t size, underflow_index, overflow_index;
		uint8_t has_underflow, has_overflow;
	} __attribute__((packed)) dimensions[4];
	uint8_t coalesce_hits;
	char padding[67];
} __attribute__((packed));

struct counter_aggregate {
	uint32_t number_dimensions;
	uint64_t indexes[4];
	int64_t value;
	uint8_t underflow, overflow;
	char padding[32];
} __attribute__((packed));

struct counter_clear {
	uint32_t number_dimensions;
	uint64_t indexes[4];
	char padding[32];
} __attribute__((packed));

/* What the notification fd gives, then capture_buf_size bytes. */
struct notification_hdr {
	uint64_t token;
	uint16_t capture_buf_size;
	char padding[32];
} __attribute__((packed));

/* CONTEXT */
struct context_conf {
	uint32_t ctx;			/* 6: tid */
	char padding[16];
	char u[288];
} __attribute__((packed));

#endif /* TESTS_LTTNG_ABI_H */
