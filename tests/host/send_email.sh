#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# description: the series survives the mail round trip: scripts/send-series
#              --send delivers it to a local SMTP server (aiosmtpd on
#              127.0.0.1), git am of the received mails on the pristine tree
#              gives the quilt tree and builds, and each mail is well formed
#              (sign-offs, subjects, whitespace, diffstats, authorship).
#
# Skips when not root or when python3-aiosmtpd or git send-email is missing.
# The SMTP server is killed on exit; it also stops by itself after two hours.
# Work trees: $CACHE/send-test/{linux,build} (the git am tree is a worktree
# of send-series' cached pristine repository, reset on each run).
set -euo pipefail
. "$(dirname "$0")/../../scripts/lib.sh"
. "$REPO/tests/guest/ktap.sh"

SEED=sched-export-task_prio-to-GPL-modules.patch
EXTRA_TO=lttng-test-list@example.org
CASES=(smtp_server send_series mail_count threading recipients git_am
       tree_matches_quilt no_other_paths builds signed_off_by subject_style
       no_trailing_whitespace patch_diffstat cover_diffstat authorship)

skip_all() {
	local c
	ktap_plan ${#CASES[@]}
	for c in "${CASES[@]}"; do ktap_skip "$c" "$1"; done
	exit 0
}

# aiosmtpd_python: a python3 that has aiosmtpd (Debian's, even when another
# python3 comes first in PATH).
aiosmtpd_python() {
	local py
	for py in /usr/bin/python3 python3; do
		"$py" -c 'import aiosmtpd' >/dev/null 2>&1 && { command -v "$py"; return 0; }
	done
	return 1
}

is_root || skip_all "needs root"
PY=$(aiosmtpd_python) || skip_all "python3-aiosmtpd is not installed"
[ -x "$(git --exec-path)/git-send-email" ] || skip_all "git send-email (git-email) is not installed"
need_cmd timeout coreutils

tmp=$(mktemp -d)
server_pid=
cleanup() {
	if [ -n "$server_pid" ]; then
		kill "$server_pid" 2>/dev/null || true
		wait "$server_pid" 2>/dev/null || true
	fi
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP

# The sender as the user's git config says, in a private global config so
# that no sendemail.* setting of the user's points the test elsewhere.
# A machine without a git identity (a fresh CI box) sends as a test sender.
name=$(git -C "$REPO" config user.name || echo "LTTng Staging Test")
email=$(git -C "$REPO" config user.email || echo "lttng-staging-test@example.org")
export GIT_CONFIG_GLOBAL=$tmp/gitconfig GIT_CONFIG_NOSYSTEM=1
git config --file "$GIT_CONFIG_GLOBAL" user.name "$name"
git config --file "$GIT_CONFIG_GLOBAL" user.email "$email"
sender="$name <$email>"

mapfile -t patches < <(sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$REPO/series" | awk '{print $1}')
npatches=${#patches[@]}

# --- helpers -----------------------------------------------------------

declare -A passed=()
# run_case NAME DEPENDENCY...: one KTAP line for case_NAME; skipped when a
# dependency did not pass.
run_case() {
	local name=$1 dep
	shift
	for dep in "$@"; do
		if [ -z "${passed[$dep]:-}" ]; then
			ktap_skip "$name" "$dep did not pass"
			ktap_failed=1
			return 0
		fi
	done
	if "case_$name"; then
		passed[$name]=1
		ktap_ok "$name"
	else
		ktap_fail "$name"
	fi
}
diag() { sed -e 's/^/# /'; }
fail() { echo "# $*"; return 1; }

# header FILE NAME: the unfolded value of header NAME of a mail.
header() {
	awk -v want="$(echo "$2" | tr 'A-Z' 'a-z')" '
		/^$/ { exit }
		/^[ \t]/ { if (on) { sub(/^[ \t]+/, " "); val = val $0 }; next }
		{ if (on) exit; h = tolower($0); sub(/:.*/, "", h)
		  if (h == want) { on = 1; val = $0; sub(/^[^:]*:[ \t]*/, "", val) } }
		END { if (on) print val }' "$1"
}

# stat_block FILE: "N<TAB>name" for each diffstat line of a mail body, then
# "total<TAB>files<TAB>insertions<TAB>deletions".
stat_block() {
	awk -F'|' '
		/^ .* \| +([0-9]+|Bin)/ { name = $1; sub(/^ +/, "", name); sub(/ +$/, "", name)
			n = $2; sub(/^ +/, "", n); sub(/ .*/, "", n); print n "\t" name; seen = 1; next }
		seen && /^ [0-9]+ files? changed/ {
			f = $0; sub(/^ /, "", f); sub(/ .*/, "", f)
			i = 0; d = 0
			if (match($0, /[0-9]+ insertions?/)) i = substr($0, RSTART, RLENGTH) + 0
			if (match($0, /[0-9]+ deletions?/)) d = substr($0, RSTART, RLENGTH) + 0
			print "total\t" f "\t" i "\t" d; exit }' "$1"
}

# numstat_block: the same from "added<TAB>deleted<TAB>path" lines on stdin.
numstat_block() {
	awk -F'\t' '{ print $1 + $2 "\t" $3; f++; i += $1; d += $2 }
		END { print "total\t" f "\t" i "\t" d }'
}

# same_stat GOT WANT: diffstat lines agree (git may shorten a long name to
# ".../tail").
same_stat() {
	awk -F'\t' 'NR == FNR { got[FNR] = $0; n = FNR; next }
		{ m = FNR; split(got[FNR], g, "\t")
		  if (g[1] != $1) { print "# line " FNR ": \"" got[FNR] "\", want \"" $0 "\""; bad = 1; next }
		  if ($1 == "total") { if (got[FNR] != $0) { print "# totals: \"" got[FNR] "\", want \"" $0 "\""; bad = 1 }; next }
		  name = g[2]; tail = name; sub(/^\.\.\./, "", tail)
		  if (name != $2 && !(name ~ /^\.\.\./ && substr($2, length($2) - length(tail) + 1) == tail)) {
			print "# line " FNR ": \"" got[FNR] "\", want \"" $0 "\""; bad = 1 } }
		END { if (n != m) { print "# " n " diffstat lines, want " m; bad = 1 }; exit bad }' "$1" "$2"
}

# patch_paths P: the paths quilt patch P touches.
patch_paths() { git apply --numstat "$REPO/patches/$1" | cut -f3; }

# --- cases -------------------------------------------------------------

case_smtp_server() {
	mkdir -p "$tmp/mail"
	cat >"$tmp/smtpd.py" <<'PY'
# One file per message received (LF line ends), its recipients beside it.
import asyncio, os, sys
from aiosmtpd.smtp import SMTP

class Store:
    def __init__(self, where):
        self.where, self.n = where, 0

    async def handle_DATA(self, server, session, envelope):
        self.n += 1
        base = os.path.join(self.where, "%04d" % self.n)
        with open(base + ".rcpt", "w") as f:
            f.write("".join(r + "\n" for r in envelope.rcpt_tos))
        with open(base + ".tmp", "wb") as f:
            f.write(envelope.original_content.replace(b"\r\n", b"\n"))
        os.rename(base + ".tmp", base + ".eml")
        return "250 OK stored"

async def main(where, portfile):
    handler = Store(where)
    loop = asyncio.get_running_loop()
    server = await loop.create_server(lambda: SMTP(handler, hostname="localhost"),
                                      host="127.0.0.1", port=0)
    with open(portfile + ".tmp", "w") as f:
        f.write("%d\n" % server.sockets[0].getsockname()[1])
    os.rename(portfile + ".tmp", portfile)
    await asyncio.sleep(7200)

asyncio.run(main(sys.argv[1], sys.argv[2]))
PY
	"$PY" "$tmp/smtpd.py" "$tmp/mail" "$tmp/port" >"$tmp/smtpd.log" 2>&1 &
	server_pid=$!
	local i
	for i in $(seq 100); do
		[ -s "$tmp/port" ] && break
		kill -0 "$server_pid" 2>/dev/null || break
		sleep 0.1
	done
	[ -s "$tmp/port" ] || { diag <"$tmp/smtpd.log"; fail "the SMTP server did not start"; }
	port=$(cat "$tmp/port")
	echo "# SMTP server on 127.0.0.1:$port (pid $server_pid)"
}

case_send_series() {
	local t0=$SECONDS
	if ! timeout 3600 "$REPO/scripts/send-series" --send -o "$tmp/out" --to "$EXTRA_TO" \
		--smtp-server 127.0.0.1 --smtp-port "$port" --smtp-encryption none \
		-- --no-smtp-auth >"$tmp/send.log" 2>&1; then
		tail -n 15 "$tmp/send.log" | diag
		fail "scripts/send-series --send failed"
		return 1
	fi
	echo "# send-series took $((SECONDS - t0)) s"
}

# Decoded mails: mail[i] is [PATCH vN i/n], i = 0 for the cover letter.
declare -a mail=() subj=() author=()
case_mail_count() {
	local f n i
	mapfile -t files < <(find "$tmp/mail" -name '*.eml' | LC_ALL=C sort)
	n=${#files[@]}
	[ "$n" -eq $((npatches + 1)) ] || fail "received $n mails, want $((npatches + 1)) ($npatches patches + cover letter)" || return 1
	for f in "${files[@]}"; do
		mkdir -p "$f.d"
		git mailinfo -k "$f.d/msg" "$f.d/patch" <"$f" >"$f.d/info" || fail "$f: git mailinfo failed" || return 1
		s=$(sed -n 's/^Subject: //p' "$f.d/info")
		[[ "$s" =~ ^\[PATCH\ v[0-9]+\ ([0-9]+)/([0-9]+)\]\ (.*)$ ]] ||
			fail "subject '$s' is not '[PATCH vN i/n] ...'" || return 1
		i=$((10#${BASH_REMATCH[1]}))
		[ "${BASH_REMATCH[2]}" -eq "$npatches" ] || fail "subject '$s': n is not $npatches" || return 1
		[ -z "${mail[$i]:-}" ] || fail "two mails numbered $i" || return 1
		mail[$i]=$f subj[$i]=${BASH_REMATCH[3]}
		author[$i]="$(sed -n 's/^Author: //p' "$f.d/info") <$(sed -n 's/^Email: //p' "$f.d/info")>"
	done
	[ -n "${mail[0]:-}" ] || fail "no cover letter (0/$npatches)"
}

case_threading() {
	local id i bad=0
	id=$(header "${mail[0]}" Message-Id)
	[ -n "$id" ] || fail "the cover letter has no Message-Id" || return 1
	for ((i = 1; i <= npatches; i++)); do
		[ "$(header "${mail[$i]}" In-Reply-To)" = "$id" ] || { echo "# mail $i: In-Reply-To is not $id"; bad=1; }
		case " $(header "${mail[$i]}" References) " in *" $id "*) ;;
			*) echo "# mail $i: References lacks $id"; bad=1 ;; esac
	done
	return $bad
}

case_recipients() {
	local want f i bad=0
	mapfile -t files < <(for p in "${patches[@]}"; do patch_paths "$p"; done | LC_ALL=C sort -u |
		while read -r f; do while [ ! -e "$TREE/$f" ] && [ "$f" != . ]; do f=$(dirname "$f"); done; echo "$f"; done)
	want=$( { echo "$EXTRA_TO"; (cd "$TREE" && perl scripts/get_maintainer.pl --no-rolestats --no-git \
		--no-git-fallback --no-keywords -f "${files[@]}") | sed -e 's/.*<//' -e 's/>.*//'; } | LC_ALL=C sort -u)
	echo "# $(echo "$want" | wc -l) addresses from get_maintainer.pl and --to"
	for ((i = 0; i <= npatches; i++)); do
		missing=$(LC_ALL=C comm -23 <(echo "$want") <(LC_ALL=C sort -u "${mail[$i]%.eml}.rcpt"))
		[ -z "$missing" ] || { echo "# mail $i did not go to: $(echo $missing)"; bad=1; }
	done
	return $bad
}

case_git_am() {
	local base wt i common
	base=$("$REPO/scripts/send-series" --base-repo) || fail "no cached pristine repository" || return 1
	wt=$CACHE/send-test/linux
	common=$(cd "$wt" 2>/dev/null && git rev-parse --path-format=absolute --git-common-dir 2>/dev/null || true)
	if [ -z "$common" ] || [ "$(realpath -m "$common")" != "$(realpath "$base")" ]; then
		echo "# checking out the pristine tree into $wt (once)"
		rm -rf "$wt"
		git --git-dir="$base" worktree prune
		mkdir -p "$(dirname "$wt")"
		git --git-dir="$base" worktree add -q -f --detach "$wt" pristine >"$tmp/wt.log" 2>&1 ||
			{ diag <"$tmp/wt.log"; fail "git worktree add failed"; return 1; }
	else
		git -C "$wt" am --abort >/dev/null 2>&1 || true
		git -C "$wt" reset -q --hard pristine && git -C "$wt" clean -q -fdx ||
			fail "cannot reset $wt" || return 1
	fi
	for ((i = 1; i <= npatches; i++)); do
		git -C "$wt" am -q "${mail[$i]}" >"$tmp/am.log" 2>&1 ||
			{ diag <"$tmp/am.log"; fail "git am of mail $i ($(basename "${mail[$i]}")) failed"; return 1; }
	done
	AM=$wt
	[ "$(git -C "$AM" rev-list --count pristine..HEAD)" -eq "$npatches" ] || fail "git am made the wrong number of commits"
}

case_tree_matches_quilt() {
	local f bad=0
	mapfile -t touched < <(for p in "${patches[@]}"; do patch_paths "$p"; done | LC_ALL=C sort -u)
	for f in "${touched[@]}"; do
		if [ -e "$TREE/$f" ]; then
			cmp -s "$TREE/$f" "$AM/$f" || { echo "# $f differs from the quilt tree"; bad=1; }
		elif [ -e "$AM/$f" ]; then
			echo "# $f exists after git am, not in the quilt tree"; bad=1
		fi
	done
	echo "# ${#touched[@]} files compared"
	return $bad
}

case_no_other_paths() {
	local got f want=()
	got=$(git -C "$AM" diff --name-only --no-renames pristine HEAD | LC_ALL=C sort -u)
	# A file one patch creates and a later one deletes is in no diff
	# of the whole series.
	for f in "${touched[@]}"; do
		[ -e "$AM/$f" ] || git -C "$AM" cat-file -e "pristine:$f" 2>/dev/null &&
			want+=("$f")
	done
	[ "$got" = "$(printf '%s\n' "${want[@]}")" ] && return 0
	diff <(printf '%s\n' "${want[@]}") <(echo "$got") | diag
	fail "git am changed other paths than the patches name"
}

case_builds() {
	local cfg out targets=() f t0=$SECONDS
	cfg=$(build_dir modules)/.config
	# On a cold machine the main build comes later; bisect.sh made this one.
	[ -f "$cfg" ] || cfg=$CACHE/check/build-modules/.config
	[ -f "$cfg" ] || { ktap_skip_reason="no $cfg: run scripts/build-kernel first"; return 2; }
	out=$CACHE/send-test/build
	rm -rf "$out"
	mkdir -p "$out"
	cp "$cfg" "$out/.config"
	(cd "$out" && "$AM/scripts/kconfig/merge_config.sh" -m -O "$out" .config "$REPO"/config-fragments/*.config) \
		>"$tmp/build.log" 2>&1 || { diag <"$tmp/build.log"; fail "merge_config.sh failed"; return 1; }
	[ -d "$AM/drivers/staging/lttng" ] && targets+=(drivers/staging/lttng/)
	for f in "${touched[@]}"; do
		case "$f" in
		drivers/staging/lttng/*|tools/*|scripts/*|samples/*|Documentation/*|usr/*) continue ;;
		arch/x86/*|arch/*/*) [[ "$f" == arch/x86/* ]] || continue ;;
		esac
		case "$f" in *.c|*.S) [ -e "$AM/$f" ] && targets+=("${f%.*}.o") ;; esac
	done
	[ ${#targets[@]} -gt 0 ] || { echo "# nothing to build"; return 0; }
	echo "# building ${targets[*]}"
	export CCACHE_DIR=$CACHE/ccache CCACHE_BASEDIR=$CACHE
	export CCACHE_SLOPPINESS=time_macros,include_file_mtime,include_file_ctime
	export KBUILD_BUILD_TIMESTAMP=2011-12-14 KBUILD_BUILD_USER=lttng KBUILD_BUILD_HOST=staging
	k() { timeout 3600 make -C "$AM" O="$out" ARCH=x86_64 CC="ccache gcc" HOSTCC=gcc \
		-j"${LTTNG_JOBS:-$(nproc)}" "$@" >>"$tmp/build.log" 2>&1; }
	if ! k olddefconfig || ! k "${targets[@]}"; then
		grep -E 'error|Error' "$tmp/build.log" | head -n 20 | diag
		fail "the git am tree does not build (log: tail of the diagnostics above)"
		return 1
	fi
	grep -E 'warning:' "$tmp/build.log" | head -n 20 | diag || true
	if [ -d "$AM/drivers/staging/lttng" ]; then
		echo "# drivers/staging/lttng: $(find "$out/drivers/staging/lttng" -name '*.o' 2>/dev/null | wc -l) objects built"
	fi
	echo "# build took $((SECONDS - t0)) s"
}

case_signed_off_by() {
	local i last bad=0
	for ((i = 1; i <= npatches; i++)); do
		last=$(sed -n 's/^Signed-off-by: //p' "${mail[$i]}.d/msg" | tail -n 1)
		[ -n "$last" ] || { echo "# mail $i has no Signed-off-by"; bad=1; continue; }
		[ "$last" = "$sender" ] || { echo "# mail $i: last Signed-off-by is '$last', want the sender '$sender'"; bad=1; }
	done
	return $bad
}

case_subject_style() {
	local i s want bad=0
	for ((i = 1; i <= npatches; i++)); do
		s=${subj[$i]}
		want=$(sed -n 's/^Subject: //p;/^$/q' "$REPO/patches/${patches[$i - 1]}")
		[ "$s" = "$want" ] || { echo "# mail $i: subject '$s', want '$want' (patches/${patches[$i - 1]})"; bad=1; }
		[ ${#s} -le 75 ] || { echo "# mail $i: subject is ${#s} columns: '$s'"; bad=1; }
		[[ "$s" =~ ^[A-Za-z0-9_./,-]+:\ [^\ ] ]] || { echo "# mail $i: '$s' has no 'subsystem: ' prefix"; bad=1; }
		if git apply --numstat "${mail[$i]}.d/patch" | cut -f3 | grep -q '^drivers/staging/'; then
			[[ "$s" == "staging: lttng: "* ]] || { echo "# mail $i: staging patch '$s' does not start with 'staging: lttng: '"; bad=1; }
		fi
	done
	return $bad
}

case_no_trailing_whitespace() {
	local i bad=0
	for ((i = 1; i <= npatches; i++)); do
		awk -v i="$i" '/^@@ / { hunk = 1 } /^diff / { hunk = 0 }
			hunk && /^\+/ && /[ \t]$/ { print "# mail " i ": trailing whitespace: " $0; bad = 1 }
			END { exit bad }' "${mail[$i]}.d/patch" || bad=1
	done
	return $bad
}

case_patch_diffstat() {
	local i bad=0
	for ((i = 1; i <= npatches; i++)); do
		stat_block "${mail[$i]}.d/patch" >"$tmp/got"
		git apply --numstat "${mail[$i]}.d/patch" | numstat_block >"$tmp/want"
		same_stat "$tmp/got" "$tmp/want" || { echo "# mail $i: the diffstat does not match the diff"; bad=1; }
	done
	return $bad
}

case_cover_diffstat() {
	local f a b
	stat_block "${mail[0]}.d/msg" >"$tmp/got"
	[ -s "$tmp/got" ] || stat_block "${mail[0]}" >"$tmp/got"
	# The net change of the whole series: pristine against the quilt tree.
	for f in "${touched[@]}"; do
		a=$PRISTINE/$f b=$TREE/$f
		[ -e "$a" ] || a=/dev/null
		[ -e "$b" ] || b=/dev/null
		git diff --no-index --numstat -- "$a" "$b" | awk -F'\t' -v f="$f" '{ print $1 "\t" $2 "\t" f }' || true
	done | numstat_block >"$tmp/want"
	same_stat "$tmp/got" "$tmp/want" || fail "the cover letter's diffstat is not the series' net diffstat"
}

case_authorship() {
	local i p want bad=0
	for ((i = 1; i <= npatches; i++)); do
		p=${patches[$i - 1]}
		if [ "$p" = "$SEED" ]; then
			want=$(sed -n 's/^From: //p;/^$/q' "$REPO/patches/$p")
			[[ "$want" == "Mathieu Desnoyers <"* ]] || { echo "# patches/$p: From is '$want', not Mathieu Desnoyers"; bad=1; }
		else
			want=$sender
		fi
		[ "${author[$i]}" = "$want" ] || { echo "# mail $i ($p): author '${author[$i]}', want '$want'"; bad=1; }
	done
	return $bad
}

# --- run ---------------------------------------------------------------

ktap_plan ${#CASES[@]}
echo "# $npatches patches; sender $sender"
run_case smtp_server
run_case send_series smtp_server
run_case mail_count send_series
run_case threading mail_count
run_case recipients mail_count
run_case git_am mail_count
run_case tree_matches_quilt git_am
run_case no_other_paths tree_matches_quilt
ktap_skip_reason=
if [ -z "${passed[no_other_paths]:-}" ]; then
	run_case builds no_other_paths
else
	rc=0
	case_builds || rc=$?
	case $rc in
	0) passed[builds]=1; ktap_ok builds ;;
	2) ktap_skip builds "$ktap_skip_reason" ;;
	*) ktap_fail builds ;;
	esac
fi
run_case signed_off_by mail_count
run_case subject_style mail_count
run_case no_trailing_whitespace mail_count
run_case patch_diffstat mail_count
run_case cover_diffstat mail_count tree_matches_quilt
run_case authorship mail_count
ktap_exit
