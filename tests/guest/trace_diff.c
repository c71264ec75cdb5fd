// SPDX-License-Identifier: GPL-2.0
/*
 * trace_diff: the same trace events as ftrace and LTTng recorded them, as
 * canonical lines that compare byte for byte, and the per-CPU comparison
 * of the two.  Used by ftrace_diff.sh.
 *
 *   trace_diff ftrace TRACEFS CPU SYSTEM...
 *	Decodes TRACEFS/per_cpu/cpuCPU/trace_pipe_raw to its end (stop
 *	tracing first): ring buffer pages laid out as events/header_page
 *	says, records as events/header_event says (padding, time extend and
 *	absolute time stamp records skipped), each event decoded with the
 *	format file of its id among the events of SYSTEM...  One line per
 *	event: "LEVEL NAME FIELD=VALUE ...", without the common_* fields;
 *	LEVEL is the context of the event from common_flags (0 task,
 *	1 softirq, 2 hardirq, 3 NMI).  Fails on an event of another system,
 *	on a page that lost events, on a field type it does not know.
 *   trace_diff ctf
 *	babeltrace2's text output on stdin (the default sink.text.pretty
 *	format), one line per event: "CPU NAME FIELD=VALUE ...", CPU the
 *	cpu_id of the packet context.  The "_X_length" member CTF needs
 *	before a sequence X is dropped once checked against X's length.
 *   trace_diff match FTRACE LTTNG CPU NAMES
 *	The events of LTTNG (ctf lines) on CPU named in the file NAMES (one
 *	name a line) must be, in order, a contiguous run of the events of
 *	FTRACE (ftrace lines of that CPU) named in NAMES.  Prints
 *	"compared=N reordered=R", or the first difference and exits 1.
 *
 * With LTTNG_MODULES_MAP set to lttng_modules.map, LTTng's events are
 * mapped back to the kernel's as that file says: 'ctf' writes the kernel's
 * event and field names, priorities plus 100 and rwbs as the kernel's
 * text, and leaves out the fields lttng-modules adds; 'ftrace' leaves out
 * the kernel's fields lttng-modules does not record.  What is left must
 * be the same.
 * Canonical values: integers in decimal, signed or not as the field is
 * (babeltrace2's hexadecimal converted); char arrays and dynamic char
 * arrays as a quoted string up to the first NUL, with backslash, quote and
 * any byte outside 0x20-0x7e written \xNN; other arrays "[V,V,...]";
 * structures and arrays of odd-sized elements as the array of their bytes.
 *
 * Two differences are accepted, both caused by the two probes of one
 * tracepoint hit running one after the other: ftrace's first (it was
 * registered first), then LTTng's (include/trace/lttng.h), with
 * preemption off but interrupts on.
 *  - A few fields each probe reads for itself from state another CPU can
 *    change in between (resampled[] below) may differ by a little; each
 *    such event is counted.
 *  - A few fields an event's TP_fast_assign() leaves unset on some paths
 *    (unset[] below) hold whatever each ring buffer held there before:
 *    they are not compared.
 *  - An interrupt between the two probes is recorded after the event by
 *    ftrace and before it by LTTng: a block of ftrace events all of a
 *    higher LEVEL than the event before them may come before that event
 *    in LTTng (or end the LTTng window, the event itself coming after
 *    "lttng stop"; or, right after the first LTTng event, be missing, as
 *    they came before "lttng start").  Each such block is counted; the
 *    same rule holds inside a block (an interrupt in a softirq).
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define __noreturn		__attribute__((noreturn))
#define __printf(a, b)		__attribute__((format(printf, a, b)))
#define ARRAY_SIZE(a)		(sizeof(a) / sizeof((a)[0]))

typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef uint64_t u64;

/* common_flags bits (include/linux/trace_events.h, enum trace_flag_type). */
#define TRACE_FLAG_HARDIRQ	0x08
#define TRACE_FLAG_SOFTIRQ	0x10
#define TRACE_FLAG_NMI		0x40
/* Flags in the commit word of a page read from trace_pipe_raw. */
#define RB_MISSED_EVENTS	(1ULL << 31)
#define RB_MISSED_STORED	(1ULL << 30)

#define MAX_EVENT_ID		65536

enum kind {
	K_INT,		/* an integer of 1, 2, 4 or 8 bytes */
	K_TEXT,		/* char NAME[N]: a string up to the first NUL */
	K_ARRAY,	/* TYPE NAME[N] of 1, 2, 4 or 8-byte integers */
	K_BYTES,	/* anything else of fixed size: its bytes */
	K_STRING,	/* __data_loc char[] */
	K_SEQ,		/* __data_loc TYPE[] */
};

struct field {
	char *name;
	unsigned int offset, size, elem_size;
	bool is_signed, rel;
	enum kind kind;
};

struct event {
	char *name;
	unsigned int nr_fields;
	struct field *fields;
};

static const char *prog = "trace_diff";

static void __noreturn __printf(1, 2) die(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(2);
}

static void *xmalloc(size_t n)
{
	void *p = calloc(1, n ? n : 1);

	if (!p)
		die("out of memory");
	return p;
}

static void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n);
	if (!p)
		die("out of memory");
	return p;
}

static char *xstrndup(const char *s, size_t n)
{
	char *p = strndup(s, n);

	if (!p)
		die("out of memory");
	return p;
}

/* A growing string. */
struct buf {
	char *s;
	size_t len, cap;
};

static void buf_add(struct buf *b, const char *s, size_t n)
{
	if (b->len + n + 1 > b->cap) {
		b->cap = (b->len + n + 1) * 2;
		b->s = xrealloc(b->s, b->cap);
	}
	memcpy(b->s + b->len, s, n);
	b->len += n;
	b->s[b->len] = '\0';
}

static void buf_puts(struct buf *b, const char *s)
{
	buf_add(b, s, strlen(s));
}

