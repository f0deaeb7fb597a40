// SPDX-License-Identifier: GPL-2.0-only
/*
 * The i8042 controller and keyboard (vmm/i8042.c) driven through
 * i8042_access() the way Linux 6.12's i8042 and atkbd drivers probe it
 * (drivers/input/serio/i8042.c: flush, CTR read twice, AUX loop and test,
 * CTR writes; atkbd: GETID, deactivate, LEDs, typematic, enable), then
 * Ctrl+Alt+Del queued and read back through IRQ 1, the queue's bounds, and
 * hostile port writes.
 */
#include <check.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tests/unit/check_main.h"
#include "vmm/i8042.h"

#define DATA 0
#define CMD  4
#define STR_OBF 0x01
#define STR_AUXDATA 0x20
#define CTR_KBDINT 0x01
#define CTR_KBDDIS 0x10
#define CTR_XLATE 0x40

static struct i8042 k;
static int resets, irq_level, irq_rises, kbd_bytes;

static void on_reset(void *ctx)
{
	resets++;
}

static void on_irq(void *ctx, int level)
{
	irq_rises += level && !irq_level;
	irq_level = level;
}

static void setup(void)
{
	resets = irq_level = irq_rises = kbd_bytes = 0;
	i8042_init(&k, on_reset, NULL, on_irq, NULL);
}

static void teardown(void)
{
	i8042_destroy(&k);
}

static uint8_t in(unsigned off)
{
	uint8_t b = 0;

	i8042_access(&k, off, &b, 1, false);
	return b;
}

static void out(unsigned off, uint8_t b)
{
	i8042_access(&k, off, &b, 1, true);
}

/* i8042_command: the command, its parameter, one answer when asked. */
static int command(uint8_t cmd, int param, int *answer)
{
	out(CMD, cmd);
	if (param >= 0)
		out(DATA, (uint8_t)param);
	if (!answer)
		return 0;
	if (!(in(CMD) & STR_OBF))
		return -1;
	*answer = in(DATA);
	return 0;
}

/* What the driver's probe does up to a working keyboard port. */
static void linux_probe(void)
{
	int ctr, a, b;

	for (int i = 0; i < 16 && (in(CMD) & STR_OBF); i++)
		in(DATA);
	ck_assert(!(in(CMD) & STR_OBF));
	ck_assert_int_eq(command(0xaa, -1, &a), 0);           /* selftest */
	ck_assert_int_eq(a, 0x55);
	ck_assert_int_eq(command(0x20, -1, &ctr), 0);
	ck_assert_int_eq(command(0x20, -1, &b), 0);
	ck_assert_int_eq(ctr, b);                              /* a stable CTR */
	ck_assert(ctr & CTR_XLATE);
	ctr = (ctr | CTR_KBDDIS) & ~CTR_KBDINT;
	command(0x60, ctr, NULL);
	/* AUX loop: the byte comes back, not as AUX data: no AUX port, at once. */
	out(CMD, 0xd3);
	out(DATA, 0x5a);
	ck_assert(in(CMD) & STR_OBF);
	ck_assert(!(in(CMD) & STR_AUXDATA));
	/* The AUX test answers over it: clock stuck, no mouse. */
	ck_assert_int_eq(command(0xa9, -1, &a), 0);
	ck_assert_int_eq(a, 0x01);
	ck_assert(!(in(CMD) & STR_OBF));
	command(0x60, ctr | 0x20, NULL);
	/* i8042_enable_kbd_port */
	ctr = (ctr & ~CTR_KBDDIS) | CTR_KBDINT;
	command(0x60, ctr, NULL);
	ck_assert_int_eq(command(0x20, -1, &a), 0);
	ck_assert_int_eq(a, ctr);
}

/* A keyboard byte, as i8042_interrupt takes it after IRQ 1 rose. */
static int kbd_byte(void)
{
	if (!irq_level || !(in(CMD) & STR_OBF))
		return -1;
	kbd_bytes++;
	return in(DATA);
}

/* ps2_command: the byte out, the ACK and n answer bytes back through the IRQ. */
static void ps2(uint8_t cmd, const int *want, unsigned n)
{
	out(DATA, cmd);
	ck_assert_int_eq(kbd_byte(), 0xfa);
	for (unsigned i = 0; i < n; i++)
		ck_assert_int_eq(kbd_byte(), want[i]);
	ck_assert_int_eq(irq_level, 0);
}

static void atkbd_probe(void)
{
	static const int id[] = { 0xab, 0x41 };

	ps2(0xf2, id, 2);          /* GETID: an MF2 keyboard, translated */
	ps2(0xf5, NULL, 0);        /* deactivate */
	ps2(0xed, NULL, 0);        /* LEDs ... */
	ps2(0x00, NULL, 0);        /* ... off */
	ps2(0xf3, NULL, 0);        /* typematic ... */
	ps2(0x2b, NULL, 0);
	ps2(0xf4, NULL, 0);        /* enable */
}

START_TEST(test_reset_line_kept)
{
	ck_assert(in(CMD) & 0x10);                 /* keylock off */
	ck_assert(!(in(CMD) & STR_OBF));
	out(CMD, 0xfe);
	ck_assert_int_eq(resets, 1);
	/* The reset line is the controller's: a data byte 0xfe is not it. */
	out(DATA, 0xfe);
	ck_assert_int_eq(resets, 1);
}
END_TEST

