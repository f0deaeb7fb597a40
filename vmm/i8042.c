// SPDX-License-Identifier: GPL-2.0-only
/* i8042 reset line (see i8042.h). */
#include "vmm/i8042.h"

#include <string.h>

#define CMD_OFF         (I8042_COMMAND_PORT - I8042_DATA_PORT)
#define CMD_PULSE_RESET 0xfe

void i8042_access(void *opaque, uint64_t off, void *data, unsigned size, bool is_write)
{
	struct i8042 *k = opaque;

	if (!is_write) {
		/* Status 0: output buffer empty, input buffer ready for a
		 * command — what the guest polls for before resetting. */
		memset(data, 0, size);
		return;
	}
	if (off == CMD_OFF && *(uint8_t *)data == CMD_PULSE_RESET && k->reset)
		k->reset(k->ctx);
}
