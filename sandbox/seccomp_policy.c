// SPDX-License-Identifier: GPL-2.0-only
/*
 * What each thread role may ask of the kernel, and why (see seccomp.h).
 *
 * A role is a list of groups: the base every thread needs (glibc's own
 * calls: memory, locks, thread exit), the file-system servers' calls for
 * the roles that serve a client, and each role's own. A rule with
 * arguments allows the call only when they hold; several rules for one
 * call allow it when any holds. What is not listed is refused with the
 * mode's action (kill by default). Three general limits:
 *  - ioctl only with the request numbers listed (the vCPU: KVM_RUN and the
 *    few the devices' registers need);
 *  - mmap and mprotect never with PROT_WRITE and PROT_EXEC together;
 *  - clone only for threads (CLONE_THREAD), and only in the spawner;
 *    clone3 fails ENOSYS (its flags are in memory seccomp cannot read),
 *    which makes glibc fall back to clone.
 * socket() is used by no role after set-up: where glibc may try one (its
 * nscd client, in a 9p user lookup) it fails EACCES and glibc reads the
 * files instead.
 */
#include "sandbox/seccomp_policy.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/fuse.h>
#include <linux/kvm.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>

#include "base/creds.h"
#include "fs/fuse/fuse_wire.h"
#include "fs/fuse/fuse_hub.h"

#define ARG_EQ(i, v)      { .arg = (i), .op = SCMP_CMP_EQ, .datum_a = (v) }
#define ARG_BITS(i, m, v) { .arg = (i), .op = SCMP_CMP_MASKED_EQ, .datum_a = (m), .datum_b = (v) }
/* The kernel reads an ioctl request as 32 bits; so does the rule. */
#define IOCTL(req)        ARG_BITS(1, 0xffffffffu, (req))
#define FCNTL(cmd)        ARG_EQ(1, (cmd))
#define PRCTL(opt)        ARG_EQ(0, (opt))
#define COUNT(a)          (sizeof(a) / sizeof((a)[0]))
#define GROUP(title, list) { .name = (title), .rules = (list), .n = COUNT(list) }

/* Linux 6.6; newer than libseccomp 2.5's table (which then prints it by number). */
#define NR_FCHMODAT2 452

/* Writable or executable, never both: the two rules below allow either. */
#define NO_EXEC  ARG_BITS(2, PROT_EXEC, 0)
#define NO_WRITE ARG_BITS(2, PROT_WRITE, 0)

/* ---- every thread ------------------------------------------------------ */

static const struct sc_rule base_rules[] = {
	{ SCMP_SYS(futex), .why = "pthread mutexes, condition variables, semaphores, joins" },
	{ SCMP_SYS(exit), .why = "a thread returns from its start routine" },
	{ SCMP_SYS(exit_group), .why = "the process ends (main returns, a fatal error)" },
	{ SCMP_SYS(rt_sigreturn), .why = "return from a signal handler (vCPU kick, lock wake, SIGSYS report)" },
	{ SCMP_SYS(rt_sigprocmask), .why = "pthread_sigmask: a new thread takes its creator's mask, waiters unblock their wake signal" },
	{ SCMP_SYS(madvise), 0, 1, { ARG_EQ(2, MADV_DONTNEED) },
	  "glibc gives back a finished thread's stack and freed heap pages" },
	{ SCMP_SYS(mmap), 0, 1, { NO_EXEC }, "malloc's arenas and large blocks; readable/writable, not executable" },
	{ SCMP_SYS(mmap), 0, 1, { NO_WRITE }, "read-only or executable mappings (glibc), never writable too" },
	{ SCMP_SYS(mprotect), 0, 1, { NO_EXEC }, "malloc grows an arena in place; not executable" },
	{ SCMP_SYS(mprotect), 0, 1, { NO_WRITE }, "glibc read-only protections; never writable and executable" },
	{ SCMP_SYS(munmap), .why = "free() of a large block, a ring or window torn down" },
	{ SCMP_SYS(mremap), .why = "realloc() of a large block (cannot change protections)" },
	{ SCMP_SYS(brk), .why = "malloc's main arena" },
	{ SCMP_SYS(write), .why = "diagnostics on stderr; eventfd signals (wake-ups, irqfd in tests)" },
	{ SCMP_SYS(close), .why = "every thread closes the fds it owns" },
	{ SCMP_SYS(getpid), .why = "glibc's raise and pthread_kill" },
	{ SCMP_SYS(gettid), .why = "glibc's raise and pthread_kill" },
	/* The tgid is checked in seccomp.c (added with our pid): only our own threads. */
	{ SCMP_SYS(clock_gettime), .why = "poll windows and timed waits (when the vDSO cannot answer)" },
	{ SCMP_SYS(restart_syscall), .why = "a timed wait (poll, futex) resumed after a signal" },
	{ SCMP_SYS(sched_getaffinity), .why = "glibc malloc sizes its arena limit from it (the 9th arena)" },
	{ SCMP_SYS(prctl), 0, 1, { PRCTL(PR_SET_NAME) },
	  "threads name themselves: the name is the comm of the kernel's seccomp log line" },
};

/*
 * A sanitizer build (make SANITIZE=1 / TSAN=1) runs the sanitizer's own
 * runtime on every thread. Only calls that runtime makes belong here, never
 * one of ours: the tests must run the production filters (a sched_yield of
 * our own once hid here). Compiled in only there.
 */
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define SANITIZER_BUILD 1
static const struct sc_rule sanitizer_rules[] = {
	{ SCMP_SYS(sigaltstack), .why = "ASan's per-thread alternate signal stack (use_sigaltstack, at thread start)" },
	{ SCMP_SYS(madvise), 0, 1, { ARG_EQ(2, MADV_NOHUGEPAGE) },
	  "the runtime's shadow and allocator regions (NoHugePagesInRegion)" },
	{ SCMP_SYS(madvise), 0, 1, { ARG_EQ(2, MADV_DONTDUMP) },
	  "the runtime keeps its shadow out of core dumps (DontDumpShadowMemory)" },
	{ SCMP_SYS(sched_yield), .why = "the runtime's spin mutexes (StaticSpinMutex::LockSlow yields)" },
};
#endif

