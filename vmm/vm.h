/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef STAINLESS_VMM_VM_H
#define STAINLESS_VMM_VM_H
/* `stainless run ...`; argv[0] is "run". Returns the process exit code. */
int vm_run_main(int argc, char **argv);
#endif
