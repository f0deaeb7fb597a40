// SPDX-License-Identifier: GPL-2.0-only
/*
 * The VM `stainless run` asks for (cmd/run.c): builds guest memory and the
 * KVM VM, has the device manager (devmgr.c) place the devices, loads the
 * kernel, starts the vCPUs, then waits on the main thread for the guest to
 * reset, an error, a signal or console input.
 */
#include "vmm/vm.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "base/fail.h"
#include "fs/fs_log.h"
#include "base/thread.h"
#include "devices/gmem.h"
#include "vmm/boot.h"
#include "vmm/vm_config.h"
#include "vmm/console.h"
#include "vmm/devmgr.h"
#include "vmm/kvm.h"
#include "vmm/layout.h"
#include "vmm/mptable.h"
#include "vmm/vcpu.h"

struct vm {
	struct vm_config *cfg;
	struct kvm kvm;
	int mem_fd;
	uint8_t *mem;
	struct gmem gmem;
	struct devmgr dm;
	struct vcpu_env vcpu_env;
	struct vcpu vcpus[VM_CPUS_MAX];
	unsigned nr_vcpus;
	volatile bool stopping;
	atomic_bool stop_requested;
	int stop_efd;
	int exit_code;
	char stop_reason[256];
	struct console console;
	int kernel_fd, initrd_fd;  /* opened before the sandbox's lockdown */
	const struct vm_hooks *hooks;
	char cmdline[CMDLINE_MAX];
};

/* Called from any vCPU thread; the first request decides the exit code. */
static void vm_request_stop(void *ctx, int exit_code, const char *why)
{
	struct vm *vm = ctx;
	bool expected = false;
	uint64_t one = 1;

	if (!atomic_compare_exchange_strong(&vm->stop_requested, &expected, true))
		return;
	vm->exit_code = exit_code;
	if (why)
		snprintf(vm->stop_reason, sizeof(vm->stop_reason), "%s", why);
	if (write(vm->stop_efd, &one, sizeof(one)) < 0) {
		/* An eventfd write only fails on overflow; the flag is set. */
	}
}

static void vm_guest_reset(void *ctx)
{
	vm_request_stop(ctx, 0, NULL);
}

static int vm_create_memory(struct vm *vm)
{
	uint64_t mem = vm->cfg->mem, low = boot_low_ram(mem), high = boot_high_ram(mem);
	long pages = sysconf(_SC_PHYS_PAGES), psz = sysconf(_SC_PAGESIZE);
	int rc;

	if (pages > 0 && psz > 0 && mem > (uint64_t)pages * (uint64_t)psz)
		return fail(-ENOMEM, "--mem %llu MiB is more than the host's %llu MiB of RAM",
			      (unsigned long long)(mem >> 20),
			      (unsigned long long)(((uint64_t)pages * (uint64_t)psz) >> 20));
	/* A memfd, so guest RAM can later be shared with a vhost-user peer
	 * or a sandboxed helper. */
	vm->mem_fd = memfd_create("stainless-ram", MFD_CLOEXEC);
	if (vm->mem_fd < 0)
		return fail(-errno, "memfd_create: %s", strerror(errno));
	if (ftruncate(vm->mem_fd, (off_t)mem) < 0)
		return fail(-errno, "cannot size guest RAM: %s", strerror(errno));
	vm->mem = mmap(NULL, mem, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_NORESERVE,
		       vm->mem_fd, 0);
	if (vm->mem == MAP_FAILED) {
		vm->mem = NULL;
		return fail(-errno, "cannot map guest RAM: %s", strerror(errno));
	}
	gmem_init(&vm->gmem);
	rc = gmem_add_region(&vm->gmem, 0, low, vm->mem, vm->mem_fd, 0);
	if (rc == 0 && high)
		rc = gmem_add_region(&vm->gmem, HIGH_RAM_START, high, vm->mem + low,
				     vm->mem_fd, low);
	if (rc < 0)
		return fail(rc, "guest memory layout: %s", strerror(-rc));
	rc = kvm_add_memslot(&vm->kvm, 0, low, vm->mem);
	if (rc == 0 && high)
		rc = kvm_add_memslot(&vm->kvm, HIGH_RAM_START, high, vm->mem + low);
	if (rc < 0)
		return fail(rc, "KVM_SET_USER_MEMORY_REGION: %s", strerror(-rc));
	return 0;
}

