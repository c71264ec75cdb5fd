#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# description: the events of a module loaded while a session runs are
#              recorded, with every kind of TRACE_EVENT field decoded (the
#              kernel's trace-events-sample module: __array, __field,
#              __dynamic_array, __string, __bitmask, __cpumask, __vstring,
#              __string_len, __rel_loc); the module can be removed under
#              the session (nothing pins it), and its events are recorded
#              again when it is loaded again
# requires: lttng-tools 2.13, babeltrace2, babeltrace 1.5,
#           CONFIG_SAMPLE_TRACE_EVENTS=m
. "$(dirname "$0")/ktap.sh"
. "$(dirname "$0")/lttng_env.sh"
ktap_plan 7
names="commands_ok rmmod_while_traced rmmod_after_destroy foo_bar_recorded_in_both_loads foo_bar_fields foo_rel_loc_fields babeltrace2_clean"

skip_all() { ktap_skip_all "$1" $names; }
command -v lttng-sessiond >/dev/null && command -v babeltrace2 >/dev/null &&
	command -v babeltrace >/dev/null ||
	skip_all "lttng-tools, babeltrace2 or babeltrace not installed"
modinfo trace-events-sample >/dev/null 2>&1 || skip_all "no trace-events-sample module"
rmmod trace-events-sample 2>/dev/null

lttng_setup /tmp/module_events

ok=1
run lttng create m -o $top/m || ok=0
run lttng enable-channel -k c0 --subbuf-size 256k || ok=0
# No such event exists yet: the module brings it.
run lttng enable-event -k -c c0 'foo_*' || ok=0
run lttng start || ok=0
run modprobe trace-events-sample || ok=0
# The sample's thread fires its events once a second.
sleep 4
# Its probes are its own code: they go with it, the session stays.
rmmod trace-events-sample 2>>"$log"
rm_st=$?
sleep 1
# Loaded again: the same events come back, counting from 0 again.
run modprobe trace-events-sample || ok=0
sleep 4
run lttng stop || ok=0
run lttng destroy || ok=0
rmmod trace-events-sample 2>>"$log"
rm_after=$?
[ $ok = 1 ] || sed 's/^/# /' "$log"
ktap_check commands_ok [ $ok = 1 ]
ktap_check rmmod_while_traced [ $rm_st = 0 ]
ktap_check rmmod_after_destroy [ $rm_after = 0 ]

babeltrace2 $top/m >$top/m.txt 2>$top/m.err
st=$?
# The field values are read with babeltrace 1.5 too: babeltrace2 2.0
# shows an empty string field with the value the same field had in an
# earlier event (fixed upstream after 2.0, review.lttng.org 4528), and
# lstr is empty for bar 0 and 1, after a load whose bars made it "h" and
# "he".  The bytes in the stream are right; babeltrace 1.5 reads them.
babeltrace $top/m >$top/m1.txt 2>>$top/m1.err
st1=$?
# Each load's thread counts bar from 0: two runs of consecutive bars.
bars=$(sed -nE 's/.* foo_bar: .* bar = ([0-9]+),.*/\1/p' $top/m.txt)
runs=$(awk 'NR == 1 || $1 <= prev { r++ } { prev = $1 } END { print r + 0 }' <<<"$bars")
n1=$(awk 'NR > 1 && $1 <= prev { exit } { n++; prev = $1 } END { print n + 0 }' <<<"$bars")
n=$(grep -c ' foo_bar: ' $top/m.txt)
echo "# $n foo_bar events in $runs runs, $n1 in the first"
[ "$runs" = 2 ] && [ "$n1" -ge 2 ] && [ $((n - n1)) -ge 2 ]
ktap_status foo_bar_recorded_in_both_loads $?

# Each foo_bar event, against what trace-events-sample.c passes for its
# counter bar: foo "hello", list 1..bar%5, vstr "iter=bar", lstr the
# first min(bar/2, 5) bytes of "hello", the strings of its table; and
# bar counts up by one.
hello=hello
strs=("Mother Goose" "Snoopy" "Gandalf" "Frodo" "One ring to rule them all")
check_foo_bar() {
	local line bar prev="" want_list i len resets=0
	while read -r line; do
		bar=$(sed -nE 's/.* bar = ([0-9]+),.*/\1/p' <<<"$line")
		[ -n "$bar" ] || { echo "# no bar: $line"; return 1; }
		len=$((bar % 5))
		want_list="list = \\[ "
		for ((i = 0; i < len; i++)); do
			want_list+="\\[$i\\] = $((i + 1))"
			[ $i -lt $((len - 1)) ] && want_list+=", "
		done
		want_list+=" ?\\]"
		i=$((bar / 2 < 5 ? bar / 2 : 5))
		if ! grep -qE "foo = \"hello\", bar = $bar, " <<<"$line" ||
		   ! grep -qE "$want_list" <<<"$line" ||
		   ! grep -qF "str = \"${strs[$len]}\"" <<<"$line" ||
		   ! grep -qF "vstr = \"iter=$bar\"" <<<"$line" ||
		   ! grep -qF "lstr = \"${hello:0:$i}\"" <<<"$line"; then
			echo "# unexpected fields for bar $bar: $line"
			return 1
		fi
		# A second load counts from 0 again.
		if [ -n "$prev" ] && [ "$bar" != $((prev + 1)) ] &&
		   ! { [ "$bar" -le "$prev" ] && [ $((resets++)) = 0 ]; }; then
			echo "# bar $bar after $prev"
			return 1
		fi
		prev=$bar
	done <<<"$(grep ' foo_bar: ' $top/m1.txt)"
	[ -n "$prev" ]
}
check_foo_bar && [ $st1 = 0 ] && [ ! -s $top/m1.err ] &&
	[ "$(grep -c ' foo_bar: ' $top/m1.txt)" = "$n" ]
ktap_status foo_bar_fields $?

# foo_rel_loc: __rel_loc string and bitmask (0xdeadbeef), and bar.
line=$(grep ' foo_rel_loc: ' $top/m.txt | tail -n 1)
echo "# $line" | cut -c1-300
grep -qE 'foo = "Hello __rel_loc", bar = [0-9]+, .*bitmask = \[ \[0\] = 0xDEADBEEF' -i <<<"$line"
ktap_status foo_rel_loc_fields $?

sed 's/^/# stderr: /' $top/m.err | head -n 5
[ $st = 0 ] && [ ! -s $top/m.err ]
ktap_status babeltrace2_clean $?
lttng_teardown
ktap_exit
