/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A guest that triple-faults: with no IDT, the invalid opcode cannot be
 * delivered, nor the double fault that follows, so the CPU shuts down.
 * stainless must say so and exit non-zero.
 */
	.code64
	.globl _start
_start:
	mov	$0x3f8, %dx
	mov	$'T', %al
	outb	%al, %dx
	ud2
