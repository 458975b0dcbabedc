# SPDX-License-Identifier: GPL-3.0-or-later
# The documentation against the code: every option that the code
# parses appears in --help, in the man page and in the bash completion (and
# the completion offers no other), and every variable that user/ reads is in
# the man page's ENVIRONMENT section, or in TESTING ENVIRONMENT when
# lib/env.c marks it as one for tests. The names come from the sources, not
# from a list kept here:
#   - long options: the `struct option` tables (user/cli/options.c), and the
#     strings that hand parsers compare argv against with strcmp/strncmp
#     (user/main.c's faces, user/trace/trace.c, --profiles);
#   - short options: getopt_long's option string, and "-x" strings compared
#     by the hand parsers (--trace's -p);
#   - variables: every "ADAPTRM_..." string literal in user/**/*.c (getenv
#     calls and user/lib/env.c's table alike).
# Every markdown link in README.md, docs/ and docs/lab/, and every
# docs/FILE.md#anchor and docs/lab/FILE.md#anchor that the code, tests and
# scripts cite, must resolve (GitHub's heading slugs), so that a renamed
# heading is caught with its citers. The man pages
# pass groff's warnings, and README.md stays a user's short page.
# DOCS_MAN, DOCS_COMPLETION and DOCS_SRC override the files checked (the
# omission test uses them to check that an omission is caught); DOCS_ROOT
# the tree whose links are checked.

docs_repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)

# GNU rm's hidden testing option: not in GNU's --help or completion either;
# the man page still lists it.
docs_hidden_from_help="---presume-input-tty"

docs_src() { echo "${DOCS_SRC:-$docs_repo/user}"; }
docs_man() { echo "${DOCS_MAN:-$docs_repo/docs/adaptrm.1}"; }
docs_completion() { echo "${DOCS_COMPLETION:-$docs_repo/docs/adaptrm.bash-completion}"; }

# Every option the code parses, one per line ("--name", "-x").
docs_code_options() {
	local src
	src=$(docs_src)
	[ -d "$src" ] || fail "no source directory $src"
	{
		# struct option initializers: { "name", no_argument, ... }
		grep -rhoE --include='*.c' '\{ *"[^"]+", *(no|required|optional)_argument' "$src" |
			sed -E 's/^\{ *"([^"]+)".*/--\1/'
		# hand parsers: strcmp(a, "--name") / strncmp(a, "--name=", 7)
		grep -rhoE --include='*.c' 'str(n)?cmp\([^;]*' "$src" |
			grep -oE '"--?[a-zA-Z][a-zA-Z0-9-]*' | tr -d '"' |
			grep -vxE -- '-[a-zA-Z][a-zA-Z0-9-]+'
		# getopt_long's short options
		grep -rhoE --include='*.c' 'getopt_long\([^,]+,[^,]+, *"[^"]*"' "$src" |
			sed -E 's/.*"([^"]*)"$/\1/' | tr -d ':+' | grep -oE '[a-zA-Z]' | sed 's/^/-/'
	} | LC_ALL=C sort -u
}

# has_opt OPT < TEXT: OPT appears as a whole option name.
has_opt() { grep -qE -- "(^|[^a-zA-Z0-9-])$1([^a-zA-Z0-9-]|$)"; }

# The man page as plain text: \- is a dash, font escapes go.
docs_man_text() { sed -e 's/\\-/-/g' -e 's/\\f[BIRP]//g' -e 's/\\f(..//g' "$(docs_man)"; }

# Prints "WHERE: OPTION" for every option missing from a document.
docs_missing_options() {
	local opts help man comp o
	opts=$(docs_code_options)
	[ -n "$opts" ] || fail "no options found in $(docs_src): the extraction is broken"
	help=$("$ADAPTRM" --help; "$ADAPTRM" --trace --help)
	man=$(docs_man_text)
	comp=$(cat "$(docs_completion)")
	for o in $opts; do
		if [[ " $docs_hidden_from_help " != *" $o "* ]]; then
			has_opt "$o" <<<"$help" || echo "adaptrm --help / adaptrm --trace --help: $o"
			has_opt "$o" <<<"$comp" || echo "$(docs_completion): $o"
		fi
		has_opt "$o" <<<"$man" || echo "$(docs_man): $o"
	done
}

# Every ADAPTRM_* variable user/ reads.
docs_code_env() {
	{
		grep -rhoE --include='*.c' '"ADAPTRM_[A-Z0-9_]+"' "$(docs_src)"
		# every name in lib/env.c's table (PATH, HOME, XDG_CACHE_HOME too)
		grep -rhoE --include='env.c' '\[ENV_[A-Z0-9_]+\] = \{ "[A-Z0-9_]+"' "$(docs_src)" |
			grep -oE '"[A-Z0-9_]+"'
	} | tr -d '"' | LC_ALL=C sort -u
}

