// SPDX-License-Identifier: GPL-2.0
/*
 * insn_marks.c - QEMU TCG plugin: deterministic instruction counts between
 * guest markers.
 *
 * The guest brackets the code to measure with two magic multi-byte NOPs
 * (tests/guest/insn_marks.h):
 *
 *	nopl 0x4c540001(%rax)	0f 1f 80 01 00 54 4c	START
 *	nopl 0x4c540002(%rax)	0f 1f 80 02 00 54 4c	STOP
 *
 * Every vCPU counts the guest instructions it executes (kernel and user).
 * Between START and STOP on one vCPU it also counts the instructions per
 * translation block start address.  At STOP it appends to the report:
 *
 *	mark <seq> vcpu <n> insns <instructions from START to STOP>
 *	  <tb vaddr, 16 hex digits> <instructions>	(top K, largest first)
 *
 * The window holds the START marker and excludes the STOP marker, to the
 * instruction (markers are located inside their block).  A START while a
 * window is open restarts it; a STOP without START is ignored (counted in
 * the exit summary).  At exit one line per vCPU: "vcpu <n> total <insns>".
 *
 * Arguments (-plugin insn_marks.so,outfile=PATH,topk=N):
 *	outfile=PATH	report file (default: the QEMU log, -d plugin)
 *	topk=N		blocks listed per mark (default 40, 0 for none)
 *
 * Built against the QEMU 7.2 plugin API (version 1), declared below since
 * distributions do not ship qemu-plugin.h.
 */
#include <inttypes.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- The QEMU 7.2 plugin ABI (include/qemu/qemu-plugin.h, version 1) ---- */

#define QEMU_PLUGIN_EXPORT __attribute__((visibility("default")))
#define QEMU_PLUGIN_VERSION 1

typedef uint64_t qemu_plugin_id_t;

typedef struct qemu_info_t {
	const char *target_name;
	struct {
		int min;
		int cur;
	} version;
	bool system_emulation;
	union {
		struct {
			int smp_vcpus;
			int max_vcpus;
		} system;
	};
} qemu_info_t;

struct qemu_plugin_tb;
struct qemu_plugin_insn;

enum qemu_plugin_cb_flags {
	QEMU_PLUGIN_CB_NO_REGS,
	QEMU_PLUGIN_CB_R_REGS,
	QEMU_PLUGIN_CB_RW_REGS,
};

typedef void (*qemu_plugin_udata_cb_t)(qemu_plugin_id_t id, void *userdata);
typedef void (*qemu_plugin_vcpu_udata_cb_t)(unsigned int vcpu_index,
					    void *userdata);
typedef void (*qemu_plugin_vcpu_tb_trans_cb_t)(qemu_plugin_id_t id,
					       struct qemu_plugin_tb *tb);

void qemu_plugin_register_vcpu_tb_trans_cb(qemu_plugin_id_t id,
					   qemu_plugin_vcpu_tb_trans_cb_t cb);
void qemu_plugin_register_vcpu_tb_exec_cb(struct qemu_plugin_tb *tb,
					  qemu_plugin_vcpu_udata_cb_t cb,
					  enum qemu_plugin_cb_flags flags,
					  void *userdata);
void qemu_plugin_register_vcpu_insn_exec_cb(struct qemu_plugin_insn *insn,
					    qemu_plugin_vcpu_udata_cb_t cb,
					    enum qemu_plugin_cb_flags flags,
					    void *userdata);
void qemu_plugin_register_atexit_cb(qemu_plugin_id_t id,
				    qemu_plugin_udata_cb_t cb, void *userdata);
size_t qemu_plugin_tb_n_insns(const struct qemu_plugin_tb *tb);
uint64_t qemu_plugin_tb_vaddr(const struct qemu_plugin_tb *tb);
struct qemu_plugin_insn *qemu_plugin_tb_get_insn(const struct qemu_plugin_tb *tb,
						 size_t idx);
const void *qemu_plugin_insn_data(const struct qemu_plugin_insn *insn);
size_t qemu_plugin_insn_size(const struct qemu_plugin_insn *insn);
uint64_t qemu_plugin_insn_vaddr(const struct qemu_plugin_insn *insn);
void qemu_plugin_outs(const char *string);

