# SPDX-License-Identifier: GPL-3.0-or-later
# Cases of the differential suite (sourced by tests/gnu/run.sh), one per row
# of shared/notes/gnu-rm.md and more. c NAME SETUP ARGS [key=value...]; SETUP
# runs as root in the fresh work directory; ARGS is shell text.

T='mkdir -p a/b/c d e; echo x >a/f; : >a/b/c/g; : >e1; echo y >f1; : >f2; : >f3; ln -s /nonexistent dang; ln -s / rootlink; ln -s a sdl; mkfifo fifo'

N0="$T; chown -R nobody:nogroup ."

# 1.1 option parsing
c perm          "$T" 'e -rf a -v' mode=sorted
c posix         "$T" 'f1 -rfv' posix=1
c dashdash      "$T; : ./-x" '-- -x f1'
c noopt-f       "$T" '-f'
c noopt         "$T" ''
c bad-short     "$T" '-/ f1'
c bad-long      "$T" '--bogus f1'
c hint          "$T; : >./-foo" '-foo'
c hint-nl       "$T; : >\$'-foo\\nbar'" "\$'-foo\\nbar'"
c npr-abbrev    "$T" '-r --no-preserve f1'
c pr-abbrev     "$T" '-r --p a'
c pr-bogus      "$T" '-r --preserve-root=bogus a'
c int-bogus     "$T" '--interactive=bogus f1'
c int-never     "$T" '--interactive=never f1 nosuch'
c int-nev-f     "$T" '-f --interactive=never f1 nosuch'
c int-once-f    "$T" '--interactive=once -f f1 f2 f3 e1' in='n\n'
c f-int-once    "$T" '-f --interactive=once f1 f2 f3 e1' in='n\n'
c int-abbrev    "$T" '--interactive=al f1' in='y\n'
c int-noarg     "$T" '--interactive f1 f2' in='y\nn\n'
c last-wins-fi  "$T" '-f -i f1' in='n\n'
c last-wins-if  "$T" '-i -f f1 nosuch'
c help          "$T" '--help | head -1'
# shellcheck disable=SC2016 # the awk program is expanded by the case's shell
c version-1     "$T" '--version | head -1 | awk "{print (\\\$NF ~ /^[0-9.]+\\\$/)}"'
c help-full     "$T" '--help >/dev/full'
c ver-full      "$T" '--version >/dev/full'
c ver-closed    "$T" '--version >&-'
c I-4           "$T" '-I f1 f2 f3 e1' in='n\n'
c I-4-yes       "$T" '-I f1 f2 f3 e1' in='y\n'
c I-3           "$T" '-I f1 f2 f3'
c I-1r          "$T" '-I -r a' in='n\n'
c I-2r          "$T" '-I -r a d' in='no\n'
c I-2r-yes      "$T" '-I -rv a d' in='yes\n' mode=sorted
c I-eof         "$T" '-I -r a'
c I-nonexist    "$T" '-I -r x y' in='y\n'
c presume-tty   "$T" '---presume-input-tty f1'
# Abbreviations as GNU's getopt reads them among GNU rm's options only: a
# prefix of adaptrm's own options alone is unrecognized when invoked as rm
c ab-thread     "$T" '--thread=2 f1'
c ab-thread-sep "$T" '--thread 2 f1'
c ab-s          "$T" '--s f1'
c ab-st-val     "$T" '--st=1 f1'
c ab-int        "$T" '--int=never f1 nosuch'
c ab-inter      "$T" '--inter f1' in='n\n'
c ab-no-pres    "$T" '--no-pres f1'
c ab-rec        "$T" '--rec -v a' mode=sorted
c ab-recur      "$T" '--recur a d'
c ab-re         "$T" '--re d'
c ab-f          "$T" '--f nosuch'
c ab-pr         "$T" '--pr -r a'
c ab-presume    "$T" '---pres f1'
c ab-v          "$T" '--v f1'
c ab-ver        "$T" '--verb f1'
c ab-later      "$T" '-/ --thread=2 f1'
c ab-posix      "$T" 'f1 --thread=2' posix=1
c ab-dashdash   "$T" '-- --thread=2 f1'
c ab-hint       "$T; : >./--thread=2" '--thread=2'
c ab-abs        "$T" '--thread=2 f1' inv=abs

