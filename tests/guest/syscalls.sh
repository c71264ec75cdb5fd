#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# description: system call events from the kernel's syscall metadata: the
#              stock tools list and enable them; a program's fixed list of
#              calls shows up in order with the arguments it passed and the
#              values the kernel returned; tracing every call under load
#              counts what it drops, exactly
# requires: lttng-tools 2.13, babeltrace2, CONFIG_FTRACE_SYSCALLS
. "$(dirname "$0")/ktap.sh"
. "$(dirname "$0")/lttng_env.sh"
ktap_plan 7
here=$(dirname "$0")
names="syscall_list sequence_commands_ok sequence_matches babeltrace2_clean compat_entry load_commands_ok exact_accounting"

skip_all() { ktap_skip_all "$1" $names; }
command -v lttng-sessiond >/dev/null && command -v babeltrace2 >/dev/null ||
	skip_all "lttng-tools or babeltrace2 not installed"
mount -t tracefs none /sys/kernel/tracing 2>/dev/null
grep -q '^syscalls:sys_enter_openat$' /sys/kernel/tracing/available_events ||
	skip_all "no syscall trace events (CONFIG_FTRACE_SYSCALLS)"

LTTNG_RUN_TIMEOUT=300
lttng_setup /tmp/syscalls

# The list has every system call ftrace has an entry event for.
want=$(grep -c '^syscalls:sys_enter_' /sys/kernel/tracing/available_events)
lttng list -k --syscall >$top/list.txt
got=$(grep -c '64-bit\]' $top/list.txt)
echo "# lttng list -k --syscall: $got 64-bit system calls ($(grep -c '\[32/64-bit\]' $top/list.txt) also 32-bit); ftrace has $want entry events"
grep -qE '^ +openat2? \[(32/)?64-bit\]' $top/list.txt && [ "$got" = "$want" ]
ktap_status syscall_list $?

# trace_all NAME MODE: syscall_workload MODE traced with every system
# call enabled and the tid context into $top/NAME, what it printed in
# $top/NAME.truth; ok=0 when a step failed.
trace_all() {
	ok=1
	run lttng create "$1" -o "$top/$1" || ok=0
	run lttng enable-channel -k c0 --subbuf-size 1M || ok=0
	run lttng enable-event -k -c c0 --syscall -a || ok=0
	run lttng add-context -k -c c0 -t tid || ok=0
	run lttng start || ok=0
	"$here/syscall_workload" "$2" >"$top/$1.truth" || ok=0
	run lttng stop || ok=0
	run lttng destroy || ok=0
	[ $ok = 1 ] || sed 's/^/# /' "$log"
}

# A fixed sequence; the events of its pid before the execve are the
# shell's.
trace_all seq list
ktap_check sequence_commands_ok [ $ok = 1 ]

eval "$(sed 's/ /;/g' $top/seq.truth)"	# tid fd write open_errno close_errno pipe fildes unknown_nr unknown_ret
echo "# truth: $(cat $top/seq.truth)"
babeltrace2 $top/seq >$top/seq.txt 2>$top/seq.err
st=$?
cat >$top/want <<EOF
syscall_entry_getpid: { tid = $tid }, { }
syscall_exit_getpid: { tid = $tid }, { ret = $tid }
syscall_entry_openat: { tid = $tid }, { dfd = -100, filename = "/dev/null", flags = 1, mode = 0 }
syscall_exit_openat: { tid = $tid }, { ret = $fd }
syscall_entry_write: { tid = $tid }, { fd = $fd, buf = BUF, count = 37 }
syscall_exit_write: { tid = $tid }, { ret = $write }
syscall_entry_openat: { tid = $tid }, { dfd = -100, filename = "/nonexistent/lttng-syscall-test", flags = 0, mode = 0 }
syscall_exit_openat: { tid = $tid }, { ret = -$open_errno }
syscall_entry_close: { tid = $tid }, { fd = 4294967295 }
syscall_exit_close: { tid = $tid }, { ret = -$close_errno }
syscall_entry_pipe2: { tid = $tid }, { fildes = $fildes, flags = 0 }
syscall_exit_pipe2: { tid = $tid }, { ret = $pipe, fildes = $fildes }
syscall_entry_unknown: { tid = $tid }, { id = $unknown_nr, args = [ [0] = 0x1, [1] = 0x2, [2] = 0x3, [3] = 0x4, [4] = 0x5, [5] = 0x6 ] }
syscall_exit_unknown: { tid = $tid }, { id = $unknown_nr, ret = $unknown_ret, args = [ [0] = 0x1, [1] = 0x2, [2] = 0x3, [3] = 0x4, [4] = 0x5, [5] = 0x6 ] }
EOF
grep -F "{ tid = $tid }" $top/seq.txt | sed -E 's/^.* (syscall_[a-z0-9_]+: )\{ cpu_id = [0-9]+ \}, /\1/' |
	sed -E 's/buf = 0x[0-9A-F]+/buf = BUF/' | sed -n '/^syscall_exit_execve/,$p' |
	grep -A13 -m1 '^syscall_entry_getpid' >$top/got
