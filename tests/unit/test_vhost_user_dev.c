// SPDX-License-Identifier: GPL-2.0-only
/*
 * The vhost-user backend (transport/vhost_user_dev.c) driven the way QEMU
 * drives it, by the test frontend in vu_test_frontend.h: negotiation, the
 * memory table, rings started on the virtio-fs device's workers and a
 * FUSE_INIT answered through them; then every bad input the backend must
 * survive, each with its log line, the ring stopped or the connection
 * closed, and no fd left open (/proc/self/fd counted before and after).
 */
#include <check.h>
#include <errno.h>
#include <stdint.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "tests/unit/check_main.h"
#include "fs/resolve.h"
#include "transport/vhost_user_ring.h"
#include "transport/vhost_user_shmem.h"
#include "tests/unit/vu_test_frontend.h"

static struct vuf f;
static int fds_before;

static void begin(bool config)
{
	/* The process's one /proc/self/fd fd stays open by design (fs/resolve.h). */
	ck_assert_int_ge(fs_proc_self_fd(), 0);
	fds_before = vuf_count_fds();
	vuf_start(&f, config);
}

/* The backend ended as expected (rc), and nothing it had is still open. */
static void end(int rc)
{
	ck_assert_int_eq(vuf_finish(&f), rc);
	unlink(f.log);
	ck_assert_int_eq(vuf_count_fds(), fds_before);
}

/* The connection was refused with this line in the log. */
static void closed_with(const char *line)
{
	ck_assert_msg(vuf_closed(&f), "the backend kept the connection");
	ck_assert_msg(vuf_logged(&f, line), "no log line with '%s'", line);
	ck_assert_int_lt(vuf_finish(&f), 0);
	unlink(f.log);
	ck_assert_int_eq(vuf_count_fds(), fds_before);
}

START_TEST(t_negotiate_and_answer_fuse_init)
{
	struct vu_vring_state s;
	int32_t error = -1;

	begin(false);
	vuf_negotiate(&f);
	/* hiprio + 16 request rings: the frontend decides how many it uses. */
	ck_assert_uint_eq(vuf_get_u64(&f, VU_GET_QUEUE_NUM), 17);
	ck_assert_uint_ne(vuf_get_u64(&f, VU_GET_PROTOCOL_FEATURES) & VU_PROTO_MQ, 0);
	ck_assert_uint_eq(vuf_get_u64(&f, VU_GET_MAX_MEM_SLOTS), GMEM_MAX_REGIONS);
	/* CONFIG only when asked for (virtiofsd: --tag). */
	ck_assert_uint_eq(vuf_get_u64(&f, VU_GET_PROTOCOL_FEATURES) & VU_PROTO_CONFIG, 0);
	vuf_ring(&f, 0);
	vuf_ring(&f, 1);
	ck_assert_int_ge(vuf_fuse_init(&f, 1, 0, 42, &error), (int)sizeof(struct fuse_out_header));
	ck_assert_int_eq(error, 0);
	/* A round trip first: the answer can come before the backend's own
	 * thread has recorded the worker it started. */
	ck_assert(vuf_alive(&f));
	ck_assert(vu_dev_ring_running(&f.d, 1));
	/* GET_VRING_BASE stops the ring and says where to resume. */
	vuf_state(&f, VU_GET_VRING_BASE, 1, 0);
	ck_assert_int_eq(vuf_reply(&f, VU_GET_VRING_BASE, &s, sizeof(s)), 8);
	ck_assert_uint_eq(s.index, 1);
	ck_assert_uint_eq(s.num, 1);
	ck_assert(!vu_dev_ring_running(&f.d, 1));
	end(0);
}
END_TEST

