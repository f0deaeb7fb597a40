// SPDX-License-Identifier: GPL-2.0-only
/* Per-role seccomp programs, the options, and the SIGSYS report (see seccomp.h). */
#include "sandbox/seccomp.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/fail.h"
#include "sandbox/seccomp_policy.h"

#define SC_NAMES_MAX 512   /* x86_64 syscall numbers are below this */

static const char *const mode_names[] = {
	[SC_KILL] = "kill", [SC_LOG] = "log", [SC_TRAP] = "trap", [SC_NONE] = "none",
};

/* Resolved before any filter, so the SIGSYS handler only indexes. */
static const char *syscall_names[SC_NAMES_MAX];
static struct sock_fprog programs[FS_ROLE_COUNT];

int sc_role_by_name(const char *name)
{
	for (int r = FS_ROLE_NONE + 1; r < FS_ROLE_COUNT; r++)
		if (strcmp(name, fs_role_name((enum fs_role)r)) == 0)
			return r;
	return -EINVAL;
}

static int parse_mode(const char *v, enum sc_mode *out)
{
	for (unsigned m = 0; m < sizeof(mode_names) / sizeof(mode_names[0]); m++) {
		if (strcmp(v, mode_names[m]) == 0) {
			*out = (enum sc_mode)m;
			return 0;
		}
	}
	return -EINVAL;
}

static int take_fail(char *err, size_t errlen, const char *what, const char *v)
{
	return fail_msg(err, errlen, -EINVAL, "%s%s%s", what, v ? " " : "", v ? v : "");
}

/* "--name VALUE" or "--name=VALUE" at argv[*i]: the value, or NULL if it is not that option. */
static const char *option_value(int argc, char **argv, int *i, const char *name, bool *missing)
{
	size_t len = strlen(name);

	*missing = false;
	if (strncmp(argv[*i], name, len) != 0)
		return NULL;
	if (argv[*i][len] == '=')
		return argv[*i] + len + 1;
	if (argv[*i][len] != '\0')
		return NULL;
	if (*i + 1 >= argc) {
		*missing = true;
		return NULL;
	}
	*i += 1;
	return argv[*i];
}

int sc_take_args(int *argc, char **argv, struct sc_opts *o, char *err, size_t errlen)
{
	int out = 1, i;

	o->mode = SC_KILL;
	o->print_role = NULL;
	for (i = 1; i < *argc && strcmp(argv[i], "--") != 0; i++) {
		bool missing;
		const char *v = option_value(*argc, argv, &i, "--seccomp", &missing);

		if (missing)
			return take_fail(err, errlen, "--seccomp needs a mode: kill, log, trap or none", NULL);
		if (v) {
			if (parse_mode(v, &o->mode) < 0)
				return take_fail(err, errlen,
						 "--seccomp must be kill, log, trap or none, not", v);
			continue;
		}
		v = option_value(*argc, argv, &i, "--print-seccomp", &missing);
		if (missing)
			return take_fail(err, errlen, "--print-seccomp needs a role (control, vcpu, "
					 "queue, lock-wait, console, fuse-reader, fuse-uring, "
					 "9p-conn, vhost-user, spawner, supervisor, relay, exec-relay)", NULL);
		if (v) {
			if (sc_role_by_name(v) < 0)
				return take_fail(err, errlen, "--print-seccomp: unknown role (control, vcpu, "
						 "queue, lock-wait, console, fuse-reader, "
						 "fuse-uring, 9p-conn, vhost-user, spawner, supervisor, "
						 "relay, exec-relay):", v);
			o->print_role = v;
			continue;
		}
		argv[out++] = argv[i];
	}
	for (; i < *argc; i++)
		argv[out++] = argv[i];
	argv[out] = NULL;
	*argc = out;
	return 0;
}

static uint32_t default_action(enum sc_mode mode)
{
	switch (mode) {
	case SC_LOG:
		return SCMP_ACT_LOG;
	case SC_TRAP:
		return SCMP_ACT_TRAP;
	default:
		return SCMP_ACT_KILL_PROCESS;
	}
}

static int add_rules(scmp_filter_ctx ctx, const struct sc_group *g)
{
	for (unsigned i = 0; i < g->n; i++) {
		const struct sc_rule *r = &g->rules[i];
		uint32_t act = r->err ? SCMP_ACT_ERRNO((uint32_t)r->err) : SCMP_ACT_ALLOW;
		int rc = seccomp_rule_add_array(ctx, act, r->nr, r->nargs, r->args);

		if (rc < 0)
			return rc;
	}
	return 0;
}

