// SPDX-License-Identifier: GPL-2.0-only
/*
 * The virtio-fs and virtio-9p device glue (devices/virtio_fs.c,
 * devices/virtio_9p.c): argument checks, config space as the guest reads
 * it, and whole round trips (fake driver -> virtio-mmio -> worker -> FUSE
 * or 9p server -> used ring) including what a device reset forgets.
 */
#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <linux/fuse.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "devices/virtio_9p.h"
#include "devices/virtio_fs.h"
#include "tests/unit/check_main.h"
#include "tests/unit/fake_driver.h"

#define FEAT_OK (VIRTIO_FEAT_VERSION_1 | VIRTIO_FEAT_EVENT_IDX | VIRTIO_FEAT_INDIRECT)
#define WAIT_MS 5000
#define QSIZE   16

static char dir[] = "/tmp/stainless-sharedev-XXXXXX";
static struct fs_options opts;
static struct fd_mem mem;
static struct fake_vq fvq[4];
static struct vmmio *t;
static struct virtio_dev *dev;

static void setup(void)
{
	ck_assert_ptr_nonnull(mkdtemp(dir));
	fs_options_default(&opts);
}

static void teardown(void)
{
	rmdir(dir);
}

/* Bring the device up with nq queues, as a guest driver would. */
static void start(struct virtio_dev *d, unsigned nq)
{
	struct vmmio_config c = {
		.vm_fd = -1, .base = 0xd0000000, .gsi = 5, .gm = &mem.gm, .dev = d,
	};

	dev = d;
	ck_assert_int_eq(fd_mem_init(&mem, 8 << 20), 0);
	ck_assert_int_eq(vmmio_create(&t, &c), 0);
	ck_assert_uint_ne(fd_negotiate(t, FEAT_OK) & VIRTIO_STATUS_FEATURES_OK, 0);
	for (unsigned q = 0; q < nq; q++) {
		fvq_init(&fvq[q], &mem, QSIZE);
		fd_setup_queue(t, q, &fvq[q]);
	}
	ck_assert_uint_eq(fd_driver_ok(t) & VIRTIO_STATUS_NEEDS_RESET, 0);
}

static void stop(void)
{
	vmmio_destroy(t);
	virtio_dev_destroy(dev);
	fd_mem_free(&mem);
}

/*
 * Post one request (req, len) with a reply buffer of rlen bytes on queue q
 * as a two-descriptor chain at head, kick, wait for it to be used, and
 * return the reply buffer; *used gets the used length.
 */
static void *transact(unsigned q, uint16_t head, const void *req, uint32_t len,
		      uint32_t rlen, uint32_t *used)
{
	struct fake_vq *v = &fvq[q];
	uint64_t in = fd_alloc(&mem, len, 8), out = fd_alloc(&mem, rlen, 8);
	uint16_t want = (uint16_t)(fvq_used_idx(v) + 1);

	memcpy(fd_host(&mem, in), req, len);
	fvq_set_desc(v, head, in, len, VQ_DESC_F_NEXT, (uint16_t)(head + 1));
	fvq_set_desc(v, (uint16_t)(head + 1), out, rlen, VQ_DESC_F_WRITE, 0);
	fvq_publish(v, head);
	fd_wr(t, VMMIO_QUEUE_NOTIFY, q);
	ck_assert_int_eq(fvq_wait_used(v, want, WAIT_MS), 0);
	*used = fvq_used_elem(v, (uint16_t)(want - 1)).len;
	return fd_host(&mem, out);
}

static uint32_t cfg32(uint64_t off)
{
	return fd_rd(t, VMMIO_CONFIG + off);
}

START_TEST(t_fs_rejects_bad_tags_and_dirs)
{
	struct virtio_dev *d = NULL;
	char file[64];

	ck_assert_int_eq(virtio_fs_create(&d, "", dir, &opts), -EINVAL);
	ck_assert_int_eq(virtio_fs_create(&d, "0123456789012345678901234567890123456", dir,
					  &opts), -EINVAL);
	ck_assert_int_eq(virtio_fs_create(&d, "tag", "/nonexistent/stainless", &opts), -ENOENT);
	snprintf(file, sizeof(file), "%s/f", dir);
	fclose(fopen(file, "w"));
	ck_assert_int_eq(virtio_fs_create(&d, "tag", file, &opts), -ENOTDIR);
	unlink(file);
	ck_assert_ptr_null(d);
}
END_TEST

