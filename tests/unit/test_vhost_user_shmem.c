// SPDX-License-Identifier: GPL-2.0-only
/*
 * The DAX window over vhost-user, backend side (transport/vhost_user_shmem.c),
 * against a frontend played by a thread on the other end of the backend
 * channel: what a SETUPMAPPING / REMOVEMAPPING puts on the wire (request,
 * flags, layout, the file's fd), what is refused before anything is sent
 * (nothing arrives), the bound, and a frontend that refuses, stays silent
 * or answers out of step.
 */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tests/unit/check_main.h"
#include "transport/vhost_user_shmem.h"

#define MiB (1ull << 20)

enum answer { ACK, REFUSE, SILENT, WRONG_REQUEST, ACK_WITH_FD };

static struct vu_shmem s;
static int fe_sock = -1;          /* the frontend's end */
static int file_fd = -1, dir_fd = -1;
static ino_t file_ino;
static pthread_t fe_thread;
static enum answer mode;
static struct { struct vu_hdr h; struct vu_mmap mm; ino_t ino; int nfds; } last;
static unsigned received;

static int recv_one(void)
{
	union {
		char buf[CMSG_SPACE(sizeof(int) * 4)];
		struct cmsghdr align;
	} ctl;
	uint8_t b[sizeof(struct vu_hdr) + sizeof(struct vu_mmap)];
	struct iovec iov = { b, sizeof(b) };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl.buf,
			     .msg_controllen = sizeof(ctl.buf) };
	ssize_t n = recvmsg(fe_sock, &mh, MSG_WAITALL);

	if (n != (ssize_t)sizeof(b))
		return -1;
	memcpy(&last.h, b, sizeof(last.h));
	memcpy(&last.mm, b + sizeof(last.h), sizeof(last.mm));
	last.nfds = 0;
	last.ino = 0;
	for (struct cmsghdr *c = CMSG_FIRSTHDR(&mh); c; c = CMSG_NXTHDR(&mh, c)) {
		int fd;
		struct stat st;

		memcpy(&fd, CMSG_DATA(c), sizeof(fd));
		last.nfds += (int)((c->cmsg_len - CMSG_LEN(0)) / sizeof(int));
		if (fstat(fd, &st) == 0)
			last.ino = st.st_ino;
		close(fd);
	}
	received++;
	return 0;
}

/* A hostile frontend's ack that carries an fd (a fresh pipe's read end). */
static void send_with_fd(const void *buf, size_t len)
{
	union {
		char b[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} ctl;
	struct iovec iov = { (void *)buf, len };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl.b,
			     .msg_controllen = sizeof(ctl.b) };
	struct cmsghdr *c = CMSG_FIRSTHDR(&mh);
	int p[2];

	if (pipe2(p, O_CLOEXEC) < 0)
		return;
	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(c), &p[0], sizeof(int));
	(void)!sendmsg(fe_sock, &mh, MSG_NOSIGNAL);
	close(p[0]);
	close(p[1]);
}

static int count_fds(void)
{
	int n = 0;

	for (int fd = 0; fd < 1024; fd++)
		n += fcntl(fd, F_GETFD) >= 0;
	return n;
}

static void *frontend(void *arg)
{
	(void)arg;
	while (recv_one() == 0) {
		struct { struct vu_hdr h; uint64_t st; } __attribute__((packed)) r = {
			{ last.h.request, VU_VERSION | VU_FLAG_REPLY, 8 }, mode == REFUSE };

		if (mode == SILENT)
			continue;
		if (mode == WRONG_REQUEST)
			r.h.request = 77;
		if (mode == ACK_WITH_FD) {
			send_with_fd(&r, sizeof(r));
			continue;
		}
		if (send(fe_sock, &r, sizeof(r), MSG_NOSIGNAL) != sizeof(r))
			break;
	}
	return NULL;
}

