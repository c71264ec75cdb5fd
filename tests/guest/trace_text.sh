# SPDX-License-Identifier: GPL-2.0
# Shared by the in-guest tests that check trace contents: lttng commands
# logged in $log, one session at a time under $top, babeltrace2 text
# turned into KEY=VALUE words, and assertions.  Sourced, never run.

# lt CMD...: one lttng command under a timeout, logged in $log; on
# failure, says which and shows its output.
lt() {
	local st
	echo "\$ lttng $*" >>"$log"
	timeout -s KILL 60 lttng "$@" >"$log.cmd" 2>&1
	st=$?
	cat "$log.cmd" >>"$log"
	if [ $st != 0 ]; then
		echo "# lttng $* failed (status $st):"
		sed 's/^/#   /' "$log.cmd" | head -n 10
	fi
	return $st
}

# session NAME [CREATE-OPTS...]: a new session writing to $top/NAME, the
# only one (whatever a failed case left is destroyed).
session() {
	local name=$1; shift
	log=$top/$name.log
	timeout -s KILL 60 lttng destroy -a >/dev/null 2>&1
	lt create "te_$name" -o "$top/$name" "$@"
}

# finish: stop and destroy the current session.
finish() {
	lt stop && lt destroy
}

# Each babeltrace2 text line as one line of tab-separated KEY=VALUE words,
# with a tab at both ends: ln= (line number in the text), ev=, ts=, then
# the packet context fields as P.NAME, the stream event context fields as
# C.NAME and the payload fields as F.NAME (strings without their quotes):
#   [1700000000.123456789] (+0.000001234) host sched_switch: { cpu_id = 0 },
#       { prev_comm = "x", prev_pid = 12, ... }
#   ->  ln=1 ev=sched_switch ts=1700000000.123456789 P.cpu_id=0 F.prev_comm=x ...
normalize() {
	awk '
	/^\[/ {
		ts = substr($0, 2, index($0, "]") - 2)
		i = index($0, ": { ")
		if (!i)
			next
		nh = split(substr($0, 1, i - 1), h, " ")
		body = substr($0, i + 4)
		sub(/ }$/, "", body)
		# An event without payload fields ends in "}, { }".
		if (body ~ / }, {$/)
			body = body " "
		ns = split(body, sc, / }, { /)
		out = "\tln=" NR "\tev=" h[nh] "\tts=" ts
		for (s = 1; s <= ns; s++) {
			if (s == 1)
				p = "P."
			else if (s == ns)
				p = "F."
			else
				p = "C."
			nf = split(sc[s], kv, /, /)
			for (j = 1; j <= nf; j++) {
				e = index(kv[j], " = ")
				if (!e)
					continue
				k = substr(kv[j], 1, e - 1)
				v = substr(kv[j], e + 3)
				if (v ~ /^".*"$/)
					v = substr(v, 2, length(v) - 2)
				out = out "\t" p k "=" v
			}
		}
		print out "\t"
	}' "$1"
}

# read_trace NAME: babeltrace2 on the trace of session NAME into
# NAME.txt (text), NAME.err (stderr), NAME.ev (normalized); its status.
read_trace() {
	local t=$top/$1 st
	timeout -s KILL 120 babeltrace2 --clock-seconds "$t" >"$t.txt" 2>"$t.err"
	st=$?
	normalize "$t.txt" >"$t.ev"
	return $st
}

# events FILE KEY=VALUE...: the normalized events with all those words.
events() {
	local f=$1; shift
	awk -v want="$*" '
		BEGIN { n = split(want, w, " ") }
		{
			for (i = 1; i <= n; i++)
				if (!index($0, "\t" w[i] "\t"))
					next
			print
		}' "$f"
}
count() { events "$@" | wc -l; }

# field KEY: the value of KEY in the normalized event on stdin.
field() {
	awk -F '\t' -v k="$1=" '{
		for (i = 1; i <= NF; i++)
			if (index($i, k) == 1) {
				print substr($i, length(k) + 1)
				exit
			}
	}'
}

# kv TEXT KEY: the value of KEY=VALUE in a workload's output line.
kv() { tr ' ' '\n' <<<"$1" | sed -n "s/^$2=//p"; }

# expect WHAT GOT WANT: one assertion; on failure say it and mark $bad.
expect() {
	if [ "$2" != "$3" ]; then
		echo "# $1: got '$2', want '$3'"
		bad=1
	fi
}

# show NAME REGEX: the first babeltrace2 lines (and stderr) matching REGEX.
show() {
	local t=$top/$1
	grep -E "$2" "$t.txt" | head -n 15 | sed 's/^/# bt: /'
	head -n 5 "$t.err" | sed 's/^/# bt stderr: /'
}

# bt_clean NAME: babeltrace2 exited 0 with nothing on stderr.
bt_clean() {
	local st=$1
	[ "$st" = 0 ] && [ ! -s "$top/$2.err" ] && return 0
	echo "# babeltrace2 status $st, stderr:"
	head -n 10 "$top/$2.err" | sed 's/^/#   /'
	bad=1
	return 1
}
