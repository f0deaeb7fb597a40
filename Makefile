# SPDX-License-Identifier: GPL-2.0-only
#
# stainless build. Each source folder lists its own files in a build.mk
# fragment (explicit lists, no wildcards) so folders can grow independently.
#   make            build build/stainless
#   make check      unit tests, host tests, e2e tests, bench-quick (tests/run-all)
#   make bench      every benchmark in turn, then docs/benchmarks/RESULTS.md
#                   (bench/suite, bench/report); make bench-NAME runs one
#   make bench-quick every benchmark in a smoke mode of seconds (BENCH_QUICK=1)
#   make demo       boot a microVM sharing a host folder
#   make deps       install the Debian packages everything needs (scripts/deps)
#   make fuzz       each libFuzzer target FUZZ_SECONDS (60) from its corpus
#   make fuzz-smoke each target a few seconds (part of make check)
#   make install    PREFIX (/usr/local) and DESTDIR; make uninstall (dist/install.mk)
#   make guest-kernel  the guest kernel stainless exec boots (build/guest/bzImage)
#   SANITIZE=1      ASan+UBSan build      TSAN=1   ThreadSanitizer build
#   V=1             show the commands

VERSION := 0.1.0
CC      ?= cc
O       ?= build
# libfdt joins when a device tree is generated (Debian's libfdt-dev ships
# no pkg-config file, so it will be linked as -lfdt).
PKGS    := liburing libseccomp

WARN    := -Wall -Wextra -Werror -Wshadow -Wpointer-arith -Wcast-align \
           -Wstrict-prototypes -Wmissing-prototypes -Wformat=2 -Wvla \
           -Wimplicit-fallthrough -Wundef -Wno-unused-parameter
CFLAGS  ?= -O2 -g
CFLAGS  += -std=gnu11 $(WARN) -D_GNU_SOURCE -DSTAINLESS_VERSION=\"$(VERSION)\" \
           -I. -MMD -MP -fno-strict-aliasing
ifeq ($(filter clean deps check demo fuzz-smoke,$(MAKECMDGOALS)),)
  ifneq ($(shell pkg-config --exists $(PKGS) check && echo ok),ok)
    $(error missing libraries ($(PKGS) check): run 'make deps' first)
  endif
endif
CFLAGS  += $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
LDLIBS  += $(shell pkg-config --libs $(PKGS) 2>/dev/null) -lpthread
CHECK_CFLAGS := $(shell pkg-config --cflags check 2>/dev/null)
CHECK_LIBS   := $(shell pkg-config --libs check 2>/dev/null)

ifeq ($(SANITIZE),1)
  O := build-asan
  CFLAGS  += -O1 -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
  LDFLAGS += -fsanitize=address,undefined
endif
ifeq ($(TSAN),1)
  O := build-tsan
  CFLAGS  += -O1 -fsanitize=thread -fno-omit-frame-pointer
  LDFLAGS += -fsanitize=thread
endif

ifneq ($(V),1)
  Q := @
  quiet = @printf '  %-6s %s\n' $(1) $(2);
endif

# Fragments append to LIB_SRCS (linked into the binary and every test),
# UNIT_TESTS (tests/unit/NAME.c, one Check program each) and BENCHES
# (bench/NAME.c, programs that print figures).
# Fragments may define rules (cmd/build.mk: exec's guest init): a bare make is still all.
.DEFAULT_GOAL := all
LIB_SRCS   :=
EXTRA_LIB_OBJS :=
UNIT_TESTS :=
BENCHES    :=
FUZZ_TARGETS  :=
FUZZ_LIB_SRCS :=
include cmd/build.mk cmd/api.mk vmm/build.mk mmio/build.mk transport/build.mk devices/build.mk sandbox/build.mk fs/build.mk base/build.mk \
        bench/build.mk
include tests/fuzz/build.mk

