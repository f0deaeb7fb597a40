// SPDX-License-Identifier: GPL-2.0-only
/* Thread roles, their filters and the spawner (see fs_thread.h). */
#include "base/thread.h"

#include <errno.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <semaphore.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

static const char *const role_names[FS_ROLE_COUNT] = {
	[FS_ROLE_NONE] = "none",
	[FS_ROLE_CONTROL] = "control",
	[FS_ROLE_VCPU] = "vcpu",
	[FS_ROLE_QUEUE] = "queue",
	[FS_ROLE_LOCK_WAIT] = "lock-wait",
	[FS_ROLE_CONSOLE] = "console",
	[FS_ROLE_FUSE_READER] = "fuse-reader",
	[FS_ROLE_FUSE_URING] = "fuse-uring",
	[FS_ROLE_P9_CONN] = "9p-conn",
	[FS_ROLE_VHOST_USER] = "vhost-user",
	[FS_ROLE_VSOCK] = "vsock",
	[FS_ROLE_SPAWNER] = "spawner",
	[FS_ROLE_SUPERVISOR] = "supervisor",
	[FS_ROLE_RELAY] = "relay",
	[FS_ROLE_EXEC_RELAY] = "exec-relay",
};

static const struct sock_fprog *filters[FS_ROLE_COUNT];
static bool any_filter;
static __thread enum fs_role tls_role;

/* One thread to start: lives on its creator's stack until `ready`. */
struct boot {
	void *(*fn)(void *);
	void *arg;
	enum fs_role role;
	const pthread_attr_t *attr;
	pthread_t *t;
	sigset_t mask;          /* the creator's, as pthread_create would give */
	sem_t created;          /* pthread_create returned (result in create_err) */
	sem_t ready;            /* the child installed its filter (result in err) */
	int create_err, err;
	struct boot *next;
};

static struct {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	struct boot *head, **tail;
	pthread_once_t once;
	sem_t up;
	int start_err;
} sp = { .lock = PTHREAD_MUTEX_INITIALIZER, .cond = PTHREAD_COND_INITIALIZER,
	 .tail = &sp.head, .once = PTHREAD_ONCE_INIT };

const char *fs_role_name(enum fs_role role)
{
	return (unsigned)role < FS_ROLE_COUNT ? role_names[role] : NULL;
}

static int (*filter_builder)(enum fs_role role);
static pthread_once_t build_once = PTHREAD_ONCE_INIT;
static int build_err;
static pthread_t prebuilder;
static bool prebuilding;

static void run_builder(void)
{
	for (int r = FS_ROLE_NONE + 1; filter_builder && r < FS_ROLE_COUNT && !build_err; r++)
		if (FS_ROLE_IS_THREAD(r))
			build_err = filter_builder((enum fs_role)r);
}

void fs_thread_set_builder(int (*build)(enum fs_role role))
{
	filter_builder = build;
}

static void *prebuild_main(void *arg)
{
	pthread_once(&build_once, run_builder);
	return arg;
}

void fs_thread_prebuild(void)
{
	sigset_t all, old;

	if (!filter_builder || prebuilding)
		return;
	/* It takes no signal meant for the process (a stop before set-up ends). */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	prebuilding = pthread_create(&prebuilder, NULL, prebuild_main, NULL) == 0;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
}

/* The filters, built on first need: after any fork a sandbox made. */
static int filters_built(void)
{
	if (prebuilding) {
		pthread_join(prebuilder, NULL);
		prebuilding = false;
	}
	pthread_once(&build_once, run_builder);
	return build_err;
}

void fs_thread_set_filter(enum fs_role role, const struct sock_fprog *prog)
{
	if ((unsigned)role >= FS_ROLE_COUNT)
		return;
	filters[role] = prog;
	any_filter |= prog != NULL;
}

enum fs_role fs_thread_role(void)
{
	return tls_role;
}

/* The calling thread's own filter, for good. */
static int install(enum fs_role role)
{
	const struct sock_fprog *p = filters[role];

	tls_role = role;
	if (!p)
		return 0;
	/* Lets a thread without CAP_SYS_ADMIN install a filter; nothing here execs. */
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		return -errno;
	if (syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, p) < 0)
		return -errno;
	return 0;
}

static void *trampoline(void *arg)
{
	struct boot *b = arg;
	void *(*fn)(void *) = b->fn;
	void *fn_arg = b->arg;
	int err;

	/* Named after its role before any code of its own runs: the kernel's
	 * seccomp record of a kill names the thread and nothing else. */
	prctl(PR_SET_NAME, fs_role_name(b->role), 0, 0, 0);
	err = install(b->role);

	/*
	 * A fault's SIGBUS is never blocked, whatever mask the creator held:
	 * blocked, the kernel kills the process at once, and a handler (the
	 * vhost-user memory guard, transport/vhost_user_mem.h) never runs.
	 */
	sigdelset(&b->mask, SIGBUS);
	pthread_sigmask(SIG_SETMASK, &b->mask, NULL);
	b->err = err;
	sem_post(&b->ready);    /* b is gone after this */
	return err ? NULL : fn(fn_arg);
}

