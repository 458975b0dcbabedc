# SPDX-License-Identifier: GPL-3.0-or-later
# make ARCH=arm64 on another architecture (included by the Makefile): a
# cross build with Debian's cross compiler and the arm64 libraries that
# multiarch installs beside the native ones (scripts/install-deps.sh --arch
# arm64), into an output folder of its own so that nothing native is
# overwritten. `make ARCH=arm64 unit` runs the unit tests under qemu-user.

ifneq ($(SAN),)
$(error SAN= is for native builds, not ARCH=$(ARCH))
endif
ifeq ($(ARCH),arm64)
CROSS_TRIPLET := aarch64-linux-gnu
QEMU          := qemu-aarch64-static
else
$(error no cross toolchain known for ARCH=$(ARCH))
endif

CC         := $(CROSS_TRIPLET)-gcc
PKG_CONFIG := $(CROSS_TRIPLET)-pkg-config
OUTPUT     := .output-$(ARCH)
BIN        := $(OUTPUT)/adaptrm
# No adaptrm-mpi: Debian's libopenmpi-dev for another architecture cannot be
# installed beside the native one (apt would remove the native compilers).
MPICC      :=
# The system headers that -target bpf is given: the target's asm/unistd.h.
CLANG_SYS_TARGET := --target=$(CROSS_TRIPLET)

# Criterion's runner cannot start under qemu-user (its workers exec the
# test binary again, which needs binfmt_misc): the tests run on the plain
# runner of tests/unit/support/criterion_lite.h, each in a child of its own.
CROSS_TEST_CFLAGS := -DCRITERION_LITE -DLITE_FORK_EACH -Itests/unit/support/lite
TEST_RUN          := $(QEMU)
# Linked statically: Debian 12's qemu-user (7.2) spins in a dynamically
# linked guest's first pthread_create or fork on this kernel, before the
# clone, where a static guest runs.
LDFLAGS += -static