START_TEST(t_9p_rejects_bad_tags_and_dirs)
{
	struct virtio_dev *d = NULL;
	char tag[300];

	memset(tag, 'a', sizeof(tag) - 1);
	tag[sizeof(tag) - 1] = '\0';
	ck_assert_int_eq(virtio_9p_create(&d, "", dir, &opts), -EINVAL);
	ck_assert_int_eq(virtio_9p_create(&d, tag, dir, &opts), -EINVAL);
	ck_assert_int_lt(virtio_9p_create(&d, "tag", "/nonexistent/stainless", &opts), 0);
	ck_assert_ptr_null(d);
}
END_TEST

START_TEST(t_fs_config_has_tag_and_queue_count)
{
	struct virtio_dev *d;
	uint32_t w[10];

	ck_assert_int_eq(virtio_fs_create(&d, "myshare", dir, &opts), 0);
	start(d, 2);
	ck_assert_uint_eq(fd_rd(t, VMMIO_DEVICE_ID), VIRTIO_ID_FS);
	for (unsigned i = 0; i < 10; i++)
		w[i] = cfg32(4 * i);
	ck_assert_mem_eq(w, "myshare\0\0", 9);
	ck_assert_uint_eq(w[9], 1);   /* queues unset: one request queue */
	fd_wr(t, VMMIO_QUEUE_SEL, 2);
	ck_assert_uint_eq(fd_rd(t, VMMIO_QUEUE_NUM_MAX), 0);
	stop();
}
END_TEST

START_TEST(t_9p_config_has_tag_and_feature)
{
	struct virtio_dev *d;
	uint8_t c[12];

	ck_assert_int_eq(virtio_9p_create(&d, "nine", dir, &opts), 0);
	start(d, 1);
	ck_assert_uint_eq(fd_rd(t, VMMIO_DEVICE_ID), VIRTIO_ID_9P);
	fd_wr(t, VMMIO_DEV_FEATURES_SEL, 0);
	ck_assert_uint_ne(fd_rd(t, VMMIO_DEV_FEATURES) & 1, 0); /* VIRTIO_9P_MOUNT_TAG */
	for (unsigned i = 0; i < sizeof(c); i++) {
		uint8_t b = 0xee;

		vmmio_bus_access(t, VMMIO_CONFIG + i, &b, 1, false);
		c[i] = b;
	}
	ck_assert_uint_eq(c[0] | c[1] << 8, 4);
	ck_assert_mem_eq(c + 2, "nine", 4);
	ck_assert_uint_eq(c[6], 0); /* past the tag reads as zero */
	stop();
}
END_TEST

static uint32_t fuse_init(unsigned q, uint16_t head, uint64_t unique, int32_t *error)
{
	struct {
		struct fuse_in_header h;
		struct fuse_init_in i;
	} req = {
		.h = { .len = sizeof(req), .opcode = FUSE_INIT, .unique = unique },
		.i = { .major = FUSE_KERNEL_VERSION, .minor = 31, .max_readahead = 65536 },
	};
	uint32_t used;
	struct fuse_out_header *o = transact(q, head, &req, sizeof(req), 4096, &used);

	ck_assert_uint_eq(o->unique, unique);
	*error = o->error;
	return used;
}

START_TEST(t_fs_init_round_trip_on_request_queue)
{
	struct virtio_dev *d;
	int32_t error;
	uint32_t used;

	ck_assert_int_eq(virtio_fs_create(&d, "myshare", dir, &opts), 0);
	start(d, 2);
	used = fuse_init(1, 0, 7, &error);
	ck_assert_int_eq(error, 0);
	ck_assert_uint_ge(used, sizeof(struct fuse_out_header) + 24);
	stop();
}
END_TEST

