# SPDX-License-Identifier: GPL-2.0-only
# Transports other than virtio-mmio, each handing requests to a server in fs/:
# fuse-mount (/dev/fuse, FUSE over io_uring) and 9p-serve (a stream socket).
LIB_SRCS += transport/fuse_mount.c transport/fuse_uring.c transport/fuse_handover.c \
            transport/fs_keeper.c transport/fs_wait.c transport/p9_serve.c
UNIT_TESTS += test_fuse_handover
