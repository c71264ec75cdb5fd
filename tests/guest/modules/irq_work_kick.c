// SPDX-License-Identifier: GPL-2.0
/*
 * irq_work_kick: an irq_work on demand, for the ftrace differential test
 * of the irq_vectors events.  Each write to the module parameter "kick"
 * queues an irq_work on the writer's CPU, which the local APIC raises as
 * IRQ_WORK_VECTOR: one irq_work_entry and one irq_work_exit there.  (The
 * kernel's own irq_works from user space actions, printk's among them,
 * are lazy: the tick runs them, with no interrupt of their own.)
 */
#include <linux/atomic.h>
#include <linux/irq_work.h>
#include <linux/moduleparam.h>
#include <linux/module.h>
#include <linux/percpu.h>
#include <linux/preempt.h>
#include <linux/sysfs.h>

static DEFINE_PER_CPU(struct irq_work, kick_work);
static atomic_t kicks_run = ATOMIC_INIT(0);

static void kick_fn(struct irq_work *work)
{
	atomic_inc(&kicks_run);
}

static int kick_set(const char *val, const struct kernel_param *kp)
{
	preempt_disable();
	irq_work_queue(this_cpu_ptr(&kick_work));
	preempt_enable();
	return 0;
}

static int kick_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%d\n", atomic_read(&kicks_run));
}

static const struct kernel_param_ops kick_ops = {
	.set = kick_set,
	.get = kick_get,
};
module_param_cb(kick, &kick_ops, NULL, 0600);
MODULE_PARM_DESC(kick, "write: queue an irq_work on this CPU; read: irq_works run");

static int __init kick_init(void)
{
	int cpu;

	for_each_possible_cpu(cpu)
		init_irq_work(per_cpu_ptr(&kick_work, cpu), kick_fn);
	return 0;
}

static void __exit kick_exit(void)
{
	int cpu;

	for_each_possible_cpu(cpu)
		irq_work_sync(per_cpu_ptr(&kick_work, cpu));
}

module_init(kick_init);
module_exit(kick_exit);
MODULE_DESCRIPTION("Queue an irq_work on demand (tests)");
MODULE_LICENSE("GPL");
