/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A 16550A UART at a PIO base (the console: 0x3f8, IRQ 4). Output goes to
 * a file descriptor; input is pushed in by the main thread.
 */
#ifndef STAINLESS_VMM_SERIAL_H
#define STAINLESS_VMM_SERIAL_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stddef.h>

#define SERIAL_PORTS   8
#define SERIAL_RX_SIZE 256

typedef void serial_irq_fn(void *ctx, int level);

struct serial {
	pthread_mutex_t lock;
	int out_fd;                /* -1: output discarded */
	serial_irq_fn *set_irq;
	void *irq_ctx;
	int irq_level;
	uint8_t ier, lcr, mcr, lsr, msr, scr, dll, dlm, fcr;
	bool thre_pending;         /* THR-empty interrupt not yet seen via IIR */
	uint8_t rx[SERIAL_RX_SIZE];
	unsigned rx_head, rx_count;
};

void serial_init(struct serial *s, int out_fd, serial_irq_fn *set_irq, void *irq_ctx);
void serial_destroy(struct serial *s);
/* bus_access_fn for the 8 ports. */
void serial_access(void *opaque, uint64_t off, void *data, unsigned size, bool is_write);
/* Queue input bytes; returns how many fit. */
size_t serial_rx(struct serial *s, const uint8_t *buf, size_t len);
size_t serial_rx_room(struct serial *s);

#endif
