# SPDX-License-Identifier: GPL-2.0-only
# cmd/: each command put together -- its command line read, the sandbox
# entered, the pieces of the floors below composed and run (cmd/main.c,
# the dispatch, is linked only into the binary).
LIB_SRCS += cmd/opt_table.c cmd/opt_doc.c cmd/opt_common.c cmd/help.c cmd/mount_helper.c \
            cmd/run_table.c cmd/vhost_user_table.c cmd/p9_serve_cli.c cmd/fuse_mount_cli.c \
            cmd/run.c cmd/run_cli.c cmd/fuse_mount.c cmd/p9_serve.c \
            cmd/vhost_user_fs.c cmd/vhost_user_cli.c cmd/vhost_user_opts.c
UNIT_TESTS += test_opt_table test_cli test_cli_shares test_vhost_user_cli
