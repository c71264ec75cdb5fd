# SPDX-License-Identifier: GPL-2.0
# Shared by the in-guest tests that drive lttng: a scratch folder with a
# command log, lttng-sessiond up and down, and run() for one command.

# lttng_setup DIR: a fresh DIR, log=DIR/log, lttng-sessiond answering.
lttng_setup() {
	local i
	top=$1
	log=$top/log
	rm -rf "$top"
	mkdir -p "$top"
	: >"$log"
	pgrep lttng-sessiond >/dev/null || lttng-sessiond -d >"$top/sessiond.log" 2>&1
	for i in $(seq 100); do
		lttng list >/dev/null 2>&1 && break
		sleep 0.2
	done
}

# run CMD...: log CMD and its output; killed after LTTNG_RUN_TIMEOUT s.
run() {
	echo "\$ $*" >>"$log"
	timeout -s KILL "${LTTNG_RUN_TIMEOUT:-120}" "$@" >>"$log" 2>&1
}

# lt CMD...: run() one command; on failure, say which and what it said.
lt() {
	run "$@" && return 0
	echo "# failed: $*"
	tail -3 "$log" | sed 's/^/#   /'
	return 1
}

# getppid_work N: a workload of N getppid() calls (tracer_bench, next to
# the test), waited for; its pid in $pid.
getppid_work() {
	"$(dirname "$0")/tracer_bench" syscall "$1" >/dev/null &
	pid=$!
	wait $pid || echo "# workload of $1 calls failed"
}

# lttng_teardown: no session left, lttng-sessiond gone.
lttng_teardown() {
	local i
	lttng destroy -a >/dev/null 2>&1
	pkill lttng-sessiond
	for i in $(seq 100); do
		pgrep lttng-sessiond >/dev/null || break
		sleep 0.2
	done
}

# probe_session NAME ENABLE-ARGS...: a started session NAME, under $top,
# recording in channel c the events "lttng enable-event -k -c c
# ENABLE-ARGS" makes, with the pid context (kprobes.sh, uprobes.sh).
probe_session() {
	local name=$1
	shift
	lt lttng create "$name" -o "$top/$name" &&
		lt lttng enable-channel -k c &&
		lt lttng enable-event -k -c c "$@" &&
		lt lttng add-context -k -c c -t pid &&
		lt lttng start
}

# probe_finish NAME: stop and destroy it; babeltrace2's text of its trace
# in $top/NAME.txt (empty when babeltrace2 fails, which is shown).
probe_finish() {
	lt lttng stop
	lt lttng destroy "$1"
	babeltrace2 "$top/$1" >"$top/$1.txt" 2>"$top/$1.err" || : >"$top/$1.txt"
	[ -s "$top/$1.err" ] && head -3 "$top/$1.err" | sed 's/^/# babeltrace2: /'
}
