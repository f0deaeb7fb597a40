// SPDX-License-Identifier: GPL-2.0-only
/*
 * fuse-mount --passthrough's registrar, driven as a compromised server
 * would drive it (issue 29, item 2). The program makes a FUSE connection
 * of its own (mount(2) of /dev/fuse, INIT answered with FUSE_PASSTHROUGH,
 * so the kernel's ioctl really runs), starts the real registrar on it
 * (fuse_registrar_start, under fuse-mount's seccomp filters in kill mode)
 * and then speaks the registrar's socket protocol by hand:
 *
 *   before HELLO, an OPEN                      refused (ENOTCONN)
 *   HELLO with a directory inside the share    refused (EXDEV: not the mount root)
 *   HELLO with /, a mount root but not the     refused (EXDEV)
 *     share; HELLO with the share root         accepted; a second HELLO refused
 *   OPEN of a regular file in the share        a backing id > 0
 *   OPEN of a directory, a FIFO, a socket      refused (EISDIR, EINVAL, EINVAL)
 *   OPEN of the same file through a bind       refused (EXDEV: another mount)
 *     mount of the share, of a file on another
 *     mount (/proc's, the probe's own binary), of a memfd
 *   OPEN of an immutable or append-only file   refused (EPERM) where tmpfs sets the flag
 *   OPEN without an fd, with two fds, an       refused (EINVAL)
 *     unknown op, a short message
 *   CLOSE of an id it never got                refused (ENOENT)
 *   OPEN beyond REGISTRAR_MAX_IDS              refused (ENFILE); CLOSE of each: ids back to 0
 *   the registrar process                      CapEff CAP_SYS_ADMIN alone, NoNewPrivs 1,
 *                                              Seccomp 2, fds: 0-2, its socket, /dev/fuse
 *
 * usage: fuse_registrar_probe check SHARE MNT BIND   (SHARE an empty tmpfs mount root,
 *                                                    MNT an empty dir, BIND: SHARE's bind)
 *        fuse_registrar_probe mmap FILE              (write through a shared mapping)
 * One "ok: ..." line per check; exit 0, 1 on a failed check, 77 when it cannot run.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fs/fuse/fuse_server.h"
#include "fs/fuse/fuse_wire.h"
#include "sandbox/seccomp.h"
#include "transport/fuse_registrar.h"

static int failures;

#define CHECK(cond, ...)                                                       \
	do {                                                                   \
		if (cond) {                                                    \
			printf("ok: ");                                        \
		} else {                                                       \
			printf("FAIL: ");                                      \
			failures++;                                            \
		}                                                              \
		printf(__VA_ARGS__);                                           \
		printf("\n");                                                  \
		fflush(stdout);                                                \
	} while (0)

/* The kernel's INIT, answered with passthrough; -errno when it does not offer it. */
static int answer_init(int fd)
{
	static uint8_t buf[FUSE_MIN_READ_BUFFER + 65536];
	struct fuse_in_header *in = (struct fuse_in_header *)buf;
	struct fuse_init_in *ii = (struct fuse_init_in *)(in + 1);
	struct {
		struct fuse_out_header h;
		struct fuse_init_out o;
	} rep = { 0 };
	ssize_t n = read(fd, buf, sizeof(buf));

	if (n < (ssize_t)(sizeof(*in) + 16) || in->opcode != FUSE_INIT)
		return -EPROTO;
	uint64_t offered = ii->flags | ((ii->flags & FUSE_INIT_EXT) ? (uint64_t)ii->flags2 << 32 : 0);
	uint64_t want = FUSE_INIT_EXT | FUSE_PASSTHROUGH;
	rep.h = (struct fuse_out_header){ .len = sizeof(rep), .unique = in->unique };
	rep.o = (struct fuse_init_out){ .major = 7, .minor = ii->minor < 40 ? ii->minor : 40,
					.max_write = 65536, .flags = (uint32_t)(want & offered),
					.flags2 = (uint32_t)((want & offered) >> 32) };
	FUSE_INIT_OUT_MAX_STACK_DEPTH(&rep.o) = 1;
	if (write(fd, &rep, sizeof(rep)) != sizeof(rep))
		return -errno;
	return (offered & FUSE_PASSTHROUGH) ? 0 : -EOPNOTSUPP;
}