# "NAME testing" or "NAME user" for every entry of lib/env.c's table (its
# last field says whether a variable is for tests and experiments).
docs_env_kinds() {
	awk '
		match($0, /\[ENV_[A-Z0-9_]+\] = \{ "[A-Z0-9_]+"/) {
			name = substr($0, RSTART, RLENGTH)
			sub(/.*\{ "/, "", name)
			sub(/"$/, "", name)
		}
		name != "" && /(true|false) \},?$/ {
			print name, (/true \},?$/ ? "testing" : "user")
			name = ""
		}' "$(docs_src)/lib/env.c"
}

# The text of the man page's section named $1 ("ENVIRONMENT").
docs_man_section() {
	awk -v want="$1" '/^\.SH /{ t = $0; sub(/^\.SH +/, "", t); gsub(/"/, "", t); f = (t == want) } f' "$(docs_man)"
}

# Prints "WHERE: VARIABLE" for every variable user/ reads that is not in its
# section of the man page: a user's in ENVIRONMENT, a testing one (lib/env.c
# says which) in TESTING ENVIRONMENT and not among the user's.
docs_missing_env() {
	local vars env testenv kinds v kind in_env in_test
	vars=$(docs_code_env)
	[ -n "$vars" ] || fail "no ADAPTRM_* variables found in $(docs_src): the extraction is broken"
	kinds=$(docs_env_kinds)
	[ -n "$kinds" ] || fail "no variables found in $(docs_src)/lib/env.c's table: the extraction is broken"
	env=$(docs_man_section ENVIRONMENT)
	testenv=$(docs_man_section "TESTING ENVIRONMENT")
	[ -n "$env" ] || { echo "$(docs_man): no ENVIRONMENT section"; return; }
	[ -n "$testenv" ] || { echo "$(docs_man): no TESTING ENVIRONMENT section"; return; }
	for v in $vars; do
		kind=$(awk -v v="$v" '$1 == v { print $2 }' <<<"$kinds")
		in_env=0 in_test=0
		grep -qE "(^|[^A-Z0-9_])$v([^A-Z0-9_]|$)" <<<"$env" && in_env=1
		grep -qE "(^|[^A-Z0-9_])$v([^A-Z0-9_]|$)" <<<"$testenv" && in_test=1
		case $kind in
		testing)
			[ $in_test = 1 ] || echo "$(docs_man) TESTING ENVIRONMENT: $v"
			[ $in_env = 0 ] || echo "$(docs_man) ENVIRONMENT: $v is for testing"
			;;
		user) [ $in_env = 1 ] || echo "$(docs_man) ENVIRONMENT: $v" ;;
		*) [ $in_env = 1 ] || [ $in_test = 1 ] || echo "$(docs_man) ENVIRONMENT: $v" ;;
		esac
	done
}

test_docs_options() {
	local missing n
	n=$(docs_code_options | wc -l)
	# options.c alone has 22 long options: far fewer means the parse broke
	[ "$n" -ge 30 ] || fail "only $n options extracted from $(docs_src): $(docs_code_options | tr '\n' ' ')"
	missing=$(docs_missing_options)
	[ -z "$missing" ] || fail "options the code parses but the documentation lacks:
$missing"
}

test_docs_env() {
	local missing
	missing=$(docs_missing_env)
	[ -z "$missing" ] || fail "variables user/ reads but the man page's ENVIRONMENT (or TESTING ENVIRONMENT) lacks:
$missing"
}

# The options the completion offers, one per line ("--sort", "-p"): the
# words of its _adaptrm_*_opts lists, without a value's "=".
docs_completion_options() {
	awk '/^_adaptrm_[a-z]+_opts="/ { f = 1 } f { print } f && /"$/ { f = 0 }' "$(docs_completion)" |
		sed 's/^_adaptrm_[a-z]*_opts="//; s/"$//' | tr -s '[:blank:]' '\n' | grep -E -- '^--?[a-zA-Z]' | sed 's/=$//' |
		LC_ALL=C sort -u
}

# The other way round: the completion offers no option the code does not
# parse (a renamed or removed option would linger there).
test_docs_completion_offers_only_parsed_options() {
	local code stale
	code=$(docs_code_options)
	[ "$(docs_completion_options | wc -l)" -ge 30 ] || fail "few options found in the completion: $(docs_completion_options | tr '\n' ' ')"
	stale=$(LC_ALL=C comm -23 <(docs_completion_options) <(echo "$code"))
	[ -z "$stale" ] || fail "the completion offers options the code does not parse: $stale"
	sed 's/--no-progress /--no-progres --no-progress /' "$(docs_completion)" >comp
	stale=$(DOCS_COMPLETION=$PWD/comp docs_completion_options | LC_ALL=C comm -23 - <(echo "$code"))
	[ "$stale" = --no-progres ] || fail "a stale option in the completion passed: $stale"
}

