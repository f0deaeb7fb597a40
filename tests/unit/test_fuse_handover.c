// SPDX-License-Identifier: GPL-2.0-only
/*
 * fuse-mount's handover between per-CPU readers and one lone reader
 * (transport/fuse_handover.h): which request patterns start a lone phase, which
 * keep it going, and that the readers standing down wake when it ends.
 */
#include <check.h>
#include <pthread.h>
#include <stdatomic.h>
#include <unistd.h>

#include "check_main.h"
#include "transport/fs_wait.h"
#include "transport/fuse_handover.h"

static struct fuse_handover ho;

static struct fuse_in_header hdr(uint32_t opcode, uint32_t pid)
{
	return (struct fuse_in_header){ .opcode = opcode, .pid = pid, .unique = 2 };
}

/* Takes a request with no body; the ticket is for fuse_handover_answer. */
static struct handover_ticket take(struct handover_seat *seat, uint32_t opcode, uint32_t pid,
				   bool waited)
{
	struct fuse_in_header h = hdr(opcode, pid);
	struct handover_ticket t;

	h.len = sizeof(h);
	fuse_handover_take(&ho, seat, &h, sizeof(h), waited, &t);
	return t;
}

static void answer(struct handover_ticket *t)
{
	fuse_handover_answer(&ho, t, sizeof(struct fuse_out_header));
}

/* One request taken and answered, as a reader does it. */
static void serve(struct handover_seat *seat, uint32_t opcode, uint32_t pid, bool waited)
{
	struct handover_ticket t = take(seat, opcode, pid, waited);

	answer(&t);
}

/* A READDIR asking for size bytes, answered with answer_len bytes. */
static void list(struct handover_seat *seat, uint32_t size, size_t answer_len)
{
	struct {
		struct fuse_in_header h;
		struct fuse_read_in in;
	} req = { .h = hdr(FUSE_READDIR, 42), .in = { .fh = 1, .size = size } };
	struct handover_ticket t;

	req.h.len = sizeof(req);
	fuse_handover_take(&ho, seat, &req, sizeof(req), true, &t);
	fuse_handover_answer(&ho, &t, answer_len);
}

static void setup(void)
{
	fuse_handover_init(&ho);
}

/*
 * A caller that waits for each answer: its next read is taken right after
 * the answer, even found without waiting (it ran on the reader's CPU
 * between the two), and by either reader. Never a lone phase.
 */
START_TEST(waiting_caller_stays_per_cpu)
{
	struct handover_seat a = { 0 }, b = { 0 };

	for (int i = 0; i < 100; i++) {
		serve(i % 3 ? &a : &b, FUSE_READ, 42, false);
		serve(&a, FUSE_WRITE, 42, i % 2);
	}
	ck_assert(!fuse_handover_lone(&ho));
}
END_TEST

/* Two reads of one caller in flight at once: the lone phase starts. */
START_TEST(caller_with_two_in_flight_goes_lone)
{
	struct handover_seat a = { 0 }, b = { 0 };
	struct handover_ticket first = take(&a, FUSE_WRITE, 42, true);

	ck_assert_ptr_nonnull(first.slot);
	ck_assert(!fuse_handover_lone(&ho));
	serve(&b, FUSE_WRITE, 42, true);
	ck_assert(fuse_handover_lone(&ho));
	ck_assert(!fuse_handover_expired(&ho, fs_now_ns()));
	ck_assert(fuse_handover_expired(&ho, fs_now_ns() + HANDOVER_HOLD_NS + 1));
	answer(&first);
}
END_TEST

/* In flight together, but from different callers (or not I/O): no sign. */
START_TEST(other_callers_and_metadata_do_not_count)
{
	struct handover_seat a = { 0 }, b = { 0 };
	struct handover_ticket r1 = take(&a, FUSE_READ, 42, true);
	struct handover_ticket r2 = take(&b, FUSE_READ, 43, true);
	struct handover_ticket g1 = take(&a, FUSE_GETATTR, 42, true);
	struct handover_ticket g2 = take(&b, FUSE_GETATTR, 42, true);

	ck_assert_ptr_null(g1.slot);
	ck_assert(!fuse_handover_lone(&ho));
	answer(&g1);
	answer(&g2);
	answer(&r1);
	answer(&r2);
	/* Released: the same caller's next read is not "in flight together". */
	serve(&a, FUSE_READ, 42, true);
	ck_assert(!fuse_handover_lone(&ho));
}
END_TEST

/*
 * The lone reader serves one request at a time, so nothing is ever in
 * flight twice; the same caller's next read found without waiting keeps
 * the phase going, one found after waiting does not.
 */
