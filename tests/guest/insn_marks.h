/* SPDX-License-Identifier: GPL-2.0 */
/*
 * insn_marks.h: bracket code whose guest instructions the QEMU plugin
 * scripts/qemu-plugins/insn_marks.c counts (LTTNG_QEMU_PLUGIN=insn_marks,...
 * for scripts/qemu-run; report with scripts/insn-report).
 *
 * The markers are 7-byte NOPs, "nopl 0x4c5400NN(%rax)": without the plugin
 * they do nothing (no memory access, no register change).  The plugin counts
 * per vCPU, so pin the measured thread (taskset -c 0 / sched_setaffinity).
 * The "memory" clobber keeps the compiler from moving memory accesses
 * across a marker.
 */
#ifndef INSN_MARKS_H
#define INSN_MARKS_H

static inline void insn_mark_start(void)
{
	asm volatile(".byte 0x0f, 0x1f, 0x80, 0x01, 0x00, 0x54, 0x4c" ::: "memory");
}

static inline void insn_mark_stop(void)
{
	asm volatile(".byte 0x0f, 0x1f, 0x80, 0x02, 0x00, 0x54, 0x4c" ::: "memory");
}

#endif /* INSN_MARKS_H */