/* Protocol features negotiated: a ring with a kick fd waits for ENABLE. */
START_TEST(t_ring_waits_for_enable)
{
	int32_t error;

	begin(false);
	vuf_negotiate(&f);
	vuf_ring(&f, 1);
	vuf_state(&f, VU_SET_VRING_ENABLE, 1, 0);
	ck_assert(vuf_alive(&f));
	ck_assert(!vu_dev_ring_running(&f.d, 1));
	vuf_state(&f, VU_SET_VRING_ENABLE, 1, 1);
	ck_assert(vuf_alive(&f));
	ck_assert_int_gt(vuf_fuse_init(&f, 1, 0, 7, &error), 0);
	end(0);
}
END_TEST

START_TEST(t_reply_ack_says_yes_and_no)
{
	struct vu_vring_state s = { 1, 16 };
	uint64_t ack = 9;

	begin(false);
	vuf_negotiate(&f);
	vuf_send(&f, VU_SET_VRING_NUM, VU_FLAG_NEED_REPLY, &s, sizeof(s), NULL, 0);
	ck_assert_int_eq(vuf_reply(&f, VU_SET_VRING_NUM, &ack, sizeof(ack)), 8);
	ck_assert_uint_eq(ack, 0);
	/* SET_CONFIG is refused (the config space is read-only), the connection stays. */
	struct { uint32_t off, size, flags; uint8_t b[4]; } cfg = { 0, 4, 0, { 1, 2, 3, 4 } };
	vuf_send(&f, VU_SET_CONFIG, VU_FLAG_NEED_REPLY, &cfg, sizeof(cfg), NULL, 0);
	ck_assert_int_eq(vuf_reply(&f, VU_SET_CONFIG, &ack, sizeof(ack)), 8);
	ck_assert_uint_eq(ack, 1);
	ck_assert(vuf_alive(&f));
	end(0);
}
END_TEST

START_TEST(t_get_config_with_tag)
{
	struct { uint32_t off, size, flags; uint8_t b[40]; } req = { 0, 40, 0, { 0 } }, rep;

	begin(true);
	ck_assert_uint_ne(vuf_get_u64(&f, VU_GET_PROTOCOL_FEATURES) & VU_PROTO_CONFIG, 0);
	vuf_negotiate(&f);
	vuf_send(&f, VU_GET_CONFIG, 0, &req, sizeof(req), NULL, 0);
	ck_assert_int_eq(vuf_reply(&f, VU_GET_CONFIG, &rep, sizeof(rep)), (int)sizeof(rep));
	ck_assert_mem_eq(rep.b, "vuftag\0", 7);
	ck_assert_uint_eq(rep.b[36], 1);    /* one request queue */
	/* Past the config space: the empty reply that means no. */
	req.off = 8;
	vuf_send(&f, VU_GET_CONFIG, 0, &req, sizeof(req), NULL, 0);
	ck_assert_int_eq(vuf_reply(&f, VU_GET_CONFIG, &rep, sizeof(rep)), 0);
	ck_assert(vuf_logged(&f, "outside the 40-byte config space"));
	end(0);
}
END_TEST

/* --dax-window: SHMEM and the backend channel are offered, GET_SHMEM_CONFIG
 * says one region of the window's size, SET_BACKEND_REQ_FD hands over the
 * channel the maps go out on. */