QEMU_PLUGIN_EXPORT int qemu_plugin_version = QEMU_PLUGIN_VERSION;

/* ---- The plugin ---- */

#define MARK_LEN	7
#define MARK_START	0x4c540001u
#define MARK_STOP	0x4c540002u

/* One per distinct (start address, length) of a translated block. */
struct tb_desc {
	uint64_t vaddr;
	uint64_t n;
};

/* One per marker instruction in a translated block. */
struct mark_site {
	struct mark_site *next;
	const struct tb_desc *tb;
	uint64_t idx;		/* the marker's index in its block */
	bool start;
};

/* Open addressing, vaddr -> count; EMPTY marks a free slot. */
#define EMPTY UINT64_MAX
struct hist {
	uint64_t *key;
	uint64_t *val;
	size_t cap;		/* a power of two */
	size_t used;
};

/* Touched only by the thread running that vCPU (and at exit). */
struct vcpu {
	uint64_t total;
	uint64_t win_start;
	uint64_t stray_stops;
	uint64_t restarts;
	bool active;
	struct hist hist;
} __attribute__((aligned(64)));

static struct vcpu *vcpus;
static unsigned int nr_vcpus;
static unsigned int topk = 40;
static FILE *out;
static uint64_t seq;
static pthread_mutex_t out_lock = PTHREAD_MUTEX_INITIALIZER;

static pthread_mutex_t desc_lock = PTHREAD_MUTEX_INITIALIZER;
static struct tb_desc **descs;	/* interned, open addressing */
static size_t descs_cap, descs_used;
static struct mark_site *sites;

static void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n, size);

	if (!p) {
		qemu_plugin_outs("insn_marks: out of memory\n");
		abort();
	}
	return p;
}

static inline size_t hash64(uint64_t v, size_t cap)
{
	return (size_t)((v * 0x9e3779b97f4a7c15ull) >> 17) & (cap - 1);
}

static void hist_init(struct hist *h, size_t cap)
{
	h->key = xcalloc(cap, sizeof(*h->key));
	h->val = xcalloc(cap, sizeof(*h->val));
	memset(h->key, 0xff, cap * sizeof(*h->key));
	h->cap = cap;
	h->used = 0;
}

static void hist_clear(struct hist *h)
{
	memset(h->key, 0xff, h->cap * sizeof(*h->key));
	memset(h->val, 0, h->cap * sizeof(*h->val));
	h->used = 0;
}

static void hist_add(struct hist *h, uint64_t vaddr, uint64_t n);

static void hist_grow(struct hist *h)
{
	struct hist old = *h;
	size_t i;

	hist_init(h, old.cap * 2);
	for (i = 0; i < old.cap; i++)
		if (old.key[i] != EMPTY)
			hist_add(h, old.key[i], old.val[i]);
	free(old.key);
	free(old.val);
}

/* n may be "negative" (two's complement) to take back counted insns. */
static void hist_add(struct hist *h, uint64_t vaddr, uint64_t n)
{
	size_t i = hash64(vaddr, h->cap);

	while (h->key[i] != vaddr) {
		if (h->key[i] == EMPTY) {
			if (2 * (h->used + 1) > h->cap) {
				hist_grow(h);
				hist_add(h, vaddr, n);
				return;
			}
			h->key[i] = vaddr;
			h->used++;
			break;
		}
		i = (i + 1) & (h->cap - 1);
	}
	h->val[i] += n;
}

/* ---- Report ---- */

struct entry {
	uint64_t vaddr;
	uint64_t n;
};

static int entry_cmp(const void *a, const void *b)
{
	const struct entry *x = a, *y = b;

	if (x->n != y->n)
		return x->n < y->n ? 1 : -1;
	return x->vaddr < y->vaddr ? -1 : x->vaddr > y->vaddr;
}

/* Under out_lock: to the report file, or the QEMU log line by line. */
static void __attribute__((format(printf, 1, 2))) emit(const char *fmt, ...)
{
	char buf[256];
	va_list ap;

	va_start(ap, fmt);
	if (out) {
		vfprintf(out, fmt, ap);
	} else {
		vsnprintf(buf, sizeof(buf), fmt, ap);
		qemu_plugin_outs(buf);
	}
	va_end(ap);
}

