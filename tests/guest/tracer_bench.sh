#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# description: per-event cost of this driver next to ftrace and the floor,
#   in one boot: a getppid() loop with the syscall entry/exit events,
#   two threads on one CPU calling sched_yield() with sched_switch, a
#   prctl(PR_SET_NAME) loop with task_rename (fixed-size fields), and a
#   stat("/") loop with kmem_cache_alloc and kmem_cache_free (the names
#   cache; kmem_cache_free has a string field).  Configurations
#   run interleaved (none floor ftrace lttng, none floor ...) for
#   BENCH_ROUNDS rounds; each prints ns per operation and, against its
#   round's untraced run, ns per event: median [min-max].  Then the highest
#   getppid() rate sustained for BENCH_RATE_SECONDS with nothing lost,
#   consumer (lttng-consumerd, or tracer_bench drain on trace_pipe_raw)
#   writing to tmpfs, on CPU 0 with the writer.  Figures only: a case fails when it gives no figure,
#   never on speed.  'make bench' runs it with the full sizes.  With
#   BENCH_MARKS=FILE (scripts/bench --insns, the QEMU plugin counting
#   instructions between tracer_bench's markers) each measured run appends
#   "WORKLOAD CONFIG N" to FILE, the LTTng daemons stay off CPU 0, and the
#   rate is not sought.  The lttng configuration measures whichever LTTng
#   kernel tracer lttng-sessiond loads: this driver, or, in the ref variant
#   of scripts/bench --insns, Debian's lttng-modules, which has no event
#   for some workloads (task_rename): there the lttng figure is "n/a".
# requires: tracer_bench and tp_floor.ko next to this script, ftrace with
#   syscall events, lttng-tools
. "$(dirname "$0")/ktap.sh"
. "$(dirname "$0")/lttng_env.sh"
here=$(cd "$(dirname "$0")" && pwd)
wl=$here/tracer_bench
tr=/sys/kernel/tracing
rounds=${BENCH_ROUNDS:-3}
sys_n=${BENCH_SYSCALLS:-20000}
pp_n=${BENCH_YIELDS:-5000}
rate_s=${BENCH_RATE_SECONDS:-2}
configs="none floor ftrace lttng"
# The syscall workload also runs under the lttng configuration plus one
# tracker or one family of contexts (BENCH_EXTRA=0 to leave them out):
# what each costs per event over plain lttng.
#   lttng-trk    a uid tracker that tracks the workload's uid 0
#   lttng-ids    pid tid ppid vpid vtid vppid
#   lttng-cred   uid euid suid gid egid sgid and their v-variants
#   lttng-ns     the eight namespace inodes
#   lttng-state  interruptible preemptible need_reschedule migratable
#   lttng-text   procname hostname
#   lttng-kstack callstack-kernel
#   lttng-ustack callstack-user
#   lttng-perf   perf:cpu:page-fault (a software counter)
#   lttng-fpass  the filter '$ctx.vtid > 0', which every event passes
#   lttng-frej   the filter '$ctx.vtid < 0', which rejects every event
extra="lttng-trk lttng-ids lttng-cred lttng-ns lttng-state lttng-text lttng-kstack lttng-ustack lttng-perf lttng-fpass lttng-frej"
# BENCH_EXTRA=0: none of them; BENCH_EXTRA="CONFIG...": those only.
case ${BENCH_EXTRA:-1} in
0) extra= ;;
1) ;;
*) extra=$BENCH_EXTRA ;;
esac
ktap_plan 5

skip_all() {
	local c
	for c in syscall_cost sched_switch_cost task_rename_cost kmem_cache_cost zero_loss_rate; do ktap_skip $c "$1"; done
	ktap_exit
}
# The driver's code is the same in both variants: measured once, in the
# modules variant, by the test run; scripts/bench measures either.
if grep -q lttng-tracer "/lib/modules/$(uname -r)/modules.builtin" && [ -z "${BENCH_ALWAYS:-}" ]; then
	skip_all "measured in the modules variant (BENCH_ALWAYS=1 to run)"