# The two checks fail, naming the culprit, when a document loses an entry
# (copies of the repository's own documents, whatever DOCS_* say).
test_docs_checks_catch_omissions() {
	local out
	unset DOCS_MAN DOCS_COMPLETION DOCS_SRC
	grep -v -- 'no\\-callers' "$(docs_man)" | grep -v -- 'ADAPTRM_KALLSYMS' >man.1
	sed 's/--no-callers//g' "$(docs_completion)" >comp
	out=$(DOCS_MAN=$PWD/man.1 DOCS_COMPLETION=$PWD/comp docs_missing_options)
	grep -q "man.1: --no-callers" <<<"$out" || fail "a man page without --no-callers passed: $out"
	grep -q "comp: --no-callers" <<<"$out" || fail "a completion without --no-callers passed: $out"
	out=$(DOCS_MAN=$PWD/man.1 docs_missing_env)
	grep -q "TESTING ENVIRONMENT: ADAPTRM_KALLSYMS" <<<"$out" || fail "a man page without ADAPTRM_KALLSYMS passed: $out"
	# a testing variable in the user's section, in the place of a user's one
	sed 's/^\.B ADAPTRM_CTL_BPF$/.B ADAPTRM_CTL_START/' "$(docs_man)" >moved.1
	out=$(DOCS_MAN=$PWD/moved.1 docs_missing_env)
	grep -q "ENVIRONMENT: ADAPTRM_CTL_START is for testing" <<<"$out" || fail "a testing variable in ENVIRONMENT passed: $out"
	grep -q "ENVIRONMENT: ADAPTRM_CTL_BPF$" <<<"$out" || fail "a man page without ADAPTRM_CTL_BPF in ENVIRONMENT passed: $out"
	# and a new option and variable in the code, documented nowhere
	cp -r "$(docs_src)" src
	printf 'int x(const char *a) { return !strcmp(a, "--brand-new"); }\n' >src/new.c
	printf 'const char *y = "ADAPTRM_BRAND_NEW";\n' >>src/new.c
	out=$(DOCS_SRC=$PWD/src docs_missing_options)
	[ "$(grep -c -- '--brand-new' <<<"$out")" = 3 ] || fail "--brand-new not reported 3 times: $out"
	out=$(DOCS_SRC=$PWD/src docs_missing_env)
	grep -q "ADAPTRM_BRAND_NEW" <<<"$out" || fail "ADAPTRM_BRAND_NEW not reported: $out"
}

