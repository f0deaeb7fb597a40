// SPDX-License-Identifier: GPL-2.0-only
/* FUSE over io_uring for fuse-mount: one pinned thread per CPU queue (see fuse_uring.h). */
#include "transport/fuse_uring.h"

#include <errno.h>
#include <fcntl.h>
#include <liburing.h>
#include <linux/fuse.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <unistd.h>

#include "base/fail.h"
#include "fs/fs_req.h"
#include "fs/fuse/fuse_server.h"
#include "base/thread.h"
#include "base/uring.h"

/* The kernel ABI (include/uapi/linux/fuse.h, protocol 7.42), for older headers. */
#ifndef FUSE_URING_IN_OUT_HEADER_SZ
#define FUSE_URING_IN_OUT_HEADER_SZ 128
#define FUSE_URING_OP_IN_OUT_SZ 128
struct fuse_uring_ent_in_out {
	uint64_t flags;
	uint64_t commit_id;     /* the request's unique: names it at commit */
	uint32_t payload_sz;    /* bytes used in the payload buffer */
	uint32_t padding;
	uint64_t reserved;
};
struct fuse_uring_req_header {
	char in_out[FUSE_URING_IN_OUT_HEADER_SZ];  /* fuse_in_header / fuse_out_header */
	char op_in[FUSE_URING_OP_IN_OUT_SZ];       /* the op's first argument */
	struct fuse_uring_ent_in_out ring_ent_in_out;
};
enum fuse_uring_cmd {
	FUSE_IO_URING_CMD_INVALID = 0,
	FUSE_IO_URING_CMD_REGISTER = 1,
	FUSE_IO_URING_CMD_COMMIT_AND_FETCH = 2,
};
struct fuse_uring_cmd_req {  /* in the SQE's command area (128-byte SQEs) */
	uint64_t flags;
	uint64_t commit_id;
	uint16_t qid;
	uint8_t padding[6];
};
#endif

_Static_assert(sizeof(struct fuse_uring_req_header) == FUSE_URING_HDR_BLOCK, "header block");

#define WAKE_TAG ((uint64_t)1)  /* user_data of the wake eventfd read */
/* A queue's ring touches two files, both fixed: /dev/fuse and its wake eventfd. */
enum { FIXED_DEV, FIXED_WAKE, NR_FIXED };

struct uent {
	struct fuse_uring_req_header hdr;  /* registered with the kernel (iov 0) */
	struct uqueue *q;
	struct iovec reg[2];               /* header block, payload buffer */
	struct iovec in[3], out[2];
	struct fs_req req;
	uint64_t commit_id;
	uint32_t reply_len;
	struct uent *next;                 /* on the queue's answered list */
};

struct uqueue {
	struct fuse_uring *u;
	unsigned qid;                      /* = the CPU it serves */
	struct io_uring ring;
	bool ring_ok;
	int wake_fd;
	uint64_t wake_buf;
	_Atomic(struct uent *) answered;   /* parked requests answered elsewhere */
	_Atomic bool stop;
	unsigned waiting, parked;          /* entries with a command out / held */
	pthread_t thread;
	bool started;
	size_t payload_len;
	uint8_t *payload;                  /* FUSE_URING_DEPTH buffers */
	struct uent ents[FUSE_URING_DEPTH];
};

struct fuse_uring {
	struct fuse_server *srv;
	int dev_fd;
	unsigned nq;
	struct uqueue *qs;
};

