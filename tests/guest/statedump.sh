#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# description: the statedump of a session (lttng_statedump_*), each value
#   checked against what /proc says or what the test set up.
#   listed: "lttng list -k" offers the statedump events.
#   bounds: the trace starts with lttng_statedump_start, and its first
#     dump ends with one lttng_statedump_end.
#   threads: every thread alive both before the start and after the stop
#     has its process_state; a worker (a copy of sleep named sdworker, a
#     child of this shell) has tid, pid, ppid, name, type 0 (user), mode
#     5, submode 0, status 5 (sleeping) and the cpu of /proc/PID/stat;
#     kthreadd has type 1 and ppid 0.
#   namespaces: the worker's pid_ns (one level: vtid, vpid, vppid, level
#     0), user_ns (uid and gid 0, level 0) and cgroup, ipc, mnt, net, uts
#     and time inode numbers are those of /proc/PID/ns; a worker started
#     by "unshare --pid --fork" has two pid_ns levels: 1 (vtid 1, vppid 0,
#     its namespace's inode) and 0.
#   files: the worker's file_descriptor events (its standard fds and three
#     files it holds open for reading, writing and both) are exactly its
#     /proc/PID/fd entries, with the flags of /proc/PID/fdinfo, its pid
#     and the file_table_address of its process_state; this shell's fd
#     255 (bash's script, close-on-exec) has the flags of fdinfo,
#     O_CLOEXEC included.
#   interrupts: the (irq, chip, action) triples are those of
#     /sys/kernel/irq (/proc/interrupts hides some lines, cascade's).
#   network: lo is 127.0.0.1 (0x7F000001).
#   block_devices: the (dev_t, name) pairs are those of /proc/partitions.
#   cpus: one cpu_topology per possible CPU; each online one with the
#     vendor, family, model, model name, physical id, core id and cores of
#     /proc/cpuinfo.
#   regenerate: "lttng regenerate statedump" during the session records
#     a second dump, which holds a worker started after "lttng start".
#   other_session: a second session's start and regeneration dump into
#     that session only: the first one still holds its own dumps; the
#     second, whose process_state has the filter "tid == WORKER", holds
#     two dumps of one process_state each, the worker's.
# requires: lttng-tools 2.13, babeltrace2, unshare (util-linux), root
. "$(dirname "$0")/ktap.sh"
. "$(dirname "$0")/lttng_env.sh"
cases="listed bounds threads namespaces files interrupts network
	block_devices cpus regenerate other_session"
ktap_plan "$(wc -w <<<"$cases")"

skip_all() { ktap_skip_all "$1" $cases; }
[ "$(id -u)" = 0 ] || skip_all "not root"
command -v lttng-sessiond >/dev/null && command -v babeltrace2 >/dev/null ||
	skip_all "lttng-tools or babeltrace2 not installed"
command -v unshare >/dev/null || skip_all "unshare (util-linux) not installed"
lttng_setup /tmp/statedump

# tids: every thread id under /proc, sorted.
tids() {
	ls /proc/[0-9]*/task 2>/dev/null | grep -E '^[0-9]+$' | sort -u
}

# val LINE FIELD: the value of FIELD in a babeltrace2 line (quotes kept).
val() {
	sed -n "s/.*[{ ]$2 = \(\"[^\"]*\"\|[^,} ]*\).*/\1/p" <<<"$1"
}

# ev FILE NAME TID: the first NAME event of thread TID in FILE.
ev() {
	grep -m1 "lttng_statedump_$2: .*{ tid = $3," "$1"
}

# nsino PID KIND: the inode number of /proc/PID/ns/KIND.
nsino() {
	readlink "/proc/$1/ns/$2" | sed 's/.*\[\([0-9]*\)\]/\1/'
}

# want WHAT GOT EXPECTED: says and checks one value.
want() {
	[ "$2" = "$3" ] && return 0
	echo "# $1: got '$2', want '$3'"
	return 1
}

cp /bin/sleep "$top/sdworker"
"$top/sdworker" 600 3</etc/hostname 4>"$top/sd.out" 5<>"$top/sd.rw" &
w=$!
unshare --pid --fork "$top/sdworker" 600 &
u=$!
sleep 1
un=$(pgrep -P "$u" -x sdworker)
tids >"$top/before"

run lttng create sd -o "$top/trace" &&
	run lttng enable-event -k 'lttng_statedump_*' &&
	run lttng start || echo "# session setup failed: see $log"