/* Is a thread of this process named name (a worker: "virtio-fs/q2")? */
static bool thread_named(const char *name)
{
	DIR *dp = opendir("/proc/self/task");
	struct dirent *e;
	bool found = false;

	while (dp && !found && (e = readdir(dp))) {
		char path[300], comm[32] = "";
		FILE *f;

		snprintf(path, sizeof(path), "/proc/self/task/%s/comm", e->d_name);
		if (e->d_name[0] == '.' || !(f = fopen(path, "r")))
			continue;
		found = fgets(comm, sizeof(comm), f) && strncmp(comm, name, strlen(name)) == 0 &&
			(comm[strlen(name)] == '\n' || comm[strlen(name)] == '\0');
		fclose(f);
	}
	if (dp)
		closedir(dp);
	return found;
}

/* The same, waiting a while: a worker is named just after it starts. */
static bool have_thread(const char *name)
{
	for (int i = 0; i < WAIT_MS / 10; i++) {
		if (thread_named(name))
			return true;
		usleep(10 * 1000);
	}
	return false;
}

/*
 * queues=3: the config says 3, the device has hiprio + 3 request queues
 * and no fifth, each running its own worker thread, every request queue
 * answers the one FUSE session, and the per-queue counts (--stats) say
 * which queue carried what.
 */
START_TEST(t_fs_queues_each_with_a_worker)
{
	struct {
		struct fuse_in_header h;
		struct fuse_getattr_in g;
	} ga = { .h = { .len = sizeof(ga), .opcode = FUSE_GETATTR, .unique = 9,
			.nodeid = FUSE_ROOT_ID } };
	struct virtio_dev *d;
	struct fuse_out_header *o;
	int32_t error;
	uint32_t used;

	opts.queues = 17;
	ck_assert_int_eq(virtio_fs_create(&d, "mq", dir, &opts), -EINVAL);
	opts.queues = 3;
	ck_assert_int_eq(virtio_fs_create(&d, "mq", dir, &opts), 0);
	ck_assert_uint_eq(virtio_dev_num_queues(d), 4);
	start(d, 4);
	ck_assert_uint_eq(cfg32(36), 3);
	fd_wr(t, VMMIO_QUEUE_SEL, 3);
	ck_assert_uint_eq(fd_rd(t, VMMIO_QUEUE_NUM_MAX), VIRTIO_FS_QUEUE_SIZE);
	fd_wr(t, VMMIO_QUEUE_SEL, 4);
	ck_assert_uint_eq(fd_rd(t, VMMIO_QUEUE_NUM_MAX), 0);
	for (unsigned q = 0; q < 4; q++) {
		char name[16];

		snprintf(name, sizeof(name), "virtio-fs/q%u", q);
		ck_assert_msg(have_thread(name), "no worker thread %s", name);
	}
	fuse_init(1, 0, 1, &error);
	ck_assert_int_eq(error, 0);
	/* Queues 2 and 3 full of GETATTRs of the root, kicked together: two
	 * workers in the server at once (TSAN=1 watches them). */
	uint64_t out[2][QSIZE / 2];
	for (unsigned q = 2; q <= 3; q++)
		for (uint16_t i = 0; i < QSIZE / 2; i++) {
			uint64_t in = fd_alloc(&mem, sizeof(ga), 8);

			out[q - 2][i] = fd_alloc(&mem, 256, 8);
			memcpy(fd_host(&mem, in), &ga, sizeof(ga));
			fvq_set_desc(&fvq[q], 2 * i, in, sizeof(ga), VQ_DESC_F_NEXT,
				     (uint16_t)(2 * i + 1));
			fvq_set_desc(&fvq[q], 2 * i + 1, out[q - 2][i], 256, VQ_DESC_F_WRITE, 0);
			fvq_publish(&fvq[q], 2 * i);
		}
	fd_wr(t, VMMIO_QUEUE_NOTIFY, 2);
	fd_wr(t, VMMIO_QUEUE_NOTIFY, 3);
	for (unsigned q = 2; q <= 3; q++) {
		ck_assert_int_eq(fvq_wait_used(&fvq[q], QSIZE / 2, WAIT_MS), 0);
		for (unsigned i = 0; i < QSIZE / 2; i++) {
			o = fd_host(&mem, out[q - 2][i]);
			ck_assert_int_eq(o->error, 0);
			ck_assert_uint_eq(o->len, sizeof(*o) + sizeof(struct fuse_attr_out));
		}
	}
	o = transact(3, 0, &ga, sizeof(ga), 4096, &used);   /* and the ring goes on */
	ck_assert_int_eq(o->error, 0);
	ck_assert_uint_eq(virtio_dev_requests(d, 0), 0);
	ck_assert_uint_eq(virtio_dev_requests(d, 1), 1);
	ck_assert_uint_eq(virtio_dev_requests(d, 2), QSIZE / 2);
	ck_assert_uint_eq(virtio_dev_requests(d, 3), QSIZE / 2 + 1);
	stop();
}
END_TEST

