// SPDX-License-Identifier: GPL-2.0-only
/*
 * `stainless exec [OPTIONS] ROOTDIR -- CMD [ARGS...]`: a command in a
 * microVM whose root file system is ROOTDIR (docs/containers.md).
 *
 * The process splits in two once the run's folder is made (a private
 * directory holding the guest's initramfs and the vsock sockets):
 *  - the child is `run` with a config composed here (run_config): ROOTDIR
 *    as the virtio-fs share "root", a vsock device whose host side is that
 *    folder, the initramfs with stainless's own guest init
 *    (guest-images/exec-init.c, carried inside this binary), no console;
 *    it runs in its own process group, so a terminal's ^C is the
 *    command's business, and dies with its parent;
 *  - the parent is the relay (exec_relay.c): the command's stdio, its
 *    signals and its status, under the exec-relay seccomp role.
 */
#include "cmd/exec.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <unistd.h>

#include "base/exit.h"
#include "base/fail.h"
#include "cmd/exec_cli.h"
#include "cmd/exec_relay.h"
#include "cmd/exec_wire.h"
#include "cmd/run.h"
#include "cmd/run_cli.h"
#include "cmd/run_table.h"

/* The guest's initramfs: /init alone (cmd/exec_initramfs.S). */
extern const unsigned char exec_initramfs[], exec_initramfs_end[];

#define DEFAULT_PATH "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
#define BASE_CMDLINE "console=ttyS0 reboot=k panic=-1 rdinit=/init"

static const char *const stream_ports[EXEC_STREAMS] = { "7000", "7001", "7002", "7003" };
_Static_assert(EXEC_PORT_CTL == 7000 && EXEC_PORT_STDERR == 7003, "stream_ports");

struct exec_run {
	struct exec_opts o;
	char dir[PATH_MAX];         /* the run's folder */
	int dir_fd;
	char initrd[PATH_MAX];
	char kernel[PATH_MAX + 64];
	char cmdline[4096];
	struct exec_relay relay;
};

/*
 * Without --kernel: the one installed beside the binary (make install puts
 * it in PREFIX/share/stainless), else the build tree's (make guest-kernel).
 */
static int find_kernel(struct exec_run *x)
{
	static const char *const rel[] = { "../share/stainless/bzImage", "guest/bzImage" };
	char exe[PATH_MAX - 64], *slash;
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

	if (x->o.cfg.kernel)
		return 0;
	if (n > 0) {
		exe[n] = '\0';
		slash = strrchr(exe, '/');
		if (slash)
			*slash = '\0';
		for (unsigned i = 0; i < sizeof(rel) / sizeof(rel[0]); i++) {
			snprintf(x->kernel, sizeof(x->kernel), "%s/%s", exe, rel[i]);
			if (access(x->kernel, R_OK) == 0) {
				x->o.cfg.kernel = x->kernel;
				return 0;
			}
		}
	}
	return fail(-ENOENT, "no guest kernel installed beside stainless: pass --kernel PATH "
		    "(or run make install, or make guest-kernel in the source tree)");
}

static int check_rootdir(const char *dir)
{
	struct stat st;

	if (stat(dir, &st) < 0)
		return fail(-errno, "ROOTDIR %s: %s", dir, strerror(errno));
	if (!S_ISDIR(st.st_mode))
		return fail(-ENOTDIR, "ROOTDIR %s: not a directory", dir);
	return 0;
}

static int write_initrd(struct exec_run *x)
{
	size_t len = (size_t)(exec_initramfs_end - exec_initramfs), off = 0;
	int fd = openat(x->dir_fd, "initramfs.cpio", O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);

	if (fd < 0)
		return fail(-errno, "%s/initramfs.cpio: %s", x->dir, strerror(errno));
	while (off < len) {
		ssize_t w = write(fd, exec_initramfs + off, len - off);

		if (w <= 0) {
			int e = w < 0 ? errno : EIO;

			close(fd);
			return fail(-e, "%s/initramfs.cpio: %s", x->dir, strerror(e));
		}
		off += (size_t)w;
	}
	close(fd);
	snprintf(x->initrd, sizeof(x->initrd), "%s/initramfs.cpio", x->dir);
	return 0;
}