/* Written by libseccomp to an fd: a memfd, read back into memory. */
static int export_program(scmp_filter_ctx ctx, struct sock_fprog *prog)
{
	int fd = memfd_create("seccomp-bpf", MFD_CLOEXEC), rc;
	off_t size;
	void *buf;

	if (fd < 0)
		return -errno;
	rc = seccomp_export_bpf(ctx, fd);
	size = rc < 0 ? -1 : lseek(fd, 0, SEEK_END);
	if (rc == 0 && (size <= 0 || size % sizeof(struct sock_filter)))
		rc = -EINVAL;
	buf = rc == 0 ? malloc((size_t)size) : NULL;
	if (rc == 0 && !buf)
		rc = -ENOMEM;
	if (rc == 0 && pread(fd, buf, (size_t)size, 0) != size)
		rc = -EIO;
	close(fd);
	if (rc < 0) {
		free(buf);
		return rc;
	}
	prog->filter = buf;
	prog->len = (unsigned short)(size / sizeof(struct sock_filter));
	return 0;
}

int sc_build(enum sc_command cmd, enum fs_role role, enum sc_mode mode,
	     struct sock_fprog *prog)
{
	const struct sc_group *groups[SC_MAX_GROUPS];
	unsigned n = sc_policy_groups(cmd, role, groups, SC_MAX_GROUPS);
	scmp_filter_ctx ctx;
	int rc = 0;

	if (!n)
		return -EINVAL;
	ctx = seccomp_init(default_action(mode));
	if (!ctx)
		return -ENOMEM;
	/* Hot calls are found in a few steps, not at the end of a long list. */
	seccomp_attr_set(ctx, SCMP_FLTATR_CTL_OPTIMIZE, 2);
	for (unsigned i = 0; i < n && rc == 0; i++)
		rc = add_rules(ctx, groups[i]);
	/* pthread_kill and raise reach our own threads only; the SIGSYS report too. */
	if (rc == 0)
		rc = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(tgkill), 1,
				      SCMP_A0(SCMP_CMP_EQ, (scmp_datum_t)getpid()));
	if (rc == 0)
		rc = export_program(ctx, prog);
	seccomp_release(ctx);
	return rc;
}

void sc_free(struct sock_fprog *prog)
{
	free(prog->filter);
	prog->filter = NULL;
	prog->len = 0;
}

static const char *syscall_name(int nr)
{
	char *s = seccomp_syscall_resolve_num_arch(SCMP_ARCH_NATIVE, nr);
	static char unknown[] = "?";

	return s ? s : unknown;
}

static void print_arg(FILE *f, const struct scmp_arg_cmp *a)
{
	if (a->op == SCMP_CMP_MASKED_EQ)
		fprintf(f, " arg%u&%#llx==%#llx", a->arg, (unsigned long long)a->datum_a,
			(unsigned long long)a->datum_b);
	else
		fprintf(f, " arg%u%s%#llx", a->arg, a->op == SCMP_CMP_NE ? "!=" : "==",
			(unsigned long long)a->datum_a);
}

void sc_print_role(FILE *f, enum sc_command cmd, enum fs_role role, enum sc_mode mode)
{
	const struct sc_group *groups[SC_MAX_GROUPS];
	unsigned n = sc_policy_groups(cmd, role, groups, SC_MAX_GROUPS);

	fprintf(f, "# role %s: %u system calls; anything else: %s\n", fs_role_name(role),
		sc_role_syscalls(cmd, role), mode == SC_NONE ? "allowed (--seccomp none)" :
		mode == SC_LOG ? "allowed and logged" : mode == SC_TRAP ?
		"reported on stderr, then SIGSYS" : "the process is killed (SIGSYS)");
	for (unsigned i = 0; i < n; i++) {
		fprintf(f, "# %s\n", groups[i]->name);
		for (unsigned j = 0; j < groups[i]->n; j++) {
			const struct sc_rule *r = &groups[i]->rules[j];
			char *name = seccomp_syscall_resolve_num_arch(SCMP_ARCH_NATIVE, r->nr);

			if (name)
				fprintf(f, "%s", name);
			else
				fprintf(f, "syscall_%d", r->nr);
			free(name);
			for (unsigned a = 0; a < r->nargs; a++)
				print_arg(f, &r->args[a]);
			if (r->err)
				fprintf(f, " -> %s", strerrorname_np(r->err));
			fprintf(f, "\t# %s\n", r->why);
		}
	}
	fprintf(f, "tgkill arg0==getpid()\t# pthread_kill and raise: our own threads only\n");
}