static void __printf(2, 3) buf_printf(struct buf *b, const char *fmt, ...)
{
	char tmp[64];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(tmp, sizeof(tmp), fmt, ap);
	va_end(ap);
	if (n < 0 || n >= (int)sizeof(tmp))
		die("internal: value too long");
	buf_add(b, tmp, n);
}

/* The canonical string: quoted, printable ASCII as is, the rest \xNN. */
static void buf_string(struct buf *b, const unsigned char *s, size_t n)
{
	size_t i;

	buf_puts(b, "\"");
	for (i = 0; i < n; i++) {
		if (s[i] >= 0x20 && s[i] <= 0x7e && s[i] != '\\' && s[i] != '"')
			buf_add(b, (const char *)&s[i], 1);
		else
			buf_printf(b, "\\x%02x", s[i]);
	}
	buf_puts(b, "\"");
}

static char *read_file(const char *path, size_t *len)
{
	struct buf b = { 0 };
	char tmp[4096];
	ssize_t n;
	int fd;

	fd = open(path, O_RDONLY);
	if (fd < 0)
		die("%s: %s", path, strerror(errno));
	while ((n = read(fd, tmp, sizeof(tmp))) > 0)
		buf_add(&b, tmp, n);
	if (n < 0)
		die("%s: %s", path, strerror(errno));
	close(fd);
	if (!b.s)
		buf_add(&b, "", 0);
	if (len)
		*len = b.len;
	return b.s;
}

/* ftrace side: layouts */

/* "offset:N;" and the like after @key in @line, or -1. */
static long key_value(const char *line, const char *key)
{
	const char *p = strstr(line, key);

	return p ? strtol(p + strlen(key), NULL, 10) : -1;
}

/* Bytes of an element type named @type ("unsigned long", "u8"...), or 0. */
static unsigned int elem_size(const char *type)
{
	static const struct {
		const char *name;
		unsigned int size;
	} types[] = {
		{ "char", 1 }, { "unsigned char", 1 }, { "signed char", 1 },
		{ "u8", 1 }, { "s8", 1 }, { "__u8", 1 }, { "__s8", 1 },
		{ "bool", 1 },
		{ "short", 2 }, { "unsigned short", 2 }, { "u16", 2 },
		{ "s16", 2 }, { "__u16", 2 }, { "__s16", 2 },
		{ "int", 4 }, { "unsigned int", 4 }, { "unsigned", 4 },
		{ "u32", 4 }, { "s32", 4 }, { "__u32", 4 }, { "__s32", 4 },
		{ "pid_t", 4 }, { "uid_t", 4 }, { "gid_t", 4 },
		{ "long", 8 }, { "unsigned long", 8 }, { "long long", 8 },
		{ "unsigned long long", 8 }, { "u64", 8 }, { "s64", 8 },
		{ "__u64", 8 }, { "__s64", 8 }, { "size_t", 8 },
		{ "ssize_t", 8 }, { "loff_t", 8 }, { "sector_t", 8 },
	};
	unsigned int i;

	if (!strncmp(type, "const ", 6))
		type += 6;
	if (strchr(type, '*'))
		return sizeof(void *);
	for (i = 0; i < ARRAY_SIZE(types); i++)
		if (!strcmp(types[i].name, type))
			return types[i].size;
	return 0;
}

static bool is_char(const char *type)
{
	return !strcmp(type, "char") || !strcmp(type, "const char");
}

static bool pow2_size(unsigned int n)
{
	return n == 1 || n == 2 || n == 4 || n == 8;
}

/*
 * One "field:TYPE NAME[N];\toffset:O;\tsize:S;\tsigned:G;" line of a
 * format file into @f; false for a line that is no field.
 */
static bool parse_field(const char *ev, const char *line, struct field *f)
{
	const char *decl = line + 7, *end, *sp, *br;
	char type[256], elem[256];
	unsigned int count = 0;
	size_t n;

	if (strncmp(line, "\tfield:", 7))
		return false;
	end = strchr(decl, ';');
	if (!end)
		die("%s: bad field line '%s'", ev, line);
	sp = end;
	while (sp > decl && sp[-1] != ' ')
		sp--;
	if (sp == decl)
		die("%s: bad field line '%s'", ev, line);
	br = memchr(sp, '[', end - sp);
	f->name = xstrndup(sp, (br ? br : end) - sp);
	if (br)
		count = strtoul(br + 1, NULL, 10);
	n = sp - 1 - decl;
	if (n >= sizeof(type))
		die("%s: type too long in '%s'", ev, line);
	memcpy(type, decl, n);
	type[n] = '\0';
	f->offset = key_value(line, "offset:");
	f->size = key_value(line, "size:");
	f->is_signed = key_value(line, "signed:") == 1;

	f->rel = !strncmp(type, "__rel_loc ", 10);
	if (f->rel || !strncmp(type, "__data_loc ", 11)) {
		snprintf(elem, sizeof(elem), "%s", type + (f->rel ? 10 : 11));
		n = strlen(elem);
		if (n >= 2 && !strcmp(elem + n - 2, "[]"))
			elem[n - 2] = '\0';
		if (is_char(elem)) {
			f->kind = K_STRING;
			f->elem_size = 1;
			return true;
		}
		f->kind = K_SEQ;
		f->elem_size = elem_size(elem);
		if (!f->elem_size)
			die("%s: unknown element type '%s' of field %s", ev, elem, f->name);
		return true;
	}
	if (br) {
		if (count && f->size % count == 0 && pow2_size(f->size / count)) {
			f->elem_size = f->size / count;
			f->kind = f->elem_size == 1 && is_char(type) ? K_TEXT : K_ARRAY;
			return true;
		}
	} else if (pow2_size(f->size)) {
		f->kind = K_INT;
		f->elem_size = f->size;
		return true;
	}
	f->kind = K_BYTES;
	f->elem_size = 1;
	f->is_signed = false;
	return true;
}

