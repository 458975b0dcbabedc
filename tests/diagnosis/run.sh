#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# The diagnosis suite: slow deletes whose cause is known, each
# traced with `adaptrm --trace --json`, asserting the verdict's top
# finding(s), that its shares add up to 100% and that the top finding names
# the remedy; each scenario first checks that its cause happened, with an
# anchor that does not use adaptrm (tests/diagnosis/lib.sh).
#
# Same conventions as tests/e2e/run.sh: every test_* function in
# tests/diagnosis/test_*.sh runs in its own subshell with a fresh scratch dir
# on a private tmpfs, helpers from tests/e2e/lib.sh (fail, skip, on_exit,
# mount_fs, make_flat, ...) and tests/diagnosis/lib.sh; cleanups registered
# with on_exit run even when the scenario fails. Prints each scenario's
# verdict and runtime, then "diagnosis: N passed, N failed, N skipped".
#
#   ADAPTRM=/path/to/adaptrm [TOOLS=dir] bash tests/diagnosis/run.sh [PATTERN]
#   DIAG_FULL=1 (or E2E_BIG=1): the larger variants of the scenarios
#   ADAPTRM_REQUIRE_BPF=1: "eBPF unavailable" is a failure, not a skip
set -u
here=$(cd "$(dirname "$0")" && pwd)
SUITE_DIR=$here SUITE_NAME=diagnosis E2E_FILTER=${1:-${DIAG_FILTER:-}} exec bash "$here/../e2e/run.sh"
