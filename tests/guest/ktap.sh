# SPDX-License-Identifier: GPL-2.0
# Minimal KTAP output for the shell tests, in the style of kselftest's
# ktap_helpers: ktap_plan N, then one ktap_ok/ktap_fail/ktap_skip per case.
ktap_n=0
ktap_failed=0
ktap_plan() { echo "TAP version 13"; echo "1..$1"; }
ktap_ok()   { ktap_n=$((ktap_n + 1)); echo "ok $ktap_n $1"; }
ktap_fail() { ktap_n=$((ktap_n + 1)); ktap_failed=1; echo "not ok $ktap_n $1"; }
ktap_skip() { ktap_n=$((ktap_n + 1)); echo "ok $ktap_n $1 # SKIP $2"; }
# ktap_check NAME CMD...: one case passes when CMD succeeds.
ktap_check() { local name=$1; shift; if "$@"; then ktap_ok "$name"; else ktap_fail "$name"; fi; }
# ktap_status NAME STATUS: one case passes when STATUS (a $?) is 0; for
# conditions joined with && or ||, which ktap_check would split.
ktap_status() { if [ "$2" = 0 ]; then ktap_ok "$1"; else ktap_fail "$1"; fi; }
ktap_exit() { exit $ktap_failed; }
# ktap_skip_all REASON CASE...: every case skipped for REASON, then exit.
ktap_skip_all() {
	local reason=$1 c
	shift
	for c in "$@"; do ktap_skip "$c" "$reason"; done
	ktap_exit
}
