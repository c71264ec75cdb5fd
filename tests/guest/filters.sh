#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# description: "lttng enable-event -k --filter" on system calls (integer
#   arguments and user-space strings), a trace event's text fields and
#   array elements, and contexts.  Each filter gets a channel of its own,
#   filter_workload makes events whose values the test knows once, and
#   each channel must hold exactly the values its filter passes.  The
#   integer filters' truth table is computed here by bash's arithmetic,
#   which has the same C operators.  Bytecode the tracer cannot run (a
#   floating-point constant) is refused at enable-event, and a filter on a
#   field the event lacks records nothing.  A filter that replaces an
#   event's rule while its session runs is obeyed from the next record,
#   and the event records everything again when the unfiltered rule comes
#   back (the tracer's fast path for unfiltered records must shut and
#   reopen).  (lttng-tools itself refuses a filter on a kprobe or uprobe
#   event: "not supported for Probe events".)
# requires: lttng-tools 2.13, babeltrace2
. "$(dirname "$0")/ktap.sh"
. "$(dirname "$0")/lttng_env.sh"

# Integer filters on syscall_entry_close's fd: the workload closes
# 100000..100019, which no process has open, so only its calls can match.
int_filters=(
	'fd == 100005'
	'fd != 100005 && fd >= 100000 && fd < 100020'
	'fd > 100016 || fd < 100002 && fd >= 100000'
	'(fd & 3) == 1 && fd >= 100000'
	'(fd >> 2) == 25001'
	'(fd | 1) == 100009 || (fd ^ 6) == 100012'
	'!(fd < 100018) && fd < 100020'
	'-fd == -100003'
	'~fd == -100008'
	'fd == 100001 || fd == 100002 || fd == 100003 || fd == 100019'
	'fd >= 100000 && fd <= 100019 && (fd << 1) > 200030'
)
# Other filters: NAME|EVENT|FILTER|FIELD|EXPECTED values, sorted.  The
# workload renames itself fltwl, flt0..flt9, fltwl; it opens the paths
# below (none exists).
paths=(/tmp/flt/alpha /tmp/flt/alps /tmp/flt/beta '/tmp/flt/b*ta' /tmp/flt/c)
other_filters=(
	'text_eq|task_rename|newcomm == "flt3"|newcomm|flt3'
	'text_prefix|task_rename|oldcomm == "flt*" && newcomm != "fltwl"|newcomm|flt0 flt1 flt2 flt3 flt4 flt5 flt6 flt7 flt8 flt9'
	'text_index|task_rename|newcomm == "flt*" && newcomm[3] >= 55|newcomm|flt7 flt8 flt9 fltwl fltwl'
	'ctx_procname|syscall:close|$ctx.procname == "fltwl" && fd < 100003|fd|100000 100001 100002'
	'ctx_glob|syscall:close|$ctx.procname == "*tw*" && fd == 100007|fd|100007'
	'ustring_prefix|syscall:openat|filename == "/tmp/flt/alp*"|filename|/tmp/flt/alpha /tmp/flt/alps'
	'ustring_glob|syscall:openat|filename == "/tmp/*/b*a"|filename|/tmp/flt/b*ta /tmp/flt/beta'
	'ustring_escaped_star|syscall:openat|filename == "/tmp/flt/b\*ta"|filename|/tmp/flt/b*ta'
	'ustring_order|syscall:openat|filename > "/tmp/flt/b" && filename < "/tmp/flt/c"|filename|/tmp/flt/b*ta /tmp/flt/beta'
	'missing_field|syscall:close|nosuchfield == 1|fd|'
)
ktap_plan $(( ${#int_filters[@]} + ${#other_filters[@]} + 4 ))

if ! command -v lttng-sessiond >/dev/null || ! command -v babeltrace2 >/dev/null; then
	ktap_skip_all "lttng-tools or babeltrace2 not installed"
fi
lttng_setup /tmp/filters
wl=$(dirname "$0")/filter_workload

# enable CHANNEL EVENT FILTER: one filtered event in a channel of its own.
enable() {
	local ev=$2
	lt lttng enable-channel -k -s f --subbuf-size 64K --num-subbuf 2 "$1" || return 1
	if [ "${ev#syscall:}" != "$ev" ]; then
		lt lttng enable-event -k -s f -c "$1" --syscall "${ev#syscall:}" --filter "$3"
	else
		lt lttng enable-event -k -s f -c "$1" "$ev" --filter "$3"
	fi
}

ok=1
lt lttng create f -o "$top/trace" || ok=0
for i in "${!int_filters[@]}"; do
	enable "i$i" syscall:close "${int_filters[$i]}" || ok=0
done
for i in "${!other_filters[@]}"; do
	IFS='|' read -r name ev filter field want <<<"${other_filters[$i]}"
	enable "o$i" "$ev" "$filter" || ok=0
done
# Two filters on one event of one channel: a record passes if either does.
lt lttng enable-channel -k -s f --subbuf-size 64K --num-subbuf 2 two || ok=0
lt lttng enable-event -k -s f -c two --syscall close --filter 'fd == 100004' || ok=0
lt lttng enable-event -k -s f -c two --syscall close --filter 'fd == 100011' || ok=0
# A floating-point constant: the tracer refuses the bytecode.
lttng enable-channel -k -s f --subbuf-size 64K --num-subbuf 2 dbl >>"$log" 2>&1
lttng enable-event -k -s f -c dbl --syscall close --filter 'fd == 1.5' >"$top/dbl.out" 2>&1
dbl=$?
sed 's/^/# lttng: /' "$top/dbl.out"
lt lttng start f || ok=0
"$wl" "${paths[@]}"
wl_st=$?
lt lttng stop f || ok=0
lt lttng destroy f || ok=0
[ "$wl_st" = 0 ] || { echo "# filter_workload failed: $wl_st"; ok=0; }
[ $ok = 1 ] || sed 's/^/# /' "$log"

# A running session: task_rename unfiltered, then only a filtered rule,
# then the unfiltered rule again; the workload runs once in each phase.
# ("disable-event" disables every rule of that name in the channel.)
run_ok=1
lt lttng create r -o "$top/run" || run_ok=0
lt lttng enable-channel -k -s r --subbuf-size 64K --num-subbuf 2 run || run_ok=0
lt lttng enable-event -k -s r -c run task_rename || run_ok=0
lt lttng start r || run_ok=0
"$wl" || run_ok=0
lt lttng disable-event -k -s r -c run task_rename || run_ok=0
lt lttng enable-event -k -s r -c run task_rename --filter 'newcomm == "flt3"' || run_ok=0
"$wl" || run_ok=0
lt lttng disable-event -k -s r -c run task_rename || run_ok=0
lt lttng enable-event -k -s r -c run task_rename || run_ok=0
"$wl" || run_ok=0
lt lttng stop r || run_ok=0
lt lttng destroy r || run_ok=0
[ $run_ok = 1 ] || { echo "# the running-session phases failed"; sed 's/^/# /' "$log"; }

# values CHANNEL EVENT FIELD: the FIELD values CHANNEL recorded, sorted.
values() {
	local d=$top/one-$1
	rm -rf "$d"
	mkdir -p "$d"
	ln -s "$top"/trace/kernel/metadata "$d"/
	ln -s "$top"/trace/kernel/"$1"_* "$d"/ 2>/dev/null
	babeltrace2 "$d" 2>"$top/bt-$1.err" | grep " $2: " |
		sed -n "s/.* $3 = \"\{0,1\}\([^\",}]*\)\"\{0,1\}.*/\1/p" |
		sed 's/ *$//' | sort | tr '\n' ' ' |
		sed 's/ $//'
	[ -s "$top/bt-$1.err" ] && sed 's/^/# babeltrace2: /' "$top/bt-$1.err"
}

# check NAME GOT WANT
check() {
	if [ $ok = 1 ] && [ "$2" = "$3" ]; then
		ktap_ok "$1"
	else
		echo "# $1: recorded [$2], expected [$3]"
		ktap_fail "$1"
	fi
}

for i in "${!int_filters[@]}"; do
	want=$(for j in $(seq 0 19); do
		fd=$((100000 + j))
		# bash evaluates the same expression: the truth table
		(( ${int_filters[$i]} )) && echo $fd
	done | sort | tr '\n' ' ' | sed 's/ $//')
	got=$(values "i$i" syscall_entry_close fd)
	echo "# '${int_filters[$i]}': ${want:-none}"
	check "int_$i" "$got" "$want"
done
for i in "${!other_filters[@]}"; do
	IFS='|' read -r name ev filter field want <<<"${other_filters[$i]}"
	case $ev in
	syscall:*) evname=syscall_entry_${ev#syscall:} ;;
	*) evname=$ev ;;
	esac
	got=$(values "o$i" "$evname" "$field")
	check "$name" "$got" "$(tr ' ' '\n' <<<"$want" | sort | tr '\n' ' ' | sed 's/^ *//; s/ $//')"
done
check two_filters_or "$(values two syscall_entry_close fd)" "100004 100011"
[ "$dbl" != 0 ] && grep -qi "filter" "$top/dbl.out"
ktap_status double_refused $?
check double_records_nothing "$(values dbl syscall_entry_close fd)" ""
# Phases 1 and 3 record the workload's twelve renames, phase 2 only flt3
# (other processes' renames are left out: none is named flt*).
all12="flt0 flt1 flt2 flt3 flt4 flt5 flt6 flt7 flt8 flt9 fltwl fltwl"
want=$(tr ' ' '\n' <<<"$all12 flt3 $all12" | sort | tr '\n' ' ' | sed 's/ $//')
got=$(babeltrace2 "$top/run" 2>"$top/bt-run.err" | grep " task_rename: " |
	sed -n 's/.* newcomm = "\(flt[^"]*\)".*/\1/p' | sort | tr '\n' ' ' | sed 's/ $//')
[ -s "$top/bt-run.err" ] && sed 's/^/# babeltrace2: /' "$top/bt-run.err"
[ $run_ok = 1 ] || ok=0
check filter_added_while_running "$got" "$want"
lttng_teardown
ktap_exit
