#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# description: trinity, the system call fuzzer, runs unprivileged while a
#   session records every trace event and every system call with the pid
#   and procname contexts: the session's commands all succeed, trinity
#   makes the calls it was asked for, babeltrace2 reads the whole trace
#   (bounded to 4 rotating files of 16 MiB per CPU)
#   (nothing on stderr but discarded-events warnings), the trace holds
#   system call events of trinity's processes (pid and procname of the
#   processes seen running), the kernel logs no warning, the session's
#   module references are all released at destroy, and a new session
#   records.
#   TRINITY_OPS (default 2000) sets the number of calls; a longer run:
#   scripts/qemu-run --variant debug -- env TRINITY_OPS=100000 \
#   /opt/tests/trinity.sh
# requires: lttng-tools 2.13, babeltrace2, trinity, setpriv, root
. "$(dirname "$0")/ktap.sh"
. "$(dirname "$0")/lttng_env.sh"
cases="session_commands trinity_ran babeltrace2_clean trinity_recorded
	dmesg_clean refs_released new_session_records"
ktap_plan 7
ops=${TRINITY_OPS:-2000}

for tool in lttng-sessiond babeltrace2 trinity setpriv; do
	if ! command -v $tool >/dev/null; then
		echo "# $tool is not installed in the guest image (qemu-images/packages)"
		for c in $cases; do ktap_fail "$c"; done
		ktap_exit
	fi
done

# refs: the use counts of the tracer's loaded modules (none when built in:
# then the case checks nothing, and says so).
refs() { grep '^lttng' /proc/modules | awk '{ print $1, $3 }' | sort; }

lttng_setup /tmp/trinity
# lttng-sessiond has loaded the channel clients: what a session adds to
# their counts, destroy must give back.
refs_before=$(refs)
dmesg_lines=$(dmesg | wc -l)
ok=1
run lttng create t -o "$top/trace" || ok=0
# The trace is bounded (4 files of 16 MiB per CPU, the oldest reused): on
# the debug kernel, lockdep's events alone filled the guest's tmpfs.
run lttng enable-channel -k c --subbuf-size 256k --num-subbuf 8 \
	--tracefile-size 16M --tracefile-count 4 || ok=0
run lttng enable-event -k -c c -a || ok=0
run lttng add-context -k -c c -t pid -t procname || ok=0
run lttng start || ok=0

# trinity refuses to run as root; it writes its files in its directory.
# Its socket setup walks every protocol family the kernel lacks: off.
mkdir -p "$top/run" && chmod 777 "$top/run"
(cd "$top/run" && timeout -s INT 600 setpriv --reuid 65534 --regid 65534 --clear-groups -- \
	trinity -q -N "$ops" -C 2 --disable-fds=sockets >"$top/trinity.log" 2>&1) &
tpid=$!
# trinity's processes, while they run (the main one and its children).
pids=
while kill -0 $tpid 2>/dev/null; do
	pids+=" $(pgrep -u 65534 -x 'trinity.*' | tr '\n' ' ')"
	sleep 1
done
wait $tpid
trinity_st=$?
run lttng stop || ok=0
run lttng destroy || ok=0
refs_after=$(refs)
lttng_teardown
[ $ok = 1 ] || tail -n 20 "$log" | sed 's/^/# /'
ktap_status session_commands $((1 - ok))

ran=$(sed -n 's/.*Ran \([0-9]*\) syscalls.*/\1/p' "$top/trinity.log" | tail -n 1)
echo "# trinity: status $trinity_st, ${ran:-no} calls made of $ops asked"
[ "$trinity_st" = 0 ] && [ "${ran:-0}" -ge "$ops" ]
st=$?
[ $st = 0 ] || grep -v "Can't do protocol\|Couldn't open socket" "$top/trinity.log" | tail -n 10 | sed 's/^/#   /'
ktap_status trinity_ran $st

# Every event decoded (the counter sink: no text to format), then the
# text of the first system call entries of trinity's processes.
timeout -s KILL 300 babeltrace2 "$top/trace" -c sink.utils.counter >"$top/count.txt" 2>"$top/bt.err"
bt_st=$?
other=$(grep -v 'Tracer discarded [0-9]* events\? ' "$top/bt.err")
echo "# babeltrace2: status $bt_st, $(grep -c 'Tracer discarded' "$top/bt.err") discarded-events warnings"
sed 's/^/#   /' "$top/count.txt" | tail -n 3
[ "$bt_st" = 0 ] && [ -z "$other" ]
st=$?
[ $st = 0 ] || head -n 10 <<<"$other" | sed 's/^/#   /'
ktap_status babeltrace2_clean $st

# System call entries whose pid context is one of trinity's processes and
# whose procname is trinity's: the first 100 are enough.
pat=$(tr ' ' '\n' <<<"$pids" | sort -u | grep . | paste -sd'|')
n=$(timeout -s KILL 120 babeltrace2 "$top/trace" 2>/dev/null |
	grep -E -m 100 "syscall_entry_[a-z0-9_]*: .*\{ pid = ($pat), procname = \"trinity" | wc -l)
echo "# $(tr '|' '\n' <<<"$pat" | grep -c .) trinity processes seen running, $n system call entries of theirs found (want 100)"
ktap_check trinity_recorded [ "$n" = 100 ]

new=$(dmesg | tail -n +$((dmesg_lines + 1)) | grep -E 'WARNING|BUG|Oops|KASAN|UBSAN|lockdep|lttng' |
	grep -v 'loading out-of-tree\|taints kernel')
[ -z "$new" ] || head -n 10 <<<"$new" | sed 's/^/# dmesg: /'
ktap_check dmesg_clean [ -z "$new" ]

[ -n "$refs_before" ] || echo "# the driver is built in: no module references to count"
[ "$refs_before" = "$refs_after" ] || { echo "# before: $refs_before"; echo "# after: $refs_after"; }
ktap_check refs_released [ "$refs_before" = "$refs_after" ]

lttng_setup /tmp/trinity-after
ok=1
run lttng create a -o "$top/trace" || ok=0
run lttng enable-event -k sched_process_exec || ok=0
run lttng start || ok=0
for i in 1 2 3; do /bin/true; done
run lttng stop || ok=0
run lttng destroy || ok=0
lttng_teardown
execs=$(babeltrace2 "$top/trace" 2>/dev/null | grep -c 'sched_process_exec: .*filename = "/bin/true"')
echo "# new session: $execs exec events of /bin/true (3 made)"
[ $ok = 1 ] && [ "$execs" = 3 ]
ktap_status new_session_records $?
rm -rf /tmp/trinity /tmp/trinity-after
ktap_exit