static void report_window(unsigned int cpu, struct vcpu *v, uint64_t insns)
{
	struct hist *h = &v->hist;
	struct entry *e = NULL;
	size_t i, n = 0;

	if (topk) {
		e = xcalloc(h->used ? h->used : 1, sizeof(*e));
		for (i = 0; i < h->cap; i++)
			if (h->key[i] != EMPTY && h->val[i])
				e[n++] = (struct entry){ h->key[i], h->val[i] };
		qsort(e, n, sizeof(*e), entry_cmp);
		if (n > topk)
			n = topk;
	}

	pthread_mutex_lock(&out_lock);
	emit("mark %" PRIu64 " vcpu %u insns %" PRIu64 "\n", seq++, cpu, insns);
	for (i = 0; i < n; i++)
		emit("  %016" PRIx64 " %" PRIu64 "\n", e[i].vaddr, e[i].n);
	if (out)
		fflush(out);
	pthread_mutex_unlock(&out_lock);
	free(e);
}

/* ---- Execution callbacks (run in the vCPU's thread) ---- */

static void vcpu_tb_exec(unsigned int cpu, void *udata)
{
	const struct tb_desc *tb = udata;
	struct vcpu *v;

	if (cpu >= nr_vcpus)
		return;
	v = &vcpus[cpu];
	v->total += tb->n;
	if (v->active)
		hist_add(&v->hist, tb->vaddr, tb->n);
}

/*
 * The block callback already counted all of the marker's block, before
 * the marker runs: the instructions from the marker on are rest.
 */
static void vcpu_mark_exec(unsigned int cpu, void *udata)
{
	const struct mark_site *s = udata;
	uint64_t rest = s->tb->n - s->idx;
	struct vcpu *v;

	if (cpu >= nr_vcpus)
		return;
	v = &vcpus[cpu];
	if (s->start) {
		if (v->active) {
			v->restarts++;
			hist_clear(&v->hist);
		}
		v->active = true;
		v->win_start = v->total - rest;
		hist_add(&v->hist, s->tb->vaddr, rest);
		return;
	}
	if (!v->active) {
		v->stray_stops++;
		return;
	}
	v->active = false;
	hist_add(&v->hist, s->tb->vaddr, -rest);
	report_window(cpu, v, v->total - rest - v->win_start);
	hist_clear(&v->hist);
}

/* ---- Translation (may run in several vCPU threads at once) ---- */

static const struct tb_desc *tb_desc_get(uint64_t vaddr, uint64_t n)
{
	struct tb_desc *d;
	size_t i;

	pthread_mutex_lock(&desc_lock);
	if (2 * (descs_used + 1) > descs_cap) {
		struct tb_desc **old = descs;
		size_t j, old_cap = descs_cap;

		descs_cap = old_cap ? old_cap * 2 : 1 << 16;
		descs = xcalloc(descs_cap, sizeof(*descs));
		for (j = 0; j < old_cap; j++) {
			if (!old[j])
				continue;
			i = hash64(old[j]->vaddr ^ old[j]->n, descs_cap);
			while (descs[i])
				i = (i + 1) & (descs_cap - 1);
			descs[i] = old[j];
		}
		free(old);
	}
	i = hash64(vaddr ^ n, descs_cap);
	while ((d = descs[i]) && (d->vaddr != vaddr || d->n != n))
		i = (i + 1) & (descs_cap - 1);
	if (!d) {
		d = xcalloc(1, sizeof(*d));
		d->vaddr = vaddr;
		d->n = n;
		descs[i] = d;
		descs_used++;
	}
	pthread_mutex_unlock(&desc_lock);
	return d;
}