fi
# Under the debug kernel's checks (LTTNG_SLOW, make test-debug) the figures
# mean nothing, and its 13 configurations take most of an hour.
if [ "${LTTNG_SLOW:-1}" -gt 1 ] && [ -z "${BENCH_ALWAYS:-}" ]; then
	skip_all "measured in the modules variant, not under the debug kernel (BENCH_ALWAYS=1 to run)"
fi
[ "$(id -u)" = 0 ] || skip_all "not root"
[ -x "$wl" ] && [ -e "$here/tp_floor.ko" ] || skip_all "tracer_bench or tp_floor.ko not installed"
command -v lttng-sessiond >/dev/null || skip_all "lttng-tools not installed"
[ -e $tr/trace ] || mount -t tracefs nodev $tr 2>/dev/null
[ -e $tr/events/syscalls/sys_enter_getppid ] || skip_all "no syscall trace events"

lttng_setup /tmp/tracer_bench
marks=${BENCH_MARKS:-}
# The LTTng kernel tracer lttng-sessiond loaded: this driver, or
# lttng-modules (the ref variant of scripts/bench), recognised by its
# lttng-wrapper module, which this driver has no counterpart of, and its
# lttng-tracer's MODULE_VERSION.
tracer="this driver"
if [ -d /sys/module/lttng_wrapper ]; then
	tracer="lttng-modules $(cat /sys/module/lttng_tracer/version 2>/dev/null || echo '(version unknown)')"
fi
echo "# lttng: $tracer"
# Instruction counts are per CPU: the daemons (the consumer forks from the
# session daemon) stay off the workload's CPU 0.
# The symbols of the profile: the modules lttng-sessiond loaded included.
if [ -n "$marks" ]; then
	taskset -apc "$(($(nproc) - 1))" "$(pgrep -o lttng-sessiond)" >/dev/null
	cat /proc/kallsyms >"$marks.kallsyms"
fi
echo "# guest: $(nproc) CPUs; $rounds rounds; getppid x $sys_n, sched_yield x 2 x $pp_n, prctl x $sys_n"
# LTTng's clock is the monotonic clock, ftrace's default the TSC: when
# the kernel found the vCPUs' TSCs unsynchronised (TCG's emulation delays
# alone do it), every LTTng event reads the emulated HPET instead.
cs=$(cat /sys/devices/system/clocksource/clocksource0/current_clocksource 2>/dev/null)
if [ "${cs:-tsc}" != tsc ]; then
	echo "# clocksource $cs, not tsc: each LTTng event pays an emulated $cs read that"
	echo "#   ftrace's TSC clock does not (scripts/bench boots with tsc=reliable)"
fi

# The events of each workload, in ftrace's and lttng's names.
ftrace_events() {
	case $1 in
	syscall) echo syscalls/sys_enter_getppid syscalls/sys_exit_getppid ;;
	yield) echo sched/sched_switch ;;
	rename) echo task/task_rename ;;
	kmem) echo kmem/kmem_cache_alloc kmem/kmem_cache_free ;;
	esac
}
floor_tps() {
	case $1 in
	syscall) echo sys_enter,sys_exit ;;
	yield) echo sched_switch ;;
	rename) echo task_rename ;;
	kmem) echo kmem_cache_alloc,kmem_cache_free ;;
	esac
}
# lttng_recordable WORKLOAD: whether the loaded tracer has WORKLOAD's
# event.  This driver has every trace event (a missing one is a failure,
# as any figure missing); lttng-modules only those it has a probe for
# (2.13.9 has none for task_rename: no include/trace/events/task.h in its
# instrumentation).  System calls go by 'enable-event --syscall' in both.
lttng_recordable() {
	local e
	case $tracer in lttng-modules*) ;; *) return 0 ;; esac
	case $1 in
	syscall) return 0 ;;
	yield) e=sched_switch ;;
	rename) e=task_rename ;;
	kmem) e=kmem_cache_alloc ;;
	esac
	lttng list -k 2>/dev/null | grep -qE "^[[:space:]]+$e "
}
# events_per_op WORKLOAD: the events one operation of WORKLOAD records.
events_per_op() {
	case $1 in
	rename) echo 1 ;;
	*) echo 2 ;;
	esac
}