/* ---- the file-system servers (FUSE and 9p), for any thread that serves - */

static const struct sc_rule server_rules[] = {
	{ SCMP_SYS(openat), .why = "open beneath the share; /proc/self/fd reopen of O_PATH fds; /etc/passwd" },
	{ SCMP_SYS(openat2), .why = "name resolution with RESOLVE_BENEATH and no magic links (resolve.c)" },
	/* No open_by_handle_at, name_to_handle_at: handles reach past the share (base/creds.h). */
	{ SCMP_SYS(fcntl), 0, 1, { FCNTL(F_DUPFD_CLOEXEC) }, "dup of a fid's or handle's fd" },
	{ SCMP_SYS(fcntl), 0, 1, { FCNTL(F_GETFL) }, "an fd's open flags (reopen, access checks)" },
	{ SCMP_SYS(fcntl), 0, 1, { FCNTL(F_SETFL) }, "O_APPEND/O_NONBLOCK on an open file (FUSE SETATTR of open flags)" },
	{ SCMP_SYS(fcntl), 0, 1, { FCNTL(F_GETFD) }, "glibc's fd checks" },
	{ SCMP_SYS(fcntl), 0, 1, { FCNTL(F_OFD_GETLK) }, "GETLK / Tgetlock" },
	{ SCMP_SYS(fcntl), 0, 1, { FCNTL(F_OFD_SETLK) }, "SETLK / Tlock, and unlocks" },
	{ SCMP_SYS(fcntl), 0, 1, { FCNTL(F_OFD_SETLKW) }, "a lock taken inline when it cannot be parked" },
	{ SCMP_SYS(flock), .why = "FUSE flock requests" },
	{ SCMP_SYS(dup2), .why = "INTERRUPT/Tflush/Tversion cancel a parked wait: its fd becomes a dead one (fs_park.c)" },
	{ SCMP_SYS(newfstatat), .why = "GETATTR, LOOKUP, the type check of every opened object" },
	{ SCMP_SYS(fstat), .why = "GETATTR on an open fd" },
	{ SCMP_SYS(statx), .why = "Tgetattr, mount ids" },
	{ SCMP_SYS(fstatfs), .why = "STATFS / Tstatfs" },
	{ SCMP_SYS(getdents64), .why = "READDIR(PLUS) / Treaddir" },
	{ SCMP_SYS(lseek), .why = "directory offsets, SEEK_DATA/HOLE (LSEEK)" },
	{ SCMP_SYS(read), .why = "READ fallback; the user database files" },
	{ SCMP_SYS(readv), .why = "READ into the request's buffers" },
	{ SCMP_SYS(pread64), .why = "READ at an offset" },
	{ SCMP_SYS(preadv), .why = "READ at an offset into several buffers" },
	{ SCMP_SYS(preadv2), .why = "READ's cached fast path (RWF_NOWAIT)" },
	{ SCMP_SYS(writev), .why = "WRITE from the request's buffers" },
	{ SCMP_SYS(pwrite64), .why = "WRITE at an offset" },
	{ SCMP_SYS(pwritev), .why = "WRITE at an offset from several buffers" },
	{ SCMP_SYS(pwritev2), .why = "WRITE's cached fast path" },
	{ SCMP_SYS(ftruncate), .why = "SETATTR size / Tsetattr" },
	{ SCMP_SYS(fallocate), .why = "FALLOCATE" },
	{ SCMP_SYS(fsync), .why = "FSYNC / Tfsync" },
	{ SCMP_SYS(fdatasync), .why = "FSYNC with datasync" },
	{ SCMP_SYS(syncfs), .why = "SYNCFS" },
	{ SCMP_SYS(copy_file_range), .why = "COPY_FILE_RANGE" },
	{ SCMP_SYS(mkdirat), .why = "MKDIR / Tmkdir" },
	/* The kernel reads mode as 16 bits and dev as 32: the masks see what it sees. */
	{ SCMP_SYS(mknodat), 0, 1, { ARG_BITS(2, S_IFMT, S_IFIFO) }, "MKNOD / Tmknod of a FIFO" },
	{ SCMP_SYS(mknodat), 0, 1, { ARG_BITS(2, S_IFMT, S_IFSOCK) }, "MKNOD / Tmknod of a socket" },
	{ SCMP_SYS(mknodat), 0, 1, { ARG_BITS(2, S_IFMT, S_IFREG) }, "MKNOD / Tmknod of a regular file" },
	{ SCMP_SYS(mknodat), 0, 2, { ARG_BITS(2, S_IFMT, S_IFCHR), ARG_BITS(3, 0xffffffffu, 0) },
	  "MKNOD / Tmknod of the overlayfs whiteout (character device 0:0)" },
	{ SCMP_SYS(symlinkat), .why = "SYMLINK / Tsymlink" },
	{ SCMP_SYS(linkat), .why = "LINK / Tlink" },
	{ SCMP_SYS(renameat), .why = "RENAME / Trenameat" },
	{ SCMP_SYS(renameat2), .why = "RENAME2 (RENAME_NOREPLACE, RENAME_EXCHANGE, whiteouts)" },
	{ SCMP_SYS(unlinkat), .why = "UNLINK, RMDIR / Tunlinkat" },
	{ SCMP_SYS(readlinkat), .why = "READLINK / Treadlink" },
	{ SCMP_SYS(readlink), .why = "the share root's /proc/self/fd link" },
	{ SCMP_SYS(fchmod), .why = "SETATTR mode on an open file" },
	{ SCMP_SYS(fchmodat), .why = "SETATTR mode through /proc/self/fd" },
	{ NR_FCHMODAT2, .why = "SETATTR mode on an O_PATH fd (AT_EMPTY_PATH)" },
	{ SCMP_SYS(fchownat), .why = "SETATTR owner / Tsetattr" },
	{ SCMP_SYS(utimensat), .why = "SETATTR times (also futimens)" },
	{ SCMP_SYS(faccessat), .why = "ACCESS" },
	{ SCMP_SYS(faccessat2), .why = "ACCESS on an O_PATH fd (AT_EMPTY_PATH)" },
	{ SCMP_SYS(getxattr), .why = "GETXATTR through /proc/self/fd" },
	{ SCMP_SYS(setxattr), .why = "SETXATTR through /proc/self/fd" },
	{ SCMP_SYS(listxattr), .why = "LISTXATTR through /proc/self/fd" },
	{ SCMP_SYS(removexattr), .why = "REMOVEXATTR through /proc/self/fd" },
	{ SCMP_SYS(setfsuid), .why = "each request runs with its caller's fsuid" },
	{ SCMP_SYS(setfsgid), .why = "each request runs with its caller's fsgid" },
	{ SCMP_SYS(setgroups), .why = "... and supplementary groups (raw syscall: this thread only)" },
	{ SCMP_SYS(getuid), .why = "whether the server runs as root (credentials)" },
	{ SCMP_SYS(geteuid), .why = "whether the server runs as root (credentials)" },
	{ SCMP_SYS(getgid), .why = "the server's own group" },
	{ SCMP_SYS(capget), .why = "fs_caps_limit: a serving thread's capabilities" },
	{ SCMP_SYS(capset), .why = "fs_caps_limit: keep only what a passthrough needs" },
	{ SCMP_SYS(prctl), 0, 1, { PRCTL(PR_CAPBSET_DROP) }, "fs_caps_limit: drop the rest from the bounding set" },
	{ SCMP_SYS(prlimit64), 0, 1, { ARG_EQ(2, 0) }, "getrlimit(RLIMIT_NOFILE) for the fd budget: reading, never setting" },
	{ SCMP_SYS(getrandom), .why = "the 9p server's fid-hash seed" },
};

