#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# description: the stock lttng-sessiond loads the driver, accepts its
#              version, and fails cleanly on what the driver lacks so far
# requires: lttng-tools 2.13 in the guest
. "$(dirname "$0")/ktap.sh"
ktap_plan 5

if ! command -v lttng-sessiond >/dev/null; then
	for c in sessiond_loads_clients sessiond_validates_version kernel_session_refused sessiond_survives sessiond_unloads_clients; do
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

# The tracer core is not there yet: creating a kernel session must fail
# with lttng's kernel-session error, not hang and not crash anything.
lttng create t >/dev/null 2>&1
out=$(timeout 60 lttng enable-event -k sched_switch 2>&1)
st=$?
echo "$out" | sed 's/^/# /'
ktap_check kernel_session_refused \
	[ $st -ne 0 ] && [ $st -ne 124 ] && grep -qF 'Kernel create session failed' <<<"$out"
ktap_check sessiond_survives kill -0 $spid
lttng destroy -a >/dev/null 2>&1
kill $spid; wait $spid 2>/dev/null
# On exit the daemon unloads the modules it loaded, in reverse order.
ktap_check sessiond_unloads_clients [ -z "$(grep lttng_ring_buffer /proc/modules)" ]
[ $ktap_failed = 0 ] || grep -E 'Modprobe|version|Kernel|ERROR|Error' $log | head -n 40 | sed 's/^/# log: /'
ktap_exit