START_TEST(t_dax_window_offered_and_configured)
{
	static struct vu_shmem sh;
	struct vu_shmem_config cfg;
	uint64_t proto;
	int sv[2];

	begin(false);
	ck_assert_int_eq(vu_shmem_init(&sh, 8u << 20), 0);
	vu_dev_set_shmem(&f.d, &sh);   /* before the first message, as the command does */
	proto = vuf_get_u64(&f, VU_GET_PROTOCOL_FEATURES);
	ck_assert_uint_eq(proto & VU_SHMEM_PROTO, VU_SHMEM_PROTO);
	vuf_set_u64(&f, VU_SET_PROTOCOL_FEATURES, proto & (VU_SHMEM_PROTO | VU_PROTO_MQ));
	vuf_send(&f, VU_GET_SHMEM_CONFIG, 0, NULL, 0, NULL, 0);
	ck_assert_int_eq(vuf_reply(&f, VU_GET_SHMEM_CONFIG, &cfg, sizeof(cfg)), (int)sizeof(cfg));
	ck_assert_uint_eq(cfg.nregions, 1);
	ck_assert_uint_eq(cfg.sizes[0], 8u << 20);
	ck_assert_uint_eq(cfg.sizes[1], 0);
	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
	vuf_send(&f, VU_SET_BACKEND_REQ_FD, VU_FLAG_NEED_REPLY, NULL, 0, &sv[1], 1);
	ck_assert_uint_eq(vuf_reply(&f, VU_SET_BACKEND_REQ_FD, &proto, sizeof(proto)), 8);
	ck_assert_uint_eq(proto, 0);
	close(sv[1]);
	ck_assert_int_ge(sh.sock, 0);
	close(sv[0]);
	vu_shmem_destroy(&sh);
	end(0);
}
END_TEST

/* QEMU sends the same table again when its layout changes elsewhere: the
 * running rings go on. */
START_TEST(t_same_table_again_keeps_rings)
{
	struct vu_mem_table t;
	int32_t error;

	begin(false);
	vuf_negotiate(&f);
	vuf_ring(&f, 1);
	ck_assert_int_gt(vuf_fuse_init(&f, 1, 0, 1, &error), 0);
	t = (struct vu_mem_table){ .nregions = 1, .r = { vuf_region(&f) } };
	vuf_send(&f, VU_SET_MEM_TABLE, 0, &t, 8 + 32, &f.memfd, 1);
	ck_assert(vuf_alive(&f));
	ck_assert(vu_dev_ring_running(&f.d, 1));
	end(0);
}
END_TEST

/* ---- bad input: the connection closes ------------------------------------ */

START_TEST(t_bad_wrong_size)
{
	uint32_t half = 1;

	begin(false);
	vuf_send(&f, VU_SET_FEATURES, 0, &half, sizeof(half), NULL, 0);
	closed_with("SET_FEATURES, 4 bytes): payload is not 8 bytes");
}
END_TEST

START_TEST(t_bad_unknown_request)
{
	begin(false);
	vuf_send(&f, 99, 0, NULL, 0, NULL, 0);
	closed_with("message 99 (unknown, 0 bytes): unknown or unsupported request");
}
END_TEST

START_TEST(t_bad_unserved_request_is_named)
{
	uint64_t v = 0;

	begin(false);
	vuf_send(&f, VU_SET_LOG_BASE, 0, &v, sizeof(v), NULL, 0);
	closed_with("(SET_LOG_BASE, 8 bytes): unknown or unsupported request");
}
END_TEST

/* Without --dax-window neither SHMEM nor the backend channel is offered. */
START_TEST(t_bad_shmem_config_without_a_window)
{
	begin(false);
	ck_assert_uint_eq(vuf_get_u64(&f, VU_GET_PROTOCOL_FEATURES) &
			  (VU_PROTO_SHMEM | VU_PROTO_BACKEND_REQ | VU_PROTO_BACKEND_SEND_FD), 0);
	vuf_send(&f, VU_GET_SHMEM_CONFIG, 0, NULL, 0, NULL, 0);
	closed_with("GET_SHMEM_CONFIG without the SHMEM protocol feature");
}
END_TEST

START_TEST(t_bad_vring_index)
{
	begin(false);
	vuf_negotiate(&f);
	vuf_state(&f, VU_SET_VRING_NUM, 17, 16);
	closed_with("SET_VRING_NUM: vring index 17 out of range (17 rings)");
}
END_TEST

START_TEST(t_bad_vring_index_in_kick)
{
	uint64_t idx = 200;

	begin(false);
	vuf_negotiate(&f);
	vuf_send(&f, VU_SET_VRING_KICK, 0, &idx, 8, &f.kick[0], 1);
	closed_with("SET_VRING_KICK: vring index 200 out of range");
}
END_TEST

