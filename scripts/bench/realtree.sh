# SPDX-License-Identifier: GPL-3.0-or-later
# shellcheck shell=bash
# The real-tree lane of scripts/bench/bench.sh (BENCH_PRESET=realtree),
# sourced by it: trees made by the real tools, not models, each packed once
# into a plain tarball in TREE_CACHE (outside the repository) and unpacked
# for every run, so that every repetition deletes the same tree. The shapes:
#   npm    npm's node_modules for bench.sh's NPM_PACKAGES (a front-end
#          app's dependencies); recreate: delete npm.tar (and BENCH_NPM_DIR)
#   venv   a Python virtualenv with pip's numpy scipy pandas jupyter;
#          recreate: delete venv.tar
#   git    a git repository with its .git: glibc's source from Debian's
#          glibc-source package, committed by git, packed as a clone's
#          objects are, then a few more commits left loose (a stand-in made
#          by git for a clone, as GitHub may be unreachable); recreate:
#          delete git.tar
#   cargo  a Rust project with its target/ directory after `cargo build`
#          (debug) of common crates (tokio, serde, clap, regex, syn, ...);
#          recreate: delete cargo.tar
# A tree that cannot be made (no network, no tool) is skipped with a note.
# BENCH_TREE_CACHE moves the cache; a tarball put there by hand (any tree,
# its top level unpacked as the tree) is used as it is; BENCH_TREE_MAKE=0
# makes none (no network: the trees missing are skipped).

TREE_CACHE=${BENCH_TREE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/adaptrm-bench}
# shellcheck disable=SC2034 # read by bench.sh
REAL_SHAPES="npm venv git cargo"
is_real_shape() { case $1 in npm | venv | git | cargo) true ;; *) false ;; esac; }

# What each tree is, for the report's label.
real_what() {
	case $1 in
	npm) echo "npm node_modules" ;;
	venv) echo "Python venv" ;;
	git) echo "git repository" ;;
	cargo) echo "cargo build dir" ;;
	esac
}

# make_real_SHAPE DIR: the tree itself in DIR (fresh, empty), made by the
# tool that makes such trees; the caller packs it.
make_real_npm() {
	[ -d "$NPM_DIR/node_modules" ] || npm_install || return 1
	cp -a "$NPM_DIR/node_modules" "$1/"
}
make_real_venv() {
	local py
	py=$(command -v python3) || return 1
	"$py" -m venv "$1/venv" &&
		timeout 1800 "$1/venv/bin/pip" install -q --no-cache-dir numpy scipy pandas jupyter
}
make_real_git() {
	local deb src
	(cd "$1" && timeout 600 apt-get download glibc-source >/dev/null 2>&1) || return 1
	deb=$(ls "$1"/glibc-source_*.deb) && dpkg-deb -x "$deb" "$1/deb" || return 1
	src=$(ls "$1"/deb/usr/src/glibc/glibc-*.tar.*) && tar -xf "$src" -C "$1" || return 1
	rm -rf "$1/deb" "$deb"
	mv "$1"/glibc-* "$1/glibc" || return 1
	# A clone's history comes packed; the work after it stays in loose objects.
	(
		cd "$1/glibc" && export GIT_AUTHOR_NAME=bench GIT_AUTHOR_EMAIL=bench@localhost \
			GIT_COMMITTER_NAME=bench GIT_COMMITTER_EMAIL=bench@localhost &&
			git init -q && git add -A && git commit -qm import && git repack -qad &&
			for i in 1 2 3; do
				find . -path ./.git -prune -o -name '*.c' -print | awk -v i="$i" 'NR % 50 == i' |
					while read -r f; do echo "/* edit $i */" >>"$f"; done
				git commit -qam "edit $i" || exit 1
			done
	)
}
make_real_cargo() {
	command -v cargo >/dev/null || return 1
	(
		cd "$1" && cargo new -q --vcs none app && cd app &&
			printf '%s\n' 'tokio = { version = "1", features = ["full"] }' \
				'serde = { version = "1", features = ["derive"] }' 'serde_json = "1"' \
				'clap = { version = "4", features = ["derive"] }' 'regex = "1"' 'rayon = "1"' \
				'anyhow = "1"' 'chrono = "0.4"' 'rand = "0.8"' 'syn = { version = "2", features = ["full"] }' \
				>>Cargo.toml && timeout 1800 cargo build -q
	)
}

