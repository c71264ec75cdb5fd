#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# description: LTTng's two trace readers read the same trace the same way.
#   One session records every kind of field and context the driver
#   writes: trace events with integers, text arrays, strings and
#   sequences (sched, irq, timer, task, signal), the statedump,
#   lttng_logger (a line with a newline), system calls with their
#   user-space strings (a few: the debug kernel's consumer would discard
#   records of them all), a kprobe and a kretprobe, and the pid, tid,
#   procname, prio, hostname, callstack-user and namespace contexts.
#   bt2_clean, bt1_clean: babeltrace2 and babeltrace 1.5 exit 0 with
#     nothing on stderr but warnings about discarded records (none in the
#     modules variant; the debug kernel's consumer cannot keep up).
#   same_events: both print the same events, field for field, in the
#     same order but for events of one timestamp, which the two readers
#     may order differently and which are compared as a set (without
#     the time since the previous event, which that order changes)
#     (babeltrace 1.5 prints a string's newline as is,
#     babeltrace2 as \n; babeltrace2 2.0 shows an empty text array with
#     an earlier event's value, a bug of its own, counted and accepted
#     only where babeltrace 1.5 reads "").
#   kinds: the trace holds each kind recorded: a sched_switch, a system
#     call entry and exit with a file name, a statedump thread, the
#     logger line, a kprobe and a kretprobe event, a sequence context.
# requires: lttng-tools 2.13, babeltrace2, babeltrace (1.5), root
. "$(dirname "$0")/ktap.sh"
. "$(dirname "$0")/lttng_env.sh"
cases="bt2_clean bt1_clean same_events kinds"
ktap_plan "$(wc -w <<<"$cases")"

skip_all() { ktap_skip_all "$1" $cases; }
[ "$(id -u)" = 0 ] || skip_all "not root"
command -v lttng-sessiond >/dev/null && command -v babeltrace2 >/dev/null ||
	skip_all "lttng-tools or babeltrace2 not installed"
command -v babeltrace >/dev/null || skip_all "babeltrace 1.5 not installed"
lttng_setup /tmp/readers

run lttng create rd -o "$top/trace" &&
	run lttng enable-channel -k c --subbuf-size 2M --num-subbuf 8 &&
	run lttng enable-event -k -c c 'sched_switch,sched_wakeup*,sched_process_*' &&
	run lttng enable-event -k -c c 'irq_*,timer_*' &&
	run lttng enable-event -k -c c 'task_*,signal_*,lttng_statedump_*' &&
	run lttng enable-event -k -c c lttng_logger &&
	run lttng enable-event -k -c c --syscall \
		openat,close,read,write,newfstatat,execve,getppid,rt_sigaction &&
	run lttng enable-event -k -c c --probe do_sys_openat2 rd_kprobe &&
	run lttng enable-event -k -c c --function do_sys_openat2 rd_kretprobe &&
	run lttng add-context -k -c c -t pid -t tid -t procname -t prio \
		-t hostname -t callstack-user -t mnt_ns -t vpid &&
	run lttng start || echo "# session setup failed: see $log"
printf 'readers\nline\n' >/proc/lttng-logger
cat /etc/hostname >/dev/null
trap ':' USR1
kill -USR1 $$
sleep 0.2
run lttng stop
run lttng destroy
b2=$top/bt2.txt
b1=$top/bt1.txt
# stderr but the readers' warnings about records the tracer discarded
# (the debug kernel's consumer cannot keep up; they are counted, and
# all_events checks that count against lttng's).
others() {
	grep -v -e '^WARNING: Tracer \(may have \)\?discarded [0-9]* *events' \
		-e '^\[warning\] Tracer discarded [0-9]* events' "$1"
}
babeltrace2 "$top/trace" >"$b2" 2>"$b2.err"
ktap_check bt2_clean test $? = 0 -a -z "$(others "$b2.err")"
others "$b2.err" | head -3 | sed 's/^/# babeltrace2: /'
babeltrace "$top/trace/kernel" >"$b1" 2>"$b1.err"
ktap_check bt1_clean test $? = 0 -a -z "$(others "$b1.err")"
others "$b1.err" | head -3 | sed 's/^/# babeltrace: /'
echo "# discard warnings: babeltrace2 $(wc -l <"$b2.err"), babeltrace 1.5 $(wc -l <"$b1.err")"