if diff $top/want $top/got >$top/diff; then
	ktap_ok sequence_matches
else
	sed 's/^/# /' $top/diff
	ktap_fail sequence_matches
fi
sed 's/^/# stderr: /' $top/seq.err | head -n 5
[ $st = 0 ] && [ ! -s $top/seq.err ]
ktap_status babeltrace2_clean $?

# The ia32 entry (int $0x80 from a 64-bit program): compat_syscall_*
# events with the number of the ia32 table and its registers.
if [ ! -e /proc/sys/abi/vsyscall32 ]; then
	ktap_skip compat_entry "no ia32 entry in this kernel (IA32_EMULATION off)"
else
	trace_all compat compat
	echo "# compat truth: $(cat $top/compat.truth)"
	eval "$(sed 's/ /;/g' $top/compat.truth)"	# tid pid fd cbuf write unknown_nr unknown_ret
	args="args = [ [0] = 0x1, [1] = 0x2, [2] = 0x3, [3] = 0x4, [4] = 0x5, [5] = 0x6 ]"
	cat >$top/compat.want <<EOF
compat_syscall_entry_getpid: { tid = $tid }, { }
compat_syscall_exit_getpid: { tid = $tid }, { ret = $pid }
compat_syscall_entry_write: { tid = $tid }, { fd = $fd, buf = $cbuf, count = 13 }
compat_syscall_exit_write: { tid = $tid }, { ret = $write }
compat_syscall_entry_unknown: { tid = $tid }, { id = $unknown_nr, $args }
compat_syscall_exit_unknown: { tid = $tid }, { id = $unknown_nr, ret = $unknown_ret, $args }
EOF
	babeltrace2 $top/compat 2>$top/compat.err | grep -F "{ tid = $tid }" |
		sed -nE 's/^.* (compat_syscall_[a-z0-9_]+: )\{ cpu_id = [0-9]+ \}, /\1/p' >$top/compat.got
	if [ $ok = 1 ] && [ "$write" = 13 ] && diff $top/compat.want $top/compat.got >$top/compat.diff &&
		[ ! -s $top/compat.err ]; then
		ktap_ok compat_entry
	else
		sed 's/^/# /' $top/compat.diff $top/compat.err | head -n 20
		ktap_fail compat_entry
	fi
fi

# A tiny discard channel recording getppid entry and exit, a program
# making a known number of getppid calls (nothing else calls it):
# recorded + discarded == 2 * calls.
n=200000
ok=1
run lttng create load -o $top/load || ok=0
run lttng enable-channel -k c0 --subbuf-size 4096 --num-subbuf 2 || ok=0
run lttng enable-event -k -c c0 --syscall getppid || ok=0
run lttng add-context -k -c c0 -t tid || ok=0
run lttng start || ok=0
"$here/syscall_workload" repeat $n >$top/load.truth || ok=0
run lttng stop || ok=0
run lttng destroy || ok=0
[ $ok = 1 ] || sed 's/^/# /' "$log"
ktap_check load_commands_ok [ $ok = 1 ]
eval "$(sed 's/ /;/g' $top/load.truth)"
babeltrace2 $top/load >$top/load.txt 2>$top/load.err
entries=$(grep -c "syscall_entry_getppid: .*{ tid = $tid }" $top/load.txt)
exits=$(grep -c "syscall_exit_getppid: .*{ tid = $tid }" $top/load.txt)
others=$(grep -vc "{ tid = $tid }" $top/load.txt)
lost=$(sed -nE 's/.*[Tt]racer discarded ([0-9]+) events? .*/\1/p' $top/load.err | awk '{ s += $1 } END { print s + 0 }')
echo "# $n getppid calls: $entries entry + $exits exit events recorded, $lost discarded, $others from other threads"
[ "$lost" -gt 0 ] && [ "$others" = 0 ] && [ $((entries + exits + lost)) = $((2 * n)) ]
ktap_status exact_accounting $?

lttng_teardown
ktap_exit
