/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The smallest guest: entered in 64-bit mode by stainless' ELF loader, it
 * prints a line on the 8250 at 0x3f8 and pulses the i8042 reset line, so
 * `stainless run --kernel hello.elf` must print it and exit 0.
 */
	.code64
	.globl _start
_start:
	lea	msg(%rip), %rsi
	mov	$0x3f8, %dx
1:	lodsb
	test	%al, %al
	jz	2f
	outb	%al, %dx
	jmp	1b
2:	mov	$0xfe, %al
	outb	%al, $0x64
3:	hlt
	jmp	3b
msg:	.asciz	"STAINLESS-TINY-GUEST-OK\n"