# ftrace_on WORKLOAD [BUFFER-KB]: ftrace recording WORKLOAD's events.
ftrace_on() {
	local e
	echo 0 >$tr/tracing_on
	[ -z "${2:-}" ] || echo "$2" >$tr/buffer_size_kb
	echo >$tr/trace
	for e in $(ftrace_events "$1"); do echo 1 >"$tr/events/$e/enable"; done
	echo 1 >$tr/tracing_on
}
# ftrace_off WORKLOAD: events off, buffer empty, tracing_on as it was.
ftrace_off() {
	local e
	for e in $(ftrace_events "$1"); do echo 0 >"$tr/events/$e/enable"; done
	echo >$tr/trace
	echo 1 >$tr/tracing_on
}

# lttng_on WORKLOAD [CHANNEL-OPTIONS...]: a session tracing WORKLOAD's
# events into $top/trace, consumer writing to tmpfs.
lttng_on() {
	local w=$1 filter=
	shift
	case ${extra_cfg:-} in
	lttng-fpass) filter='$ctx.vtid > 0' ;;
	lttng-frej) filter='$ctx.vtid < 0' ;;
	esac
	rm -rf "$top/trace"
	run lttng create bench --output "$top/trace" &&
		run lttng enable-channel -k c0 "$@" &&
		case $w in
		syscall) run lttng enable-event -k -c c0 --syscall getppid \
			${filter:+--filter "$filter"} ;;
		yield) run lttng enable-event -k -c c0 sched_switch ;;
		rename) run lttng enable-event -k -c c0 task_rename ;;
		kmem) run lttng enable-event -k -c c0 kmem_cache_alloc,kmem_cache_free ;;
		esac &&
		lttng_extra "${extra_cfg:-}" &&
		run lttng start
}

# lttng_extra CONFIG: the tracker or contexts of an extra configuration.
lttng_extra() {
	local t ctx=
	case $1 in
	lttng-trk) run lttng track -k --uid 0; return ;;
	lttng-ids) ctx="pid tid ppid vpid vtid vppid" ;;
	lttng-cred) ctx="uid euid suid gid egid sgid vuid veuid vsuid vgid vegid vsgid" ;;
	lttng-ns) ctx="cgroup_ns ipc_ns mnt_ns net_ns pid_ns user_ns uts_ns time_ns" ;;
	lttng-state) ctx="interruptible preemptible need_reschedule migratable" ;;
	lttng-text) ctx="procname hostname" ;;
	lttng-kstack) ctx=callstack-kernel ;;
	lttng-ustack) ctx=callstack-user ;;
	lttng-perf) ctx=perf:cpu:page-fault ;;
	*) return 0 ;;
	esac
	for t in $ctx; do
		run lttng add-context -k -c c0 -t "$t" || return 1
	done
}
# lttng_off: stop, and print the channel's discarded events (from
# lttng list, which the consumer fills from the packet contexts).
lttng_off() {
	run lttng stop
	lttng list bench >"$top/list" 2>&1
	sed -n 's/.*Discarded events: *\([0-9]*\).*/\1/p' "$top/list" | head -1
	run lttng destroy bench
}

# measure WORKLOAD N CONFIG: ns for N operations under CONFIG.
measure() {
	local w=$1 n=$2 c=$3 out
	case $c in
	floor) insmod "$here/tp_floor.ko" tracepoints="$(floor_tps "$w")" || return 1 ;;
	ftrace) ftrace_on "$w" ;;
	lttng*) extra_cfg=$c lttng_on "$w" --subbuf-size 1M --num-subbuf 8 >/dev/null || return 1 ;;
	esac
	out=$("$wl" "$w" "$n")
	[ -z "$marks" ] || echo "$w $c $n $(events_per_op "$w")" >>"$marks"
	case $c in
	floor) rmmod tp_floor ;;
	ftrace) ftrace_off "$w" ;;
	lttng*) [ "$(lttng_off)" = 0 ] || echo "# $c discarded events: the figure is too low" >&2 ;;
	esac
	sed -n 's/.*ns=\([0-9]*\).*/\1/p' <<<"$out"
}

