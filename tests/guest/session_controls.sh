#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# description: the session controls of the stock lttng-tools on a kernel
#   session, each checked against what workloads of known size made:
#   every event is a getppid() system call of a workload process
#   (tracer_bench syscall N: N calls), told apart by the pid context.
#   rotate: three workloads (100, 200, 300 calls), "lttng rotate" after
#     each; each of the three chunks they archive is read by babeltrace2
#     alone and holds exactly its workload's calls, entry and exit, and
#     the fourth, archived by "lttng destroy", holds none.
#   rotate_timer: "lttng enable-rotation --timer"; the chunks together
#     hold each of three workloads exactly once.
#   rotate_size: "lttng enable-rotation --size 128K" on 64 KiB
#     sub-buffers: three workloads of 6000 calls make the session rotate
#     at least twice before its destruction archives the last chunk, and
#     the chunks together hold each workload exactly once.
#   clear_running: "lttng clear" between two workloads of a running
#     session: the trace holds the second one only, exactly.
#   clear_stopped: the same, the session stopped for the clear and
#     started again.
#   snapshot: two "lttng snapshot record" of a snapshot session, a
#     workload before each: the first holds the first workload, the
#     second both (the buffers never fill); a snapshot to an output added
#     by "snapshot add-output" after the default one is deleted.
#   num_subbuf_1: a discard channel of one sub-buffer records a workload
#     whole.
#   flight_recorder: a snapshot session records numbered lttng_logger
#     messages on CPU 1 into an overwrite channel of 4 x 4 KiB
#     sub-buffers; a first "lttng snapshot record" is slowed (strace
#     delays lttng-consumerd's writes) so that it holds CPU 1's oldest
#     packet while 1500 more messages wrap the ring over its place.  The
#     held snapshot reads in order; the next snapshot holds an unbroken
#     run of the last messages ending with the newest (the writer never
#     dropped a record while the reader held one), the whole ring: more
#     than 3.5 packets' worth; a snapshot limited by --max-size 16K (what
#     lttng-consumerd keeps of the newest packets) holds a shorter run
#     ending with the newest too.
#   relay_stream, relay_clear, relay_snapshot: the same through
#     lttng-relayd on 127.0.0.1 (net://): a streamed session, a clear of a
#     streamed session, a snapshot sent to the relay daemon.
#   relay_netns: lttng-relayd in a second network namespace, reached over
#     a veth pair: a session streamed to it holds its workload exactly.
#   live: a live session (live timer 1 s) read by "babeltrace2
#     --input-format=lttng-live" while it runs: the reader shows every
#     event of a workload within 4 s of its end, before the session stops.
#   regenerate_metadata: the wall clock set one day ahead during a
#     running session, then "lttng regenerate metadata": the trace's
#     metadata (babeltrace2 -o ctf-metadata) is one text, not two, whose
#     clock offset is the new wall clock minus the uptime (within 2 s;
#     the old one is a day off) and whose clock uuid is the boot id, and
#     the two workloads recorded before and after are both whole.
#   relay_regenerate_metadata: the same for a session streamed to
#     lttng-relayd, whose copy of the metadata is rewritten too.
# requires: lttng-tools 2.13 (lttng-relayd too), babeltrace2, strace,
#   taskset, 2 CPUs, tracer_bench next to this script, root
. "$(dirname "$0")/ktap.sh"
. "$(dirname "$0")/lttng_env.sh"
here=$(cd "$(dirname "$0")" && pwd)
cases="rotate rotate_timer rotate_size clear_running clear_stopped snapshot
	num_subbuf_1 flight_recorder relay_stream relay_clear relay_snapshot
	relay_netns live regenerate_metadata relay_regenerate_metadata"
ktap_plan "$(wc -w <<<"$cases")"

skip_all() { ktap_skip_all "$1" $cases; }
[ "$(id -u)" = 0 ] || skip_all "not root"
command -v lttng-sessiond >/dev/null && command -v babeltrace2 >/dev/null ||
	skip_all "lttng-tools or babeltrace2 not installed"
[ -x "$here/tracer_bench" ] || skip_all "tracer_bench not installed"
command -v lttng-relayd >/dev/null || skip_all "lttng-relayd not installed"
lttng_setup /tmp/session_controls

