# SPDX-License-Identifier: GPL-2.0-only
LIB_SRCS += fs/fs_options.c fs/resolve.c fs/fuse_mount.c fs/p9_serve.c
