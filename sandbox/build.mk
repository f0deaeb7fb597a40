# SPDX-License-Identifier: GPL-2.0-only
# The process sandbox of every command that serves a share: namespaces and
# the new root, the supervisor, credentials, user-namespace id maps.
LIB_SRCS += sandbox/sandbox.c sandbox/sandbox_opts.c sandbox/sandbox_root.c \
            sandbox/sandbox_creds.c sandbox/sandbox_idmap.c

