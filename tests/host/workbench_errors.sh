#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# description: the scripts fail loudly on bad input: a foreign tree in the
#              cache, a patch that does not apply, a missing QEMU, no root
#              for the guest image; each a one-line reason and exit != 0
set -uo pipefail
. "$(dirname "$0")/../../scripts/lib.sh"
. "$REPO/tests/guest/ktap.sh"
ktap_plan 5

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# expect_fail NAME PATTERN CMD...: CMD exits non-zero and says PATTERN.
expect_fail() {
	local name=$1 pattern=$2 out st; shift 2
	out=$("$@" 2>&1 </dev/null); st=$?
	if [ $st -ne 0 ] && grep -qE "$pattern" <<<"$out"; then
		ktap_ok "$name"
	else
		printf '%s\n' "$out" | tail -n 5 | sed 's/^/# /'
		echo "# exit status $st, expected non-zero and /$pattern/"
		ktap_fail "$name"
	fi
}

# A folder prepare-tree did not make is never touched.
mkdir -p "$tmp/foreign/linux"
touch "$tmp/foreign/linux/precious"
expect_fail "prepare-tree refuses a foreign tree" "was not made by prepare-tree" \
	env LTTNG_TREE="$tmp/foreign/linux" "$REPO/scripts/prepare-tree"
[ -e "$tmp/foreign/linux/precious" ] || echo "# the foreign tree was modified!"

# A patch that does not apply is named.  A throwaway repo copy with a bad
# patch and a tiny pristine tree keeps this fast.
mkdir -p "$tmp/repo/patches" "$tmp/pristine" "$tmp/cache"
cp -r "$REPO/scripts" "$tmp/repo/"
printf 'hello\n' >"$tmp/pristine/README"
cat "$PRISTINE/.lttng-staging-pristine" >"$tmp/pristine/.lttng-staging-pristine" 2>/dev/null ||
	dpkg-query -W -f='${Version}' "$SRC_PKG" >"$tmp/pristine/.lttng-staging-pristine"
printf -- '--- a/README\n+++ b/README\n@@ -1 +1 @@\n-goodbye\n+hello again\n' >"$tmp/repo/patches/broken.patch"
echo broken.patch >"$tmp/repo/series"
expect_fail "prepare-tree names the patch that does not apply" "patch broken.patch does not apply" \
	env LTTNG_STAGING_CACHE="$tmp/cache" LTTNG_PRISTINE="$tmp/pristine" LTTNG_TREE="$tmp/cache/t/linux" \
	"$tmp/repo/scripts/prepare-tree"

# The same repo copy, with a series naming a missing patch.
echo missing.patch >"$tmp/repo/series"
expect_fail "prepare-tree names a missing patch" "series names patches/missing.patch" \
	env LTTNG_STAGING_CACHE="$tmp/cache" LTTNG_PRISTINE="$tmp/pristine" LTTNG_TREE="$tmp/cache/t/linux" \
	"$tmp/repo/scripts/prepare-tree"

# No QEMU on the PATH.
mkdir -p "$tmp/bin"
for c in bash env dirname cat id mktemp sed grep awk; do ln -sf "$(command -v $c)" "$tmp/bin/$c"; done
expect_fail "qemu-run says QEMU is missing" "qemu-system-x86_64' not found" \
	env PATH="$tmp/bin" "$REPO/scripts/qemu-run" -- true

# Building the guest base system needs root (an empty cache forces it).
if command -v setpriv >/dev/null && is_root; then
	mkdir -p "$tmp/nobody-repo" && cp -r "$REPO/scripts" "$REPO/qemu-images" "$tmp/nobody-repo/"
	chmod -R a+rX "$tmp"
	expect_fail "build-image without root says it needs root" "needs root" \
		setpriv --reuid=65534 --regid=65534 --clear-groups \
		env HOME="$tmp" LTTNG_STAGING_CACHE="$tmp/nobody-cache" "$tmp/nobody-repo/scripts/build-image"
else
	ktap_skip "build-image without root says it needs root" "needs root and setpriv"
fi
ktap_exit
