/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The i8042 keyboard controller with a keyboard on it, as much as a
 * microVM needs: the reset line (`reboot -f` in a guest without ACPI
 * pulses it, command 0xfe on port 0x64, and stainless exits cleanly) and
 * a keyboard that answers Linux's i8042 and atkbd probes, so the host can
 * press Ctrl+Alt+Del (the API's SendCtrlAltDel) and the guest's init
 * decides what that means. No AUX (mouse) port: its tests fail at once.
 *
 * Like the chip, the controller has a one-byte output register; the
 * keyboard has a small FIFO of its own that feeds the register whenever
 * it is empty and the keyboard is not disabled. Controller answers go to
 * the register directly (the driver polls for them); a keyboard byte in
 * it raises IRQ 1 when the driver enabled the keyboard interrupt.
 * Every guest write is a bounded state change: nothing it sends grows
 * memory or reaches the host.
 */
#ifndef STAINLESS_VMM_I8042_H
#define STAINLESS_VMM_I8042_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#define I8042_DATA_PORT    0x60
#define I8042_COMMAND_PORT 0x64
#define I8042_PORTS        5      /* 0x60 .. 0x64 */
#define I8042_KBD_IRQ      1
#define I8042_KBD_FIFO     16     /* a PS/2 keyboard's own buffer */

typedef void i8042_reset_fn(void *ctx);
typedef void i8042_irq_fn(void *ctx, int level);

struct i8042 {
	pthread_mutex_t lock;     /* vCPU threads and the control thread */
	i8042_reset_fn *reset;
	void *reset_ctx;
	i8042_irq_fn *set_irq;
	void *irq_ctx;
	uint8_t ctr;              /* the controller's command byte */
	uint8_t status;           /* CMDDAT: the last write was a command */
	uint8_t out;              /* the output register ... */
	bool out_full;            /* ... and whether it holds a byte */
	bool out_kbd;             /* ... that came from the keyboard */
	uint8_t pending;          /* controller command waiting for its data byte, or 0 */
	uint8_t kbd_pending;      /* keyboard command waiting for its parameter, or 0 */
	bool scanning;            /* the keyboard sends keys (0xf4; off after 0xf5) */
	int irq_level;
	uint8_t fifo[I8042_KBD_FIFO];
	unsigned head, count;
};

void i8042_init(struct i8042 *k, i8042_reset_fn *reset, void *reset_ctx,
		i8042_irq_fn *set_irq, void *irq_ctx);
void i8042_destroy(struct i8042 *k);

/* bus_access_fn for port 0x60 (off 0) through 0x64 (off 4). */
void i8042_access(void *opaque, uint64_t off, void *data, unsigned size, bool is_write);

/*
 * Press and release Ctrl+Alt+Del (in the scan code set the guest reads:
 * set 1 when the controller translates, set 2 otherwise). All or nothing:
 * 0; -ENODEV when the guest has not enabled its keyboard (no driver, or
 * it turned the keyboard off); -ENOSPC when the keyboard's FIFO has no
 * room for the whole sequence (the guest is not reading it).
 */
int i8042_ctrl_alt_del(struct i8042 *k);

#endif
