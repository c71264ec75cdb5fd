#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# description: the driver's modules load and unload cleanly, 100 times
#   (100 / LTTNG_SLOW on a slow kernel)
# requires: a modules build (skipped when the driver is built in)
. "$(dirname "$0")/ktap.sh"
ktap_plan 4

if ! modinfo lttng-tracer >/dev/null 2>&1 || grep -q lttng-tracer "/lib/modules/$(uname -r)/modules.builtin"; then
	for c in load_unload_100 proc_entry_follows_module clients_pin_core no_leftover_modules; do
		ktap_skip $c "the driver is built in"
	done
	ktap_exit
fi
clients="lttng-ring-buffer-client-discard lttng-ring-buffer-client-overwrite
	lttng-ring-buffer-metadata-client lttng-ring-buffer-client-mmap-discard
	lttng-ring-buffer-client-mmap-overwrite lttng-ring-buffer-metadata-mmap-client"
# Start from nothing loaded, whatever earlier tests left.
for c in $clients lttng-tracer; do modprobe -r "$c" 2>/dev/null; done

# 100 cycles; fewer on a slow (debug) kernel, where each load takes seconds.
cycles=$((100 / ${LTTNG_SLOW:-1}))
errors=0
for i in $(seq $cycles); do
	modprobe lttng-tracer || { echo "# iteration $i: modprobe failed"; errors=$((errors + 1)); break; }
	[ -e /proc/lttng ] || { echo "# iteration $i: /proc/lttng missing after load"; errors=$((errors + 1)); }
	rmmod lttng_tracer || { echo "# iteration $i: rmmod failed"; errors=$((errors + 1)); break; }
	[ ! -e /proc/lttng ] || { echo "# iteration $i: /proc/lttng left after unload"; errors=$((errors + 1)); }
done
echo "# $cycles load/unload cycles"
ktap_check load_unload_100 [ $errors = 0 ]

modprobe lttng-tracer && [ -e /proc/lttng ] && rmmod lttng_tracer && [ ! -e /proc/lttng ]
ktap_check proc_entry_follows_module [ $? = 0 ]

# lttng-sessiond loads the channel clients by name; each pins the core.
ok=1
for c in $clients; do
	modprobe "$c" || { echo "# modprobe $c failed"; ok=0; }
done
if rmmod lttng_tracer 2>/dev/null; then
	echo "# lttng_tracer unloaded while clients use it"; ok=0
fi
refs=$(awk '$1 == "lttng_tracer" { print $3 }' /proc/modules)
[ "$refs" = 6 ] || { echo "# lttng_tracer has $refs users, expected 6"; ok=0; }
for c in $clients; do
	modprobe -r "$c" || { echo "# modprobe -r $c failed"; ok=0; }
done
ktap_check clients_pin_core [ $ok = 1 ]

ktap_check no_leftover_modules [ -z "$(grep lttng /proc/modules)" ]
ktap_exit
