#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# description: ftrace and LTTng record the same trace events at the same
#              time, and per CPU the events LTTng recorded are a contiguous
#              run of the ones ftrace recorded, same order, same field
#              values: ftrace's binary ring buffer pages decoded with each
#              event's format file, LTTng's trace read by babeltrace2, both
#              turned into "NAME FIELD=VALUE ..." lines by trace_diff.  One
#              case for the first eleven systems together (see
#              case_all_systems), one per system (sched,
#              irq, irq_vectors, timer, signal, block, kmem, workqueue,
#              task, module, net, raw_syscalls, exceptions, mmap,
#              maple_tree, mmap_lock, rseq, tlb, power, filemap, filelock,
#              oom, cgroup, sock, tcp, icmp, skb, fib), each with a floor
#              on the events compared and the events of the workload the
#              test ran: a child forked, exec'd and killed with SIGUSR1,
#              sleeps, direct I/O on /dev/vda, a block of it read through
#              the page cache and the caches dropped, vmstat work queued on
#              every CPU, an irq_work raised (irq_work_kick.ko), a module
#              loaded and removed, the shell's oom_score_adj set, a flock,
#              a cgroup made and removed, a UDP datagram to a closed port
#              of 127.0.0.1 and a TCP connection refused there, once on
#              each CPU.
#              Only what the two probes of one tracepoint hit cause is
#              accepted (see trace_diff.c): an interrupt between them
#              reorders, jiffies or a module refcount read twice may move
# requires: tracefs, lttng-tools 2.13, babeltrace2, trace_diff next to this
#           script, root; block: /dev/vda (scripts/qemu-run); module:
#           trace-events-sample.ko (CONFIG_SAMPLE_TRACE_EVENTS=m);
#           irq_vectors: irq_work_kick.ko next to this script
# shellcheck disable=SC2317 # the case_* functions run through ktap_check
. "$(dirname "$0")/ktap.sh"
. "$(dirname "$0")/lttng_env.sh"
here=$(cd "$(dirname "$0")" && pwd)
td=$here/trace_diff
# LTTng records the events lttng-modules renames or changes as
# lttng-modules does: trace_diff maps them back to the kernel's names,
# fields and values with the tests' copy of those differences.
export LTTNG_MODULES_MAP=$here/lttng_modules.map
systems="sched irq irq_vectors timer signal block kmem workqueue task module net
	raw_syscalls exceptions mmap maple_tree mmap_lock rseq tlb power filemap
	filelock oom cgroup sock tcp icmp skb fib"
ktap_plan $((1 + $(wc -w <<<"$systems")))

skip_all() {
	local s
	ktap_skip all_systems "$1"
	for s in $systems; do ktap_skip "$s" "$1"; done
	ktap_exit
}

# fail_all WHY: nothing can be compared, and that is a failure.
fail_all() {
	local s
	echo "# $1"
	ktap_fail all_systems
	for s in $systems; do ktap_fail "$s"; done
	ktap_exit
}
[ "$(id -u)" = 0 ] || skip_all "not root"
command -v lttng-sessiond >/dev/null && command -v babeltrace2 >/dev/null ||
	skip_all "lttng-tools or babeltrace2 not installed"
[ -x "$td" ] || skip_all "$td not installed"
tfs=/sys/kernel/tracing
[ -d $tfs/events ] || mount -t tracefs nodev $tfs 2>/dev/null
[ -f $tfs/events/header_page ] || skip_all "no tracefs"

lttng_setup /tmp/ftrace_diff
ncpu=$(nproc)
sample=trace-events-sample
modinfo $sample >/dev/null 2>&1 || sample=
rmmod trace-events-sample 2>/dev/null

