# SPDX-License-Identifier: GPL-2.0-only
# What both protocol servers share: share options, name resolution beneath
# the share, the xattr policy, the process fd budget, fair shares, parked
# waits and the NOWAIT-then-io_uring I/O ladder.
LIB_SRCS += fs/fs_fdbudget.c fs/fs_fair.c fs/fs_options.c fs/fs_park.c \
            fs/fs_io.c fs/fs_xattr.c fs/resolve.c fs/fs_inside.c fs/fs_log.c
UNIT_TESTS += test_fs_xattr test_fs_park test_fs_fair
include fs/fuse/build.mk fs/9p/build.mk