/* vhost-user: rings for every request queue a frontend may wire up,
 * while the config keeps announcing what the options said. */
START_TEST(t_fs_offer_rings_keeps_the_config)
{
	struct virtio_dev *d;

	ck_assert_int_eq(virtio_fs_create(&d, "vu", dir, &opts), 0);
	ck_assert_int_eq(virtio_fs_offer_rings(d, VIRTIO_FS_MAX_REQUEST_QUEUES + 1), -EINVAL);
	ck_assert_int_eq(virtio_fs_offer_rings(d, VIRTIO_FS_MAX_REQUEST_QUEUES), 0);
	ck_assert_uint_eq(virtio_dev_num_queues(d), 17);
	start(d, 2);
	ck_assert_uint_eq(cfg32(36), 1);
	fd_wr(t, VMMIO_QUEUE_SEL, 16);
	ck_assert_uint_ne(fd_rd(t, VMMIO_QUEUE_NUM_MAX), 0);
	stop();
}
END_TEST

/* A GETATTR of the root before INIT is refused; after INIT it works; a
 * device reset makes the server forget the session, so it is refused
 * again until the next INIT. */
START_TEST(t_fs_reset_forgets_the_session)
{
	struct {
		struct fuse_in_header h;
		struct fuse_getattr_in g;
	} ga = { .h = { .len = sizeof(ga), .opcode = FUSE_GETATTR, .unique = 9,
			.nodeid = FUSE_ROOT_ID } };
	struct virtio_dev *d;
	struct fuse_out_header *o;
	int32_t error;
	uint32_t used;

	ck_assert_int_eq(virtio_fs_create(&d, "myshare", dir, &opts), 0);
	start(d, 2);
	fuse_init(1, 0, 1, &error);
	ck_assert_int_eq(error, 0);
	o = transact(1, 2, &ga, sizeof(ga), 4096, &used);
	ck_assert_int_eq(o->error, 0);

	fd_wr(t, VMMIO_STATUS, 0);
	ck_assert_uint_eq(fd_rd(t, VMMIO_STATUS), 0);
	ck_assert_uint_ne(fd_negotiate(t, FEAT_OK) & VIRTIO_STATUS_FEATURES_OK, 0);
	for (unsigned q = 0; q < 2; q++) {
		fvq_init(&fvq[q], &mem, QSIZE);
		fd_setup_queue(t, q, &fvq[q]);
	}
	fd_driver_ok(t);
	o = transact(1, 0, &ga, sizeof(ga), 4096, &used);
	ck_assert_int_ne(o->error, 0);
	stop();
}
END_TEST

/* dax=SIZE gives the device shared-memory region 0 backed by a host
 * mapping, which the guest finds through the SHM registers. */
START_TEST(t_fs_dax_window_is_region_0)
{
	struct virtio_dev *d;

	opts.dax_size = 4 << 20;
	ck_assert_int_eq(virtio_fs_create(&d, "myshare", dir, &opts), 0);
	ck_assert_uint_eq(d->nr_shm, 1);
	ck_assert_uint_eq(d->shm[0].id, 0);
	ck_assert_uint_eq(d->shm[0].len, 4 << 20);
	ck_assert_ptr_nonnull(d->shm[0].host);
	((volatile uint8_t *)d->shm[0].host)[(4 << 20) - 1] = 1; /* all of it is mapped */
	start(d, 2);
	ck_assert_int_eq(vmmio_set_shm_base(t, 0, 0x100000000ull), 0);
	fd_wr(t, VMMIO_SHM_SEL, 0);
	ck_assert_uint_eq(fd_rd(t, VMMIO_SHM_LEN_LOW), 4 << 20);
	ck_assert_uint_eq(fd_rd(t, VMMIO_SHM_LEN_HIGH), 0);
	ck_assert_uint_eq(fd_rd(t, VMMIO_SHM_BASE_LOW), 0);
	ck_assert_uint_eq(fd_rd(t, VMMIO_SHM_BASE_HIGH), 1);
	stop();
	/* Without dax= there is no region. */
	opts.dax_size = 0;
	ck_assert_int_eq(virtio_fs_create(&d, "myshare", dir, &opts), 0);
	ck_assert_uint_eq(d->nr_shm, 0);
	virtio_dev_destroy(d);
}
END_TEST

