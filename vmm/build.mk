# SPDX-License-Identifier: GPL-2.0-only
# vmm/: the KVM VM `stainless run` builds (cmd/run.c puts it together).
LIB_SRCS += vmm/vm.c vmm/devmgr.c vmm/kvm.c vmm/boot.c vmm/mptable.c vmm/vcpu.c vmm/vcpu_dump.c \
            vmm/serial.c vmm/i8042.c vmm/console.c
UNIT_TESTS += test_boot test_boot_kernel test_mptable test_serial test_i8042 \
              test_cpuid test_vcpu_dump test_gmem_bus
