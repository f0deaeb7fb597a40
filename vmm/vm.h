/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef STAINLESS_VMM_VM_H
#define STAINLESS_VMM_VM_H
/* `stainless run ...`; argv[0] is "run". Returns the process exit code. */
int vm_run_main(int argc, char **argv);
/* Raises RLIMIT_NOFILE as far as allowed (the shares' fd budget,
 * fs/fs_fdbudget.h, is read from it); 0 or -errno. Call before any share
 * is created. */
int vm_raise_nofile(void);
#endif
