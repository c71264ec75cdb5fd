#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# description: "lttng add-trigger --condition event-rule-matches" with a
#   kernel event rule and "--action notify", received by notify_client, a
#   client of lttng-tools' notification API (liblttng-ctl).  Workloads
#   whose values the test knows make the events; every notification must
#   come, in order, with the captured fields: a trace event's text field,
#   an element of it and a missing field (unavailable) on task_rename, a
#   system call's argument behind a filter, an exec's file name and pid.
#   "lttng list-triggers" then shows no error, and "remove-trigger" closes
#   the kernel event notifier.  With lttng-sessiond stopped, 200
#   notifications meet the 128 slots of the queue: list-triggers reports
#   the 72 others as discarded.
# requires: lttng-tools 2.13, notify_client, filter_workload
. "$(dirname "$0")/ktap.sh"
. "$(dirname "$0")/lttng_env.sh"
here=$(cd "$(dirname "$0")" && pwd)
ktap_plan 6

command -v lttng-sessiond >/dev/null || ktap_skip_all "lttng-tools not installed"
lttng_setup /tmp/triggers

# listen NAME COUNT: notify_client on trigger NAME in the background, its
# output in $top/NAME.out; returns once it is subscribed.
listen() {
	local i
	"$here/notify_client" "$1" "$2" >"$top/$1.out" 2>"$top/$1.err" &
	client=$!
	for i in $(seq 100); do
		grep -q '^ready' "$top/$1.out" && return 0
		kill -0 $client 2>/dev/null || break
		sleep 0.1
	done
	echo "# notify_client for $1 did not subscribe:"
	sed 's/^/#   /' "$top/$1.err"
	return 1
}

# received NAME: the client's notification lines, once it is done.
received() {
	wait $client
	echo "# notify_client $1: exit $?" >>"$log"
	sed 's/^/#   /' "$top/$1.err"
	sed -n 's/^notification: *//p' "$top/$1.out"
}

# check NAME GOT WANT
check() {
	if [ "$2" = "$3" ]; then
		ktap_ok "$1"
	else
		echo "# $1: received:"
		sed 's/^/#   /' <<<"$2"
		echo "# expected:"
		sed 's/^/#   /' <<<"$3"
		ktap_fail "$1"
	fi
}

# 1. task_rename: the workload renames itself fltwl, flt0..flt9, fltwl.
lt lttng add-trigger --name ren --condition event-rule-matches --type=kernel \
	--name=task_rename --filter='newcomm == "flt*"' \
	--capture=newcomm --capture='newcomm[3]' --capture=nosuchfield --action notify
want=$(for n in fltwl flt0 flt1 flt2 flt3 flt4 flt5 flt6 flt7 flt8 flt9 fltwl; do
	printf 'str:%s u:%d unavailable\n' $n "'${n:3:1}"
done)
got=
if listen ren 12; then
	"$here/filter_workload" || echo "# filter_workload failed"
	got=$(received ren)
fi
check tracepoint_text_index_missing "$got" "$want"

# 2. A system call's argument, behind a filter: close(100000 + i).
lt lttng add-trigger --name cls --condition event-rule-matches \
	--type=kernel:syscall:entry --name=close --filter='fd >= 100000' \
	--capture=fd --action notify
want=$(for i in $(seq 0 19); do echo "u:$((100000 + i))"; done)
got=
if listen cls 20; then
	"$here/filter_workload" || echo "# filter_workload failed"
	got=$(received cls)
fi
check syscall_filtered_capture "$got" "$want"

# 3. sched_process_exec: three programs under /tmp/triggers, their thread
# ids (tid, as lttng-modules names the field).
mkdir -p "$top/bin"
for i in 1 2 3; do cp /bin/true "$top/bin/t$i"; done
lt lttng add-trigger --name exe --condition event-rule-matches --type=kernel \
	--name=sched_process_exec --filter="filename == \"$top/bin/*\"" \
	--capture=filename --capture=tid --action notify
want= got=
if listen exe 3; then
	for i in 1 2 3; do
		"$top/bin/t$i" &
		p=$!
		wait $p
		want+="str:$top/bin/t$i u:$p"$'\n'
	done
	got=$(received exe)
fi
check exec_filename_pid "$got" "${want%$'\n'}"

# 4. No notification was lost: list-triggers counts none for any of them.
lttng list-triggers >"$top/list" 2>&1
sed 's/^/# /' "$top/list" >>"$log"
errs=$(grep -c 'errors: none' "$top/list")
discarded=$(grep -E 'errors:.*[0-9]' "$top/list" | head -3)
[ -z "$discarded" ] && [ "$errs" -ge 3 ]
ktap_status list_triggers_no_error $?
[ -z "$discarded" ] || echo "# list-triggers: $discarded"

# 5. remove-trigger: each trigger's kernel event notifier goes with it
#    (lttng-sessiond's event notifier fds, 3 before, none after).
notifier_fds() {
	ls -l /proc/"$(pgrep -o lttng-sessiond)"/fd 2>/dev/null |
		grep -c 'lttng_event_notifier\]'
}
before=$(notifier_fds)
for t in ren cls exe; do lt lttng remove-trigger $t; done
after=$(notifier_fds)
check remove_trigger_releases "$before $after" "3 0"
# 6. A full queue is counted: with lttng-sessiond stopped, 200 notifications
#    meet a queue of 128 slots; list-triggers then reports the other 72.
lt lttng add-trigger --name full --condition event-rule-matches \
	--type=kernel:syscall:entry --name=close --filter='fd >= 100000' --action notify
sd=$(pgrep -o lttng-sessiond)
kill -STOP "$sd"
for i in $(seq 10); do "$here/filter_workload" || echo "# filter_workload failed"; done
kill -CONT "$sd"
sleep 1
lttng list-triggers >"$top/list-full" 2>&1
sed 's/^/# /' "$top/list-full" >>"$log"
got=$(sed -n 's/^ *discarded tracer messages: //p' "$top/list-full")
check queue_full_counted "${got:-none}" 72
lt lttng remove-trigger full
lttng_teardown
ktap_exit
