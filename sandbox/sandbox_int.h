/* SPDX-License-Identifier: GPL-2.0-only */
/* What the files of sandbox/ share; nothing outside sandbox/ includes it. */
#ifndef STAINLESS_SANDBOX_SANDBOX_INT_H
#define STAINLESS_SANDBOX_SANDBOX_INT_H

#include "sandbox/sandbox.h"

/* sandbox_root.c: the new root (namespace mode) or the chroot. */
int sandbox_build_root(struct sandbox *sb);
int sandbox_chroot(struct sandbox *sb);

/* sandbox.c: the server joins the net namespace init made (at lockdown). */
int sandbox_join_net(struct sandbox *sb);

/* sandbox_creds.c: no_new_privs, capabilities, limits. */
int sandbox_drop_privileges(struct sandbox *sb);

/* sandbox_idmap.c: from the supervisor, the child's uid_map and gid_map. */
int sandbox_write_idmaps(struct sandbox *sb, pid_t child);
/* Whether every --uid-map/--gid-map line maps its ids to themselves. */
bool sandbox_maps_keep_ids(const struct sandbox_opts *o);
/* Why a user namespace could not be made: the sysctl that forbids it. */
void sandbox_explain_userns(const struct sandbox *sb, int err);

#endif
