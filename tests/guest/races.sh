#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# description: races of the control side with the real daemons.  Four
#   sessions are created, started, stopped and destroyed in parallel, in
#   loops, while a workload forks and makes system calls on every CPU;
#   then lttng-sessiond and lttng-consumerd are killed with SIGKILL in
#   the middle of a recording session (consumer first, session daemon
#   first, both at once).  After each kill the kernel must release what
#   the dead daemons held (the channel clients' module use counts come
#   back to zero, so every session, channel and stream is gone), the
#   kernel logs nothing, and a new session records exactly the execs a
#   workload makes.
# requires: lttng-tools 2.13, babeltrace2, root; module counts need the
#   driver as modules (built in, the release is checked by the new session
#   only, and the case says so)
. "$(dirname "$0")/ktap.sh"
. "$(dirname "$0")/lttng_env.sh"
kills="consumerd_first sessiond_first both"
ktap_plan 5
slow=${LTTNG_SLOW:-1}
loops=${RACES_LOOPS:-5}

if ! command -v lttng-sessiond >/dev/null || ! command -v babeltrace2 >/dev/null; then
	echo "# lttng-tools or babeltrace2 is not installed in the guest image"
	for c in parallel_sessions parallel_dmesg_clean $kills; do ktap_fail "$c"; done
	ktap_exit
fi

# client_uses: the summed use counts of the channel client modules, or
# "builtin" when the driver is built in.
client_uses() {
	if grep -q '^lttng_tracer ' /proc/modules; then
		awk '$1 ~ /^lttng_ring_buffer_/ { n += $3 } END { print n + 0 }' /proc/modules
	else
		echo builtin
	fi
}

# workload SECONDS: fork/exec and system calls on every CPU.
workload() {
	local cpu end=$((SECONDS + $1))
	for cpu in $(seq 0 $(($(nproc) - 1))); do
		(taskset -pc "$cpu" $BASHPID >/dev/null
		 while [ $SECONDS -lt $end ]; do /bin/true; cat /proc/self/stat >/dev/null; done) &
	done
	wait
}

# new_session_records DIR: a fresh session records exactly the 3 execs
# of /bin/true made while it runs.
new_session_records() {
	local ok=1 n
	run lttng create chk -o "$1" || ok=0
	run lttng enable-event -k sched_process_exec || ok=0
	run lttng start || ok=0
	for n in 1 2 3; do /bin/true; done
	run lttng stop || ok=0
	run lttng destroy || ok=0
	n=$(babeltrace2 "$1" 2>/dev/null | grep -c 'sched_process_exec: .*filename = "/bin/true"')
	echo "# new session: $n exec events of /bin/true (3 made)"
	[ $ok = 1 ] && [ "$n" = 3 ]
}

lttng_setup /tmp/races
dmesg_lines=$(dmesg | wc -l)

# Parallel sessions: each loop its own session name and output.
loop() {
	local i s=$1 bad=0
	for i in $(seq "$loops"); do
		timeout -s KILL $((60 * slow)) lttng create "p$s-$i" -o "$top/p$s-$i" >/dev/null 2>&1 &&
		timeout -s KILL $((60 * slow)) lttng enable-event -k -s "p$s-$i" sched_switch,sched_process_exec >/dev/null 2>&1 &&
		timeout -s KILL $((60 * slow)) lttng enable-event -k -s "p$s-$i" --syscall getppid >/dev/null 2>&1 &&
		timeout -s KILL $((60 * slow)) lttng start "p$s-$i" >/dev/null 2>&1 &&
		timeout -s KILL $((60 * slow)) lttng stop "p$s-$i" >/dev/null 2>&1 &&
		timeout -s KILL $((60 * slow)) lttng destroy "p$s-$i" >/dev/null 2>&1 || bad=$((bad + 1))
	done
	echo "$bad" >"$top/loop$s"
}
workload $((10 * slow)) &
wpid=$!
for s in 1 2 3 4; do loop $s & done
wait
bad=$(cat "$top"/loop* | awk '{ n += $1 } END { print n + 0 }')
echo "# parallel sessions: 4 x $loops create/enable/start/stop/destroy, $bad failed"
ktap_check parallel_sessions [ "$bad" = 0 ]
new=$(dmesg | tail -n +$((dmesg_lines + 1)) | grep -E 'WARNING|BUG|Oops|KASAN|UBSAN|lockdep|lttng')
[ -z "$new" ] || head -n 10 <<<"$new" | sed 's/^/# dmesg: /'
ktap_check parallel_dmesg_clean [ -z "$new" ]

base=$(client_uses)
for k in $kills; do
	lttng_setup "/tmp/races-$k"
	dmesg_lines=$(dmesg | wc -l)
	ok=1
	run lttng create k -o "$top/k" || ok=0
	run lttng enable-channel -k c --subbuf-size 64k --num-subbuf 4 || ok=0
	run lttng enable-event -k -c c --tracepoint -a || ok=0
	run lttng enable-event -k -c c --syscall -a || ok=0
	run lttng start || ok=0
	workload 2 &
	sleep 1
	held=$(client_uses)
	echo "# $k: clients' use count while recording: $held"
	[ "$held" = builtin ] || [ "$held" -gt "$base" ] || ok=0
	case $k in
	consumerd_first) pkill -KILL lttng-consumerd; sleep 0.5; pkill -KILL lttng-sessiond ;;
	sessiond_first) pkill -KILL lttng-sessiond; sleep 0.5; pkill -KILL lttng-consumerd ;;
	both) pkill -KILL -f 'lttng-(sessiond|consumerd)' ;;
	esac
	wait
	# The daemons' files are closed when they exit: sessions go with them.
	for i in $(seq $((100 * slow))); do
		pgrep -f 'lttng-(sessiond|consumerd)' >/dev/null || [ "$(client_uses)" != "$base" ] || break
		sleep 0.2
	done
	uses=$(client_uses)
	[ "$uses" != builtin ] || echo "# $k: the driver is built in: no module counts, the new session checks the release"
	echo "# $k: clients' use count $uses (before the session: $base)"
	[ "$uses" = "$base" ] || ok=0
	pgrep -af 'lttng-(sessiond|consumerd)' | sed 's/^/# still running: /'
	pgrep -f 'lttng-(sessiond|consumerd)' >/dev/null && ok=0
	lttng_setup "/tmp/races-$k-after"
	new_session_records "$top/chk" || ok=0
	new=$(dmesg | tail -n +$((dmesg_lines + 1)) | grep -E 'WARNING|BUG|Oops|KASAN|UBSAN|lockdep|lttng')
	[ -z "$new" ] || { head -n 10 <<<"$new" | sed 's/^/# dmesg: /'; ok=0; }
	[ $ok = 1 ] || tail -n 20 "$log" | sed 's/^/# /'
	ktap_status "$k" $((1 - ok))
done
lttng_teardown
rm -rf /tmp/races /tmp/races-*
ktap_exit