# Per system: its event names (LTTng names an event without its system),
# one a line in $top/names.SYSTEM; $present: the systems this kernel has.
# An event name two systems share would be one LTTng event for both:
# such a name is left out, and said.
present=
cut -d: -f2 $tfs/available_events | sort | uniq -d >$top/dup
for s in $systems; do
	[ -d $tfs/events/$s ] || continue
	present+=" $s"
	sed -n "s/^$s://p" $tfs/available_events | sort >$top/names.$s
	if grep -qxFf $top/dup $top/names.$s; then
		echo "# left out, in two systems: $(grep -xFf $top/dup $top/names.$s | xargs)"
		grep -vxFf $top/dup $top/names.$s >$top/n && mv $top/n $top/names.$s
	fi
done
cat $top/names.* >$top/names.all

# lttng_names: the kernel event names on stdin as LTTng lists them.
lttng_names() {
	awk 'NR == FNR { if ($1 !~ /^#/ && NF > 1) { sub(/^[^:]*:/, "", $1); m[$1] = $2 }; next }
		{ print ($1 in m) ? m[$1] : $1 }' "$LTTNG_MODULES_MAP" -
}

# ftrace's events are enabled first, so that its probe runs before
# LTTng's on every tracepoint (see trace_diff.c for the one reordering
# this allows); it records only around "lttng start" ... "lttng stop".
ftrace_enable() {
	local s n
	echo 0 >$tfs/tracing_on
	echo 0 >$tfs/events/enable
	echo >$tfs/trace
	echo 16384 >$tfs/buffer_size_kb
	for s in $present; do
		while read -r n; do
			echo 1 >$tfs/events/$s/$n/enable
		done <$top/names.$s
	done
}

ftrace_disable() {
	echo 0 >$tfs/tracing_on
	echo 0 >$tfs/events/enable
}

# The workload, on CPU $1: everything each system's case looks for.
# Writes what it did to $top/wl.$1 as KEY=VALUE lines.
workload() {
	local cpu=$1 out=$top/wl.$1 child
	taskset -pc "$cpu" $BASHPID >/dev/null || return 1
	# sched, task, signal: a child forked, exec'd, killed with SIGUSR1.
	sleep 30 &
	child=$!
	echo "child=$child" >"$out"
	# timer: a sleep (hrtimer), then the signal.
	sleep 0.2
	kill -USR1 "$child"
	wait "$child"
	echo "child_status=$?" >>"$out"
	# block: 128 KiB written at 1 MiB (sector 2048), then read back.
	if [ -b /dev/vda ]; then
		dd if=/dev/zero of=/dev/vda bs=64k count=2 seek=16 oflag=direct status=none &&
			dd if=/dev/vda of=/dev/null bs=64k count=2 skip=16 iflag=direct status=none &&
			echo "dd=ok" >>"$out"
	fi
	# workqueue: vmstat's refresh, queued on every CPU.
	echo 1 >/proc/sys/vm/stat_refresh 2>/dev/null
	# module: one loaded and removed.
	if [ -n "$sample" ]; then
		modprobe $sample && rmmod $sample && echo "module=ok" >>"$out"
	fi
	# irq_vectors: an irq_work queued on this CPU, and run.
	if [ -n "$kick" ]; then
		local runs
		runs=$(cat "$kick")
		echo 1 >"$kick" && sleep 0.1 &&
			[ "$(cat "$kick")" -gt "$runs" ] && echo "kick=ok" >>"$out"
	fi
	# net, icmp, skb, fib: a UDP datagram over the loopback, to a port
	# nobody listens on (ICMP port unreachable comes back).
	echo "ftrace_diff $cpu" >/dev/udp/127.0.0.1/9 && echo "udp=ok" >>"$out"
	# sock, tcp: a TCP connection to a closed port, refused (a reset).
	(exec 3<>/dev/tcp/127.0.0.1/7) 2>/dev/null
	# filemap: one block of /dev/vda read through the page cache, 4 MiB
	# apart per CPU (readahead stays short of the next), then dropped.
	if [ -b /dev/vda ]; then
		dd if=/dev/vda of=/dev/null bs=4k count=1 skip=$((4096 + 1024 * cpu)) \
			status=none && echo 3 >/proc/sys/vm/drop_caches && echo "filemap=ok" >>"$out"
	fi
	# oom: this shell's oom_score_adj set, then put back.
	echo "shell=$BASHPID" >>"$out"
	echo $((100 + cpu)) >/proc/$BASHPID/oom_score_adj &&
		echo 0 >/proc/$BASHPID/oom_score_adj && echo "oom=ok" >>"$out"
	# filelock: a flock(1) on a file of its own.
	flock "$top/lock.$cpu" true && echo "flock=ok" >>"$out"
	# cgroup: a cgroup made and removed.
	if [ -n "$cg" ]; then
		mkdir "$cg/ftrace_diff$cpu" && rmdir "$cg/ftrace_diff$cpu" &&
			echo "cgroup=ok" >>"$out"
	fi
	sleep 0.1
}