LIB_OBJS   := $(LIB_SRCS:%.c=$(O)/%.o) $(EXTRA_LIB_OBJS)
MAIN_OBJ   := $(O)/cmd/main.o
UNIT_BINS  := $(UNIT_TESTS:%=$(O)/tests/unit/%)
BENCH_BINS := $(BENCHES:%=$(O)/bench/%)

.PHONY: fuzz fuzz-build fuzz-smoke fuzz-seeds
.PHONY: all check check-run unit host e2e demo demo-run deps clean bench bench-boot bench-stability bench-vq bench-fuse bench-9p bench-vhost bench-vhost-mq bench-guest bench-vsock bench-exec \
        bench-sandbox bench-dax bench-realwork bench-build bench-quick bench-report bench-fuse-passthrough
all: $(O)/stainless

# After all: so that a bare make builds, never installs.
include dist/install.mk
include dist/crun/crun.mk

$(O)/%.o: %.c
	@mkdir -p $(dir $@)
	$(call quiet,CC,$<)$(CC) $(CPPFLAGS) $(CFLAGS) -c -o $@ $<

$(O)/tests/unit/%.o: tests/unit/%.c
	@mkdir -p $(dir $@)
	$(call quiet,CC,$<)$(CC) $(CPPFLAGS) $(CFLAGS) $(CHECK_CFLAGS) -c -o $@ $<

$(O)/libstainless.a: $(LIB_OBJS)
	$(call quiet,AR,$@)rm -f $@ && ar rcs $@ $^

$(O)/stainless: $(MAIN_OBJ) $(O)/libstainless.a
	$(call quiet,LD,$@)$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

$(O)/tests/unit/%: $(O)/tests/unit/%.o $(O)/libstainless.a
	$(call quiet,LD,$@)$(CC) $(LDFLAGS) -o $@ $^ $(CHECK_LIBS) $(LDLIBS)

$(O)/bench/%: $(O)/bench/%.o $(O)/libstainless.a
	$(call quiet,LD,$@)$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)
$(O)/bench/vu_load: $(VU_FRONTEND_SRCS:%.c=$(O)/%.o)
$(O)/bench/vu_load $(O)/bench/p9_load: $(O)/bench/proc_tree.o

# Host-tier programs that link the library (tests/host/*.sh run them).
HOST_BINS := $(O)/tests/host/sandbox_escape $(O)/tests/host/fuse_registrar_probe
$(O)/tests/host/%: $(O)/tests/host/%.o $(O)/libstainless.a
	$(call quiet,LD,$@)$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

unit: $(UNIT_BINS)
	$(Q)O=$(O) tests/run-unit $(UNIT_BINS)

# The whole suite: unit, host (real kernel FUSE client, diod's tools) and
# e2e (real guests, directly on KVM or in the nested test host). `check`
# and `demo` first install the missing Debian packages they need (the demo
# adds QEMU only where /dev/kvm cannot boot Linux), then build.
check:
	$(Q)scripts/deps bench
	$(Q)$(MAKE) --no-print-directory check-run

check-run: all $(UNIT_BINS) $(BENCH_BINS) $(HOST_BINS)
	$(Q)O=$(O) tests/run-all $(UNIT_BINS)

host: all $(HOST_BINS)
	$(Q)O=$(O) tests/run-host

e2e: all
	$(Q)O=$(O) tests/e2e/run

demo:
	$(Q)scripts/deps build
	$(Q)$(MAKE) --no-print-directory demo-run

demo-run: all
	$(Q)O=$(O) scripts/demo

deps:
	$(Q)scripts/deps

# The guest kernel `stainless exec` boots without --kernel (guest-images/,
# cached: minutes the first time, then instant); make install installs it.
.PHONY: guest-kernel
guest-kernel:
	$(Q)mkdir -p $(O)/guest && k=$$(guest-images/build-kernel) && cp "$$k" $(O)/guest/bzImage.tmp && \
		mv $(O)/guest/bzImage.tmp $(O)/guest/bzImage && echo "  KERNEL $(O)/guest/bzImage"


