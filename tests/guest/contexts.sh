#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# description: every task, namespace, credential and state context that
#   'lttng add-context -k' offers is recorded with the value the test
#   made.  One channel carries all of them; the workloads run under known
#   ids and namespaces:
#   - creds: real/effective/saved uids 1001/1002/1003, gids
#     2001/2002/2003 (setresuid, setresgid), the v-variants equal;
#   - userns: uid/gid 1000 outside a user namespace, 0 inside;
#   - namespaces: new cgroup, ipc, mnt, net, pid, user, uts and time
#     namespaces, a hostname set in the uts one: each *_ns is the inode
#     of /proc/PID/ns/*, hostname the one set, vpid/vtid 1, vppid 0;
#   - state: a SCHED_OTHER task waking a SCHED_FIFO task on its CPU is
#     marked for rescheduling at sched_wakeup (need_reschedule = 1);
#     sched_switch runs with interrupts off and no reschedule pending;
#     a system call entry is interruptible and migratable, and
#     preemptible exactly when the kernel preempts (its preemption model:
#     /sys/kernel/debug/sched/preempt on a PREEMPT_DYNAMIC kernel, else
#     uname -v's PREEMPT);
#   - callstacks (a channel of its own): main -> outer -> mid -> leaf,
#     built with frame pointers, enters getppid() from leaf: the user
#     stack of each entry event starts in leaf, mid, outer, main; its
#     kernel stack holds a return address in do_syscall_64, and that of
#     each sched_switch one in __schedule (bounds from /proc/kallsyms);
#     from 200 nested frames, the user stack is cut at 128 entries and
#     ends with ULONG_MAX;
#   - perf_counters: perf:cpu:page-fault grows by the 1000 faults of a
#     workload that touches 1000 new pages on a CPU every other process
#     is kept off (at most its own minor faults, getrusage(), plus 16 for
#     kernel threads); a hardware counter is added exactly when the guest
#     has a PMU, and a refused one leaves no field behind;
#   - perf_hotplug: with perf:cpu:page-fault recorded, the last CPU goes
#     offline and online three times (nothing hangs), and its counter
#     counts again afterwards.
# requires: lttng-tools 2.13, babeltrace2, setpriv and unshare
#   (util-linux), trace_workload, tracer_bench and stack_workload next
#   to this script, root, two CPUs (the perf and hotplug cases need a
#   second one)
# shellcheck disable=SC2317 # the case_* functions run through ktap_check
. "$(dirname "$0")/ktap.sh"
. "$(dirname "$0")/lttng_env.sh"
# After lttng_env.sh: its lt() takes a whole command, trace_text.sh's
# (the one used here) an lttng subcommand.
. "$(dirname "$0")/trace_text.sh"
here=$(cd "$(dirname "$0")" && pwd)
wl=$here/trace_workload
n=20
types="pid procname prio nice vpid tid vtid ppid vppid hostname
	interruptible preemptible need_reschedule migratable
	cgroup_ns ipc_ns mnt_ns net_ns pid_ns user_ns uts_ns time_ns
	uid euid suid gid egid sgid vuid veuid vsuid vgid vegid vsgid"
cases="add_every_type creds userns namespaces state callstacks perf_counters perf_hotplug"
ktap_plan 8

skip_all() { ktap_skip_all "$1" $cases; }
[ "$(id -u)" = 0 ] || skip_all "not root"
command -v lttng-sessiond >/dev/null && command -v babeltrace2 >/dev/null ||
	skip_all "lttng-tools or babeltrace2 not installed"
command -v setpriv >/dev/null && command -v unshare >/dev/null ||
	skip_all "setpriv or unshare (util-linux) not installed"
[ -x "$wl" ] && [ -x "$here/tracer_bench" ] && [ -x "$here/stack_workload" ] ||
	skip_all "trace_workload, tracer_bench or stack_workload not installed"

lttng_setup /tmp/contexts
chmod 755 "$top"