# cgroup: a cgroup2 hierarchy to make cgroups in.
cg=$top/cgroup
mkdir -p "$cg"
mount -t cgroup2 none "$cg" 2>/dev/null || cg=
session_ok=0
t0=$SECONDS
kick=/sys/module/irq_work_kick/parameters/kick
insmod "$here/irq_work_kick.ko" 2>/dev/null || [ -e $kick ] || kick=
ftrace_enable
run lttng create d -o $top/lttng &&
	run lttng enable-channel -k c0 --subbuf-size 1M --num-subbuf 8 &&
	run lttng enable-event -k -c c0 "$(lttng_names <$top/names.all | paste -sd,)" &&
	echo 1 >$tfs/tracing_on &&
	run lttng start && session_ok=1
if [ $session_ok = 1 ]; then
	for cpu in $(seq 0 $((ncpu - 1))); do
		(workload "$cpu") 2>>"$log"
	done
	run lttng stop || session_ok=0
fi
ftrace_disable
run lttng destroy || session_ok=0
[ -z "$kick" ] || rmmod irq_work_kick
[ -z "$cg" ] || umount "$cg"
lttng_teardown
[ $session_ok = 1 ] || { sed 's/^/# /' "$log" | tail -n 20; fail_all "the LTTng session failed"; }
t1=$SECONDS

# Nothing lost on either side, or the comparison means nothing.
lost=
for cpu in $(seq 0 $((ncpu - 1))); do
	st=$tfs/per_cpu/cpu$cpu/stats
	for k in overrun "commit overrun" "dropped events"; do
		v=$(sed -n "s/^$k: //p" "$st")
		[ "$v" = 0 ] || lost+=" cpu$cpu $k=$v"
	done
	"$td" ftrace $tfs "$cpu" $present >$top/ftrace.$cpu 2>>"$log" ||
		lost+=" cpu$cpu: trace_diff ftrace failed ($(tail -n 1 "$log"))"
done
# ftrace as the boot left it, for the tests after this one.
echo 1408 >$tfs/buffer_size_kb
echo 1 >$tfs/tracing_on
babeltrace2 $top/lttng >$top/bt.txt 2>$top/bt.err
bt_st=$?
[ $bt_st = 0 ] && [ ! -s $top/bt.err ] ||
	lost+=" babeltrace2 (status $bt_st): $(head -n 3 $top/bt.err)"
"$td" ctf <$top/bt.txt >$top/lttng.canon 2>>"$log" ||
	lost+=" trace_diff ctf failed ($(tail -n 1 "$log"))"
echo "# ftrace: $(cat $top/ftrace.* | wc -l) events, LTTng: $(wc -l <$top/lttng.canon) events;" \
	"tracing $((t1 - t0)) s, decoding $((SECONDS - t1)) s"
[ -z "$lost" ] || fail_all "a trace is incomplete:$lost"

