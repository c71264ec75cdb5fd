#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# description: the stock lttng-tools record kernel trace events that
#              babeltrace2 reads back with the values the test caused:
#              fork/exec/exit of a child it forks, the sched_switch and
#              sched_wakeup counts of a SCHED_FIFO ping-pong, context
#              fields, timestamps,
#              mmap/overwrite/snapshot output, and exact accounting of
#              recorded plus discarded events
# requires: lttng-tools 2.13 and babeltrace2 in the guest, root
#           (SCHED_FIFO), trace_workload next to this script
# shellcheck disable=SC2317 # the case_* functions run through ktap_check
. "$(dirname "$0")/ktap.sh"
. "$(dirname "$0")/trace_text.sh"
here=$(cd "$(dirname "$0")" && pwd)
wl=$here/trace_workload
cases="list_kernel_events wildcard_sched_process fork_exec_exit
	pingpong_sched_switch pingpong_sched_wakeup contexts
	timestamps_per_cpu_ordered
	timestamps_in_session_window output_mmap output_overwrite
	output_snapshot discard_accounting"
ktap_plan 12

skip_all() { ktap_skip_all "$1" $cases; }
command -v lttng-sessiond >/dev/null && command -v babeltrace2 >/dev/null ||
	skip_all "lttng-tools or babeltrace2 not installed"
[ -x "$wl" ] || skip_all "$wl not installed"
[ "$(id -u)" = 0 ] || skip_all "not root"

top=/tmp/trace_events
rm -rf $top
mkdir -p $top/bin
# The exec target: a path and a comm no other process has.
exec_target=$top/bin/tev-true
cp /bin/true $exec_target
pingpong_n=1000
forks_m=${TRACE_EVENTS_FORKS:-10000}

pkill lttng-sessiond 2>/dev/null
lttng-sessiond -d >$top/sessiond.log 2>&1
for _ in $(seq 100); do
	lttng list >/dev/null 2>&1 && break
	sleep 0.2
done

# fork_exec_exit_seen NAME OUT: the trace of session NAME has exactly one
# fork, one exec and one exit of the child of the forkexec workload whose
# output is OUT, with the values the workload gave them, in that order.
fork_exec_exit_seen() {
	local name=$1 out=$2 f=$top/$1.ev parent child fork exec exit
	parent=$(kv "$out" parent)
	child=$(kv "$out" child)
	expect "forkexec workload status" "$(kv "$out" status)" 0
	[ -n "$parent" ] && [ -n "$child" ] || { echo "# workload said '$out'"; bad=1; return 1; }
	fork=$(events "$f" ev=sched_process_fork F.child_pid="$child")
	exec=$(events "$f" ev=sched_process_exec F.tid="$child")
	exit=$(events "$f" ev=sched_process_exit F.tid="$child")
	expect "sched_process_fork events with child_pid=$child" "$(grep -c . <<<"$fork")" 1
	expect "sched_process_exec events with tid=$child" "$(grep -c . <<<"$exec")" 1
	expect "sched_process_exit events with tid=$child" "$(grep -c . <<<"$exit")" 1
	# lttng-modules' fork: *_tid the threads, *_pid their processes.
	expect "fork parent_pid" "$(field F.parent_pid <<<"$fork")" "$parent"
	expect "fork parent_tid" "$(field F.parent_tid <<<"$fork")" "$parent"
	expect "fork child_tid" "$(field F.child_tid <<<"$fork")" "$child"
	expect "fork child_ns_inum" "$(field F.child_ns_inum <<<"$fork")" \
		"$(stat -L -c %i /proc/self/ns/pid)"
	expect "fork parent_comm" "$(field F.parent_comm <<<"$fork")" trace_workload
	expect "fork child_comm" "$(field F.child_comm <<<"$fork")" trace_workload
	expect "exec filename" "$(field F.filename <<<"$exec")" "$exec_target"
	expect "exec old_tid" "$(field F.old_tid <<<"$exec")" "$child"
	expect "exit comm" "$(field F.comm <<<"$exit")" tev-true
	if [ "$(grep -c . <<<"$fork$exec$exit")" = 3 ]; then
		local lf le lx
		lf=$(field ln <<<"$fork")
		le=$(field ln <<<"$exec")
		lx=$(field ln <<<"$exit")
		if ! [ "$lf" -lt "$le" ] || ! [ "$le" -lt "$lx" ]; then
			echo "# fork, exec, exit out of order: lines $lf, $le, $lx"
			bad=1
		fi
	fi
	[ $bad = 0 ] || show "$name" "(pid|tid) = ($parent|$child)[,} ]"
	[ $bad = 0 ]
}