# stats: "median [min-max]" of the numbers on stdin.
stats() {
	sort -g | awk '{ v[NR] = $1 } END {
		if (!NR) exit 1
		m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
		printf "%.1f [%.1f-%.1f]\n", m, v[1], v[NR] }'
}
median() { stats | cut -d' ' -f1; }

# bench NAME WORKLOAD N EVENTS-PER-OP: the interleaved rounds and the table.
bench() {
	local name=$1 w=$2 n=$3 epo=$4 r c ns base f ok=1 cfgs=$configs more=
	local d=$top/$name
	mkdir -p "$d"
	if ! lttng_recordable "$w"; then
		echo "# $name: $tracer has no event for it: no lttng figure"
		cfgs="none floor ftrace"
	elif [ "$w" = syscall ] && [[ $tracer != lttng-modules* ]]; then
		more=$extra
		cfgs="$configs $more"
	fi
	for r in $(seq "$rounds"); do
		for c in $cfgs; do
			ns=$(measure "$w" "$n" $c)
			[ -n "$ns" ] || { echo "# $name: no figure for $c in round $r"; ok=0; continue; }
			echo "$ns" >>"$d/$c.ns"
			[ $c = none ] && base=$ns
			[ $c = none ] || [ -z "$base" ] ||
				awk -v a="$ns" -v b="$base" -v n="$n" -v e="$epo" \
					'BEGIN { printf "%.2f\n", (a - b) / n / e }' >>"$d/$c.ev"
		done
	done
	[ $ok = 1 ] || return 1
	echo "# $name ($n operations, $epo events each), median [min-max] of $rounds rounds:"
	printf '#   %-12s %22s %24s\n' config "ns/operation" "ns/event (- untraced)"
	for c in $configs $more; do
		f="-"
		[ -s "$d/$c.ns" ] || { printf '#   %-12s %22s %24s\n' $c n/a "n/a ($tracer)"; continue; }
		[ -s "$d/$c.ev" ] && f=$(stats <"$d/$c.ev")
		printf '#   %-12s %22s %24s\n' $c \
			"$(awk -v n="$n" '{ print $1 / n }' "$d/$c.ns" | stats)" "$f"
	done
	if [ ! -s "$d/lttng.ns" ]; then
		echo "# BENCH $name floor=$(median <"$d/floor.ev") ftrace=$(median <"$d/ftrace.ev") lttng=n/a ratio=n/a"
		return 0
	fi
	# Ours over ftrace's, the floor subtracted, per round and overall.
	paste "$d/floor.ev" "$d/ftrace.ev" "$d/lttng.ev" |
		awk '$2 > $1 { printf "%.3f\n", ($3 - $1) / ($2 - $1) }' >"$d/ratio"
	echo "#   lttng/ftrace per event, floor subtracted: $(stats <"$d/ratio" || echo "n/a") (per round)"
	echo "# BENCH $name floor=$(median <"$d/floor.ev") ftrace=$(median <"$d/ftrace.ev") lttng=$(median <"$d/lttng.ev") ratio=$(median <"$d/ratio")"
}

bench syscall syscall "$sys_n" "$(events_per_op syscall)"
ktap_status syscall_cost $?
bench sched_switch yield "$pp_n" "$(events_per_op yield)"
ktap_status sched_switch_cost $?
bench task_rename rename "$sys_n" "$(events_per_op rename)"
ktap_status task_rename_cost $?
bench kmem_cache kmem "$sys_n" "$(events_per_op kmem)"
ktap_status kmem_cache_cost $?

