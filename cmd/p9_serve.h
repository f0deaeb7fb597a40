/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef STAINLESS_CMD_P9_SERVE_H
#define STAINLESS_CMD_P9_SERVE_H
/* `stainless 9p-serve --socket PATH DIR [...]`; argv[0] is "9p-serve". */
int p9_serve_main(int argc, char **argv);
#endif