"$top/sdworker" 600 &
late=$!
sleep 1
run lttng regenerate statedump
r=$?
run lttng create sd2 -o "$top/trace2" &&
	run lttng enable-event -k -s sd2 lttng_statedump_start,lttng_statedump_end &&
	run lttng enable-event -k -s sd2 lttng_statedump_process_state \
		--filter "tid == $w" &&
	run lttng start sd2 &&
	run lttng regenerate statedump -s sd2 &&
	run lttng stop sd2 &&
	run lttng destroy sd2 || echo "# second session failed: see $log"
run lttng stop sd
tids >"$top/after"
run lttng destroy sd
t=$top/trace.txt
babeltrace2 "$top/trace" >"$t" 2>"$top/bt.err" || : >"$t"
[ -s "$top/bt.err" ] && head -3 "$top/bt.err" | sed 's/^/# babeltrace2: /'
babeltrace2 "$top/trace2" >"$top/trace2.txt" 2>>"$top/bt.err" || : >"$top/trace2.txt"

lttng list -k >"$top/list.txt" 2>&1
n=0
for e in start end process_state process_pid_ns process_user_ns \
	process_cgroup_ns process_ipc_ns process_mnt_ns process_net_ns \
	process_uts_ns process_time_ns file_descriptor block_device interrupt \
	network_interface cpu_topology; do
	grep -q "^ *lttng_statedump_$e " "$top/list.txt" && n=$((n + 1))
done
want "statedump events listed" "$n" 16
ktap_status listed $?

# The first dump: from the first start to the first end.
first=$top/first.txt
sed -n '1,/lttng_statedump_end:/p' "$t" >"$first"

bounds_case() {
	local s e
	s=$(grep -c "lttng_statedump_start:" "$first")
	e=$(grep -c "lttng_statedump_end:" "$first")
	echo "# first dump: $(wc -l <"$first") lines"
	want "first line" "$(head -1 "$first" | grep -c lttng_statedump_start:)" 1 &&
		want "start events" "$s" 1 && want "end events" "$e" 1 &&
		want "dumps in all" "$(grep -c "lttng_statedump_start:" "$t")" 2
}
bounds_case
ktap_status bounds $?

threads_case() {
	local miss l cpu ok=0
	comm -12 "$top/before" "$top/after" >"$top/both"
	grep "lttng_statedump_process_state:" "$first" |
		sed -n 's/.*{ tid = \([0-9]*\),.*/\1/p' | sort -u >"$top/dumped"
	miss=$(comm -23 "$top/both" "$top/dumped" | wc -l)
	echo "# $(wc -l <"$top/both") threads alive throughout, $(wc -l <"$top/dumped") dumped, $miss missing"
	want "threads missing" "$miss" 0 || ok=1
	l=$(ev "$first" process_state "$w")
	cpu=$(sed 's/.*) //' "/proc/$w/stat" | awk '{ print $37 }')
	want "worker pid" "$(val "$l" pid)" "$w" &&
		want "worker ppid" "$(val "$l" ppid)" "$$" &&
		want "worker name" "$(val "$l" name)" '"sdworker"' &&
		want "worker type" "$(val "$l" type)" 0 &&
		want "worker mode" "$(val "$l" mode)" 5 &&
		want "worker submode" "$(val "$l" submode)" 0 &&
		want "worker status" "$(val "$l" status)" 5 &&
		want "worker cpu" "$(val "$l" cpu)" "$cpu" || ok=1
	l=$(ev "$first" process_state 2)
	want "kthreadd name" "$(val "$l" name)" '"kthreadd"' &&
		want "kthreadd type" "$(val "$l" type)" 1 &&
		want "kthreadd ppid" "$(val "$l" ppid)" 0 || ok=1
	return $ok
}
threads_case
ktap_status threads $?

