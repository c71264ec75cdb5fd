#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# description: every kernel trace event and every system call at once
#              ('enable-event -k --tracepoint -a' and '-k --syscall -a';
#              plain '-k -a' means both in lttng 2.13) on a guest kept
#              busy on all CPUs for a few seconds (fork/exec, direct I/O,
#              UDP over the loopback, /proc reads, sleeps, a module loaded
#              whose events join the session): 'lttng list -k' lists every
#              trace event tracefs has, the kernel logs no warning,
#              babeltrace2 reads the whole trace with nothing on stderr but
#              discarded-events warnings, many distinct events are recorded,
#              and the events babeltrace2 says were discarded are the ones
#              lttng-tools says the tracer discarded, channel by channel
#              (one of them made to discard)
# requires: lttng-tools 2.13, babeltrace2, root; tracefs for the event
#           list; /dev/vda and trace-events-sample.ko are used if present
# shellcheck disable=SC2317 # the case_* functions run through ktap_check
. "$(dirname "$0")/ktap.sh"
. "$(dirname "$0")/lttng_env.sh"
cases="list_matches_tracefs session_commands dmesg_clean babeltrace2_clean
	distinct_events distinct_syscalls discarded_accounted"
ktap_plan 7
# Floors: 212 to 216 distinct events, 48 to 53 of them system calls,
# measured on the modules variant (2 vCPUs, TCG); the test prints its own.
min_events=${ALL_EVENTS_MIN:-150}
min_syscalls=${ALL_EVENTS_MIN_SYSCALLS:-35}
busy_s=${ALL_EVENTS_BUSY_S:-2}

skip_all() { ktap_skip_all "$1" $cases; }
[ "$(id -u)" = 0 ] || skip_all "not root"
command -v lttng-sessiond >/dev/null && command -v babeltrace2 >/dev/null ||
	skip_all "lttng-tools or babeltrace2 not installed"
tfs=/sys/kernel/tracing
[ -d $tfs/events ] || mount -t tracefs nodev $tfs 2>/dev/null

lttng_setup /tmp/all_events
sample=trace-events-sample
modinfo $sample >/dev/null 2>&1 || sample=
rmmod $sample 2>/dev/null

# 'lttng list -k' against tracefs: the tracepoint events by name (LTTng
# names them without their system, and as lttng-modules does), the system calls as their
# syscall_entry_NAME (with an exit event each, not listed).
case_list_matches_tracefs() {
	local bad=0
	[ -f $tfs/available_events ] || { echo "# no tracefs"; return 1; }
	timeout -s KILL 60 lttng list -k >"$top/list" 2>&1 || return 1
	timeout -s KILL 60 lttng list -k --syscall >"$top/list.sys" 2>&1 || return 1
	# The events lttng-modules names otherwise under its names
	# (lttng_modules.map, the tests' copy of those differences).
	grep -v '^syscalls:' $tfs/available_events |
		awk 'NR == FNR { if ($1 !~ /^#/ && NF > 1) m[$1] = $2; next }
			{ n = $0; sub(/^[^:]*:/, "", n); print ($0 in m) ? m[$0] : n }' \
			"$(dirname "$0")/lttng_modules.map" - | sort -u >"$top/want"
	sed -n 's/^ *\([a-z0-9_]*\) (loglevel:.*(type: tracepoint)$/\1/p' "$top/list" |
		sort -u >"$top/got"
	sed -n 's/^syscalls:sys_enter_//p' $tfs/available_events | sort -u >"$top/want.sys"
	sed -n 's/^ *\([a-z0-9_]*\) \[\(32\/\)\?64-bit\]$/\1/p' "$top/list.sys" | sort -u >"$top/got.sys"
	if ! cmp -s "$top/want" "$top/got"; then
		echo "# tracepoint events, tracefs (<) vs 'lttng list -k' (>):"
		diff "$top/want" "$top/got" | grep '^[<>]' | head -n 10 | sed 's/^/#   /'
		bad=1
	fi
	if ! cmp -s "$top/want.sys" "$top/got.sys"; then
		echo "# system calls, tracefs (<) vs 'lttng list -k --syscall' (>):"
		diff "$top/want.sys" "$top/got.sys" | grep '^[<>]' | head -n 10 | sed 's/^/#   /'
		bad=1
	fi
	echo "# $(wc -l <"$top/got") tracepoint events, $(wc -l <"$top/got.sys") system calls listed"
	[ $bad = 0 ]
}

