#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# description: trackers (lttng track/untrack -k) record exactly the
#   processes they track.  Workloads of 200 getppid() calls each start
#   under known ids, held at a FIFO until the session runs: as root, as
#   uid/gid 1000 (setpriv), in a new PID namespace (vpid 1), in a new
#   user namespace (uid 1000 outside, 0 inside).  Per case, the
#   syscall_entry_getppid events of each workload, by its pid context,
#   are all 200 for a tracked one and none for the others: pid, vpid,
#   uid, vuid, gid, vgid; untrack --all records none; track --all
#   records every one again; a tracker added while the session runs
#   applies to what runs after it, and only to that.
# requires: lttng-tools 2.13, babeltrace2, setpriv and unshare
#   (util-linux), tracer_bench next to this script, root
. "$(dirname "$0")/ktap.sh"
. "$(dirname "$0")/lttng_env.sh"
here=$(cd "$(dirname "$0")" && pwd)
n=200
cases="pid vpid uid vuid gid vgid untrack_all track_all while_running"
ktap_plan "$(wc -w <<<"$cases")"

skip_all() { ktap_skip_all "$1" $cases; }
[ "$(id -u)" = 0 ] || skip_all "not root"
command -v lttng-sessiond >/dev/null && command -v babeltrace2 >/dev/null ||
	skip_all "lttng-tools or babeltrace2 not installed"
command -v setpriv >/dev/null && command -v unshare >/dev/null ||
	skip_all "setpriv or unshare (util-linux) not installed"
[ -x "$here/tracer_bench" ] || skip_all "tracer_bench not installed"
lttng_setup /tmp/trackers
chmod 755 "$top"

# actor NAME [WRAPPER...]: a workload held at a FIFO, started through
# WRAPPER; its pid (the process that makes the calls) in pid_NAME.
actor() {
	local name=$1 fifo p i
	fifo=$top/fifo.$((++nfifo))
	shift
	mkfifo -m 666 "$fifo"
	"$@" sh -c "read x <$fifo; exec $here/tracer_bench syscall $n" >/dev/null &
	p=$!
	eval "job_$name=$p fifo_$name=$fifo"
	# Through unshare --fork, the workload is unshare's child.
	if [[ " $* " == *" --fork "* ]]; then
		for i in $(seq 50); do
			pgrep -P "$p" >/dev/null && break
			sleep 0.1
		done
		p=$(pgrep -P "$p")
	fi
	eval "pid_$name=$p"
	fifos+=" $fifo"
}
# go: every actor released, and waited for.
go() {
	local f
	for f in $fifos; do
		timeout 10 sh -c "echo >$f" || echo "# no workload read $f"
	done
	wait
	rm -f $fifos
	fifos=
}
# release NAME...: those actors released, and waited for.
release() {
	local a f j
	for a in "$@"; do
		eval "f=\$fifo_$a j=\$job_$a"
		timeout 10 sh -c "echo >$f" || echo "# workload $a did not read $f"
		wait "$j"
		rm -f "$f"
		fifos=${fifos/ $f/}
	done
}
# count NAME: the getppid entry events of actor NAME in the trace.
count() {
	local p
	eval "p=\$pid_$1"
	grep -c "syscall_entry_getppid: { cpu_id = [0-9]* }, { pid = $p }" "$top/trace.txt"
}
# session TRACK-COMMAND...: a session recording getppid with the pid
# context, the tracker commands applied before it starts.
session_start() {
	rm -rf "$top/trace"
	run lttng create t -o "$top/trace" &&
		run lttng enable-channel -k c &&
		run lttng enable-event -k -c c --syscall getppid &&
		run lttng add-context -k -c c -t pid || return 1
	while [ $# -gt 0 ]; do
		run lttng $1 || return 1
		shift
	done
	run lttng start
}
session_end() {
	run lttng stop
	run lttng destroy
	babeltrace2 "$top/trace" >"$top/trace.txt" 2>"$top/bt.err" ||
		: >"$top/trace.txt"
}
# expect NAME=COUNT...: each actor's event count, said and checked.
expect() {
	local kv got ok=0
	for kv in "$@"; do
		got=$(count "${kv%=*}")
		echo "# ${kv%=*} (pid $(eval echo \$pid_${kv%=*})): $got events, want ${kv#*=}"
		[ "$got" = "${kv#*=}" ] || ok=1
	done
	return $ok
}
fifos= nfifo=0

# pid: one of two root workloads.
actor a
actor b
session_start "track -k --pid $pid_a"; go; session_end
expect a=$n b=0
ktap_status pid $?

# vpid: vpid 1 in a new PID namespace, next to a root workload.
actor ns unshare --pid --fork
actor root
session_start "track -k --vpid 1"; go; session_end
expect ns=$n root=0
ktap_status vpid $?

# uid, gid: uid/gid 1000 next to root.
for t in uid gid; do
	actor u setpriv --reuid=1000 --regid=1000 --clear-groups
	actor root
	session_start "track -k --$t 1000"; go; session_end
	expect u=$n root=0
	ktap_status $t $?
done

# vuid, vgid: uid/gid 1000 outside and 0 inside a user namespace, next to
# uid/gid 1000 without one.
for t in vuid vgid; do
	actor inner setpriv --reuid=1000 --regid=1000 --clear-groups unshare --user --map-root-user
	actor outer setpriv --reuid=1000 --regid=1000 --clear-groups
	session_start "track -k --$t 0"; go; session_end
	expect inner=$n outer=0
	ktap_status $t $?
done

# untrack --all: nobody.
actor a
session_start "untrack -k --pid --all"; go; session_end
expect a=0
ktap_status untrack_all $?

# track --all after an id: everybody again.
actor a
actor b
session_start "track -k --pid $pid_a" "track -k --pid --all"; go; session_end
expect a=$n b=$n
ktap_status track_all $?

# While running: everyone recorded, then a uid tracker added.  The
# workloads wait before the session starts (their shell's own calls are
# not in it).
actor before
actor u setpriv --reuid=1000 --regid=1000 --clear-groups
actor root
session_start
release before
run lttng track -k --uid 1000
release u root
go
session_end
expect before=$n u=$n root=0
ktap_status while_running $?

[ -s "$top/bt.err" ] && sed 's/^/# babeltrace2: /' "$top/bt.err" | head -5
sed 's/^/# /' "$log" | grep -i "error" | head -5
lttng_teardown
ktap_exit
