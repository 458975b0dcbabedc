# SPDX-License-Identifier: GPL-3.0-or-later
# adaptrm: parallel, self-tuning rm with eBPF tracing.
#
#   make                 build ./adaptrm
#   make check           unit tests (plain, ASan+UBSan, TSan engine) and end-to-end tests
#   make soak-ranks SEEDS=N  the ranks' protocol under N seeds of its simulation
#   make bench           benchmark against GNU rm, rmz, find -delete, rsync
#   make install         PREFIX=/usr/local DESTDIR= (stripped; INSTALL_STRIP=0 keeps debug info)
#   make SAN=asan|tsan   sanitizer build in its own output directory
#
#   make lint            format, shellcheck, header, layer, loop and static-analyzer checks
#   make compdb          compile_commands.json for editors and clang tools
#
# Every user/**/*.c is part of adaptrm (objects mirror the folders under
# $(OUTPUT)/); every bpf/*.bpf.c becomes a skeleton header that the probe
# library includes; every tests/unit/test_*.c is a Criterion binary.

PREFIX    ?= /usr/local
DESTDIR   ?=
BINDIR    := $(PREFIX)/bin
MANDIR    := $(PREFIX)/share/man/man1
COMPDIR   := $(PREFIX)/share/bash-completion/completions
# make install strips the binaries; packaging (debian/rules) sets INSTALL_STRIP=0 and strips
# them itself, keeping the debug info in a -dbgsym package.
INSTALL_STRIP ?= 1
STRIP     ?= strip
INSTALL_BIN := install -m 0755 $(if $(filter 1,$(INSTALL_STRIP)),-s --strip-program=$(STRIP))

CC        ?= cc
CLANG     ?= clang
BPFTOOL   ?= $(shell command -v bpftool 2>/dev/null || echo /usr/sbin/bpftool)
HOST_ARCH := $(shell uname -m | sed -e 's/x86_64/x86/' -e 's/aarch64/arm64/')
ARCH      ?= $(HOST_ARCH)
PKG_CONFIG ?= pkg-config
VMLINUX   := vmlinux/$(ARCH)

SAN       ?=
ifeq ($(wildcard $(VMLINUX)/vmlinux.h),)
$(error Architecture $(ARCH) is not supported yet: no $(VMLINUX)/vmlinux.h)
endif

ifeq ($(SAN),)
OUTPUT    := .output
BIN       := adaptrm
SANFLAGS  :=
else ifeq ($(SAN),asan)
OUTPUT    := .output-asan
BIN       := $(OUTPUT)/adaptrm
SANFLAGS  := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
else ifeq ($(SAN),tsan)
OUTPUT    := .output-tsan
BIN       := $(OUTPUT)/adaptrm
SANFLAGS  := -fsanitize=thread
else
$(error SAN must be empty, asan or tsan)
endif
# make ARCH=arm64 elsewhere: a cross build in .output-arm64 (scripts/cross.mk).
ifneq ($(ARCH),$(HOST_ARCH))
include scripts/cross.mk
endif

CFLAGS    ?= -O2 -g
override CFLAGS += -std=gnu11 -Wall -Wextra -Werror -Wno-unused-parameter \
                   -D_GNU_SOURCE -pthread $(SANFLAGS) -I$(OUTPUT) -Iuser
LDFLAGS   += -pthread $(SANFLAGS)
LDLIBS    := $(shell $(PKG_CONFIG) --libs libbpf 2>/dev/null || echo -lbpf) -lelf -lz -lm \
             $(shell $(PKG_CONFIG) --libs json-c libseccomp 2>/dev/null || echo -ljson-c -lseccomp)

# clang -target bpf hides the host's include dirs; hand them back (libbpf-bootstrap idiom).
CLANG_BPF_SYS_INCLUDES := $(shell $(CLANG) $(CLANG_SYS_TARGET) -v -E - </dev/null 2>&1 \
	| sed -n '/<...> search starts here:/,/End of search list./{ s| \(/.*\)|-idirafter \1|p }')
BPFCFLAGS := -g -O2 -Wall -Werror -target bpf -D__TARGET_ARCH_$(ARCH) -I$(VMLINUX) -Ibpf