bench-build: $(BENCH_BINS)

# The suite: every family below in turn (ROUNDS=N for all of them), then
# the report from docs/benchmarks/raw/ (bench/suite says which ran).
bench: all $(BENCH_BINS)
	$(Q)O=$(O) bench/suite

# Each family's smoke mode (seconds; the nested ones boot one test host
# each), its figures into /tmp/stainless-bench-quick, never reported.
bench-quick: all $(BENCH_BINS)
	$(Q)O=$(O) BENCH_QUICK=1 bench/suite

# RESULTS.md, plots and the README's headline table from the raw results.
bench-report:
	$(Q)sh bench/report

# The fd-bound walks at full size (make check walks 100,000 names): a
# million names at 4,096 fds on tmpfs, on overlayfs and as nobody.
.PHONY: many-files
many-files: all
	$(Q)for t in fuse_many_files fuse_many_overlay fuse_many_rootless; do \
		echo "== $$t"; FUSE_MANY_DIRS=1000 STAINLESS=$(CURDIR)/$(O)/stainless sh tests/host/$$t.sh || exit 1; \
	done

# Start-up cost beside QEMU microvm (nested test host where needed).
bench-boot: all $(O)/bench/bootmeter
	$(Q)O=$(O) bench/boot.sh

# Virtqueue + worker floor: empty requests through the fake driver.
bench-vq: $(O)/bench/vq_bench
	$(Q)O=$(O) sh bench/vq.sh

# Host FUSE backends side by side (stainless fuse-mount, passthrough_hp, tmpfs).
bench-fuse: $(O)/stainless $(O)/bench/fuse_meta
	$(Q)O=$(O) bench/fuse_bench.sh

# fuse-mount --passthrough beside tmpfs and passthrough_hp (bench/fuse_passthrough_bench.sh).
bench-fuse-passthrough: $(O)/stainless
	$(Q)O=$(O) bench/fuse_passthrough_bench.sh

# 9p servers side by side (stainless 9p-serve, diod) under bench/p9_load.
bench-9p: $(O)/stainless $(O)/bench/p9_load
	$(Q)O=$(O) bench/p9_bench.sh

# virtio-vsock streams and round trips beside a Unix socket pair (nested).
bench-vsock: $(O)/stainless
	$(Q)O=$(O) bench/vsock_bench.sh

# stainless exec: start to the command's first output and memory, beside
# QEMU microvm doing the same (nested test host where needed).
bench-exec: $(O)/stainless
	$(Q)O=$(O) bench/exec_bench.sh

# vhost-user-fs backends side by side (stainless vhost-user-fs, QEMU's C
# virtiofsd with a pool of 64 and with none) under bench/vu_load.
bench-vhost: $(O)/stainless $(O)/bench/vu_load
	$(Q)O=$(O) bench/vhost_bench.sh

# The process sandbox's cost: with vs without, interleaved (issue 14).
bench-sandbox: all $(O)/bench/fuse_meta $(O)/bench/p9_load
	$(Q)O=$(O) bench/sandbox_bench.sh

# One and two request queues of stainless vhost-user-fs (a frontend thread
# per queue, the same total depth) beside the C virtiofsd's one.
bench-vhost-mq: $(O)/stainless $(O)/bench/vu_load
	$(Q)O=$(O) bench/vhost_mq.sh

# In-guest fio over virtio-fs, DAX and 9p beside QEMU microvm's 9p and
# virtiofsd (nested test host where needed).
bench-guest: all
	$(Q)O=$(O) bench/guest.sh

# DAX per file: a small-file walk and a large read under dax=always,
# dax=inode and no window, and the host memory of 4 guests reading the
# same files with and without DAX (nested test host where needed).
bench-dax: all
	$(Q)O=$(O) bench/dax_bench.sh

# How often a nested guest dies, stainless beside QEMU microvm booting the
# same guest and share battery, quiet and loaded (issue 23).
bench-stability: all
	$(Q)O=$(O) bench/stability.sh

