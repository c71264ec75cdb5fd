#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# description: uprobe events of the stock lttng-tools ("enable-event -k
#   --userspace-probe"), on uprobe_workload next to this script, whose
#   runs print the address of the probed function and the first byte of
#   its code as they see it; the events are told apart by the pid context.
#   elf: --userspace-probe elf:PATH:uprobe_target: a run of N calls gives
#     exactly N events, each with ip = the function's address, and the
#     run sees the breakpoint (0xcc) at the function.
#   sdt: --userspace-probe sdt:PATH:lttng_test:tock, a probe with two
#     sites: N events, two distinct ip values, N/2 each.
#   disable: disable-event stops the recording: a run after it has none.
#   bad_input: a missing binary, a function the binary lacks and a name
#     the channel has already are lttng errors; the session still
#     records the good probe.
#   unregistered: once the sessions are destroyed, a new run sees the
#     function's own first byte again (no breakpoint left); with the
#     modules removed, runs of the function do not reach a stale handler.
# requires: lttng-tools 2.13, babeltrace2, uprobe_workload next to this
#   script, root, a kernel with uprobes
. "$(dirname "$0")/ktap.sh"
. "$(dirname "$0")/lttng_env.sh"
here=$(cd "$(dirname "$0")" && pwd)
cases="elf sdt disable bad_input unregistered"
ktap_plan "$(wc -w <<<"$cases")"

skip_all() { ktap_skip_all "$1" $cases; }
[ "$(id -u)" = 0 ] || skip_all "not root"
command -v lttng-sessiond >/dev/null && command -v babeltrace2 >/dev/null ||
	skip_all "lttng-tools or babeltrace2 not installed"
[ -x "$here/uprobe_workload" ] || skip_all "uprobe_workload not installed"
lttng_setup /tmp/uprobes
bin=$here/uprobe_workload

# work N: run the workload, N calls; its pid in $pid, the function's
# address in $fn and its first byte as the run saw it in $byte.
work() {
	"$bin" "$1" >"$top/work.out" &
	pid=$!
	wait $pid
	work_status=$?
	[ $work_status = 0 ] || echo "# uprobe_workload $1 failed (status $work_status)"
	read -r fn byte <"$top/work.out"
	fn=$(printf '0x%x' "$fn")
}

# ips FILE EVENT PID: the ip values of EVENT by PID, one per line.
ips() {
	sed -n "s/.* $2: { cpu_id = [0-9]* }, { pid = $3 }, { ip = \(0x[0-9A-Fa-f]*\) }$/\1/p" "$1"
}

# elf: the function, N times, at its address.
elf_case() {
	local n got same
	probe_session ue --userspace-probe "elf:$bin:uprobe_target" up_fn || return 1
	work 137
	probe_finish ue
	got=$(ips "$top/ue.txt" up_fn "$pid" | wc -l)
	same=$(ips "$top/ue.txt" up_fn "$pid" | grep -cix "$fn")
	echo "# up_fn of pid $pid: $got events, $same with ip = $fn; first byte seen $byte"
	[ "$got" = 137 ] && [ "$same" = 137 ] && [ "$byte" = cc ]
}
elf_case
ktap_status elf $?

# sdt: one probe, two sites, alternately.
sdt_case() {
	local sites
	probe_session us --userspace-probe "sdt:$bin:lttng_test:tock" up_sdt || return 1
	work 90
	probe_finish us
	sites=$(ips "$top/us.txt" up_sdt "$pid" | sort | uniq -c | awk '{ print $1 }' | tr '\n' ' ')
	echo "# up_sdt of pid $pid: events per site: $sites"
	[ "$sites" = "45 45 " ]
}
sdt_case
ktap_status sdt $?

# disable: what runs after disable-event is not recorded.
disable_case() {
	local a
	probe_session ud --userspace-probe "elf:$bin:uprobe_target" up_dis || return 1
	work 40
	a=$pid
	lt lttng disable-event -k -c c up_dis || return 1
	work 60
	probe_finish ud
	echo "# up_dis: $(ips "$top/ud.txt" up_dis "$a" | wc -l) events of the first run (want 40), $(ips "$top/ud.txt" up_dis "$pid" | wc -l) of the second (want 0)"
	[ "$(ips "$top/ud.txt" up_dis "$a" | wc -l)" = 40 ] &&
		[ "$(ips "$top/ud.txt" up_dis "$pid" | wc -l)" = 0 ]
}
disable_case
ktap_status disable $?

# bad_input: refused, then the same session still records a good probe.
bad_case() {
	local ok=0
	lt lttng create ub -o "$top/ub" && lt lttng enable-channel -k c || return 1
	run lttng enable-event -k -c c --userspace-probe "elf:$top/no_such_binary:f" ub_bad &&
		{ echo "# a missing binary accepted"; ok=1; }
	run lttng enable-event -k -c c --userspace-probe "elf:$bin:no_such_function" ub_bad2 &&
		{ echo "# a missing function accepted"; ok=1; }
	lt lttng enable-event -k -c c --userspace-probe "elf:$bin:uprobe_target" ub_good || ok=1
	run lttng enable-event -k -c c --userspace-probe "elf:$bin:uprobe_target" ub_good &&
		{ echo "# a second ub_good accepted"; ok=1; }
	lt lttng add-context -k -c c -t pid && lt lttng start || return 1
	work 70
	probe_finish ub
	grep -q "ub_bad" "$top/ub.txt" && { echo "# a refused probe recorded"; ok=1; }
	echo "# ub_good: $(ips "$top/ub.txt" ub_good "$pid" | grep -cix "$fn") events at $fn, want 70"
	[ "$(ips "$top/ub.txt" ub_good "$pid" | grep -cix "$fn")" = 70 ] || ok=1
	return $ok
}
bad_case
ktap_status bad_input $?

# unregistered: no breakpoint left once the sessions are destroyed; with
# the driver's modules removed too, a probe left registered would run a
# handler in freed module text (an oops the run's kernel log check
# reports).
unregistered_case() {
	local c
	work 1
	echo "# after the sessions: the first byte a run sees is $byte"
	[ "$byte" != cc ] && [ $work_status = 0 ] || return 1
	if ! grep -q "^lttng_tracer " /proc/modules; then
		echo "# the driver is built in: no module to remove, the run after it not made"
		return 0
	fi
	lttng_teardown
	for c in $(awk '/^lttng_/ && $1 != "lttng_tracer" { print $1 }' /proc/modules) lttng_tracer; do
		grep -q "^$c " /proc/modules || continue
		rmmod "$c" || { echo "# rmmod $c failed"; return 1; }
	done
	work 20
	echo "# modules removed, uprobe_target called 20 times, first byte $byte, status $work_status"
	modprobe lttng-tracer || return 1
	lttng_setup "$top/after"
	[ "$byte" != cc ] && [ $work_status = 0 ]
}
unregistered_case
ktap_status unregistered $?

grep -i "error" "$log" | grep -v "no_such\|ub_good" | head -5 | sed 's/^/# /'
lttng_teardown
ktap_exit
