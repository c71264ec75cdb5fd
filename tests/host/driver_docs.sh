#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# description: every non-static function of the driver has a kernel-doc
#              comment, and scripts/kernel-doc finds nothing to complain of
set -uo pipefail
. "$(dirname "$0")/../../scripts/lib.sh"
. "$REPO/tests/guest/ktap.sh"
ktap_plan 2
drv=$TREE/drivers/staging/lttng
if [ ! -d "$drv" ]; then
	ktap_skip "non-static functions have kernel-doc" "no driver in the tree"
	ktap_skip "kernel-doc is clean" "no driver in the tree"
	ktap_exit
fi

# A definition starts in column 0, is not static, and its line ends with
# ')' or ',' (the parameter list goes on); the comment above must be /** */.
missing=$(find "$drv" -name '*.c' -print0 | sort -z | xargs -0 awk '
	FNR == 1 { prev = "" }
	/^[a-z_][a-z0-9_ *]*[ *]([a-z0-9_]+)\(/ && !/^static/ && !/;[[:space:]]*$/ &&
	    !/^(module_|MODULE_|EXPORT_|DEFINE_|LIST_HEAD|late_initcall|subsys_initcall)/ {
		if (prev !~ /^ \*\/$/ || !doc)
			printf "%s:%d: %s\n", FILENAME, FNR, $0
	}
	/^\/\*\*/ { doc = 1 }
	/^\/\*[^*]/ || /^\/\*$/ { doc = 0 }
	/^}/ { doc = 0 }
	{ if ($0 !~ /^[[:space:]]*$/) prev = $0 }')
[ -z "$missing" ] || printf '%s\n' "$missing" | sed "s|$TREE/||; s/^/# /"
ktap_check "non-static functions have kernel-doc" [ -z "$missing" ]

out=$(find "$drv" -name '*.[ch]' -print0 | sort -z | xargs -0 "$TREE/scripts/kernel-doc" -none 2>&1)
[ -z "$out" ] || printf '%s\n' "$out" | sed "s|$TREE/||; s/^/# /"
ktap_check "kernel-doc is clean" [ -z "$out" ]
ktap_exit
