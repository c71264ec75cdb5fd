// SPDX-License-Identifier: GPL-2.0
/*
 * tp_floor: the floor of the tracer benchmark.  Attaches a probe that does
 * nothing to the tracepoints named in tracepoints= (comma-separated), so
 * what remains is the cost of an enabled tracepoint itself.
 */
#include <linux/module.h>
#include <linux/string.h>
#include <linux/tracepoint.h>

static char *tracepoints = "sys_enter,sys_exit";
module_param(tracepoints, charp, 0444);
MODULE_PARM_DESC(tracepoints, "tracepoints to attach the empty probe to");

#define TP_FLOOR_MAX 8
static struct tracepoint *attached[TP_FLOOR_MAX];
static int nr_attached;

static void tp_floor_probe(void *data)
{
}

struct tp_floor_find {
	const char *name;
	size_t len;
	struct tracepoint *tp;
};

static void tp_floor_match(struct tracepoint *tp, void *priv)
{
	struct tp_floor_find *f = priv;

	if (strlen(tp->name) == f->len && !strncmp(tp->name, f->name, f->len))
		f->tp = tp;
}

static void tp_floor_detach(void)
{
	while (nr_attached > 0)
		tracepoint_probe_unregister(attached[--nr_attached],
					    tp_floor_probe, NULL);
	tracepoint_synchronize_unregister();
}

static int __init tp_floor_init(void)
{
	const char *s = tracepoints;
	struct tp_floor_find f;
	int ret;

	while (*s) {
		f.name = s;
		f.len = strcspn(s, ",");
		f.tp = NULL;
		s += f.len + (s[f.len] == ',');
		if (!f.len)
			continue;
		for_each_kernel_tracepoint(tp_floor_match, &f);
		ret = -ENOENT;
		if (f.tp && nr_attached < TP_FLOOR_MAX)
			ret = tracepoint_probe_register(f.tp, tp_floor_probe,
							NULL);
		if (ret) {
			pr_err("tp_floor: %.*s: %d\n", (int)f.len, f.name, ret);
			tp_floor_detach();
			return ret;
		}
		attached[nr_attached++] = f.tp;
	}
	return 0;
}
module_init(tp_floor_init);

static void __exit tp_floor_exit(void)
{
	tp_floor_detach();
}
module_exit(tp_floor_exit);

MODULE_DESCRIPTION("An empty probe on tracepoints: the benchmark's floor");
MODULE_LICENSE("GPL");