/* Only in a process where some share has `devices` (fs_caps_devices()). */
static const struct sc_rule device_rules[] = {
	{ SCMP_SYS(mknodat), .why = "MKNOD / Tmknod of character and block devices (a share has `devices`)" },
};

/* A 9p server looks up the user a client attaches as (Tattach). */
static const struct sc_rule user_lookup_rules[] = {
	{ SCMP_SYS(socket), EACCES, .why = "glibc asks nscd first: refused, it then reads /etc/passwd and /etc/group" },
};

/* A FUSE-over-io_uring queue thread serves its CPU's ring from that CPU. */
static const struct sc_rule pinned_rules[] = {
	{ SCMP_SYS(sched_setaffinity), .why = "pin to the CPU whose ring the thread serves" },
};

/* Threads that sleep on an fd: fs_wait.c's poll-then-sleep, the control loops. */
static const struct sc_rule wait_rules[] = {
	{ SCMP_SYS(poll), .why = "wait for the next request / signal / stop" },
	{ SCMP_SYS(ppoll), .why = "poll() where glibc maps it to ppoll" },
};

/* A thread that starts or stops a virtqueue's worker (the vCPU at
 * DRIVER_OK and reset, the control thread at shutdown, vhost-user). */
static const struct sc_rule queue_setup_rules[] = {
	{ SCMP_SYS(eventfd2), .why = "a worker's stop and wake fds; a fresh kick fd after a reset" },
	{ SCMP_SYS(io_uring_setup), .why = "a worker's ring, created disabled (fs_uring.h)" },
	{ SCMP_SYS(io_uring_register), .why = "... its fixed files and restrictions, then enable (refused by the ring after)" },
};

/* vhost-user-fs's queue workers with a DAX window (transport/vhost_user_shmem.c):
 * SETUPMAPPING / REMOVEMAPPING become requests on the frontend's backend
 * channel, answered before the FUSE reply. Not run's workers. */
static const struct sc_rule vu_dax_rules[] = {
	{ SCMP_SYS(sendmsg), 0, 1, { ARG_EQ(2, MSG_NOSIGNAL) },
	  "BACKEND_SHMEM_MAP (the file's fd, SCM_RIGHTS) / UNMAP to the frontend" },
	{ SCMP_SYS(recvfrom), 0, 1, { ARG_EQ(3, MSG_DONTWAIT) }, "... its ack (recv: fds it sends are dropped)" },
	{ SCMP_SYS(poll), .why = "... awaited for at most VU_SHMEM_ACK_MS" },
	{ SCMP_SYS(ppoll), .why = "poll() where glibc maps it to ppoll" },
};

/* ---- each role's own ---------------------------------------------------- */

static const struct sc_rule vcpu_rules[] = {
	{ SCMP_SYS(ioctl), 0, 1, { IOCTL(KVM_RUN) }, "KVM_RUN: run the guest until it exits to us" },
	{ SCMP_SYS(ioctl), 0, 1, { IOCTL(KVM_IRQ_LINE) },
	  "the UART's and the keyboard's interrupt lines (serial.c, i8042.c: on a register access)" },
	{ SCMP_SYS(ioctl), 0, 1, { IOCTL(KVM_IOEVENTFD) }, "virtio-mmio QueueNotify: kicks bypass us (queue ready / reset)" },
	{ SCMP_SYS(ioctl), 0, 1, { IOCTL(KVM_IRQFD) }, "virtio-mmio interrupts (transport set-up on the first status writes)" },
	{ SCMP_SYS(poll), 0, 1, { ARG_EQ(2, 0) }, "a device reset drops stale kicks: a zero-timeout look, never a wait" },
	{ SCMP_SYS(read), .why = "... then reads the stale kick count off the eventfd" },
	{ SCMP_SYS(dup2), .why = "a device reset cancels the share's parked waits (fs_park.c)" },
	{ SCMP_SYS(ioctl), 0, 1, { IOCTL(KVM_GET_REGS) }, "a triple fault's one report (vcpu_dump.c): registers" },
	{ SCMP_SYS(ioctl), 0, 1, { IOCTL(KVM_GET_SREGS) }, "... control registers and descriptor tables" },
	{ SCMP_SYS(ioctl), 0, 1, { IOCTL(KVM_GET_VCPU_EVENTS) }, "... and the exception that was pending" },
};