# session NAME [CREATE-OPTIONS...]: a session recording getppid with the
# pid context in channel c (CHANNEL_OPTS for enable-channel).
session() {
	local name=$1
	shift
	lt lttng create "$name" "$@" &&
		lt lttng enable-channel -k c $CHANNEL_OPTS &&
		lt lttng enable-event -k -c c --syscall getppid &&
		lt lttng add-context -k -c c -t pid
}

# read_trace DIR OUT: babeltrace2's text of DIR in OUT; fails, saying
# why, when babeltrace2 fails or writes anything on stderr.
read_trace() {
	if ! babeltrace2 "$1" >"$2" 2>"$2.err" || [ -s "$2.err" ]; then
		echo "# babeltrace2 $1 failed:"
		head -5 "$2.err" | sed 's/^/#   /'
		return 1
	fi
}

# calls FILE PID: the getppid entry and exit events of PID in FILE, as
# "ENTRIES EXITS".
calls() {
	echo "$(grep -c "syscall_entry_getppid: .*{ pid = $2 }" "$1")" \
		"$(grep -c "syscall_exit_getppid: .*{ pid = $2 }" "$1")"
}

# expect FILE PID N: FILE holds exactly N entries and N exits of PID.
expect() {
	local got
	got=$(calls "$1" "$2")
	echo "# $(basename "$1"): pid $2: entries/exits $got, want $3 $3"
	[ "$got" = "$3 $3" ]
}

# total FILE: the getppid events in FILE, of any process.
total() {
	grep -c "syscall_e[a-z]*_getppid:" "$1"
}