static void p9_put(uint8_t **p, const void *v, size_t n)
{
	memcpy(*p, v, n);
	*p += n;
}

/* Tversion; returns the reply's type. */
static uint8_t p9_version(uint16_t head)
{
	uint8_t m[64], *p = m + 4, *r;
	uint32_t used, size, msize = 65536;
	uint16_t tag = 0xffff, l = 8;

	*p++ = 100; /* Tversion */
	p9_put(&p, &tag, 2);
	p9_put(&p, &msize, 4);
	p9_put(&p, &l, 2);
	p9_put(&p, "9P2000.L", 8);
	size = (uint32_t)(p - m);
	memcpy(m, &size, 4);
	r = transact(0, head, m, size, 8192, &used);
	return r[4];
}

/* Tattach of fid as root; returns the reply's type. */
static uint8_t p9_attach(uint16_t head, uint32_t fid)
{
	uint8_t m[64], *p = m + 4, *r;
	uint32_t used, size, afid = ~0u, uid = 0;
	uint16_t tag = 1, l = 4, zero = 0;

	*p++ = 104; /* Tattach */
	p9_put(&p, &tag, 2);
	p9_put(&p, &fid, 4);
	p9_put(&p, &afid, 4);
	p9_put(&p, &l, 2);
	p9_put(&p, "root", 4);
	p9_put(&p, &zero, 2);
	p9_put(&p, &uid, 4);
	size = (uint32_t)(p - m);
	memcpy(m, &size, 4);
	r = transact(0, head, m, size, 8192, &used);
	return r[4];
}

START_TEST(t_9p_round_trip_and_reset_forgets_fids)
{
	struct virtio_dev *d;

	ck_assert_int_eq(virtio_9p_create(&d, "nine", dir, &opts), 0);
	start(d, 1);
	ck_assert_uint_eq(p9_version(0), 101);  /* Rversion */
	ck_assert_uint_eq(p9_attach(2, 1), 105); /* Rattach */
	/* The same fid again in the same session is taken. */
	ck_assert_uint_eq(p9_attach(4, 1), 7);   /* Rlerror */

	fd_wr(t, VMMIO_STATUS, 0);
	ck_assert_uint_ne(fd_negotiate(t, FEAT_OK) & VIRTIO_STATUS_FEATURES_OK, 0);
	fvq_init(&fvq[0], &mem, QSIZE);
	fd_setup_queue(t, 0, &fvq[0]);
	fd_driver_ok(t);
	/* After a reset it is a new client: the old session would take a new
	 * fid, the new one wants Tversion first; then fid 1 is free again. */
	ck_assert_uint_eq(p9_attach(0, 2), 7);
	ck_assert_uint_eq(p9_version(2), 101);
	ck_assert_uint_eq(p9_attach(4, 1), 105);
	stop();
}
END_TEST

int main(void)
{
	Suite *s = suite_create("share_devices");
	TCase *tc = tcase_create("share_devices");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, t_fs_rejects_bad_tags_and_dirs);
	tcase_add_test(tc, t_9p_rejects_bad_tags_and_dirs);
	tcase_add_test(tc, t_fs_config_has_tag_and_queue_count);
	tcase_add_test(tc, t_fs_queues_each_with_a_worker);
	tcase_add_test(tc, t_fs_offer_rings_keeps_the_config);
	tcase_add_test(tc, t_9p_config_has_tag_and_feature);
	tcase_add_test(tc, t_fs_init_round_trip_on_request_queue);
	tcase_add_test(tc, t_fs_dax_window_is_region_0);
	tcase_add_test(tc, t_fs_reset_forgets_the_session);
	tcase_add_test(tc, t_9p_round_trip_and_reset_forgets_fids);
	suite_add_tcase(s, tc);
	return unit_main(s);
}