static const struct sc_rule queue_rules[] = {
	{ SCMP_SYS(io_uring_enter), .why = "the worker sleeps in its ring: kicks, wake-ups, async I/O" },
	{ SCMP_SYS(getrandom), .why = "virtio-rng's entropy" },
	{ SCMP_SYS(poll), 0, 1, { ARG_EQ(2, 0) },
	  "vhost-user: is a blocking call eventfd full (a zero-timeout look, never a wait)" },
	/* DAX FUSE_SETUPMAPPING maps files MAP_FIXED into the window: base's mmap rules. */
};

static const struct sc_rule lock_wait_rules[] = {
	{ SCMP_SYS(fcntl), 0, 1, { FCNTL(F_OFD_SETLKW) }, "the parked wait itself" },
	{ SCMP_SYS(fcntl), 0, 1, { FCNTL(F_OFD_SETLK) }, "give back a lock granted as the client gave up" },
	{ SCMP_SYS(flock), .why = "a parked flock wait (and its give-back)" },
	{ SCMP_SYS(capget), .why = "fs_caps_limit, again: its creator's limit must hold here too" },
	{ SCMP_SYS(capset), .why = "fs_caps_limit" },
	{ SCMP_SYS(prctl), 0, 1, { PRCTL(PR_CAPBSET_DROP) }, "fs_caps_limit" },
	{ SCMP_SYS(sendto), .why = "9p-serve: the reply goes out on the connection's socket" },
};

static const struct sc_rule console_rules[] = {
	{ SCMP_SYS(read), .why = "the bytes typed or piped on stdin" },
	{ SCMP_SYS(ioctl), 0, 1, { IOCTL(KVM_IRQ_LINE) }, "the UART's receive interrupt" },
};

static const struct sc_rule fuse_reader_rules[] = {
	{ SCMP_SYS(read), .why = "a request from /dev/fuse" },
	/* Its answers are write(2)s: base. */
	{ SCMP_SYS(io_uring_setup), .why = "after INIT, the FUSE-over-io_uring rings (--uring)" },
	{ SCMP_SYS(io_uring_register), .why = "... their fixed files and restrictions, then enable" },
	{ SCMP_SYS(eventfd2), .why = "... and each queue's wake fd" },
};

static const struct sc_rule fuse_uring_rules[] = {
	{ SCMP_SYS(io_uring_enter), .why = "commit an answer and fetch the next request" },
};

/*
 * A FUSE server's watcher (fs/fuse/fuse_watch.c): serves no request, so
 * none of the servers' group; it reads inotify events, stats the one name
 * an event gives beneath the watched directory's fd, and writes the
 * notification to /dev/fuse (base's write).
 */
static const struct sc_rule fuse_watch_rules[] = {
	{ SCMP_SYS(read), .why = "inotify events; the serving threads' wake eventfd" },
	{ SCMP_SYS(inotify_add_watch), .why = "watch a looked-up directory, by its /proc/self/fd link" },
	{ SCMP_SYS(inotify_rm_watch), .why = "the client forgot the directory" },
	{ SCMP_SYS(newfstatat), .why = "which known inode an event's name leads to (no open)" },
	{ SCMP_SYS(openat2), .why = "a watched directory whose fd was evicted, reopened beneath its parent" },
	{ SCMP_SYS(statx), .why = "... and checked to be the same directory (birth time)" },
	{ SCMP_SYS(fstat), .why = "... its numbers (fstat)" },
};

static const struct sc_rule p9_conn_rules[] = {
	{ SCMP_SYS(recvfrom), .why = "requests from the client's socket (recv)" },
	{ SCMP_SYS(sendto), .why = "replies (send with MSG_NOSIGNAL)" },
};

static const struct sc_rule vhost_user_rules[] = {
	{ SCMP_SYS(recvmsg), .why = "front-end messages and the fds they carry (memory, kick, call)" },
	{ SCMP_SYS(sendmsg), .why = "replies to the front end" },
	{ SCMP_SYS(read), .why = "message bodies; eventfds" },
	{ SCMP_SYS(accept4), .why = "the front end (re)connects" },
	{ SCMP_SYS(fstat), .why = "size of a memory region's fd" },
	{ SCMP_SYS(ioctl), 0, 1, { IOCTL(FIONBIO) }, "non-blocking fds handed over" },
	{ SCMP_SYS(fcntl), 0, 1, { FCNTL(F_GETFL) }, "is a call/err eventfd blocking (vu_efd_set)" },
	{ SCMP_SYS(recvfrom), .why = "recv(): a message's body after its header" },
	{ SCMP_SYS(newfstatat), .why = "fstat() of a memory region's fd (glibc's fstat)" },
	{ SCMP_SYS(readlinkat), .why = "N beneath /proc/self/fd: is a kick/call fd an eventfd (vu_is_eventfd)" },
	{ SCMP_SYS(unlink), .why = "the socket's path once the frontend is connected (as virtiofsd)" },
	{ SCMP_SYS(unlinkat), .why = "unlink on newer glibc" },
	/* --syslog's lines are write(2)s on a socket connected before (base). */
	{ SCMP_SYS(dup2), .why = "a reset or a new owner cancels the share's parked waits (fs_park.c)" },
	{ SCMP_SYS(fcntl), 0, 1, { FCNTL(F_GET_SEALS) }, "a memory region's seals: a shrinkable memfd is refused" },
};

