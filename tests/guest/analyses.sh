#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# description: a trace for lttng-analyses, recorded as its own
#              lttng-analyses-record script records (the same channel and
#              event list, every system call), of analyses_workload's
#              children (CPU burnt, system calls made, sleeps, direct disk
#              writes, pages touched) with the disk's interrupts counted
#              from /proc/interrupts around them; the trace and that
#              ground truth go to $LTTNG_SHARE/analyses, where the host's
#              tests/analyses-check runs lttng-analyses on them.  Here:
#              the session commands, the workload, the interrupt count,
#              and that every event the script names is known to 'lttng
#              list -k' under that name.
# requires: lttng-tools 2.13, root, /dev/vda; LTTNG_SHARE (tests/run
#           shares a host folder) to hand the trace over
. "$(dirname "$0")/ktap.sh"
. "$(dirname "$0")/lttng_env.sh"
cases="events_known recorded irqs_counted handed_over"
ktap_plan 4

skip_all() { ktap_skip_all "$1" $cases; }
[ "$(id -u)" = 0 ] || skip_all "not root"
command -v lttng-sessiond >/dev/null || skip_all "lttng-tools not installed"
[ -b /dev/vda ] || skip_all "no scratch disk /dev/vda"

lttng_setup /tmp/analyses
# lttng-analyses-record's list (python3-lttnganalyses 0.6.1), word for word.
events=sched_switch,sched_wakeup,sched_waking,block_rq_complete,block_rq_issue,block_bio_remap,block_bio_backmerge,netif_receive_skb,net_dev_xmit,sched_process_fork,sched_process_exec,lttng_statedump_process_state,lttng_statedump_file_descriptor,lttng_statedump_block_device,mm_vmscan_wakeup_kswapd,mm_page_free,mm_page_alloc,block_dirty_buffer,irq_handler_entry,irq_handler_exit,softirq_entry,softirq_exit,softirq_raise,irq_softirq_entry,irq_softirq_exit,irq_softirq_raise,kmem_mm_page_alloc,kmem_mm_page_free
# The names lttng-modules 2.13 has on this kernel; the others (the old
# spellings, netif_receive_skb renamed net_if_receive_skb) are not, and
# the script warns about them as it does on lttng-modules.
known="sched_switch sched_wakeup sched_waking block_rq_complete block_rq_issue
	block_bio_remap block_bio_backmerge net_dev_xmit sched_process_fork
	sched_process_exec lttng_statedump_process_state
	lttng_statedump_file_descriptor lttng_statedump_block_device
	mm_vmscan_wakeup_kswapd block_dirty_buffer
	irq_handler_entry irq_handler_exit irq_softirq_entry irq_softirq_exit
	irq_softirq_raise kmem_mm_page_alloc kmem_mm_page_free"

case_events_known() {
	local e bad=0
	timeout -s KILL 60 lttng list -k >"$top/list" 2>&1 || return 1
	for e in $known; do
		grep -q "^ *$e (loglevel" "$top/list" && continue
		echo "# 'lttng list -k' has no $e"
		bad=1
	done
	for e in softirq_entry mm_page_alloc hrtimer_start; do
		grep -q "^ *$e (loglevel" "$top/list" || continue
		echo "# 'lttng list -k' still has the kernel's $e"
		bad=1
	done
	[ $bad = 0 ]
}

# The disk's interrupt lines: "IRQ COUNT HANDLERS NAMES" for each line
# one of whose handlers is the disk's virtio device (a shared line runs
# every handler of the line at each interrupt).
disk_irqs() {
	local dev d acts
	dev=$(basename "$(readlink -f /sys/block/vda/device)")
	for d in /sys/kernel/irq/*; do
		acts=$(cat "$d/actions" 2>/dev/null) || continue
		case ",$acts," in *",$dev,"*) ;; *) continue ;; esac
		echo "${d##*/} $(tr , '\n' <"$d/per_cpu_count" | awk '{ s += $1 } END { print s }') $(tr , '\n' <<<"$acts" | grep -c .) $acts"
	done
}

out=$top/share
mkdir -p "$out"
recorded=0
# The script's session: chan1 with 8 MiB sub-buffers, its events, every
# system call; lttng destroy without a stop, as the script does.
if lt lttng create analyses -o "$out/trace" &&
	lt lttng enable-channel -k chan1 --subbuf-size=8M &&
	{ run lttng enable-event -k -c chan1 "$events"; true; } &&
	lt lttng enable-event -k -c chan1 writeback_pages_written &&
	lt lttng enable-event -k -c chan1 --syscall -a &&
	lt lttng start; then
	disk_irqs >"$top/irq.before"
	if "$(dirname "$0")/analyses_workload" /dev/vda >"$out/truth" 2>"$top/workload.err" &&
		echo "io_disk=vda" >>"$out/truth"; then
		recorded=1
	else
		sed 's/^/# workload: /' "$top/workload.err"
	fi
	disk_irqs >"$top/irq.after"
	lt lttng destroy analyses || recorded=0
fi
ktap_check events_known case_events_known
ktap_status recorded $((1 - recorded))

# The disk's line and its interrupts during the workload.
case_irqs_counted() {
	sort -o "$top/irq.before" "$top/irq.before" && sort -o "$top/irq.after" "$top/irq.after" &&
		join "$top/irq.before" "$top/irq.after" >"$top/irq.join"
	awk '{ d = $5 - $2; if (d > best) { best = d; nr = $1; n = $3; names = $4 } }
		END { if (best <= 0) exit 1
			printf "irq_nr=%s\nirq_names=%s\nirq_actions=%d\nirq_count=%d\n", nr, names, n, best }' \
		"$top/irq.join" >>"$out/truth" ||
		{ echo "# no interrupt of the disk during the workload:"; sed 's/^/#   /' "$top/irq.before" "$top/irq.after"; return 1; }
	grep '^irq_' "$out/truth" | sed 's/^/# /'
}
ktap_check irqs_counted case_irqs_counted

case_handed_over() {
	[ -n "${LTTNG_SHARE:-}" ] && [ -d "$LTTNG_SHARE" ] ||
		{ echo "# LTTNG_SHARE is not a shared folder: tests/run gives one"; return 1; }
	rm -rf "$LTTNG_SHARE/analyses"
	cp -r "$out" "$LTTNG_SHARE/analyses" && sync
}
if [ -n "${LTTNG_SHARE:-}" ]; then
	ktap_check handed_over case_handed_over
else
	ktap_skip handed_over "no LTTNG_SHARE: run through tests/run to check the trace with lttng-analyses"
fi
rm -rf "$top/share"
lttng_teardown
ktap_exit
