# SPDX-License-Identifier: GPL-2.0-only
# 9P2000.L server: wire codec, fid table, ops by family, locks
LIB_SRCS += fs/9p/p9_wire.c fs/9p/p9_server.c fs/9p/p9_fid.c fs/9p/p9_walk.c fs/9p/p9_attr.c fs/9p/p9_io.c \
            fs/9p/p9_dir.c fs/9p/p9_xattr.c fs/9p/p9_lock.c fs/9p/p9_trace.c
UNIT_TESTS += test_p9wire test_p9 test_p9ops test_p9xattr test_p9lock test_p9fuzz test_p9_limits