# rotate: one chunk per workload, exactly.
rotate_case() {
	local i n pids=() chunks c ok=0
	session r -o "$top/r" || return 1
	lt lttng start || return 1
	for n in 100 200 300; do
		getppid_work $n
		pids+=("$pid")
		lt lttng rotate r || { echo "# rotation after $n calls failed"; return 1; }
	done
	lt lttng stop && lt lttng destroy r || return 1
	chunks=($(ls -d "$top"/r/archives/* | sort -t- -k3n))
	# Three rotations, then the destruction archives the last chunk.
	[ ${#chunks[@]} = 4 ] || { echo "# ${#chunks[@]} archived chunks, want 4"; return 1; }
	for i in 0 1 2 3; do
		c=$top/rotate.$i.txt
		read_trace "${chunks[$i]}" "$c" || return 1
		n=$(((i + 1) * 100))
		[ $i = 3 ] && n=0
		[ $i = 3 ] || expect "$c" "${pids[$i]}" $n || ok=1
		[ "$(total "$c")" = $((2 * n)) ] ||
			{ echo "# chunk $i: $(total "$c") getppid events, want $((2 * n))"; ok=1; }
	done
	return $ok
}

# rotated SESSION MIN ROTATION-ARGS -- CALLS...: SESSION rotates as
# "lttng enable-rotation ROTATION-ARGS" says while workloads of CALLS
# getppid() each run, 3 s apart (the consumer's monitor samples sizes
# every second); then each workload is in the chunks exactly once, and
# at least MIN chunks were archived, the one the destruction archives
# included.
rotated() {
	local name=$1 min=$2 args=() calls=() pids=() d c n i all=$top/$1.all ok=0
	shift 2
	while [ "$1" != -- ]; do args+=("$1"); shift; done
	shift
	calls=("$@")
	session "$name" -o "$top/$name" || return 1
	lt lttng enable-rotation -s "$name" "${args[@]}" || return 1
	lt lttng start || return 1
	for n in "${calls[@]}"; do
		getppid_work "$n"
		pids+=("$pid")
		sleep 3
	done
	lt lttng stop && lt lttng destroy "$name" || return 1
	: >"$all"
	for d in "$top/$name"/archives/*/ "$top/$name"/*/; do
		[ -d "$d/kernel" ] || continue
		c=$top/$name.$(basename "$d").txt
		read_trace "$d" "$c" || return 1
		cat "$c" >>"$all"
	done
	n=$(ls -d "$top/$name"/archives/*/ 2>/dev/null | wc -l)
	echo "# $n archived chunks, the last by the destruction"
	[ "$n" -ge "$min" ] || { echo "# want at least $min"; ok=1; }
	for i in "${!calls[@]}"; do
		expect "$all" "${pids[$i]}" "${calls[$i]}" || ok=1
	done
	return $ok
}

# rotate_timer: chunks cut by the timer.
rotate_timer_case() {
	rotated rt 3 --timer 1s -- 100 200 300
}

# rotate_size: chunks cut when the session has written 256 KiB.
rotate_size_case() {
	CHANNEL_OPTS="--subbuf-size 64k --num-subbuf 4" \
		rotated rz 3 --size 128K -- 6000 6001 6002
}

# clear_running, clear_stopped: what follows the clear, only.
clear_case() {
	local stopped=$1 a b t=$top/clear.$1.txt
	session "cl$1" -o "$top/cl$1" || return 1
	lt lttng start || return 1
	getppid_work 150
	a=$pid
	if [ "$stopped" = 1 ]; then
		lt lttng stop && lt lttng clear && lt lttng start || return 1
	else
		lt lttng clear || return 1
	fi
	getppid_work 250
	b=$pid
	lt lttng stop && lt lttng destroy || return 1
	read_trace "$top/cl$1" "$t" || return 1
	expect "$t" "$a" 0 && expect "$t" "$b" 250
}

# snapshot: two records, then one to an added output.
snapshot_case() {
	local a b c d ok=0
	session s --snapshot -o "$top/s" || return 1
	lt lttng start || return 1
	getppid_work 100
	a=$pid
	lt lttng snapshot record -n first || return 1
	getppid_work 200
	b=$pid
	lt lttng snapshot record -n second || return 1
	lt lttng snapshot del-output 1 &&
		lt lttng snapshot add-output "$top/s2" -n third || return 1
	getppid_work 50
	c=$pid
	lt lttng snapshot record || return 1
	lt lttng stop && lt lttng destroy || return 1
	d=$(ls -d "$top"/s/first-* 2>/dev/null)
	read_trace "$d" "$top/snap1.txt" || return 1
	expect "$top/snap1.txt" "$a" 100 && expect "$top/snap1.txt" "$b" 0 || ok=1
	d=$(ls -d "$top"/s/second-* 2>/dev/null)
	read_trace "$d" "$top/snap2.txt" || return 1
	expect "$top/snap2.txt" "$a" 100 && expect "$top/snap2.txt" "$b" 200 || ok=1
	d=$(ls -d "$top"/s2/third-* 2>/dev/null)
	read_trace "$d" "$top/snap3.txt" || return 1
	expect "$top/snap3.txt" "$c" 50 || ok=1
	return $ok
}

# num_subbuf_1: a one-sub-buffer discard channel.
num_subbuf_1_case() {
	local a
	CHANNEL_OPTS="--discard --num-subbuf 1 --subbuf-size 256k" \
		session n1 -o "$top/n1" || return 1
	lt lttng start || return 1
	getppid_work 300
	a=$pid
	lt lttng stop && lt lttng destroy || return 1
	read_trace "$top/n1" "$top/n1.txt" || return 1
	expect "$top/n1.txt" "$a" 300
}

# log_seq FROM COUNT: COUNT lttng_logger messages "seq NNNNNN", numbered
# from FROM, one write each, from CPU 1.
log_seq() {
	taskset -c 1 bash -c 'exec 3>/proc/lttng-logger || exit 1
		for ((i = $1; i < $1 + $2; i++)); do printf "seq %06d" $i >&3; done' \
		_ "$1" "$2" || echo "# writing messages $1.. to /proc/lttng-logger failed"
}

# cpu1_seqs TEXT: the numbers of the messages recorded on CPU 1, in order.
cpu1_seqs() {
	sed -n 's/.*lttng_logger: { cpu_id = 1 }, { msg = "seq \([0-9]*\)" }$/\1/p' "$1" |
		sed 's/^0*\([0-9]\)/\1/'
}

# run_check SEQS LAST MIN MAX: SEQS (a file) is an unbroken run of
# between MIN and MAX numbers ending with LAST.
run_check() {
	awk -v last="$2" -v min="$3" -v max="$4" '
		NR > 1 && $1 != prev + 1 { gap++; if (gap == 1) print "# gap after " prev ": " $1 }
		{ prev = $1 }
		END {
			print "# " NR " messages, " (NR ? "from " first_of " " : "") "to " prev ", want an unbroken run of " min "-" max " to " last
			exit !(gap == 0 && prev == last && NR >= min && NR <= max)
		}
		NR == 1 { first_of = $1 }' "$1"
}

# flight_recorder: the newest records survive a slow snapshot reader.
flight_recorder_case() {
	local fr=$top/fr a=2000 b=1500 cpid spid snap d i ok=0
	command -v strace >/dev/null || { echo "# strace is not installed"; return 1; }
	lt lttng create fr --snapshot -o "$fr" &&
		lt lttng enable-channel -k c --overwrite --subbuf-size 4096 \
			--num-subbuf 4 &&
		lt lttng enable-event -k -c c lttng_logger &&
		lt lttng start || return 1
	log_seq 0 $a
	cpid=$(pgrep -o -x lttng-consumerd)
	[ -n "$cpid" ] || { echo "# no lttng-consumerd"; return 1; }
	# Every write of lttng-consumerd returns 5 s late, until strace goes.
	strace -f -y -p "$cpid" -e trace=write -o "$top/fr.strace" \
		-e inject=write:delay_exit=5000000 2>"$top/fr.strace.err" &
	spid=$!
	for i in $(seq 100); do
		grep -q attached "$top/fr.strace.err" && break
		sleep 0.1
	done
	lttng snapshot record -n held >"$top/fr.held.log" 2>&1 &
	snap=$!
	# The first write of CPU 1's stream: it holds CPU 1's oldest packet.
	for i in $(seq 600); do
		grep -q '/c_1>' "$top/fr.strace" && break
		sleep 0.1
	done
	if grep -q '/c_1>' "$top/fr.strace"; then
		log_seq $a $b
	else
		echo "# lttng-consumerd never wrote CPU 1's stream under strace:"
		sed 's/^/#   /' "$top/fr.strace.err" | head -5
		ok=1
	fi
	kill "$spid"
	wait "$spid"
	wait "$snap" || { echo "# the slowed snapshot failed:"; sed 's/^/#   /' "$top/fr.held.log"; return 1; }
	lt lttng snapshot record -n after &&
		lt lttng snapshot record -n small --max-size 16384 &&
		lt lttng stop && lt lttng destroy fr || return 1
	# The held snapshot may lack packets overwritten before their turn.
	d=$(ls -d "$fr"/held-* 2>/dev/null)
	babeltrace2 "$d" >"$top/fr.held.txt" 2>"$top/fr.held.err" ||
		{ echo "# babeltrace2 $d failed"; return 1; }
	cpu1_seqs "$top/fr.held.txt" >"$top/fr.held.seqs"
	sort -n -c "$top/fr.held.seqs" 2>/dev/null ||
		{ echo "# the held snapshot is out of order"; ok=1; }
	echo "# held snapshot: $(wc -l <"$top/fr.held.seqs") messages of CPU 1, in order (want a packet's worth at least, 200)"
	[ "$(wc -l <"$top/fr.held.seqs")" -ge 200 ] || ok=1
	d=$(ls -d "$fr"/after-* 2>/dev/null)
	read_trace "$d" "$top/fr.after.txt" || return 1
	cpu1_seqs "$top/fr.after.txt" >"$top/fr.after.seqs"
	# The whole ring, four 4 KiB packets of about 240 messages of 17
	# bytes: a lost packet would leave about 730.
	run_check "$top/fr.after.seqs" $((a + b - 1)) 900 $((4 * 4096 / 16)) || ok=1
	d=$(ls -d "$fr"/small-* 2>/dev/null)
	read_trace "$d" "$top/fr.small.txt" || return 1
	cpu1_seqs "$top/fr.small.txt" >"$top/fr.small.seqs"
	run_check "$top/fr.small.seqs" $((a + b - 1)) 1 \
		$(($(wc -l <"$top/fr.after.seqs") - 1)) || ok=1
	return $ok
}

# The relay daemon's trace of session NAME.
relayed() {
	ls -d "$top"/relayd/*/"$1"-* 2>/dev/null | head -1
}

# relay_stream: a session streamed to lttng-relayd.
relay_stream_case() {
	local a
	session rs --set-url net://127.0.0.1 || return 1
	lt lttng start || return 1
	getppid_work 120
	a=$pid
	lt lttng stop && lt lttng destroy || return 1
	read_trace "$(relayed rs)" "$top/rs.txt" || return 1
	expect "$top/rs.txt" "$a" 120
}

# relay_clear: a clear of a streamed session, between two workloads.
relay_clear_case() {
	local a b
	session rc --set-url net://127.0.0.1 || return 1
	lt lttng start || return 1
	getppid_work 130
	a=$pid
	lt lttng clear || return 1
	getppid_work 140
	b=$pid
	lt lttng stop && lt lttng destroy || return 1
	read_trace "$(relayed rc)" "$top/rc.txt" || return 1
	expect "$top/rc.txt" "$a" 0 && expect "$top/rc.txt" "$b" 140
}

# relay_snapshot: a snapshot recorded to the relay daemon.
relay_snapshot_case() {
	local a d
	session rn --snapshot || return 1
	lt lttng start || return 1
	getppid_work 110
	a=$pid
	lt lttng snapshot record -n relayed net://127.0.0.1 || return 1
	lt lttng stop && lt lttng destroy || return 1
	d=$(find "$top/relayd" -type d -name 'relayed-*' | head -1)
	[ -n "$d" ] || { echo "# no snapshot under $top/relayd"; return 1; }
	read_trace "$d" "$top/rn.txt" || return 1
	expect "$top/rn.txt" "$a" 110
}

# relay_netns: lttng-relayd in network namespace lttrelay, 10.77.0.2.
relay_netns_case() {
	local a i d ok=0
	ip netns add lttrelay &&
		ip link add lt0 type veth peer name lt1 netns lttrelay &&
		ip addr add 10.77.0.1/24 dev lt0 && ip link set lt0 up &&
		ip -n lttrelay addr add 10.77.0.2/24 dev lt1 &&
		ip -n lttrelay link set lt1 up &&
		ip -n lttrelay link set lo up ||
		{ echo "# setting up namespace lttrelay and its veth pair failed"; ok=1; }
	[ $ok = 0 ] && ip netns exec lttrelay lttng-relayd -d -o "$top/relayd-ns" \
		>"$top/relayd-ns.log" 2>&1
	for i in $(seq 50); do
		(exec 3<>/dev/tcp/10.77.0.2/5342) 2>/dev/null && break
		sleep 0.2
	done
	if [ $ok = 0 ]; then
		session rns --set-url net://10.77.0.2 &&
			lt lttng start || ok=1
		getppid_work 160
		a=$pid
		lt lttng stop && lt lttng destroy rns || ok=1
	fi
	ip netns pids lttrelay 2>/dev/null | xargs -r kill
	ip link del lt0 2>/dev/null
	ip netns del lttrelay 2>/dev/null
	[ $ok = 0 ] || return 1
	d=$(ls -d "$top"/relayd-ns/*/rns-* 2>/dev/null | head -1)
	[ -n "$d" ] || { echo "# no trace under $top/relayd-ns"; return 1; }
	read_trace "$d" "$top/rns.txt" || return 1
	expect "$top/rns.txt" "$a" 160
}