/* Reads events/SYSTEM/NAME/format into @events[id]. */
static void load_format(struct event **events, const char *path,
			unsigned int *common_type, unsigned int *common_flags)
{
	char *text = read_file(path, NULL), *line, *save = NULL;
	struct event *e = xmalloc(sizeof(*e));
	long id = -1;
	struct field f;

	for (line = strtok_r(text, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		if (!strncmp(line, "name: ", 6)) {
			e->name = xstrndup(line + 6, strlen(line + 6));
			continue;
		}
		if (!strncmp(line, "ID: ", 4)) {
			id = strtol(line + 4, NULL, 10);
			continue;
		}
		memset(&f, 0, sizeof(f));
		if (!parse_field(path, line, &f))
			continue;
		if (!strncmp(f.name, "common_", 7)) {
			if (!strcmp(f.name, "common_type"))
				*common_type = f.offset;
			else if (!strcmp(f.name, "common_flags"))
				*common_flags = f.offset;
			free(f.name);
			continue;
		}
		e->fields = xrealloc(e->fields, (e->nr_fields + 1) * sizeof(f));
		e->fields[e->nr_fields++] = f;
	}
	if (!e->name || id < 0 || id >= MAX_EVENT_ID)
		die("%s: no name or bad ID", path);
	events[id] = e;
	free(text);
}

/* ftrace side: values */

static u64 get_uint(const unsigned char *p, unsigned int size)
{
	u8 v8;
	u16 v16;
	u32 v32;
	u64 v64;

	switch (size) {
	case 1:
		memcpy(&v8, p, 1);
		return v8;
	case 2:
		memcpy(&v16, p, 2);
		return v16;
	case 4:
		memcpy(&v32, p, 4);
		return v32;
	default:
		memcpy(&v64, p, 8);
		return v64;
	}
}

static void buf_int(struct buf *b, const unsigned char *p, unsigned int size,
		    bool is_signed)
{
	u64 v = get_uint(p, size);
	int shift = 64 - 8 * size;

	if (is_signed)
		buf_printf(b, "%lld", (long long)((int64_t)(v << shift) >> shift));
	else
		buf_printf(b, "%llu", (unsigned long long)v);
}

static void buf_ints(struct buf *b, const unsigned char *p, unsigned int n,
		     unsigned int size, bool is_signed)
{
	unsigned int i;

	buf_puts(b, "[");
	for (i = 0; i < n; i++) {
		if (i)
			buf_puts(b, ",");
		buf_int(b, p + i * size, size, is_signed);
	}
	buf_puts(b, "]");
}

static void decode_field(struct buf *b, const char *ev, const struct field *f,
			 const unsigned char *rec, unsigned int len)
{
	unsigned int off, n;
	u32 loc;

	if (f->offset + f->size > len)
		die("%s: field %s beyond the record (%u bytes)", ev, f->name, len);
	buf_printf(b, " %s=", f->name);
	switch (f->kind) {
	case K_INT:
		buf_int(b, rec + f->offset, f->size, f->is_signed);
		return;
	case K_TEXT:
		buf_string(b, rec + f->offset, strnlen((const char *)rec + f->offset, f->size));
		return;
	case K_ARRAY:
		buf_ints(b, rec + f->offset, f->size / f->elem_size, f->elem_size, f->is_signed);
		return;
	case K_BYTES:
		buf_ints(b, rec + f->offset, f->size, 1, false);
		return;
	case K_STRING:
	case K_SEQ:
		break;
	}
	memcpy(&loc, rec + f->offset, sizeof(loc));
	off = (loc & 0xffff) + (f->rel ? f->offset + f->size : 0);
	n = loc >> 16;
	if (off > len || n > len - off)
		die("%s: field %s [%u, +%u) beyond the record (%u bytes)",
		    ev, f->name, off, n, len);
	if (f->kind == K_STRING)
		buf_string(b, rec + off, strnlen((const char *)rec + off, n));
	else
		buf_ints(b, rec + off, n / f->elem_size, f->elem_size, f->is_signed);
}

/* The layout of a trace_pipe_raw page and of its records. */
struct rb_layout {
	unsigned int commit_offset, commit_size, data_offset;
	unsigned int padding, time_extend, time_stamp, max_data;
	unsigned int common_type, common_flags;
};

static void read_layout(const char *tracefs, struct rb_layout *l)
{
	char path[4096], *text, *line, *save = NULL, *p;

	snprintf(path, sizeof(path), "%s/events/header_page", tracefs);
	text = read_file(path, NULL);
	l->commit_offset = ~0U;
	l->data_offset = ~0U;
	for (line = strtok_r(text, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		if (strstr(line, " commit;")) {
			l->commit_offset = key_value(line, "offset:");
			l->commit_size = key_value(line, "size:");
		} else if (strstr(line, " data;")) {
			l->data_offset = key_value(line, "offset:");
		}
	}
	free(text);
	if (l->commit_offset == ~0U || l->data_offset == ~0U ||
	    (l->commit_size != 4 && l->commit_size != 8))
		die("%s: no commit or data field", path);

	snprintf(path, sizeof(path), "%s/events/header_event", tracefs);
	text = read_file(path, NULL);
	if (!strstr(text, "type_len    :    5 bits") ||
	    !strstr(text, "time_delta  :   27 bits"))
		die("%s: not a 5-bit type_len, 27-bit time_delta header", path);
	p = strstr(text, "padding     : type ==");
	l->padding = p ? strtoul(p + 21, NULL, 10) : 0;
	p = strstr(text, "time_extend : type ==");
	l->time_extend = p ? strtoul(p + 21, NULL, 10) : 0;
	p = strstr(text, "time_stamp : type ==");
	l->time_stamp = p ? strtoul(p + 20, NULL, 10) : 0;
	p = strstr(text, "data max type_len  ==");
	l->max_data = p ? strtoul(p + 21, NULL, 10) : 0;
	free(text);
	if (!l->padding || !l->time_extend || !l->time_stamp || !l->max_data)
		die("%s: record types not found", path);
}

static unsigned int level_of(unsigned int flags)
{
	if (flags & TRACE_FLAG_NMI)
		return 3;
	if (flags & TRACE_FLAG_HARDIRQ)
		return 2;
	if (flags & TRACE_FLAG_SOFTIRQ)
		return 1;
	return 0;
}

/* lttng_modules.map (LTTNG_MODULES_MAP): how LTTng's events differ. */
struct map_op {
	char op;		/* '>' renamed, 'p' prio, 'r' rwbs, '-' not
				 * recorded, '+' added */
	char *kfield;		/* the kernel's name ('>', '-') */
	char *field;		/* LTTng's name */
};

struct map_ev {
	char *kname, *name;
	unsigned int nr;
	struct map_op *ops;
};

static struct map_ev *map;
static size_t nr_map;

static void load_map(void)
{
	const char *path = getenv("LTTNG_MODULES_MAP");
	char *text, *line, *next, *w, *save, *colon, *gt;
	struct map_ev *m;
	struct map_op *o;

	if (!path || !*path)
		return;
	text = read_file(path, NULL);
	for (line = text; *line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		else
			next = line + strlen(line);
		if (*line == '#' || !*line)
			continue;
		w = strtok_r(line, " \t", &save);
		colon = w ? strchr(w, ':') : NULL;
		if (!colon)
			die("%s: bad line '%s'", path, line);
		map = xrealloc(map, (nr_map + 1) * sizeof(*map));
		m = &map[nr_map++];
		memset(m, 0, sizeof(*m));
		m->kname = xstrndup(colon + 1, strlen(colon + 1));
		w = strtok_r(NULL, " \t", &save);
		if (!w)
			die("%s: no LTTng name for %s", path, m->kname);
		m->name = xstrndup(w, strlen(w));
		while ((w = strtok_r(NULL, " \t", &save))) {
			m->ops = xrealloc(m->ops, (m->nr + 1) * sizeof(*m->ops));
			o = &m->ops[m->nr++];
			memset(o, 0, sizeof(*o));
			gt = strchr(w, '>');
			if (gt) {
				o->op = '>';
				o->kfield = xstrndup(w, gt - w);
				o->field = xstrndup(gt + 1, strlen(gt + 1));
			} else if (*w == '-' || *w == '+') {
				o->op = *w;
				o->kfield = xstrndup(w + 1, strlen(w + 1));
				o->field = xstrndup(w + 1, strlen(w + 1));
			} else if (!strncmp(w, "prio:", 5) || !strncmp(w, "rwbs:", 5)) {
				o->op = *w == 'p' ? 'p' : 'r';
				o->field = xstrndup(w + 5, strlen(w + 5));
				o->kfield = xstrndup(w + 5, strlen(w + 5));
			} else {
				die("%s: %s: bad field op '%s'", path, m->kname, w);
			}
		}
	}
}

static const struct map_ev *map_find(const char *name, size_t len, bool lttng)
{
	const char *n;
	size_t i;

	for (i = 0; i < nr_map; i++) {
		n = lttng ? map[i].name : map[i].kname;
		if (strlen(n) == len && !strncmp(n, name, len))
			return &map[i];
	}
	return NULL;
}

/* The op of @m on the field LTTng (@lttng) or the kernel calls @field. */
static const struct map_op *map_op(const struct map_ev *m, const char *field,
				   bool lttng)
{
	unsigned int i;

	for (i = 0; m && i < m->nr; i++)
		if (!strcmp(lttng ? m->ops[i].field : m->ops[i].kfield, field))
			return &m->ops[i];
	return NULL;
}

/* lttng-modules' rwbs bit mask as blk_fill_rwbs() writes the text. */
static void rwbs_text(struct buf *out, unsigned long m)
{
	char s[12];
	int i = 0;

	if (m & 1024)
		s[i++] = 'F';			/* preflush */
	if (m & 1) {
		s[i++] = 'W';
	} else if (m & 2) {
		s[i++] = 'D';
		if (m & 128)
			s[i++] = 'E';
	} else if (m & 256) {
		s[i++] = 'F';
	} else if (m & 4) {
		s[i++] = 'R';
	} else {
		s[i++] = 'N';
	}
	if (m & 512)
		s[i++] = 'F';			/* FUA */
	if (m & 8)
		s[i++] = 'A';
	if (m & 32)
		s[i++] = 'S';
	if (m & 64)
		s[i++] = 'M';
	s[i] = '\0';
	buf_printf(out, "\"%s\"", s);
}

static void print_event(struct event **events, const struct rb_layout *l,
			const unsigned char *rec, unsigned int len)
{
	static struct buf b;
	const struct event *e;
	const struct map_ev *m;
	const struct map_op *o;
	unsigned int id, i;

	if (len < l->common_flags + 1 || len < l->common_type + 2)
		die("a record of %u bytes", len);
	id = get_uint(rec + l->common_type, 2);
	e = events[id];
	if (!e)
		die("an event of id %u, of none of the systems given", id);
	b.len = 0;
	m = map_find(e->name, strlen(e->name), false);
	buf_printf(&b, "%u %s", level_of(rec[l->common_flags]), e->name);
	for (i = 0; i < e->nr_fields; i++) {
		o = map_op(m, e->fields[i].name, false);
		if (!o || o->op != '-')
			decode_field(&b, e->name, &e->fields[i], rec, len);
	}
	puts(b.s);
}

/* The records of one page: returns the number of events. */
static unsigned long decode_page(struct event **events, const struct rb_layout *l,
				 const unsigned char *page, size_t page_len)
{
	const unsigned char *data = page + l->data_offset;
	unsigned long nr = 0;
	u64 commit;
	size_t pos = 0, size, dlen;
	u32 hdr, type_len, delta, arr;

	commit = get_uint(page + l->commit_offset, l->commit_size);
	if (commit & RB_MISSED_EVENTS)
		die("a page with lost events (commit word %#llx)", (unsigned long long)commit);
	size = commit & ~(RB_MISSED_EVENTS | RB_MISSED_STORED);
	if (l->data_offset + size > page_len)
		die("a page of %zu bytes commits %zu", page_len, size);
	while (pos + 4 <= size) {
		hdr = get_uint(data + pos, 4);
		type_len = hdr & 0x1f;
		delta = hdr >> 5;
		arr = pos + 8 <= size ? get_uint(data + pos + 4, 4) : 0;
		if (type_len == l->padding) {
			/* The rest of the page, or a discarded record. */
			if (!delta)
				break;
			pos += 4 + arr;
			continue;
		}
		if (type_len == l->time_extend || type_len == l->time_stamp) {
			pos += 8;
			continue;
		}
		if (type_len > l->max_data)
			die("a record of type %u", type_len);
		if (type_len) {
			dlen = type_len * 4;
			if (pos + 4 + dlen > size)
				die("a record past the commit");
			print_event(events, l, data + pos + 4, dlen);
			pos += 4 + dlen;
		} else {
			/* array[0]: the length, its own 4 bytes included. */
			if (arr < 4 || pos + 4 + arr > size)
				die("a long record of %u bytes past the commit", arr);
			print_event(events, l, data + pos + 8, arr - 4);
			pos += 4 + arr;
		}
		nr++;
	}
	return nr;
}

static int cmd_ftrace(int argc, char **argv)
{
	const char *tracefs = argv[0], *cpu = argv[1];
	struct event **events = xmalloc(MAX_EVENT_ID * sizeof(*events));
	struct rb_layout l = { 0 };
	unsigned long pages = 0, nr = 0;
	char path[4096], *list, *name, *save = NULL;
	long page_size = sysconf(_SC_PAGESIZE);
	unsigned char *page = xmalloc(page_size);
	ssize_t n;
	int i, fd;

	read_layout(tracefs, &l);
	l.common_type = ~0U;
	l.common_flags = ~0U;
	/* "SYSTEM:NAME" lines: the events of the systems given. */
	snprintf(path, sizeof(path), "%s/available_events", tracefs);
	list = read_file(path, NULL);
	for (name = strtok_r(list, "\n", &save); name;
	     name = strtok_r(NULL, "\n", &save)) {
		for (i = 2; i < argc; i++) {
			size_t sl = strlen(argv[i]);

			if (strncmp(name, argv[i], sl) || name[sl] != ':')
				continue;
			snprintf(path, sizeof(path), "%s/events/%s/%s/format",
				 tracefs, argv[i], name + sl + 1);
			load_format(events, path, &l.common_type, &l.common_flags);
		}
	}
	free(list);
	if (l.common_type == ~0U || l.common_flags == ~0U)
		die("no event format read");

	snprintf(path, sizeof(path), "%s/per_cpu/cpu%s/trace_pipe_raw", tracefs, cpu);
	fd = open(path, O_RDONLY | O_NONBLOCK);
	if (fd < 0)
		die("%s: %s", path, strerror(errno));
	while ((n = read(fd, page, page_size)) > 0) {
		pages++;
		nr += decode_page(events, &l, page, n);
	}
	if (n < 0 && errno != EAGAIN)
		die("%s: %s", path, strerror(errno));
	close(fd);
	fprintf(stderr, "%s: cpu%s: %lu pages, %lu events\n", prog, cpu, pages, nr);
	return 0;
}

/* babeltrace2 side */

struct parser {
	const char *p;
	unsigned long line;
};

static void __noreturn parse_error(const struct parser *ps, const char *what)
{
	die("babeltrace2 line %lu: %s at '%.40s'", ps->line, what, ps->p);
}

static void expect(struct parser *ps, const char *s)
{
	size_t n = strlen(s);

	if (strncmp(ps->p, s, n))
		parse_error(ps, s);
	ps->p += n;
}

/* The byte an escape of babeltrace2's print_escape_string() stands for. */
static int unescape(char c)
{
	switch (c) {
	case '\\': case '\'': case '"': case '?':
		return c;
	case '0':
		return '\0';
	case 'a':
		return '\a';
	case 'b':
		return '\b';
	case 'e':
		return 0x1b;
	case 'f':
		return '\f';
	case 'n':
		return '\n';
	case 'r':
		return '\r';
	case 't':
		return '\t';
	case 'v':
		return '\v';
	default:
		return -1;
	}
}

/* A string as babeltrace2 prints it, in canonical form. */
static void parse_string(struct parser *ps, struct buf *out)
{
	struct buf raw = { 0 };
	char c, hex[3] = { 0 };
	int u;

	expect(ps, "\"");
	buf_add(&raw, "", 0);
	while (*ps->p != '"') {
		if (!*ps->p)
			parse_error(ps, "unterminated string");
		if (*ps->p != '\\') {
			buf_add(&raw, ps->p++, 1);
			continue;
		}
		ps->p++;
		if (*ps->p == 'x' && isxdigit(ps->p[1]) && isxdigit(ps->p[2])) {
			memcpy(hex, ps->p + 1, 2);
			c = strtoul(hex, NULL, 16);
			buf_add(&raw, &c, 1);
			ps->p += 3;
			continue;
		}
		u = unescape(*ps->p);
		if (u < 0)
			parse_error(ps, "unknown escape");
		c = u;
		buf_add(&raw, &c, 1);
		ps->p++;
	}
	ps->p++;
	buf_string(out, (const unsigned char *)raw.s, raw.len);
	free(raw.s);
}

static void parse_number(struct parser *ps, struct buf *out)
{
	const char *start = ps->p;
	unsigned long long u;
	char *end;

	errno = 0;
	if (!strncmp(ps->p, "0x", 2)) {
		u = strtoull(ps->p + 2, &end, 16);
		if (end == ps->p + 2 || errno)
			parse_error(ps, "a hexadecimal integer");
		buf_printf(out, "%llu", u);
	} else {
		if (*ps->p == '-')
			ps->p++;
		if (!isdigit(*ps->p))
			parse_error(ps, "a value");
		strtoull(ps->p, &end, 10);
		if (errno)
			parse_error(ps, "an integer");
		buf_add(out, start, end - start);
	}
	ps->p = end;
}

static unsigned long parse_value(struct parser *ps, struct buf *out);

/* "[ [0] = V, [1] = V ]" or "[ ]": returns the number of elements. */
static unsigned long parse_array(struct parser *ps, struct buf *out)
{
	unsigned long n = 0;
	char idx[32];

	expect(ps, "[");
	buf_puts(out, "[");
	if (!strncmp(ps->p, " ]", 2)) {
		ps->p += 2;
		buf_puts(out, "]");
		return 0;
	}
	for (;;) {
		snprintf(idx, sizeof(idx), "%s[%lu] = ", n ? ", " : " ", n);
		expect(ps, idx);
		if (n)
			buf_puts(out, ",");
		parse_value(ps, out);
		n++;
		if (!strncmp(ps->p, " ]", 2))
			break;
	}
	ps->p += 2;
	buf_puts(out, "]");
	return n;
}

struct member {
	char *name;
	struct buf value;
	unsigned long nr;	/* elements of an array */
	bool is_array;
};

/* "{ NAME = V, NAME = V }" or "{ }" into @m (@nr entries). */
static struct member *parse_struct(struct parser *ps, unsigned int *nr)
{
	struct member *m = NULL;
	const char *eq;
	unsigned int n = 0;

	expect(ps, "{");
	while (strncmp(ps->p, " }", 2)) {
		expect(ps, n ? ", " : " ");
		eq = strstr(ps->p, " = ");
		if (!eq)
			parse_error(ps, "a member");
		m = xrealloc(m, (n + 1) * sizeof(*m));
		memset(&m[n], 0, sizeof(*m));
		m[n].name = xstrndup(ps->p, eq - ps->p);
		ps->p = eq + 3;
		m[n].is_array = *ps->p == '[';
		buf_add(&m[n].value, "", 0);
		m[n].nr = parse_value(ps, &m[n].value);
		n++;
	}
	ps->p += 2;
	*nr = n;
	return m;
}

static void free_members(struct member *m, unsigned int nr)
{
	unsigned int i;

	for (i = 0; i < nr; i++) {
		free(m[i].name);
		free(m[i].value.s);
	}
	free(m);
}

static unsigned long parse_value(struct parser *ps, struct buf *out)
{
	struct member *m;
	unsigned int nr, i;

	switch (*ps->p) {
	case '"':
		parse_string(ps, out);
		return 0;
	case '[':
		return parse_array(ps, out);
	case '{':
		m = parse_struct(ps, &nr);
		buf_puts(out, "{");
		for (i = 0; i < nr; i++) {
			buf_puts(out, i ? " " : "");
			buf_puts(out, m[i].name);
			buf_puts(out, "=");
			buf_puts(out, m[i].value.s);
		}
		buf_puts(out, "}");
		free_members(m, nr);
		return 0;
	default:
		parse_number(ps, out);
		return 0;
	}
}

/* Is m[i] the "_X_length" CTF puts before the sequence X at m[i + 1]? */
static bool is_seq_length(const struct member *m, unsigned int i, unsigned int nr)
{
	size_t n = strlen(m[i].name);

	return i + 1 < nr && m[i + 1].is_array && n > 8 && m[i].name[0] == '_' &&
	       !strcmp(m[i].name + n - 7, "_length") &&
	       strlen(m[i + 1].name) == n - 8 &&
	       !strncmp(m[i].name + 1, m[i + 1].name, n - 8);
}

static void ctf_line(struct parser *ps, struct buf *out)
{
	struct member *ctx = NULL, *pl = NULL;
	unsigned int nr_ctx = 0, nr_pl = 0, i;
	const struct map_ev *m;
	const struct map_op *o;
	const char *colon, *name;
	long cpu = -1;

	/* "[TIME] (+DELTA) HOST NAME: { cpu_id = N }, { PAYLOAD }" */
	colon = strstr(ps->p, ": {");
	if (ps->p[0] != '[' || !colon)
		parse_error(ps, "an event line");
	for (name = colon; name > ps->p && name[-1] != ' '; name--)
		;
	ps->p = colon + 2;
	ctx = parse_struct(ps, &nr_ctx);
	for (i = 0; i < nr_ctx; i++)
		if (!strcmp(ctx[i].name, "cpu_id"))
			cpu = strtol(ctx[i].value.s, NULL, 10);
	if (cpu < 0)
		parse_error(ps, "no cpu_id in the packet context");
	if (!strncmp(ps->p, ", {", 3)) {
		ps->p += 2;
		pl = parse_struct(ps, &nr_pl);
	}
	if (*ps->p)
		parse_error(ps, "more than a packet context and a payload");
	out->len = 0;
	buf_printf(out, "%ld ", cpu);
	m = map_find(name, colon - name, true);
	if (m)
		buf_puts(out, m->kname);
	else
		buf_add(out, name, colon - name);
	for (i = 0; i < nr_pl; i++) {
		if (is_seq_length(pl, i, nr_pl)) {
			if (strtoul(pl[i].value.s, NULL, 10) != pl[i + 1].nr)
				parse_error(ps, "a sequence length that is not its length");
			continue;
		}
		o = map_op(m, pl[i].name, true);
		if (o && o->op == '+')
			continue;
		buf_printf(out, " %s=", o ? o->kfield : pl[i].name);
		if (o && o->op == 'p')
			buf_printf(out, "%ld", strtol(pl[i].value.s, NULL, 10) + 100);
		else if (o && o->op == 'r')
			rwbs_text(out, strtoul(pl[i].value.s, NULL, 10));
		else
			buf_puts(out, pl[i].value.s);
	}
	free_members(ctx, nr_ctx);
	free_members(pl, nr_pl);
}

static int cmd_ctf(void)
{
	struct parser ps = { 0 };
	struct buf out = { 0 };
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;

	while ((n = getline(&line, &cap, stdin)) > 0) {
		if (line[n - 1] == '\n')
			line[n - 1] = '\0';
		ps.line++;
		ps.p = line;
		ctf_line(&ps, &out);
		puts(out.s);
	}
	free(line);
	free(out.s);
	return 0;
}

/* match */

struct rec {
	const char *text;	/* "NAME FIELD=VALUE ..." */
	unsigned int level;
	unsigned long line;	/* in its file */
};

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char * const *)a, *(char * const *)b);
}