/* UDS_P for each of the guest's four ports, listening before the VM starts. */
static int listen_streams(struct exec_run *x)
{
	for (int i = 0; i < EXEC_STREAMS; i++) {
		struct sockaddr_un a = { .sun_family = AF_UNIX };
		int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

		snprintf(a.sun_path, sizeof(a.sun_path), "%s/v.sock_%s", x->dir, stream_ports[i]);
		if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof(a)) < 0 || listen(fd, 1) < 0) {
			int e = errno;

			if (fd >= 0)
				close(fd);
			return fail(-e, "%s: %s", a.sun_path, strerror(e));
		}
		x->relay.listen[i] = fd;
	}
	return 0;
}

static int make_run_dir(struct exec_run *x)
{
	const char *tmp = getenv("TMPDIR");

	snprintf(x->dir, sizeof(x->dir), "%s/stainless-exec.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (strlen(x->dir) > 80) /* the sockets' names must fit sun_path */
		snprintf(x->dir, sizeof(x->dir), "/tmp/stainless-exec.XXXXXX");
	if (!mkdtemp(x->dir))
		return fail(-errno, "%s: %s", x->dir, strerror(errno));
	x->dir_fd = open(x->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	return x->dir_fd < 0 ? fail(-errno, "%s: %s", x->dir, strerror(errno)) : 0;
}

static void remove_run_dir(struct exec_run *x)
{
	char name[32];

	if (x->dir_fd < 0)
		return;
	unlinkat(x->dir_fd, "initramfs.cpio", 0);
	unlinkat(x->dir_fd, "v.sock", 0);
	for (int i = 0; i < EXEC_STREAMS; i++) {
		snprintf(name, sizeof(name), "v.sock_%s", stream_ports[i]);
		unlinkat(x->dir_fd, name, 0);
	}
	close(x->dir_fd);
	x->dir_fd = -1;
	rmdir(x->dir);
}

/* The VM run builds: ROOTDIR as "root", vsock into the run's folder, no console. */
static int compose_vm(struct exec_run *x)
{
	struct vm_config *cfg = &x->o.cfg;
	char spec[4200], err[256];

	snprintf(x->cmdline, sizeof(x->cmdline), "%s%s%s%s", BASE_CMDLINE,
		 x->o.console_log ? "" : " quiet loglevel=1",
		 x->o.cmdline_extra ? " " : "", x->o.cmdline_extra ? x->o.cmdline_extra : "");
	cfg->cmdline = x->cmdline;
	cfg->initrd = x->initrd;
	if (x->o.console_log) {
		cfg->console = CONSOLE_FILE;
		cfg->console_path = x->o.console_log;
	}
	/* cache=always: the root is this VM's alone (docs/containers.md). */
	snprintf(spec, sizeof(spec), "root=%s,cache=always", x->o.rootdir);
	if (cli_run_option(cfg, &x->o.sbo, RUN_FS, spec, err, sizeof(err)) < 0)
		return fail(-EINVAL, "%s", err);
	snprintf(spec, sizeof(spec), "3,%s/v.sock,conns=8", x->dir);
	if (cli_run_option(cfg, &x->o.sbo, RUN_VSOCK, spec, err, sizeof(err)) < 0)
		return fail(-EINVAL, "%s", err);
	return 0;
}

static bool has_env(const struct exec_opts *o, const char *key)
{
	size_t n = strlen(key);

	for (unsigned i = 0; i < o->nenv; i++)
		if (strncmp(o->env[i], key, n) == 0 && o->env[i][n] == '=')
			return true;
	return false;
}

static int put_string(struct exec_relay *r, uint8_t type, const char *s)
{
	return exec_relay_queue(r, type, s, strlen(s));
}

/* The command as frames (exec_wire.h), sent as soon as the guest connects. */
static int compose_command(struct exec_run *x)
{
	const struct exec_opts *o = &x->o;
	struct exec_relay *r = &x->relay;
	char term[256];
	uint8_t p[20];
	int rc = 0;

	for (unsigned i = 0; i < o->argc && rc == 0; i++)
		rc = put_string(r, EXEC_ARG, o->argv[i]);
	if (rc == 0 && !has_env(o, "PATH"))
		rc = put_string(r, EXEC_ENV, DEFAULT_PATH);
	if (rc == 0 && !has_env(o, "HOME"))
		rc = put_string(r, EXEC_ENV, o->user && o->uid ? "HOME=/" : "HOME=/root");
	if (rc == 0 && r->tty && !has_env(o, "TERM")) {
		const char *t = getenv("TERM");

		snprintf(term, sizeof(term), "TERM=%s", t && *t && strlen(t) < 200 ? t : "xterm");
		rc = put_string(r, EXEC_ENV, term);
	}
	for (unsigned i = 0; i < o->nenv && rc == 0; i++)
		rc = put_string(r, EXEC_ENV, o->env[i]);
	if (rc == 0 && o->cwd)
		rc = put_string(r, EXEC_CWD, o->cwd);
	if (rc == 0 && o->hostname)
		rc = put_string(r, EXEC_HOSTNAME, o->hostname);
	if (rc == 0 && o->user) {
		exec_put_u32(p, o->uid);
		exec_put_u32(p + 4, o->gid);
		rc = exec_relay_queue(r, EXEC_USER, p, 8);
	}
	for (unsigned i = 0; i < o->nrl && rc == 0; i++) {
		exec_put_u32(p, (uint32_t)o->rl[i].resource);
		exec_put_u64(p + 4, o->rl[i].soft);
		exec_put_u64(p + 12, o->rl[i].hard);
		rc = exec_relay_queue(r, EXEC_RLIMIT, p, 20);
	}
	if (rc == 0 && r->tty) {
		struct winsize ws = { .ws_row = 24, .ws_col = 80 };

		ioctl(0, TIOCGWINSZ, &ws);
		exec_put_u16(p, ws.ws_row);
		exec_put_u16(p + 2, ws.ws_col);
		rc = exec_relay_queue(r, EXEC_TTY, p, 4);
	}
	if (rc == 0)
		rc = exec_relay_queue(r, EXEC_START, NULL, 0);
	return rc < 0 ? fail(rc, "the command: %s", strerror(-rc)) : 0;
}

/* The child: run's VMM with the composed config; never returns. */
static void __attribute__((noreturn)) vmm_child(struct exec_run *x, pid_t parent)
{
	int null = open("/dev/null", O_RDONLY | O_CLOEXEC), rc;

	setpgid(0, 0);
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != parent)
		_exit(EXIT_FAILED);
	for (int i = 0; i < EXEC_STREAMS; i++)
		close(x->relay.listen[i]);
	close(x->dir_fd);
	/* The command owns stdin and stdout; the VMM's own lines go to stderr. */
	if (null < 0 || dup2(null, 0) < 0 || dup2(2, 1) < 0)
		_exit(EXIT_FAILED);
	rc = exit_status(run_config(&x->o.cfg, &x->o.sbo));
	if (rc == 128 + SIGSYS)
		fail(rc, "the VMM was killed by its seccomp filter (--seccomp log names the call)");
	fflush(stderr);
	_exit(rc);
}

static int start_vmm(struct exec_run *x)
{
	pid_t parent = getpid(), pid;

	fflush(NULL);
	pid = fork();
	if (pid < 0)
		return fail(-errno, "fork: %s", strerror(errno));
	if (pid == 0)
		vmm_child(x, parent);
	x->relay.vmm = pid;
	x->relay.vmm_pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
	if (x->relay.vmm_pidfd < 0) {
		int e = errno;

		kill(pid, SIGKILL);
		return fail(-e, "pidfd_open: %s", strerror(e));
	}
	return 0;
}

static int exec_setup(struct exec_run *x)
{
	int rc;

	if ((rc = check_rootdir(x->o.rootdir)) < 0 || (rc = find_kernel(x)) < 0)
		return rc;
	if ((rc = make_run_dir(x)) < 0 || (rc = write_initrd(x)) < 0 ||
	    (rc = listen_streams(x)) < 0 || (rc = compose_vm(x)) < 0)
		return rc;
	x->relay.tty = isatty(0);
	return compose_command(x);
}

int exec_main(int argc, char **argv)
{
	struct exec_run *x = calloc(1, sizeof(*x));
	char err[256];
	int rc;

	if (!x)
		return fail(-ENOMEM, "out of memory");
	x->dir_fd = -1;
	for (int i = 0; i < EXEC_STREAMS; i++)
		x->relay.listen[i] = -1;
	rc = cli_parse_exec(argc, argv, &x->o, err, sizeof(err));
	if (rc != 0) {
		if (rc < 0)
			fail(rc, "%s", err);
		exec_opts_free(&x->o);
		free(x);
		return rc < 0 ? EXIT_USAGE : EXIT_OK;
	}
	rc = exec_setup(x);
	if (rc == 0)
		rc = start_vmm(x);
	if (rc == 0) {
		rc = exec_relay_run(&x->relay);
	} else {
		for (int i = 0; i < EXEC_STREAMS; i++)
			if (x->relay.listen[i] >= 0)
				close(x->relay.listen[i]);
		free(x->relay.spec);
	}
	remove_run_dir(x);
	exec_opts_free(&x->o);
	free(x);
	return rc;
}