unsigned sc_role_syscalls(enum sc_command cmd, enum fs_role role)
{
	const struct sc_group *groups[SC_MAX_GROUPS];
	unsigned n = sc_policy_groups(cmd, role, groups, SC_MAX_GROUPS), count = 1; /* tgkill */
	static bool seen[SC_NAMES_MAX];

	memset(seen, 0, sizeof(seen));
	for (unsigned i = 0; i < n; i++)
		for (unsigned j = 0; j < groups[i]->n; j++) {
			int nr = groups[i]->rules[j].nr;

			if (nr >= 0 && nr < SC_NAMES_MAX && !seen[nr] && nr != SCMP_SYS(tgkill)) {
				seen[nr] = true;
				count++;
			}
		}
	return count;
}

/* ---- trap mode: one line, then the death kill mode would have been ---- */

static size_t put(char *buf, size_t at, size_t cap, const char *s)
{
	while (*s && at + 1 < cap)
		buf[at++] = *s++;
	return at;
}

static size_t put_num(char *buf, size_t at, size_t cap, unsigned long v)
{
	char tmp[24];
	int n = 0;

	do {
		tmp[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	while (n && at + 1 < cap)
		buf[at++] = tmp[--n];
	return at;
}

/* Async-signal-safe: only the tables resolved at set-up, write and tgkill. */
static void on_sigsys(int sig, siginfo_t *si, void *uc)
{
	const char *role = fs_role_name(fs_thread_role());
	int nr = si->si_syscall;
	const char *name = nr >= 0 && nr < SC_NAMES_MAX && syscall_names[nr] ? syscall_names[nr] : "?";
	char line[256];
	size_t n = 0;

	(void)uc;
	n = put(line, n, sizeof(line), "stainless: seccomp: thread ");
	n = put_num(line, n, sizeof(line), (unsigned long)syscall(SYS_gettid));
	n = put(line, n, sizeof(line), " (role ");
	n = put(line, n, sizeof(line), role ? role : "?");
	n = put(line, n, sizeof(line), ") made a forbidden system call: ");
	n = put(line, n, sizeof(line), name);
	n = put(line, n, sizeof(line), " (");
	n = put_num(line, n, sizeof(line), (unsigned long)nr);
	n = put(line, n, sizeof(line), ")\n");
	(void)!write(STDERR_FILENO, line, n);
	/* SA_RESETHAND made SIGSYS fatal again: pending now, it ends the process on return. */
	syscall(SYS_tgkill, getpid(), syscall(SYS_gettid), sig);
}

static int install_reporter(void)
{
	struct sigaction sa = { .sa_sigaction = on_sigsys, .sa_flags = SA_SIGINFO | SA_RESETHAND };

	for (int nr = 0; nr < SC_NAMES_MAX; nr++) {
		const char *s = syscall_name(nr);

		syscall_names[nr] = strcmp(s, "?") ? s : NULL;
	}
	sigemptyset(&sa.sa_mask);
	return sigaction(SIGSYS, &sa, NULL) < 0 ? -errno : 0;
}

/* ---- kill mode: the parent reads the kernel's audit record -------------- */

int sc_report_open(void)
{
	int fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);

	/* Only what is logged from now on. */
	if (fd >= 0 && lseek(fd, 0, SEEK_END) < 0) {
		close(fd);
		fd = -1;
	}
	return fd;
}

/* In an audit record "... pid=N comm="NAME" ... syscall=NR ...": 0 when it is pid's. */
int sc_audit_record(const char *rec, int pid, char *comm, size_t commlen, int *nr)
{
	const char *p = strstr(rec, "type=1326"), *c, *q;

	if (!p || !(q = strstr(p, " pid=")) || (pid >= 0 && atoi(q + 5) != pid))
		return -1;
	if (!(q = strstr(p, " syscall=")))
		return -1;
	*nr = atoi(q + 9);
	comm[0] = '\0';
	if ((c = strstr(p, " comm=\"")) && (q = strchr(c + 7, '"')) && (size_t)(q - c - 7) < commlen) {
		memcpy(comm, c + 7, (size_t)(q - c - 7));
		comm[q - c - 7] = '\0';
	}
	return 0;
}

/* Threads name themselves after their role (the name is all the kernel logs). */
static const char *role_of_comm(const char *comm)
{
	static const struct { const char *prefix; enum fs_role role; } names[] = {
		{ "stainless", FS_ROLE_CONTROL }, { "vcpu", FS_ROLE_VCPU },
		{ "virtio-", FS_ROLE_QUEUE }, { "lock-wait", FS_ROLE_LOCK_WAIT },
		{ "console", FS_ROLE_CONSOLE },
		{ "fuse-r", FS_ROLE_FUSE_READER }, { "fuse-q", FS_ROLE_FUSE_URING },
		{ "9p-conn", FS_ROLE_P9_CONN }, { "spawner", FS_ROLE_SPAWNER },
	};

	for (unsigned i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (strncmp(comm, names[i].prefix, strlen(names[i].prefix)) == 0)
			return fs_role_name(names[i].role);
	for (int r = FS_ROLE_NONE + 1; r < FS_ROLE_COUNT; r++)   /* a thread's first name */
		if (strcmp(comm, fs_role_name((enum fs_role)r)) == 0)
			return comm;
	return "?";
}

void sc_report_exit(FILE *f, int kmsg_fd, int pid, int status)
{
	char rec[2048], comm[64];
	ssize_t n;
	int nr;

	if (!WIFSIGNALED(status) || WTERMSIG(status) != SIGSYS)
		return;
	bool found = false;

	while (kmsg_fd >= 0 && ((n = read(kmsg_fd, rec, sizeof(rec) - 1)) > 0 || errno == EPIPE)) {
		char c[64];
		int k;

		if (n <= 0)
			continue;   /* EPIPE: records overwritten meanwhile; go on */
		rec[n] = '\0';
		if (sc_audit_record(rec, pid, c, sizeof(c), &k) == 0 && strcmp(role_of_comm(c), "?")) {
			snprintf(comm, sizeof(comm), "%s", c);
			nr = k;
			found = true;
			if (pid >= 0)
				break;  /* pid's own record; with -1 the last one counts */
		}
	}
	if (found) {
		char *name = seccomp_syscall_resolve_num_arch(SCMP_ARCH_NATIVE, nr);

		fprintf(f, "stainless: seccomp killed the process: thread '%s' (role %s) made a "
			"forbidden system call: %s (%d)\n", comm, role_of_comm(comm),
			name ? name : "?", nr);
		free(name);
		return;
	}
	fprintf(f, "stainless: seccomp killed the process (SIGSYS): a thread made a system call its "
		"role does not allow; the kernel's audit line names it (dmesg | grep type=1326), or "
		"rerun with --seccomp trap\n");
}

static bool filters_set;

/*
 * glibc reads /proc/sys/vm/overcommit_memory the first time it shrinks a
 * thread arena's heap (often a thread's last free, at its exit), and
 * caches the answer. No role may open files there, so make it read it now:
 * a thread (a fresh arena) fills its heap with blocks too large for the
 * thread cache and small enough for the heap, then frees them into the
 * top, which glibc then trims. Found by the e2e guests: a vCPU died at
 * exit after a device's worker had come and gone.
 */
#define WARM_BLOCKS 48
#define WARM_BLOCK (32u << 10)

static void *warm_arena(void *arg)
{
	void *p[WARM_BLOCKS];

	for (unsigned i = 0; i < WARM_BLOCKS; i++)
		p[i] = malloc(WARM_BLOCK);
	for (unsigned i = WARM_BLOCKS; i-- > 0;)
		free(p[i]);
	return arg;
}

static void warm_glibc(void)
{
	pthread_t t;

	if (pthread_create(&t, NULL, warm_arena, NULL) == 0)
		pthread_join(t, NULL);
}

#ifdef __SANITIZE_ADDRESS__
/*
 * LeakSanitizer's exit check stops the world with clone and ptrace, which
 * no role may do: a SANITIZE=1 build checks leaks only without filters.
 */
int __lsan_is_turned_off(void);
int __lsan_is_turned_off(void)
{
	return filters_set;
}
#endif

static enum sc_command setup_cmd;
static enum sc_mode setup_mode;

/* fs_thread's builder: one role's program, in the process that runs it. */
static int build_role(enum fs_role role)
{
	int rc = sc_build(setup_cmd, role, setup_mode, &programs[role]);

	if (rc < 0) {
		fprintf(stderr, "stainless: seccomp: cannot build the %s role's filter: %s\n",
			fs_role_name(role), strerror(-rc));
		return rc;
	}
	fs_thread_set_filter(role, &programs[role]);
	return 0;
}

int sc_setup(enum sc_command cmd, enum sc_mode mode, char *err, size_t errlen)
{
	int rc;

	if (mode == SC_NONE) {
		fprintf(stderr, "stainless: warning: --seccomp none: no thread is confined by seccomp\n");
		return 0;
	}
	warm_glibc();
	if (mode == SC_TRAP && (rc = install_reporter()) < 0) {
		snprintf(err, errlen, "SIGSYS handler: %s", strerror(-rc));
		return rc;
	}
	/* Built after a sandbox's fork, in each process (fs_thread_prebuild). */
	setup_cmd = cmd;
	setup_mode = mode;
	fs_thread_set_builder(build_role);
	filters_set = true;
	return 0;
}
