/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * crosvm's --shared-dir spelling, PATH:TAG[:KEY=VALUE]..., mapped onto a
 * `run` share (--fs or --9p) so launch lines written for crosvm (ChromeOS's
 * concierge builds them for its VMs) can be reused. What maps, maps; what
 * has no meaning here is refused in one line naming the key. The whole
 * mapping is in docs/crosvm.md.
 */
#ifndef STAINLESS_CMD_SHARED_DIR_H
#define STAINLESS_CMD_SHARED_DIR_H

#include <stddef.h>

#include "sandbox/sandbox.h"
#include "vmm/vm_config.h"

/* Appends the share to cfg (and its id maps to sbo): 0 or -EINVAL with err. */
int shared_dir_parse(struct vm_config *cfg, struct sandbox_opts *sbo, const char *arg,
		     char *err, size_t errlen);

#endif
