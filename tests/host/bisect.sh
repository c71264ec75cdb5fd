#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# description: the series applies to a pristine tree and every prefix of it
#              builds; sparse (C=2) and W=1 print nothing for the driver
#
# Works in its own tree ($CACHE/check/linux) so the main one stays at the
# full series.  It builds the full series first, then pops one patch at a
# time: each step is an incremental build of what that patch touched.
set -uo pipefail
. "$(dirname "$0")/../../scripts/lib.sh"
. "$REPO/tests/guest/ktap.sh"
export LTTNG_TREE=$CACHE/check/linux LTTNG_VARIANT=modules

mapfile -t patches < <(sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$REPO/series" | awk '{print $1}')
n=${#patches[@]}
ktap_plan $((n + 2))

run() { # run LOG CMD...: quiet unless it fails
	local logf=$1; shift
	"$@" >"$logf" 2>&1 || { tail -n 25 "$logf" | sed 's/^/# /'; return 1; }
}
logd=$CACHE/check/logs
mkdir -p "$logd"

if ! run "$logd/prepare.log" "$REPO/scripts/prepare-tree"; then
	ktap_fail "series applies to pristine $SRC_PKG"
	for ((i = n; i >= 1; i--)); do ktap_skip "builds: ${patches[$((i - 1))]}" "series does not apply"; done
	ktap_skip "sparse and W=1 clean" "series does not apply"
	ktap_exit
fi
ktap_ok "series applies to pristine $SRC_PKG"

# Driver warnings: sparse on every file (C=2) with W=1, after a full build.
sparse_ok=
for ((i = n; i >= 1; i--)); do
	p=${patches[$((i - 1))]}
	if run "$logd/prepare-$i.log" "$REPO/scripts/prepare-tree" --upto "$i" &&
	   run "$logd/build-$i.log" "$REPO/scripts/build-kernel" --lenient; then
		ktap_ok "builds: prefix $i, up to $p"
	else
		ktap_fail "builds: prefix $i, up to $p"
	fi
	if [ $i = $n ]; then
		if [ ! -d "$LTTNG_TREE/drivers/staging/lttng" ]; then
			ktap_skip "sparse and W=1 clean" "no driver in the series yet"
		elif run "$logd/sparse.log" "$REPO/scripts/build-kernel" --only drivers/staging/lttng/ -- C=2 W=1; then
			warn=$(grep -E 'warning:|error:|sparse:' "$logd/sparse.log")
			[ -z "$warn" ] || printf '%s\n' "$warn" | sed 's/^/# /'
			ktap_check "sparse and W=1 clean" [ -z "$warn" ]
		else
			ktap_fail "sparse and W=1 clean"
		fi
	fi
done
ktap_exit