# busy CPU SECONDS: a mixed workload pinned to CPU until SECONDS pass.
busy() {
	local cpu=$1 end=$((SECONDS + $2)) i=0
	taskset -pc "$cpu" $BASHPID >/dev/null || return 1
	while [ $SECONDS -lt $end ]; do
		/bin/true
		cat /proc/self/stat /proc/meminfo >/dev/null
		echo "all_events $cpu $i" >/dev/udp/127.0.0.1/9
		if [ -b /dev/vda ]; then
			dd if=/dev/zero of=/dev/vda bs=4k count=4 seek=$((cpu * 256 + i % 256)) \
				oflag=direct status=none
		fi
		sleep 0.01
		i=$((i + 1))
	done
}

ktap_check list_matches_tracefs case_list_matches_tracefs
cases=${cases#list_matches_tracefs }

dmesg_lines=$(dmesg | wc -l)
t0=$SECONDS
session_ok=1
run lttng create a -o "$top/a" || session_ok=0
run lttng enable-channel -k c0 --subbuf-size 256k --num-subbuf 4 || session_ok=0
run lttng enable-event -k -c c0 --tracepoint -a || session_ok=0
run lttng enable-event -k -c c0 --syscall -a || session_ok=0
# A channel that surely discards: 2 x 4 KiB, drained every 2 s only (the
# read timer), for three of the most frequent events; the last case
# accounts for it.
run lttng enable-channel -k c1 --subbuf-size 4096 --num-subbuf 2 --output splice \
	--read-timer 2000000 || session_ok=0
run lttng enable-event -k -c c1 sched_switch,kmem_cache_alloc,kmem_cache_free || session_ok=0
run lttng start || session_ok=0
if [ -n "$sample" ]; then
	# Its events join the session, and keep it from being removed.
	run modprobe $sample || session_ok=0
fi
for cpu in $(seq 0 $(($(nproc) - 1))); do
	busy "$cpu" "$busy_s" &
done
wait
run lttng stop || session_ok=0
timeout -s KILL 60 lttng list a >"$top/list.a" 2>&1 || session_ok=0
run lttng destroy || session_ok=0
[ -z "$sample" ] || rmmod $sample 2>>"$log" || session_ok=0
lttng_teardown
[ $session_ok = 1 ] || tail -n 20 "$log" | sed 's/^/# /'

case_session_commands() { [ $session_ok = 1 ]; }

# The runner fails a boot that logs a WARNING or a BUG; this says which
# test caused it, and catches the driver's own complaints too.
case_dmesg_clean() {
	local new
	new=$(dmesg | tail -n +$((dmesg_lines + 1)) |
		grep -E 'WARNING|BUG|Oops|lttng|perf: interrupt took too long' | grep -v 'loading out-of-tree\|taints kernel')
	[ -z "$new" ] && return 0
	head -n 10 <<<"$new" | sed 's/^/# dmesg: /'
	return 1
}

t1=$SECONDS
timeout -s KILL $((150 * ${LTTNG_SLOW:-1})) babeltrace2 "$top/a" >"$top/a.txt" 2>"$top/a.err"
bt_st=$?
echo "# tracing $((t1 - t0)) s, babeltrace2 $((SECONDS - t1)) s"
# The events_discarded counter of a stream's first packet (the packet
# header and context of the driver's metadata: offset 72, 64 bits).
first_discarded() { od -An -t u8 -j 72 -N 8 "$1" | tr -d ' '; }

# babeltrace2 counts discarded events as the difference between the
# counters of consecutive packets; for a first packet whose counter is
# already non-zero (events refused before it closed: nested in the write
# path, say, which the debug kernel's lockdep and irqflags tracepoints
# do), it can only warn "may have discarded", once per stream.  Those
# warnings are accounted for: once per stream, and only for a stream
# whose first packet says so.
maybe_ok() {
	local line stream seen=" "
	# No /dev/fd in the guest: no process substitution.
	grep 'Tracer may have discarded events between' "$top/a.err" >"$top/maybe"
	while read -r line; do
		stream=$(sed -n 's|.* within stream "\([^"]*\)".*|\1|p' <<<"$line")
		case "$seen" in *" $stream "*) return 1 ;; esac
		seen="$seen$stream "
		[ -f "$stream" ] && [ "$(first_discarded "$stream")" -gt 0 ] || return 1
	done <"$top/maybe"
}