# actor NAME SETUP WRAPPER...: tracer_bench's $n getppid() calls, by a
# shell started through WRAPPER that runs SETUP, then waits at a FIFO
# until release NAME.  Its pid in pid_NAME (through unshare --fork,
# unshare's child), its parent in ppid_NAME.
actor() {
	local name=$1 setup=$2 fifo=$top/fifo.$1 p
	shift 2
	mkfifo "$fifo"
	"$@" sh -c "$setup read x <$fifo; exec $here/tracer_bench syscall $n" >/dev/null &
	p=$!
	eval "ppid_$name=$$ fifo_$name=$fifo job_$name=$p"
	if [[ " $* " == *" --fork "* ]]; then
		eval "ppid_$name=$p"
		for _ in $(seq 50); do
			pgrep -P "$p" >/dev/null && break
			sleep 0.1
		done
		p=$(pgrep -P "$p")
	fi
	eval "pid_$name=$p"
}
release() {
	local f j
	eval "f=\$fifo_$1 j=\$job_$1"
	timeout 10 sh -c "echo >$f" || echo "# workload $1 did not read $f"
	wait "$j"
}
# ns_inode PID NS: the inode number of /proc/PID/ns/NS.
ns_inode() { stat -L -c %i "/proc/$1/ns/$2"; }

# The workloads are set up before the session starts, so that the
# namespace inodes are read while the processes exist.
actor userns "" setpriv --reuid=1000 --regid=1000 --clear-groups \
	unshare --user --map-root-user
actor ns "echo ctx-host-$$ >/proc/sys/kernel/hostname;" \
	unshare --user --map-root-user --cgroup --ipc --mount --net --pid \
	--uts --time --fork
declare -A want_ns init_ns
for t in cgroup ipc mnt net pid user uts time; do
	want_ns[$t]=$(ns_inode "$pid_ns" $t)
	init_ns[$t]=$(ns_inode $$ $t)
done
user_ns_userns=$(ns_inode "$pid_userns" user)

case_add_every_type() {
	local t args=
	session ctx || return 1
	lt enable-channel -k c || return 1
	for t in $types; do
		args+=" -t $t"
	done
	# shellcheck disable=SC2086 # one word per type
	lt add-context -k -c c $args || return 1
	lt enable-event -k -c c --syscall getppid || return 1
	lt enable-event -k -c c sched_switch,sched_wakeup || return 1
	lt start || return 1
	out_creds=$("$wl" creds 1001 1002 1003 2001 2002 2003 $n)
	st_creds=$?
	release userns
	release ns
	out_wake=$("$wl" wakefifo $n $(($(nproc) - 1)))
	st_wake=$?
	finish || return 1
	read_trace ctx
	bt_clean $? ctx || return 1
	# Every type is in the metadata and in each record.
	local line
	line=$(head -n 1 "$top/ctx.ev")
	bad=0
	for t in $types; do
		[[ "$line" == *"	C.$t="* ]] || { echo "# no context $t in: $line"; bad=1; }
	done
	[ $bad = 0 ]
}

# getppid NAME PID: the getppid entry events of PID, on stdout.
getppid_events() { events "$top/ctx.ev" ev=syscall_entry_getppid "C.pid=$1"; }

# values KEY: the distinct values of KEY in the normalized events on stdin.
values() {
	awk -F '\t' -v k="$1=" '{
		for (i = 1; i <= NF; i++)
			if (index($i, k) == 1)
				print substr($i, length(k) + 1)
	}' | sort -u | xargs
}

# expect_all LINES KEY WANT: KEY is WANT on every line, and there are $n.
expect_all() {
	local lines=$1 k=$2 want=$3 got
	expect "events" "$(grep -c . <<<"$lines")" $n
	got=$(values "$k" <<<"$lines")
	expect "$k" "$got" "$want"
}

case_creds() {
	local pid lines kv
	bad=0
	expect "creds workload status" "$st_creds" 0
	pid=$(kv "$out_creds" pid)
	lines=$(getppid_events "$pid")
	for kv in uid=1001 euid=1002 suid=1003 gid=2001 egid=2002 sgid=2003 \
		vuid=1001 veuid=1002 vsuid=1003 vgid=2001 vegid=2002 vsgid=2003; do
		expect_all "$lines" "C.${kv%=*}" "${kv#*=}"
	done
	expect_all "$lines" C.user_ns "${init_ns[user]}"
	[ $bad = 0 ] || show ctx "pid = $pid,"
	[ $bad = 0 ]
}

case_userns() {
	local lines t
	bad=0
	lines=$(getppid_events "$pid_userns")
	for t in uid euid suid gid egid sgid; do
		expect_all "$lines" C.$t 1000
		expect_all "$lines" C.v$t 0
	done
	expect_all "$lines" C.user_ns "$user_ns_userns"
	expect "user namespace differs from the initial one" \
		"$([ "$user_ns_userns" != "${init_ns[user]}" ] && echo yes)" yes
	[ $bad = 0 ] || show ctx "pid = $pid_userns,"
	[ $bad = 0 ]
}