static int open_input(const char *what, const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return fail(-errno, "%s %s: %s", what, path, strerror(errno));
	return fd;
}

static int vm_load(struct vm *vm)
{
	struct boot_image img;
	char err[256];
	int rc;

	rc = boot_load_kernel(&vm->gmem, vm->cfg->mem, vm->kernel_fd, &img, err, sizeof(err));
	if (rc < 0)
		return fail(rc, "kernel '%s': %s", vm->cfg->kernel, err);
	if (vm->initrd_fd >= 0) {
		rc = boot_load_initrd(&vm->gmem, vm->cfg->mem, vm->initrd_fd, &img, err, sizeof(err));
		if (rc < 0)
			return fail(rc, "initrd '%s': %s", vm->cfg->initrd, err);
	}
	/* The devices are announced on the command line (no ACPI yet). */
	if (devmgr_guest_cmdline(&vm->dm, vm->cfg->cmdline, vm->cmdline, sizeof(vm->cmdline)) < 0)
		return fail(-E2BIG, "kernel command line longer than %u bytes", CMDLINE_MAX - 1);
	rc = boot_write_params(&vm->gmem, vm->cfg->mem, vm->cmdline, &img, err, sizeof(err));
	if (rc < 0)
		return fail(rc, "%s", err);
	rc = mptable_write(&vm->gmem, MPTABLE_ADDR, vm->cfg->cpus, IOAPIC_PINS);
	if (rc < 0)
		return fail(rc, "cannot write the MP table: %s", strerror(-rc));
	if ((rc = boot_write_page_tables(&vm->gmem)) < 0 || (rc = boot_write_gdt(&vm->gmem)) < 0)
		return fail(rc, "cannot write boot page tables: %s", strerror(-rc));

	vm->vcpu_env = (struct vcpu_env){
		.pio = &vm->dm.pio, .mmio = &vm->dm.mmio, .stop = vm_request_stop,
		.ctx = vm, .stopping = &vm->stopping, .has_dax = &vm->dm.has_dax,
	};
	for (unsigned i = 0; i < vm->cfg->cpus; i++) {
		rc = vcpu_create(&vm->vcpus[i], &vm->kvm, i, vm->cfg->cpus, img.entry,
				 BOOT_PARAMS_ADDR, &vm->vcpu_env, err, sizeof(err));
		if (rc < 0)
			return fail(rc, "%s", err);
		vm->nr_vcpus++;
	}
	return 0;
}

/*
 * The kernel and initrd are opened here, by the paths the user gave;
 * then the command confines the process (vm.h: the lockdown hook), and
 * the devices open their shares by the paths it leaves in the config.
 */
static int vm_lockdown(struct vm *vm)
{
	int rc;

	vm->kernel_fd = open_input("--kernel", vm->cfg->kernel);
	if (vm->kernel_fd < 0)
		return vm->kernel_fd;
	if (vm->cfg->initrd) {
		vm->initrd_fd = open_input("--initrd", vm->cfg->initrd);
		if (vm->initrd_fd < 0)
			return vm->initrd_fd;
	}
	/* --vsock's socket and folder, while the host's tree is still there. */
	rc = devmgr_open_host(&vm->dm, vm->cfg);
	if (rc < 0)
		return rc;
	return vm->hooks->lockdown ? vm->hooks->lockdown(vm->hooks->ctx, vm->cfg) : 0;
}

/*
 * Give a virtio device the next 4 KiB window and IOAPIC pin, and announce
 * it on the kernel command line. Takes ownership of dev.
 */
static int vm_setup_devices(struct vm *vm)
{
	struct devmgr_config c = {
		.kvm = &vm->kvm, .gmem = &vm->gmem, .console_fd = vm->console.out_fd,
		.ram_end = HIGH_RAM_START + boot_high_ram(vm->cfg->mem),
		.reset = vm_guest_reset, .ctx = vm, .cfg = vm->cfg,
	};

	return devmgr_setup(&vm->dm, &c);
}

static void vm_quit(void *ctx)
{
	vm_request_stop(ctx, 0, NULL);
}