/* virtio-vsock's rx/tx/event workers and its muxer (devices/vsock_*.c). */
static const struct sc_rule vsock_rules[] = {
	{ SCMP_SYS(io_uring_enter), .why = "the queue workers sleep in their rings" },
	{ SCMP_SYS(read), .why = "the muxer's wake eventfd" },
	{ SCMP_SYS(poll), .why = "the muxer waits on the host sockets" },
	{ SCMP_SYS(ppoll), .why = "poll() where glibc maps it to ppoll" },
	{ SCMP_SYS(sendmsg), .why = "guest data to the host peer, straight from the tx buffers" },
	{ SCMP_SYS(recvmsg), .why = "host data straight into the guest's rx buffers" },
	{ SCMP_SYS(sendto), .why = "send(): the \"OK <port>\" line, bytes a slow peer had left" },
	{ SCMP_SYS(recvfrom), .why = "recv(): the host's CONNECT line, a byte at a time" },
	{ SCMP_SYS(accept4), .why = "a host process connects to UDS" },
	{ SCMP_SYS(socket), 0, 2, { ARG_EQ(0, AF_UNIX),
				    ARG_EQ(1, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC) },
	  "a guest connect: a Unix stream socket, nothing else" },
	{ SCMP_SYS(connect), .why = "... to UDS_<port>, relative to the muxer's own cwd" },
	{ SCMP_SYS(shutdown), 0, 1, { ARG_EQ(1, SHUT_WR) }, "the guest's SHUTDOWN(SEND) reaches the peer" },
	{ SCMP_SYS(unshare), 0, 1, { ARG_EQ(0, CLONE_FS) },
	  "the muxer's start: a working directory of its own ..." },
	{ SCMP_SYS(fchdir), .why = "... in UDS's folder, opened before the sandbox" },
};

/*
 * run's spawner holds the union of every role, vsock's socket() allowance
 * among them; the 9p user lookup's unconditional refusal of socket() would
 * override that allowance in one filter (an unconditional rule wins), so
 * the union refuses everything else instead, with conditions. Each child
 * still refuses or allows under its own filter.
 */
static const struct sc_rule spawner_socket_rules[] = {
	{ SCMP_SYS(socket), EACCES, 1, { { .arg = 0, .op = SCMP_CMP_NE, .datum_a = AF_UNIX } },
	  "any other socket() fails as the 9p user lookup's does (nscd: glibc reads the files)" },
	{ SCMP_SYS(socket), EACCES, 1,
	  { { .arg = 1, .op = SCMP_CMP_NE, .datum_a = SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC } },
	  "... whatever its type" },
};

static const struct sc_rule spawner_rules[] = {
	{ SCMP_SYS(clone), 0, 1, { ARG_BITS(0, CLONE_THREAD | CLONE_VM | CLONE_SIGHAND,
				       CLONE_THREAD | CLONE_VM | CLONE_SIGHAND) },
	  "pthread_create: threads of this process, nothing else" },
	{ SCMP_SYS(clone3), ENOSYS, .why = "its flags are out of sight: glibc falls back to clone" },
	{ SCMP_SYS(set_robust_list), .why = "a new thread's glibc start" },
	{ SCMP_SYS(rseq), .why = "a new thread's glibc start" },
	{ SCMP_SYS(prctl), 0, 1, { PRCTL(PR_SET_NO_NEW_PRIVS) }, "a new thread before its filter" },
	{ SCMP_SYS(seccomp), 0, 1, { ARG_EQ(0, SECCOMP_SET_MODE_FILTER) }, "a new thread installs its role's filter" },
};

/* ---- control: each command's main thread once set up --------------------- */

static const struct sc_rule control_rules[] = {
	{ SCMP_SYS(read), .why = "signalfd: SIGINT/SIGTERM/SIGHUP" },
	{ SCMP_SYS(dup2), .why = "teardown cancels parked waits (fs_park.c)" },
};

static const struct sc_rule run_control_rules[] = {
	{ SCMP_SYS(ioctl), 0, 1, { IOCTL(TCSETS) }, "restore the terminal's mode at the end" },
	{ SCMP_SYS(ioctl), 0, 1, { IOCTL(TCGETS) },
	  "... glibc's tcsetattr reads the mode before and after TCSETS (a guest's exit on a TTY)" },
	{ SCMP_SYS(ioctl), 0, 1, { IOCTL(KVM_IRQFD) }, "teardown: a transport releases its interrupts" },
	{ SCMP_SYS(ioctl), 0, 1, { IOCTL(KVM_IOEVENTFD) }, "teardown: a transport releases its kicks" },
	{ SCMP_SYS(ioctl), 0, 1, { IOCTL(KVM_IRQ_LINE) },
	  "SendCtrlAltDel: the first key raises the keyboard's IRQ 1 (i8042.c)" },
	{ SCMP_SYS(accept4), .why = "--api-sock: a client connects" },
	{ SCMP_SYS(getsockopt), 0, 1, { ARG_EQ(2, SO_PEERCRED) },
	  "... and says who it is: only the VMM's own user (or root) is served" },
	{ SCMP_SYS(geteuid), .why = "... the VMM's own user, as this namespace sees it" },
	{ SCMP_SYS(recvfrom), .why = "... its request (recv)" },
	{ SCMP_SYS(sendto), .why = "... the reply (send, MSG_DONTWAIT: never blocks the loop)" },
	{ SCMP_SYS(shutdown), .why = "... a refused request's rest read away after the reply (lingering close)" },
	{ SCMP_SYS(unlink), .why = "... the socket's file at exit, when no supervisor does it" },
	{ SCMP_SYS(unlinkat), .why = "... the same (unlink on newer glibc)" },
};