case_list_kernel_events() {
	local out ev ok=1
	log=$top/list.log
	out=$(timeout -s KILL 60 lttng list -k 2>&1)
	echo "$out" >"$log"
	for ev in sched_switch irq_handler_entry sched_process_fork irq_softirq_entry; do
		if ! grep -qE "^[[:space:]]+${ev}[[:space:]]" <<<"$out"; then
			echo "# 'lttng list -k' does not list $ev"
			ok=0
		fi
	done
	[ $ok = 1 ] || head -n 20 <<<"$out" | sed 's/^/# list: /'
	[ $ok = 1 ]
}

case_wildcard_sched_process() {
	local out st bad=0 n
	session wildcard || return 1
	lt enable-event -k 'sched_process_*' && lt start || return 1
	out=$("$wl" forkexec "$exec_target")
	finish || return 1
	read_trace wildcard
	bt_clean $? wildcard
	fork_exec_exit_seen wildcard "$out"
	expect "sched_switch events" "$(count "$top/wildcard.ev" ev=sched_switch)" 0
	n=$(grep -vc $'\tev=sched_process_[a-z]*\t' "$top/wildcard.ev")
	expect "events not named sched_process_*" "$n" 0
	[ "$n" = 0 ] || grep -v $'\tev=sched_process_' "$top/wildcard.ev" | head -n 5 | sed 's/^/# /'
	[ $bad = 0 ]
}

case_fork_exec_exit() {
	local out bad=0 e
	session fee || return 1
	for e in sched_process_fork sched_process_exec sched_process_exit; do
		lt enable-event -k $e || return 1
	done
	lt start || return 1
	out=$("$wl" forkexec "$exec_target")
	finish || return 1
	read_trace fee
	bt_clean $? fee
	fork_exec_exit_seen fee "$out"
}

# The ping-pong cases share one session: sched_switch and sched_wakeup
# while trace_workload's two SCHED_FIFO threads hand a byte back and forth
# $pingpong_n times on one CPU.  pp_a, pp_b: their tids; pp_cpu: the CPU.
pp_ok=0
pingpong_session() {
	local out bad=0 rt st
	session pingpong || return 1
	lt enable-event -k sched_switch && lt enable-event -k sched_wakeup &&
		lt start || return 1
	# No RT throttling: it would switch the ping-pong threads out.
	rt=$(cat /proc/sys/kernel/sched_rt_runtime_us)
	echo -1 >/proc/sys/kernel/sched_rt_runtime_us
	out=$("$wl" pingpong $pingpong_n tev-ping tev-pong)
	st=$?
	echo "$rt" >/proc/sys/kernel/sched_rt_runtime_us
	finish || return 1
	expect "pingpong workload status" "$st" 0
	pp_a=$(kv "$out" a)
	pp_b=$(kv "$out" b)
	pp_cpu=$(kv "$out" cpu)
	if [ -z "$pp_a" ] || [ -z "$pp_b" ] || [ "$(kv "$out" n)" != $pingpong_n ]; then
		echo "# workload said '$out'"
		return 1
	fi
	read_trace pingpong
	bt_clean $? pingpong
	[ $bad = 0 ] && pp_ok=1
}

