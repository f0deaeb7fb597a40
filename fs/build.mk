# SPDX-License-Identifier: GPL-2.0-only
LIB_SRCS += fs/fs_fdbudget.c fs/fs_keeper.c fs/fs_options.c fs/fs_wait.c fs/fs_xattr.c fs/resolve.c fs/fuse_mount.c fs/fuse_handover.c \
            fs/p9_serve.c
# 9P2000.L server (wire codec, ops by family, socket front end)
LIB_SRCS += fs/p9_wire.c fs/p9_server.c fs/p9_fid.c fs/p9_walk.c fs/p9_io.c \
            fs/p9_dir.c fs/p9_xattr.c fs/p9_lock.c
# FUSE passthrough server (dispatch, tables, ops by family, locks) and fuse-mount
LIB_SRCS += fs/fuse_uring.c fs/fuse_server.c fs/fuse_inode.c fs/fuse_handle.c fs/fuse_ops_entry.c fs/fuse_ops_create.c \
            fs/fuse_ops_file.c fs/fuse_ops_rw.c fs/fuse_ops_dir.c \
            fs/fuse_lock.c
UNIT_TESTS += test_fs_xattr test_p9wire test_p9 test_p9ops test_p9xattr test_p9lock test_p9fuzz \
              test_p9_limits
UNIT_TESTS += test_fuse test_fuse_dir test_fuse_xattr test_fuse_lock test_fuse_bad test_fuse_handover \
              test_fuse_fds test_fuse_hostile
BENCHES += p9_load