/* run with --fs-hub: the control thread attaches and detaches shares (fs/fuse/fuse_hub.h). */
static const struct sc_rule hub_control_rules[] = {
	{ SCMP_SYS(openat2), .why = "attach: each component of the share's path, beneath the hub's directory" },
	{ SCMP_SYS(fstat), .why = "attach: the share's root is a directory" },
	{ SCMP_SYS(newfstatat), .why = "... fstat where glibc maps it to fstatat" },
	{ SCMP_SYS(statx), .why = "attach: the share root's identity (fs_root_id_init)" },
	{ SCMP_SYS(fstatfs), .why = "attach: the share root's file system, local or not (fuse_timed.c)" },
	{ SCMP_SYS(fcntl), 0, 1, { ARG_EQ(1, F_DUPFD_CLOEXEC) }, "attach: the share's server's /proc/self/fd" },
	{ SCMP_SYS(umask), .why = "attach: a new server sets umask(0) (the guest applied its own)" },
	{ SCMP_SYS(clock_nanosleep), .why = "detach: waits out the share's requests in flight" },
	{ SCMP_SYS(nanosleep), .why = "... the same on older glibc" },
	{ SCMP_SYS(tgkill), .why = "detach: cancels the share's parked lock waits (fs_park.c)" },
};

static const struct sc_rule fuse_mount_control_rules[] = {
	{ SCMP_SYS(rt_sigtimedwait), .why = "sigwait: SIGINT/SIGTERM, or a reader ending" },
	{ SCMP_SYS(umount2), .why = "SIGINT/SIGTERM take the mount down" },
	{ SCMP_SYS(pread64), .why = "/proc/self/mountinfo (opened at the mount): is it still ours" },
	/* After a lazy unmount its abort file (opened at the mount) is written: base. */
};

static const struct sc_rule p9_serve_control_rules[] = {
	{ SCMP_SYS(accept4), .why = "a client connects" },
	{ SCMP_SYS(getsockopt), 0, 1, { ARG_EQ(2, SO_PEERCRED) }, "... and says who it is (SO_PEERCRED)" },
	{ SCMP_SYS(getsockopt), 0, 1, { ARG_EQ(2, SO_PEERGROUPS) }, "... and which groups it is in: it makes files only of those" },
	{ SCMP_SYS(shutdown), .why = "shutdown ends every connection" },
	{ SCMP_SYS(unlink), .why = "the socket's path at exit" },
	{ SCMP_SYS(unlinkat), .why = "the socket's path at exit (unlink on newer glibc)" },
};

/* ---- the sandbox's processes (sandbox/sandbox.c) -------------------------- */

/*
 * Both only wait and pass signals on. Each holds one pidfd (its child's)
 * and nothing else of the command's, so pidfd_send_signal reaches that
 * child alone: neither may kill() at all.
 */
static const struct sc_rule relay_rules[] = {
	{ SCMP_SYS(rt_sigtimedwait), .why = "sigwaitinfo: the stop signals, and SIGCHLD" },
	{ SCMP_SYS(wait4), .why = "reap the child (pid 1: and every orphan) and take its status" },
	{ SCMP_SYS(pidfd_send_signal), .why = "forward a stop signal to the child, by its pidfd" },
};

/*
 * `stainless exec`'s relay (cmd/exec_relay.c): a process of one thread in
 * the host's namespaces that copies the command's stdio between its own
 * fds and the vsock streams (Unix sockets it listens on) and passes signals
 * on. It opens nothing: every fd is made before its filter.
 */
static const struct sc_rule exec_relay_rules[] = {
	{ SCMP_SYS(read), .why = "stdin, the guest's streams, the signalfd" },
	{ SCMP_SYS(accept4), .why = "the guest's four connections, one on each socket" },
	{ SCMP_SYS(shutdown), .why = "stdin's EOF passed on to the guest" },
	{ SCMP_SYS(ioctl), 0, 1, { IOCTL(TIOCGWINSZ) }, "the terminal's size, at start and on SIGWINCH" },
	{ SCMP_SYS(ioctl), 0, 1, { IOCTL(TCSETS) }, "restore the terminal's mode at the end" },
	{ SCMP_SYS(ioctl), 0, 1, { IOCTL(TCGETS) }, "... glibc's tcsetattr reads it back" },
	{ SCMP_SYS(wait4), .why = "the VMM's status once it is gone" },
	{ SCMP_SYS(pidfd_send_signal), .why = "stop the VMM, by its pidfd (no kill() at all)" },
	{ SCMP_SYS(unlinkat), .why = "remove the sockets and the initramfs from the run's folder" },
	{ SCMP_SYS(unlink), .why = "... the same on older glibc" },
	{ SCMP_SYS(rmdir), .why = "... and the folder" },
};

/* The supervisor, in the host's namespaces with root's capabilities when run by root. */
static const struct sc_rule supervisor_rules[] = {
	{ SCMP_SYS(prlimit64), 0, 1, { ARG_EQ(1, RLIMIT_CORE) },
	  "the server's death by a signal is passed on as its own: no core of its own" },
	{ SCMP_SYS(rt_sigaction), .why = "... that signal back to SIG_DFL before raising it" },
	{ SCMP_SYS(read), .why = "the kill report: the kernel log's seccomp record (/dev/kmsg, opened before)" },
};

/* 9p-serve and vhost-user-fs: the socket the server bound, out of its reach. */
static const struct sc_rule supervisor_socket_rules[] = {
	{ SCMP_SYS(newfstatat), .why = "lstat: is the socket still the one bound, not a successor's" },
	{ SCMP_SYS(unlink), .why = "remove it once the server is gone" },
	{ SCMP_SYS(unlinkat), .why = "unlink on newer glibc" },
};

