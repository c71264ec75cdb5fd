#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# description: records whose strings and sequences all come after their
#              fixed-size fields are assigned in the ring buffer in place,
#              their data moved over the loc words (lttng-record.c), and
#              read back as the test module tail_strings.ko gave them: a
#              sequence and its length, a __rel_loc string, an empty last
#              string; empty strings and sequences.  A string given a
#              shorter text than the room its probe sized ends at its text
#              when it is the last field (the ring buffer takes the rest of
#              the record back), and is padded with '#' to its room when
#              another field follows.  With a filter, the same events are
#              written from the scratch area, where both end at their text.
#              A string whose room is too short to cover the loc word
#              before it, and a __rel_loc string whose data would come
#              before the end of its loc word (short fields before it), are
#              written from the scratch area.  A last string written by
#              __assign_str_len() with a NUL inside its room ends at that
#              NUL: only the string copy of __assign_str() vouches for its
#              text (LTTNG_PROBE_LOC_TEXT), and a second copy into the same
#              field takes that back; a string longer than its room is
#              cut to it.  Nothing is lost.
# requires: lttng-tools 2.13, babeltrace 1.5 (babeltrace2 2.0 misreads
#           empty strings, see module_events.sh), babeltrace2,
#           tail_strings.ko next to this script
. "$(dirname "$0")/ktap.sh"
. "$(dirname "$0")/lttng_env.sh"
here=$(cd "$(dirname "$0")" && pwd)
names="commands_ok in_place_last in_place_middle_padded in_place_seq empty_fields short_room_from_scratch rel_before_its_loc_from_scratch text_by_other_means_checked filtered_from_scratch nothing_lost"
ktap_plan 10
command -v lttng-sessiond >/dev/null && command -v babeltrace >/dev/null &&
	command -v babeltrace2 >/dev/null ||
	ktap_skip_all "lttng-tools, babeltrace or babeltrace2 not installed" $names
[ -e "$here/tail_strings.ko" ] || ktap_skip_all "tail_strings.ko not installed" $names
rmmod tail_strings 2>/dev/null

lttng_setup /tmp/tail_records
ok=1
# s0: the events as they are (in place); s1: the same behind a filter
# every record passes (the scratch area).
lt lttng create s0 -o $top/s0 || ok=0
lt lttng enable-event -k -s s0 'tail_*' || ok=0
lt lttng create s1 -o $top/s1 || ok=0
lt lttng enable-event -k -s s1 tail_last,tail_middle,tail_seq --filter 'id > 0' || ok=0
lt lttng start s0 || ok=0
lt lttng start s1 || ok=0
lt insmod "$here/tail_strings.ko" || ok=0
# LTTng attaches to a module's events when the module is live, after its
# init: they fire on a write to its parameter.
lt sh -c 'echo 1 >/sys/module/tail_strings/parameters/fire' || ok=0
lt rmmod tail_strings || ok=0
lt lttng stop s0 || ok=0
lt lttng stop s1 || ok=0
lt lttng destroy -a || ok=0
ktap_check commands_ok [ $ok = 1 ]

for s in s0 s1; do
	babeltrace $top/$s >$top/$s.txt 2>$top/$s.err
	echo "bt1 exit $?" >>$top/$s.err
	babeltrace2 $top/$s >$top/$s.bt2 2>>$top/$s.err
	echo "bt2 exit $?" >>$top/$s.err
done
sed 's/^\[[^]]*\] ([^)]*) [^ ]* //; s/^/# s0: /' $top/s0.txt
sed 's/^\[[^]]*\] ([^)]*) [^ ]* //; s/^/# s1: /' $top/s1.txt

# has FILE EVENT FIELDS: exactly one EVENT record whose fields are FIELDS
# (babeltrace 1.5's text, after the event's name and the stream context).
has() {
	local n
	n=$(grep -cF "$2: { cpu_id = " "$1")
	[ "$n" -ge 1 ] || { echo "# $1: no $2"; return 1; }
	grep -qF "}, { $3 }" "$1" && return 0
	echo "# $1: no $2 with { $3 }"
	return 1
}
t0=$top/s0.txt t1=$top/s1.txt
ktap_check in_place_last eval 'has $t0 tail_last "id = 1, text = \"ab\"" &&
	has $t0 tail_last "id = 2, text = \"exact\"" &&
	has $t0 tail_last "id = 12, text = \"abcd\""'
ktap_check in_place_middle_padded eval 'has $t0 tail_middle "id = 3, text = \"ab########\", last = \"last\"" &&
	has $t0 tail_middle "id = 9, text = \"ab########\", last = \"\""'
ktap_check in_place_seq has $t0 tail_seq \
	'id = 4, _vals_length = 3, vals = [ [0] = 7, [1] = 300, [2] = 65535 ], rel = "relative", name = "name"'
ktap_check empty_fields has $t0 tail_seq \
	'id = 5, _vals_length = 0, vals = [ ], rel = "", name = ""'
ktap_check short_room_from_scratch eval 'has $t0 tail_short "flag = 6, s = \"\"" &&
	has $t0 tail_short "flag = 7, s = \"abcdefgh\""'
ktap_check rel_before_its_loc_from_scratch has $t0 tail_seq \
	'id = 8, _vals_length = 1, vals = [ [0] = 7 ], rel = "r", name = "n"'
ktap_check text_by_other_means_checked eval 'has $t0 tail_len "id = 10, text = \"ab\"" &&
	has $t0 tail_len "id = 11, text = \"abcde\"" &&
	has $t0 tail_twice "id = 13, text = \"ab\""'
ktap_check filtered_from_scratch eval 'has $t1 tail_last "id = 1, text = \"ab\"" &&
	has $t1 tail_middle "id = 3, text = \"ab\", last = \"last\"" &&
	has $t1 tail_seq "id = 4, _vals_length = 3, vals = [ [0] = 7, [1] = 300, [2] = 65535 ], rel = \"relative\", name = \"name\"" &&
	has $t1 tail_last "id = 12, text = \"abcd\"" &&
	[ "$(grep -c " tail_" $t1)" = 8 ]'
# Thirteen records in s0, eight in s1, both readers clean, none discarded.
sed 's/^/# /' $top/s0.err $top/s1.err | grep -v "exit 0" | head -n 5
ktap_check nothing_lost eval '[ "$(grep -c " tail_" $t0)" = 13 ] &&
	[ "$(grep -c " tail_" $top/s0.bt2)" = 13 ] &&
	[ "$(grep -vc "exit 0" $top/s0.err)" = 0 ] &&
	[ "$(grep -vc "exit 0" $top/s1.err)" = 0 ]'
lttng_teardown
ktap_exit