START_TEST(test_linux_probe_then_ctrl_alt_del)
{
	static const int set1[] = { 0x1d, 0x38, 0xe0, 0x53, 0xe0, 0xd3, 0xb8, 0x9d };

	/* Before a driver: nobody would read the keys, the caller is told. */
	ck_assert_int_eq(i8042_ctrl_alt_del(&k), -ENODEV);
	linux_probe();
	atkbd_probe();
	ck_assert_int_eq(irq_level, 0);
	ck_assert_int_eq(i8042_ctrl_alt_del(&k), 0);
	for (unsigned i = 0; i < 8; i++)
		ck_assert_int_eq(kbd_byte(), set1[i]);
	ck_assert_int_eq(kbd_byte(), -1);
	ck_assert_int_eq(kbd_bytes, 8 + 9);        /* the probe's answers too */
	ck_assert_int_eq(irq_rises, kbd_bytes);    /* each byte its own edge on IRQ 1 */
	ck_assert_int_eq(resets, 0);
}
END_TEST

START_TEST(test_untranslated_sends_set2)
{
	static const int set2[] = { 0x14, 0x11, 0xe0, 0x71, 0xe0, 0xf0, 0x71, 0xf0, 0x11, 0xf0, 0x14 };
	static const int id[] = { 0xab, 0x83 };

	command(0x60, CTR_KBDINT, NULL);            /* i8042.direct: no translation */
	ps2(0xf2, id, 2);
	ck_assert_int_eq(i8042_ctrl_alt_del(&k), 0);
	for (unsigned i = 0; i < 11; i++)
		ck_assert_int_eq(kbd_byte(), set2[i]);
}
END_TEST

START_TEST(test_queue_bounded_all_or_nothing)
{
	linux_probe();
	/* A guest that never reads: one sequence fits, the second does not. */
	ck_assert_int_eq(i8042_ctrl_alt_del(&k), 0);
	ck_assert_int_eq(i8042_ctrl_alt_del(&k), 0);  /* 1 in the register, 7 + 8 queued */
	ck_assert_int_eq(i8042_ctrl_alt_del(&k), -ENOSPC);
	ck_assert_uint_le(k.count, I8042_KBD_FIFO);
	/* A keyboard command's answers past the FIFO are dropped, never stored. */
	for (int i = 0; i < 1000; i++)
		out(DATA, 0xf2);
	ck_assert_uint_eq(k.count, I8042_KBD_FIFO);
	/* The keyboard turned off (0xf5) takes no keys. */
	while (in(CMD) & STR_OBF)
		in(DATA);
	out(DATA, 0xf5);
	in(DATA);
	ck_assert_int_eq(i8042_ctrl_alt_del(&k), -ENODEV);
}
END_TEST

START_TEST(test_kbd_disabled_holds_keys)
{
	linux_probe();
	ck_assert_int_eq(i8042_ctrl_alt_del(&k), 0);
	ck_assert_int_eq(kbd_byte(), 0x1d);
	out(CMD, 0xad);                              /* KBD_DISABLE: the rest waits */
	ck_assert_int_eq(kbd_byte(), 0x38);          /* already in the register */
	ck_assert(!(in(CMD) & STR_OBF));
	ck_assert_int_eq(irq_level, 0);
	out(CMD, 0xae);
	ck_assert_int_eq(kbd_byte(), 0xe0);
}
END_TEST

/* Every byte to every port, every width, in any order: no crash, bounded state. */
START_TEST(test_hostile_writes)
{
	unsigned worst = 0, bad_head = 0;
	uint8_t buf[8];

	srand(42);
	/* Plain checks inside: each ck_assert costs a message to Check's parent. */
	for (int i = 0; i < 200000; i++) {
		unsigned off = (unsigned)rand() % 6, size = 1u << (rand() % 4);
		uint8_t b = (uint8_t)rand();

		if (off + size > 8)
			size = 1;
		memset(buf, b, sizeof(buf));
		i8042_access(&k, off, buf, size, rand() % 3 != 0);
		worst = k.count > worst ? k.count : worst;
		bad_head += k.head >= I8042_KBD_FIFO;
	}
	ck_assert_uint_le(worst, I8042_KBD_FIFO);
	ck_assert_uint_eq(bad_head, 0);
	/* Ports past 0x64 read as nothing and write nowhere. */
	memset(buf, 0, sizeof(buf));
	i8042_access(&k, 3, buf, 4, false);
	ck_assert_int_eq(buf[2], 0xff);
	ck_assert_int_eq(buf[3], 0xff);
	/* Whatever came before, the driver's probe still works. */
	command(0x60, 0x74, NULL);
	for (int i = 0; i < 2 * I8042_KBD_FIFO && (in(CMD) & STR_OBF); i++)
		in(DATA);
	linux_probe();
	int rc = i8042_ctrl_alt_del(&k);
	ck_assert(rc == 0 || rc == -ENODEV || rc == -ENOSPC);
}
END_TEST

static Suite *i8042_suite(void)
{
	Suite *su = suite_create("i8042");
	TCase *tc = tcase_create("i8042");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_reset_line_kept);
	tcase_add_test(tc, test_linux_probe_then_ctrl_alt_del);
	tcase_add_test(tc, test_untranslated_sends_set2);
	tcase_add_test(tc, test_queue_bounded_all_or_nothing);
	tcase_add_test(tc, test_kbd_disabled_holds_keys);
	tcase_add_test(tc, test_hostile_writes);
	suite_add_tcase(su, tc);
	return su;
}

int main(void)
{
	return unit_main(i8042_suite());
}