namespaces_case() {
	local l k ok=0
	want "worker pid_ns events" \
		"$(grep -c "lttng_statedump_process_pid_ns: .*{ tid = $w," "$first")" 1 || ok=1
	l=$(ev "$first" process_pid_ns "$w")
	want "vtid" "$(val "$l" vtid)" "$w" && want "vpid" "$(val "$l" vpid)" "$w" &&
		want "vppid" "$(val "$l" vppid)" "$$" &&
		want "ns_level" "$(val "$l" ns_level)" 0 &&
		want "pid ns_inum" "$(val "$l" ns_inum)" "$(nsino "$w" pid)" || ok=1
	l=$(ev "$first" process_user_ns "$w")
	want "vuid" "$(val "$l" vuid)" 0 && want "vgid" "$(val "$l" vgid)" 0 &&
		want "user ns_level" "$(val "$l" ns_level)" 0 &&
		want "user ns_inum" "$(val "$l" ns_inum)" "$(nsino "$w" user)" || ok=1
	for k in cgroup ipc mnt net uts time; do
		l=$(ev "$first" "process_${k}_ns" "$w")
		want "$k ns_inum" "$(val "$l" ns_inum)" "$(nsino "$w" "$k")" || ok=1
	done
	# The worker in its own pid namespace: level 1, then level 0.
	grep "lttng_statedump_process_pid_ns: .*{ tid = $un," "$first" >"$top/un"
	want "unshared pid_ns events" "$(wc -l <"$top/un")" 2 || return 1
	l=$(sed -n 1p "$top/un")
	want "level 1 vtid" "$(val "$l" vtid)" 1 &&
		want "level 1 vppid" "$(val "$l" vppid)" 0 &&
		want "level 1" "$(val "$l" ns_level)" 1 &&
		want "level 1 inum" "$(val "$l" ns_inum)" "$(nsino "$un" pid)" || ok=1
	l=$(sed -n 2p "$top/un")
	want "level 0 vtid" "$(val "$l" vtid)" "$un" &&
		want "level 0 vppid" "$(val "$l" vppid)" "$u" &&
		want "level 0" "$(val "$l" ns_level)" 0 || ok=1
	return $ok
}
namespaces_case
ktap_status namespaces $?

files_case() {
	local l fta fd path flags got ok=0
	fta=$(val "$(ev "$first" process_state "$w")" file_table_address)
	grep "lttng_statedump_file_descriptor: .*{ file_table_address = $fta," "$first" |
		while read -r l; do
			echo "$(val "$l" fd) $(val "$l" filename) $(val "$l" flags) $(val "$l" pid)"
		done | sort -n >"$top/fds.trace"
	for fd in $(ls "/proc/$w/fd" | sort -n); do
		path=$(readlink "/proc/$w/fd/$fd")
		flags=$(sed -n 's/^flags:[[:space:]]*//p' "/proc/$w/fdinfo/$fd")
		echo "$fd \"$path\" $((8#$flags)) $w"
	done >"$top/fds.proc"
	echo "# worker fds: $(wc -l <"$top/fds.proc") in /proc, $(wc -l <"$top/fds.trace") dumped"
	if ! diff "$top/fds.proc" "$top/fds.trace" >"$top/fds.diff"; then
		sed 's/^/# /' "$top/fds.diff" | head -10
		ok=1
	fi
	# This shell's fd 255, close-on-exec: its flags as fdinfo says.
	flags=$(sed -n 's/^flags:[[:space:]]*//p' /proc/$$/fdinfo/255)
	l=$(grep "lttng_statedump_file_descriptor: .* fd = 255, .* pid = $$ }" "$first")
	want "fd 255 flags" "$(val "$l" flags)" "$((8#$flags))" &&
		want "fd 255 close-on-exec" "$(( $(val "$l" flags) & 8#2000000 ))" \
			"$((8#2000000))" || ok=1
	grep -q "^3 \"/etc/hostname\" $((8#100000)) $w$" "$top/fds.trace" &&
		grep -q "^4 \"$top/sd.out\" " "$top/fds.trace" &&
		grep -q "^5 \"$top/sd.rw\" " "$top/fds.trace" || {
		echo "# fds 3, 4 and 5 are not the worker's three files"
		ok=1
	}
	return $ok
}
files_case
ktap_status files $?

interrupts_case() {
	local d irq a
	grep "lttng_statedump_interrupt:" "$first" | while read -r l; do
		echo "$(val "$l" irq) $(val "$l" name | tr -d '"') $(val "$l" action | tr -d '"')"
	done | sort >"$top/irq.trace"
	# /sys/kernel/irq/N: every descriptor, with its chip and its actions
	# (comma-separated), those /proc/interrupts hides included.
	for d in /sys/kernel/irq/*; do
		irq=${d##*/}
		tr ',' '\n' <"$d/actions" | while read -r a; do
			[ -n "$a" ] && echo "$irq $(cat "$d/chip_name") $a"
		done
	done | sort >"$top/irq.sys"
	echo "# $(wc -l <"$top/irq.sys") actions in /sys/kernel/irq, $(wc -l <"$top/irq.trace") dumped"
	diff "$top/irq.sys" "$top/irq.trace" >"$top/irq.diff" && [ -s "$top/irq.sys" ] && return 0
	sed 's/^/# /' "$top/irq.diff" | head -10
	return 1
}
interrupts_case
ktap_status interrupts $?

