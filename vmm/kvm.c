// SPDX-License-Identifier: GPL-2.0-only
/* KVM VM creation (see kvm.h). */
#include "vmm/kvm.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/kvm.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "base/fail.h"
#include "vmm/layout.h"

#define KVM_CPUID_MAX_ENTRIES 256

static int get_supported_cpuid(struct kvm *kvm)
{
	struct kvm_cpuid2 *c;

	c = calloc(1, sizeof(*c) + KVM_CPUID_MAX_ENTRIES * sizeof(c->entries[0]));
	if (!c)
		return -ENOMEM;
	c->nent = KVM_CPUID_MAX_ENTRIES;
	if (ioctl(kvm->sys_fd, KVM_GET_SUPPORTED_CPUID, c) < 0) {
		int rc = -errno;

		free(c);
		return rc;
	}
	kvm->cpuid = c;
	return 0;
}

/* The error of opening /dev/kvm, with what the user can do about it. */
static int open_failed(char *err, unsigned errlen, int rc)
{
	const char *fix = "";

	if (rc == -ENOENT || rc == -ENODEV || rc == -ENXIO)
		fix = ": this host offers no KVM; load kvm_intel or kvm_amd (modprobe), "
		      "enable virtualisation (VT-x/AMD-V) in the firmware, or inside a VM "
		      "turn on nested virtualisation";
	else if (rc == -EACCES || rc == -EPERM)
		fix = ": join the kvm group (usermod -aG kvm USER, then log in again) "
		      "or give yourself read-write access to /dev/kvm";
	snprintf(err, errlen, "/dev/kvm: %s%s", strerror(-rc), fix);
	return rc;
}

bool kvm_is_software_pvm(void)
{
	/* Its module's name; /dev/kvm itself looks like any other KVM's. */
	return access("/sys/module/kvm_pvm", F_OK) == 0 &&
	       access("/sys/module/kvm_intel", F_OK) != 0 && access("/sys/module/kvm_amd", F_OK) != 0;
}

int kvm_open(struct kvm *kvm, char *err, unsigned errlen)
{
	struct kvm_pit_config pit = { .flags = KVM_PIT_SPEAKER_DUMMY };
	uint64_t idmap = KVM_IDMAP_ADDR;
	int rc;

	memset(kvm, 0, sizeof(*kvm));
	kvm->vm_fd = -1;
	kvm->sys_fd = open("/dev/kvm", O_RDWR | O_CLOEXEC);
	if (kvm->sys_fd < 0)
		return open_failed(err, errlen, -errno);
	rc = ioctl(kvm->sys_fd, KVM_GET_API_VERSION, 0);
	if (rc != KVM_API_VERSION) {
		rc = rc < 0 ? -errno : -EINVAL;
		snprintf(err, errlen, "/dev/kvm: unsupported KVM API version");
		goto out;
	}
	kvm->run_size = ioctl(kvm->sys_fd, KVM_GET_VCPU_MMAP_SIZE, 0);
	if (kvm->run_size <= 0) {
		rc = fail_msg(err, errlen, -errno, "/dev/kvm: KVM_GET_VCPU_MMAP_SIZE: %s", strerror(errno));
		goto out;
	}
	kvm->max_vcpus = ioctl(kvm->sys_fd, KVM_CHECK_EXTENSION, KVM_CAP_MAX_VCPUS);
	if (kvm->max_vcpus <= 0)
		kvm->max_vcpus = 4; /* the documented default when the cap is absent */
	static const int needed[] = { KVM_CAP_IRQCHIP, KVM_CAP_PIT2, KVM_CAP_IOEVENTFD,
				      KVM_CAP_IRQFD, KVM_CAP_USER_MEMORY, KVM_CAP_EXT_CPUID };
	for (unsigned i = 0; i < sizeof(needed) / sizeof(needed[0]); i++) {
		if (ioctl(kvm->sys_fd, KVM_CHECK_EXTENSION, needed[i]) <= 0) {
			snprintf(err, errlen, "/dev/kvm: missing capability %d", needed[i]);
			rc = -ENOTSUP;
			goto out;
		}
	}
	rc = get_supported_cpuid(kvm);
	if (rc < 0) {
		fail_msg(err, errlen, rc, "/dev/kvm: KVM_GET_SUPPORTED_CPUID: %s", strerror(-rc));
		goto out;
	}
	kvm->vm_fd = ioctl(kvm->sys_fd, KVM_CREATE_VM, 0);
	if (kvm->vm_fd < 0) {
		rc = fail_msg(err, errlen, -errno, "/dev/kvm: KVM_CREATE_VM: %s", strerror(errno));
		goto out;
	}
	/* Intel needs these two pages for real-mode emulation; harmless on AMD. */
	if (ioctl(kvm->vm_fd, KVM_SET_IDENTITY_MAP_ADDR, &idmap) < 0 ||
	    ioctl(kvm->vm_fd, KVM_SET_TSS_ADDR, (unsigned long)KVM_TSS_ADDR) < 0) {
		rc = fail_msg(err, errlen, -errno, "KVM_SET_TSS_ADDR: %s", strerror(errno));
		goto out;
	}
	if (ioctl(kvm->vm_fd, KVM_CREATE_IRQCHIP, 0) < 0) {
		rc = fail_msg(err, errlen, -errno, "KVM_CREATE_IRQCHIP: %s", strerror(errno));
		goto out;
	}
	if (ioctl(kvm->vm_fd, KVM_CREATE_PIT2, &pit) < 0) {
		rc = fail_msg(err, errlen, -errno, "KVM_CREATE_PIT2: %s", strerror(errno));
		goto out;
	}
	return 0;
out:
	kvm_close(kvm);
	return rc;
}

void kvm_close(struct kvm *kvm)
{
	if (kvm->vm_fd >= 0)
		close(kvm->vm_fd);
	if (kvm->sys_fd >= 0)
		close(kvm->sys_fd);
	free(kvm->cpuid);
	kvm->vm_fd = kvm->sys_fd = -1;
	kvm->cpuid = NULL;
}

int kvm_add_memslot(struct kvm *kvm, uint64_t gpa, uint64_t size, void *host)
{
	struct kvm_userspace_memory_region r = {
		.slot = kvm->next_slot,
		.guest_phys_addr = gpa,
		.memory_size = size,
		.userspace_addr = (uint64_t)(uintptr_t)host,
	};

	if (ioctl(kvm->vm_fd, KVM_SET_USER_MEMORY_REGION, &r) < 0)
		return -errno;
	kvm->next_slot++;
	return 0;
}

int kvm_irq_line(struct kvm *kvm, unsigned irq, int level)
{
	struct kvm_irq_level l = { .irq = irq, .level = level };

	return ioctl(kvm->vm_fd, KVM_IRQ_LINE, &l) < 0 ? -errno : 0;
}