static void spawn_one(struct boot *b)
{
	b->create_err = -pthread_create(b->t, b->attr, trampoline, b);
	sem_post(&b->created);
}

static void *spawner_main(void *arg)
{
	(void)arg;
	/* Its own name, before its filter: nothing to open (/proc may be a sandbox's). */
	prctl(PR_SET_NAME, "spawner", 0, 0, 0);
	sp.start_err = install(FS_ROLE_SPAWNER);
	sem_post(&sp.up);
	if (sp.start_err)
		return NULL;
	for (;;) {
		struct boot *b;

		pthread_mutex_lock(&sp.lock);
		while (!sp.head)
			pthread_cond_wait(&sp.cond, &sp.lock);
		b = sp.head;
		sp.head = b->next;
		if (!sp.head)
			sp.tail = &sp.head;
		pthread_mutex_unlock(&sp.lock);
		spawn_one(b);
	}
	return NULL;
}

/* From the first thread to need it, which has no filter yet (fs_thread.h). */
static void spawner_start(void)
{
	sigset_t all, old;
	pthread_attr_t attr;
	pthread_t t;
	int err;

	sem_init(&sp.up, 0, 0);
	/* Its children set their creators' masks; it takes no signal itself. */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	pthread_attr_setstacksize(&attr, 64 << 10);
	err = pthread_create(&t, &attr, spawner_main, NULL);
	pthread_attr_destroy(&attr);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (err) {
		sp.start_err = -err;
		return;
	}
	while (sem_wait(&sp.up) < 0 && errno == EINTR)
		;
}

static int spawner_ready(void)
{
	if (!any_filter)
		return 0;
	pthread_once(&sp.once, spawner_start);
	return sp.start_err;
}

static void sem_wait_all(sem_t *s)
{
	while (sem_wait(s) < 0 && errno == EINTR)
		;
}

static int create_thread(pthread_t *t, const pthread_attr_t *attr, enum fs_role role,
			 void *(*fn)(void *), void *arg);

int fs_thread_create(pthread_t *t, const pthread_attr_t *attr, enum fs_role role,
		     void *(*fn)(void *), void *arg)
{
	int err = filters_built();

	return err < 0 ? err : create_thread(t, attr, role, fn, arg);
}

static int create_thread(pthread_t *t, const pthread_attr_t *attr, enum fs_role role,
			 void *(*fn)(void *), void *arg)
{
	struct boot b = { .fn = fn, .arg = arg, .role = role, .attr = attr, .t = t };
	int detach = PTHREAD_CREATE_JOINABLE, err;

	if (!FS_ROLE_IS_THREAD(role) || role == FS_ROLE_SPAWNER)
		return -EINVAL;
	if ((err = spawner_ready()) < 0)
		return err;
	pthread_sigmask(SIG_SETMASK, NULL, &b.mask);
	sem_init(&b.created, 0, 0);
	sem_init(&b.ready, 0, 0);
	if (!any_filter) {
		spawn_one(&b);
	} else {
		pthread_mutex_lock(&sp.lock);
		*sp.tail = &b;
		sp.tail = &b.next;
		pthread_cond_signal(&sp.cond);
		pthread_mutex_unlock(&sp.lock);
	}
	sem_wait_all(&b.created);
	if (!b.create_err)
		sem_wait_all(&b.ready);
	err = b.create_err ? b.create_err : b.err;
	if (attr)
		pthread_attr_getdetachstate(attr, &detach);
	/* A child that could not be confined returned at once: reap it. */
	if (!b.create_err && b.err && detach == PTHREAD_CREATE_JOINABLE)
		pthread_join(*t, NULL);
	sem_destroy(&b.created);
	sem_destroy(&b.ready);
	return err;
}

int fs_thread_enter(enum fs_role role)
{
	int err;

	if (!FS_ROLE_IS_THREAD(role) || role == FS_ROLE_SPAWNER)
		return -EINVAL;
	if (tls_role != FS_ROLE_NONE)
		return tls_role == role ? 0 : -EPERM;
	if ((err = filters_built()) < 0)
		return err;
	/* The spawner must come from a thread with no filter: this one, now. */
	if ((err = spawner_ready()) < 0)
		return err;
	return install(role);
}

int fs_thread_enter_alone(enum fs_role role)
{
	int err;

	if (role != FS_ROLE_SUPERVISOR && role != FS_ROLE_RELAY && role != FS_ROLE_EXEC_RELAY)
		return -EINVAL;
	if (tls_role != FS_ROLE_NONE)
		return -EPERM;
	if (filter_builder && (err = filter_builder(role)) < 0)
		return err;
	return install(role);
}
