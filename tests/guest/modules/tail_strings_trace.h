/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Events whose strings and sequences come last, for tail_records.sh: the
 * strings are sized from one argument and assigned from another, so that
 * the room the probe sized is larger than the text it copies.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM tail_strings

#if !defined(_TAIL_STRINGS_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define _TAIL_STRINGS_TRACE_H

#include <linux/tracepoint.h>

/* The last field: a string sized for @sized, given @text. */
TRACE_EVENT(tail_last,
	TP_PROTO(int id, const char *sized, const char *text),
	TP_ARGS(id, sized, text),
	TP_STRUCT__entry(
		__field(int, id)
		__string(text, sized)
	),
	TP_fast_assign(
		__entry->id = id;
		__assign_str(text, text);
	),
	TP_printk("id=%d text=%s", __entry->id, __get_str(text))
);

/* The same string, followed by another string. */
TRACE_EVENT(tail_middle,
	TP_PROTO(int id, const char *sized, const char *text,
		 const char *last),
	TP_ARGS(id, sized, text, last),
	TP_STRUCT__entry(
		__field(int, id)
		__string(text, sized)
		__string(last, last)
	),
	TP_fast_assign(
		__entry->id = id;
		__assign_str(text, text);
		__assign_str(last, last);
	),
	TP_printk("id=%d text=%s last=%s", __entry->id, __get_str(text),
		  __get_str(last))
);

/* A sequence, a __rel_loc string, then a string. */
TRACE_EVENT(tail_seq,
	TP_PROTO(int id, const u16 *vals, int n, const char *rel,
		 const char *name),
	TP_ARGS(id, vals, n, rel, name),
	TP_STRUCT__entry(
		__field(int, id)
		__dynamic_array(u16, vals, n)
		__rel_string(rel, rel)
		__string(name, name)
	),
	TP_fast_assign(
		__entry->id = id;
		memcpy(__get_dynamic_array(vals), vals, n * sizeof(*vals));
		__assign_rel_str(rel, rel);
		__assign_str(name, name);
	),
	TP_printk("id=%d n=%d rel=%s name=%s", __entry->id,
		  __get_dynamic_array_len(vals) / 2, __get_rel_str(rel),
		  __get_str(name))
);

/*
 * A string whose room is shorter than the padding before it: its loc word
 * ends past the CTF record, so it is not assigned in place.
 */
TRACE_EVENT(tail_short,
	TP_PROTO(u8 flag, const char *s),
	TP_ARGS(flag, s),
	TP_STRUCT__entry(
		__field(u8, flag)
		__string(s, s)
	),
	TP_fast_assign(
		__entry->flag = flag;
		__assign_str(s, s);
	),
	TP_printk("flag=%u s=%s", __entry->flag, __get_str(s))
);

/*
 * A string assigned twice: first its whole room, then a shorter text; the
 * second copy takes back what the first vouched for.
 */
TRACE_EVENT(tail_twice,
	TP_PROTO(int id, const char *sized, const char *text),
	TP_ARGS(id, sized, text),
	TP_STRUCT__entry(
		__field(int, id)
		__string(text, sized)
	),
	TP_fast_assign(
		__entry->id = id;
		__assign_str(text, sized);
		__assign_str(text, text);
	),
	TP_printk("id=%d text=%s", __entry->id, __get_str(text))
);

/*
 * A string written by __assign_str_len(), not by the string copy that
 * vouches for its text: @len bytes of @text, NULs included.
 */
TRACE_EVENT(tail_len,
	TP_PROTO(int id, const char *text, int len),
	TP_ARGS(id, text, len),
	TP_STRUCT__entry(
		__field(int, id)
		__string_len(text, text, len)
	),
	TP_fast_assign(
		__entry->id = id;
		__assign_str_len(text, text, len);
	),
	TP_printk("id=%d text=%s", __entry->id, __get_str(text))
);

#endif /* _TAIL_STRINGS_TRACE_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE tail_strings_trace
#include <trace/define_trace.h>