START_TEST(t_bad_ring_before_memory)
{
	struct vu_vring_addr a = { .index = 1, .desc = 0x1000, .used = 0x2000, .avail = 0x3000 };

	begin(false);
	vuf_state(&f, VU_SET_VRING_NUM, 1, 16);
	vuf_send(&f, VU_SET_VRING_ADDR, 0, &a, sizeof(a), NULL, 0);
	closed_with("SET_VRING_ADDR 1 before SET_MEM_TABLE");
}
END_TEST

START_TEST(t_bad_ring_outside_table)
{
	struct vu_vring_addr a = { .index = 1 };

	begin(false);
	vuf_negotiate(&f);
	vuf_state(&f, VU_SET_VRING_NUM, 1, 16);
	a.desc = vuf_uva(&f, FD_GPA_BASE + VUF_MEM - 64);   /* runs past the end */
	a.avail = vuf_uva(&f, f.vq[1].avail);
	a.used = vuf_uva(&f, f.vq[1].used);
	vuf_send(&f, VU_SET_VRING_ADDR, 0, &a, sizeof(a), NULL, 0);
	closed_with("descriptor table outside the memory table");
}
END_TEST

START_TEST(t_bad_overlapping_regions)
{
	struct vu_mem_table t = { .nregions = 2 };
	int fds[2];

	begin(false);
	fds[0] = fds[1] = f.memfd;
	t.r[0] = vuf_region(&f);
	t.r[1] = vuf_region(&f);
	t.r[1].gpa += VUF_MEM / 2;
	t.r[1].uva += VUF_MEM;   /* elsewhere in the frontend, same guest range half */
	vuf_send(&f, VU_SET_MEM_TABLE, 0, &t, 8 + 64, fds, 2);
	closed_with("SET_MEM_TABLE: memory regions overlap");
}
END_TEST

START_TEST(t_bad_wrapping_region)
{
	struct vu_mem_table t = { .nregions = 1 };

	begin(false);
	t.r[0] = vuf_region(&f);
	t.r[0].gpa = UINT64_MAX - 0xfff;
	vuf_send(&f, VU_SET_MEM_TABLE, 0, &t, 8 + 32, &f.memfd, 1);
	closed_with("SET_MEM_TABLE: memory region wraps the 64-bit address space");
}
END_TEST

START_TEST(t_bad_region_without_fd)
{
	struct vu_mem_table t = { .nregions = 2 };

	begin(false);
	t.r[0] = vuf_region(&f);
	t.r[1] = vuf_region(&f);
	t.r[1].gpa += VUF_MEM;
	vuf_send(&f, VU_SET_MEM_TABLE, 0, &t, 8 + 64, &f.memfd, 1);
	closed_with("memory table without one file descriptor per region");
}
END_TEST

START_TEST(t_bad_region_fd_not_memory)
{
	struct vu_mem_table t = { .nregions = 1 };

	begin(false);
	t.r[0] = vuf_region(&f);
	vuf_send(&f, VU_SET_MEM_TABLE, 0, &t, 8 + 32, &f.kick[0], 1);
	closed_with("memory region fd is not a regular file");
}
END_TEST

START_TEST(t_bad_region_past_file_end)
{
	struct vu_mem_table t = { .nregions = 1 };

	begin(false);
	t.r[0] = vuf_region(&f);
	t.r[0].mmap_offset = 4096;    /* the file is exactly VUF_MEM long */
	vuf_send(&f, VU_SET_MEM_TABLE, 0, &t, 8 + 32, &f.memfd, 1);
	closed_with("memory region runs past the end of its file");
}
END_TEST

START_TEST(t_bad_missing_kick_fd)
{
	uint64_t idx = 1;

	begin(false);
	vuf_negotiate(&f);
	vuf_send(&f, VU_SET_VRING_KICK, 0, &idx, 8, NULL, 0);
	closed_with("vring file descriptor missing");
}
END_TEST

