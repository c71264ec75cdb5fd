// SPDX-License-Identifier: GPL-2.0
/*
 * tail_strings: fires the events of tail_strings_trace.h once each, with
 * the values tests/guest/tail_records.sh expects, at each write to
 * /sys/module/tail_strings/parameters/fire: a tracer attaches to the
 * events of a module once it is live, after its init.
 */
#include <linux/module.h>

#define CREATE_TRACE_POINTS
#include "tail_strings_trace.h"

static int tail_strings_fire(const char *val, const struct kernel_param *kp)
{
	static const u16 vals[] = { 7, 300, 65535 };

	/* Sized for 10 bytes of text, given 2. */
	trace_tail_last(1, "0123456789", "ab");
	trace_tail_last(2, "exact", "exact");
	/* Sized for 4 bytes of text, given 8: cut to the room. */
	trace_tail_last(12, "abcd", "abcdefgh");
	trace_tail_twice(13, "0123456789", "ab");
	trace_tail_middle(3, "0123456789", "ab", "last");
	trace_tail_middle(9, "0123456789", "ab", "");
	trace_tail_seq(4, vals, ARRAY_SIZE(vals), "relative", "name");
	trace_tail_seq(5, vals, 0, "", "");
	/* One element: rel's data would start before its loc word's end. */
	trace_tail_seq(8, vals, 1, "r", "n");
	trace_tail_short(6, "");
	trace_tail_short(7, "abcdefgh");
	/* A NUL inside the room: the text ends there. */
	trace_tail_len(10, "ab\0cd", 5);
	trace_tail_len(11, "abcde", 5);
	return 0;
}

static const struct kernel_param_ops tail_strings_fire_ops = {
	.set = tail_strings_fire,
};
module_param_cb(fire, &tail_strings_fire_ops, NULL, 0200);
MODULE_PARM_DESC(fire, "written: fire each event once");

static int __init tail_strings_init(void)
{
	return 0;
}
module_init(tail_strings_init);

static void __exit tail_strings_exit(void)
{
}
module_exit(tail_strings_exit);

MODULE_DESCRIPTION("Trace events whose dynamic fields come last, for the tests");
MODULE_LICENSE("GPL");
