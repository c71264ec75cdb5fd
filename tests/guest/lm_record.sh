#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# description: one half of the differential test against lttng-modules:
#              the same recording, made in this boot with whichever kernel
#              tracer lttng-sessiond loads (this driver, or Debian's
#              lttng-modules 2.13.9 in the ref variant's boot), handed over
#              in $LTTNG_SHARE/lm_record/TRACER for the host's
#              tests/lm-diff-check to hold the two against each other:
#              - schema: every tracepoint event and system call enabled
#                ('enable-event -k --tracepoint -a', '--syscall -a'), the
#                session started and stopped: its metadata declares every
#                event with its fields;
#              - workload: analyses_workload's children (system calls,
#                sleeps, direct disk writes, CPU burnt, pages touched)
#                with the tid, pid and procname contexts, and the events
#                they cause in their own context.
#              Here: the session commands, the workload, the hand-over.
# requires: lttng-tools 2.13, root, /dev/vda, analyses_workload;
#           LTTNG_SHARE (tests/run shares a host folder)
. "$(dirname "$0")/ktap.sh"
. "$(dirname "$0")/lttng_env.sh"
cases="schema_recorded workload_recorded handed_over"
ktap_plan 3

skip_all() { ktap_skip_all "$1" $cases; }
[ "$(id -u)" = 0 ] || skip_all "not root"
command -v lttng-sessiond >/dev/null || skip_all "lttng-tools not installed"
[ -b /dev/vda ] || skip_all "no scratch disk /dev/vda"

lttng_setup /tmp/lm_record
wl=$(cd "$(dirname "$0")" && pwd)/analyses_workload
out=$top/out
mkdir -p "$out"
# The tracer lttng-sessiond loads: both name their core module
# lttng-tracer; this driver's is in drivers/staging (or built in).
case "$(modinfo -F filename lttng-tracer 2>/dev/null)" in
*/drivers/staging/*|'(builtin)') tracer=staging ;;
'') skip_all "no lttng-tracer module" ;;
*) tracer=lttng-modules ;;
esac
echo "# tracer: $tracer"

case_schema() {
	lt lttng create schema -o "$out/schema" &&
		lt lttng enable-channel -k c --subbuf-size 1M &&
		lt lttng enable-event -k -c c --tracepoint -a &&
		lt lttng enable-event -k -c c --syscall -a &&
		lt lttng start && lt lttng stop && lt lttng destroy schema
}

events=sched_process_fork,sched_process_exec,sched_process_exit,sched_switch,sched_wakeup,block_bio_queue,block_rq_insert,block_plug,block_unplug,kmem_mm_page_alloc
case_workload() {
	lt lttng create workload -o "$out/workload" &&
		lt lttng enable-channel -k c --subbuf-size 4M --num-subbuf 4 &&
		lt lttng enable-event -k -c c "$events" &&
		lt lttng enable-event -k -c c --syscall -a &&
		lt lttng add-context -k -c c -t tid -t pid -t procname &&
		lt lttng start || return 1
	# The same addresses in both boots: no ASLR, the same argv and an
	# empty environment.
	setarch -R env -i "$wl" /dev/vda >"$out/truth" 2>"$top/workload.err" ||
		{ sed 's/^/# workload: /' "$top/workload.err"; lttng destroy workload >/dev/null 2>&1; return 1; }
	lt lttng stop && lt lttng destroy workload
}

ktap_check schema_recorded case_schema
ktap_check workload_recorded case_workload

case_handed_over() {
	[ -n "${LTTNG_SHARE:-}" ] && [ -d "$LTTNG_SHARE" ] ||
		{ echo "# LTTNG_SHARE is not a shared folder: tests/run gives one"; return 1; }
	mkdir -p "$LTTNG_SHARE/lm_record" &&
		rm -rf "${LTTNG_SHARE:?}/lm_record/$tracer" &&
		cp -r "$out" "$LTTNG_SHARE/lm_record/$tracer" && sync
}
if [ -n "${LTTNG_SHARE:-}" ]; then
	ktap_check handed_over case_handed_over
else
	ktap_skip handed_over "no LTTNG_SHARE: run through tests/run to compare with lttng-modules"
fi
rm -rf "$out"
lttng_teardown
ktap_exit