START_TEST(t_bad_kick_polling_mode)
{
	uint64_t idx = 1 | VU_VRING_NOFD;

	begin(false);
	vuf_negotiate(&f);
	vuf_send(&f, VU_SET_VRING_KICK, 0, &idx, 8, NULL, 0);
	closed_with("without a kick fd: polling is not served");
}
END_TEST

START_TEST(t_bad_kick_not_an_eventfd)
{
	uint64_t idx = 1;

	begin(false);
	vuf_negotiate(&f);
	vuf_send(&f, VU_SET_VRING_KICK, 0, &idx, 8, &f.memfd, 1);
	closed_with("SET_VRING_KICK: the fd is not an eventfd");
}
END_TEST

/* Where /proc cannot say what an fd is, it is no eventfd: refused. */
START_TEST(t_unknowable_fd_is_not_an_eventfd)
{
	int fd = eventfd(0, EFD_CLOEXEC);

	ck_assert_int_ge(fd, 0);
	ck_assert(vu_is_eventfd(fd));
	close(fd);
	ck_assert(!vu_is_eventfd(fd));
}
END_TEST

START_TEST(t_bad_extra_fds)
{
	int fds[3];

	begin(false);
	fds[0] = f.kick[0], fds[1] = f.kick[1], fds[2] = f.call[0];
	vuf_send(&f, VU_GET_FEATURES, 0, NULL, 0, fds, 3);
	closed_with("file descriptors with a request that takes none");
}
END_TEST

START_TEST(t_bad_features_never_offered)
{
	begin(false);
	vuf_set_u64(&f, VU_SET_FEATURES, 1ULL << 63);
	closed_with("were never offered");
}
END_TEST

START_TEST(t_bad_ring_size)
{
	begin(false);
	vuf_negotiate(&f);
	vuf_state(&f, VU_SET_VRING_NUM, 1, 12);
	closed_with("SET_VRING_NUM 12: not a power of two");
}
END_TEST

/* ---- bad input: the ring stops, the connection stays --------------------- */

/* Its memory leaves under a running ring: the ring fails with a line,
 * the err eventfd fires, and the frontend is still served. */
START_TEST(t_ring_memory_removed_stops_ring)
{
	struct vu_mem_single r = { 0 };
	int32_t error;

	begin(false);
	vuf_negotiate(&f);
	vuf_ring(&f, 1);
	ck_assert_int_gt(vuf_fuse_init(&f, 1, 0, 1, &error), 0);
	r.r = vuf_region(&f);
	vuf_send(&f, VU_REM_MEM_REG, 0, &r, sizeof(r), NULL, 0);
	ck_assert(vuf_alive(&f));
	ck_assert(!vu_dev_ring_running(&f.d, 1));
	ck_assert_uint_ne(fd_wait_efd(f.err[1], VUF_WAIT), 0);
	ck_assert(vuf_logged(&f, "queue 1: descriptor table outside the memory table; ring stopped"));
	/* The region comes back: a new kick starts the ring again. */
	uint64_t idx = 1;
	int kick = eventfd(0, EFD_CLOEXEC);
	vuf_send(&f, VU_ADD_MEM_REG, 0, &r, sizeof(r), &f.memfd, 1);
	vuf_send(&f, VU_SET_VRING_KICK, 0, &idx, 8, &kick, 1);
	ck_assert(vuf_alive(&f));
	ck_assert(vu_dev_ring_running(&f.d, 1));
	close(kick);
	end(0);
}
END_TEST

/* A guest buffer outside the table breaks the ring, not the backend. */
START_TEST(t_guest_buffer_outside_table)
{
	struct fake_vq *v = &f.vq[1];

	begin(false);
	vuf_negotiate(&f);
	vuf_ring(&f, 1);
	fvq_set_desc(v, 0, FD_GPA_BASE + VUF_MEM - 8, 64, 0, 0);
	fvq_publish(v, 0);
	eventfd_write(f.kick[1], 1);
	ck_assert_uint_ne(fd_wait_efd(f.err[1], VUF_WAIT), 0);
	ck_assert(vuf_logged(&f, "buffer outside guest memory"));
	ck_assert(vuf_alive(&f));
	end(0);
}
END_TEST

