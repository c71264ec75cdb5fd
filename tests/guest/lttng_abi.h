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
/* channel, event */
#define LTTNG_STREAM		0x0000F662u
#define LTTNG_EVENT		0x4234F663u
#define LTTNG_CONTEXT		0x4134F671u
#define LTTNG_ENABLE		0x0000F682u
#define LTTNG_DISABLE		0x0000F683u
#define LTTNG_FILTER		0x0000F690u
#define LTTNG_ADD_CALLSITE	0x0000F691u
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

/* CONTEXT */
struct context_conf {
	uint32_t ctx;			/* 6: tid */
	char padding[16];
	char u[288];
} __attribute__((packed));

#endif /* TESTS_LTTNG_ABI_H */