/* Lines of @path whose second word (the name) is in @names. */
static struct rec *read_recs(const char *path, char **names, size_t nr_names,
			     long cpu, size_t *nr)
{
	char *text = read_file(path, NULL), *line, *next, *sp, *key;
	struct rec *r = NULL;
	unsigned long ln = 0;
	size_t n = 0;
	long first;

	for (line = text; *line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		else
			next = line + strlen(line);
		ln++;
		first = strtol(line, &sp, 10);
		if (*sp != ' ')
			die("%s:%lu: no level or CPU", path, ln);
		sp++;
		key = xstrndup(sp, strcspn(sp, " "));
		if (!bsearch(&key, names, nr_names, sizeof(*names), cmp_names) ||
		    (cpu >= 0 && first != cpu)) {
			free(key);
			continue;
		}
		free(key);
		r = xrealloc(r, (n + 1) * sizeof(*r));
		r[n].text = sp;
		r[n].level = cpu >= 0 ? 0 : first;
		r[n].line = ln;
		n++;
	}
	*nr = n;
	return r;
}

struct match {
	size_t start, f_end, l_end;	/* how far it went */
	unsigned long reordered, resampled;
	bool ok;
};

/*
 * Fields that each probe reads for itself in TP_fast_assign(), from state
 * another CPU (or an interrupt) can change between the two probes of one
 * tracepoint hit: jiffies, a module's reference count, the exit state in
 * the prev_state of an exiting task's last sched_switch (its parent,
 * reaping it on another CPU, turns EXIT_ZOMBIE, reported as 32, into
 * EXIT_DEAD, 16).  LTTng's value may be off ftrace's by MIN..MAX;
 * everything else must be the same.
 */