/* RESET_DEVICE stops the rings and forgets the FUSE session: a second
 * INIT is answered after it. */
START_TEST(t_reset_device_allows_a_new_session)
{
	int32_t error;

	begin(false);
	vuf_negotiate(&f);
	vuf_ring(&f, 1);
	ck_assert_int_gt(vuf_fuse_init(&f, 1, 0, 1, &error), 0);
	ck_assert_int_eq(error, 0);
	vuf_send(&f, VU_RESET_DEVICE, 0, NULL, 0, NULL, 0);
	ck_assert(vuf_alive(&f));
	ck_assert(!vu_dev_ring_running(&f.d, 1));
	vuf_negotiate(&f);
	fvq_init(&f.vq[1], &f.m, VUF_QSIZE);   /* fresh rings, as a rebooted guest's */
	vuf_ring(&f, 1);
	ck_assert_int_gt(vuf_fuse_init(&f, 1, 0, 2, &error), 0);
	ck_assert_int_eq(error, 0);
	end(0);
}
END_TEST

/*
 * QEMU says nothing when the guest resets the device: it stops every ring
 * and starts them again, from 0 for a new driver (a reboot) and from
 * where they stopped after a pause. A new driver gets a new FUSE session
 * (its INIT is answered); a paused one keeps its session (a second INIT
 * is refused, EIO).
 */
START_TEST(t_new_driver_gets_new_session_pause_keeps_it)
{
	uint32_t b0, b1;
	int32_t error;

	begin(false);
	vuf_negotiate(&f);
	vuf_ring(&f, 0);
	vuf_ring(&f, 1);
	ck_assert_int_gt(vuf_fuse_init(&f, 1, 0, 1, &error), 0);
	ck_assert_int_eq(error, 0);
	/* A pause: stop both, resume where they were. */
	b0 = vuf_stop_ring(&f, 0);
	b1 = vuf_stop_ring(&f, 1);
	ck_assert_uint_eq(b1, 1);
	vuf_ring_at(&f, 0, b0);
	vuf_ring_at(&f, 1, b1);
	ck_assert_int_gt(vuf_fuse_init(&f, 1, 2, 2, &error), 0);
	ck_assert_int_eq(error, -EIO);
	/* A reboot: stop both, the new driver's rings start at 0. */
	vuf_stop_ring(&f, 0);
	vuf_stop_ring(&f, 1);
	fvq_init(&f.vq[0], &f.m, VUF_QSIZE);
	fvq_init(&f.vq[1], &f.m, VUF_QSIZE);
	vuf_ring(&f, 0);
	vuf_ring(&f, 1);
	ck_assert_int_gt(vuf_fuse_init(&f, 1, 0, 3, &error), 0);
	ck_assert_int_eq(error, 0);
	ck_assert(vuf_logged(&f, "the rings start afresh: a new driver, the device is reset"));
	end(0);
}
END_TEST

/*
 * QEMU's vhost-user-fs-pci with num-request-queues=2: rings 1 and 2 each
 * run their own worker over the one FUSE session (an INIT on ring 2 is
 * answered, a second on ring 1 refused), the per-queue counts say which
 * ring carried what, and the reset rule sees every request ring: a pause
 * keeps the session even if one ring never carried a request, a reboot
 * (every ring from 0) forgets it. Rings are enabled only once all are set
 * up, as QEMU does (the rule needs every ring's base first).
 */
