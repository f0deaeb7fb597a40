# SPDX-License-Identifier: GPL-2.0-only
# Transports other than virtio-mmio, each handing requests to a server in fs/:
# fuse-mount (/dev/fuse, FUSE over io_uring) and 9p-serve (a stream socket).
LIB_SRCS += transport/fuse_mount.c transport/fuse_mountpoint.c transport/fuse_uring.c transport/p9_serve.c
LIB_SRCS += transport/p9_conn.c
# The vhost-user backend (stainless vhost-user-fs): message layer, memory
# table, rings, device state, the command line and the command itself.
LIB_SRCS += transport/vhost_user.c transport/vhost_user_mem.c transport/vhost_user_ring.c \
            transport/vhost_user_dev.c transport/vhost_user_cli.c transport/vhost_user_opts.c \
            transport/vhost_user_fs.c \
            transport/unix_listen.c
UNIT_TESTS += test_vhost_user test_vhost_user_dev test_vhost_user_cli test_vu_efd
