# SPDX-License-Identifier: GPL-2.0-only
# Transports other than virtio-mmio, each carrying a server's requests in
# and its replies out: fuse-mount's (/dev/fuse, FUSE over io_uring),
# 9p-serve's (a stream socket) and the vhost-user backend's (message
# layer, memory table, rings, device state). The commands are in cmd/.
LIB_SRCS += transport/fuse_mount.c transport/fuse_mountpoint.c transport/fuse_mount_opts.c transport/fuse_uring.c transport/p9_serve.c \
            transport/fuse_registrar.c
LIB_SRCS += transport/p9_conn.c
LIB_SRCS += transport/vhost_user.c transport/vhost_user_mem.c transport/vhost_user_ring.c \
            transport/vhost_user_dev.c transport/vhost_user_shmem.c \
            transport/unix_listen.c
UNIT_TESTS += test_vhost_user test_vhost_user_dev test_vu_efd test_vhost_user_shmem