# Each handoff is one switch, both ways (see trace_workload.c), with the
# names, the priorities (the kernel's 99 - rt priority 10 = 89, minus 100
# as lttng-modules records it: -11) and the CPU of the two threads.
case_pingpong_sched_switch() {
	local bad=0 a b cpu n=$pingpong_n f=$top/pingpong.ev
	pingpong_session || return 1
	a=$pp_a b=$pp_b cpu=$pp_cpu
	expect "switches prev_tid=$a next_tid=$b" \
		"$(count $f ev=sched_switch F.prev_tid="$a" F.next_tid="$b")" "$n"
	expect "switches prev_tid=$b next_tid=$a" \
		"$(count $f ev=sched_switch F.prev_tid="$b" F.next_tid="$a")" "$n"
	expect "switches tev-ping -> tev-pong, prio -11, on CPU $cpu" \
		"$(count $f ev=sched_switch P.cpu_id="$cpu" F.prev_tid="$a" F.next_tid="$b" \
			F.prev_comm=tev-ping F.next_comm=tev-pong F.prev_prio=-11 F.next_prio=-11)" "$n"
	expect "switches tev-pong -> tev-ping, prio -11, on CPU $cpu" \
		"$(count $f ev=sched_switch P.cpu_id="$cpu" F.prev_tid="$b" F.next_tid="$a" \
			F.prev_comm=tev-pong F.next_comm=tev-ping F.prev_prio=-11 F.next_prio=-11)" "$n"
	[ $bad = 0 ] || show pingpong "_tid = ($a|$b)[,} ]"
	[ $bad = 0 ]
}

# between FROM TO: the normalized events on stdin from text line FROM to TO.
between() {
	awk -F '\t' -v from="$1" -v to="$2" '
		{ l = substr($2, 4) + 0 }
		l >= from && l <= to'
}

# From the first switch A -> B to the last switch B -> A, each write wakes
# the other thread: A is woken N times (by B's N writes), B N - 1 times
# (A's first write comes before the window); each wakeup names the thread,
# its priority and its CPU.
case_pingpong_sched_wakeup() {
	local bad=0 a=$pp_a b=$pp_b cpu=$pp_cpu n=$pingpong_n f=$top/pingpong.ev from to
	[ $pp_ok = 1 ] || { echo "# the ping-pong session failed"; return 1; }
	from=$(events $f ev=sched_switch F.prev_tid="$a" F.next_tid="$b" | head -n 1 | field ln)
	to=$(events $f ev=sched_switch F.prev_tid="$b" F.next_tid="$a" | tail -n 1 | field ln)
	[ -n "$from" ] && [ -n "$to" ] || { echo "# no ping-pong switches"; return 1; }
	expect "wakeups of tid $a" \
		"$(events $f ev=sched_wakeup F.tid="$a" | between "$from" "$to" | wc -l)" "$n"
	expect "wakeups of tid $b" \
		"$(events $f ev=sched_wakeup F.tid="$b" | between "$from" "$to" | wc -l)" $((n - 1))
	expect "wakeups of tev-ping, prio -11, target_cpu $cpu, on CPU $cpu" \
		"$(events $f ev=sched_wakeup P.cpu_id="$cpu" F.tid="$a" F.comm=tev-ping F.prio=-11 \
			F.target_cpu="$cpu" | between "$from" "$to" | wc -l)" "$n"
	expect "wakeups of tev-pong, prio -11, target_cpu $cpu, on CPU $cpu" \
		"$(events $f ev=sched_wakeup P.cpu_id="$cpu" F.tid="$b" F.comm=tev-pong F.prio=-11 \
			F.target_cpu="$cpu" | between "$from" "$to" | wc -l)" $((n - 1))
	[ $bad = 0 ] || show pingpong "sched_wakeup: .* tid = ($a|$b)[,} ]"
	[ $bad = 0 ]
}

# The stock lttng 2.13 has no cpu_id context ('Unknown context type
# cpu_id'): the CPU is checked in the packet context, against the CPU the
# child moved to before exiting (the last one).
case_contexts() {
	local out bad=0 parent child line f=$top/contexts.ev t cpu=$(($(nproc) - 1))
	session contexts || return 1
	lt enable-event -k sched_process_exit || return 1
	lt add-context -k -t pid -t tid -t procname -t prio -t nice -t ppid \
		-t vpid -t vtid || return 1
	lt start || return 1
	out=$("$wl" nicechild 7 tev-nice7 $cpu)
	finish || return 1
	expect "nicechild workload status" "$(kv "$out" status)" 0
	parent=$(kv "$out" parent)
	child=$(kv "$out" child)
	read_trace contexts
	bt_clean $? contexts
	line=$(events $f ev=sched_process_exit F.tid="$child")
	expect "sched_process_exit events with tid=$child" "$(grep -c . <<<"$line")" 1
	for t in pid tid vpid vtid; do
		expect "context $t" "$(field C.$t <<<"$line")" "$child"
	done
	expect "context procname" "$(field C.procname <<<"$line")" tev-nice7
	expect "context nice" "$(field C.nice <<<"$line")" 7
	expect "context prio (task_prio: 20 + nice)" "$(field C.prio <<<"$line")" 27
	expect "context ppid" "$(field C.ppid <<<"$line")" "$parent"
	expect "packet cpu_id" "$(field P.cpu_id <<<"$line")" $cpu
	expect "payload comm" "$(field F.comm <<<"$line")" tev-nice7
	expect "payload prio (lttng-modules: p->prio - 100 = 20 + nice)" "$(field F.prio <<<"$line")" 27
	[ $bad = 0 ] || show contexts "pid = ${child}[,} ]"
	[ $bad = 0 ]
}