START_TEST(t_two_request_rings_one_session)
{
	uint32_t b[VUF_RINGS];
	int32_t error;

	begin(false);
	vuf_negotiate(&f);
	vuf_rings_start(&f, VUF_RINGS, NULL);
	ck_assert_int_gt(vuf_fuse_init(&f, 2, 0, 1, &error), 0);
	ck_assert_int_eq(error, 0);
	ck_assert_int_gt(vuf_fuse_init(&f, 1, 0, 2, &error), 0);
	ck_assert_int_eq(error, -EIO);
	ck_assert(vuf_alive(&f));   /* a round trip: the backend's thread noted its workers */
	ck_assert(vu_dev_ring_running(&f.d, 1) && vu_dev_ring_running(&f.d, 2));
	ck_assert_uint_eq(virtio_dev_requests(f.vdev, 1), 1);
	ck_assert_uint_eq(virtio_dev_requests(f.vdev, 2), 1);
	/* A pause with ring 0 never used: resumed, the session stays. */
	vuf_rings_stop(&f, VUF_RINGS, b);
	ck_assert_uint_eq(b[0], 0);
	vuf_rings_start(&f, VUF_RINGS, b);
	ck_assert_int_gt(vuf_fuse_init(&f, 2, 2, 3, &error), 0);
	ck_assert_int_eq(error, -EIO);
	/* A reboot: every ring afresh from 0, a new session on either ring. */
	vuf_rings_stop(&f, VUF_RINGS, NULL);
	for (unsigned q = 0; q < VUF_RINGS; q++)
		fvq_init(&f.vq[q], &f.m, VUF_QSIZE);
	vuf_rings_start(&f, VUF_RINGS, NULL);
	ck_assert_int_gt(vuf_fuse_init(&f, 1, 0, 4, &error), 0);
	ck_assert_int_eq(error, 0);
	ck_assert(vuf_logged(&f, "the rings start afresh: a new driver, the device is reset"));
	end(0);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("vhost_user_dev");
	TCase *tc = tcase_create("protocol");

	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, t_negotiate_and_answer_fuse_init);
	tcase_add_test(tc, t_ring_waits_for_enable);
	tcase_add_test(tc, t_reply_ack_says_yes_and_no);
	tcase_add_test(tc, t_get_config_with_tag);
	tcase_add_test(tc, t_dax_window_offered_and_configured);
	tcase_add_test(tc, t_same_table_again_keeps_rings);
	tcase_add_test(tc, t_reset_device_allows_a_new_session);
	tcase_add_test(tc, t_new_driver_gets_new_session_pause_keeps_it);
	tcase_add_test(tc, t_two_request_rings_one_session);
	suite_add_tcase(s, tc);
	tc = tcase_create("bad");
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, t_bad_wrong_size);
	tcase_add_test(tc, t_bad_unknown_request);
	tcase_add_test(tc, t_bad_unserved_request_is_named);
	tcase_add_test(tc, t_bad_shmem_config_without_a_window);
	tcase_add_test(tc, t_bad_vring_index);
	tcase_add_test(tc, t_bad_vring_index_in_kick);
	tcase_add_test(tc, t_bad_ring_before_memory);
	tcase_add_test(tc, t_bad_ring_outside_table);
	tcase_add_test(tc, t_bad_overlapping_regions);
	tcase_add_test(tc, t_bad_wrapping_region);
	tcase_add_test(tc, t_bad_region_without_fd);
	tcase_add_test(tc, t_bad_region_fd_not_memory);
	tcase_add_test(tc, t_bad_region_past_file_end);
	tcase_add_test(tc, t_bad_missing_kick_fd);
	tcase_add_test(tc, t_bad_kick_polling_mode);
	tcase_add_test(tc, t_bad_kick_not_an_eventfd);
	tcase_add_test(tc, t_unknowable_fd_is_not_an_eventfd);
	tcase_add_test(tc, t_bad_extra_fds);
	tcase_add_test(tc, t_bad_features_never_offered);
	tcase_add_test(tc, t_bad_ring_size);
	tcase_add_test(tc, t_ring_memory_removed_stops_ring);
	tcase_add_test(tc, t_guest_buffer_outside_table);
	suite_add_tcase(s, tc);
	return unit_main(s);
}