# argv[0] as given: invoked by an absolute path (a symlink named rm), every
# message, prompt, usage line and hint names that path, as GNU's do
c abs-missing   "$T" 'nosuch f1' inv=abs
c abs-prompt    "$T" '-i f1 e1 a' in='n\ny\n' inv=abs
c abs-I         "$T" '-I f1 f2 f3 e1' in='n\n' inv=abs
c abs-wp        "$N0; chmod a-w f1" '---presume-input-tty f1' as=nobody in='n\n' inv=abs
c abs-bad-long  "$T" '--bogus f1' inv=abs
c abs-bad-short "$T" '-/ f1' inv=abs
c abs-noopt     "$T" '' inv=abs
c abs-int-bogus "$T" '--interactive=bogus f1' inv=abs
c abs-ambiguous "$T" '--v f1' inv=abs
c abs-hint      "$T; : >./-foo" '-foo' inv=abs
c abs-help      "$T" '--help | head -1' inv=abs
c abs-dot       "$T" '-r . a/..' inv=abs
c abs-root      "$T" '-r / f1' inv=abs
c abs-npr       "$T" '--no-pres f1' inv=abs

# 1.2 streams and quoting
c quote-space   "$T; : >'a b'" "-v 'a b'"
c quote-apos    "$T; : >\"it's\"" "-v \"it's\""
c quote-nl      "$T; : >\$'nl\\nx'" "-v \$'nl\\nx'"
c quote-tab     "$T; : >\$'x\\ty'" "-v \$'x\\ty' \$'nosuch\\t'"
c quote-mix     "$T; : >\$'it\\'s \\x01'" "-v \$'it\\'s \\x01' \$'q\\'\\x7f'"
c quote-gnulib  "$T" "\$'\\x01\\'\\x02'" doc=gnulib-9.1-restart-quirk
c quote-utf8-C  "$T; : >\$'caf\\xc3\\xa9'" "-v \$'caf\\xc3\\xa9' \$'nosuch\\xff'"
c quote-utf8    "$T; : >\$'caf\\xc3\\xa9'" "-v \$'caf\\xc3\\xa9' \$'nosuch\\xff'" lang=C.UTF-8
c quote-specials "$T" "-v '*' '\$x' '~a' 'a=b' '#c' 'x#' '!' '{}' ''"
# Locale quotes: argmatch values and option names in gnulib's
# locale_quoting_style (‘ ’ under UTF-8), file names shell-quoted in every
# locale; under C and each UTF-8 locale the system has.
Q="$T; touch 'a b' \"it's\" \$'nl\\nx' \$'caf\\xff' \$'caf\\xc3\\xa9' \$'q\\xe2\\x80\\x99'"
for L in C $(locale -a 2>/dev/null | grep -iE '^(C|en_US)\.utf-?8$'); do
	c "loc-$L-int"        "$T" '--interactive=bogus f1' lang="$L"
	c "loc-$L-int-quote"  "$T" "--interactive=\"it's\" f1" lang="$L"
	c "loc-$L-int-odd"    "$T" "--interactive=\$'a\\\\b\\n\\xff\\xe2\\x80\\x99c\\xc2\\x85' f1" lang="$L"
	c "loc-$L-int-empty"  "$T" '--interactive= f1' lang="$L"
	c "loc-$L-ambiguous"  "$T" '--v f1' lang="$L"
	c "loc-$L-missing"    "$T" "nosuch 'no such' \"it's\" \$'n\\nl' \$'\\xff' \$'caf\\xc3\\xa9'" lang="$L"
	c "loc-$L-names"      "$Q" "-v 'a b' \"it's\" \$'nl\\nx' \$'caf\\xff' \$'caf\\xc3\\xa9' \$'q\\xe2\\x80\\x99'" lang="$L"
	c "loc-$L-prompt"     "$Q" "-i 'a b' \$'caf\\xc3\\xa9' \$'q\\xe2\\x80\\x99'" in='n\nn\nn\n' lang="$L"
	c "loc-$L-pr-bogus"   "$T" "-r --preserve-root=\$'caf\\xc3\\xa9' a" lang="$L"
done
c v-closed      "$T" '-v f1 >&-'
c v-full        "$T" '-v f1 >/dev/full'
c nov-closed    "$T" 'f1 >&-'
c v-order       "$T" '-v -r a/b e1 d'
c v-tree        "$T" '-rv a' mode=sorted
c v-tree-t1     "$T" '-rv a' ada=--threads=1 mode=sorted

