/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * One budget of host file descriptors for the whole process, shared by
 * every share, server and transport. A client decides how many names it
 * remembers and how many files it keeps open; without one budget, each
 * server sizing its tables from RLIMIT_NOFILE on its own lets their sum
 * pass the limit, and then an unrelated open (a new connection, the VMM's
 * own files) fails with EMFILE. A server charges the budget before it
 * keeps an fd on a client's behalf and refunds it when it closes that fd;
 * a server that can do without an fd (an inode it can reopen by file
 * handle) gives one back rather than refusing the client.
 *
 * The limit is RLIMIT_NOFILE's soft value at first use less a reserve kept
 * for the process itself (FS_FD_RESERVE, or a quarter of a small limit).
 */
#ifndef STAINLESS_FS_FS_FDBUDGET_H
#define STAINLESS_FS_FS_FDBUDGET_H

#include <stdbool.h>

#include "fs/fs_fair.h"

#define FS_FD_RESERVE 256u

/* Takes one fd from the budget: 0, or -ENFILE when it is spent. */
int fs_fd_charge(void);
/* Gives back one fd taken by fs_fd_charge(). */
void fs_fd_refund(void);
/*
 * The same for a client that has a fair share of the budget (fs_fair.h;
 * NULL: none): both must allow it, else -ENFILE.
 */
int fs_fd_charge_to(struct fs_fair_acct *share);
void fs_fd_refund_to(struct fs_fair_acct *share);
/*
 * True when less than a quarter of the budget is left. Never fails, never
 * charges: a server asks it before keeping an fd it could do without (an
 * inode's cached O_PATH fd it can reopen by handle), so that caches leave
 * room for the fds clients cannot do without (open files, other shares).
 */
bool fs_fd_tight(void);
/* How many fds are charged now, and the limit. */
unsigned fs_fd_used(void);
unsigned fs_fd_limit(void);

/*
 * Sets the limit (tests; a front end after raising RLIMIT_NOFILE). Fds
 * already charged stay charged; a lower limit refuses new charges until
 * enough are refunded.
 */
void fs_fd_set_limit(unsigned limit);

/*
 * Raises RLIMIT_NOFILE as far as this process may: the hard limit, and
 * where allowed (root) fs.nr_open up to 1M, as virtiofsd does. At the
 * usual soft limit of 1024 every share of the process together would
 * keep under 800 fds. Each command that serves clients (run, fuse-mount,
 * 9p-serve) calls it before its first share exists, since the budget is
 * read from the limit at first use. 0 or -errno.
 */
int fs_fd_raise_nofile(void);

/*
 * Sets RLIMIT_NOFILE to n, soft and hard (virtiofsd's --rlimit-nofile),
 * and keeps it: fs_fd_raise_nofile() changes nothing after it. Call it
 * before the budget is first read. 0 or -errno (EPERM: a hard limit
 * above the one this process may set).
 */
int fs_fd_fix_nofile(unsigned long n);

/* The limit fs_fd_limit() starts from for a given RLIMIT_NOFILE value. */
unsigned fs_fd_limit_for(unsigned long nofile);

#endif
