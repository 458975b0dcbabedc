#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Differential suite: GNU rm (/bin/rm) against adaptrm, both invoked as `rm`
# (through a symlink found first in PATH, so argv[0] is "rm" for both), on
# identical fresh trees. Compares stdout, stderr, exit status and the
# resulting tree (type, mode, path). Cases live in tests/gnu/cases.sh.
#
#   ADAPTRM=./adaptrm GNU_RM=/bin/rm bash tests/gnu/run.sh [NAME-FILTER]
#   (GNU_DIFF_SHOW=1 also prints what GNU rm said in each case)
#
# Ends with "gnu-diff: N passed, N failed"; documented differences (README,
# "GNU compatibility") are listed and counted apart; exit 1 on any other.
set -u
ADAPTRM=$(readlink -f "${ADAPTRM:-./adaptrm}")
GNU_RM=${GNU_RM:-/bin/rm}
FILTER=${1:-}
HERE=$(cd "$(dirname "$0")" && pwd)

[ -x "$ADAPTRM" ] || { echo "gnu-diff: no adaptrm binary at $ADAPTRM" >&2; exit 1; }
ROOT=$(mktemp -d /tmp/gnu-diff.XXXXXX)
chmod 755 "$ROOT"
# Cases mount tmpfs under the work directory; take them all down, deepest first.
unmount_under() {
	local m
	for m in $(findmnt -rn -o TARGET | grep "^$1/" | sort -r); do umount -l "$m"; done
}
cleanup() {
	unmount_under "$ROOT"
	chmod -R u+rwx "$ROOT" 2>/dev/null
	chattr -R -i "$ROOT" 2>/dev/null
	/bin/rm -rf "$ROOT"
}
trap cleanup EXIT
mkdir -p "$ROOT/bin-gnu" "$ROOT/bin-ada"
ln -s "$GNU_RM" "$ROOT/bin-gnu/rm"
# A copy, so that the cases run as nobody reach it from a checkout under a
# directory only root can enter.
install -m 0755 "$ADAPTRM" "$ROOT/adaptrm"
ADAPTRM=$ROOT/adaptrm
ln -s "$ADAPTRM" "$ROOT/bin-ada/rm"
chmod 755 "$ROOT"/bin-*

NB=nobody:nogroup
passed=0 failed=0 documented=0
FAILS=""

# Run one side. $1 = bin dir; the case's variables are in scope.
run_side() {
	local bindir=$1 out=$2
	local w="$ROOT/w"
	unmount_under "$w"
	chmod -R u+rwx "$w" 2>/dev/null; chattr -R -i "$w" 2>/dev/null
	/bin/rm -rf "$w"; mkdir "$w"; chmod 777 "$w"
	( cd "$w" && eval "$SETUP" ) >/dev/null 2>&1
	# inv=abs: both sides run as the same absolute path, a symlink named rm
	# pointed at this side's directory, so messages naming argv[0] compare.
	local rm=rm
	[ "$INV" = abs ] && { ln -sfn "$bindir" "$ROOT/inv"; rm="$ROOT/inv/rm"; }
	local runner=()
	[ "$AS" = nobody ] && runner=(setpriv --reuid=nobody --regid=nogroup --clear-groups)
	(
		cd "$w/$CWD" 2>/dev/null || cd "$w" || exit 1
		export PATH="$bindir:/usr/sbin:/usr/bin:/sbin:/bin" LC_ALL=${LANG_CASE:-C}
		unset POSIXLY_CORRECT
		[ -n "$POSIX" ] && export POSIXLY_CORRECT=1
		[ "$bindir" = "$ROOT/bin-ada" ] && ARGS="$ADAEXTRA $ARGS"
		if [ "$TTY" = 1 ]; then
			# A real pty (script); echo off, and answers sent after a pause so
			# the terminal echo cannot interleave with the prompt.
			{ sleep 0.5; printf '%b' "$IN"; sleep 0.5; } |
				"${runner[@]}" script -qec "stty -echo; timeout --foreground -k 5 60 $rm $ARGS" /dev/null
		else
			# a case that hangs is killed and differs (rc=124), named
			printf '%b' "$IN" | eval "${runner[*]} timeout --foreground -k 5 60 $rm $ARGS"
		fi
		echo "rc=$?" >"$out.rc"
	) >"$out.out" 2>"$out.err"
	( cd "$w" && find . -mindepth 1 -printf '%y %m %p\n' 2>/dev/null | sort ) >"$out.tree"
	[ "$TTY" = 1 ] && tr -d '\r' <"$out.out" >"$out.tmp" && mv "$out.tmp" "$out.out"
	if [ "$MODE" = sorted ]; then
		sort "$out.out" -o "$out.out"; sort "$out.err" -o "$out.err"
	fi
	cat "$out.rc" >>"$out.tree"
}

