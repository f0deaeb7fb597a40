/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Thread roles: every thread of the process has one, and installs that
 * role's seccomp filter on itself before it touches guest or client input.
 *
 * The policy (which system calls each role may make) is the composition
 * root's business (sandbox/seccomp.c); the floors that create threads (vmm,
 * mmio, devices, fs and the transports) only name the role, through this
 * header, which sits at the bottom so every floor can include it. The root
 * hands each role's compiled filter down with fs_thread_set_filter()
 * before any thread starts; without filters everything here is a plain
 * pthread_create().
 *
 * Why threads are made by a spawner: a seccomp filter is inherited by the
 * threads its thread creates, and filters only stack (a new thread can
 * narrow its parent's, never widen it). Threads here are created on
 * demand by threads of other roles (a vCPU starts a queue's worker at
 * DRIVER_OK, a worker parks a lock on a helper), so a creator's filter
 * would have to allow everything every child needs. Instead, once filters
 * are set, threads come from one spawner thread, started by the first
 * thread that enters a role or creates one while it has no filter yet
 * (the process is then done setting itself up: see below). Its filter
 * is the union of every role's (plus clone for threads only), each child
 * narrows it to its own role at once, and it runs nothing but
 * pthread_create() for callers in this process. The creator waits until
 * the child has installed its filter, so a thread that cannot be confined
 * is never started; the child gets the creator's signal mask, as it
 * would from pthread_create().
 *
 * Order for a command: sandbox set-up (namespaces, capabilities, with the
 * process still single-threaded), then the command's own set-up (open
 * devices, mount, bind), then threads and roles. Capabilities are per
 * thread, so they must be dropped on the main thread before the spawner
 * starts: every thread inherits the spawner's.
 */
#ifndef STAINLESS_BASE_THREAD_H
#define STAINLESS_BASE_THREAD_H

#include <pthread.h>

struct sock_fprog;

enum fs_role {
	FS_ROLE_NONE,        /* not given one: the main thread during set-up */
	FS_ROLE_CONTROL,     /* a command's main thread once set up */
	FS_ROLE_VCPU,        /* KVM_RUN and the device registers it exits for */
	FS_ROLE_QUEUE,       /* a virtqueue's io_uring worker: serves a device */
	FS_ROLE_LOCK_WAIT,   /* a parked blocking lock's waiter */
	FS_ROLE_CONSOLE,     /* `run`'s console input: stdin to the UART */
	FS_ROLE_FUSE_READER, /* fuse-mount: a /dev/fuse reader */
	FS_ROLE_FUSE_URING,  /* fuse-mount --uring: a FUSE-over-io_uring queue */
	FS_ROLE_P9_CONN,     /* 9p-serve: one client connection */
	FS_ROLE_VHOST_USER,  /* vhost-user-fs: the front end's control socket */
	FS_ROLE_VSOCK,       /* virtio-vsock: its queues and its host-socket muxer */
	FS_ROLE_SPAWNER,     /* creates the thread roles (above) */
	/* Process roles: a process of one thread that starts none (sandbox/). */
	FS_ROLE_SUPERVISOR,  /* the sandbox's supervisor, in the host's namespaces */
	FS_ROLE_RELAY,       /* the sandbox's pid 1: reaps and forwards signals */
	FS_ROLE_EXEC_RELAY,  /* exec: the command's stdio and signals to the guest */
	FS_ROLE_COUNT
};

/* A role whose threads come from the spawner (not a process role). */
#define FS_ROLE_IS_THREAD(r) ((r) > FS_ROLE_NONE && (r) <= FS_ROLE_SPAWNER)

/* "vcpu", "queue", ...: the names --print-seccomp takes. NULL if out of range. */
const char *fs_role_name(enum fs_role role);

/*
 * The composition root, before any thread starts and while the process
 * is single-threaded: the filter role's threads install (NULL: none). The
 * program must outlive every thread.
 */
void fs_thread_set_filter(enum fs_role role, const struct sock_fprog *prog);

/*
 * Or, instead of filters up front: build(role) compiles one role's filter
 * (0 or -errno) and sets it with fs_thread_set_filter(). It is called for
 * every thread role at once, by fs_thread_prebuild()'s thread or else by
 * the first fs_thread_create() or fs_thread_enter() (which then returns its
 * error), and for a process role by fs_thread_enter_alone(). The
 * composition root uses this so filters are built in the process that runs
 * them: a sandbox forks after the command line is read, and a rule may
 * name the process (tgkill's pid).
 */
void fs_thread_set_builder(int (*build)(enum fs_role role));

/*
 * Start building the thread roles' filters on a thread of their own, so
 * the work overlaps the command's set-up (a VM's memory and kernel);
 * the first fs_thread_create() or fs_thread_enter() joins it. From the
 * process that will run them, single-threaded, once (the sandbox calls it
 * as sandbox_enter() returns in the server). Without a builder: nothing.
 */
void fs_thread_prebuild(void);

/*
 * pthread_create() for a thread of the given role: it installs the role's
 * filter, then runs fn(arg). Returns 0 or -errno; on failure no thread
 * runs fn. attr may be NULL, as for pthread_create().
 */
int fs_thread_create(pthread_t *t, const pthread_attr_t *attr, enum fs_role role,
		     void *(*fn)(void *), void *arg);

/*
 * The calling thread takes role (once, irreversibly, with its filter):
 * a command's main thread when its set-up is done. Starts the spawner
 * first if it is not running yet. 0 or -errno.
 */
int fs_thread_enter(enum fs_role role);

/*
 * A process role (FS_ROLE_SUPERVISOR, FS_ROLE_RELAY, FS_ROLE_EXEC_RELAY): the calling thread,
 * the process's only one, takes it with its filter, built now; no spawner
 * starts, and the process may start no thread after. 0 or -errno.
 */
int fs_thread_enter_alone(enum fs_role role);

/* The calling thread's role (async-signal-safe: a SIGSYS handler names it). */
enum fs_role fs_thread_role(void);

#endif
