/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The initramfs of `stainless exec`'s guest, inside the binary: one cpio
 * with /init (guest-images/exec-init.c, static) and /dev/console. Carried
 * here so exec needs no file beside the binary but the kernel, and the
 * init always speaks this binary's protocol (cmd/exec_wire.h).
 */
	.section .rodata
	.balign 16
	.globl exec_initramfs
	.globl exec_initramfs_end
exec_initramfs:
	.incbin EXEC_INITRAMFS
exec_initramfs_end:
	.section .note.GNU-stack,"",@progbits