# 1.3 rows
c missing       "$T" 'nosuch f1'
c missing-f     "$T" '-f nosuch f1'
c enotdir       "$T" 'f1/x'
c enotdir-f     "$T" '-f f1/x'
c empty-arg     "$T" "f1 '' f2"
c dir-nor       "$T" 'a'
c dir-nor-i     "$T" '-i a d' in='y\ny\n'
c d-nonempty    "$T" '-d a'
c d-empty       "$T" '-dv d'
c d-unreadable  "$T; chmod 0 d" '-d d' as=nobody doc=9.2+:-d-removes-inaccessible-empty-dir
c di-empty      "$T" '-di d' in='y\n'
c dot           "$T" '-r .'
c dotdot        "$T" '-r ..' cwd=a
c dot-forms     "$T" "-r a/. a/./ a/.//// a/.. a/../ d/.."
c dot-nor       "$T" '. ..'
c d-dot         "$T" '-d .' doc=9.2-9.8:-d-refuses-dot
c root          "$T" '-r / f1'
c root-forms    "$T" '-r // /// rootlink/ f2'
c root-f        "$T" '-rf / f1'
c symlink-ops   "$T" '-v dang rootlink sdl'
c symlink-tty   "$T" '---presume-input-tty dang' as=nobody
c sdl-slash     "$T" '-r sdl/' doc=adaptrm-refuses-link-slash
c a-slashes     "$T" '-rv a///' mode=sorted
c file-slash    "$T" '-r f1/ dang/'
c same-twice    "$T" '-rf a a'
c rv-a-b        "mkdir -p a/a; : >b" '-v -r a b'

# prompts, root (no write-protected prompts ever)
c wp-root-tty   "$T; chmod a-w f1 e1" '---presume-input-tty f1 e1'
c i-types       "$T" '-i f1 e1 dang fifo' in='y\nn\ny\ny\n'
c i-blank       "$T" '-i f1 e1' in=' y\nY\n'
c i-eof         "$T" '-i f1'
c ri-all        "$T" '-ri a d' in='y\ny\ny\ny\ny\ny\ny\ny\ny\ny\ny\ny\n'
c ri-decline-f  "mkdir -p r3/s; : >r3/s/f" '-ri r3' in='y\ny\nn\ny\ny\n'
c ri-decline-d  "mkdir -p r3/s t; : >r3/s/f" '-ri r3' in='y\nn\ny\n'
c ri-sock       "python3 -c 'import socket;socket.socket(socket.AF_UNIX).bind(\"sock\")'" '-i sock' in='y\n'
c ri-dev        "mknod cdev c 1 3; mknod bdev b 7 200" '-i cdev bdev' in='n\nn\n'

# prompts and errors as nobody
N="$T; mkdir wp; : >wp/f; chown -R $NB ."
c di-inacc      "$N; mkdir inacc3; chown $NB inacc3; chmod 0 inacc3" '-di inacc3' as=nobody in='y\n' doc=9.2+:attempt-removal-of-inaccessible-directory
c wp-tty        "$N; chmod a-w f1 e1" '---presume-input-tty f1 e1 f2' as=nobody in='n\ny\n'
c wp-notty      "$N; chmod a-w f1 e1" 'f1 e1' as=nobody
c wp-f          "$N; chmod a-w f1 e1" '---presume-input-tty -f f1 e1' as=nobody
c wp-never      "$N; chmod a-w f1 e1" '---presume-input-tty --interactive=never f1 e1' as=nobody
c wp-I          "$N; chmod a-w f1 e1" '---presume-input-tty -I f1 e1 f2 f3' as=nobody in='y\nn\ny\n'
c wp-dir-tty    "$N; chmod a-w a/b" '---presume-input-tty -r a' as=nobody in='y\ny\n'
c wp-dir-i      "$N; chmod a-w a/b a/b/c" '-ri a' as=nobody in='y\ny\ny\ny\ny\ny\ny\ny\n'
c wp-pty        "$N; chmod a-w f1" 'f1' as=nobody tty=1 in='y\n'
c wp-pty-no     "$N; chmod a-w f1" 'f1 e1' as=nobody tty=1 in='n\n'
c eacces-entry  "$N; mkdir -p b/a/p; : >b/a/p/x; chown -R $NB b; chmod a-w b/a/p" '-rf b' as=nobody
c parent-unw    "$N; mkdir -p wd/sub; : >wd/top wd/sub/x; chown -R $NB wd; chmod a-w wd" '-rf wd' as=nobody mode=sorted
c unreadable    "$N; mkdir -p u/x; chown -R $NB u; chmod u-r u" '-rf u' as=nobody
c unsearchable  "$N; mkdir -p s/1/z; : >s/1/z/q; : >s/2; chown -R $NB s; chmod u-x s/1" '-rf s' as=nobody
c mode0-empty   "$N; mkdir m0 m1; chown $NB m0 m1; chmod 0 m0; chmod 0100 m1" '-rf m0 m1' as=nobody
c sticky        "mkdir -m 1777 st; : >st/b" '-rf st/b st' as=nobody
c sticky-r      "mkdir -m 1777 st; : >st/b" '-rf st' as=nobody
c rel-cwd-unr   "$N; mkdir -p cw; chmod 0 cw; chown $NB cw" "rel \${PWD%/cw}/f2" as=nobody cwd=cw
c ro-fs-f       "mkdir ro; mount -t tmpfs -o ro,size=1m t ro" '-f ro/nosuch' 
c ro-fs         "mkdir ro; mount -t tmpfs -o size=1m t ro; : >ro/x; mount -o remount,ro ro" 'ro/x'
c immutable     "mkdir im; chattr +i im 2>/dev/null; : >z" '-rf im z'