case_namespaces() {
	local lines t
	bad=0
	lines=$(getppid_events "$pid_ns")
	for t in cgroup ipc mnt net pid user uts time; do
		expect_all "$lines" C.${t}_ns "${want_ns[$t]}"
		expect "$t namespace differs from the initial one" \
			"$([ "${want_ns[$t]}" != "${init_ns[$t]}" ] && echo yes)" yes
	done
	expect_all "$lines" C.hostname "ctx-host-$$"
	expect_all "$lines" C.vpid 1
	expect_all "$lines" C.vtid 1
	expect_all "$lines" C.vppid 0
	expect_all "$lines" C.ppid "$ppid_ns"
	[ $bad = 0 ] || show ctx "pid = $pid_ns,"
	[ $bad = 0 ]
}

case_state() {
	local lines waker wakee pre t
	bad=0
	expect "wakefifo workload status" "$st_wake" 0
	waker=$(kv "$out_wake" waker)
	wakee=$(kv "$out_wake" wakee)
	lines=$(events "$top/ctx.ev" ev=sched_wakeup "C.tid=$waker" "F.tid=$wakee")
	expect_all "$lines" C.need_reschedule 1
	expect_all "$lines" C.interruptible 0
	expect_all "$lines" C.preemptible 0
	# Every sched_switch runs with interrupts off, preemption disabled.
	lines=$(events "$top/ctx.ev" ev=sched_switch)
	for t in interruptible preemptible; do
		expect "sched_switch $t" "$(values C.$t <<<"$lines")" 0
	done
	# The wakee blocks in read() n times, then exits: each time the
	# parent is runnable, so __schedule() never drops the runqueue lock
	# (no idle balancing) and nothing can mark the wakee between the
	# clearing of its flag and the event.
	lines=$(events "$top/ctx.ev" ev=sched_switch "F.prev_tid=$wakee")
	# At least the n blocking ones; a preemption before the child became
	# SCHED_FIFO can add one.
	expect "at least $n sched_switch events of the wakee" \
		"$([ "$(grep -c . <<<"$lines")" -ge $n ] && echo yes)" yes
	expect "sched_switch need_reschedule (wakee)" "$(values C.need_reschedule <<<"$lines")" 0
	pre=0
	mountpoint -q /sys/kernel/debug || mount -t debugfs none /sys/kernel/debug 2>/dev/null
	if [ -r /sys/kernel/debug/sched/preempt ]; then
		grep -q '(full)' /sys/kernel/debug/sched/preempt && pre=1
	elif [[ " $(uname -v) " == *" PREEMPT "* ]]; then
		pre=1
	fi
	lines=$(getppid_events "$(kv "$out_creds" pid)")
	expect_all "$lines" C.interruptible 1
	expect_all "$lines" C.migratable 1
	expect_all "$lines" C.preemptible $pre
	[ $bad = 0 ] || show ctx "sched_wakeup.* tid = $wakee,"
	[ $bad = 0 ]
}

# stack KEY: per babeltrace2 text line on stdin, the addresses of the
# sequence KEY ("KEY = [ [0] = 0x..., [1] = 0x... ]"), space-separated.
stack() {
	awk -v k="$1 = [ " '{
		i = index($0, k)
		if (!i) {
			print ""
			next
		}
		rest = substr($0, i + length(k))
		rest = substr(rest, 1, index(rest, " ]") - 1)
		n = split(rest, e, ", ")
		out = ""
		for (j = 1; j <= n; j++) {
			sub(/^\[[0-9]+\] = /, "", e[j])
			out = out (j > 1 ? " " : "") e[j]
		}
		print out
	}'
}

# ksym NAME: "START END" of kernel function NAME, END the next symbol's
# address (/proc/kallsyms, sorted).
ksym() {
	sort /proc/kallsyms | awk -v n="$1" '
		found { print start, "0x" $1; exit }
		$3 == n && ($2 == "t" || $2 == "T") { start = "0x" $1; found = 1 }'
}

# in_range ADDR START END: START <= ADDR < END, as unsigned 64-bit.
in_range() {
	# Kernel addresses are negative as signed 64-bit: compare with the
	# sign bit flipped.
	local m=$((1 << 63))
	(( ($1 ^ m) >= ($2 ^ m) && ($1 ^ m) < ($3 ^ m) ))
}

