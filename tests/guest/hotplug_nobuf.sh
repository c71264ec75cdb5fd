#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# description: a CPU online for the first time after a channel's streams
#   were handed to lttng-consumerd comes up without a buffer of that
#   channel (none would be read), and what it would have recorded is
#   counted.  CPU 1 is taken offline, then a session gets a discard
#   channel (lttng-sessiond has lttng-consumerd take its streams at once),
#   then CPU 1 comes back.
#   online: CPU 1 comes up, and the kernel log says it has no buffer.
#   counted: of N lttng_logger messages written on CPU 1 and M on CPU 0,
#     the trace holds the M, and babeltrace2 reports exactly N discarded
#     events, in CPU 0's stream.
# requires: lttng-tools 2.13, babeltrace2, taskset, CONFIG_HOTPLUG_CPU,
#   2 CPUs, root
. "$(dirname "$0")/ktap.sh"
. "$(dirname "$0")/lttng_env.sh"
cases="online counted"
ktap_plan "$(wc -w <<<"$cases")"

skip_all() { ktap_skip_all "$1" $cases; }
[ "$(id -u)" = 0 ] || skip_all "not root"
command -v lttng-sessiond >/dev/null && command -v babeltrace2 >/dev/null ||
	skip_all "lttng-tools or babeltrace2 not installed"
online=/sys/devices/system/cpu/cpu1/online
[ -w $online ] || skip_all "CPU 1 cannot be taken offline"
lttng_setup /tmp/hotplug_nobuf

# log_on CPU FROM COUNT: COUNT messages "nb NNNN" written from CPU.
log_on() {
	taskset -c "$1" bash -c 'exec 3>/proc/lttng-logger || exit 1
		for ((i = $1; i < $1 + $2; i++)); do printf "nb %04d" $i >&3; done' \
		_ "$2" "$3" || echo "# writing on CPU $1 failed"
}

n=37 m=23
trap 'echo 1 >$online' EXIT
echo 0 >$online || echo "# taking CPU 1 offline failed"
ok=0
lt lttng create nb -o "$top/nb" &&
	lt lttng enable-channel -k c --discard --subbuf-size 64k \
		--num-subbuf 4 --switch-timer 200000 &&
	lt lttng enable-event -k -c c lttng_logger || ok=1
klog=$(dmesg | wc -l)
echo 1 >$online
st=$?
echo "# bringing CPU 1 online: status $st, online=$(cat $online)"
dmesg | tail -n +$((klog + 1)) | grep "came online without a buffer" >"$top/klog"
sed 's/^/# /' "$top/klog"
[ $ok = 0 ] && [ $st = 0 ] && [ "$(cat $online)" = 1 ] &&
	grep -q "lttng: CPU 1 came online without a buffer of a channel whose streams are all read" "$top/klog"
ktap_status online $?

lt lttng start || ok=1
# A first packet of CPU 0, closed by the switch timer.
log_on 0 0 5
sleep 1

log_on 1 100 $n
log_on 0 200 $m
sleep 1
lt lttng stop && lt lttng destroy nb || ok=1
babeltrace2 "$top/nb" >"$top/nb.txt" 2>"$top/nb.err" || ok=1
sed 's/^/# babeltrace2: /' "$top/nb.err" | head -3
got_m=$(grep -c 'msg = "nb 02[0-9][0-9]"' "$top/nb.txt")
got_n=$(grep -c 'msg = "nb 01[0-9][0-9]"' "$top/nb.txt")
disc=$(grep -o "discarded [0-9]* events" "$top/nb.err" | awk '{ s += $2 } END { print s + 0 }')
echo "# CPU 0: $got_m messages (want $m); CPU 1: $got_n (want 0); discarded: $disc (want $n), $(grep -c 'stream "[^"]*/c_0"' "$top/nb.err") report(s) in c_0"
[ $ok = 0 ] && [ "$got_m" = $m ] && [ "$got_n" = 0 ] && [ "$disc" = $n ] &&
	grep -q 'stream "[^"]*/c_0"' "$top/nb.err"
ktap_status counted $?

grep -i "error" "$log" | head -5 | sed 's/^/# /'
lttng_teardown
ktap_exit