# The timestamps cases share one session: sched_switch, sched_wakeup and
# sched_process_* while a fork/exec and a short ping-pong run.
ts_t0=0
ts_t1=0
ts_ok=0
timestamps_session() {
	local e out bad=0
	session timestamps || return 1
	for e in sched_switch sched_wakeup 'sched_process_*'; do
		lt enable-event -k "$e" || return 1
	done
	ts_t0=$(date +%s%N)
	lt start || return 1
	out=$("$wl" forkexec "$exec_target")
	"$wl" pingpong 50 tev-ping tev-pong >/dev/null
	lt stop || return 1
	ts_t1=$(date +%s%N)
	lt destroy || return 1
	read_trace timestamps
	bt_clean $? timestamps
	# The workload's events are there (else the window is vacuous).
	fork_exec_exit_seen timestamps "$out"
	[ $bad = 0 ] && ts_ok=1
}

case_timestamps_per_cpu_ordered() {
	timestamps_session || return 1
	awk -F '\t' '
	{
		cpu = ""; ts = ""
		for (i = 1; i <= NF; i++) {
			if (index($i, "P.cpu_id=") == 1)
				cpu = substr($i, 10)
			else if (index($i, "ts=") == 1)
				ts = substr($i, 4)
			else if (index($i, "ln=") == 1)
				l = substr($i, 4)
		}
		if (cpu == "" || split(ts, t, ".") != 2 || length(t[2]) != 9) {
			printf "# no cpu_id or seconds.nanoseconds timestamp: %s\n", $0
			bad = 1
			next
		}
		n++
		t[1] += 0
		t[2] += 0
		if (cpu in s && (t[1] < s[cpu] || (t[1] == s[cpu] && t[2] < ns[cpu]))) {
			printf "# CPU %s: %s after %d.%09d (text lines %s, %s)\n",
				cpu, ts, s[cpu], ns[cpu], ln[cpu], l
			bad = 1
		}
		s[cpu] = t[1]
		ns[cpu] = t[2]
		ln[cpu] = l
	}
	END { if (!n) print "# no event"; exit bad || !n }' "$top/timestamps.ev"
}

case_timestamps_in_session_window() {
	[ $ts_ok = 1 ] || { echo "# the timestamps session failed"; return 1; }
	awk -F '\t' -v t0s="${ts_t0%?????????}" -v t0n="${ts_t0: -9}" \
		-v t1s="${ts_t1%?????????}" -v t1n="${ts_t1: -9}" '
	{
		for (i = 1; i <= NF; i++)
			if (index($i, "ts=") == 1)
				ts = substr($i, 4)
		split(ts, t, ".")
		t[1] += 0; t[2] += 0
		if (t[1] < t0s || (t[1] == t0s && t[2] < t0n) ||
		    t[1] > t1s || (t[1] == t1s && t[2] > t1n)) {
			printf "# %s outside [%s.%09d, %s.%09d]: %s\n", ts, t0s, t0n, t1s, t1n, $0
			if (++bad == 5)
				exit 1
		}
		n++
	}
	END { if (!n) print "# no event"; exit bad || !n }' "$top/timestamps.ev"
}

