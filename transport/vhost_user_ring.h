/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The rings of a vhost-user device (vhost_user_dev.h): whether each one
 * should run, starting it on a worker at its base and stopping it back,
 * and the eventfds the workers signal. Used by vhost_user_dev.c's
 * message handlers only.
 */
#ifndef STAINLESS_TRANSPORT_VHOST_USER_RING_H
#define STAINLESS_TRANSPORT_VHOST_USER_RING_H

#include "transport/vhost_user_dev.h"

void vu_efd_init(struct vu_efd *e);
/* Installs fd (-1: none) and closes the one it replaces, once no worker
 * is inside vu_efd_signal() with it (it sleeps until the last one leaves). */
void vu_efd_set(struct vu_efd *e, int fd);
/* Raises the eventfd, if any; never sleeps, never blocks on a full counter. */
void vu_efd_signal(struct vu_efd *e);

/* Is fd an eventfd (what kick, call and err must be)? Where /proc cannot
 * tell, false. */
bool vu_is_eventfd(int fd);

/* The callbacks the queues of d reach their transport through. */
void vu_ring_notify_init(struct vu_dev *d);

/*
 * Where the ring's three parts are in guest-physical memory, for a ring
 * of num entries at the frontend addresses a: 0, or -EFAULT with *why.
 */
int vu_ring_translate(const struct vu_dev *d, uint16_t num, const struct vu_vring_addr *a,
		      uint64_t gpa[3], const char **why);

/* Starts or stops ring i to match its state (see vhost_user_dev.h). */
void vu_ring_sync(struct vu_dev *d, unsigned i);
void vu_ring_sync_all(struct vu_dev *d);
/* Stops ring i if it runs, keeping where it stopped in its base. */
void vu_ring_stop(struct vu_dev *d, unsigned i);
void vu_ring_stop_all(struct vu_dev *d);
/* Stopped and back to its state before any message; fds closed. */
void vu_ring_clear(struct vu_dev *d, unsigned i);

#endif