# c NAME SETUP ARGS [key=value ...]: keys as=root|nobody, in=ANSWERS (printf %b),
# tty=1 (stdin a pty via script), posix=1, mode=exact|sorted, doc=REASON
# (a known, documented difference), cwd=DIR, lang=LOCALE, ada=ARGS (extra
# options for adaptrm only, e.g. --threads=1 where error order matters),
# inv=abs (invoked by an absolute path instead of as `rm` found in PATH).
c() {
	NAME=$1 SETUP=$2 ARGS=$3; shift 3
	AS=root ADAEXTRA="" IN="" TTY=0 POSIX="" MODE=exact DOC="" CWD="" LANG_CASE=C INV=""
	local kv
	for kv in "$@"; do
		case $kv in
		as=*) AS=${kv#as=} ;; in=*) IN=${kv#in=} ;; tty=*) TTY=${kv#tty=} ;;
		posix=*) POSIX=1 ;; mode=*) MODE=${kv#mode=} ;; doc=*) DOC=${kv#doc=} ;;
		cwd=*) CWD=${kv#cwd=} ;; ada=*) ADAEXTRA=${kv#ada=} ;; lang=*) LANG_CASE=${kv#lang=} ;;
		inv=*) INV=${kv#inv=} ;;
		esac
	done
	[ -n "$FILTER" ] && [[ $NAME != *$FILTER* ]] && return
	run_side "$ROOT/bin-gnu" "$ROOT/gnu"
	run_side "$ROOT/bin-ada" "$ROOT/ada"
	local what="" f
	for f in out err tree; do
		cmp -s "$ROOT/gnu.$f" "$ROOT/ada.$f" || what+=" $f"
	done
	if [ -n "${GNU_DIFF_SHOW:-}" ]; then	# show what GNU did, to review the cases
		echo "== $NAME [$AS] rm $ARGS"; cat "$ROOT/gnu.out" "$ROOT/gnu.err" | sed 's/^/    /'; tail -1 "$ROOT/gnu.tree"
	fi
	if [ -z "$what" ]; then
		if [ -n "$DOC" ]; then
			echo "gnu-diff: NOTE $NAME: documented difference no longer differs ($DOC)"
		fi
		passed=$((passed + 1))
		return
	fi
	local tag=FAIL
	if [ -n "$DOC" ]; then tag=DOCUMENTED; documented=$((documented + 1)); else failed=$((failed + 1)); FAILS+=" $NAME"; fi
	echo "gnu-diff: $tag $NAME [$AS] rm $ARGS:$what${DOC:+ ($DOC)}"
	for f in $what; do
		diff -u --label "gnu.$f" --label "adaptrm.$f" "$ROOT/gnu.$f" "$ROOT/ada.$f" | sed 's/^/    /' | head -40
	done
}

source "$HERE/cases.sh"

echo "gnu-diff: $((passed + failed + documented)) cases: $passed match, $documented documented differences, $failed undocumented differences${FAILS:+:$FAILS}"
echo "gnu-diff: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