START_TEST(lone_phase_kept_by_back_to_back_reads)
{
	struct handover_seat lone = { 0 }, other = { 0 };
	struct handover_ticket t = take(&lone, FUSE_READ, 42, true);

	serve(&other, FUSE_READ, 42, true);   /* the sign */
	answer(&t);
	ck_assert(fuse_handover_lone(&ho));

	atomic_store(&ho.until_ns, 0);        /* as if HANDOVER_HOLD_NS had passed */
	serve(&lone, FUSE_READ, 42, true);
	ck_assert(fuse_handover_expired(&ho, fs_now_ns()));
	serve(&lone, FUSE_READ, 42, false);
	ck_assert(!fuse_handover_expired(&ho, fs_now_ns()));

	atomic_store(&ho.until_ns, 0);
	serve(&lone, FUSE_READ, 43, false);   /* another caller */
	serve(&lone, FUSE_GETATTR, 43, false);
	serve(&lone, FUSE_READ, 43, false);   /* its previous request was not I/O */
	ck_assert(fuse_handover_expired(&ho, fs_now_ns()));
	fuse_handover_end(&ho);
	ck_assert(!fuse_handover_lone(&ho));
}
END_TEST

/* A listing whose answers fill the caller's buffer is streamed: go lone. */
START_TEST(full_listing_goes_lone)
{
	struct handover_seat a = { 0 };

	list(&a, 32768, sizeof(struct fuse_out_header));       /* the end: empty */
	list(&a, 32768, 32768 + sizeof(struct fuse_out_header) - 600);
	list(&a, 4096, 100);
	ck_assert(!fuse_handover_lone(&ho));
	list(&a, 32768, 32768 + sizeof(struct fuse_out_header) - 300);
	ck_assert(fuse_handover_lone(&ho));
}
END_TEST

/* A READDIR too short to hold its fuse_read_in is not looked into. */
START_TEST(short_listing_request_is_ignored)
{
	struct handover_seat a = { 0 };
	struct fuse_in_header h = hdr(FUSE_READDIR, 42);
	struct handover_ticket t;

	fuse_handover_take(&ho, &a, &h, sizeof(h), true, &t);
	ck_assert_uint_eq(t.listing_full, 0);
	fuse_handover_answer(&ho, &t, 1u << 20);
	ck_assert(!fuse_handover_lone(&ho));
}
END_TEST

static void *stand_down(void *arg)
{
	(void)arg;
	while (fuse_handover_lone(&ho))
		fuse_handover_wait(&ho);
	return NULL;
}

static void go_lone(void)
{
	struct handover_seat a = { 0 };
	struct handover_ticket t = take(&a, FUSE_WRITE, 7, true);

	serve(&a, FUSE_WRITE, 7, true);
	answer(&t);
	ck_assert(fuse_handover_lone(&ho));
}

/* Readers standing down sleep until the phase ends, or the connection closes. */
START_TEST(standing_down_readers_wake)
{
	pthread_t th[3];

	for (int round = 0; round < 2; round++) {
		go_lone();
		for (int i = 0; i < 3; i++)
			ck_assert_int_eq(pthread_create(&th[i], NULL, stand_down, NULL), 0);
		usleep(20000);
		if (round == 0)
			fuse_handover_end(&ho);
		else
			fuse_handover_close(&ho);
		for (int i = 0; i < 3; i++)
			ck_assert_int_eq(pthread_join(th[i], NULL), 0);
	}
	/* Closed: no lone phase starts again. */
	struct handover_seat a = { 0 };
	struct handover_ticket t = take(&a, FUSE_WRITE, 7, true);

	serve(&a, FUSE_WRITE, 7, true);
	answer(&t);
	ck_assert(!fuse_handover_lone(&ho));
}
END_TEST

int main(void)
{
	Suite *s = suite_create("fuse_handover");
	TCase *tc = tcase_create("phases");

	tcase_add_checked_fixture(tc, setup, NULL);
	tcase_set_timeout(tc, 10);
	tcase_add_test(tc, waiting_caller_stays_per_cpu);
	tcase_add_test(tc, caller_with_two_in_flight_goes_lone);
	tcase_add_test(tc, other_callers_and_metadata_do_not_count);
	tcase_add_test(tc, lone_phase_kept_by_back_to_back_reads);
	tcase_add_test(tc, full_listing_goes_lone);
	tcase_add_test(tc, short_listing_request_is_ignored);
	tcase_add_test(tc, standing_down_readers_wake);
	suite_add_tcase(s, tc);
	return unit_main(s);
}
