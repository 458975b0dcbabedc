# SPDX-License-Identifier: GPL-3.0-or-later
# make lint's own checks against small fake trees, so that a check that
# stops finding anything is caught (a lint that passes on a broken tree
# looks the same as a clean tree):
#   - circles (scripts/circles.py): files that include or call each other in
#     a loop of any length are reported, each file once, and a tree whose
#     dependencies only point one way passes;
#   - exits (scripts/lint.sh exits): a layer below the faces that ends the
#     process is reported, comments and the faces are not.

lint_repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)

# circles ARG...: scripts/circles.py on the fake tree (need_circles first:
# a skip inside $(...) would not reach the runner).
circles() { python3 "$lint_repo/scripts/circles.py" "$@"; }
need_circles() { command -v python3 >/dev/null || skip "needs python3"; }

# fake_file PATH TEXT: writes one source file of the fake tree.
fake_file() {
	mkdir -p "$(dirname "$1")"
	printf '%s\n' "$2" >"$1"
}

# fake_objects: compiles every fake .c under src/ into obj/ (the Makefile's
# mapping: src/a/x.c -> obj/a/x.o), for the call edges that nm shows.
fake_objects() {
	local c o
	command -v cc >/dev/null || skip "needs cc"
	command -v nm >/dev/null || skip "needs nm"
	while IFS= read -r c; do
		o=obj/${c#src/}
		mkdir -p "$(dirname "$o")"
		cc -c -Isrc "$c" -o "${o%.c}.o" || fail "cannot compile $c"
	done < <(find src -name '*.c')
}

# A tree with three loops: two files that include each other's header; three
# files that call each other in a ring, seen only through nm; and a header's
# include that closes a loop for its .c. Plus a one-way chain that must not
# be reported.
make_fake_loops() {
	fake_file src/inc/x.h 'int x_fn(void);'
	fake_file src/inc/x.c '#include "inc/x.h"
#include "inc/y.h"
int x_fn(void) { return 1; }'
	fake_file src/inc/y.h 'int y_fn(void);'
	fake_file src/inc/y.c '#include "inc/y.h"
#include "inc/x.h"
int y_fn(void) { return 2; }'
	fake_file src/ring/a.c 'int b_fn(void); int a_fn(void) { return b_fn(); }'
	fake_file src/ring/b.c 'int c_fn(void); int b_fn(void) { return c_fn(); }'
	fake_file src/ring/c.c 'int a_fn(void); int c_fn(void) { return a_fn() ? 0 : 1; }'
	fake_file src/hdr/p.h '#include "hdr/q.h"
int p_fn(void);'
	fake_file src/hdr/p.c '#include "hdr/p.h"
int p_fn(void) { return 3; }'
	fake_file src/hdr/q.h 'int q_fn(void);'
	fake_file src/hdr/q.c '#include "hdr/p.h"
int q_fn(void) { return p_fn(); }'
	make_fake_chain
}

# A chain that only points one way: top.c -> mid.c -> low.c, by include
# and by call.
make_fake_chain() {
	fake_file src/chain/low.h 'int low_fn(void);'
	fake_file src/chain/low.c '#include "chain/low.h"
int low_fn(void) { return 4; }'
	fake_file src/chain/mid.h 'int mid_fn(void);'
	fake_file src/chain/mid.c '#include "chain/mid.h"
#include "chain/low.h"
int mid_fn(void) { return low_fn(); }'
	fake_file src/chain/top.c 'int mid_fn(void); int top_fn(void) { return mid_fn(); }'
}

test_lint_circles_found() {
	need_circles
	make_fake_loops
	fake_objects
	local out rc=0
	out=$(circles --objdir obj src) || rc=$?
	expect_eq "$rc" 1 "exit status with loops"
	# One line per file in a loop, naming the others.
	expect_eq "$(cut -d: -f1 <<<"$out" | tr '\n' ' ')" \
		"src/hdr/p.c src/hdr/q.c src/inc/x.c src/inc/y.c src/ring/a.c src/ring/b.c src/ring/c.c " \
		"the files in loops"
	grep -qx 'src/ring/a.c: in a loop with src/ring/b.c, src/ring/c.c (a.c uses b.c: calls b_fn)' <<<"$out" ||
		fail "the call ring is not reported as expected: $out"
	grep -q '^src/inc/x.c: in a loop with src/inc/y.c (x.c uses y.c: includes y.h)$' <<<"$out" ||
		fail "the include loop is not reported as expected: $out"
	grep -q '^src/hdr/p.c: in a loop with src/hdr/q.c (p.c uses q.c: includes q.h)$' <<<"$out" ||
		fail "a header's include is not counted for its .c: $out"
	if grep -q chain <<<"$out"; then fail "a one-way chain reported as a loop: $out"; fi
}

test_lint_circles_clean() {
	need_circles
	make_fake_chain
	fake_objects
	local out
	out=$(circles --objdir obj src) || fail "a one-way chain fails: $out"
	expect_eq "$out" "" "output on a tree without loops"
}

test_lint_circles_needs_objects() {
	need_circles
	make_fake_chain
	local err rc=0
	# Without objects the calls are invisible: a note, or with
	# --require-objects a failure, never a silent pass.
	err=$(circles --objdir obj src 2>&1 >/dev/null) ||
		fail "missing objects fail without --require-objects"
	grep -q 'without an object' <<<"$err" || fail "no note about the missing objects: $err"
	circles --objdir obj --require-objects src 2>/dev/null || rc=$?
	expect_eq "$rc" 1 "exit status with --require-objects and no objects"
}

# lint_in_fake CHECK: scripts/lint.sh's CHECK run on a fake tree here (the
# script works on the tree it sits in).
lint_in_fake() {
	mkdir -p scripts
	cp "$lint_repo/scripts/lint.sh" scripts/
	bash scripts/lint.sh "$1"
}

test_lint_exits_found() {
	fake_file user/engine/a.c 'void a(void) { exit(1); }'
	fake_file user/probes/b.c 'void b(void)
{
	die(0, "no");
}'
	fake_file user/lib/c.c 'void c(void) { abort(); }'
	local out rc=0
	out=$(lint_in_fake exits 2>/dev/null) || rc=$?
	expect_eq "$rc" 1 "exit status with exits below the faces"
	expect_eq "$(cut -d: -f1,2 <<<"$out" | tr '\n' ' ')" \
		"user/engine/a.c:1 user/probes/b.c:3 user/lib/c.c:1 " "the places reported"
}

test_lint_exits_clean() {
	# The faces may exit; a comment that names exit() is not a call;
	# xalloc and msg are where the process dies of out of memory.
	fake_file user/cli/a.c 'void a(void) { exit(1); }'
	fake_file user/trace/b.c 'void b(void) { die(0, "no"); }'
	fake_file user/engine/c.c '/* Never exit() here:
 * the caller decides. */
int c(void) { return -1; }'
	fake_file user/lib/xalloc.c 'void xalloc_die(void) { die(12, "memory exhausted"); }'
	local out
	out=$(lint_in_fake exits 2>/dev/null) || fail "exits fails on a clean tree: $out"
	expect_eq "$out" "" "output on a clean tree"
}
