/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Which extended attributes a client may reach, and under which host name:
 * one policy for the FUSE and the 9p server.
 *
 * - `user.*`, `system.posix_acl_access` and `system.posix_acl_default`
 *   pass unchanged: the host kernel checks them against the caller's own
 *   (fsuid) credentials.
 * - `security.*` and `trusted.*` never reach the host's own namespaces:
 *   writing them takes CAP_SYS_ADMIN or CAP_SETFCAP, so a guest user could
 *   plant file capabilities (security.capability) or overlayfs and LSM
 *   metadata on host files. By default they are refused (set/remove
 *   EOPNOTSUPP, get ENODATA, left out of lists). With the share option
 *   `xattr=map` they live under a private prefix instead: the client's
 *   `security.selinux` is the host's `user.stainless.security.selinux`,
 *   read back and listed under its own name, so labelled guests work.
 * - Every other name (other `system.*`, no known namespace) is refused
 *   the same way: set/remove EOPNOTSUPP, get ENODATA, not listed.
 * - The private prefix `user.stainless.` is reserved with or without
 *   mapping: naming it directly gets EPERM on set/remove and ENODATA on
 *   get, and host names under it are listed only through the mapping
 *   (as the names they map back to). A client reaches the private
 *   namespace through the mapping or not at all.
 */
#ifndef STAINLESS_FS_FS_XATTR_H
#define STAINLESS_FS_FS_XATTR_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* Where mapped names live on the host. */
#define FS_XATTR_PRIVATE "user.stainless."

enum fs_xattr_use {
	FS_XATTR_GET,   /* getxattr: a refused name simply is not there */
	FS_XATTR_SET,   /* setxattr and removexattr */
};

/*
 * The host name for a client's xattr name, written to host (hostsz bytes,
 * XATTR_NAME_MAX + 1 holds any). map is the share's `xattr=map`.
 * Returns 0, or the errno to answer the client:
 *   FS_XATTR_GET: -ENODATA for any name it may not read;
 *   FS_XATTR_SET: -EOPNOTSUPP for a namespace it may not write, -EPERM
 *   for the reserved prefix, -ERANGE when the mapped name would pass
 *   XATTR_NAME_MAX (what setxattr(2) says of a name too long).
 */
int fs_xattr_to_host(const char *name, enum fs_xattr_use use, bool map,
		     char *host, size_t hostsz);

/*
 * The client's view of a host name list (listxattr's n bytes of
 * NUL-terminated names): names the client may not read are dropped,
 * mapped ones renamed back. Writes the result to out (outsz bytes; out
 * may be hostlist itself, the result is never longer) and returns its
 * length. outsz 0 only measures (the size probe; out may be NULL);
 * -ERANGE when the result does not fit a non-zero outsz. An unterminated
 * tail in hostlist is dropped.
 */
ssize_t fs_xattr_list_from_host(const char *hostlist, size_t n, bool map,
				char *out, size_t outsz);

#endif