# live: a live reader sees a workload's events while the session runs.
live_case() {
	local a i reader got=0 t0 url
	session lv --live 1000000 --set-url net://127.0.0.1 || return 1
	lt lttng start || return 1
	url=net://127.0.0.1/host/$(hostname)/lv
	babeltrace2 --input-format=lttng-live "$url" >"$top/live.txt" \
		2>"$top/live.err" &
	reader=$!
	sleep 2
	getppid_work 150
	a=$pid
	t0=$(date +%s)
	for i in $(seq 300); do
		got=$(calls "$top/live.txt" "$a")
		[ "$got" = "150 150" ] && break
		sleep 0.1
	done
	t0=$(($(date +%s) - t0))
	echo "# live: $got entries/exits of pid $a after $t0 s, session running (live timer 1 s)"
	lt lttng stop && lt lttng destroy || return 1
	timeout 60 tail --pid=$reader -f /dev/null || kill $reader
	wait $reader
	echo "# live reader exit status $?"
	[ -s "$top/live.err" ] && head -3 "$top/live.err" | sed 's/^/#   /'
	# Within a few live timer periods (whole seconds here, TCG's pace):
	# a reader that sees events only at stop waits 30 s and fails.
	[ "$got" = "150 150" ] && [ "$t0" -le 4 ] && expect "$top/live.txt" "$a" 150
}

