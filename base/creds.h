/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Per-thread credentials and capabilities of the threads that make host
 * calls for a client, shared by the FUSE and 9p servers.
 */
#ifndef STAINLESS_BASE_CREDS_H
#define STAINLESS_BASE_CREDS_H

#include <linux/capability.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/*
 * Run the calling thread's filesystem calls as uid/gid with the given
 * supplementary groups (per-thread: setfsuid/setfsgid and the raw setgroups
 * syscall, which unlike glibc's wrapper does not touch other threads), so
 * permission checks are the host kernel's. Only effective when running as
 * root or after fs_creds_switch_ids(); otherwise a no-op that reports
 * success (a non-root process can act as itself alone). fs_creds_reset()
 * goes back to the process's own ids (root's) with no supplementary groups.
 */
int fs_creds_set(uid_t uid, gid_t gid, const gid_t *groups, size_t ngroups);
void fs_creds_reset(void);

/*
 * The server's own question in the middle of a client's request (a reopen
 * by name, is a directory still inside the share): fsuid 0 for it, which
 * raises the file-system capabilities again, and then back. raise returns
 * the fsuid to give lower; neither makes a call when nothing changes.
 */
uid_t fs_creds_raise(void);
void fs_creds_lower(uid_t was);

/*
 * Switch ids per request although not root: a user namespace maps more ids
 * than the process's own (--uid-map), and it holds CAP_SETUID/CAP_SETGID
 * there; uid/gid are its own ids, fs_creds_reset()'s. Before any serving
 * thread starts.
 */
void fs_creds_switch_ids(uid_t uid, gid_t gid);

/* Whether the calling thread has capability cap (CAP_*) in its effective set now. */
bool fs_caps_effective(int cap);

/*
 * The capabilities a passthrough needs: FS_CAPS_KEEP, as a mask of
 * CAP_* bits. CHOWN, DAC_OVERRIDE, FOWNER and FSETID for what root does
 * to files (DAC_OVERRIDE also reads and searches any directory); SETUID
 * and SETGID for fs_creds_set. Never DAC_READ_SEARCH: in the initial user
 * namespace it is what lets open_by_handle_at decode any inode of a file
 * system, beneath the share or not, so no thread that serves a client
 * holds it (the servers use no file handles). MKNOD only where a share
 * has `devices` (fs_caps_keep()).
 */
#define FS_CAPS_KEEP ((1ull << CAP_CHOWN) | (1ull << CAP_DAC_OVERRIDE) |          \
		      (1ull << CAP_FOWNER) | (1ull << CAP_FSETID) |               \
		      (1ull << CAP_SETGID) | (1ull << CAP_SETUID))

/*
 * Whether some share of this process has `devices`: then a serving
 * thread keeps CAP_MKNOD and its seccomp filter lets mknodat make
 * character and block devices (sandbox/seccomp_policy.c); otherwise neither,
 * so not even a compromised server can mint a host device node (FIFOs,
 * sockets, regular files and the 0:0 whiteout need no CAP_MKNOD since
 * Linux 5.8). Each command says so while the process is single-threaded,
 * before sandbox_enter() (which starts building the filters).
 */
void fs_caps_allow_devices(bool on);
bool fs_caps_devices(void);

/* FS_CAPS_KEEP, and CAP_MKNOD when fs_caps_devices(). */
uint64_t fs_caps_keep(void);

/*
 * Limits the calling thread's permitted, effective and inheritable
 * capabilities to fs_caps_keep(), and its bounding set too where it may
 * (CAP_SETPCAP), so not even an execve gets the rest back. Capabilities
 * are per thread and setfsuid() takes away only the file-system ones,
 * so a thread serving clients would otherwise keep CAP_SYS_ADMIN and
 * CAP_SETFCAP (trusted.* and security.capability xattrs), CAP_SYS_NICE
 * and the rest whatever fsuid it runs a request with. Every thread that
 * makes host calls for a client calls this before its first; it cannot
 * be undone. Harmless without root: a subset of what the thread holds
 * can always be set. 0 or -errno.
 */
int fs_caps_limit(void);

/*
 * fs_caps_limit() to another mask: the sandbox's whole-process limit,
 * fs_caps_keep() and what threads other than the serving ones still need
 * (sandbox_creds.c), which each serving thread then drops itself.
 */
int fs_caps_limit_to(uint64_t keep_mask);

/*
 * fs_caps_limit() at a serving thread's first request, for the servers'
 * request entries: one thread-local load per request after that, and
 * every transport's threads are covered without knowing about it.
 */
int fs_caps_limit_once(void);

#endif