static const struct {
	const char *event, *field;
	long long min, max;
} resampled[] = {
	/*
	 * jiffies: a tick between the probes, which catches up on every
	 * tick it missed when the emulator stalled (a loaded host).
	 */
	{ "timer_start", " now=", 0, 25 },
	{ "timer_expire_entry", " now=", 0, 25 },
	{ "module_get", " refcnt=", -2, 2 },
	{ "module_put", " refcnt=", -2, 2 },
	{ "sched_switch", " prev_state=", -16, -16 },
};

/* Is @l the event @f, but for one resampled field?  Counts it in @m. */
static bool same_resampled(const char *f, const char *l, struct match *m)
{
	const char *pf, *pl;
	char *ef, *el;
	long long vf, vl;
	size_t i, n;

	for (i = 0; i < ARRAY_SIZE(resampled); i++) {
		n = strlen(resampled[i].event);
		if (strncmp(f, resampled[i].event, n) || f[n] != ' ')
			continue;
		pf = strstr(f, resampled[i].field);
		pl = strstr(l, resampled[i].field);
		if (!pf || !pl || pf - f != pl - l || strncmp(f, l, pf - f))
			return false;
		n = strlen(resampled[i].field);
		vf = strtoll(pf + n, &ef, 10);
		vl = strtoll(pl + n, &el, 10);
		if (strcmp(ef, el) || vl - vf < resampled[i].min ||
		    vl - vf > resampled[i].max)
			return false;
		m->resampled++;
		return true;
	}
	return false;
}

