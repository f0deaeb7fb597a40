# SPDX-License-Identifier: GPL-2.0-only
# vmm/: the composition root (vmm/main.c is linked only into the binary).
LIB_SRCS += vmm/cli.c vmm/vm.c vmm/devmgr.c vmm/kvm.c vmm/boot.c vmm/mptable.c vmm/vcpu.c vmm/vcpu_dump.c \
            vmm/serial.c vmm/i8042.c vmm/console.c vmm/seccomp.c vmm/seccomp_policy.c
UNIT_TESTS += test_cli test_cli_shares test_boot test_boot_kernel test_mptable test_serial \
              test_cpuid test_vcpu_dump test_gmem_bus test_seccomp
