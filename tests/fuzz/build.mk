# SPDX-License-Identifier: GPL-2.0-only
# libFuzzer targets (tests/fuzz/NAME.c, one program each), built by clang
# into build-fuzz/ with the product sources they reach (FUZZ_LIB_SRCS).
FUZZ_TARGETS  += fuzz_fuse fuzz_p9 fuzz_vq fuzz_vhost_user fuzz_api fuzz_vsock fuzz_exec
FUZZ_LIB_SRCS += $(filter fs/% base/%,$(LIB_SRCS)) devices/gmem.c devices/vq.c devices/worker.c \
                 transport/vhost_user.c transport/vhost_user_mem.c transport/vhost_user_ring.c \
                 transport/vhost_user_dev.c transport/vhost_user_shmem.c cmd/json.c cmd/http.c \
                 cmd/api_res.c cmd/api_model.c cmd/api_hub.c \
                 devices/virtio_vsock.c devices/vsock_conn.c devices/vsock_mux.c devices/vsock_host.c \
                 cmd/exec_wire.c