case_callstacks() {
	local out pid leaf mid outer main end st line a got want k
	local sys_s sys_e sch_s sch_e n_ok nk ns
	bad=0
	session stacks || return 1
	lt enable-channel -k --subbuf-size=1M c || return 1
	lt add-context -k -c c -t tid -t callstack-kernel -t callstack-user || return 1
	lt enable-event -k -c c --syscall getppid || return 1
	lt enable-event -k -c c sched_switch || return 1
	lt start || return 1
	out=$("$here/stack_workload" $n)
	st=$?
	finish || return 1
	expect "stack_workload status" $st 0
	read_trace stacks
	bt_clean $? stacks || return 1
	pid=$(kv "$out" pid)
	leaf=$(kv "$out" leaf) mid=$(kv "$out" mid) outer=$(kv "$out" outer)
	main=$(kv "$out" main) end=$(kv "$out" end)
	read -r sys_s sys_e <<<"$(ksym do_syscall_64)"
	read -r sch_s sch_e <<<"$(ksym __schedule)"
	[ -n "$sys_e" ] && [ -n "$sch_e" ] ||
		{ echo "# do_syscall_64 or __schedule not in /proc/kallsyms"; return 1; }
	# User stacks: leaf, mid, outer, main, innermost first.
	n_ok=0
	while read -r line; do
		read -r -a a <<<"$(stack callstack_user <<<"$line")"
		if [ "${#a[@]}" -ge 4 ] && in_range "${a[0]}" "$leaf" "$mid" &&
		   in_range "${a[1]}" "$mid" "$outer" &&
		   in_range "${a[2]}" "$outer" "$main" &&
		   in_range "${a[3]}" "$main" "$end"; then
			n_ok=$((n_ok + 1))
		elif [ $n_ok = 0 ]; then
			echo "# user stack ${a[*]:0:5} not leaf=$leaf mid=$mid outer=$outer main=$main end=$end"
		fi
	done <<<"$(grep "syscall_entry_getppid: .* tid = $pid," "$top/stacks.txt")"
	expect "getppid entries with the user stack leaf, mid, outer, main" $n_ok $n
	# Kernel stacks: a return address in do_syscall_64 for each entry.
	n_ok=0
	while read -r line; do
		for k in $(stack callstack_kernel <<<"$line"); do
			in_range "$k" "$sys_s" "$sys_e" && { n_ok=$((n_ok + 1)); break; }
		done
	done <<<"$(grep "syscall_entry_getppid: .* tid = $pid," "$top/stacks.txt")"
	expect "getppid entries with do_syscall_64 in the kernel stack" $n_ok $n
	# ... and one in __schedule for each sched_switch.
	nk=0 ns=$(grep -c " sched_switch: " "$top/stacks.txt")
	while read -r line; do
		for k in $(stack callstack_kernel <<<"$line"); do
			in_range "$k" "$sch_s" "$sch_e" && { nk=$((nk + 1)); break; }
		done
	done <<<"$(grep " sched_switch: " "$top/stacks.txt")"
	expect "sched_switch events with __schedule in the kernel stack" $nk "$ns"
	expect "some sched_switch events" "$([ "$ns" -gt 0 ] && echo yes)" yes
	# A stack deeper than 128 entries: cut, and marked with ULONG_MAX.
	session deep || return 1
	lt enable-channel -k c || return 1
	lt add-context -k -c c -t tid -t callstack-user || return 1
	lt enable-event -k -c c --syscall getppid || return 1
	lt start || return 1
	out=$("$here/stack_workload" 3 200)
	finish || return 1
	read_trace deep
	bt_clean $? deep || return 1
	pid=$(kv "$out" pid)
	n_ok=0
	while read -r line; do
		read -r -a a <<<"$(stack callstack_user <<<"$line")"
		[ "${#a[@]}" = 129 ] && [ "${a[128],,}" = 0xffffffffffffffff ] &&
			in_range "${a[0]}" "$leaf" "$mid" && n_ok=$((n_ok + 1))
	done <<<"$(grep "syscall_entry_getppid: .* tid = $pid," "$top/deep.txt")"
	expect "getppid entries with 128 user frames and the ULONG_MAX mark" $n_ok 3
	[ $bad = 0 ] || show stacks "getppid: .* tid = $pid,"
	[ $bad = 0 ]
}