case_babeltrace2_clean() {
	local other
	other=$(grep -v 'Tracer discarded [0-9]* events\? \|Tracer may have discarded events between' "$top/a.err")
	maybe_ok || other="$other
(a 'may have discarded' warning for a stream twice, or for one whose first packet counts nothing)"
	[ "$bt_st" = 0 ] && [ -z "$other" ] && return 0
	echo "# babeltrace2 status $bt_st, stderr:"
	head -n 10 <<<"$other" | sed 's/^/#   /'
	return 1
}

# Event names: "[TIME] (+DELTA) HOST NAME: { ...", the fourth word.
cut -d' ' -f4 "$top/a.txt" | sed 's/:$//' | sort | uniq -c | sort -rn >"$top/names"
n_events=$(wc -l <"$top/names")
n_syscalls=$(grep -c ' syscall_entry_' "$top/names")
echo "# $(wc -l <"$top/a.txt") events, $n_events distinct names, $n_syscalls system calls;" \
	"most frequent: $(head -n 3 "$top/names" | awk '{ printf "%s %s ", $2, $1 }')"

case_distinct_events() {
	[ "$n_events" -ge "$min_events" ] && return 0
	echo "# $n_events distinct events, want at least $min_events"
	return 1
}

case_distinct_syscalls() {
	[ "$n_syscalls" -ge "$min_syscalls" ] && return 0
	echo "# $n_syscalls distinct system calls, want at least $min_syscalls"
	return 1
}

# babeltrace2 warns once per gap: "Tracer discarded N events between ...
# within stream "DIR/kernel/CHANNEL_CPU" ..."; 'lttng list SESSION' says
# "Discarded events: N" for each channel.  Both, channel by channel.
discarded_bt() {
	sed -n "s|.*Tracer discarded \([0-9]*\) events\? .* within stream \"[^\"]*/$1_[0-9]*\".*|\1|p" \
		"$top/a.err" | awk '{ n += $1 } END { print n + 0 }'
}
discarded_first() {
	local f n=0
	for f in "$top/a/kernel/$1"_[0-9]*; do
		[ -f "$f" ] && n=$((n + $(first_discarded "$f")))
	done
	echo $n
}
discarded_lttng() {
	awk -v ch="$1" '
		/^- [^ ]*: \[/ { cur = substr($2, 1, length($2) - 1) }
		cur == ch && /Discarded events:/ { print $3; found = 1 }
		END { if (!found) print "none" }' "$top/list.a"
}

case_discarded_accounted() {
	local ch bt first lt bad=0
	for ch in c0 c1; do
		bt=$(discarded_bt $ch)
		first=$(discarded_first $ch)
		lt=$(discarded_lttng $ch)
		echo "# $ch discarded: babeltrace2 $bt + first packets $first, lttng list $lt"
		[ "$((bt + first))" = "$lt" ] || bad=1
	done
	if [ "$(discarded_bt c1)" = 0 ]; then
		echo "# nothing discarded in c1: the case tested nothing"
		bad=1
	fi
	[ $bad = 0 ] || grep -A 12 '^- c' "$top/list.a" | sed 's/^/#   /'
	[ $bad = 0 ]
}

for c in $cases; do
	ktap_check "$c" "case_$c"
done
rm -rf "$top/a" "$top/a.txt"
echo "# all_events: $SECONDS s"
ktap_exit
