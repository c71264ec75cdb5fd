#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# description: the stock lttng-tools record an empty kernel trace (a channel,
#              no event) that babeltrace2 reads: discard, overwrite, mmap
#              output and snapshot sessions
# requires: lttng-tools 2.13 and babeltrace2 in the guest
. "$(dirname "$0")/ktap.sh"
cases="discard overwrite mmap snapshot"
checks="commands_ok stream_files babeltrace2_clean packets_ok"
ktap_plan 16

if ! command -v lttng-sessiond >/dev/null || ! command -v babeltrace2 >/dev/null; then
	for c in $cases; do
		for k in $checks; do ktap_skip "${c}_$k" "lttng-tools or babeltrace2 not installed"; done
	done
	ktap_exit
fi
top=/tmp/session_basic
rm -rf $top
mkdir -p $top
pkill lttng-sessiond 2>/dev/null
for i in $(seq 100); do pgrep lttng-sessiond >/dev/null || break; sleep 0.2; done
lttng-sessiond -d >$top/sessiond.log 2>&1
for i in $(seq 100); do
	lttng list >/dev/null 2>&1 && break
	sleep 0.2
done
ncpu=$(nproc)

# run LOG CMD...: run one lttng command, log its output; fail on non-zero.
run() {
	local log=$1; shift
	echo "\$ $*" >>"$log"
	timeout -s KILL 120 "$@" >>"$log" 2>&1
}

# Each packet of a stream file: CTF magic, packet_seq_num 0, 1, 2...
# (fields at the offsets of the fact sheet, section 7.3).
packets_consecutive() {
	local f=$1 off=0 seq=0 size magic s psize
	size=$(stat -c %s "$f")
	[ "$size" -gt 0 ] || { echo "# $f: empty"; return 1; }
	while [ $off -lt "$size" ]; do
		magic=$(od -An -tx4 -j $off -N4 "$f" | tr -d ' ')
		s=$(od -An -tu8 -j $((off + 64)) -N8 "$f" | tr -d ' ')
		psize=$(od -An -tu8 -j $((off + 56)) -N8 "$f" | tr -d ' ')
		if [ "$magic" != c1fc1fc1 ] || [ "$s" != $seq ] || [ $((psize % 32768)) != 0 ] || [ "$psize" = 0 ]; then
			echo "# $f at $off: magic $magic seq $s (want $seq) packet_size $psize"
			return 1
		fi
		off=$((off + psize / 8))
		seq=$((seq + 1))
	done
}

# Every clock snapshot babeltrace2 shows lies in [t0, t1] (wall clock, ns),
# and there is a packet beginning for every stream.
timestamps_in_window() {
	local dir=$1 t0=$2 t1=$3 ns n=0 begins
	begins=$(babeltrace2 -c sink.text.details "$dir" | tee "$dir.details" | grep -c 'Packet beginning:')
	[ "$begins" -ge "$ncpu" ] || { echo "# $begins packet beginnings for $ncpu streams"; return 1; }
	for ns in $(sed -n 's/.* cycles, \([0-9,]*\) ns from origin\].*/\1/p' "$dir.details" | tr -d ,); do
		n=$((n + 1))
		if [ "$ns" -lt "$t0" ] || [ "$ns" -gt "$t1" ]; then
			echo "# clock snapshot $ns outside [$t0, $t1]"
			return 1
		fi
	done
	[ $n -gt 0 ]
}

one_case() {
	# One local per line: "local a=$1 b=$a" expands $a before assigning.
	local name=$1
	local dir=$top/$name log=$top/$name.log ok=1 t0 t1 kdir f
	local create_opts="" chan_opts=""
	case $name in
	discard) chan_opts="--subbuf-size 64k --num-subbuf 8 --switch-timer 500000 --read-timer 100000" ;;
	overwrite) chan_opts="--overwrite" ;;
	mmap) chan_opts="--output mmap" ;;
	snapshot) create_opts="--snapshot" ;;
	esac
	t0=$(date +%s%N)
	run "$log" lttng create "s_$name" $create_opts -o "$dir" || ok=0
	run "$log" lttng enable-channel -k c0 $chan_opts || ok=0
	run "$log" lttng start || ok=0
	if [ $name = snapshot ]; then
		run "$log" lttng snapshot record || ok=0
	fi
	run "$log" lttng stop || ok=0
	t1=$(date +%s%N)
	run "$log" timeout -s KILL 120 lttng destroy || ok=0
	[ $ok = 1 ] || sed 's/^/# /' "$log"
	ktap_check "${name}_commands_ok" [ $ok = 1 ]

	kdir=$dir/kernel
	[ $name = snapshot ] && kdir=$(echo "$dir"/snapshot-1-*/kernel)
	for i in $(seq 50); do
		[ -s "$kdir/metadata" ] && break
		sleep 0.2
	done
	ls -lR "$dir" >>"$log" 2>&1
	[ -s "$kdir/metadata" ] && [ "$(ls "$kdir" | grep -c '^c0_[0-9]*$')" = "$ncpu" ]
	ktap_status "${name}_stream_files" $?

	babeltrace2 "$dir" >"$dir.out" 2>"$dir.err"
	local st=$?
	sed 's/^/# stderr: /' "$dir.err" | head -n 20
	[ $st = 0 ] && [ ! -s "$dir.err" ]
	ktap_status "${name}_babeltrace2_clean" $?

	ok=1
	for f in "$kdir"/c0_*; do
		packets_consecutive "$f" || ok=0
	done
	timestamps_in_window "$dir" "$t0" "$t1" && [ $ok = 1 ]
	ktap_status "${name}_packets_ok" $?
}

for c in $cases; do
	one_case $c
done
lttng destroy -a >/dev/null 2>&1
pkill lttng-sessiond
for i in $(seq 100); do pgrep lttng-sessiond >/dev/null || break; sleep 0.2; done
if pgrep lttng-sessiond >/dev/null; then
	# Destroying started sessions needs POSIX timers in lttng-sessiond.
	echo "# lttng-sessiond did not exit (CONFIG_POSIX_TIMERS missing?)"
	pkill -9 lttng-consumerd; pkill -9 lttng-sessiond; sleep 1
	modprobe -r -a lttng-ring-buffer-client-discard lttng-ring-buffer-client-overwrite \
		lttng-ring-buffer-metadata-client lttng-ring-buffer-client-mmap-discard \
		lttng-ring-buffer-client-mmap-overwrite lttng-ring-buffer-metadata-mmap-client 2>/dev/null
fi
ktap_exit
