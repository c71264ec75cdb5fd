#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# description: a filter is refused, never ignored: "lttng enable-event -k
#   --filter" fails with an error (FILTER answers EOPNOTSUPP, there is no
#   bytecode interpreter yet), and the session records none of that
#   event while the same event without a filter, in a second channel,
#   is recorded.
# requires: lttng-tools 2.13, babeltrace2
. "$(dirname "$0")/ktap.sh"
. "$(dirname "$0")/lttng_env.sh"
ktap_plan 3

if ! command -v lttng-sessiond >/dev/null || ! command -v babeltrace2 >/dev/null; then
	for c in enable_with_filter_fails filtered_event_not_recorded unfiltered_event_recorded; do
		ktap_skip $c "lttng-tools or babeltrace2 not installed"
	done
	ktap_exit
fi
lttng_setup /tmp/filter_refused
ok=1
run lttng create f -o "$top/trace" || ok=0
run lttng enable-channel -k filtered || ok=0
run lttng enable-channel -k plain || ok=0
lttng enable-event -k -c filtered sched_process_fork --filter 'child_pid > 0' >"$top/filter.out" 2>&1
st=$?
run lttng enable-event -k -c plain sched_process_exit || ok=0
run lttng start || ok=0
for i in 1 2 3 4 5; do /bin/true; done
run lttng stop || ok=0
run lttng destroy || ok=0
sed 's/^/# lttng: /' "$top/filter.out"
[ $st != 0 ] && grep -qi "filter" "$top/filter.out"
ktap_status enable_with_filter_fails $?

babeltrace2 "$top/trace" >"$top/trace.txt" 2>"$top/bt.err" || ok=0
[ $ok = 1 ] || sed 's/^/# /' "$log"
forks=$(grep -c ' sched_process_fork: ' "$top/trace.txt")
exits=$(grep -c ' sched_process_exit: ' "$top/trace.txt")
echo "# sched_process_fork (filtered channel): $forks, sched_process_exit (plain channel): $exits"
[ $ok = 1 ] && [ "$forks" = 0 ]
ktap_status filtered_event_not_recorded $?
[ $ok = 1 ] && [ "$exits" -ge 5 ]
ktap_status unfiltered_event_recorded $?
lttng_teardown
ktap_exit