/* One raw message with nfd copies of fd (as a server that does not play by the rules). */
static int raw_call(int sock, const void *msg, size_t len, int fd, int nfd,
		    struct registrar_answer *a)
{
	union {
		struct cmsghdr h;
		char buf[CMSG_SPACE(2 * sizeof(int))];
	} c;
	struct iovec iov = { (void *)msg, len };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };
	int fds[2] = { fd, fd };

	if (nfd) {
		memset(&c, 0, sizeof(c));
		mh.msg_control = c.buf;
		mh.msg_controllen = CMSG_SPACE(nfd * sizeof(int));
		struct cmsghdr *h = CMSG_FIRSTHDR(&mh);
		h->cmsg_level = SOL_SOCKET;
		h->cmsg_type = SCM_RIGHTS;
		h->cmsg_len = CMSG_LEN(nfd * sizeof(int));
		memcpy(CMSG_DATA(h), fds, nfd * sizeof(int));
	}
	if (sendmsg(sock, &mh, MSG_NOSIGNAL) < 0)
		return -errno;
	if (recv(sock, a, sizeof(*a), 0) != sizeof(*a))
		return -EPIPE;
	return a->result;
}

static int open_path(const char *dir, const char *name, int flags)
{
	char p[4096];

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	return open(p, flags | O_CLOEXEC, 0644);
}

static int reg_open(struct fuse_registrar *r, int fd)
{
	int res = fuse_registrar_call(r, REGISTRAR_OPEN, fd, 0, NULL);

	if (fd >= 0)
		close(fd);
	return res;
}

/* "Name:\tvalue" of /proc/PID/status. */
static void status_field(pid_t pid, const char *name, char *out, size_t len)
{
	char p[64], line[256];
	FILE *f;

	snprintf(p, sizeof(p), "/proc/%d/status", (int)pid);
	*out = 0;
	if (!(f = fopen(p, "r")))
		return;
	while (fgets(line, sizeof(line), f))
		if (strncmp(line, name, strlen(name)) == 0 && line[strlen(name)] == ':') {
			snprintf(out, len, "%s", line + strlen(name) + 2);
			out[strcspn(out, "\n")] = 0;
		}
	fclose(f);
}

static pid_t registrar_pid(void)
{
	char p[64], buf[64];
	FILE *f;
	int pid = -1;

	/* The probe's one child. */
	snprintf(p, sizeof(p), "/proc/%d/task/%d/children", (int)getpid(), (int)getpid());
	if ((f = fopen(p, "r"))) {
		if (fgets(buf, sizeof(buf), f))
			pid = atoi(buf);
		fclose(f);
	}
	return pid;
}

static void check_process(void)
{
	pid_t pid = registrar_pid();
	char v[128], p[64];
	unsigned nfd = 0;

	status_field(pid, "CapEff", v, sizeof(v));
	CHECK(strtoull(v, NULL, 16) == (1ull << 21), "registrar pid %d: CapEff %s (CAP_SYS_ADMIN alone)", (int)pid, v);
	status_field(pid, "CapPrm", v, sizeof(v));
	CHECK(strtoull(v, NULL, 16) == (1ull << 21), "registrar: CapPrm %s", v);
	status_field(pid, "NoNewPrivs", v, sizeof(v));
	CHECK(strcmp(v, "1") == 0, "registrar: NoNewPrivs %s", v);
	status_field(pid, "Seccomp", v, sizeof(v));
	CHECK(strcmp(v, "2") == 0, "registrar: Seccomp %s (a filter)", v);
	for (int fd = 0; fd < 64; fd++) {
		char target[256];
		ssize_t n;

		snprintf(p, sizeof(p), "/proc/%d/fd/%d", (int)pid, fd);
		if ((n = readlink(p, target, sizeof(target) - 1)) < 0)
			continue;
		target[n] = 0;
		nfd++;
		if (fd > 2 && strncmp(target, "socket:", 7) != 0 && strcmp(target, "/dev/fuse") != 0)
			CHECK(0, "registrar holds fd %d -> %s", fd, target);
	}
	CHECK(nfd <= 5, "registrar: %u fds (stdio, its socket, /dev/fuse)", nfd);
}

/* f (a regular file), d, fifo and sock beneath the share. */
static int make_share(const char *share)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	char p[4096];
	int fd, s;

	fd = open_path(share, "f", O_WRONLY | O_CREAT | O_TRUNC);
	snprintf(p, sizeof(p), "%s/d", share);
	if (fd < 0 || write(fd, "data\n", 5) != 5 || mkdir(p, 0755) < 0) {
		printf("FAIL: %s: %s\n", share, strerror(errno));
		return -1;
	}
	close(fd);
	snprintf(p, sizeof(p), "%s/fifo", share);
	if (mkfifo(p, 0644) < 0) {
		printf("FAIL: mkfifo %s: %s\n", p, strerror(errno));
		return -1;
	}
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s/sock", share);
	s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (s < 0 || bind(s, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		printf("FAIL: a socket at %s: %s\n", sa.sun_path, strerror(errno));
		return -1;
	}
	close(s);
	for (unsigned i = 0; i < 2; i++) {
		fd = open_path(share, i ? "append" : "immutable", O_WRONLY | O_CREAT | O_TRUNC);
		if (fd >= 0)
			close(fd);
	}
	return 0;
}