# regenerate_metadata NAME CREATE-OPTIONS...: the clock offset measured
# again, the metadata file rewritten (lttng-relayd's too, for net://).
regenerate_metadata_case() {
	local name=$1 a b up want got uuid n dir t=$top/$1.txt m=$top/$1.meta
	shift
	session "$name" "$@" || return 1
	lt lttng start || return 1
	getppid_work 100
	a=$pid
	date -s "@$(($(date +%s) + 86400))" >/dev/null || return 1
	lt lttng regenerate metadata
	n=$?
	read -r up _ </proc/uptime
	want=$(($(date +%s) - ${up%.*}))
	date -s "@$(($(date +%s) - 86400))" >/dev/null
	[ "$n" = 0 ] || return 1
	getppid_work 200
	b=$pid
	lt lttng stop && lt lttng destroy || return 1
	dir=$top/$name
	[ "$1" = -o ] || dir=$(relayed "$name")
	read_trace "$dir" "$t" || return 1
	babeltrace2 -o ctf-metadata "$dir/kernel" >"$m" || return 1
	got=$(sed -n 's/^[[:space:]]*offset_s = \([0-9-]*\);.*/\1/p' "$m")
	uuid=$(sed -n '/^clock {/,/^}/s/^[[:space:]]*uuid = "\(.*\)";/\1/p' "$m")
	echo "# clock blocks: $(grep -c '^clock {' "$m"), trace blocks:" \
		"$(grep -c '^trace {' "$m"), offset_s $got, want $want +- 2;" \
		"clock uuid $uuid, boot id $(cat /proc/sys/kernel/random/boot_id)"
	[ "$uuid" = "$(cat /proc/sys/kernel/random/boot_id)" ] &&
		[ "$(grep -c '^clock {' "$m")" = 1 ] &&
		[ "$(grep -c '^trace {' "$m")" = 1 ] &&
		[ -n "$got" ] && [ "$got" -ge $((want - 2)) ] &&
		[ "$got" -le $((want + 2)) ] &&
		expect "$t" "$a" 100 && expect "$t" "$b" 200
}

