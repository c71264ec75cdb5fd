# SPDX-License-Identifier: GPL-2.0
# Shared helpers for the scripts/ pipeline: paths, logging, failure reasons.
# Sourced, never run.  Every path outside the repository derives from
# LTTNG_STAGING_CACHE so that one variable moves the whole cache.

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
CACHE=${LTTNG_STAGING_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/lttng-staging}
SRC_PKG=linux-source-6.1
SRC_TARBALL=/usr/src/$SRC_PKG.tar.xz
PRISTINE=${LTTNG_PRISTINE:-$CACHE/pristine/$SRC_PKG}	# unpacked, never modified
TREE=${LTTNG_TREE:-$CACHE/main/linux}	# pristine + the series (quilt)
VARIANT=${LTTNG_VARIANT:-modules}	# modules | builtin | debug | ref | distro

# Every step line carries the time since the outermost script started.
LTTNG_T0=${LTTNG_T0:-$(date +%s)}
export LTTNG_T0
log() {
	local t=$(($(date +%s) - LTTNG_T0))
	printf '==> [%d:%02d] %s\n' $((t / 60)) $((t % 60)) "$*" >&2
}
info() { printf '    %s\n' "$*" >&2; }
die()  { printf 'error: %s\n' "$*" >&2; exit 1; }
need_cmd() {
	command -v "$1" >/dev/null 2>&1 ||
		die "'$1' not found: run 'make deps' as root (or apt-get install $2)"
}
is_root() { [ "$(id -u)" = 0 ]; }

# build_dir VARIANT: the O= directory of one kernel variant.  It lives next
# to the tree so that ccache (CCACHE_BASEDIR) sees the same relative paths
# from every tree of the cache.
build_dir() { echo "$(dirname "$TREE")/build-${1:-$VARIANT}"; }

# image_dir VARIANT: where build-image puts the guest initramfs of a build.
image_dir() { echo "$(dirname "$TREE")/image-${1:-$VARIANT}"; }

check_variant() {
	case "$1" in modules|builtin|debug|ref|distro) ;; *) die "unknown variant '$1' (modules, builtin, debug, ref or distro)";; esac
}

# The reference tracer of 'scripts/bench --insns' (variant ref): Debian's
# lttng-modules (package lttng-modules-dkms, whose .deb holds the source
# under /usr/src/lttng-modules-VERSION), built out of tree against the ref
# kernel (the modules variant with CONFIG_LTTNG=n).  Test-only, never part
# of the series.
REF_PKG=lttng-modules-dkms

# ref_modules_dir: the copy of lttng-modules that the ref build compiles
# in (kbuild writes an external module's objects next to its sources).
ref_modules_dir() { echo "$(dirname "$TREE")/lttng-modules-ref"; }

# ref_source: the path of lttng-modules' pristine source, unpacked into
# $CACHE/ref/ from the .deb that 'apt-get download' fetches (once, from
# this machine's apt sources; the candidate version of $REF_PKG).
ref_source() {
	local dir=$CACHE/ref deb ver src
	ver=$(apt-cache policy "$REF_PKG" 2>/dev/null | sed -n 's/^ *Candidate: *//p')
	if { [ -z "$ver" ] || [ "$ver" = "(none)" ]; } && is_root; then
		log "ref: apt knows no $REF_PKG yet: apt-get update"
		apt-get -q update >/dev/null 2>&1 || true
		ver=$(apt-cache policy "$REF_PKG" 2>/dev/null | sed -n 's/^ *Candidate: *//p')
	fi
	[ -n "$ver" ] && [ "$ver" != "(none)" ] ||
		die "apt knows no $REF_PKG: run apt-get update (bookworm main has it), or check /etc/apt/sources.list*"
	src=$dir/$ver/usr/src
	if [ ! -f "$dir/$ver/.unpacked" ]; then
		need_cmd dpkg-deb dpkg
		log "ref: downloading $REF_PKG $ver with apt-get download"
		rm -rf "${dir:?}/$ver"
		mkdir -p "$dir/$ver/deb"
		# Downloaded as the caller: apt's sandbox user cannot write into
		# a cache under a private home.
		(cd "$dir/$ver/deb" && apt-get -q -o APT::Sandbox::User="$(id -un)" download "$REF_PKG=$ver") \
			>"$dir/$ver/download.log" 2>&1 || {
			cat "$dir/$ver/download.log" >&2
			die "apt-get download $REF_PKG=$ver failed: check the network and the apt sources"
		}
		deb=$(ls "$dir/$ver/deb/"*.deb)
		dpkg-deb -x "$deb" "$dir/$ver" || die "dpkg-deb -x $deb failed (disk full?)"
		touch "$dir/$ver/.unpacked"
	fi
	src=$(ls -d "$src"/lttng-modules-* 2>/dev/null | head -n 1)
	[ -n "$src" ] && [ -f "$src/src/Kbuild" ] ||
		die "no lttng-modules source under $dir/$ver/usr/src: remove $dir/$ver and run again"
	echo "$src"
}