bool fuse_uring_enabled(void)
{
	char c = 'N';
	int fd = open("/sys/module/fuse/parameters/enable_uring", O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return false;
	if (read(fd, &c, 1) != 1)
		c = 'N';
	close(fd);
	return c == 'Y' || c == '1';
}

static unsigned read_possible_cpus(void)
{
	char buf[256];
	unsigned last = 0;
	int fd = open("/sys/devices/system/cpu/possible", O_RDONLY | O_CLOEXEC);
	ssize_t n = fd < 0 ? -1 : read(fd, buf, sizeof(buf) - 1);

	if (fd >= 0)
		close(fd);
	if (n <= 0)
		return 0;
	buf[n] = 0;
	for (char *p = buf; *p;) {
		char *end;
		unsigned long v = strtoul(p, &end, 10);
		if (end == p)
			break;
		last = (unsigned)v;
		p = end + (*end == '-' || *end == ',');
	}
	return last + 1;
}

/*
 * The kernel has a queue for every possible CPU: "0-N" or a list. Read
 * once and kept: fuse-mount asks before its sandbox hides /sys.
 */
static unsigned possible_cpus(void)
{
	static _Atomic unsigned known;
	unsigned n = atomic_load(&known);

	if (!n) {
		n = read_possible_cpus();
		atomic_store(&known, n);
	}
	return n;
}

unsigned fuse_uring_queues(void)
{
	return possible_cpus();
}

/* The SQ holds every entry plus the wake read; submit if it ever fills. */
static struct io_uring_sqe *get_sqe(struct uqueue *q)
{
	struct io_uring_sqe *sqe;

	while (!(sqe = io_uring_get_sqe(&q->ring)))
		io_uring_submit(&q->ring);
	return sqe;
}

static void queue_cmd(struct uqueue *q, struct uent *e, uint32_t op)
{
	struct io_uring_sqe *sqe = get_sqe(q);
	struct fuse_uring_cmd_req *cmd;

	memset(sqe, 0, sizeof(*sqe));
	sqe->opcode = IORING_OP_URING_CMD;
	sqe->fd = FIXED_DEV;
	sqe->flags = IOSQE_FIXED_FILE;
	sqe->cmd_op = op;
	if (op == FUSE_IO_URING_CMD_REGISTER) {
		sqe->addr = (uintptr_t)e->reg;
		sqe->len = 2;
	}
	/* The command sits in the SQE's second half; every byte of it is set. */
	cmd = (struct fuse_uring_cmd_req *)sqe->cmd;
	*cmd = (struct fuse_uring_cmd_req){ .commit_id = e->commit_id, .qid = (uint16_t)q->qid };
	io_uring_sqe_set_data64(sqe, (uint64_t)(uintptr_t)e);
	q->waiting++;
}

static void arm_wake(struct uqueue *q)
{
	struct io_uring_sqe *sqe = get_sqe(q);

	io_uring_prep_read(sqe, FIXED_WAKE, &q->wake_buf, sizeof(q->wake_buf), 0);
	sqe->flags |= IOSQE_FIXED_FILE;
	io_uring_sqe_set_data64(sqe, WAKE_TAG);
}

/* Hands the answer in the entry's buffers back and asks for the next request. */
static void commit(struct uqueue *q, struct uent *e, int len)
{
	struct fuse_out_header *oh = (struct fuse_out_header *)e->hdr.in_out;

	if (len < (int)sizeof(*oh)) {
		/* Nothing to send is not an answer on this channel. */
		*oh = (struct fuse_out_header){ .len = sizeof(*oh), .error = -EIO,
						.unique = e->commit_id };
		len = sizeof(*oh);
	}
	e->hdr.ring_ent_in_out.payload_sz = (uint32_t)len - sizeof(*oh);
	queue_cmd(q, e, FUSE_IO_URING_CMD_COMMIT_AND_FETCH);
}

static void answered_elsewhere(void *ctx, struct fs_req *req, uint32_t len)
{
	struct uent *e = (struct uent *)((char *)req - offsetof(struct uent, req));
	struct uqueue *q = e->q;
	uint64_t one = 1;

	(void)ctx;
	if (atomic_load(&q->stop))
		return;             /* the connection is gone with the thread */
	e->reply_len = len;
	e->next = atomic_load(&q->answered);
	while (!atomic_compare_exchange_weak(&q->answered, &e->next, e))
		;
	(void)!write(q->wake_fd, &one, sizeof(one));
}

static const struct fs_transport parked_transport = { .complete = answered_elsewhere };

int fuse_uring_request_iov(void *hdr_block, void *payload, size_t payload_len,
			   struct iovec in[3])
{
	struct fuse_uring_req_header *hb = hdr_block;
	const struct fuse_in_header *h = (const struct fuse_in_header *)hb->in_out;
	uint32_t psz = hb->ring_ent_in_out.payload_sz;
	size_t arg0;

	if (h->len < sizeof(*h) || psz > payload_len || h->len - sizeof(*h) < psz)
		return -EINVAL;
	arg0 = h->len - sizeof(*h) - psz;
	if (arg0 > FUSE_URING_OP_IN_OUT_SZ)
		return -EINVAL;
	in[0] = (struct iovec){ hb->in_out, sizeof(*h) };
	in[1] = (struct iovec){ hb->op_in, arg0 };
	in[2] = (struct iovec){ payload, psz };
	return 0;
}

/* A request is in the entry: the kernel split it into header, first argument, payload. */
static void serve(struct uqueue *q, struct uent *e)
{
	int r;

	e->commit_id = e->hdr.ring_ent_in_out.commit_id;
	if (fuse_uring_request_iov(&e->hdr, e->reg[1].iov_base, q->payload_len, e->in)) {
		commit(q, e, 0);    /* cannot be parsed: -EIO */
		return;
	}
	/* The answer overwrites the request: the server copies what it reads first. */
	e->out[0] = (struct iovec){ e->hdr.in_out, sizeof(struct fuse_out_header) };
	e->out[1] = e->reg[1];
	e->req = (struct fs_req){ .in = e->in, .nin = 3, .out = e->out, .nout = 2 };
	r = fuse_server_handle(q->u->srv, &e->req, &parked_transport);
	if (r == FS_REQ_DEFERRED) {
		q->parked++;
		return;
	}
	commit(q, e, r);
}

static void take_answered(struct uqueue *q)
{
	struct uent *e = atomic_exchange(&q->answered, NULL);

	for (; e; e = e->next) {
		q->parked--;
		commit(q, e, (int)e->reply_len);
	}
}

/* Best effort: a queue still works from another CPU, only slower. */
static void pin(unsigned cpu)
{
	cpu_set_t one;

	if (cpu >= CPU_SETSIZE)
		return;
	CPU_ZERO(&one);
	CPU_SET(cpu, &one);
	(void)pthread_setaffinity_np(pthread_self(), sizeof(one), &one);
}

static void *queue_main(void *arg)
{
	struct uqueue *q = arg;
	bool logged = false;
	char name[16];

	snprintf(name, sizeof(name), "fuse-q%u", q->qid);
	(void)pthread_setname_np(pthread_self(), name);
	pin(q->qid);
	for (unsigned i = 0; i < FUSE_URING_DEPTH; i++)
		queue_cmd(q, &q->ents[i], FUSE_IO_URING_CMD_REGISTER);
	arm_wake(q);
	while (!atomic_load(&q->stop) && (q->waiting || q->parked)) {
		struct io_uring_cqe *cqe;
		unsigned head, n = 0;

		int r = io_uring_submit_and_wait(&q->ring, 1);

		if (r < 0 && r != -EINTR)   /* liburing returns -errno; errno is stale */
			break;
		io_uring_for_each_cqe(&q->ring, head, cqe) {
			uint64_t tag = io_uring_cqe_get_data64(cqe);
			n++;
			if (tag == WAKE_TAG) {
				take_answered(q);
				if (!atomic_load(&q->stop))
					arm_wake(q);
				continue;
			}
			struct uent *e = (struct uent *)(uintptr_t)tag;
			q->waiting--;
			if (cqe->res == 0) {
				serve(q, e);
			} else if (cqe->res != -ENOTCONN && cqe->res != -ECONNABORTED &&
				   cqe->res != -ECANCELED && !logged) {
				/* The entry is lost; the connection keeps the others. */
				fail(0, "io_uring queue %u: %s",
					q->qid, strerror(-cqe->res));
				logged = true;
			}
		}
		io_uring_cq_advance(&q->ring, n);
	}
	return NULL;
}

/*
 * The ring may only run FUSE's commands on /dev/fuse and the wake read,
 * each on its fixed file (fs_uring.h).
 */
static int queue_ring_init(struct uqueue *q)
{
	static const uint8_t ops[] = { IORING_OP_URING_CMD, IORING_OP_READ };
	const int files[NR_FIXED] = { [FIXED_DEV] = q->u->dev_fd, [FIXED_WAKE] = q->wake_fd };
	const struct fs_uring_policy pol = {
		.ops = ops, .nops = sizeof(ops), .files = files, .nfiles = NR_FIXED,
		.fixed_only = true,
	};
	struct io_uring_params p = { .flags = IORING_SETUP_SQE128 };

	return fs_uring_init(&q->ring, 2 * FUSE_URING_DEPTH + 2, &p, &pol);
}

static int queue_init(struct fuse_uring *u, struct uqueue *q, unsigned qid)
{
	int r;

	q->u = u;
	q->qid = qid;
	q->wake_fd = eventfd(0, EFD_CLOEXEC);
	if (q->wake_fd < 0)
		return -errno;
	q->payload_len = fuse_server_max_request(u->srv);
	/* Reserved, not touched: pages appear as requests use them. */
	q->payload = mmap(NULL, FUSE_URING_DEPTH * q->payload_len, PROT_READ | PROT_WRITE,
			  MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (q->payload == MAP_FAILED) {
		q->payload = NULL;
		return -ENOMEM;
	}
	r = queue_ring_init(q);
	if (r < 0)
		return r;
	q->ring_ok = true;
	for (unsigned i = 0; i < FUSE_URING_DEPTH; i++) {
		struct uent *e = &q->ents[i];
		e->q = q;
		e->reg[0] = (struct iovec){ &e->hdr, sizeof(e->hdr) };
		e->reg[1] = (struct iovec){ q->payload + i * q->payload_len, q->payload_len };
	}
	return 0;
}

static void queue_fini(struct uqueue *q)
{
	if (q->ring_ok)
		io_uring_queue_exit(&q->ring);
	q->ring_ok = false;
}

int fuse_uring_start(struct fuse_uring **out, struct fuse_server *srv, int dev_fd)
{
	struct fuse_uring *u = calloc(1, sizeof(*u));
	int r = 0;

	if (!u)
		return -ENOMEM;
	u->srv = srv;
	u->dev_fd = dev_fd;
	u->nq = possible_cpus();
	u->qs = u->nq ? calloc(u->nq, sizeof(*u->qs)) : NULL;
	if (!u->qs) {
		free(u);
		return -ENODEV;
	}
	for (unsigned i = 0; i < u->nq; i++)
		u->qs[i].wake_fd = -1;
	for (unsigned i = 0; i < u->nq && !r; i++)
		r = queue_init(u, &u->qs[i], i);
	for (unsigned i = 0; i < u->nq && !r; i++) {
		r = fs_thread_create(&u->qs[i].thread, NULL, FS_ROLE_FUSE_URING, queue_main,
				     &u->qs[i]);
		u->qs[i].started = !r;
	}
	if (r) {
		/* A ring never complete is never used: /dev/fuse carries on. */
		fuse_uring_free(u);
		return r;
	}
	*out = u;
	return 0;
}

void fuse_uring_stop(struct fuse_uring *u)
{
	uint64_t one = 1;

	if (!u)
		return;
	for (unsigned i = 0; i < u->nq; i++) {
		struct uqueue *q = &u->qs[i];
		atomic_store(&q->stop, true);
		if (q->wake_fd >= 0)
			(void)!write(q->wake_fd, &one, sizeof(one));
	}
	for (unsigned i = 0; i < u->nq; i++) {
		struct uqueue *q = &u->qs[i];
		if (q->started)
			pthread_join(q->thread, NULL);
		q->started = false;
		/* Closing the ring cancels the commands the kernel still holds. */
		queue_fini(q);
	}
}

void fuse_uring_free(struct fuse_uring *u)
{
	if (!u)
		return;
	fuse_uring_stop(u);
	for (unsigned i = 0; i < u->nq; i++) {
		struct uqueue *q = &u->qs[i];
		if (q->payload)
			munmap(q->payload, FUSE_URING_DEPTH * q->payload_len);
		if (q->wake_fd >= 0)
			close(q->wake_fd);
	}
	free(u->qs);
	free(u);
}