# mounts: one-file-system and preserve-root=all
M="mkdir -p a/b/c; : >a/x; mount -t tmpfs -o size=1m t a/b; mkdir a/b/in; : >a/b/in/y"
c ofs           "$M" '-r --one-file-system a'
c ofs-v         "$M" '-rv --one-file-system a' ada=--threads=1
c pr-all        "$M" '-r --preserve-root=all a/b a/x'
c pr-all-ok     "$M" '-r --preserve-root=all a/x'
# bind mounts: a removed directory bound inside (EBUSY); a bind cycle where
# GNU's cycle check sees it at once (the ancestor is the last directory it
# remembered), alone in its parent (GNU rm then skips the parent's postorder
# visit; a sibling after it in readdir order it would skip instead, and leave)
c bind-gone     "mkdir -p t/x/mnt s/sub; : >s/f; mount --bind s t/x/mnt" '-r s t'
c bind-cycle    "mkdir -p t/a/b/c; : >t/f; mount --bind t/a t/a/b" '-rf t'
c bind-cycle-op "mkdir -p t/b/c; mount --bind t t/b" '-r t'

# Every option --help lists is accepted (each alone, with a harmless value
# where it takes one); adaptrm-only, so GNU rm is not run for these.
help_options() {
	local opts o arg rc bad=0 n=0
	opts=$("$ADAPTRM" --help | sed "/^Other modes:/,\$d" | grep -oE '(^|[ ,])--?[a-zA-Z][-a-zA-Z]*(\[?=[A-Z]+\]?)?' | sed 's/^[ ,]//' | sort -u)
	for o in $opts; do
		# the list mode takes a list, not operands: --prune-empty needs one
		case $o in --trace|--profiles|--json|--prune-empty) continue ;; esac
		arg=${o%%[[=]*}
		case $o in
		--sort=*) arg+="=auto" ;; --interactive*) arg+="=never" ;; --preserve-root*) ;;
		--json=*) arg+="=$ROOT/j.json" ;; --getdents-size=*) arg+="=65536" ;;
		--from-list*) arg="--from-list=/dev/null" ;;
		*=*) arg+="=2" ;;
		esac
		n=$((n + 1))
		"$ADAPTRM" "$arg" -f >/dev/null 2>"$ROOT/opt.err" </dev/null; rc=$?
		if [ $rc -ne 0 ]; then echo "gnu-diff: FAIL --help lists $o but '$arg' exits $rc: $(cat "$ROOT/opt.err")"; bad=1; fi
	done
	if [ $n -lt 25 ]; then echo "gnu-diff: FAIL --help parse found only $n options"; bad=1; fi
	if [ $bad = 0 ]; then passed=$((passed + 1)); else failed=$((failed + 1)); FAILS+=" help-options"; fi
}
[ -z "$FILTER" ] || [[ help-options == *$FILTER* ]] && help_options

# adaptrm's own options: abbreviated as adaptrm, in full only when invoked as
# rm (adaptrm-only, so GNU rm is not run for these).
own_options() {
	local a bad=0
	for a in --thread=2 --max-t=2 --no-prof --stat --sort=never --threads=2 --stats; do
		"$ADAPTRM" "$a" -f >/dev/null 2>&1 </dev/null ||
			{ echo "gnu-diff: FAIL adaptrm $a is refused"; bad=1; }
	done
	for a in --threads=2 --no-profile --stats; do
		"$ROOT/bin-ada/rm" "$a" -f >/dev/null 2>&1 </dev/null ||
			{ echo "gnu-diff: FAIL rm $a (in full) is refused"; bad=1; }
	done
	for a in --thread=2 --no-prof --stat; do
		if "$ROOT/bin-ada/rm" "$a" -f >/dev/null 2>&1 </dev/null; then
			echo "gnu-diff: FAIL rm $a (abbreviated) is accepted"; bad=1
		fi
	done
	if [ $bad = 0 ]; then passed=$((passed + 1)); else failed=$((failed + 1)); FAILS+=" own-options"; fi
}
[ -z "$FILTER" ] || [[ own-options == *$FILTER* ]] && own_options