BPF_SRCS  := $(wildcard bpf/*.bpf.c)
SKELS     := $(patsubst bpf/%.bpf.c,$(OUTPUT)/%.skel.h,$(BPF_SRCS))
# user/mpi/ is adaptrm-mpi's own (MPI's headers): built where Open MPI is.
MPI_SRCS  := $(wildcard user/mpi/*.c)
USER_SRCS := $(filter-out $(MPI_SRCS),$(wildcard user/*.c user/*/*.c))
USER_OBJS := $(patsubst user/%.c,$(OUTPUT)/%.o,$(USER_SRCS))
LIB_OBJS  := $(filter-out $(OUTPUT)/main.o,$(USER_OBJS))
MPICC     ?= $(shell command -v mpicc 2>/dev/null)
MPI_OBJS  := $(patsubst user/%.c,$(OUTPUT)/%.o,$(MPI_SRCS))
MPI_BIN   :=
ifneq ($(MPICC),)
ifeq ($(SAN),)
MPI_BIN   := adaptrm-mpi
MPI_CFLAGS := $(shell $(MPICC) --showme:compile 2>/dev/null || $(MPICC) -show -c 2>/dev/null | cut -d' ' -f2-)
MPI_LIBS  := $(shell $(MPICC) --showme:link 2>/dev/null || $(MPICC) -link_info 2>/dev/null | cut -d' ' -f2-)
endif
endif
# Only the probe library includes the generated skeletons.
SKEL_USERS := $(addprefix $(OUTPUT)/probes/,probes.o snapshot.o stacks.o ksym_bpf.o)
TEST_SRCS := $(wildcard tests/unit/test_*.c)
TEST_CFLAGS := $(CROSS_TEST_CFLAGS)
TEST_LIBS := $(if $(CROSS_TEST_CFLAGS),,-lcriterion)
ifeq ($(SAN),tsan)
# Criterion's runner cannot start under TSan (tests/unit/support/criterion_lite.h):
# the TSan build has the threaded engine tests and the ranks' simulation only,
# on a plain runner.
TEST_SRCS := $(wildcard tests/unit/test_engine*.c) tests/unit/test_ranks_sim.c
TEST_CFLAGS := -DCRITERION_LITE
TEST_LIBS :=
endif
TEST_BINS := $(patsubst tests/unit/%.c,$(OUTPUT)/tests/%,$(TEST_SRCS))

ifeq ($(V),1)
Q =
msg =
else
Q = @
msg = @printf '  %-8s %s\n' "$(1)" "$(2)";
endif

.PHONY: all clean check check-arm64 unit e2e bench install uninstall tools lint compdb soak-ranks
.DELETE_ON_ERROR:
.SECONDARY:

all: $(BIN) $(MPI_BIN)

$(OUTPUT) $(OUTPUT)/tests:
	$(Q)mkdir -p $@