static const struct mark_site *mark_site_get(const struct tb_desc *tb,
					     uint64_t idx, bool start)
{
	struct mark_site *s;

	pthread_mutex_lock(&desc_lock);
	for (s = sites; s; s = s->next)
		if (s->tb == tb && s->idx == idx && s->start == start)
			break;
	if (!s) {
		s = xcalloc(1, sizeof(*s));
		s->tb = tb;
		s->idx = idx;
		s->start = start;
		s->next = sites;
		sites = s;
	}
	pthread_mutex_unlock(&desc_lock);
	return s;
}

/* 1 for START, 2 for STOP, 0 for any other instruction. */
static int marker_kind(const struct qemu_plugin_insn *insn)
{
	const uint8_t *b;
	uint32_t imm;

	if (qemu_plugin_insn_size(insn) != MARK_LEN)
		return 0;
	b = qemu_plugin_insn_data(insn);
	if (b[0] != 0x0f || b[1] != 0x1f || b[2] != 0x80)
		return 0;
	imm = b[3] | b[4] << 8 | b[5] << 16 | (uint32_t)b[6] << 24;
	if (imm == MARK_START)
		return 1;
	if (imm == MARK_STOP)
		return 2;
	return 0;
}

static void vcpu_tb_trans(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	size_t i, n = qemu_plugin_tb_n_insns(tb);
	const struct tb_desc *d = tb_desc_get(qemu_plugin_tb_vaddr(tb), n);

	(void)id;
	qemu_plugin_register_vcpu_tb_exec_cb(tb, vcpu_tb_exec,
					     QEMU_PLUGIN_CB_NO_REGS, (void *)d);
	for (i = 0; i < n; i++) {
		struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);
		int kind = marker_kind(insn);

		if (kind)
			qemu_plugin_register_vcpu_insn_exec_cb(insn, vcpu_mark_exec,
				QEMU_PLUGIN_CB_NO_REGS,
				(void *)mark_site_get(d, i, kind == 1));
	}
}

static void plugin_exit(qemu_plugin_id_t id, void *udata)
{
	unsigned int i;

	(void)id;
	(void)udata;
	pthread_mutex_lock(&out_lock);
	for (i = 0; i < nr_vcpus; i++) {
		struct vcpu *v = &vcpus[i];

		emit("vcpu %u total %" PRIu64, i, v->total);
		if (v->active)
			emit(" open-window %" PRIu64, v->total - v->win_start);
		if (v->stray_stops)
			emit(" stray-stops %" PRIu64, v->stray_stops);
		if (v->restarts)
			emit(" restarts %" PRIu64, v->restarts);
		emit("\n");
	}
	if (out) {
		fclose(out);
		out = NULL;
	}
	pthread_mutex_unlock(&out_lock);
}

QEMU_PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id,
					   const qemu_info_t *info,
					   int argc, char **argv)
{
	const char *outfile = NULL;
	char msg[256];
	unsigned int i;
	int a;

	for (a = 0; a < argc; a++) {
		if (!strncmp(argv[a], "outfile=", 8)) {
			outfile = argv[a] + 8;
		} else if (!strncmp(argv[a], "topk=", 5)) {
			topk = strtoul(argv[a] + 5, NULL, 0);
		} else {
			snprintf(msg, sizeof(msg),
				 "insn_marks: unknown argument '%s' (outfile=PATH, topk=N)\n",
				 argv[a]);
			qemu_plugin_outs(msg);
			fprintf(stderr, "%s", msg);
			return -1;
		}
	}
	if (outfile) {
		out = fopen(outfile, "w");
		if (!out) {
			snprintf(msg, sizeof(msg), "insn_marks: cannot write %s\n", outfile);
			fprintf(stderr, "%s", msg);
			return -1;
		}
	}

	nr_vcpus = info->system_emulation ? (unsigned int)info->system.max_vcpus : 64;
	if (posix_memalign((void **)&vcpus, 64, nr_vcpus * sizeof(*vcpus)))
		return -1;
	memset(vcpus, 0, nr_vcpus * sizeof(*vcpus));
	for (i = 0; i < nr_vcpus; i++)
		hist_init(&vcpus[i].hist, 1 << 12);

	qemu_plugin_register_vcpu_tb_trans_cb(id, vcpu_tb_trans);
	qemu_plugin_register_atexit_cb(id, plugin_exit, NULL);
	return 0;
}