# The anchors of a markdown file, one per line: GitHub's slugs of its
# headings (lower case, punctuation dropped, spaces to hyphens, a repeated
# slug numbered -1, -2, ...) and explicit <a id/name="..."> targets.
docs_anchors() {
	awk '
		/^```/ { fence = !fence; next }
		fence { next }
		/^#+ / {
			s = tolower($0)
			sub(/^#+ +/, "", s)
			gsub(/[^a-z0-9 _-]/, "", s)
			gsub(/ /, "-", s)
			n = seen[s]++
			print (n ? s "-" n : s)
		}
		{
			line = $0
			while (match(line, /<a (id|name)="[^"]+"/)) {
				a = substr(line, RSTART, RLENGTH)
				sub(/^<a (id|name)="/, "", a)
				print substr(a, 1, length(a) - 1)
				line = substr(line, RSTART + RLENGTH)
			}
		}' "$1"
}

# Prints "WHERE: TARGET" for every link that does not resolve: markdown
# links in docs/*.md, docs/lab/*.md and README.md (relative targets only),
# and the docs/FILE.md#anchor and docs/lab/FILE.md#anchor references in the
# sources, tests and scripts.
docs_broken_links() {
	local root=${DOCS_ROOT:-$docs_repo} md where target file anchor
	{
		for md in "$root"/README.md "$root"/docs/*.md "$root"/docs/lab/*.md; do
			[ -e "$md" ] || continue
			# inline code spans are not links
			# shellcheck disable=SC2016 # the backquotes are markdown's
			sed 's/`[^`]*`//g' "$md" | grep -oE '\]\([^) ]+\)' | sed -E 's/^\]\((.*)\)$/\1/' |
				grep -vE '^(https?|mailto):' | sed "s|^|$md\t$(dirname "$md")/|"
		done
		grep -rnoE --exclude-dir=.output --exclude=test_docs.sh 'docs/([A-Za-z0-9_-]+/)?[A-Za-z0-9_.-]+\.md#[A-Za-z0-9_-]+' \
			"$root"/user "$root"/bpf "$root"/tests "$root"/scripts "$root"/Makefile 2>/dev/null |
			sed -E "s|^([^:]+:[0-9]+):(.*)$|\1\t$root/\2|"
	} | while IFS=$'\t' read -r where target; do
		file=${target%%#*}
		anchor=
		[[ $target == *#* ]] && anchor=${target#*#}
		# a bare #anchor is the linking file's own
		[[ $target != */#* ]] || file=$where
		if [ ! -e "$file" ]; then
			echo "${where#"$root"/}: ${target#"$root"/} (no such file)"
		elif [ -n "$anchor" ] && ! docs_anchors "$file" | grep -qxF -- "$anchor"; then
			echo "${where#"$root"/}: ${target#"$root"/} (no such anchor)"
		fi
	done
}

test_docs_links() {
	local broken
	broken=$(docs_broken_links)
	[ -z "$broken" ] || fail "links that do not resolve:
$broken"
}

# The link check fails on a missing anchor and a missing file, and passes
# GitHub's slugs of punctuated and repeated headings.
test_docs_links_catch_breakage() {
	local out
	mkdir -p r/docs r/user
	# shellcheck disable=SC2016 # the backquotes are markdown's
	printf '# A b\n## Large files: the lane and --free-rate\n## Re-run\n## Re-run\n```\n# not a heading\n```\n<a id="here"></a>\n' >r/docs/a.md
	# shellcheck disable=SC2016 # the backquotes are markdown's
	printf '[x](docs/a.md#a-b) [y](docs/a.md#large-files-the-lane-and---free-rate) [z](docs/a.md#re-run-1) [h](docs/a.md#here) `[no](docs/none.md)`\n' >r/README.md
	printf '/* see docs/a.md#re-run */\n' >r/user/x.c
	# the notebook in docs/lab/: its links, and the code's links to it
	mkdir -p r/docs/lab
	printf '# Lab\n[a](../a.md#re-run) [self](#lab)\n' >r/docs/lab/b.md
	printf '/* see docs/lab/b.md#lab */\n' >>r/user/x.c
	out=$(DOCS_ROOT=$PWD/r docs_broken_links)
	[ -z "$out" ] || fail "good links reported: $out"
	printf '[w](docs/a.md#not-a-heading) [v](docs/gone.md) [u](#nowhere)\n' >>r/README.md
	printf '/* see docs/a.md#re-run-2 */\n' >>r/user/x.c
	printf '[g](../gone.md#x)\n' >>r/docs/lab/b.md
	printf '/* see docs/lab/b.md#gone */\n' >>r/user/x.c
	out=$(DOCS_ROOT=$PWD/r docs_broken_links)
	grep -q 'README.md: docs/a.md#not-a-heading (no such anchor)' <<<"$out" || fail "missing anchor passed: $out"
	grep -q 'README.md: docs/gone.md (no such file)' <<<"$out" || fail "missing file passed: $out"
	grep -q 'README.md: .*#nowhere (no such anchor)' <<<"$out" || fail "missing local anchor passed: $out"
	grep -q 'user/x.c:3: docs/a.md#re-run-2 (no such anchor)' <<<"$out" || fail "missing anchor in code passed: $out"
	grep -q 'docs/lab/b.md: docs/lab/../gone.md#x (no such file)' <<<"$out" || fail "missing file from docs/lab passed: $out"
	grep -q 'user/x.c:4: docs/lab/b.md#gone (no such anchor)' <<<"$out" || fail "missing anchor in docs/lab passed: $out"
}

# The README is a user's first screen and a few more: at most 250 lines (the
# figures, the history and the reasons live in docs/), and its first code
# block is the two set-up commands, the demo and the tests.
test_docs_readme_for_users() {
	local readme=$docs_repo/README.md n first
	n=$(wc -l <"$readme")
	[ "$n" -le 250 ] || fail "README.md has $n lines, more than 250: move the detail to docs/"
	first=$(awk '/^```/ { if (f) exit; f = 1; next } f' "$readme")
	grep -q 'scripts/demo.sh' <<<"$first" || fail "README.md's first code block does not run scripts/demo.sh: $first"
	grep -q 'make check' <<<"$first" || fail "README.md's first code block does not run make check: $first"
	[ -x "$docs_repo/scripts/demo.sh" ] || fail "scripts/demo.sh is not executable"
}

# The man pages render without a warning (groff's -ww turns every warning
# on): an unknown macro or a broken escape would show as such in man(1).
test_docs_man_pages_lint() {
	local page out
	command -v groff >/dev/null || skip "groff is not installed"
	for page in "$docs_repo"/docs/*.1; do
		out=$(groff -man -Tutf8 -ww -z "$page" 2>&1)
		[ -z "$out" ] || fail "groff warns about $page: $out"
	done
	printf '.TH X 1\n.SH NAME\nx \\- y\n.XX bad\n' >bad.1
	out=$(groff -man -Tutf8 -ww -z bad.1 2>&1)
	grep -q "macro 'XX'" <<<"$out" || fail "groff passed an unknown macro: $out"
}