# debian_mirror: the Debian archive this machine's apt uses for its own
# release, read from the apt sources (one-line and deb822 formats).
debian_mirror() {
	local codename
	codename=$(. /etc/os-release && echo "${VERSION_CODENAME:-bookworm}")
	{ cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list \
	    /etc/apt/sources.list.d/*.sources 2>/dev/null || true; } |
	awk -v want="$codename" '
		function flush() {
			if (types ~ /(^| )deb( |$)/ && (" " suites " ") ~ (" " want " ") && uris != "" && !found) {
				split(uris, u, " "); print u[1]; found = 1
			}
			types = ""; uris = ""; suites = ""
		}
		/^[[:space:]]*#/ { next }
		/^deb[[:space:]]/ {
			sub(/\[[^]]*\][[:space:]]*/, "")
			if ($3 == want && !found) { print $2; found = 1 }
			next
		}
		/^Types:/  { types = $0; sub(/^Types:[[:space:]]*/, "", types) }
		/^URIs:/   { uris = $0; sub(/^URIs:[[:space:]]*/, "", uris) }
		/^Suites:/ { suites = $0; sub(/^Suites:[[:space:]]*/, "", suites) }
		/^[[:space:]]*$/ { flush() }
		END { flush() }'
}

# hash_inputs FILE...: a short content hash of files and directories.
hash_inputs() {
	local f
	for f in "$@"; do
		if [ -d "$f" ]; then
			find "$f" -type f -print0 | LC_ALL=C sort -z | xargs -0 -r sha256sum
		elif [ -e "$f" ]; then
			sha256sum "$f"
		else
			echo "missing $f"
		fi
	done | sed "s|$REPO/||" | sha256sum | cut -c1-16
}

# kernel_release: the release string of the configured build of $VARIANT.
kernel_release() {
	cat "$(build_dir "$1")/include/config/kernel.release" 2>/dev/null ||
		die "no kernel built for variant '$1': run scripts/build-kernel --variant $1"
}

# qemu_plugin NAME: the path of the QEMU TCG plugin built from
# scripts/qemu-plugins/NAME.c, (re)compiled into $CACHE/plugins/ when missing
# or older than its source.
qemu_plugin() {
	local src=$REPO/scripts/qemu-plugins/$1.c so=$CACHE/plugins/$1.so
	[ -f "$src" ] || die "no QEMU plugin source $src"
	if [ ! -f "$so" ] || [ "$src" -nt "$so" ]; then
		need_cmd gcc gcc
		mkdir -p "$CACHE/plugins"
		gcc -O2 -shared -fPIC -Wall -Wextra -o "$so.tmp" "$src" ||
			die "building the QEMU plugin $src failed"
		mv "$so.tmp" "$so"
	fi
	echo "$so"
}