# ensure_real_tree SHAPE: its tarball in TREE_CACHE, made once.
ensure_real_tree() {
	local tar=$TREE_CACHE/$1.tar tmp
	[ -f "$tar" ] && return 0
	[ "${BENCH_TREE_MAKE:-1}" = 1 ] || { echo "bench: no $1 tree in $TREE_CACHE (BENCH_TREE_MAKE=0): skipped" >&2; return 1; }
	echo "bench: making the $1 tree once into $tar" >&2
	mkdir -p "$TREE_CACHE" || return 1
	tmp=$(mktemp -d "$TREE_CACHE/make.XXXXXX") || return 1
	mkdir "$tmp/tree"
	if "make_real_$1" "$tmp/tree" >"$tmp/log" 2>&1 && tar -cf "$tar.tmp" -C "$tmp/tree" . && mv "$tar.tmp" "$tar"; then
		rm -rf "$tmp"
		return 0
	fi
	echo "bench: cannot make the $1 tree (see $tmp/log): skipped" >&2
	rm -f "$tar.tmp"
	return 1
}

# real_label SHAPE: what, entries and MiB, read from the tarball's listing.
declare -A REAL_LABELS=()
real_label() {
	if [ -z "${REAL_LABELS[$1]:-}" ]; then
		REAL_LABELS[$1]="$(real_what "$1") $(tar -tvf "$TREE_CACHE/$1.tar" |
			awk '$NF != "./" {n++; b += $3} END {printf "%d entries %.0f MiB", n, b / 1048576}')"
	fi
	echo "${REAL_LABELS[$1]}"
}

# unpack_real DIR SHAPE: the cached tree at DIR (not timed: the caller's
# build step).
unpack_real() {
	mkdir "$1" && tar -xf "$TREE_CACHE/$2.tar" -C "$1" || return 1
	# shellcheck disable=SC2034 # read by bench.sh
	DATA_LABEL=$(real_label "$2")
}

# The waits behind the cells whose wall time is over 1.5x the CPU floor:
# each such cell's tree deleted once more by adaptrm under its own --trace,
# and once by the cell's best peer under adaptrm --trace -- COMMAND; the
# trace's leading waits go to WAITS (fs, shape, cache, disk, tool, text),
# which report.py puts in the table's "waits on" column.
real_trace_flagged() { # REPORT.json WAITS
	local json=$1 waits=$2 fs cond shape tool list
	: >"$waits"
	list=$("$PY" - "$json" <<-'EOF'
		import json, sys
		for c in json.load(open(sys.argv[1]))["cells"]:
		    if not any((v.get("over_floor") or 0) > 1.5 for v in c["tools"].values()):
		        continue
		    for t in ["auto", c["best_peer"]]:
		        if t and t in c["tools"]:
		            print(c["fs"], "%s+%s" % (c["cache"], c["disk"]), c["shape"], t)
	EOF
	) || return 1
	while read -r fs cond shape tool; do
		[ -n "$tool" ] && real_trace_one "$fs" "$cond" "$shape" "$tool" "$waits"
	done <<<"$list"
}
real_trace_one() { # FS COND SHAPE TOOL WAITS
	local fs=$1 cond=$2 shape=$3 tool=$4 out txt
	# Each trace kept beside the report, to read the whole verdict.
	mkdir -p "$OUT/traces"
	out=$OUT/traces/$fs-$cond-$shape-$tool.json txt=$OUT/traces/$fs-$cond-$shape-$tool.txt
	teardown_fs
	setup_fs "$fs" "$shape" && set_disk "$cond" && prepare_tree "$shape" "$fs" "$cond" || return 0
	tool_cmd "$tool" "$MNT/t"
	rm -f "$out"
	if [ "$tool" = auto ]; then
		"$ADAPTRM" --trace --json "$out" -rf "$MNT/t" </dev/null >"$txt" 2>&1
	else
		"$ADAPTRM" --trace --json "$out" -- "${CMD[@]}" </dev/null >"$txt" 2>&1
	fi
	echo "bench: traced $tool on $fs $shape (${cond}): $(grep -m1 '^  1\.' "$txt" | cut -c1-100)" >&2
	[ -s "$out" ] && "$PY" - "$out" "$fs" "$cond" "$shape" "$tool" >>"$5" <<-'EOF'
		import json, sys
		d = json.load(open(sys.argv[1]))
		fs, cond, shape, tool = sys.argv[2:6]
		# Work on a CPU is not a wait, and idle threads are not a cause.
		skip = {"kernel_cpu", "user_cpu", "idle_waits", "minor_parts"}
		top = [f for f in d.get("findings", []) if f.get("cause") and f["id"] not in skip][:2]
		text = ", ".join("%s %.0f%%" % (f["id"], 100 * f["share"]) for f in top) or "none: on a CPU"
		# Where the threads slept longest on the delete's filesystems (not the
		# root disk's start-up reads), as the kernel function.
		sites = sorted((s for s in d.get("wait_sites", []) if not s.get("other_fs")),
		               key=lambda s: -s.get("blocked_ns", 0))
		if sites and sites[0].get("blocked_ns", 0) > 0:
		    text += " (slept most in %s)" % sites[0]["site"].split("+")[0]
		print("\t".join([fs, shape] + cond.split("+") + [tool, text]))
	EOF
	teardown_fs
}