/*
 * Fields an event's TP_fast_assign() does not set on every path:
 * fib_table_lookup's gateways when the next hop has none (neither
 * address family), in 6.1.
 */
static const struct {
	const char *event, *field;
} unset[] = {
	{ "fib_table_lookup", " gw4=" },
	{ "fib_table_lookup", " gw6=" },
};

/* @text without the values of its unset[] fields, in @buf. */
static const char *mask_unset(const char *text, char *buf, size_t len)
{
	const char *p, *v;
	size_t i, n, out = 0;

	for (i = 0; i < ARRAY_SIZE(unset); i++) {
		n = strlen(unset[i].event);
		if (!strncmp(text, unset[i].event, n) && text[n] == ' ')
			break;
	}
	if (i == ARRAY_SIZE(unset) || strlen(text) >= len)
		return text;
	for (p = text; *p; ) {
		for (i = 0; i < ARRAY_SIZE(unset); i++) {
			n = strlen(unset[i].field);
			if (!strncmp(text, unset[i].event, strlen(unset[i].event)) &&
			    !strncmp(p, unset[i].field, n))
				break;
		}
		if (i < ARRAY_SIZE(unset)) {
			/* The name stays, its value (no space in it) goes. */
			memcpy(buf + out, p, n);
			out += n;
			v = p + n;
			while (*v && *v != ' ')
				v++;
			p = v;
			continue;
		}
		buf[out++] = *p++;
	}
	buf[out] = '\0';
	return buf;
}

