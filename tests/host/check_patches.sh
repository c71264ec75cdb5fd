#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# description: every patch of the series is clean: checkpatch --strict prints
#              nothing, the header is git-format-patch style with a subsystem
#              prefix and a Signed-off-by, and MAINTAINERS matches the snippet
set -uo pipefail
. "$(dirname "$0")/../../scripts/lib.sh"
. "$REPO/tests/guest/ktap.sh"

mapfile -t patches < <(sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$REPO/series" | awk '{print $1}')
ktap_plan $(( ${#patches[@]} * 2 + 2 ))
[ -x "$TREE/scripts/checkpatch.pl" ] || die "no prepared tree at $TREE: run scripts/prepare-tree"

for p in "${patches[@]}"; do
	f=$REPO/patches/$p
	out=$(cd "$TREE" && ./scripts/checkpatch.pl --strict --quiet "$f" 2>&1)
	[ -z "$out" ] || printf '%s\n' "$out" | sed 's/^/# /'
	ktap_check "checkpatch --strict: $p" [ -z "$out" ]

	subject=$(sed -n 's/^Subject: //p;/^$/q' "$f")
	why=
	head -n1 "$f" | grep -q '^From: .* <.*@.*>$' || why="first line is not 'From: Name <email>'"
	grep -q '^Date: ' "$f" || why="no Date:"
	[ ${#subject} -le 75 ] || why="subject longer than 75 columns"
	[[ "$subject" =~ ^[a-z0-9_/.-]+:\ ([a-z0-9_-]+:\ )?[a-z] ]] || why="subject '$subject' lacks 'subsystem: prefix: summary'"
	case "$(cat "$f")" in *drivers/staging/lttng/*)
		[[ "$subject" == "staging: lttng: "* ]] || why="driver patch subject must start with 'staging: lttng: '" ;;
	esac
	grep -q '^Signed-off-by: .* <.*@.*>$' "$f" || why="no Signed-off-by"
	awk '/^---$/ { sep = 1 } /^(--- |diff )/ { exit } END { exit !sep }' "$f" || why="no '---' line before the diffstat"
	[ -z "$why" ] || echo "# $p: $why"
	ktap_check "header: $p" [ -z "$why" ]
done

# The seed patch keeps its author.
seed=$REPO/patches/sched-export-task_prio-to-GPL-modules.patch
ktap_check "seed patch keeps its author" \
	grep -qx 'From: Mathieu Desnoyers <mathieu.desnoyers@efficios.com>' "$seed"

# The MAINTAINERS entry of the patched tree is MAINTAINERS.snippet.
entry=$(awk '/^STAGING - LTTNG KERNEL TRACER$/ { on = 1 } on && /^$/ { exit } on' "$TREE/MAINTAINERS")
if [ "$entry" = "$(cat "$REPO/MAINTAINERS.snippet")" ]; then
	ktap_ok "MAINTAINERS entry is MAINTAINERS.snippet"
else
	diff <(echo "$entry") "$REPO/MAINTAINERS.snippet" | sed 's/^/# /'
	ktap_fail "MAINTAINERS entry is MAINTAINERS.snippet"
fi
ktap_exit
