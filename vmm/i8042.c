// SPDX-License-Identifier: GPL-2.0-only
/* The i8042 controller and its keyboard (see i8042.h). */
#include "vmm/i8042.h"

#include <errno.h>
#include <string.h>

#define CMD_OFF (I8042_COMMAND_PORT - I8042_DATA_PORT)

/* Status register. */
#define STR_OBF     0x01
#define STR_SYS     0x04      /* the system flag, a copy of CTR_SYS */
#define STR_CMDDAT  0x08
#define STR_UNLOCK  0x10      /* 1: the keylock is off */

/* Command byte (CTR). */
#define CTR_KBDINT  0x01
#define CTR_SYS     0x04
#define CTR_KBDDIS  0x10
#define CTR_AUXDIS  0x20
#define CTR_XLATE   0x40

/* Controller commands (port 0x64). */
#define CMD_RCTR        0x20
#define CMD_WCTR        0x60
#define CMD_AUX_DISABLE 0xa7
#define CMD_AUX_ENABLE  0xa8
#define CMD_AUX_TEST    0xa9
#define CMD_SELFTEST    0xaa
#define CMD_KBD_TEST    0xab
#define CMD_KBD_DISABLE 0xad
#define CMD_KBD_ENABLE  0xae
#define CMD_WRITE_OUT   0xd1
#define CMD_KBD_LOOP    0xd2
#define CMD_AUX_LOOP    0xd3
#define CMD_AUX_SEND    0xd4
#define CMD_PULSE_RESET 0xfe

/* Keyboard commands (port 0x60) and answers. */
#define KBD_SETLEDS   0xed
#define KBD_ECHO      0xee
#define KBD_SCANSET   0xf0
#define KBD_GETID     0xf2
#define KBD_TYPEMATIC 0xf3
#define KBD_ENABLE    0xf4
#define KBD_DISABLE   0xf5
#define KBD_DEFAULTS  0xf6
#define KBD_RESET     0xff
#define KBD_ACK       0xfa
#define KBD_RESEND    0xfe
#define KBD_BAT_OK    0xaa

/* What firmware leaves: translation on, keyboard and its interrupt off until a driver. */
#define CTR_POWER_ON (CTR_XLATE | CTR_SYS | CTR_KBDDIS | CTR_AUXDIS)

void i8042_init(struct i8042 *k, i8042_reset_fn *reset, void *reset_ctx,
		i8042_irq_fn *set_irq, void *irq_ctx)
{
	memset(k, 0, sizeof(*k));
	pthread_mutex_init(&k->lock, NULL);
	k->reset = reset;
	k->reset_ctx = reset_ctx;
	k->set_irq = set_irq;
	k->irq_ctx = irq_ctx;
	k->ctr = CTR_POWER_ON;
	k->scanning = true;       /* a keyboard scans from power-on */
}

void i8042_destroy(struct i8042 *k)
{
	pthread_mutex_destroy(&k->lock);
}

/* IRQ 1 follows "a keyboard byte waits and the driver wants interrupts". */
static void update_irq(struct i8042 *k)
{
	int level = k->out_full && k->out_kbd && (k->ctr & CTR_KBDINT);

	if (level != k->irq_level && k->set_irq)
		k->set_irq(k->irq_ctx, level);
	k->irq_level = level;
}

/* The keyboard's FIFO feeds the empty output register unless the keyboard is off. */
static void feed(struct i8042 *k)
{
	if (!k->out_full && k->count && !(k->ctr & CTR_KBDDIS)) {
		k->out = k->fifo[k->head];
		k->head = (k->head + 1) % I8042_KBD_FIFO;
		k->count--;
		k->out_full = k->out_kbd = true;
	}
	update_irq(k);
}

/* A controller answer: straight into the output register, as the chip does. */
static void answer(struct i8042 *k, uint8_t b)
{
	k->out = b;
	k->out_full = true;
	k->out_kbd = false;
	update_irq(k);
}

/* A keyboard byte; one that finds the FIFO full is lost, as on the wire. */
static void kbd_push(struct i8042 *k, uint8_t b)
{
	if (k->count < I8042_KBD_FIFO) {
		k->fifo[(k->head + k->count) % I8042_KBD_FIFO] = b;
		k->count++;
	}
}

static void kbd_command(struct i8042 *k, uint8_t b)
{
	if (k->kbd_pending) {
		/* A parameter (LEDs, typematic rate, scan code set): taken, ignored. */
		k->kbd_pending = 0;
		kbd_push(k, KBD_ACK);
		return;
	}
	switch (b) {
	case KBD_SETLEDS: case KBD_TYPEMATIC: case KBD_SCANSET:
		k->kbd_pending = b;
		kbd_push(k, KBD_ACK);
		break;
	case KBD_ECHO:
		kbd_push(k, KBD_ECHO);
		break;
	case KBD_GETID:
		/* An MF2 keyboard; its second byte as the translating controller passes it. */
		kbd_push(k, KBD_ACK);
		kbd_push(k, 0xab);
		kbd_push(k, (k->ctr & CTR_XLATE) ? 0x41 : 0x83);
		break;
	case KBD_ENABLE:
		k->scanning = true;
		kbd_push(k, KBD_ACK);
		break;
	case KBD_DISABLE:
		k->scanning = false;
		kbd_push(k, KBD_ACK);
		break;
	case KBD_DEFAULTS:
		kbd_push(k, KBD_ACK);
		break;
	case KBD_RESET:
		/* A fresh keyboard: anything it had queued is gone. */
		k->count = 0;
		k->scanning = true;
		kbd_push(k, KBD_ACK);
		kbd_push(k, KBD_BAT_OK);
		break;
	default:
		kbd_push(k, KBD_RESEND);
		break;
	}
}

