# SPDX-License-Identifier: GPL-2.0-only
# FUSE passthrough server: dispatch, inode and handle tables, ops by family, locks
LIB_SRCS += fs/fuse/fuse_server.c fs/fuse/fuse_reply.c fs/fuse/fuse_inode.c fs/fuse/fuse_inode_name.c fs/fuse/fuse_handle.c fs/fuse/fuse_slots.c \
            fs/fuse/fuse_ops_entry.c fs/fuse/fuse_ops_create.c fs/fuse/fuse_ops_file.c \
            fs/fuse/fuse_ops_rw.c fs/fuse/fuse_ops_dir.c fs/fuse/fuse_lock.c fs/fuse/fuse_trace.c \
            fs/fuse/fuse_passthrough.c fs/fuse/fuse_watch.c fs/fuse/fuse_timed.c fs/fuse/fuse_timed_dev.c fs/fuse/fuse_timed_pool.c fs/fuse/fuse_timed_watch.c \
            fs/fuse/fuse_hub.c fs/fuse/fuse_hub_root.c fs/fuse/fuse_hub_share.c \
            fs/fuse/fuse_dax_policy.c
UNIT_TESTS += test_fuse test_fuse_dir test_fuse_xattr test_fuse_lock test_fuse_bad \
              test_fuse_fds test_fuse_hostile test_fuse_proto test_fuse_mq test_fuse_passthrough \
              test_fuse_watch test_fuse_hub test_fuse_dax