static int check(const char *share, const char *mnt, const char *bind)
{
	struct fuse_registrar *r;
	struct registrar_answer a;
	char opts[128];
	int fuse, sock, fd, id, res;

	if (make_share(share) < 0)
		return 1;
	fuse = open("/dev/fuse", O_RDWR | O_CLOEXEC);
	if (fuse < 0) {
		printf("SKIP: /dev/fuse: %s\n", strerror(errno));
		return 77;
	}
	snprintf(opts, sizeof(opts), "fd=%d,rootmode=40000,user_id=0,group_id=0", fuse);
	if (mount("probe", mnt, "fuse.probe", MS_NOSUID | MS_NODEV, opts) < 0) {
		printf("SKIP: mount(2) of a FUSE file system: %s\n", strerror(errno));
		return 77;
	}
	res = answer_init(fuse);
	if (res == -EOPNOTSUPP) {
		umount2(mnt, MNT_DETACH);
		printf("SKIP: this kernel does not offer FUSE passthrough\n");
		return 77;
	}
	if (res < 0) {
		printf("FAIL: INIT: %s\n", strerror(-res));
		return 1;
	}
	char err[256];
	if (sc_setup(SC_CMD_FUSE_MOUNT, SC_KILL, err, sizeof(err)) < 0) {
		printf("FAIL: seccomp: %s\n", err);
		return 1;
	}
	if (fuse_registrar_start(&r, fuse, share) < 0)
		return 1;
	sock = fuse_registrar_socket(r);

	res = reg_open(r, open_path(share, "f", O_RDONLY));
	CHECK(res == -ENOTCONN, "OPEN before HELLO: %s", strerror(-res));
	fd = open_path(share, "d", O_PATH | O_DIRECTORY);
	res = fuse_registrar_call(r, REGISTRAR_HELLO, fd, 0, NULL);
	close(fd);
	CHECK(res == -EXDEV, "HELLO with a directory inside the share: %s", strerror(-res));
	res = fuse_registrar_hello(r, "/");
	CHECK(res == -EXDEV, "HELLO with / (a mount root, not the share): %s", strerror(-res));
	res = fuse_registrar_hello(r, share);
	CHECK(res == 0, "HELLO with the share's root: %s", strerror(-res));
	res = fuse_registrar_hello(r, share);
	CHECK(res == -EALREADY, "a second HELLO: %s", strerror(-res));

	id = reg_open(r, open_path(share, "f", O_RDONLY));
	CHECK(id > 0, "OPEN of a regular file beneath the share: backing id %d", id);
	res = reg_open(r, open_path(share, "f", O_PATH));
	CHECK(res > 0, "OPEN of an O_PATH fd of it (the kernel takes those): id %d", res);
	if (res > 0)
		fuse_registrar_call(r, REGISTRAR_CLOSE, -1, res, NULL);
	res = reg_open(r, open_path(share, "d", O_PATH | O_DIRECTORY));
	CHECK(res == -EISDIR, "OPEN of a directory: %s", strerror(-res));
	res = reg_open(r, open_path(share, "fifo", O_PATH));
	CHECK(res == -EINVAL, "OPEN of a FIFO: %s", strerror(-res));
	res = reg_open(r, open_path(share, "sock", O_PATH));
	CHECK(res == -EINVAL, "OPEN of a socket: %s", strerror(-res));
	res = reg_open(r, open_path(bind, "f", O_RDONLY));
	CHECK(res == -EXDEV, "OPEN of the same file through a bind mount of the share: %s",
	      strerror(-res));
	res = reg_open(r, open("/proc/self/status", O_RDONLY | O_CLOEXEC));
	CHECK(res == -EXDEV, "OPEN of a file of another mount (/proc): %s", strerror(-res));
	res = reg_open(r, open("/proc/self/exe", O_RDONLY | O_CLOEXEC));
	CHECK(res == -EXDEV, "OPEN of a file of another mount (the probe's binary): %s",
	      strerror(-res));
	res = reg_open(r, memfd_create("probe", MFD_CLOEXEC));
	CHECK(res == -EXDEV, "OPEN of a memfd: %s", strerror(-res));
	static const struct { const char *name; int flag; } attrs[] = {
		{ "immutable", FS_IMMUTABLE_FL }, { "append", FS_APPEND_FL },
	};
	for (unsigned i = 0; i < 2; i++) {
		int flags = attrs[i].flag, w = open_path(share, attrs[i].name, O_RDONLY);

		if (w < 0 || ioctl(w, FS_IOC_SETFLAGS, &flags) < 0) {
			printf("note: cannot make a file %s here (%s): not checked\n", attrs[i].name,
			       strerror(errno));
			if (w >= 0)
				close(w);
			continue;
		}
		res = reg_open(r, w);
		CHECK(res == -EPERM, "OPEN of an %s file: %s", attrs[i].name, strerror(-res));
		w = open_path(share, attrs[i].name, O_RDONLY);
		flags = 0;
		if (w >= 0)
			(void)!ioctl(w, FS_IOC_SETFLAGS, &flags);
		if (w >= 0)
			close(w);
	}
	res = fuse_registrar_call(r, REGISTRAR_OPEN, -1, 0, NULL);
	CHECK(res == -EINVAL, "OPEN without an fd: %s", strerror(-res));
	fd = open_path(share, "f", O_RDONLY);
	struct registrar_msg m = { .op = REGISTRAR_OPEN };
	res = raw_call(sock, &m, sizeof(m), fd, 2, &a);
	CHECK(res == -EINVAL, "OPEN with two fds: %s", strerror(-res));
	res = raw_call(sock, &m, 4, fd, 1, &a);
	CHECK(res == -EINVAL, "a short message with an fd: %s", strerror(-res));
	m.op = 99;
	res = raw_call(sock, &m, sizeof(m), -1, 0, &a);
	CHECK(res == -EINVAL, "an unknown op: %s", strerror(-res));
	m.op = REGISTRAR_CLOSE;
	res = raw_call(sock, &m, sizeof(m), fd, 1, &a);
	CHECK(res == -EINVAL, "CLOSE carrying an fd: %s", strerror(-res));
	close(fd);
	res = fuse_registrar_call(r, REGISTRAR_CLOSE, -1, id + 1000, NULL);
	CHECK(res == -ENOENT, "CLOSE of an id it never handed out: %s", strerror(-res));
	res = fuse_registrar_call(r, REGISTRAR_CLOSE, -1, id, NULL);
	CHECK(res == 0, "CLOSE of its id: %s", strerror(-res));
	res = fuse_registrar_call(r, REGISTRAR_CLOSE, -1, id, NULL);
	CHECK(res == -ENOENT, "CLOSE of it twice: %s", strerror(-res));

	/* The bound: REGISTRAR_MAX_IDS at once, then ENFILE; all closed, none left. */
	static int32_t ids[REGISTRAR_MAX_IDS];
	unsigned n = 0;
	for (; n < REGISTRAR_MAX_IDS; n++)
		if ((ids[n] = reg_open(r, open_path(share, "f", O_RDONLY))) <= 0)
			break;
	CHECK(n == REGISTRAR_MAX_IDS, "%u ids at once (REGISTRAR_MAX_IDS %u)", n, REGISTRAR_MAX_IDS);
	res = reg_open(r, open_path(share, "f", O_RDONLY));
	CHECK(res == -ENFILE, "one more: %s", strerror(-res));
	for (unsigned i = 0; i < n; i++)
		fuse_registrar_call(r, REGISTRAR_CLOSE, -1, ids[i], NULL);
	res = fuse_registrar_call(r, REGISTRAR_STATS, -1, 0, &a);
	CHECK(res == 0 && a.ids == 0, "after closing them all: ids=%u registered=%llu refused=%llu",
	      a.ids, (unsigned long long)a.registered, (unsigned long long)a.refused);
	check_process();

	fuse_registrar_free(r);
	int st;
	pid_t w = wait(&st);
	CHECK(w > 0 && WIFEXITED(st) && WEXITSTATUS(st) == 0,
	      "the registrar exits 0 when the server's end closes (status %#x)", st);
	umount2(mnt, MNT_DETACH);
	close(fuse);
	return failures ? 1 : 0;
}