/* SendCtrlAltDel: the keys go to the guest, whose init decides (i8042.h). */
static int vm_ctrl_alt_del(void *ctx)
{
	struct vm *vm = ctx;

	return i8042_ctrl_alt_del(&vm->dm.i8042);
}

/*
 * The main thread waits for a signal, a stop request or the command's
 * control source (the API socket); the console has its own thread.
 */
static int vm_main_loop(struct vm *vm, int sfd)
{
	const struct vm_hooks *h = vm->hooks;

	if (h->running)
		h->running(h->ctl_ctx, vm_ctrl_alt_del, vm);
	while (!atomic_load(&vm->stop_requested)) {
		struct pollfd p[3] = {
			{ .fd = sfd, .events = POLLIN },
			{ .fd = vm->stop_efd, .events = POLLIN },
		};
		unsigned n = 2;
		int tmo = -1;

		if (h->ctl_pollfd) {
			h->ctl_pollfd(h->ctl_ctx, &p[n++]);
			tmo = h->ctl_timeout_ms(h->ctl_ctx);
		}
		if (poll(p, n, tmo) < 0 && errno != EINTR)
			return fail(-errno, "poll: %s", strerror(errno));
		if (n > 2)
			h->ctl_service(h->ctl_ctx, &p[2]);
		if (p[0].revents & POLLIN) {
			struct signalfd_siginfo si;

			if (read(sfd, &si, sizeof(si)) == sizeof(si))
				vm_request_stop(vm, 128 + (int)si.ssi_signo, NULL);
		}
	}
	return 0;
}

/*
 * With STAINLESS_BOOT_TRACE set, report start-up cost once every vCPU's
 * thread runs under its filter and enters the guest (vcpu_start returns
 * then), seccomp's filters built and the sandbox in place: wall time since `run` began, the process's CPU
 * time so far, and its resident memory other than guest RAM (which is a
 * shared memfd, counted as RssShmem). make bench-boot reads this line.
 */