static bool same(const struct rec *f, const struct rec *l, struct match *m)
{
	static char bf[4096], bl[4096];

	if (!strcmp(f->text, l->text) || same_resampled(f->text, l->text, m))
		return true;
	return !strcmp(mask_unset(f->text, bf, sizeof(bf)),
		       mask_unset(l->text, bl, sizeof(bl)));
}

/*
 * At a difference between f[*i] and l[*j]: the nested block of the top of
 * the file, f[*i + 1 .. *i + k] of a higher level than f[*i], recorded by
 * LTTng before f[*i] (or f[*i] not at all, at the end of the window; or,
 * at its start, the block not at all).  Steps over it, or returns false.
 * The block is compared with the same rule, one level up: a softirq runs
 * with interrupts on, so an interrupt can come between the two probes of
 * an event of the block too (seen on the debug kernel, whose slow softirqs
 * take many timer interrupts).
 */
static bool nested_block(const struct rec *f, size_t nf, const struct rec *l,
			 size_t nl, size_t *i, size_t *j, struct match *m)
{
	size_t fi = *i + 1, lj = *j;
	unsigned long inner = 0;

	while (fi < nf && f[fi].level > f[*i].level && lj < nl) {
		if (same(&f[fi], &l[lj], m)) {
			fi++;
			lj++;
		} else if (nested_block(f, nf, l, nl, &fi, &lj, m)) {
			inner++;
		} else {
			break;
		}
		if (lj == nl || same(&f[*i], &l[lj], m)) {
			*i = fi;
			*j = lj == nl ? nl : lj + 1;
			m->reordered += inner;
			return true;
		}
	}
	return false;
}