grep -q 'lttng_statedump_network_interface: .*{ name = "lo", address_ipv4 = 0x7F000001 }' "$first"
ktap_status network $?

# /proc/partitions' disks and partitions, as "DEV NAME" with the
# kernel's dev_t (major << 20 | minor).
block_case() {
	awk 'NR > 2 && NF == 4 { printf "%d %s\n", $1 * 1048576 + $2, $4 }' \
		/proc/partitions | sort >"$top/bdev.proc"
	grep "lttng_statedump_block_device:" "$first" | while read -r l; do
		echo "$(val "$l" dev) $(val "$l" diskname | tr -d '"')"
	done | sort >"$top/bdev.trace"
	echo "# $(wc -l <"$top/bdev.proc") block devices in /proc/partitions, $(wc -l <"$top/bdev.trace") dumped"
	diff "$top/bdev.proc" "$top/bdev.trace" >"$top/bdev.diff" && [ -s "$top/bdev.proc" ] && return 0
	sed 's/^/# /' "$top/bdev.diff" | head -10
	return 1
}
block_case
ktap_status block_devices $?

cpus_case() {
	local cpu l ok=0 key
	# possible: "0-N" or "0"
	local possible
	possible=$(($(sed 's/.*-//' /sys/devices/system/cpu/possible) + 1))
	want "cpu_topology events" "$(grep -c "lttng_statedump_cpu_topology:" "$first")" \
		"$possible" || ok=1
	# info CPU KEY: the value of KEY in CPU's block of /proc/cpuinfo.
	info() {
		awk -v c="$1" -v k="$2" -F '\t*: ' '$1 == "processor" { p = $2 }
			p == c && $1 == k { print $2; exit }' /proc/cpuinfo
	}
	for cpu in $(sed -n 's/^processor[[:space:]]*: //p' /proc/cpuinfo); do
		l=$(grep -m1 "lttng_statedump_cpu_topology: .* cpu_id = $cpu," "$first")
		want "cpu $cpu vendor" "$(val "$l" vendor)" "\"$(info "$cpu" vendor_id)\"" &&
			want "cpu $cpu family" "$(val "$l" family)" "$(info "$cpu" "cpu family")" &&
			want "cpu $cpu model" "$(val "$l" model)" "$(info "$cpu" model)" &&
			want "cpu $cpu model_name" "$(val "$l" model_name)" \
				"\"$(info "$cpu" "model name")\"" &&
			want "cpu $cpu physical_id" "$(val "$l" physical_id)" \
				"$(info "$cpu" "physical id")" &&
			want "cpu $cpu core_id" "$(val "$l" core_id)" "$(info "$cpu" "core id")" &&
			want "cpu $cpu cores" "$(val "$l" cores)" "$(info "$cpu" "cpu cores")" ||
			ok=1
	done
	return $ok
}
cpus_case
ktap_status cpus $?

regenerate_case() {
	local second=$top/second.txt
	sed -n '/lttng_statedump_end:/,$p' "$t" | sed 1d >"$second"
	want "regenerate status" "$r" 0 &&
		want "second dump start" "$(grep -c "lttng_statedump_start:" "$second")" 1 &&
		want "second dump end" "$(grep -c "lttng_statedump_end:" "$second")" 1 &&
		want "late worker in the first dump" \
			"$(grep -c "lttng_statedump_process_state: .*{ tid = $late," "$first")" 0 &&
		want "late worker in the second dump" \
			"$(grep -c "lttng_statedump_process_state: .*{ tid = $late," "$second")" 1
}
regenerate_case
ktap_status regenerate $?

want "dumps in the second session" \
	"$(grep -c "lttng_statedump_start:" "$top/trace2.txt")" 2 &&
	want "process_state events in the second session" \
		"$(grep -c "lttng_statedump_process_state:" "$top/trace2.txt")" 2 &&
	want "the worker's in the second session" \
		"$(grep -c "lttng_statedump_process_state: .*{ tid = $w," "$top/trace2.txt")" 2 &&
	want "dumps in the first session" \
		"$(grep -c "lttng_statedump_start:" "$t")" 2
ktap_status other_session $?

# unshare ignores SIGTERM while it waits for its child, and the child,
# the init of its pid namespace, all but SIGKILL from here.
kill -KILL "$w" "$un" "$late" 2>/dev/null
wait "$w" "$u" "$late" 2>/dev/null
lttng_teardown
ktap_exit
