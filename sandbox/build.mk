# SPDX-License-Identifier: GPL-2.0-only
# Everything that confines a command (with the primitives in base/): the
# namespaces and the new root, the supervisor, credentials, user-namespace
# id maps, and the seccomp policy of every thread role and its filters.
LIB_SRCS += sandbox/sandbox.c sandbox/sandbox_opts.c sandbox/sandbox_root.c \
            sandbox/sandbox_creds.c sandbox/sandbox_idmap.c \
            sandbox/seccomp.c sandbox/seccomp_policy.c
UNIT_TESTS += test_seccomp
