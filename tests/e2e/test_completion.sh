# SPDX-License-Identifier: GPL-3.0-or-later
# The bash completion (docs/adaptrm.bash-completion), driven as bash's
# programmable completion drives it: the file sourced, COMP_WORDS split as
# readline splits a line (at "=", which COMP_WORDBREAKS holds), the function
# called, COMPREPLY checked. compopt works only inside a real completion, so
# a stand-in records what the function asked of it.

comp_file=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)/docs/adaptrm.bash-completion

# comp_run LINE WORD...: COMPREPLY for the end of LINE split into WORDs, one
# reply a line, sorted; the compopt calls go to ./compopt.
comp_run() {
	local line=$1
	shift
	(
		# shellcheck disable=SC2317 # called by _adaptrm
		compopt() { echo "$*" >>compopt; }
		# shellcheck source=../../docs/adaptrm.bash-completion
		source "$comp_file"
		# shellcheck disable=SC2034 # read by _adaptrm
		COMP_LINE=$line COMP_POINT=${#line} COMP_WORDS=("$@") COMP_CWORD=$(($# - 1))
		COMPREPLY=()
		_adaptrm
		[ ${#COMPREPLY[@]} = 0 ] || printf '%s\n' "${COMPREPLY[@]}" | LC_ALL=C sort
	)
}

# complete_line LINE: the words split at blanks and around "=", as bash does
# by default (COMP_WORDBREAKS holds "=").
complete_line() {
	local words
	# shellcheck disable=SC2206 # split on blanks as readline does
	words=(${1//=/ = })
	[[ $1 != *' ' ]] || words+=("")
	comp_run "$1" "${words[@]}"
}

# complete_word LINE: "=" no word break (a user's own COMP_WORDBREAKS): the
# last word is the whole "--opt=value".
complete_word() {
	local words
	# shellcheck disable=SC2206 # split on blanks only
	words=($1)
	comp_run "$1" "${words[@]}"
}

test_completion_values_after_equals() {
	expect_eq "$(complete_line 'adaptrm -rf --sort=a')" "$(printf 'always\nauto')" "--sort=a"
	expect_eq "$(complete_line 'adaptrm -rf --sort=')" "$(printf 'always\nauto\nnever')" "--sort="
	expect_eq "$(complete_line 'adaptrm --interactive=')" "$(printf 'always\nnever\nonce')" "--interactive="
	expect_eq "$(complete_line 'adaptrm --interactive=o')" "once" "--interactive=o"
	expect_eq "$(complete_line 'adaptrm --preserve-root=')" "all" "--preserve-root="
	expect_eq "$(complete_line 'adaptrm-mpi -rf --sort=n')" "never" "adaptrm-mpi --sort=n"
	expect_eq "$(complete_line 'rm --interactive=n')" "never" "rm --interactive=n"
	# a rate: the digits typed so far with each unit
	complete_line 'adaptrm -rf --free-rate=256' >rates
	grep -qx 256M rates || fail "--free-rate=256 does not offer 256M: $(cat rates)"
	grep -qx 256G rates || fail "--free-rate=256 does not offer 256G: $(cat rates)"
	expect_eq "$(grep -cv '^256' rates)" 0 "--free-rate=256 offers other numbers"
	# the option as its own word, its value the next
	expect_eq "$(complete_line 'adaptrm -rf --sort n')" "never" "--sort n"
	# the same, with "=" no word break: every reply keeps the option
	expect_eq "$(complete_word 'adaptrm -rf --sort=a')" "$(printf -- '--sort=always\n--sort=auto')" "unsplit --sort=a"
}

test_completion_options() {
	expect_eq "$(complete_line 'adaptrm --no-p')" "$(printf -- '--no-preserve-root\n--no-profile\n--no-progress')" "--no-p"
	expect_eq "$(complete_line 'adaptrm --tr')" "--trace" "--tr as the first word"
	expect_eq "$(complete_line 'adaptrm -rf --tr')" "" "--tr after an option"
	# an option that takes its value in the same word gets no space after "="
	expect_eq "$(complete_line 'adaptrm --free-r')" "--free-rate=" "--free-r"
	grep -qx -- '-o nospace' compopt || fail "no nospace after --free-rate=: $(cat compopt 2>/dev/null)"
	# rm (adaptrm installed as rm): GNU's options only
	expect_eq "$(complete_line 'rm --')" "$(printf -- '--dir\n--force\n--help\n--interactive\n--interactive=\n--no-preserve-root\n--one-file-system\n--preserve-root\n--preserve-root=\n--recursive\n--verbose\n--version')" "rm --"
	# adaptrm-mpi: no prompts, no other faces
	complete_line 'adaptrm-mpi -' >mpi
	grep -qx -- '--stats' mpi || fail "adaptrm-mpi offers no --stats: $(cat mpi)"
	if grep -qxE -- '-i|-I|--trace|--profiles' mpi; then fail "adaptrm-mpi offers -i, -I or another face: $(cat mpi)"; fi
	# --trace: its own options, then rm's
	complete_line 'adaptrm --trace --f' >trace
	grep -qx -- '--folded=' trace || fail "--trace --f offers no --folded=: $(cat trace)"
	grep -qx -- '--force' trace || fail "--trace --f offers no --force: $(cat trace)"
}

test_completion_files() {
	mkdir -p dir/sub
	touch dir/file.json dir/other
	expect_eq "$(complete_line 'adaptrm -rf dir/f')" "dir/file.json" "a file operand"
	expect_eq "$(complete_line 'adaptrm -rf --json=dir/fi')" "dir/file.json" "--json=FILE"
	expect_eq "$(complete_line 'adaptrm --trace --folded=dir/o')" "dir/other" "--trace --folded=FILE"
	expect_eq "$(complete_line 'adaptrm --from-list dir/o')" "dir/other" "--from-list FILE"
	expect_eq "$(complete_word 'adaptrm --json=dir/fi')" "--json=dir/file.json" "unsplit --json=FILE"
	# after --trace's "--": a command, then its files
	complete_line 'adaptrm --trace -- ls' >cmds
	grep -qx ls cmds || fail "--trace -- ls offers no command ls: $(cat cmds)"
	expect_eq "$(complete_line 'adaptrm --trace -- rm dir/s')" "dir/sub" "a traced command's file"
}

# The file registers rm only where the rm on PATH is adaptrm (here both
# links to it).
test_completion_registers_rm_only_as_adaptrm() {
	local reg
	mkdir as-rm gnu
	ln -s "$ADAPTRM" as-rm/rm
	ln -s "$ADAPTRM" as-rm/adaptrm
	ln -s "$ADAPTRM" gnu/adaptrm
	# shellcheck disable=SC2016 # expanded by the inner shell
	reg=$(PATH=$PWD/as-rm:$PATH bash -c 'source "$1"; complete -p rm adaptrm adaptrm-mpi' _ "$comp_file" 2>&1)
	grep -q 'complete -F _adaptrm rm$' <<<"$reg" || fail "rm not registered where it is adaptrm: $reg"
	grep -q 'complete -F _adaptrm adaptrm-mpi$' <<<"$reg" || fail "adaptrm-mpi not registered: $reg"
	# shellcheck disable=SC2016 # expanded by the inner shell
	reg=$(PATH=$PWD/gnu:$PATH bash -c 'source "$1"; complete -p rm' _ "$comp_file" 2>&1) || true
	if grep -q '_adaptrm' <<<"$reg"; then fail "GNU's rm was given adaptrm's completion: $reg"; fi
}

# After --trace's "--" the traced command is completed as bash-completion
# completes it typed alone (its own options too): the word offset of the
# command is handed to _command_offset, or to _comp_command_offset where
# bash-completion has that name; stand-ins record the call here.
test_completion_traced_command_delegated() {
	# shellcheck disable=SC2317 # called by _adaptrm
	_command_offset() { echo "offset $1" >>delegated; COMPREPLY=(--recursive); }
	expect_eq "$(complete_line 'adaptrm --trace -- rm --re')" "--recursive" "rm --re after --"
	expect_eq "$(cat delegated)" "offset 3" "the offset handed over"
	# shellcheck disable=SC2317 # called by _adaptrm
	_comp_command_offset() { echo "comp $1" >>delegated2; COMPREPLY=(--recursive); }
	complete_line 'adaptrm --trace -p 1 -- rm --re' >/dev/null
	expect_eq "$(cat delegated2)" "comp 5" "the newer name preferred"
}