# Whole jobs (untar, find, du, grep, git status, rm, make) on a share: host
# FUSE backends side by side, then in guests (BENCH_QUICK=1: seconds, host).
bench-realwork: all
	$(Q)O=$(O) bench/realwork.sh

# libFuzzer targets: clang, coverage + ASan + UBSan on the product code
# too, in their own folder so nothing mixes with the gcc objects. `fuzz`
# grows a scratch corpus in build-fuzz/corpus/ (seed it back into
# tests/fuzz/corpus/ by hand when an input is worth keeping); crashes land
# in build-fuzz/artifacts/.
FUZZ_CC      ?= clang
FUZZ_O       := build-fuzz
FUZZ_SECONDS ?= 60
FUZZ_SAN     := -fsanitize=address,undefined -fno-sanitize-recover=undefined \
                -fno-omit-frame-pointer
# clang's -Wcast-align warns about casts that gcc's (and x86) accept.
FUZZ_CFLAGS  := -O1 -g $(filter-out -O2 -g,$(CFLAGS)) -Wno-cast-align $(FUZZ_SAN)
FUZZ_OBJS    := $(FUZZ_LIB_SRCS:%.c=$(FUZZ_O)/%.o)
FUZZ_BINS    := $(FUZZ_TARGETS:%=$(FUZZ_O)/%)

$(FUZZ_O)/tests/fuzz/%.o: tests/fuzz/%.c
	@mkdir -p $(dir $@)
	$(call quiet,FUZZCC,$<)$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link -c -o $@ $<

$(FUZZ_O)/%.o: %.c
	@mkdir -p $(dir $@)
	$(call quiet,FUZZCC,$<)$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link -c -o $@ $<

$(FUZZ_O)/libstainless-fuzz.a: $(FUZZ_OBJS)
	$(call quiet,AR,$@)rm -f $@ && ar rcs $@ $^

$(FUZZ_O)/fuzz_%: $(FUZZ_O)/tests/fuzz/fuzz_%.o $(FUZZ_O)/libstainless-fuzz.a
	$(call quiet,LD,$@)$(FUZZ_CC) $(FUZZ_SAN) -fsanitize=fuzzer -o $@ $^ $(LDLIBS)

# Keep the objects: the link rule would otherwise delete them as intermediates.
.SECONDARY: $(FUZZ_TARGETS:%=$(FUZZ_O)/tests/fuzz/%.o)

fuzz-build: $(FUZZ_BINS)

fuzz: $(FUZZ_BINS)
	$(Q)for t in $(FUZZ_TARGETS); do \
		mkdir -p $(FUZZ_O)/corpus/$$t $(FUZZ_O)/artifacts && \
		$(FUZZ_O)/$$t -max_total_time=$(FUZZ_SECONDS) -print_final_stats=1 \
			-artifact_prefix=$(FUZZ_O)/artifacts/$$t- \
			$(FUZZ_O)/corpus/$$t tests/fuzz/corpus/$$t || exit 1; \
	done

# Rewrites tests/fuzz/corpus/ (after changing a target's input format).
fuzz-seeds: $(O)/tests/fuzz/make_seeds
	$(Q)rm -rf tests/fuzz/corpus && $(O)/tests/fuzz/make_seeds tests/fuzz/corpus

$(O)/tests/fuzz/make_seeds: $(O)/tests/fuzz/make_seeds.o
	$(call quiet,LD,$@)$(CC) $(LDFLAGS) -o $@ $^

# A few seconds each from the checked-in corpus; tests/run-fuzz builds
# the targets (or says SKIP without clang) and prints PASS/FAIL lines.
fuzz-smoke:
	$(Q)tests/run-fuzz

clean:
	rm -rf build build-asan build-tsan build-fuzz

-include $(shell find $(O) $(FUZZ_O) -name '*.d' 2>/dev/null)