static void vm_boot_trace(const struct timespec *t0)
{
	unsigned long anon = 0, file = 0;
	struct timespec now;
	struct rusage ru;
	char line[128];
	FILE *f;

	if (!getenv("STAINLESS_BOOT_TRACE"))
		return;
	clock_gettime(CLOCK_MONOTONIC, &now);
	getrusage(RUSAGE_SELF, &ru);
	f = fopen("/proc/self/status", "r");
	while (f && fgets(line, sizeof(line), f)) {
		sscanf(line, "RssAnon: %lu", &anon);
		sscanf(line, "RssFile: %lu", &file);
	}
	if (f)
		fclose(f);
	fprintf(stderr, "boot-trace: first-kvm-run wall_ms=%.3f cpu_ms=%.3f rss_kib=%lu\n",
		(double)(now.tv_sec - t0->tv_sec) * 1e3 + (double)(now.tv_nsec - t0->tv_nsec) / 1e6,
		(double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1e3 +
			(double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e3,
		anon + file);
}

static void vm_teardown(struct vm *vm)
{
	uint64_t one = 1;

	vm->stopping = true;
	/* Ends the console's input thread on every path here, not only a stop. */
	if (vm->stop_efd >= 0 && write(vm->stop_efd, &one, sizeof(one)) < 0) {
		/* only on overflow: it is readable already */
	}
	for (unsigned i = 0; i < vm->nr_vcpus; i++)
		vcpu_kick(&vm->vcpus[i]);
	for (unsigned i = 0; i < vm->nr_vcpus; i++)
		vcpu_join_destroy(&vm->vcpus[i], vm->kvm.run_size);
	devmgr_destroy(&vm->dm);  /* workers stop before the memory they serve goes */
	console_close(&vm->console);
	if (vm->kernel_fd >= 0)
		close(vm->kernel_fd);
	if (vm->initrd_fd >= 0)
		close(vm->initrd_fd);
	kvm_close(&vm->kvm);
	if (vm->mem)
		munmap(vm->mem, vm->cfg->mem);
	if (vm->mem_fd >= 0)
		close(vm->mem_fd);
	if (vm->stop_efd >= 0)
		close(vm->stop_efd);
}

static int vm_start(struct vm *vm, const struct timespec *t0)
{
	sigset_t sigs;
	char err[512];
	int sfd = -1, rc;

	vm->mem_fd = vm->stop_efd = vm->kernel_fd = vm->initrd_fd = -1;
	if (vm->cfg->cpus == 0 || vm->cfg->cpus > VM_CPUS_MAX)
		return fail(-EINVAL, "--cpus %u: too many", vm->cfg->cpus);
	if ((rc = kvm_open(&vm->kvm, err, sizeof(err))) < 0)
		return fail(rc, "%s", err);
	bool pvm = kvm_is_software_pvm();  /* asked before the sandbox hides /sys */
	if (vm->cfg->cpus > (unsigned)vm->kvm.max_vcpus) {
		rc = fail(-EINVAL, "--cpus %u: this host's KVM allows at most %d",
			    vm->cfg->cpus, vm->kvm.max_vcpus);
		goto out;
	}
	vm->stop_efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (vm->stop_efd < 0) {
		rc = fail(-errno, "eventfd: %s", strerror(errno));
		goto out;
	}
	if ((rc = vm_create_memory(vm)) < 0)
		goto out;
	if ((rc = console_open(&vm->console, vm->cfg->console, vm->cfg->console_path,
			       err, sizeof(err))) < 0) {
		fail(rc, "%s", err);
		goto out;
	}
	if ((rc = vm_lockdown(vm)) < 0 || (rc = vm_setup_devices(vm)) < 0 ||
	    (rc = vm_load(vm)) < 0)
		goto out;
	/*
	 * Said before the guest starts (it would otherwise fail or hang with
	 * no output), and only once the command line and the kernel proved
	 * good, so that a bad value still gets its one line.
	 */
	if (pvm)
		fs_log(FS_LOG_WARN, "this host's KVM is kvm_pvm, a software module that cannot "
		       "boot an unmodified Linux kernel (tiny guests run); use hardware KVM, "
		       "or the nested test host (tests/e2e/run)");

	/* Signals that end the VM are read by the main thread alone; every
	 * thread created from here on inherits them blocked. */
	sigemptyset(&sigs);
	sigaddset(&sigs, SIGINT);
	sigaddset(&sigs, SIGTERM);
	sigaddset(&sigs, SIGHUP);
	pthread_sigmask(SIG_BLOCK, &sigs, NULL);
	sfd = signalfd(-1, &sigs, SFD_CLOEXEC);
	if (sfd < 0 || (rc = vcpu_init_signals()) < 0) {
		rc = fail(-errno, "signals: %s", strerror(errno));
		goto out;
	}
	for (unsigned i = 0; i < vm->nr_vcpus; i++) {
		if ((rc = vcpu_start(&vm->vcpus[i])) < 0) {
			fail(rc, "cannot start vcpu %u: %s", i, strerror(-rc));
			vm_request_stop(vm, 1, NULL);
			break;
		}
	}
	/* The vCPUs are in (or entering) KVM_RUN: their threads and filters count. */
	if (rc == 0)
		vm_boot_trace(t0);
	if (rc == 0 && (rc = console_start_input(&vm->console, &vm->dm.serial, vm->stop_efd,
						 vm_quit, vm)) < 0) {
		fail(rc, "console input: %s", strerror(-rc));
		vm_request_stop(vm, 1, NULL);
	}
	/* Set up: from here on this thread waits for signals and stop requests. */
	if (rc == 0 && (rc = fs_thread_enter(FS_ROLE_CONTROL)) < 0) {
		fail(rc, "seccomp: %s", strerror(-rc));
		vm_request_stop(vm, 1, NULL);
	}
	if (rc == 0)
		rc = vm_main_loop(vm, sfd);
out:
	vm_teardown(vm);
	if (sfd >= 0)
		close(sfd);
	if (rc < 0)
		return 1;
	if (vm->stop_reason[0])
		fprintf(stderr, "stainless run: %s\n", vm->stop_reason);
	return vm->exit_code;
}

int vm_run(struct vm_config *cfg, const struct vm_hooks *hooks, const struct timespec *t0)
{
	struct vm *vm = calloc(1, sizeof(*vm));
	int rc;

	if (!vm)
		return fail(1, "out of memory");
	vm->cfg = cfg;
	vm->hooks = hooks;
	rc = vm_start(vm, t0);
	free(vm);
	return rc;
}
