#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# description: the stock lttng-sessiond loads the driver, accepts its
#              version, and creates and starts a kernel session
# requires: lttng-tools 2.13 in the guest
. "$(dirname "$0")/ktap.sh"
ktap_plan 6

if ! command -v lttng-sessiond >/dev/null; then
	for c in sessiond_loads_clients sessiond_validates_version kernel_event_enabled kernel_session_starts sessiond_survives sessiond_unloads_clients; do
		ktap_skip $c "lttng-tools not installed"
	done
	ktap_exit
fi
log=/tmp/sessiond.log
pkill lttng-sessiond 2>/dev/null
lttng-sessiond -vvv >$log 2>&1 &
spid=$!
for i in $(seq 100); do
	lttng list >/dev/null 2>&1 && break
	sleep 0.2
done

# All six control modules are required; a failure disables kernel tracing.
ktap_check sessiond_loads_clients \
	grep -q 'Modprobe successfully lttng-ring-buffer-metadata-mmap-client' $log
ktap_check sessiond_validates_version \
	grep -qF 'Kernel tracer version validated (2.13, ABI 2.6)' $log

# The kernel session, its default channel and the event enabler are
# created, and the session starts.
lttng create t -o /tmp/sessiond-trace >/dev/null 2>&1
out=$(timeout 60 lttng enable-event -k sched_switch 2>&1)
st=$?
echo "$out" | sed 's/^/# /'
[ $st = 0 ] && grep -qF 'kernel event sched_switch created' <<<"$out"
ktap_status kernel_event_enabled $?
out=$(timeout 60 lttng start 2>&1)
st=$?
echo "$out" | sed 's/^/# /'
ktap_check kernel_session_starts [ $st = 0 ]
timeout 60 lttng stop >/dev/null 2>&1
ktap_check sessiond_survives kill -0 $spid
timeout -s KILL 60 lttng destroy -a >/dev/null 2>&1
# lttng-sessiond exits once every session is destroyed; destroying a
# started session needs POSIX timers (its rotation check), so do not wait
# forever on a kernel without them.
kill $spid
for i in $(seq 100); do kill -0 $spid 2>/dev/null || break; sleep 0.2; done
if kill -0 $spid 2>/dev/null; then
	echo "# lttng-sessiond did not exit (CONFIG_POSIX_TIMERS missing?)"
	pkill -9 lttng-consumerd; kill -9 $spid
fi
wait $spid 2>/dev/null
# On exit the daemon unloads the modules it loaded, in reverse order.
ktap_check sessiond_unloads_clients [ -z "$(grep lttng_ring_buffer /proc/modules)" ]
[ $ktap_failed = 0 ] || grep -E 'Modprobe|version|Kernel|ERROR|Error' $log | head -n 40 | sed 's/^/# log: /'
ktap_exit
