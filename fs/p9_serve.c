// SPDX-License-Identifier: GPL-2.0-only
/* Placeholder until the 9p server lands. */
#include "fs/p9_serve.h"
#include <stdio.h>
int p9_serve_main(int argc, char **argv)
{
	fprintf(stderr, "stainless: 9p-serve: not available yet\n");
	return 2;
}
