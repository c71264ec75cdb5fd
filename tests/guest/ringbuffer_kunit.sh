#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# description: the ring buffer library's KUnit suite, one KTAP line per case
# requires: CONFIG_LTTNG_RING_BUFFER_KUNIT_TEST=m (skipped when absent)
. "$(dirname "$0")/ktap.sh"

mod=lttng-rb-test
echo "TAP version 13"
if ! modinfo "$mod" >/dev/null 2>&1; then
	echo "1..1"
	ktap_skip lttng-ring-buffer "module $mod not built"
	ktap_exit
fi
modprobe -q lttng-tracer
before=$(dmesg | wc -l)
modprobe "$mod" || { echo "1..1"; ktap_fail "modprobe $mod"; ktap_exit; }
# KUnit runs the suite at module load; its cases are the indented lines.
log=$(dmesg | tail -n +"$((before + 1))" | sed -e 's/^\[[^]]*\] //')
modprobe -r "$mod"
cases=$(grep -E '^    (not )?ok [0-9]+ ' <<<"$log")
if [ -z "$cases" ]; then
	echo "1..1"
	printf '%s\n' "$log" | sed -e 's/^/# /'
	ktap_fail "no KUnit result in dmesg"
	ktap_exit
fi
# The plan is KUnit's own (the suite's "1..N"), so that a suite that
# stops half-way shows as missing cases.
plan=$(sed -n 's/^    1\.\.\([0-9]*\)$/\1/p' <<<"$log" | head -n 1)
echo "1..${plan:-0}"
[ -n "$plan" ] || { echo "# no KUnit plan in dmesg"; ktap_fail "KUnit plan"; ktap_exit; }
# Diagnostics the cases printed (figures, failed expectations).
grep -E '^    # ' <<<"$log" | grep -v '# Subtest:' | sed -e 's/^ *# /# /'
while read -r ok n rest; do
	if [ "$ok" = ok ]; then
		ktap_n=$((ktap_n + 1)); echo "ok $ktap_n $rest"
	else
		read -r _ n rest <<<"$n $rest"
		ktap_fail "$rest"
	fi
done <<<"$(sed -e 's/^    //' <<<"$cases")"
ktap_exit
