/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * fuse-mount --passthrough's registrar: the one process that may register
 * backing files on the FUSE connection (FUSE_DEV_IOC_BACKING_OPEN needs
 * CAP_SYS_ADMIN in the initial user namespace, which no serving thread
 * keeps). It is forked before the sandbox, stays in the host's namespaces
 * with CAP_SYS_ADMIN alone under a seccomp filter of its own (role
 * registrar), and holds nothing but the connection's /dev/fuse fd and its
 * end of a socket pair whose other end only the sandboxed server holds.
 *
 * What it takes on trust and what it checks (docs/fuse-mount.md, SECURITY.md):
 *  - HELLO, once, before the server reads its first request: an fd of the
 *    share's root as the server's mount namespace has it. Checked: a
 *    directory, the very share directory (st_dev, st_ino of the one the
 *    registrar opened itself before the fork), and the root of its mount
 *    (STATX_ATTR_MOUNT_ROOT). Its mount id is the only one accepted after.
 *  - OPEN: one fd. Checked on the object: a regular file, on that mount (a
 *    mount whose root is the share shows nothing outside it), neither
 *    immutable nor append-only (the kernel reopens a backing file without
 *    the permission checks an open makes). At most REGISTRAR_MAX_IDS at once.
 *  - CLOSE: an id it registered.
 * Everything else is refused with an errno, and the fd handed in is closed.
 */
#ifndef STAINLESS_TRANSPORT_FUSE_REGISTRAR_H
#define STAINLESS_TRANSPORT_FUSE_REGISTRAR_H

#include <stdbool.h>
#include <stdint.h>

#define REGISTRAR_MAX_IDS 4096

/* The wire protocol on the socket pair (SOCK_SEQPACKET: one message each way). */
enum registrar_op { REGISTRAR_HELLO = 1, REGISTRAR_OPEN, REGISTRAR_CLOSE, REGISTRAR_STATS };

struct registrar_msg {
	uint32_t op;              /* enum registrar_op; HELLO and OPEN carry one fd */
	int32_t id;               /* CLOSE: the backing id */
};

struct registrar_answer {
	int32_t result;           /* OPEN: the backing id (> 0); otherwise 0; or -errno */
	uint32_t ids;             /* ids registered now */
	uint64_t registered;      /* ids registered in all */
	uint64_t refused;         /* requests refused in all */
};

_Static_assert(sizeof(struct registrar_msg) == 8, "registrar_msg");
_Static_assert(sizeof(struct registrar_answer) == 24, "registrar_answer");

struct fuse_registrar;

/*
 * Forks the registrar (as root, before sandbox_enter(): it must stay in
 * the host's namespaces): fuse_fd is the mounted connection, share the
 * shared directory. 0 or -errno after one line saying why.
 */
int fuse_registrar_start(struct fuse_registrar **out, int fuse_fd, const char *share);

/* The server's end of the socket (the host test drives it by hand). */
int fuse_registrar_socket(const struct fuse_registrar *r);

/* One request; fd -1: none carried. The answer's result (and *a if not NULL). */
int fuse_registrar_call(struct fuse_registrar *r, enum registrar_op op, int fd, int32_t id,
			struct registrar_answer *a);

/* In the sandboxed server, after lockdown, before the first request. 0 or -errno. */
int fuse_registrar_hello(struct fuse_registrar *r, const char *root);

/* The server's hook (fuse_server_params.backing), ctx the registrar. */
extern const struct fuse_backing_ops fuse_registrar_ops;

/* Closes the server's end: the registrar closes its ids and exits. NULL: nothing. */
void fuse_registrar_free(struct fuse_registrar *r);

#endif
