#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# description: two kernel sessions trace at once, each sees every event the
#              test caused; disable-event, disable-channel and a stopped
#              session record nothing more, enable-channel on a running
#              session and a restart record again; a glob enabler picks
#              exactly the events it matches
# requires: lttng-tools 2.13 and babeltrace2 in the guest
. "$(dirname "$0")/ktap.sh"
. "$(dirname "$0")/lttng_env.sh"
ktap_plan 6

if ! command -v lttng-sessiond >/dev/null || ! command -v babeltrace2 >/dev/null; then
	for i in 1 2 3 4 5 6; do ktap_skip "multi_session_$i" "lttng-tools or babeltrace2 not installed"; done
	ktap_exit
fi
lttng_setup /tmp/multi_session

# forks N: a shell that forks exactly N children (no command substitution
# of its own), each exiting at once; prints the forking shell's pid.
forks() {
	bash -c 'for ((i = 0; i < '"$1"'; i++)); do /bin/true; done; echo $$'
}

# count DIR PARENT: sched_process_fork events of PARENT in the trace.
count() {
	babeltrace2 "$1" 2>>"$log" | grep -c "sched_process_fork: .* parent_pid = $2, "
}

ok=1
run lttng create a -o $top/a || ok=0
run lttng enable-channel -k -s a c0 --subbuf-size 1M || ok=0
run lttng enable-event -k -s a -c c0 sched_process_fork || ok=0
run lttng create b -o $top/b || ok=0
run lttng enable-channel -k -s b c0 --subbuf-size 1M || ok=0
run lttng enable-event -k -s b -c c0 'sched_process_*' || ok=0
run lttng start a || ok=0
p1=$(forks 100)
run lttng start b || ok=0
p2=$(forks 50)
run lttng disable-event -k -s a -c c0 sched_process_fork || ok=0
p3=$(forks 30)
run lttng enable-event -k -s a -c c0 sched_process_fork || ok=0
run lttng disable-channel -k -s b c0 || ok=0
p4=$(forks 20)
run lttng enable-channel -k -s b c0 || ok=0
p4b=$(forks 15)
run lttng stop b || ok=0
p5=$(forks 10)
run lttng start b || ok=0
p5b=$(forks 7)
run lttng stop a || ok=0
p6=$(forks 5)
run lttng destroy a || ok=0
run lttng destroy b || ok=0
[ $ok = 1 ] || sed 's/^/# /' "$log"
ktap_check "two_sessions_commands_ok" [ $ok = 1 ]

got_a="$(count $top/a "$p1") $(count $top/a "$p2") $(count $top/a "$p3") $(count $top/a "$p4") $(count $top/a "$p4b") $(count $top/a "$p5") $(count $top/a "$p5b") $(count $top/a "$p6")"
want_a="100 50 0 20 15 10 7 0"
echo "# session a, forks per phase: got $got_a, want $want_a"
ktap_check "session_a_sees_its_phases" [ "$got_a" = "$want_a" ]

got_b="$(count $top/b "$p1") $(count $top/b "$p2") $(count $top/b "$p3") $(count $top/b "$p4") $(count $top/b "$p4b") $(count $top/b "$p5") $(count $top/b "$p5b") $(count $top/b "$p6")"
want_b="0 50 30 0 15 0 7 5"
echo "# session b, forks per phase: got $got_b, want $want_b"
ktap_check "session_b_sees_its_phases" [ "$got_b" = "$want_b" ]

# The glob of session b matched every sched_process_* event (exec and
# exit of the children, wait and free of their parent), and nothing else.
names=$(babeltrace2 $top/b 2>>"$log" | sed -nE 's/.* ([a-z_]+): \{ cpu_id.*/\1/p' | sort -u | tr '\n' ' ')
echo "# session b event names: $names"
[ -z "$(echo $names | tr ' ' '\n' | grep -v '^sched_process_')" ] &&
	[ "$(echo $names | tr ' ' '\n' | grep -cE '^sched_process_(exec|exit|fork)$')" = 3 ]
ktap_status "glob_matches_exactly" $?

# Session a only enabled sched_process_fork.
names=$(babeltrace2 $top/a 2>>"$log" | sed -nE 's/.* ([a-z_]+): \{ cpu_id.*/\1/p' | sort -u | tr '\n' ' ')
ktap_check "name_matches_exactly" [ "$names" = "sched_process_fork " ]

babeltrace2 $top/a $top/b >/dev/null 2>$top/bt.err
st=$?
sed 's/^/# stderr: /' $top/bt.err | head -n 5
[ $st = 0 ] && [ ! -s $top/bt.err ]
ktap_status "babeltrace2_clean" $?
lttng_teardown
ktap_exit
