/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A virtio-fs DAX window: a range of host address space that the VMM maps
 * into the guest as its own KVM memory slot. At rest it is backed by a
 * memfd, so a guest touching an unmapped part reads zeros instead of
 * faulting; FUSE_SETUPMAPPING maps a file range over part of it
 * (MAP_SHARED|MAP_FIXED) and FUSE_REMOVEMAPPING puts the memfd back. KVM's
 * MMU notifiers make each change visible to the guest. The guest then
 * reads and writes the host's page cache directly: no request, no copy.
 */
#ifndef STAINLESS_DEVICES_DAX_H
#define STAINLESS_DEVICES_DAX_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

/* Mappings are whole pages; Linux asks in 2 MiB chunks. */
#define DAX_PAGE 4096u

struct dax_window {
	uint8_t *host;
	uint64_t size;
	int memfd;
	/* Ranges mapped and put back since creation (`run --stats`); any queue's worker. */
	_Atomic uint64_t maps, unmaps;
};

/* size: a positive multiple of DAX_PAGE. 0 or -errno. */
int dax_window_create(struct dax_window *w, uint64_t size, const char *name);
void dax_window_destroy(struct dax_window *w);
/* Map [foffset, foffset+len) of fd at moffset in the window. 0 or -errno
 * (-EINVAL for ranges that are unaligned, empty or outside the window). */
int dax_map(struct dax_window *w, int fd, uint64_t foffset, uint64_t len,
	    uint64_t moffset, bool writable);
/* Put the window's own backing back over [moffset, moffset+len). */
int dax_unmap(struct dax_window *w, uint64_t moffset, uint64_t len);

#endif
