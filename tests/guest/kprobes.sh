#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# description: kprobe and kretprobe events of the stock lttng-tools
#   ("enable-event -k --probe", "--function"), on __x64_sys_getppid,
#   against workloads of known size (tracer_bench syscall N: N getppid()
#   calls), told apart by the pid context, and /proc/kallsyms.
#   symbol: --probe SYMBOL: N events of the workload, ip = the symbol's
#     address.
#   address: --probe 0xADDRESS: the same.
#   function: --function SYMBOL: N NAME_entry and N NAME_exit events, ip
#     = the symbol's address, parent_ip inside do_syscall_64 and the same
#     in every event.
#   disable: disable-event stops the recording: a workload run after it
#     has no event.
#   bad_input: an unknown symbol, an address kprobes refuse and a name
#     the channel has already are lttng errors, and the session still
#     records.
#   unregistered: after the session is destroyed the driver's modules are
#     removed and the probed function called again: a probe left behind
#     would run freed code (the kernel log check catches the oops).
# requires: lttng-tools 2.13, babeltrace2, tracer_bench next to this
#   script, root, a kernel with kprobes
. "$(dirname "$0")/ktap.sh"
. "$(dirname "$0")/lttng_env.sh"
here=$(cd "$(dirname "$0")" && pwd)
cases="symbol address function disable bad_input unregistered"
ktap_plan "$(wc -w <<<"$cases")"

skip_all() { ktap_skip_all "$1" $cases; }
[ "$(id -u)" = 0 ] || skip_all "not root"
command -v lttng-sessiond >/dev/null && command -v babeltrace2 >/dev/null ||
	skip_all "lttng-tools or babeltrace2 not installed"
[ -x "$here/tracer_bench" ] || skip_all "tracer_bench not installed"
sym=__x64_sys_getppid
addr=$(awk -v s=$sym '$3 == s { print $1; exit }' /proc/kallsyms)
[ -n "$addr" ] || skip_all "no $sym in /proc/kallsyms"
addr=$(printf '0x%x' "0x$addr")
lttng_setup /tmp/kprobes

# events FILE EVENT PID: the lines of EVENT by PID.
events() {
	grep " $2: { cpu_id = [0-9]* }, { pid = $3 }" "$1"
}

# expect_ips FILE EVENT PID N FIELD=VALUE: N events, each with FIELD=VALUE.
expect_ips() {
	local got same
	got=$(events "$1" "$2" "$3" | wc -l)
	same=$(events "$1" "$2" "$3" | grep -ci "$4 = $5[,} ]")
	echo "# $2 of pid $3: $got events, $same with $4 = $5"
	[ "$got" = "$6" ] && [ "$same" = "$6" ]
}

probe_session ks --probe $sym kp_sym || echo "# session ks failed"
getppid_work 120
probe_finish ks
expect_ips "$top/ks.txt" kp_sym "$pid" ip "$addr" 120
ktap_status symbol $?

probe_session ka --probe "$addr" kp_addr || echo "# session ka failed"
getppid_work 130
probe_finish ka
expect_ips "$top/ka.txt" kp_addr "$pid" ip "$addr" 130
ktap_status address $?

# function: entry and exit, parent_ip in do_syscall_64.
function_case() {
	local ok=0 parents p start next
	probe_session kf --function $sym kr || return 1
	getppid_work 140
	probe_finish kf
	expect_ips "$top/kf.txt" kr_entry "$pid" ip "$addr" 140 || ok=1
	expect_ips "$top/kf.txt" kr_exit "$pid" ip "$addr" 140 || ok=1
	parents=$(events "$top/kf.txt" 'kr_e[a-z]*' "$pid" |
		  sed -n 's/.*parent_ip = \(0x[0-9A-Fa-f]*\).*/\1/p' | sort -u)
	echo "# parent_ip values: $parents"
	[ "$(wc -w <<<"$parents")" = 1 ] || return 1
	start=$(awk '$3 == "do_syscall_64" { print $1; exit }' /proc/kallsyms)
	next=$(sort /proc/kallsyms | awk -v s="$start" 'f { print $1; exit } $1 == s { f = 1 }')
	p=$((parents))
	echo "# do_syscall_64: 0x$start..0x$next"
	[ -n "$start" ] && [ -n "$next" ] && [ $p -gt $((0x$start)) ] &&
		[ $p -lt $((0x$next)) ] || ok=1
	return $ok
}
function_case
ktap_status function $?

# disable: what runs after disable-event is not recorded.
disable_case() {
	local a
	probe_session kd --probe $sym kp_dis || return 1
	getppid_work 110
	a=$pid
	lt lttng disable-event -k -c c kp_dis || return 1
	getppid_work 90
	probe_finish kd
	expect_ips "$top/kd.txt" kp_dis "$a" ip "$addr" 110 &&
		expect_ips "$top/kd.txt" kp_dis "$pid" ip "$addr" 0
}
disable_case
ktap_status disable $?

# bad_input: refused, then the same session still records a good probe.
bad_case() {
	local ok=0
	lt lttng create kb -o "$top/kb" && lt lttng enable-channel -k c || return 1
	run lttng enable-event -k -c c --probe no_such_symbol_of_lttng kb_bad &&
		{ echo "# unknown symbol accepted"; ok=1; }
	run lttng enable-event -k -c c --probe 0x1 kb_bad2 &&
		{ echo "# address 0x1 accepted"; ok=1; }
	lt lttng enable-event -k -c c --probe $sym kb_good || ok=1
	run lttng enable-event -k -c c --probe $sym kb_good &&
		{ echo "# a second kb_good accepted"; ok=1; }
	lt lttng add-context -k -c c -t pid && lt lttng start || return 1
	getppid_work 70
	probe_finish kb
	grep -q "kb_bad" "$top/kb.txt" && { echo "# a refused probe recorded"; ok=1; }
	expect_ips "$top/kb.txt" kb_good "$pid" ip "$addr" 70 || ok=1
	return $ok
}
bad_case
ktap_status bad_input $?

# unregistered: once the session is destroyed and lttng-sessiond gone,
# the driver's modules are removed and the probed function called again:
# a probe left registered would run a handler in freed module text (an
# oops the run's kernel log check reports).
unregistered_case() {
	local c
	probe_session ku --function $sym ku || return 1
	getppid_work 10
	probe_finish ku
	# lttng-sessiond unloads the modules it loaded when it exits.
	lttng_teardown
	for c in $(awk '/^lttng_/ && $1 != "lttng_tracer" { print $1 }' /proc/modules) lttng_tracer; do
		grep -q "^$c " /proc/modules || continue
		rmmod "$c" || { echo "# rmmod $c failed"; return 1; }
	done
	grep -q "^lttng_" /proc/modules && { echo "# lttng modules left"; return 1; }
	getppid_work 50
	echo "# modules removed, $sym called 50 times"
	modprobe lttng-tracer || return 1
	lttng_setup "$top/after"
	[ -e /proc/lttng ]
}
if grep -q "^lttng_tracer " /proc/modules; then
	unregistered_case
	ktap_status unregistered $?
else
	ktap_skip unregistered "the driver is built in"
fi

grep -i "error" "$log" | grep -v "no_such_symbol\|0x1\|kb_good" | head -5 | sed 's/^/# /'
lttng_teardown
ktap_exit
