/* SPDX-License-Identifier: GPL-2.0-only */
/* A guest that says hello and then spins forever: for signal teardown. */
	.code64
	.globl _start
_start:
	mov	$0x3f8, %dx
	mov	$'S', %al
	outb	%al, %dx
	mov	$'\n', %al
	outb	%al, %dx
1:	pause
	jmp	1b
