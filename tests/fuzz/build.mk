# SPDX-License-Identifier: GPL-2.0-only
# libFuzzer targets (tests/fuzz/NAME.c, one program each), built by clang
# into build-fuzz/ with the product sources they reach (FUZZ_LIB_SRCS).
# The vhost-user message parser gets its target when the parser lands.
FUZZ_TARGETS  += fuzz_fuse fuzz_p9 fuzz_vq
FUZZ_LIB_SRCS += $(filter fs/%,$(LIB_SRCS)) devices/gmem.c devices/vq.c