rotate_case
ktap_status rotate $?
rotate_timer_case
ktap_status rotate_timer $?
rotate_size_case
ktap_status rotate_size $?
clear_case 0
ktap_status clear_running $?
clear_case 1
ktap_status clear_stopped $?
snapshot_case
ktap_status snapshot $?
num_subbuf_1_case
ktap_status num_subbuf_1 $?
flight_recorder_case
ktap_status flight_recorder $?

lttng-relayd -d -o "$top/relayd" >"$top/relayd.log" 2>&1
for i in $(seq 50); do
	(exec 3<>/dev/tcp/127.0.0.1/5342) 2>/dev/null && break
	sleep 0.2
done
relay_stream_case
ktap_status relay_stream $?
relay_clear_case
ktap_status relay_clear $?
relay_snapshot_case
ktap_status relay_snapshot $?
relay_netns_case
ktap_status relay_netns $?
live_case
ktap_status live $?
regenerate_metadata_case rg -o "$top/rg"
ktap_status regenerate_metadata $?
regenerate_metadata_case rrg --set-url net://127.0.0.1
ktap_status relay_regenerate_metadata $?
pkill lttng-relayd

lttng destroy -a >/dev/null 2>&1
grep -i "error" "$log" | head -10 | sed 's/^/# /'
lttng_teardown
ktap_exit