static int mmap_check(const char *path)
{
	size_t len = 1 << 16;
	int fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	uint8_t *p;

	if (fd < 0 || ftruncate(fd, (off_t)len) < 0) {
		printf("FAIL: %s: %s\n", path, strerror(errno));
		return 1;
	}
	p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED) {
		printf("FAIL: mmap %s: %s\n", path, strerror(errno));
		return 1;
	}
	for (size_t i = 0; i < len; i++)
		p[i] = (uint8_t)(i * 7 + 3);
	if (msync(p, len, MS_SYNC) < 0) {
		printf("FAIL: msync: %s\n", strerror(errno));
		return 1;
	}
	munmap(p, len);
	close(fd);
	printf("ok: wrote %zu bytes through a shared mapping of %s\n", len, path);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 3 && strcmp(argv[1], "mmap") == 0)
		return mmap_check(argv[2]);
	if (argc != 5 || strcmp(argv[1], "check") != 0) {
		fprintf(stderr, "usage: %s check SHARE MNT BIND | mmap FILE\n", argv[0]);
		return 2;
	}
	if (geteuid() != 0) {
		printf("SKIP: needs root (mount(2) of a FUSE file system, CAP_SYS_ADMIN)\n");
		return 77;
	}
	signal(SIGPIPE, SIG_IGN);
	return check(argv[2], argv[3], argv[4]);
}