# BPF: compile, "link" with bpftool (strips DWARF, keeps BTF), generate the skeleton.
$(OUTPUT)/%.bpf.o: bpf/%.bpf.c $(wildcard bpf/*.h) $(wildcard user/probes/*_shared.h) | $(OUTPUT)
	$(call msg,BPF,$@)
	$(Q)$(CLANG) $(BPFCFLAGS) -Iuser $(CLANG_BPF_SYS_INCLUDES) -c $< -o $(@:.bpf.o=.tmp.bpf.o)
	$(Q)$(BPFTOOL) gen object $@ $(@:.bpf.o=.tmp.bpf.o)

$(OUTPUT)/%.skel.h: $(OUTPUT)/%.bpf.o
	$(call msg,GEN-SKEL,$@)
	$(Q)$(BPFTOOL) gen skeleton $< name $(subst -,_,$*)_bpf > $@

# -MMD -MP: each object depends on the headers it includes, no more.
$(OUTPUT)/%.o: user/%.c | $(OUTPUT)
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) -MMD -MP -c $< -o $@

$(SKEL_USERS): $(SKELS)

$(BIN): $(USER_OBJS)
	$(call msg,LINK,$@)
	$(Q)$(CC) $(LDFLAGS) $^ $(LDLIBS) -o $@

# adaptrm-mpi: the same library, one rank per node (docs/design.md#scale-out).
$(MPI_OBJS): override CFLAGS += $(MPI_CFLAGS)
adaptrm-mpi: $(LIB_OBJS) $(MPI_OBJS)
	$(call msg,LINK,$@)
	$(Q)$(CC) $(LDFLAGS) $^ $(LDLIBS) $(MPI_LIBS) -o $@

$(OUTPUT)/tests/%: tests/unit/%.c $(LIB_OBJS) | $(OUTPUT)/tests
	$(call msg,TEST-CC,$@)
	$(Q)$(CC) $(CFLAGS) $(TEST_CFLAGS) -MMD -MP -Itests/unit $< $(LIB_OBJS) $(LDFLAGS) $(LDLIBS) $(TEST_LIBS) -o $@

-include $(USER_OBJS:.o=.d) $(MPI_OBJS:.o=.d) $(TEST_BINS:=.d)

tests: $(TEST_BINS)

# Test helpers the end-to-end tests and the benchmark use (the slow FUSE filesystem).
tools: $(patsubst tests/tools/%.c,$(OUTPUT)/tools/%,$(wildcard tests/tools/*.c))

$(OUTPUT)/tools/%: tests/tools/%.c
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) $$(pkg-config --cflags fuse3 2>/dev/null) $< -o $@ \
		$$(pkg-config --libs fuse3 2>/dev/null) -pthread

# Unit tests of this build (make unit SAN=asan for the sanitizer variant).
# A binary that hangs all the same (a test without a timeout) is killed, named.
UNIT_TIMEOUT ?= 1200
unit: $(TEST_BINS)
	$(Q)set -e; for t in $(filter-out $(UNIT_SKIP),$(TEST_BINS)); do echo "== $$t"; timeout -k 10 $(UNIT_TIMEOUT) $(TEST_RUN) $$t --jobs=1 || \
		{ echo "== $$t: failed, status $$? (124: ran over $(UNIT_TIMEOUT) s)"; exit 1; }; done
	$(Q)for t in $(UNIT_SKIP); do echo "== $$t: skipped ($(UNIT_SKIP_WHY))"; done

# The ranks' protocol under the seeded simulation for longer than make
# check's share: SEEDS seeds from FIRST (tests/unit/test_ranks_sim.c).
SEEDS ?= 100000
FIRST ?= 1
soak-ranks: $(OUTPUT)/tests/test_ranks_sim
	$(Q)ADAPTRM_SIM_SEEDS=$(SEEDS) ADAPTRM_SIM_FIRST=$(FIRST) $(TEST_RUN) $< --jobs=1 --filter 'sim/seeded*'

# The arm64 cross build and its unit tests under qemu-user (CI). qemu-user
# cannot load BPF programs into the host's kernel, so the probes' tests skip
# there even where CI requires BPF of the native run.
# The rank protocol's simulation is the same on every architecture: under
# qemu, which runs it many times slower, a sample of its seeds.
check-arm64:
	$(Q)env -u ADAPTRM_REQUIRE_BPF ADAPTRM_SIM_SEEDS=$${ADAPTRM_SIM_SEEDS:-300} \
		$(MAKE) --no-print-directory ARCH=arm64 all unit
	$(Q)d=$$(mktemp -d) && mkdir -p $$d/t/a/b && touch $$d/t/a/b/f $$d/t/g && \
		qemu-aarch64-static .output-arm64/adaptrm -rf $$d/t && [ ! -e $$d/t ]; rc=$$?; rm -rf $$d; \
		[ $$rc = 0 ] && echo "arm64 adaptrm under qemu-user: a tree deleted" || \
		{ echo "arm64 adaptrm under qemu-user: the tree was not deleted"; exit 1; }

e2e: $(BIN) tools
	$(Q)ADAPTRM=$(abspath $(BIN)) TOOLS=$(abspath $(OUTPUT)/tools) bash tests/e2e/run.sh

# The whole suite: plain unit + e2e, then unit + e2e under ASan+UBSan, then the
# threaded engine under TSan.
check:
	$(Q)bash scripts/check.sh

bench: all tools
	$(Q)bash scripts/bench/bench.sh

# The objects too: the circles check reads their symbols (nm).
lint: $(SKELS) $(USER_OBJS) $(if $(MPI_BIN),$(MPI_OBJS))
	$(Q)OUTPUT=$(OUTPUT) bash scripts/lint.sh

# compile_commands.json: one entry per user/ source, with this build's flags.
compdb: $(SKELS)
	$(call msg,GEN,compile_commands.json)
	$(Q){ echo '['; sep=''; for f in $(USER_SRCS) $(wildcard tests/unit/test_*.c); do \
		printf '%s{"directory":"%s","file":"%s","command":"%s %s -Itests/unit -c %s"}\n' \
			"$$sep" "$(CURDIR)" "$$f" "$(CC)" "$(CFLAGS)" "$$f"; sep=','; \
	done; echo ']'; } > compile_commands.json

install: all
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR) $(DESTDIR)$(COMPDIR)
	$(INSTALL_BIN) adaptrm $(DESTDIR)$(BINDIR)/adaptrm
	[ ! -f adaptrm-mpi ] || $(INSTALL_BIN) adaptrm-mpi $(DESTDIR)$(BINDIR)/adaptrm-mpi
	[ ! -f docs/adaptrm.1 ] || install -m 0644 docs/adaptrm.1 $(DESTDIR)$(MANDIR)/adaptrm.1
	[ ! -f adaptrm-mpi ] || install -m 0644 docs/adaptrm-mpi.1 $(DESTDIR)$(MANDIR)/adaptrm-mpi.1
	[ ! -f docs/adaptrm.bash-completion ] || \
		install -m 0644 docs/adaptrm.bash-completion $(DESTDIR)$(COMPDIR)/adaptrm
# bash-completion loads a command's completion by its name: adaptrm-mpi's is the same file
	[ ! -f adaptrm-mpi ] || ln -sf adaptrm $(DESTDIR)$(COMPDIR)/adaptrm-mpi

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/adaptrm $(DESTDIR)$(BINDIR)/adaptrm-mpi $(DESTDIR)$(MANDIR)/adaptrm.1 $(DESTDIR)$(COMPDIR)/adaptrm \
		$(DESTDIR)$(COMPDIR)/adaptrm-mpi $(DESTDIR)$(MANDIR)/adaptrm-mpi.1

clean:
	rm -rf .output .output-asan .output-tsan .output-arm64 adaptrm adaptrm-mpi compile_commands.json
