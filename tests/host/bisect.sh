#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# description: the series applies to a pristine tree and every prefix of it
#              builds; sparse (C=2) and W=1 print nothing for the driver
#
# Works in its own tree ($CACHE/check/linux) so the main one stays at the
# full series (which the guest tests build whole).  It applies the full
# series, then pops one patch at a time; each step compiles what can break
# there: the driver directory once it exists, the C files the patch on top
# and the patch just popped touch, and, for a header they touch, the
# configured C files next to it that include it.  Objects only: no link,
# no full build (the main tree's builds link the whole series).
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

# touched PATCH: the files a patch changes.
touched() { sed -n 's|^+++ b/\([^[:space:]]*\).*|\1|p' "$REPO/patches/$1"; }

# configured OBJ: OBJ (dir/name.o) is built by this configuration, as far
# as its directory's Makefile says on an obj-y or obj-$(CONFIG_X) line.
configured() {
	local dir=${1%/*} obj=${1##*/} cfg
	cfg=$(sed -e ':a' -e '/\\$/N; s/\\\n//; ta' "$LTTNG_TREE/$dir/Makefile" 2>/dev/null |
		sed -n 's/^obj-\(y\|\$(CONFIG_\([A-Z0-9_]*\))\)[[:space:]]*[+:]\?=.*[[:space:]]'"${obj//./\\.}"'\([[:space:]].*\)\?$/\1 \2/p' | head -n 1)
	case "$cfg" in
	"") return 1 ;;
	y*) return 0 ;;
	*) grep -qE "^CONFIG_${cfg#* }=[ym]\$" "$(build_dir modules)/.config" ;;
	esac
}

# targets I: what to compile for prefix I (see the top of this file).
targets() {
	local i=$1 j f h inc
	local from=$i to=$((i + 1))
	[ "$i" = "$n" ] && from=1
	for ((j = from; j <= to && j <= n; j++)); do touched "${patches[$((j - 1))]}"; done |
		grep -v '^drivers/staging/lttng/' | sort -u >"$logd/touched"
	while read -r f; do
		case "$f" in
		*.c) [ -f "$LTTNG_TREE/$f" ] && echo "${f%.c}.o" ;;
		*/include/*.h|include/*.h)
			h=${f#*include/}
			inc=${f%%include/*}
			[ -n "$inc" ] || inc=${h%%/*}/
			[ "$inc" = linux/ ] && inc=kernel/
			grep -rlF --include='*.c' "#include <$h>" "$LTTNG_TREE/${inc}" 2>/dev/null |
				sed "s|^$LTTNG_TREE/||; s|\.c\$|.o|" | head -n 4 ;;
		esac
	done <"$logd/touched" | sort -u | while read -r f; do configured "$f" && echo "$f"; done
	[ -d "$LTTNG_TREE/drivers/staging/lttng" ] && echo drivers/staging/lttng/
	return 0
}

# Driver warnings: sparse on every file (C=2) with W=1, at the top.  The
# full series is configured from the fragments; each prefix below keeps
# that configuration, less what its Kconfig no longer has.
keep=
for ((i = n; i >= 1; i--)); do
	p=${patches[$((i - 1))]}
	if run "$logd/prepare-$i.log" "$REPO/scripts/prepare-tree" --upto "$i" &&
	   run "$logd/config-$i.log" "$REPO/scripts/build-kernel" --lenient $keep --compile scripts_basic &&
	   mapfile -t tg < <(targets "$i") && [ ${#tg[@]} -gt 0 ] &&
	   run "$logd/build-$i.log" "$REPO/scripts/build-kernel" --lenient --keep-config \
		$(printf -- '--compile %s ' "${tg[@]}"); then
		echo "# prefix $i: compiled ${tg[*]}"
		ktap_ok "builds: prefix $i, up to $p"
	else
		ktap_fail "builds: prefix $i, up to $p"
	fi
	keep=--keep-config
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
