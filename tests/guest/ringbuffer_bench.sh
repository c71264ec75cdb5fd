#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# description: the LTTng ring buffer benchmark next to the kernel's own
#   ring_buffer_benchmark, in the same boot: ns per entry, median of
#   BENCH_RUNS runs each (1 in the test run; 'make bench' asks for more),
#   and their ratio.  Figures only, not a pass/fail on speed: a case fails
#   only when a benchmark gives no figure.
# requires: CONFIG_LTTNG_RING_BUFFER_BENCHMARK=m, CONFIG_RING_BUFFER_BENCHMARK=m
. "$(dirname "$0")/ktap.sh"

runs=${BENCH_RUNS:-1}
ktap_plan 3

# The figures come from modules in both variants: measure them once.
if grep -q lttng-tracer "/lib/modules/$(uname -r)/modules.builtin" && [ -z "${BENCH_ALWAYS:-}" ]; then
	for c in lttng_one_writer lttng_all_cpus ftrace_ring_buffer_benchmark; do
		ktap_skip $c "measured in the modules variant (BENCH_ALWAYS=1 to run)"
	done
	ktap_exit
fi

median() { sort -n | awk '{ v[NR] = $1 } END { if (NR) print v[int((NR + 1) / 2)] }'; }

# ours: one writer (as ftrace's single producer), then one per CPU.
lttng_run() {
	local before line
	before=$(dmesg | wc -l)
	insmod_args=("$@")
	modprobe lttng-rb-bench "${insmod_args[@]}" >/dev/null || return 1
	modprobe -r lttng-rb-bench
	line=$(dmesg | tail -n +"$((before + 1))" | grep -o 'lttng-rb-bench: .*' | tail -1)
	[ -n "$line" ] || return 1
	echo "# $line" >&2
	sed -n 's/.* ns_per_entry=\([0-9]*\) .*/\1/p' <<<"$line"
}

# ftrace: the module writes its result with trace_printk after 10 s.
ftrace_run() {
	local tr=/sys/kernel/tracing i v
	[ -e $tr/trace ] || mount -t tracefs nodev $tr 2>/dev/null || return 1
	echo > $tr/trace
	modprobe ring_buffer_benchmark || return 1
	for i in $(seq 60); do
		sleep 1
		v=$(grep -m1 -o '[0-9]* ns per entry' $tr/trace | cut -d' ' -f1)
		[ -n "$v" ] && break
	done
	modprobe -r ring_buffer_benchmark
	[ -n "$v" ] || return 1
	grep -E 'Time:|Overruns:|Read:|Entries:|Missed:|Hit:' $tr/trace | sed -e 's/^.*: \([A-Z]\)/# ftrace \1/' >&2
	echo "$v"
}

if ! modinfo lttng-rb-bench >/dev/null 2>&1; then
	ktap_skip lttng_one_writer "lttng-rb-bench not built"
	ktap_skip lttng_all_cpus "lttng-rb-bench not built"
else
	modprobe -q lttng-tracer
	one=$(for i in $(seq "$runs"); do lttng_run cpus=1; done | median)
	all=$(for i in $(seq "$runs"); do lttng_run cpus=0; done | median)
	echo "# lttng one writer: ${one:-none} ns/entry (median of $runs)"
	echo "# lttng all $(nproc) CPUs: ${all:-none} ns/entry per writer (median of $runs)"
	ktap_check lttng_one_writer [ -n "$one" ]
	ktap_check lttng_all_cpus [ -n "$all" ]
fi
if ! modinfo ring_buffer_benchmark >/dev/null 2>&1; then
	ktap_skip ftrace_ring_buffer_benchmark "ring_buffer_benchmark not built"
	ktap_exit
fi
ft=$(for i in $(seq "$runs"); do ftrace_run; done | median)
echo "# ftrace ring_buffer_benchmark: ${ft:-none} ns/entry (median of $runs)"
if [ -n "$one" ] && [ -n "$ft" ] && [ "$ft" -gt 0 ]; then
	echo "# ratio lttng/ftrace (one writer each): $(awk -v a="$one" -v b="$ft" 'BEGIN { printf "%.2f", a / b }')"
fi
ktap_check ftrace_ring_buffer_benchmark [ -n "$ft" ]
ktap_exit