/* fuse-mount: its mount in the host's namespace. */
static const struct sc_rule supervisor_mount_rules[] = {
	{ SCMP_SYS(pread64), .why = "/proc/self/mountinfo (opened before): is the mount still ours" },
	{ SCMP_SYS(umount2), .why = "a stop signal or the server's end takes the mount down (root)" },
	/* Its abort file (opened before) is written: base. Without root, the
	 * unmounter's pipe is closed and its done pipe read to EOF (the
	 * supervisor's read rule): no other call. */
};

/* ---- roles ------------------------------------------------------------- */

static const struct sc_group base = GROUP("base: every thread", base_rules);
#ifdef SANITIZER_BUILD
static const struct sc_group sanitizer = GROUP("sanitizer runtime (SANITIZE=1/TSAN=1 build)",
					       sanitizer_rules);
#endif
static const struct sc_group server = GROUP("file-system servers", server_rules);
static const struct sc_group devices = GROUP("device nodes: only when a share has `devices`",
					    device_rules);
static const struct sc_group user_lookup = GROUP("9p user lookup", user_lookup_rules);
static const struct sc_group pinned = GROUP("pinned serving thread", pinned_rules);
static const struct sc_group waits = GROUP("waits on fds", wait_rules);
static const struct sc_group queue_setup = GROUP("starts and stops queue workers", queue_setup_rules);
static const struct sc_group vcpu = GROUP("vcpu", vcpu_rules);
static const struct sc_group queue = GROUP("queue", queue_rules);
static const struct sc_group vu_dax = GROUP("queue: vhost-user-fs's DAX channel", vu_dax_rules);
static const struct sc_group lock_wait = GROUP("lock-wait", lock_wait_rules);
static const struct sc_group console = GROUP("console", console_rules);
static const struct sc_group fuse_reader = GROUP("fuse-reader", fuse_reader_rules);
static const struct sc_group fuse_uring = GROUP("fuse-uring", fuse_uring_rules);
static const struct sc_group fuse_watch = GROUP("fuse-watch", fuse_watch_rules);
static const struct sc_group p9_conn = GROUP("9p-conn", p9_conn_rules);
static const struct sc_group vhost_user = GROUP("vhost-user", vhost_user_rules);
static const struct sc_group vsock = GROUP("vsock", vsock_rules);
static const struct sc_group spawner = GROUP("spawner", spawner_rules);
static const struct sc_group spawner_socket = GROUP("spawner: socket() beside vsock's",
						    spawner_socket_rules);
static const struct sc_group control = GROUP("control", control_rules);
/*
 * fuse-mount --passthrough's registrar (transport/fuse_registrar.c): root
 * with CAP_SYS_ADMIN alone, outside the server's namespaces, holding the
 * connection's /dev/fuse fd and its socket to the server.
 */
static const struct sc_rule registrar_rules[] = {
	{ SCMP_SYS(recvmsg), .why = "the server's request and the fd it hands in (SCM_RIGHTS)" },
	{ SCMP_SYS(sendmsg), .why = "the answer: a backing id or an errno" },
	{ SCMP_SYS(newfstatat), .why = "fstat: is the fd handed in a regular file (the share root: a directory)" },
	{ SCMP_SYS(fstat), .why = "fstat where glibc calls it by that name" },
	{ SCMP_SYS(statx), .why = "the fd's mount id and attributes: on the share's mount, not immutable" },
	{ SCMP_SYS(ioctl), 0, 1, { IOCTL(FUSE_DEV_IOC_BACKING_OPEN) },
	  "register the checked file on the connection" },
	{ SCMP_SYS(ioctl), 0, 1, { IOCTL(FUSE_DEV_IOC_BACKING_CLOSE) },
	  "close an id it registered, when the server's last handle goes" },
};

/* The serving threads' side of it, with --passthrough alone (sc_allow_registrar_client). */
static const struct sc_rule registrar_client_rules[] = {
	{ SCMP_SYS(sendmsg), 0, 1, { ARG_EQ(2, MSG_NOSIGNAL) },
	  "OPEN/CREATE: hand the opened file to the registrar; RELEASE: close its id" },
	{ SCMP_SYS(recvmsg), 0, 1, { ARG_EQ(2, 0) }, "... and take its answer" },
};

static bool registrar_client;

void sc_allow_registrar_client(bool on)
{
	registrar_client = on;
}

static const struct sc_group relay = GROUP("relay", relay_rules);
static const struct sc_group registrar_client_group = GROUP("fuse-mount --passthrough: the registrar",
							    registrar_client_rules);
static const struct sc_group registrar = GROUP("registrar", registrar_rules);
static const struct sc_group exec_relay = GROUP("exec-relay", exec_relay_rules);
static const struct sc_group supervisor = GROUP("supervisor", supervisor_rules);
static const struct sc_group supervisor_socket = GROUP("supervisor: the server's socket",
						       supervisor_socket_rules);
static const struct sc_group supervisor_mount = GROUP("supervisor: fuse-mount's mount",
						      supervisor_mount_rules);
static const struct sc_group run_control = GROUP("control: run", run_control_rules);
static const struct sc_group hub_control = GROUP("control: fs-hub", hub_control_rules);
static const struct sc_group fuse_mount_control = GROUP("control: fuse-mount", fuse_mount_control_rules);
static const struct sc_group p9_serve_control = GROUP("control: 9p-serve", p9_serve_control_rules);

