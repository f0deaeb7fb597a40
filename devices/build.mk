# SPDX-License-Identifier: GPL-2.0-only
LIB_SRCS += devices/gmem.c devices/vq.c devices/worker.c devices/virtio_rng.c \
            devices/virtio_fs.c devices/virtio_9p.c devices/dax.c \
            devices/virtio_vsock.c devices/vsock_conn.c devices/vsock_mux.c \
            devices/vsock_host.c
UNIT_TESTS += test_vq
UNIT_TESTS += test_rng test_share_dev test_dax test_fs_mq_rings
UNIT_TESTS += test_vsock test_vsock_host
BENCHES += vq_bench