# Sustained rate: RATE getppid()/s (2 events each) on CPU 0 for rate_s
# seconds; lost = what the tracer dropped or overwrote.
ftrace_rate() {
	local rate=$1 cpu pids=() lost
	ftrace_on syscall 1024
	# Readers woken as soon as a page is full, as lttng-consumerd is at
	# each sub-buffer (--read-timer 0 below); the default, half the
	# buffer, let the readers fall behind here.
	echo 0 >$tr/buffer_percent
	mkdir -p "$top/ftrace"
	# tracer_bench drain, not cat: a read that races the writer returns
	# 0, and cat would take it for the end (see tracer_bench.c).  Each
	# reader runs on the CPU of its buffer: a reader elsewhere that finds
	# the writer in the middle of a page switch spins in
	# rb_get_reader_page() for up to a second of udelay(1)s, which under
	# TCG's round-robin vCPUs could end in its RB_WARN_ON (it did once,
	# in CI), tainting the kernel.  lttng-consumerd shares CPU 0 too.
	for cpu in $tr/per_cpu/cpu*; do
		taskset -c "${cpu##*/cpu}" \
		"$wl" drain "$cpu/trace_pipe_raw" >"$top/ftrace/${cpu##*/}" \
			2>"$top/ftrace/${cpu##*/}.eof" &
		pids+=($!)
	done
	sleep 0.5
	"$wl" rate "$rate" "$rate_s" >"$top/rate.out"
	echo 0 >$tr/tracing_on
	sleep 1
	kill "${pids[@]}" 2>/dev/null
	wait "${pids[@]}" 2>/dev/null
	lost=$(cat $tr/per_cpu/cpu*/stats | awk '/^(overrun|dropped events):/ { s += $NF } END { print s + 0 }')
	for cpu in $tr/per_cpu/cpu*; do
		echo "#   ${cpu##*/}: $(grep -E '^(overrun|read events|entries):' "$cpu/stats" | tr '\n' ' ')$(stat -c %s "$top/ftrace/${cpu##*/}") bytes read, reads of 0 bytes: $(sed -n 's/^eof=//p' "$top/ftrace/${cpu##*/}.eof")" >&2
	done
	ftrace_off syscall
	echo 50 >$tr/buffer_percent
	rm -rf "$top/ftrace"
	echo "$lost"
}
lttng_rate() {
	local rate=$1 lost p
	# As much buffer as ftrace's 1 MiB per CPU; the consumer woken at
	# each delivered sub-buffer, as trace_pipe_raw readers are when the
	# buffer is half full, instead of the 200 ms read timer.
	lttng_on syscall --subbuf-size 256K --num-subbuf 4 --read-timer 0 >/dev/null || return 1
	# On CPU 0 with the writer, as ftrace's reader of CPU 0 is.
	for p in $(pgrep lttng-consumerd); do
		taskset -a -p -c 0 "$p" >/dev/null || return 1
	done
	"$wl" rate "$rate" "$rate_s" >"$top/rate.out"
	lost=$(lttng_off)
	rm -rf "$top/trace"
	echo "${lost:-unknown}"
}

# The rate each tracer sustains: unpaced first, then down by steps of
# 7/10 of the rate the last run made until a run loses nothing.
sustained() {
	local t=$1 rate=1000000000 lost got i
	for i in $(seq 12); do
		lost=$(${t}_rate "$rate")
		got=$(sed -n 's/ops=\([0-9]*\) ns=\([0-9]*\)/\1 \2/p' "$top/rate.out" |
			awk '{ printf "%d", $1 / ($2 / 1e9) }')
		echo "# $t: asked $rate calls/s, made $got/s, lost $lost events" >&2
		if [ "$lost" = 0 ]; then
			echo "$((got * 2))"
			return 0
		fi
		rate=$((got * 7 / 10))
	done
	return 1
}
if [ -n "$marks" ]; then
	ktap_skip zero_loss_rate "instruction counts only (BENCH_MARKS)"
	lttng_teardown
	ktap_exit
fi
f=$(sustained ftrace)
l=$(sustained lttng)
echo "# zero-loss events/s for ${rate_s} s (getppid entry+exit): ftrace ${f:-none found} lttng ${l:-none found}"
echo "# BENCH rate ftrace=${f:-0} lttng=${l:-0}"
# A figure for each, even when it is "none found": the search ran.
[ -s "$top/rate.out" ]
ktap_status zero_loss_rate $?

lttng_teardown
ktap_exit
