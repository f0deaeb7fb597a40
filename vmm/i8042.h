/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The part of the i8042 keyboard controller a microVM needs: the reset
 * line. `reboot -f` in a guest without ACPI pulses it (command 0xfe on port
 * 0x64), which is how a guest asks stainless to exit cleanly.
 */
#ifndef STAINLESS_VMM_I8042_H
#define STAINLESS_VMM_I8042_H

#include <stdbool.h>
#include <stdint.h>

#define I8042_DATA_PORT    0x60
#define I8042_COMMAND_PORT 0x64

typedef void i8042_reset_fn(void *ctx);

struct i8042 {
	i8042_reset_fn *reset;
	void *ctx;
};

/* bus_access_fn for port 0x60 (off 0) through 0x64 (off 4). */
void i8042_access(void *opaque, uint64_t off, void *data, unsigned size, bool is_write);

#endif