/*
 * At the start of the window, LTTng may miss the interrupts ftrace saw
 * between the two probes of its first event: f[*i .. *i + k - 1] of a
 * higher level than f[*i - 1] = l[0], then f[*i + k] = l[1].
 */
static bool window_start(const struct rec *f, size_t nf, const struct rec *l,
			 size_t nl, size_t *i, size_t j, struct match *m)
{
	size_t k;

	if (j != 1 || nl < 2)
		return false;
	for (k = 0; *i + k < nf && f[*i + k].level > f[*i - 1].level; k++)
		;
	if (!k || *i + k >= nf || !same(&f[*i + k], &l[1], m))
		return false;
	*i += k;
	return true;
}

/* Compares @l with @f from @start, accepting the reorderings above. */
static void align(const struct rec *f, size_t nf, const struct rec *l, size_t nl,
		  size_t start, struct match *m)
{
	size_t i = start, j = 0;

	m->start = start;
	m->reordered = 0;
	m->resampled = 0;
	while (j < nl) {
		if (i < nf && same(&f[i], &l[j], m)) {
			i++;
			j++;
			continue;
		}
		if (i >= nf)
			break;
		if (!nested_block(f, nf, l, nl, &i, &j, m) &&
		    !window_start(f, nf, l, nl, &i, j, m))
			break;
		m->reordered++;
	}
	m->f_end = i;
	m->l_end = j;
	m->ok = j == nl;
}

static void show(const char *what, const struct rec *r, size_t n, size_t at)
{
	size_t i;

	for (i = at >= 2 ? at - 2 : 0; i < n && i < at + 4; i++)
		printf("# %s%s line %lu: %s\n", i == at ? "> " : "  ", what,
		       r[i].line, r[i].text);
	if (at >= n)
		printf("# > %s: (end)\n", what);
}

static size_t name_index(char **names, size_t nr_names, const char *text)
{
	char *key = xstrndup(text, strcspn(text, " "));
	char **p = bsearch(&key, names, nr_names, sizeof(*names), cmp_names);

	free(key);
	return p - names;
}

/*
 * The events LTTng has more of than ftrace, whose window is the larger
 * one: recorded twice, or invented.
 */
static void more_than_ftrace(char **names, size_t nr_names,
			     const struct rec *f, size_t nf,
			     const struct rec *l, size_t nl)
{
	size_t *nr = xmalloc(2 * nr_names * sizeof(*nr)), i;

	for (i = 0; i < nf; i++)
		nr[name_index(names, nr_names, f[i].text)]++;
	for (i = 0; i < nl; i++)
		nr[nr_names + name_index(names, nr_names, l[i].text)]++;
	for (i = 0; i < nr_names; i++)
		if (nr[nr_names + i] > nr[i])
			printf("# %s: %zu in LTTng's window, %zu in ftrace's larger one\n",
			       names[i], nr[nr_names + i], nr[i]);
	free(nr);
}

static int cmd_match(char **argv)
{
	char *text = read_file(argv[3], NULL), **names = NULL, *p;
	struct match best = { 0 }, m;
	size_t nr_names = 0, nf, nl, s;
	struct rec *f, *l;
	long cpu = strtol(argv[2], NULL, 10);

	for (p = strtok(text, "\n"); p; p = strtok(NULL, "\n")) {
		names = xrealloc(names, (nr_names + 1) * sizeof(*names));
		names[nr_names++] = p;
	}
	qsort(names, nr_names, sizeof(*names), cmp_names);
	f = read_recs(argv[0], names, nr_names, -1, &nf);
	l = read_recs(argv[1], names, nr_names, cpu, &nl);
	if (!nl) {
		printf("compared=0 reordered=0 ftrace=%zu\n", nf);
		return 0;
	}
	for (s = 0; s < nf; s++) {
		align(f, nf, l, nl, s, &m);
		if (m.ok) {
			printf("compared=%zu reordered=%lu resampled=%lu ftrace=%zu window=%zu-%zu\n",
			       nl, m.reordered, m.resampled, nf, s, m.f_end);
			return 0;
		}
		if (m.l_end > best.l_end || !s)
			best = m;
	}
	printf("# cpu %ld: the %zu LTTng events are no run of the %zu ftrace events;\n"
	       "# the longest match: %zu LTTng events from ftrace event %zu:\n",
	       cpu, nl, nf, best.l_end, best.start);
	show("ftrace", f, nf, best.f_end);
	show("lttng ", l, nl, best.l_end);
	more_than_ftrace(names, nr_names, f, nf, l, nl);
	return 1;
}

int main(int argc, char **argv)
{
	load_map();
	if (argc >= 5 && !strcmp(argv[1], "ftrace"))
		return cmd_ftrace(argc - 2, argv + 2);
	if (argc == 2 && !strcmp(argv[1], "ctf"))
		return cmd_ctf();
	if (argc == 6 && !strcmp(argv[1], "match"))
		return cmd_match(argv + 2);
	fprintf(stderr, "usage: %s ftrace TRACEFS CPU SYSTEM... | ctf |\n"
		"       match FTRACE LTTNG CPU NAMES\n", prog);
	return 2;
}
