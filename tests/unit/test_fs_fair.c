// SPDX-License-Identifier: GPL-2.0-only
/*
 * Fair shares of one budget (fs/fs_fair.c): a member alone takes its
 * floor and the whole pool; a newcomer always has its floor however
 * greedy the first was; nobody takes more than pool / members of the
 * pool while others are there; slots are bounded; refunds give the pool
 * back; and few slots are kept where the budget cannot hold many floors.
 */
#include <check.h>
#include <errno.h>

#include "fs/fs_fair.h"
#include "tests/unit/check_main.h"

/* Charges one at a time until refused: how many a got. */
static size_t take_all(struct fs_fair_acct *a)
{
	size_t n = 0;

	while (fs_fair_charge(a, 1) == 0)
		n++;
	return n;
}

START_TEST(newcomer_keeps_its_floor)
{
	struct fs_fair f;
	struct fs_fair_acct a, b, c;

	/* 100 in all, 10 a member, 4 slots: 40 in floors, a pool of 60. */
	ck_assert_int_eq(fs_fair_init(&f, 100, 10, 4), 0);
	ck_assert_int_eq(fs_fair_join(&f, &a), 0);
	ck_assert_uint_eq(take_all(&a), 70);          /* its floor and the pool */
	ck_assert_int_eq(fs_fair_join(&f, &b), 0);
	ck_assert_uint_eq(take_all(&b), 10);          /* the floor, always there */
	ck_assert_int_eq(fs_fair_charge(&a, 1), -ENOSPC);
	/* a gives back: b may grow, but only to its share of the pool (30). */
	fs_fair_refund(&a, 60);
	ck_assert_uint_eq(take_all(&b), 30);
	ck_assert_uint_eq(fs_fair_used(&b), 40);
	/* A third: its floor and its share, 60 / 3, of what is left (30). */
	ck_assert_int_eq(fs_fair_join(&f, &c), 0);
	ck_assert_uint_eq(take_all(&c), 30);
	ck_assert_int_eq(fs_fair_charge(&b, 1), -ENOSPC); /* over its share now */
	fs_fair_refund(&a, 10);
	fs_fair_refund(&b, 40);
	fs_fair_refund(&c, 30);
	ck_assert_uint_eq(atomic_load(&f.pool_used), 0);
	fs_fair_leave(&a);
	fs_fair_leave(&b);
	fs_fair_leave(&c);
}
END_TEST

START_TEST(slots_bounded)
{
	struct fs_fair f;
	struct fs_fair_acct a[3];

	ck_assert_int_eq(fs_fair_init(&f, 100, 10, 2), 0);
	ck_assert_int_eq(fs_fair_join(&f, &a[0]), 0);
	ck_assert_int_eq(fs_fair_join(&f, &a[1]), 0);
	ck_assert_int_eq(fs_fair_join(&f, &a[2]), -EAGAIN);
	fs_fair_leave(&a[1]);
	ck_assert_int_eq(fs_fair_join(&f, &a[2]), 0);
	/* NULL: no share to keep, always allowed. */
	ck_assert_int_eq(fs_fair_charge(NULL, 1000), 0);
	fs_fair_refund(NULL, 1000);
}
END_TEST

START_TEST(slots_from_the_budget)
{
	/* At least half the budget stays a pool. */
	ck_assert_uint_eq(fs_fair_slots(768, 64, 64), 6);
	ck_assert_uint_eq(fs_fair_slots(1u << 20, 64, 64), 64);
	ck_assert_uint_eq(fs_fair_slots(10, 64, 64), 1);
	ck_assert_int_eq(fs_fair_init(&(struct fs_fair){ 0 }, 100, 60, 2), -EINVAL);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("fs_fair");
	TCase *tc = tcase_create("fair");

	tcase_add_test(tc, newcomer_keeps_its_floor);
	tcase_add_test(tc, slots_bounded);
	tcase_add_test(tc, slots_from_the_budget);
	suite_add_tcase(s, tc);
	return unit_main(s);
}
