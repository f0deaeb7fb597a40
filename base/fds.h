/* SPDX-License-Identifier: GPL-2.0-only */
/* What a freshly forked helper process keeps of its parent's fds. */
#ifndef STAINLESS_BASE_FDS_H
#define STAINLESS_BASE_FDS_H

/* Closes every fd from 3 up but a and b (either may be the other). */
void fds_keep_two(int a, int b);

#endif