# compare CASE NAMES MIN: per CPU, the LTTng events named in NAMES are a
# run of ftrace's; at least MIN of them in all.
compare() {
	local name=$1 names=$2 min=$3 cpu out total=0 ok=0 n
	for cpu in $(seq 0 $((ncpu - 1))); do
		if ! out=$("$td" match $top/ftrace.$cpu $top/lttng.canon "$cpu" "$names"); then
			echo "# $name:"
			echo "$out"
			ok=1
			continue
		fi
		echo "# $name: cpu$cpu: $out"
		n=$(sed -n 's/^compared=\([0-9]*\) .*/\1/p' <<<"$out")
		total=$((total + n))
	done
	if [ $total -lt "$min" ]; then
		echo "# $name: $total events compared, want at least $min"
		ok=1
	fi
	return $ok
}

# seen WHAT PATTERN...: the LTTng trace (proven equal to ftrace's) has an
# event matching each extended regular expression.
seen() {
	local what=$1 p; shift
	for p in "$@"; do
		grep -qE -- "$p" $top/lttng.canon && continue
		echo "# $what: no event matching '$p'"
		return 1
	done
}

kv() { sed -n "s/^$2=//p" "$top/wl.$1"; }

# Per system: what the workload must have caused, on each CPU.
witness() {
	local s=$1 cpu c dev
	for cpu in $(seq 0 $((ncpu - 1))); do
		c=$(kv "$cpu" child)
		case $s in
		sched)
			seen "$s" "^$cpu sched_process_exec filename=\"[^\"]*/sleep\" pid=$c " \
				"^[0-9]+ sched_process_exit comm=\"sleep\" pid=$c " ;;
		task)
			seen "$s" "^$cpu task_newtask pid=$c " \
				"^$cpu task_rename pid=$c oldcomm=\"[^\"]*\" newcomm=\"sleep\"" ;;
		signal)
			[ "$(kv "$cpu" child_status)" = $((128 + 10)) ] ||
				{ echo "# child status $(kv "$cpu" child_status)"; return 1; }
			seen "$s" "^$cpu signal_generate sig=10 errno=0 code=0 comm=\"sleep\" pid=$c " ;;
		timer)
			seen "$s" "^[0-9]+ hrtimer_expire_entry " "^$cpu hrtimer_start " ;;
		block)
			dev=$(cat /sys/block/vda/dev)
			dev=$(( ${dev%:*} << 20 | ${dev#*:} ))
			seen "$s" "^[0-9]+ block_rq_issue dev=$dev sector=2048 nr_sector=128 .*rwbs=\"W" \
				"^[0-9]+ block_rq_complete dev=$dev sector=2176 nr_sector=128 .*rwbs=\"R" ;;
		irq)
			seen "$s" "^$cpu softirq_raise vec=3$" "^[0-9]+ softirq_entry vec=3$" ;;
		irq_vectors)
			[ "$(kv "$cpu" kick)" = ok ] || { echo "# the irq_work queued on CPU $cpu did not run"; return 1; }
			seen "$s" "^$cpu irq_work_entry vector=246$" "^$cpu irq_work_exit vector=246$" ;;
		kmem)
			seen "$s" "^$cpu kmalloc " "^$cpu kfree " ;;
		workqueue)
			seen "$s" "^$cpu workqueue_queue_work " "^$cpu workqueue_execute_start " ;;
		module)
			seen "$s" "^$cpu module_load .*name=\"trace_events_sample\"" \
				"^$cpu module_free name=\"trace_events_sample\"" ;;
		net)
			seen "$s" "^$cpu net_dev_queue .*name=\"lo\"" \
				"^[0-9]+ netif_receive_skb .*name=\"lo\"" ;;
		raw_syscalls)
			seen "$s" "^$cpu sys_enter id=" "^$cpu sys_exit id=" ;;
		exceptions)
			seen "$s" "^$cpu page_fault_user " ;;
		mmap)
			seen "$s" "^$cpu vm_unmapped_area " ;;
		maple_tree)
			seen "$s" "^$cpu ma_(op|read|write) " ;;
		mmap_lock)
			seen "$s" "^$cpu mmap_lock_start_locking " \
				"^$cpu mmap_lock_acquire_returned " ;;
		rseq)
			seen "$s" "^$cpu rseq_update " ;;
		tlb)
			seen "$s" "^[0-9]+ tlb_flush " ;;
		power)
			seen "$s" "^$cpu cpu_idle " ;;
		filemap)
			[ "$(kv "$cpu" filemap)" = ok ] || { echo "# the read of /dev/vda on CPU $cpu failed"; return 1; }
			seen "$s" "^$cpu mm_filemap_add_to_page_cache .*index=$((4096 + 1024 * cpu)) " \
				"^$cpu mm_filemap_delete_from_page_cache .*index=$((4096 + 1024 * cpu)) " ;;
		filelock)
			[ "$(kv "$cpu" flock)" = ok ] || { echo "# flock on CPU $cpu failed"; return 1; }
			seen "$s" "^$cpu flock_lock_inode " ;;
		oom)
			[ "$(kv "$cpu" oom)" = ok ] || { echo "# oom_score_adj on CPU $cpu not set"; return 1; }
			seen "$s" "^$cpu oom_score_adj_update pid=$(kv "$cpu" shell) comm=\"[^\"]*\" oom_score_adj=$((100 + cpu))$" ;;
		cgroup)
			[ "$(kv "$cpu" cgroup)" = ok ] || { echo "# no cgroup made on CPU $cpu"; return 1; }
			seen "$s" "^$cpu cgroup_mkdir .*path=\"/ftrace_diff$cpu\"" \
				"^$cpu cgroup_rmdir .*path=\"/ftrace_diff$cpu\"" ;;
		sock)
			seen "$s" "^$cpu inet_sock_set_state .*dport=7 " ;;
		tcp)
			seen "$s" "^[0-9]+ tcp_receive_reset .*dport=7 " ;;
		icmp)
			seen "$s" "^[0-9]+ icmp_send .*type=3 code=3 " ;;
		skb)
			seen "$s" "^[0-9]+ kfree_skb " ;;
		fib)
			seen "$s" "^$cpu fib_table_lookup " ;;
		esac || return 1
	done
}

