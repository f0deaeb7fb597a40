// SPDX-License-Identifier: GPL-2.0-only
/*
 * Restricted rings (base/uring.c): a ring runs the opcodes it was given
 * and refuses every other (-EACCES) before the kernel looks at the
 * request; with fixed_only it refuses an SQE naming a plain fd; it refuses
 * SQE flags it was not given; and once enabled it takes no register
 * operation, so nothing can be added back.
 */
#include <check.h>
#include <errno.h>
#include <liburing.h>
#include <stdint.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "base/uring.h"
#include "tests/unit/check_main.h"

static struct io_uring ring;
static int efd = -1;
static uint64_t buf;

/* Submits one SQE and returns its completion's result. */
static int one(void (*prep)(struct io_uring_sqe *))
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(&ring);
	struct io_uring_cqe *cqe;
	int res;

	ck_assert_ptr_nonnull(sqe);
	prep(sqe);
	ck_assert_int_eq(io_uring_submit(&ring), 1);
	ck_assert_int_eq(io_uring_wait_cqe(&ring, &cqe), 0);
	res = cqe->res;
	io_uring_cqe_seen(&ring, cqe);
	return res;
}

static void prep_nop(struct io_uring_sqe *sqe) { io_uring_prep_nop(sqe); }
static void prep_fixed_read(struct io_uring_sqe *sqe)
{
	io_uring_prep_read(sqe, 0, &buf, sizeof(buf), 0);
	sqe->flags |= IOSQE_FIXED_FILE;
}
static void prep_plain_read(struct io_uring_sqe *sqe) { io_uring_prep_read(sqe, efd, &buf, sizeof(buf), 0); }
static void prep_fixed_write(struct io_uring_sqe *sqe)
{
	static uint64_t one_ = 1;

	io_uring_prep_write(sqe, 0, &one_, sizeof(one_), 0);
	sqe->flags |= IOSQE_FIXED_FILE;
}
static void prep_linked_read(struct io_uring_sqe *sqe)
{
	prep_fixed_read(sqe);
	sqe->flags |= IOSQE_IO_LINK;
}

static void setup(bool fixed_only)
{
	static const uint8_t ops[] = { IORING_OP_READ };
	int files[1];
	struct fs_uring_policy pol = { .ops = ops, .nops = 1, .files = files, .nfiles = 1,
				       .fixed_only = fixed_only };

	efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	ck_assert_int_ge(efd, 0);
	files[0] = efd;
	ck_assert_int_eq(fs_uring_init(&ring, 8, NULL, &pol), 0);
}

static void teardown(void)
{
	io_uring_queue_exit(&ring);
	close(efd);
}

START_TEST(t_allowed_opcode_runs)
{
	setup(true);
	ck_assert_int_eq(eventfd_write(efd, 5), 0);
	ck_assert_int_eq(one(prep_fixed_read), 8);
	ck_assert_uint_eq(buf, 5);
	teardown();
}
END_TEST

START_TEST(t_other_opcodes_refused)
{
	setup(true);
	ck_assert_int_eq(one(prep_nop), -EACCES);
	ck_assert_int_eq(one(prep_fixed_write), -EACCES);
	teardown();
}
END_TEST

START_TEST(t_fixed_only_refuses_plain_fd)
{
	setup(true);
	ck_assert_int_eq(eventfd_write(efd, 1), 0);
	ck_assert_int_eq(one(prep_plain_read), -EACCES);
	teardown();
}
END_TEST

START_TEST(t_unlisted_flags_refused)
{
	setup(false);
	ck_assert_int_eq(eventfd_write(efd, 1), 0);
	ck_assert_int_eq(one(prep_plain_read), 8);   /* plain fds allowed without fixed_only */
	ck_assert_int_eq(one(prep_linked_read), -EACCES);
	teardown();
}
END_TEST

START_TEST(t_no_register_after_enable)
{
	int fds[1];

	setup(true);
	fds[0] = efd;
	ck_assert_int_eq(io_uring_register_files_update(&ring, 0, fds, 1), -EACCES);
	ck_assert_int_eq(io_uring_unregister_files(&ring), -EACCES);
	/* The restrictions cannot be replaced either. */
	ck_assert_int_lt(syscall(__NR_io_uring_register, ring.ring_fd, IORING_REGISTER_RESTRICTIONS,
				 NULL, 0), 0);
	teardown();
}
END_TEST

static Suite *uring_suite(void)
{
	Suite *s = suite_create("uring");
	TCase *tc = tcase_create("restricted");

	tcase_add_test(tc, t_allowed_opcode_runs);
	tcase_add_test(tc, t_other_opcodes_refused);
	tcase_add_test(tc, t_fixed_only_refuses_plain_fd);
	tcase_add_test(tc, t_unlisted_flags_refused);
	tcase_add_test(tc, t_no_register_after_enable);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return unit_main(uring_suite());
}
