/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef STAINLESS_CMD_VHOST_USER_FS_H
#define STAINLESS_CMD_VHOST_USER_FS_H
/* `stainless vhost-user-fs ...` (vhost_user_cli.h); argv[0] is "vhost-user-fs". */
int vhost_user_fs_main(int argc, char **argv);
#endif