# output MODE: the fork/exec/exit scenario through one output mode.
output_mode() {
	local mode=$1 out bad=0 e create=() chan=()
	case $mode in
	mmap) chan=(--output mmap) ;;
	overwrite) chan=(--overwrite) ;;
	snapshot) create=(--snapshot) ;;
	esac
	session "$mode" "${create[@]}" || return 1
	lt enable-channel -k c0 "${chan[@]}" || return 1
	for e in sched_process_fork sched_process_exec sched_process_exit; do
		lt enable-event -k -c c0 $e || return 1
	done
	lt start || return 1
	out=$("$wl" forkexec "$exec_target")
	if [ "$mode" = snapshot ]; then
		lt snapshot record || return 1
	fi
	finish || return 1
	read_trace "$mode"
	bt_clean $? "$mode"
	fork_exec_exit_seen "$mode" "$out"
}
case_output_mmap() { output_mode mmap; }
case_output_overwrite() { output_mode overwrite; }
case_output_snapshot() { output_mode snapshot; }

# A 2 x 4 KiB discard channel and only sched_process_fork, while the
# workload forks M children as fast as it can: every fork is either
# recorded or counted as discarded.  The consumer is woken every 2 s (read
# timer) and finds at most the two sub-buffers (some 150 records) full, so
# discards are certain even on a slow host.  The workload is started before the
# session and released through a FIFO, so the only other forks while
# tracing are the shell's ('lttng stop', the timeout it runs), after the
# workload has let the consumer drain the buffers for 5 s.
case_discard_accounting() {
	local bad=0 wpid st parent recorded discarded others f=$top/discard.ev
	session discard || return 1
	lt enable-channel -k c0 --subbuf-size 4096 --num-subbuf 2 --output splice \
		--read-timer 2000000 || return 1
	lt enable-event -k -c c0 sched_process_fork || return 1
	rm -f $top/go
	mkfifo $top/go
	"$wl" forks "$forks_m" 5 <$top/go >$top/forks.out 2>&1 &
	wpid=$!
	exec 8>$top/go
	if ! lt start; then
		exec 8>&-
		wait $wpid
		return 1
	fi
	echo go >&8
	exec 8>&-
	wait $wpid
	st=$?
	finish || return 1
	expect "forks workload status" "$st" 0
	parent=$(kv "$(cat $top/forks.out)" parent)
	expect "forks workload pid" "$parent" "$wpid"
	read_trace discard
	expect "babeltrace2 status" $? 0
	recorded=$(count $f ev=sched_process_fork F.parent_pid="$wpid")
	discarded=$(sed -n 's/.*Tracer discarded \([0-9]*\) events\? .*/\1/p' $top/discard.err |
		awk '{ n += $1 } END { print n + 0 }')
	echo "# $forks_m forks in $(kv "$(cat $top/forks.out)" ms) ms: $recorded recorded, $discarded discarded"
	expect "recorded + discarded" $((recorded + discarded)) "$forks_m"
	if [ "$discarded" = 0 ]; then
		echo "# nothing discarded: the case tested nothing (raise TRACE_EVENTS_FORKS)"
		bad=1
	fi
	# Other forks: only this shell's, and its children's ('lttng stop').
	others=$(awk -F '\t' -v wl="$wpid" -v sh="$$" '
		{
			parent = child = ""
			for (i = 1; i <= NF; i++) {
				if (index($i, "F.parent_pid=") == 1)
					parent = substr($i, 14)
				else if (index($i, "F.child_pid=") == 1)
					child = substr($i, 13)
			}
			if (parent == wl)
				next
			if (parent == sh || parent in ours)
				ours[child] = 1
			else
				print
		}' $f)
	if [ -n "$others" ]; then
		echo "# sched_process_fork events from other processes:"
		head -n 5 <<<"$others" | sed 's/^/# /'
		bad=1
	fi
	# Anything else on stderr than the discarded-events warnings.
	if grep -v 'discarded [0-9]* event' $top/discard.err | grep -q .; then
		echo "# babeltrace2 stderr has more than discarded-events warnings:"
		grep -v 'discarded [0-9]* event' $top/discard.err | head -n 5 | sed 's/^/#   /'
		bad=1
	fi
	[ $bad = 0 ]
}

for c in $cases; do
	ktap_check "$c" "case_$c"
done

timeout -s KILL 60 lttng destroy -a >/dev/null 2>&1
pkill lttng-sessiond
for _ in $(seq 100); do pgrep lttng-sessiond >/dev/null || break; sleep 0.2; done
if pgrep lttng-sessiond >/dev/null; then
	echo "# lttng-sessiond did not exit"
	pkill -9 lttng-consumerd
	pkill -9 lttng-sessiond
fi
ktap_exit