/* NULL-terminated, at most 8 groups a role. */
static const struct sc_group *const role_groups[FS_ROLE_COUNT][8] = {
	[FS_ROLE_VCPU] = { &base, &vcpu, &queue_setup, NULL },
	[FS_ROLE_QUEUE] = { &base, &server, &user_lookup, &queue, NULL },
	[FS_ROLE_LOCK_WAIT] = { &base, &lock_wait, NULL },
	[FS_ROLE_CONSOLE] = { &base, &waits, &console, NULL },
	[FS_ROLE_FUSE_READER] = { &base, &server, &waits, &fuse_reader, NULL },
	[FS_ROLE_FUSE_URING] = { &base, &server, &pinned, &fuse_uring, NULL },
	[FS_ROLE_FUSE_WATCH] = { &base, &waits, &fuse_watch, NULL },
	[FS_ROLE_P9_CONN] = { &base, &server, &user_lookup, &waits, &p9_conn, NULL },
	[FS_ROLE_VHOST_USER] = { &base, &waits, &queue_setup, &vhost_user, NULL },
	[FS_ROLE_VSOCK] = { &base, &vsock, NULL },
	/* The server's calls, and the transport's completion (base: write). */
	[FS_ROLE_TIMED_CALL] = { &base, &server, NULL },
	/* Writes an EIO header, completes (base): nothing of the server's. */
	[FS_ROLE_DEADLINE] = { &base, NULL },
	[FS_ROLE_RELAY] = { &base, &relay, NULL },
	[FS_ROLE_REGISTRAR] = { &base, &registrar, NULL },
	[FS_ROLE_EXEC_RELAY] = { &base, &waits, &exec_relay, NULL },
};

/* The control role: what every command's main thread does, then its own. */
static const struct sc_group *const control_groups[][4] = {
	[SC_CMD_RUN] = { &base, &waits, &control, &run_control },
	[SC_CMD_FUSE_MOUNT] = { &base, &waits, &control, &fuse_mount_control },
	[SC_CMD_9P_SERVE] = { &base, &waits, &control, &p9_serve_control },
	[SC_CMD_VHOST_USER] = { &base, &waits, &control, &vhost_user },
};

/* The supervisor: the relay's calls, then what it cleans up on the host. */
static const struct sc_group *const supervisor_groups[][4] = {
	[SC_CMD_RUN] = { &base, &relay, &supervisor, &supervisor_socket }, /* --api-sock's */
	[SC_CMD_FUSE_MOUNT] = { &base, &relay, &supervisor, &supervisor_mount },
	[SC_CMD_9P_SERVE] = { &base, &relay, &supervisor, &supervisor_socket },
	[SC_CMD_VHOST_USER] = { &base, &relay, &supervisor, &supervisor_socket },
};

static unsigned add_groups(const struct sc_group *const *list, unsigned len,
			   const struct sc_group **out, unsigned n, unsigned max)
{
	for (unsigned i = 0; i < len && list[i]; i++) {
		bool seen = false;

		for (unsigned j = 0; j < n; j++)
			seen |= out[j] == list[i];
		if (!seen && n < max)
			out[n++] = list[i];
	}
	return n;
}

/* A thread role's groups; a serving one's device nodes where a share allows them. */
static unsigned add_role(enum sc_command cmd, enum fs_role role, const struct sc_group **out,
			 unsigned n, unsigned max)
{
	n = add_groups(role_groups[role], 8, out, n, max);
	if (role == FS_ROLE_QUEUE && cmd == SC_CMD_VHOST_USER)
		n = add_groups((const struct sc_group *const[]){ &vu_dax }, 1, out, n, max);
	for (unsigned i = 0; i < 8 && role_groups[role][i]; i++)
		if (role_groups[role][i] == &server && fs_caps_devices())
			n = add_groups((const struct sc_group *const[]){ &devices }, 1, out, n, max);
	if (registrar_client && (role == FS_ROLE_FUSE_READER || role == FS_ROLE_FUSE_URING))
		n = add_groups((const struct sc_group *const[]){ &registrar_client_group }, 1, out, n,
			       max);
	return n;
}

unsigned sc_policy_groups(enum sc_command cmd, enum fs_role role,
			  const struct sc_group **out, unsigned max)
{
	unsigned n = 0;

	if ((unsigned)cmd > SC_CMD_VHOST_USER || (unsigned)role >= FS_ROLE_COUNT)
		return 0;
#ifdef SANITIZER_BUILD
	n = add_groups((const struct sc_group *const[]){ &sanitizer }, 1, out, n, max);
#endif
	if (role == FS_ROLE_CONTROL && cmd == SC_CMD_FUSE_MOUNT && registrar_client)
		/* Teardown closes the ids left (fuse_server_destroy) and asks for --stats. */
		n = add_groups((const struct sc_group *const[]){ &registrar_client_group }, 1, out, n,
			       max);
	if (role == FS_ROLE_CONTROL) {
		n = add_groups(control_groups[cmd], 4, out, n, max);
		if (cmd == SC_CMD_RUN && fuse_hub_any())
			n = add_groups((const struct sc_group *const[]){ &hub_control }, 1, out, n, max);
		return n;
	}
	if (role == FS_ROLE_SUPERVISOR)
		return add_groups(supervisor_groups[cmd], 4, out, n, max);
	if (role != FS_ROLE_SPAWNER)
		return add_role(cmd, role, out, n, max);
	/* Every thread it makes starts under its filter, then narrows it. */
	n = add_groups((const struct sc_group *const[]){ &spawner }, 1, out, n, max);
	for (unsigned r = 0; r < FS_ROLE_COUNT; r++)
		/* Only run has a vsock device: others' spawners make no socket. */
		if (FS_ROLE_IS_THREAD(r) && (r != FS_ROLE_VSOCK || cmd == SC_CMD_RUN))
			n = add_role(cmd, (enum fs_role)r, out, n, max);
	if (cmd != SC_CMD_RUN)
		return n;
	/* vsock's socket() beside the user lookup's refusal: see spawner_socket. */
	for (unsigned i = 0; i < n; i++)
		if (out[i] == &user_lookup)
			out[i] = &spawner_socket;
	return n;
}
