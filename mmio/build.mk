# SPDX-License-Identifier: GPL-2.0-only
LIB_SRCS += mmio/bus.c mmio/virtio_mmio.c
UNIT_TESTS += test_vmmio test_vmmio_kvm