case_perf_counters() {
	local out pid st hw lines a b d p own cpu=$(($(nproc) - 1)) nf=1000
	bad=0
	if [ "$cpu" = 0 ]; then
		echo "# one CPU: the daemons' page faults would count with the workload's"
		return 1
	fi
	session perf || return 1
	lt enable-channel -k c || return 1
	lt add-context -k -c c -t tid -t perf:cpu:page-fault || return 1
	# A hardware counter: counted exactly when the guest has a PMU.
	hw=0
	[ -d /sys/bus/event_source/devices/cpu ] && hw=1
	timeout -s KILL 60 lttng add-context -k -c c -t perf:cpu:instructions >>"$log" 2>&1
	st=$?
	if [ $hw = 1 ]; then
		expect "add-context perf:cpu:instructions, with a PMU: status" $st 0
	else
		expect "add-context perf:cpu:instructions, no PMU: refused" \
			"$([ $st != 0 ] && echo refused)" refused
	fi
	lt enable-event -k -c c --syscall getppid || return 1
	lt start || return 1
	# Every process on CPU 0 (kernel threads refuse), the workload alone
	# on the last CPU; everyone back on every CPU after.
	pin_all 0
	out=$(taskset -c 0 "$wl" faults $nf $cpu)
	st=$?
	pin_all "0-$cpu"
	finish || return 1
	expect "faults workload status" $st 0
	read_trace perf
	bt_clean $? perf || return 1
	pid=$(kv "$out" pid)
	lines=$(events "$top/perf.ev" ev=syscall_entry_getppid "C.tid=$pid")
	expect "getppid entries of the faults workload" "$(grep -c . <<<"$lines")" 2
	read -r a b <<<"$(while read -r p; do field C.perf_cpu_page_fault <<<"$p"; done <<<"$lines" | xargs)"
	d=$((${b:-0} - ${a:-0}))
	own=$(kv "$out" minflt)
	echo "# perf_cpu_page_fault: $a -> $b, $d faults; $nf pages touched, $own minor faults of the workload"
	if [ "$d" -lt $nf ] || [ "$d" -gt $((${own:-0} + 16)) ]; then
		echo "# page faults between the two getppid(): $d, want $nf to $((${own:-0} + 16))"
		bad=1
	fi
	if [ $hw = 1 ]; then
		read -r a b <<<"$(while read -r p; do field C.perf_cpu_instructions <<<"$p"; done <<<"$lines" | xargs)"
		expect "instructions counted between the two getppid()" \
			"$([ "${b:-0}" -gt "${a:-0}" ] && echo yes)" yes
	else
		expect "no perf_cpu_instructions field" \
			"$(grep -c 'C.perf_cpu_instructions=' <<<"$lines")" 0
	fi
	[ $bad = 0 ] || show perf "getppid: .* tid = $pid,"
	[ $bad = 0 ]
}

# pin_all CPUS: every process's threads on CPUS (kernel threads refuse).
pin_all() {
	local p
	for p in $(ps -e -o pid=); do
		taskset -a -p -c "$1" "$p" >/dev/null 2>&1
	done
}

# The last CPU offline and online three times while a perf counter is
# recorded: the hotplug callbacks never create or release a counter (that
# takes the hotplug lock they run under), and the CPU counts again.
case_perf_hotplug() {
	local cpu=$(($(nproc) - 1)) f i out pid lines a b d p
	bad=0
	f=/sys/devices/system/cpu/cpu$cpu/online
	if [ "$cpu" = 0 ] || [ ! -w "$f" ]; then
		echo "# no CPU that can go offline"
		return 1
	fi
	session perfhp || return 1
	lt enable-channel -k c || return 1
	lt add-context -k -c c -t tid -t perf:cpu:page-fault || return 1
	lt enable-event -k -c c --syscall getppid || return 1
	lt start || return 1
	for i in 1 2 3; do
		timeout 60 sh -c "echo 0 >$f" || { echo "# cpu$cpu offline failed or hung"; bad=1; }
		timeout 60 sh -c "echo 1 >$f" || { echo "# cpu$cpu online failed or hung"; bad=1; }
	done
	# The counter is created by a work item after the CPU came up.
	sleep 1
	pin_all 0
	out=$(taskset -c 0 "$wl" faults 200 $cpu)
	pin_all "0-$cpu"
	finish || return 1
	read_trace perfhp
	bt_clean $? perfhp || return 1
	pid=$(kv "$out" pid)
	lines=$(events "$top/perfhp.ev" ev=syscall_entry_getppid "C.tid=$pid")
	read -r a b <<<"$(while read -r p; do field C.perf_cpu_page_fault <<<"$p"; done <<<"$lines" | xargs)"
	d=$((${b:-0} - ${a:-0}))
	expect "page faults counted on cpu$cpu after the hotplug cycles (at least 200)" \
		"$([ "$d" -ge 200 ] && echo yes)" yes
	[ $bad = 0 ] || show perfhp "getppid: .* tid = $pid,"
	[ $bad = 0 ]
}

for c in $cases; do
	ktap_check "$c" "case_$c"
done

lttng_teardown
ktap_exit
