# SPDX-License-Identifier: GPL-2.0-only
# base/: the bottom floor, which every other may include and which
# includes none: thread roles (each thread's seccomp filter installed
# through here), per-thread credentials and capability limits, restricted
# io_uring rings, and the one error line of set-up code.
LIB_SRCS += base/thread.c base/creds.c base/uring.c base/fail.c base/exit.c base/fds.c
UNIT_TESTS += test_uring test_exit
