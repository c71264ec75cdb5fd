#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# description: /proc/lttng-logger and /dev/lttng-logger: what a process
#   writes there is an lttng_logger event of the sessions that enable it.
#   listed: "lttng list -k" offers lttng_logger.
#   messages: three lines written by one process are three events with
#     those texts, in order, with its pid; a 3000-byte write is three
#     events of 1024, 1024 and 952 bytes.
#   unprivileged: user nobody may not write (EACCES: the file is root's,
#     0200, where lttng-modules makes it 0666); once an administrator
#     made it 0666, a write by user nobody is recorded.
#   device: /dev/lttng-logger is a character device of mode 0200, and a
#     line written there by a process is an event with its text and pid.
#   stopped: what is written while the session is stopped is not recorded.
#   ftrace: the event is an ordinary trace event: ftrace records a line
#     written while it is enabled there.
# requires: lttng-tools 2.13, babeltrace2, setpriv (util-linux), root
. "$(dirname "$0")/ktap.sh"
. "$(dirname "$0")/lttng_env.sh"
cases="listed messages unprivileged device stopped ftrace"
ktap_plan "$(wc -w <<<"$cases")"

skip_all() { ktap_skip_all "$1" $cases; }
[ "$(id -u)" = 0 ] || skip_all "not root"
command -v lttng-sessiond >/dev/null && command -v babeltrace2 >/dev/null ||
	skip_all "lttng-tools or babeltrace2 not installed"
command -v setpriv >/dev/null || skip_all "setpriv (util-linux) not installed"
lttng_setup /tmp/logger
chmod 755 "$top"

# say TEXT: one write of TEXT by a new process; its pid in $pid.
say() {
	sh -c 'printf "%s" "$1" >/proc/lttng-logger' sh "$1" &
	pid=$!
	wait $pid || echo "# write of '${1:0:20}' failed"
}

# msgs FILE PID: the texts of PID's lttng_logger events, one per line.
msgs() {
	sed -n "s/.*lttng_logger: .*{ pid = $2 }, { msg = \"\(.*\)\" }$/\1/p" "$1"
}

lttng list -k >"$top/list.txt" 2>&1
grep -q "^ *lttng_logger " "$top/list.txt"
ktap_status listed $?

run lttng create lg -o "$top/trace" &&
	run lttng enable-event -k lttng_logger &&
	run lttng add-context -k -t pid &&
	run lttng start || echo "# session setup failed: see $log"
say "hello-1"
a1=$pid
say "hello-2"
a2=$pid
say "hello-3"
a3=$pid
big=$(head -c 3000 /dev/zero | tr '\0' x)
say "$big"
b=$pid
mode=$(stat -c %a /proc/lttng-logger)
setpriv --reuid=65534 --regid=65534 --clear-groups \
	sh -c 'printf "%s" "refused" >/proc/lttng-logger' 2>"$top/nobody.err"
refused=$?
chmod 666 /proc/lttng-logger
setpriv --reuid=65534 --regid=65534 --clear-groups \
	sh -c 'printf "%s" "from-nobody" >/proc/lttng-logger' &
n=$!
wait $n || echo "# the write of user nobody failed"
chmod "$mode" /proc/lttng-logger
devmode=$(stat -c %F:%a /dev/lttng-logger 2>&1)
sh -c 'printf "%s" "via-dev" >/dev/lttng-logger' &
d=$!
wait $d || echo "# the write to /dev/lttng-logger failed"
run lttng stop
say "while-stopped"
s=$pid
run lttng destroy
babeltrace2 "$top/trace" >"$top/trace.txt" 2>"$top/bt.err" || : >"$top/trace.txt"

ok=0
for kv in "$a1=hello-1" "$a2=hello-2" "$a3=hello-3"; do
	got=$(msgs "$top/trace.txt" "${kv%%=*}")
	echo "# pid ${kv%%=*}: '$got', want '${kv#*=}'"
	[ "$got" = "${kv#*=}" ] || ok=1
done
lens=$(msgs "$top/trace.txt" "$b" | awk '{ printf "%s%d", sep, length($0); sep = " " }')
echo "# 3000-byte write: events of $lens bytes, want 1024 1024 952"
[ "$lens" = "1024 1024 952" ] || ok=1
ktap_status messages $ok

got=$(msgs "$top/trace.txt" "$n")
echo "# mode $mode: user nobody's write exited $refused ($(cat "$top/nobody.err"))"
echo "# mode 666: user nobody (pid $n): '$got'"
[ "$mode" = 200 ] && [ "$refused" != 0 ] && grep -q "Permission denied" "$top/nobody.err" &&
	[ "$got" = from-nobody ] && ! grep -q '"refused"' "$top/trace.txt"
ktap_status unprivileged $?

got=$(msgs "$top/trace.txt" "$d")
echo "# /dev/lttng-logger: $devmode; pid $d: '$got', want 'via-dev'"
[ "$devmode" = "character special file:200" ] && [ "$got" = via-dev ]
ktap_status device $?

got=$(msgs "$top/trace.txt" "$s" | wc -l)
echo "# written while stopped: $got events"
[ "$got" = 0 ] && grep -q "hello-1" "$top/trace.txt"
ktap_status stopped $?

t=/sys/kernel/tracing
[ -d $t/events ] || mount -t tracefs nodev $t 2>/dev/null
if [ -d $t/events/lttng/lttng_logger ]; then
	echo >$t/trace
	echo 1 >$t/events/lttng/lttng_logger/enable
	say "to-ftrace"
	echo 0 >$t/events/lttng/lttng_logger/enable
	grep -c "lttng_logger: to-ftrace$" $t/trace >"$top/ftrace.count"
	echo "# ftrace: $(cat "$top/ftrace.count") line(s)"
	[ "$(cat "$top/ftrace.count")" = 1 ]
	ktap_status ftrace $?
else
	echo "# no $t/events/lttng/lttng_logger"
	ktap_fail ftrace
fi

[ -s "$top/bt.err" ] && sed 's/^/# babeltrace2: /' "$top/bt.err" | head -5
grep -i "error" "$log" | head -5 | sed 's/^/# /'
lttng_teardown
ktap_exit
