#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# description: a CPU taken offline and back online during a session still
#              records: every getppid a program pinned to it makes after it
#              came back is in the trace, with that CPU's id, and so are the
#              trace events of the forks it makes (sched_process_fork,
#              task_newtask) from the moment it is back: a probe sees every
#              CPU, nothing per CPU to re-create, no sleep
# requires: lttng-tools 2.13, babeltrace2, CONFIG_HOTPLUG_CPU, 2 CPUs
. "$(dirname "$0")/ktap.sh"
. "$(dirname "$0")/lttng_env.sh"
ktap_plan 5
here=$(dirname "$0")
names="commands_ok cpu_back_online events_after_online sched_events_at_once task_events_at_once"

skip_all() { ktap_skip_all "$1" $names; }
command -v lttng-sessiond >/dev/null && command -v babeltrace2 >/dev/null ||
	skip_all "lttng-tools or babeltrace2 not installed"
online=/sys/devices/system/cpu/cpu1/online
[ -w $online ] || skip_all "CPU 1 cannot be taken offline"

lttng_setup /tmp/hotplug_events

n=500 forks=50
ok=1
run lttng create hp -o $top/hp || ok=0
run lttng enable-channel -k c0 --subbuf-size 1M || ok=0
run lttng enable-event -k -c c0 --syscall getppid || ok=0
run lttng enable-event -k -c c0 sched_process_fork,task_newtask || ok=0
run lttng add-context -k -c c0 -t tid || ok=0
run lttng start || ok=0
echo 0 >$online || ok=0
sleep 0.5
echo 1 >$online || ok=0
back=$(cat $online)
# At once: the fork events of a parent pinned to the CPU just back.
echo go | taskset -c 1 "$here/trace_workload" forks $forks 0 >$top/forks || ok=0
taskset -c 1 "$here/syscall_workload" repeat $n >$top/truth || ok=0
run lttng stop || ok=0
run lttng destroy || ok=0
[ $ok = 1 ] || sed 's/^/# /' "$log"
ktap_check commands_ok [ $ok = 1 ]
ktap_check cpu_back_online [ "$back" = 1 ]

eval "$(sed 's/ /;/g' $top/truth)"
babeltrace2 $top/hp >$top/hp.txt 2>$top/hp.err
got=$(grep -c "syscall_entry_getppid: { cpu_id = 1 }, { tid = $tid }" $top/hp.txt)
echo "# $n getppid on CPU 1 after it came back: $got entry events recorded"
sed 's/^/# stderr: /' $top/hp.err | head -n 3
[ "$got" = $n ] && [ ! -s $top/hp.err ]
ktap_status events_after_online $?

parent=$(sed -n 's/^parent=\([0-9]*\) .*/\1/p' $top/forks)
got=$(grep -c "sched_process_fork: { cpu_id = 1 }, .* parent_pid = ${parent:-none}," $top/hp.txt)
echo "# $forks forks on CPU 1 right after it came back (parent ${parent:-none}): $got sched_process_fork events"
[ -n "$parent" ] && [ "$got" = $forks ]
ktap_status sched_events_at_once $?
got=$(grep -c "task_newtask: { cpu_id = 1 }, { tid = ${parent:-none} }," $top/hp.txt)
echo "# $got task_newtask events of parent ${parent:-none} on CPU 1"
[ -n "$parent" ] && [ "$got" = $forks ]
ktap_status task_events_at_once $?

lttng_teardown
ktap_exit