static void setup(void)
{
	char path[] = "/tmp/vu_shmem.XXXXXX";
	int sv[2];
	struct stat st;

	ck_assert_int_eq(vu_shmem_init(&s, 64 * MiB), 0);
	s.ack_ms = 200;
	file_fd = mkstemp(path);
	ck_assert_int_ge(file_fd, 0);
	unlink(path);
	ck_assert_int_eq(ftruncate(file_fd, 8 * MiB), 0);
	ck_assert_int_eq(fstat(file_fd, &st), 0);
	file_ino = st.st_ino;
	dir_fd = open("/tmp", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	ck_assert_int_ge(dir_fd, 0);
	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
	fe_sock = sv[0];
	vu_shmem_set_channel(&s, sv[1]);
	mode = ACK;
	received = 0;
	ck_assert_int_eq(pthread_create(&fe_thread, NULL, frontend, NULL), 0);
}

static void teardown(void)
{
	shutdown(fe_sock, SHUT_RDWR);
	pthread_join(fe_thread, NULL);
	close(fe_sock);
	vu_shmem_destroy(&s);
	close(file_fd);
	close(dir_fd);
}

static int map(int fd, uint64_t foff, uint64_t len, uint64_t moff, bool wr)
{
	return vu_shmem_dax_ops.setup_mapping(&s, fd, foff, len, moff, wr);
}

static int unmap(uint64_t moff, uint64_t len)
{
	return vu_shmem_dax_ops.remove_mapping(&s, moff, len);
}

START_TEST(t_config_is_one_region)
{
	struct vu_shmem_config c;

	vu_shmem_config(&s, &c);
	ck_assert_uint_eq(c.nregions, 1);
	ck_assert_uint_eq(c.sizes[0], 64 * MiB);
	for (unsigned i = 1; i < VU_MAX_SHMEM_REGIONS; i++)
		ck_assert_uint_eq(c.sizes[i], 0);
}
END_TEST

START_TEST(t_map_sends_the_file_and_waits_for_the_ack)
{
	ck_assert_int_eq(map(file_fd, 2 * MiB, 2 * MiB, 4 * MiB, true), 0);
	ck_assert_uint_eq(received, 1);
	ck_assert_uint_eq(last.h.request, VU_BACKEND_SHMEM_MAP);
	ck_assert_uint_eq(last.h.flags, VU_VERSION | VU_FLAG_NEED_REPLY);
	ck_assert_uint_eq(last.h.size, 40);
	ck_assert_uint_eq(last.mm.shmid, 0);
	ck_assert_uint_eq(last.mm.fd_offset, 2 * MiB);
	ck_assert_uint_eq(last.mm.shm_offset, 4 * MiB);
	ck_assert_uint_eq(last.mm.len, 2 * MiB);
	ck_assert_uint_eq(last.mm.flags, VU_MMAP_RW);
	ck_assert_int_eq(last.nfds, 1);
	ck_assert_uint_eq(last.ino, file_ino);
	ck_assert_uint_eq(s.nmaps, 1);
	ck_assert_int_eq(unmap(4 * MiB, 2 * MiB), 0);
	ck_assert_uint_eq(last.h.request, VU_BACKEND_SHMEM_UNMAP);
	ck_assert_int_eq(last.nfds, 0);
	ck_assert_uint_eq(last.mm.shm_offset, 4 * MiB);
	ck_assert_uint_eq(s.nmaps, 0);
}
END_TEST

START_TEST(t_bad_requests_are_never_sent)
{
	int ro = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
	char wo_path[64];

	ck_assert_int_eq(map(file_fd, 0, 2 * MiB, 0, false), 0);
	ck_assert_int_eq(map(file_fd, 0, 2 * MiB, 63 * MiB, false), -EINVAL);   /* past the end */
	ck_assert_int_eq(map(file_fd, 0, 4096, 64 * MiB, false), -EINVAL);      /* at the end */
	ck_assert_int_eq(map(file_fd, 0, 8192, UINT64_MAX - 4095, false), -EINVAL);
	ck_assert_int_eq(map(file_fd, 0, 0, 8 * MiB, false), -EINVAL);          /* empty */
	ck_assert_int_eq(map(file_fd, 0, 4096, 8 * MiB + 512, false), -EINVAL); /* misaligned */
	ck_assert_int_eq(map(file_fd, 512, 4096, 8 * MiB, false), -EINVAL);
	ck_assert_int_eq(map(file_fd, INT64_MAX - 4095, 8192, 8 * MiB, false), -EINVAL);
	ck_assert_int_eq(map(file_fd, 0, 2 * MiB, 1 * MiB, false), -EBUSY);     /* overlap */
	ck_assert_int_eq(map(file_fd, 0, 4 * MiB, 0, false), -EBUSY);           /* covers it */
	ck_assert_int_eq(map(dir_fd, 0, 4096, 8 * MiB, false), -EINVAL);        /* a directory */
	ck_assert_int_ge(ro, 0);
	ck_assert_int_eq(map(ro, 0, 4096, 8 * MiB, true), -EACCES);             /* read-only fd */
	close(ro);
	snprintf(wo_path, sizeof(wo_path), "/proc/self/fd/%d", file_fd);
	ro = open(wo_path, O_WRONLY | O_CLOEXEC);   /* the same file, write-only */
	ck_assert_int_ge(ro, 0);
	ck_assert_int_eq(map(ro, 0, 4096, 8 * MiB, false), -EACCES);            /* write-only fd */
	ck_assert_int_eq(unmap(0, 4096), -EINVAL);                              /* part of one */
	ck_assert_int_eq(unmap(8 * MiB, 4096), -EINVAL);                        /* none there */
	ck_assert_int_eq(unmap(64 * MiB, 4096), -EINVAL);
	ck_assert_uint_eq(received, 1);
	ck_assert_uint_eq(s.nmaps, 1);
	close(ro);
}
END_TEST

START_TEST(t_the_same_range_again_is_replaced)
{
	ck_assert_int_eq(map(file_fd, 0, 2 * MiB, 0, false), 0);
	ck_assert_int_eq(map(file_fd, 0, 2 * MiB, 0, true), 0);
	ck_assert_uint_eq(received, 3);     /* MAP, UNMAP, MAP */
	ck_assert_uint_eq(last.h.request, VU_BACKEND_SHMEM_MAP);
	ck_assert_uint_eq(last.mm.flags, VU_MMAP_RW);
	ck_assert_uint_eq(s.nmaps, 1);
}
END_TEST

START_TEST(t_live_mappings_are_bounded)
{
	for (unsigned i = 0; i < VU_SHMEM_MAX_MAPS; i++)
		ck_assert_int_eq(map(file_fd, 0, 4096, (uint64_t)i * 4096, false), 0);
	ck_assert_int_eq(map(file_fd, 0, 4096, 32 * MiB, false), -ENOSPC);
	ck_assert_uint_eq(received, VU_SHMEM_MAX_MAPS);
	ck_assert_int_eq(unmap(0, 4096), 0);
	ck_assert_int_eq(map(file_fd, 0, 4096, 32 * MiB, false), 0);
}
END_TEST

START_TEST(t_a_refusal_keeps_the_channel)
{
	mode = REFUSE;
	ck_assert_int_eq(map(file_fd, 0, 2 * MiB, 0, false), -EIO);
	ck_assert_uint_eq(s.nmaps, 0);
	mode = ACK;
	ck_assert_int_eq(map(file_fd, 0, 2 * MiB, 0, false), 0);
	ck_assert_uint_eq(s.nmaps, 1);
}
END_TEST

START_TEST(t_a_silent_frontend_loses_the_channel)
{
	mode = SILENT;
	ck_assert_int_eq(map(file_fd, 0, 2 * MiB, 0, false), -EIO);
	ck_assert(s.lost);
	mode = ACK;
	ck_assert_int_eq(map(file_fd, 0, 2 * MiB, 0, false), -EIO);
	ck_assert_uint_eq(received, 1);
}
END_TEST

START_TEST(t_an_answer_out_of_step_loses_the_channel)
{
	mode = WRONG_REQUEST;
	ck_assert_int_eq(map(file_fd, 0, 2 * MiB, 0, false), -EIO);
	ck_assert(s.lost);
	ck_assert_int_eq(s.sock, -1);
}
END_TEST

/* Whatever fds a frontend sends along with its acks never stay open here. */
START_TEST(t_fds_in_an_ack_are_dropped)
{
	int before;

	mode = ACK_WITH_FD;
	before = count_fds();
	for (int i = 0; i < 8; i++)
		ck_assert_int_eq(map(file_fd, 0, 4096, (uint64_t)i * 4096, false), 0);
	/* One plain round trip more: the frontend has closed its own pipes. */
	mode = ACK;
	ck_assert_int_eq(map(file_fd, 0, 4096, 8 * 4096, false), 0);
	ck_assert_int_eq(count_fds(), before);
}
END_TEST

static void *mapper(void *arg)
{
	uint64_t base = (uint64_t)(uintptr_t)arg;

	for (unsigned i = 0; i < VU_SHMEM_MAX_MAPS / 2; i++)
		if (map(file_fd, 0, 4096, base + (uint64_t)i * 4096, false))
			return (void *)1;
	return NULL;
}

/* Two queue workers mapping at once: each request alone on the channel. */
START_TEST(t_two_workers_at_once)
{
	pthread_t a, b;
	void *ra, *rb;

	ck_assert_int_eq(pthread_create(&a, NULL, mapper, (void *)(uintptr_t)0), 0);
	ck_assert_int_eq(pthread_create(&b, NULL, mapper, (void *)(uintptr_t)(32 * MiB)), 0);
	pthread_join(a, &ra);
	pthread_join(b, &rb);
	ck_assert_ptr_null(ra);
	ck_assert_ptr_null(rb);
	ck_assert_uint_eq(s.nmaps, VU_SHMEM_MAX_MAPS);
	ck_assert_uint_eq(received, VU_SHMEM_MAX_MAPS);
	ck_assert_uint_eq(s.sent, VU_SHMEM_MAX_MAPS);
}
END_TEST

START_TEST(t_reset_forgets_the_table)
{
	ck_assert_int_eq(map(file_fd, 0, 2 * MiB, 0, false), 0);
	vu_shmem_reset(&s);
	ck_assert_uint_eq(s.nmaps, 0);
	ck_assert_int_eq(unmap(0, 2 * MiB), -EINVAL);
	ck_assert_int_eq(map(file_fd, 0, 2 * MiB, 0, false), 0);
	ck_assert_uint_eq(received, 2);
}
END_TEST

START_TEST(t_no_channel_no_window)
{
	struct vu_shmem n;

	ck_assert_int_eq(vu_shmem_init(&n, 3), -EINVAL);
	ck_assert_int_eq(vu_shmem_init(&n, 2 * MiB), 0);
	ck_assert_int_eq(vu_shmem_dax_ops.setup_mapping(&n, file_fd, 0, 4096, 0, false), -ENOSYS);
	vu_shmem_destroy(&n);
}
END_TEST

int main(void)
{
	Suite *suite = suite_create("vhost_user_shmem");
	TCase *tc = tcase_create("shmem");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, t_config_is_one_region);
	tcase_add_test(tc, t_map_sends_the_file_and_waits_for_the_ack);
	tcase_add_test(tc, t_bad_requests_are_never_sent);
	tcase_add_test(tc, t_the_same_range_again_is_replaced);
	tcase_add_test(tc, t_live_mappings_are_bounded);
	tcase_add_test(tc, t_a_refusal_keeps_the_channel);
	tcase_add_test(tc, t_a_silent_frontend_loses_the_channel);
	tcase_add_test(tc, t_an_answer_out_of_step_loses_the_channel);
	tcase_add_test(tc, t_fds_in_an_ack_are_dropped);
	tcase_add_test(tc, t_two_workers_at_once);
	tcase_add_test(tc, t_reset_forgets_the_table);
	tcase_add_test(tc, t_no_channel_no_window);
	suite_add_tcase(suite, tc);
	return unit_main(suite);
}