/* The data byte of a controller command that takes one. */
static void command_data(struct i8042 *k, uint8_t cmd, uint8_t b)
{
	switch (cmd) {
	case CMD_WCTR:
		k->ctr = b;
		break;
	case CMD_KBD_LOOP:
		/* As if the keyboard had sent it. */
		answer(k, b);
		k->out_kbd = true;
		break;
	case CMD_AUX_LOOP:
		/* Back, but not flagged as AUX data: the driver sees no AUX port at once. */
		answer(k, b);
		break;
	default:
		/* CMD_AUX_SEND (no mouse), CMD_WRITE_OUT (only 0xfe resets here). */
		break;
	}
}

static void command(struct i8042 *k, uint8_t cmd)
{
	switch (cmd) {
	case CMD_RCTR:
		answer(k, k->ctr);
		break;
	case CMD_WCTR: case CMD_WRITE_OUT: case CMD_KBD_LOOP: case CMD_AUX_LOOP: case CMD_AUX_SEND:
		k->pending = cmd;
		break;
	case CMD_SELFTEST:
		answer(k, 0x55);
		break;
	case CMD_KBD_TEST:
		answer(k, 0x00);
		break;
	case CMD_AUX_TEST:
		/* "Clock line stuck low": no AUX port. */
		answer(k, 0x01);
		break;
	case CMD_KBD_DISABLE: case CMD_KBD_ENABLE:
		k->ctr = cmd == CMD_KBD_DISABLE ? k->ctr | CTR_KBDDIS : k->ctr & ~CTR_KBDDIS;
		break;
	case CMD_AUX_DISABLE: case CMD_AUX_ENABLE:
		k->ctr = cmd == CMD_AUX_DISABLE ? k->ctr | CTR_AUXDIS : k->ctr & ~CTR_AUXDIS;
		break;
	case CMD_PULSE_RESET:
		if (k->reset)
			k->reset(k->reset_ctx);
		break;
	default:
		/* The multiplexer, the input port, password commands: not here. */
		break;
	}
}

static uint8_t read_port(struct i8042 *k, uint64_t off)
{
	uint8_t b;

	if (off == CMD_OFF)
		return (uint8_t)((k->out_full ? STR_OBF : 0) | (k->ctr & CTR_SYS ? STR_SYS : 0) |
				 k->status | STR_UNLOCK);
	if (off != 0)
		return 0xff;       /* 0x61..0x63: nothing there */
	b = k->out;            /* an empty register reads its last byte again */
	k->out_full = false;
	update_irq(k);         /* down, so the next byte is an edge of its own */
	return b;
}

static void write_port(struct i8042 *k, uint64_t off, uint8_t b)
{
	uint8_t cmd;

	if (off == CMD_OFF) {
		k->status = STR_CMDDAT;
		k->pending = 0;    /* a new command cancels one waiting for data */
		command(k, b);
	} else if (off == 0) {
		k->status = 0;
		cmd = k->pending;
		k->pending = 0;
		if (cmd)
			command_data(k, cmd, b);
		else
			kbd_command(k, b);
	}
}

void i8042_access(void *opaque, uint64_t off, void *data, unsigned size, bool is_write)
{
	struct i8042 *k = opaque;
	uint8_t *p = data;

	/* A wider access touches the next ports, one byte each, within the five. */
	pthread_mutex_lock(&k->lock);
	for (unsigned i = 0; i < size; i++) {
		if (off + i >= I8042_PORTS) {
			if (!is_write)
				p[i] = 0xff;
			continue;
		}
		if (is_write)
			write_port(k, off + i, p[i]);
		else
			p[i] = read_port(k, off + i);
	}
	feed(k);
	pthread_mutex_unlock(&k->lock);
}

int i8042_ctrl_alt_del(struct i8042 *k)
{
	/* Ctrl, Alt, Delete down; Delete, Alt, Ctrl up. */
	static const uint8_t set1[] = { 0x1d, 0x38, 0xe0, 0x53, 0xe0, 0xd3, 0xb8, 0x9d };
	static const uint8_t set2[] = { 0x14, 0x11, 0xe0, 0x71, 0xe0, 0xf0, 0x71,
					0xf0, 0x11, 0xf0, 0x14 };
	const uint8_t *seq;
	size_t n;
	int rc = 0;

	pthread_mutex_lock(&k->lock);
	seq = (k->ctr & CTR_XLATE) ? set1 : set2;
	n = (k->ctr & CTR_XLATE) ? sizeof(set1) : sizeof(set2);
	if (!k->scanning || (k->ctr & (CTR_KBDDIS | CTR_KBDINT)) != CTR_KBDINT)
		rc = -ENODEV;
	else if (I8042_KBD_FIFO - k->count < n)
		rc = -ENOSPC;
	for (size_t i = 0; rc == 0 && i < n; i++)
		kbd_push(k, seq[i]);
	if (rc == 0)
		feed(k);
	pthread_mutex_unlock(&k->lock);
	return rc;
}