# The case of all systems at once compares the eleven of its first
# version: with the others too (raw_syscalls, mmap_lock, maple_tree, ...
# on every call), an interrupt between the two probes of a kmem event was
# seen once to interleave in a way the reorder rule of trace_diff.c does
# not model yet, the kmem case passing on the same traces.
first="sched irq irq_vectors timer signal block kmem workqueue task module net"
for s in $first; do
	[ -f $top/names.$s ] && cat $top/names.$s
done >$top/names.first
case_all_systems() { compare all_systems $top/names.first 1000; }

for s in $systems; do
	eval "case_$s() { compare $s $top/names.$s 1 && witness $s; }"
done

ktap_check all_systems case_all_systems
for s in $systems; do
	if [[ " $present " != *" $s "* ]]; then
		ktap_skip "$s" "no $s events in this kernel"
	elif [ "$s" = block ] && [ ! -b /dev/vda ]; then
		ktap_skip "$s" "no /dev/vda to do direct I/O on"
	elif [ "$s" = irq_vectors ] && [ -z "$kick" ]; then
		ktap_skip "$s" "no irq_work_kick.ko to raise an irq_work with"
	elif [ "$s" = module ] && [ -z "$sample" ]; then
		ktap_skip "$s" "no $s module to load"
	elif [ "$s" = filemap ] && [ ! -b /dev/vda ]; then
		ktap_skip "$s" "no /dev/vda to read through the page cache"
	elif [ "$s" = cgroup ] && [ -z "$cg" ]; then
		ktap_skip "$s" "no cgroup2 hierarchy could be mounted"
	else
		ktap_check "$s" "case_$s"
	fi
done
# The guest's /tmp is memory: the traces go, the logs stay.
rm -rf "$top/lttng" "$top"/ftrace.* "$top/bt.txt" "$top/lttng.canon"
echo "# ftrace_diff: $SECONDS s"
ktap_exit