# babeltrace 1.5's lines joined where a string's newline broke them.
awk 'NR > 1 && !/^\[[0-9][0-9]:/ { printf "\\n%s", $0; next }
     NR > 1 { print "" } { printf "%s", $0 } END { print "" }' "$b1" >"$b1.joined"

# tie_sorted FILE: FILE's lines without "(+delta) ", the lines of one
# timestamp sorted among themselves (records, of one CPU or of two, can
# share a timestamp; the readers may order such ties differently).
tie_sorted() {
	awk '$1 != ts { ts = $1; g++ }
	     { sub(/ \(\+[0-9.?]+\)/, ""); printf "%09d\002%s\n", g, $0 }' "$1" |
		LC_ALL=C sort -t $'\002' -k1,1 -k2 | cut -d $'\002' -f2-
}

# The lines of babeltrace2 ($1) and babeltrace 1.5 ($2) side by side: they
# must be equal, but for one bug of babeltrace2 2.0: a text array that
# holds an empty string (the hostname context of a task whose namespaces
# are gone, at exit) shows the value the field had in an earlier event
# (babeltrace review 4528, "string fields display the value of a previous
# event").  Such a field, "" in babeltrace 1.5, is compared as "".
same_lines() {
	# Files, not <(...): the guest has no /dev/fd.
	tie_sorted "$b2" >"$b2.ties"
	tie_sorted "$b1.joined" >"$b1.ties"
	paste -d $'\001' "$b2.ties" "$b1.ties" | awk -F $'\001' -v n="$(wc -l <"$b2")" '
	$1 != $2 {
		a = $1; b = $2; rest = b
		while (match(rest, /[a-z_]+ = ""/)) {
			f = substr(rest, RSTART, RLENGTH - 5)
			gsub(f " = \"[^\"]*\"", f " = \"\"", a)
			rest = substr(rest, RSTART + RLENGTH)
		}
		if (a == b) {
			stale++
			rest = b
			while (match(rest, /[a-z_]+ = ""/)) {
				names[substr(rest, RSTART, RLENGTH - 5)] = 1
				rest = substr(rest, RSTART + RLENGTH)
			}
			next
		}
		if (bad++ < 3) printf "# line %d differs:\n#  bt2: %.300s\n#  bt1: %.300s\n", NR, $1, $2
	}
	END { printf "# %d lines, %d with a stale empty string of babeltrace2 (", NR, stale
	      for (f in names) printf " %s", f
	      print " )"
	      if (NR != n) printf "# compared %d lines of %d\n", NR, n
	      exit bad > 0 || NR != n }'
}
same_events_case() {
	echo "# babeltrace2: $(wc -l <"$b2") events, babeltrace 1.5: $(wc -l <"$b1.joined")"
	[ -s "$b2" ] && [ "$(wc -l <"$b2")" = "$(wc -l <"$b1.joined")" ] && same_lines
}
ktap_check same_events same_events_case

kinds_case() {
	local k ok=0
	for k in ' sched_switch: ' ' syscall_entry_openat: .*filename = "/etc/hostname"' \
		' syscall_exit_openat: ' ' lttng_statedump_process_state: ' \
		' lttng_logger: .*msg = "readers\\n"' ' rd_kprobe: ' \
		' rd_kretprobe_entry: ' ' rd_kretprobe_exit: ' \
		'_callstack_user_length = [1-9]'; do
		grep -q "$k" "$b2" && continue
		echo "# no event matches '$k'"
		ok=1
	done
	return $ok
}
ktap_check kinds kinds_case


lttng_teardown
ktap_exit
