// SPDX-License-Identifier: GPL-2.0-only
/* Results to exit codes, in one place (exit.h). */
#include "base/exit.h"

int exit_status(int result)
{
	if (result < 0 || result > 255)
		return EXIT_FAILED;
	return result;
}
