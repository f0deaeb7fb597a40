// SPDX-License-Identifier: GPL-2.0-only
/*
 * The 16550A console (vmm/serial.c) driven through serial_access() the way
 * Linux's 8250 driver probes and drives it; output goes to a pipe, the IRQ
 * line to a recorder.
 */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests/unit/check_main.h"
#include "vmm/serial.h"

/* Register offsets and bits, from the 16550A data sheet. */
enum { RBR = 0, THR = 0, DLL = 0, IER = 1, DLM = 1, IIR = 2, FCR = 2, LCR = 3,
       MCR = 4, LSR = 5, MSR = 6, SCR = 7 };
#define IER_RDI   0x01
#define IER_THRI  0x02
#define IIR_NO_INT 0x01
#define IIR_ID    0x0f
#define IIR_THRI  0x02
#define IIR_RDI   0x04
#define IIR_FIFOS 0xc0
#define FCR_ENABLE 0x01
#define FCR_CLEAR_RX 0x02
#define FCR_CLEAR_TX 0x04
#define LCR_8N1   0x03
#define LCR_DLAB  0x80
#define MCR_DTR   0x01
#define MCR_RTS   0x02
#define MCR_OUT2  0x08
#define MCR_LOOP  0x10
#define LSR_DR    0x01
#define LSR_THRE  0x20
#define LSR_TEMT  0x40

static struct serial s;
static int out[2];           /* the console pipe: UART writes out[1] */
static int irq_level;
static int irq_calls;

static void irq_cb(void *ctx, int level)
{
	ck_assert_ptr_eq(ctx, &s);
	irq_level = level;
	irq_calls++;
}

static void setup(void)
{
	ck_assert_int_eq(pipe2(out, O_NONBLOCK | O_CLOEXEC), 0);
	irq_level = 0;
	irq_calls = 0;
	serial_init(&s, out[1], irq_cb, &s);
}

static void teardown(void)
{
	serial_destroy(&s);
	close(out[0]);
	close(out[1]);
}

static void outb(unsigned reg, uint8_t v)
{
	serial_access(&s, reg, &v, 1, true);
}

static uint8_t inb(unsigned reg)
{
	uint8_t v = 0x5a;

	serial_access(&s, reg, &v, 1, false);
	return v;
}

/* Whatever the UART has written to the console so far. */
static size_t drain(char *buf, size_t len)
{
	ssize_t n = read(out[0], buf, len);

	if (n < 0) {
		ck_assert_int_eq(errno, EAGAIN);
		return 0;
	}
	return (size_t)n;
}

/* As the 8250 driver leaves the port once opened: 8N1, DTR|RTS|OUT2. */
static void driver_open(uint8_t ier)
{
	outb(LCR, LCR_8N1);
	outb(MCR, MCR_DTR | MCR_RTS | MCR_OUT2);
	outb(IER, ier);
}

START_TEST(test_reset_state)
{
	ck_assert_uint_eq(inb(LSR), LSR_THRE | LSR_TEMT);
	ck_assert_uint_eq(inb(IIR), IIR_NO_INT);
	ck_assert_uint_eq(inb(IER), 0);
	ck_assert_uint_eq(inb(MSR) & 0xb0, 0xb0);   /* DCD, DSR, CTS */
	ck_assert_int_eq(irq_level, 0);
	ck_assert_uint_eq(serial_rx_room(&s), SERIAL_RX_SIZE);
}
END_TEST

START_TEST(test_scratch_register_round_trip)
{
	/* The 8250 driver's first probe: is anything there at all? */
	outb(SCR, 0xa5);
	ck_assert_uint_eq(inb(SCR), 0xa5);
	outb(SCR, 0x5a);
	ck_assert_uint_eq(inb(SCR), 0x5a);
	outb(SCR, 0x00);
	ck_assert_uint_eq(inb(SCR), 0x00);
}
END_TEST

START_TEST(test_loopback_probe)
{
	char buf[8];

	/* autoconfig(): loopback with all modem outputs off reads no status... */
	outb(MCR, MCR_LOOP);
	ck_assert_uint_eq(inb(MSR) & 0xf0, 0);
	/* ...and with RTS and OUT2 on reads CTS and DCD. */
	outb(MCR, 0x1a);
	ck_assert_uint_eq(inb(MSR) & 0xf0, 0x90);
	outb(MCR, MCR_LOOP | MCR_DTR | MCR_RTS | 0x04 | MCR_OUT2);
	ck_assert_uint_eq(inb(MSR) & 0xf0, 0xf0);

	/* In loopback a transmitted byte comes back, not out. */
	outb(LCR, LCR_8N1);
	outb(THR, 'L');
	ck_assert(inb(LSR) & LSR_DR);
	ck_assert_uint_eq(inb(RBR), 'L');
	ck_assert(!(inb(LSR) & LSR_DR));
	ck_assert_uint_eq(drain(buf, sizeof(buf)), 0);

	/* Leaving loopback restores the real modem status. */
	outb(MCR, MCR_DTR | MCR_RTS | MCR_OUT2);
	ck_assert_uint_eq(inb(MSR) & 0xb0, 0xb0);
}
END_TEST

START_TEST(test_thr_bytes_reach_output)
{
	static const char msg[] = "Linux version 6.1\r\n";
	char buf[64];

	driver_open(0);
	for (size_t i = 0; i < sizeof(msg) - 1; i++) {
		ck_assert(inb(LSR) & LSR_THRE);    /* as serial8250_console_putchar waits */
		outb(THR, (uint8_t)msg[i]);
	}
	ck_assert_uint_eq(drain(buf, sizeof(buf)), sizeof(msg) - 1);
	ck_assert_int_eq(memcmp(buf, msg, sizeof(msg) - 1), 0);
	ck_assert_uint_eq(inb(LSR) & (LSR_THRE | LSR_TEMT), LSR_THRE | LSR_TEMT);
}
END_TEST

START_TEST(test_no_output_fd_discards)
{
	serial_destroy(&s);
	serial_init(&s, -1, irq_cb, &s);
	driver_open(0);
	outb(THR, 'x');
	ck_assert(inb(LSR) & LSR_THRE);
}
END_TEST

START_TEST(test_dlab_divisor_access_does_not_transmit)
{
	char buf[8];

	driver_open(IER_RDI);
	outb(LCR, LCR_DLAB | LCR_8N1);
	outb(DLL, 0x01);                        /* 115200 baud */
	outb(DLM, 0x00);
	ck_assert_uint_eq(inb(DLL), 0x01);
	ck_assert_uint_eq(inb(DLM), 0x00);
	outb(DLL, 0x0c);
	outb(DLM, 0x34);
	ck_assert_uint_eq(inb(DLL), 0x0c);
	ck_assert_uint_eq(inb(DLM), 0x34);
	ck_assert_uint_eq(drain(buf, sizeof(buf)), 0);

	/* The divisor latch did not overwrite IER; THR works again. */
	outb(LCR, LCR_8N1);
	ck_assert_uint_eq(inb(IER), IER_RDI);
	outb(THR, 'k');
	ck_assert_uint_eq(drain(buf, sizeof(buf)), 1);
	ck_assert_uint_eq(buf[0], 'k');
}
END_TEST

START_TEST(test_dlab_hides_rx_data)
{
	driver_open(0);
	ck_assert_uint_eq(serial_rx(&s, (const uint8_t *)"q", 1), 1);
	outb(LCR, LCR_DLAB | LCR_8N1);
	outb(DLL, 0x77);
	ck_assert_uint_eq(inb(DLL), 0x77);      /* not the queued byte */
	outb(LCR, LCR_8N1);
	ck_assert(inb(LSR) & LSR_DR);
	ck_assert_uint_eq(inb(RBR), 'q');
}
END_TEST

START_TEST(test_ier_keeps_low_nibble)
{
	outb(IER, 0xff);
	ck_assert_uint_eq(inb(IER), 0x0f);
}
END_TEST

START_TEST(test_thre_interrupt_raised_and_cleared_by_iir)
{
	driver_open(0);
	ck_assert_int_eq(irq_level, 0);

	/* serial8250_start_tx: enabling THRI with THR empty interrupts at once. */
	outb(IER, IER_THRI);
	ck_assert_int_eq(irq_level, 1);
	ck_assert_uint_eq(inb(IIR) & IIR_ID, IIR_THRI);
	ck_assert_int_eq(irq_level, 0);
	ck_assert_uint_eq(inb(IIR) & IIR_ID, IIR_NO_INT);

	/* Each transmitted byte empties THR again. */
	outb(THR, 'a');
	ck_assert_int_eq(irq_level, 1);
	ck_assert_uint_eq(inb(IIR) & IIR_ID, IIR_THRI);
	ck_assert_int_eq(irq_level, 0);

	/* Re-writing IER with THRI still set does not re-raise it. */
	outb(IER, IER_THRI);
	ck_assert_int_eq(irq_level, 0);
	/* Turning THRI off drops a pending one without an IIR read. */
	outb(THR, 'b');
	ck_assert_int_eq(irq_level, 1);
	outb(IER, 0);
	ck_assert_int_eq(irq_level, 0);
	ck_assert_uint_eq(inb(IIR) & IIR_ID, IIR_NO_INT);
}
END_TEST

START_TEST(test_rx_bytes_in_order)
{
	static const char in[] = "ls -l\n";
	const size_t n = sizeof(in) - 1;

	driver_open(0);
	ck_assert(!(inb(LSR) & LSR_DR));
	ck_assert_uint_eq(serial_rx(&s, (const uint8_t *)in, n), n);
	ck_assert_uint_eq(serial_rx_room(&s), SERIAL_RX_SIZE - n);
	for (size_t i = 0; i < n; i++) {
		ck_assert_msg(inb(LSR) & LSR_DR, "DR clear before byte %zu", i);
		ck_assert_uint_eq(inb(RBR), (uint8_t)in[i]);
	}
	ck_assert(!(inb(LSR) & LSR_DR));
	ck_assert_uint_eq(serial_rx_room(&s), SERIAL_RX_SIZE);
	/* Reading an empty receiver is harmless. */
	ck_assert_uint_eq(inb(RBR), 0);
	ck_assert(!(inb(LSR) & LSR_DR));
}
END_TEST

START_TEST(test_rx_interrupt_level)
{
	driver_open(IER_RDI);
	ck_assert_int_eq(irq_level, 0);
	ck_assert_uint_eq(serial_rx(&s, (const uint8_t *)"hi", 2), 2);
	ck_assert_int_eq(irq_level, 1);
	ck_assert_uint_eq(inb(IIR) & IIR_ID, IIR_RDI);
	ck_assert_int_eq(irq_level, 1);          /* reading IIR does not ack RDI */
	ck_assert_uint_eq(inb(RBR), 'h');
	ck_assert_int_eq(irq_level, 1);          /* a byte is still waiting */
	ck_assert_uint_eq(inb(RBR), 'i');
	ck_assert_int_eq(irq_level, 0);
	ck_assert_uint_eq(inb(IIR) & IIR_ID, IIR_NO_INT);

	/* Input while RDI is masked raises nothing until it is unmasked. */
	outb(IER, 0);
	serial_rx(&s, (const uint8_t *)"x", 1);
	ck_assert_int_eq(irq_level, 0);
	outb(IER, IER_RDI);
	ck_assert_int_eq(irq_level, 1);
}
END_TEST

START_TEST(test_rx_interrupt_outranks_thre)
{
	driver_open(IER_RDI | IER_THRI);
	serial_rx(&s, (const uint8_t *)"z", 1);
	ck_assert_uint_eq(inb(IIR) & IIR_ID, IIR_RDI);
	ck_assert_uint_eq(inb(RBR), 'z');
	ck_assert_uint_eq(inb(IIR) & IIR_ID, IIR_THRI);
	ck_assert_uint_eq(inb(IIR) & IIR_ID, IIR_NO_INT);
	ck_assert_int_eq(irq_level, 0);
}
END_TEST

START_TEST(test_out2_gates_irq)
{
	outb(LCR, LCR_8N1);
	outb(MCR, MCR_DTR | MCR_RTS);            /* OUT2 off */
	outb(IER, IER_RDI);
	serial_rx(&s, (const uint8_t *)"a", 1);
	ck_assert_int_eq(irq_level, 0);
	ck_assert_uint_eq(inb(IIR) & IIR_ID, IIR_RDI);  /* pending, just not wired */
	outb(MCR, MCR_DTR | MCR_RTS | MCR_OUT2);
	ck_assert_int_eq(irq_level, 1);
	outb(MCR, MCR_DTR | MCR_RTS);
	ck_assert_int_eq(irq_level, 0);
	ck_assert_uint_eq(inb(RBR), 'a');
	outb(MCR, MCR_DTR | MCR_RTS | MCR_OUT2);
	ck_assert_int_eq(irq_level, 0);
}
END_TEST

START_TEST(test_irq_callback_only_on_change)
{
	driver_open(IER_RDI);
	serial_rx(&s, (const uint8_t *)"a", 1);
	serial_rx(&s, (const uint8_t *)"b", 1);
	ck_assert_uint_eq(inb(LSR) & LSR_DR, LSR_DR);
	ck_assert_int_eq(irq_calls, 1);
	inb(RBR);
	inb(RBR);
	ck_assert_int_eq(irq_calls, 2);
	ck_assert_int_eq(irq_level, 0);
}
END_TEST

START_TEST(test_fifo_bits_in_iir)
{
	ck_assert_uint_eq(inb(IIR) & IIR_FIFOS, 0);
	/* autoconfig(): enable the FIFOs, a 16550A reports both bits set. */
	outb(FCR, FCR_ENABLE);
	ck_assert_uint_eq(inb(IIR) & IIR_FIFOS, IIR_FIFOS);
	ck_assert_uint_eq(inb(IIR) & IIR_ID, IIR_NO_INT);
	/* The FIFO bits ride along with an interrupt id too. */
	driver_open(IER_RDI);
	serial_rx(&s, (const uint8_t *)"f", 1);
	ck_assert_uint_eq(inb(IIR), IIR_FIFOS | IIR_RDI);
	outb(FCR, 0);
	ck_assert_uint_eq(inb(IIR), IIR_RDI);
}
END_TEST

START_TEST(test_fcr_clears_receiver)
{
	driver_open(IER_RDI);
	serial_rx(&s, (const uint8_t *)"abc", 3);
	ck_assert_int_eq(irq_level, 1);
	outb(FCR, FCR_ENABLE | FCR_CLEAR_RX | FCR_CLEAR_TX);
	ck_assert(!(inb(LSR) & LSR_DR));
	ck_assert_int_eq(irq_level, 0);
	ck_assert_uint_eq(serial_rx_room(&s), SERIAL_RX_SIZE);
	serial_rx(&s, (const uint8_t *)"d", 1);
	ck_assert_uint_eq(inb(RBR), 'd');
}
END_TEST

START_TEST(test_rx_overrun_drops_excess)
{
	uint8_t in[SERIAL_RX_SIZE + 44];

	for (size_t i = 0; i < sizeof(in); i++)
		in[i] = (uint8_t)(i * 13 + 1);
	driver_open(IER_RDI);
	ck_assert_uint_eq(serial_rx(&s, in, sizeof(in)), SERIAL_RX_SIZE);
	ck_assert_uint_eq(serial_rx_room(&s), 0);
	ck_assert_uint_eq(serial_rx(&s, in, 1), 0);

	/* The loopback path into the full receiver loses bytes too. */
	outb(MCR, MCR_LOOP | MCR_OUT2);
	for (unsigned i = 0; i < 10; i++)
		outb(THR, 0xee);
	outb(MCR, MCR_DTR | MCR_RTS | MCR_OUT2);

	/* Reading makes room; new input wraps around the ring in order. */
	for (size_t i = 0; i < 100; i++)
		ck_assert_msg(inb(RBR) == in[i], "byte %zu out of order", i);
	ck_assert_uint_eq(serial_rx(&s, in + SERIAL_RX_SIZE, 44), 44);
	for (size_t i = 100; i < sizeof(in); i++)
		ck_assert_msg(inb(RBR) == in[i], "byte %zu out of order", i);
	ck_assert(!(inb(LSR) & LSR_DR));
	ck_assert_int_eq(irq_level, 0);
	ck_assert_uint_eq(serial_rx_room(&s), SERIAL_RX_SIZE);
}
END_TEST

START_TEST(test_lsr_msr_writes_ignored)
{
	uint8_t lsr = inb(LSR), msr = inb(MSR);

	outb(LSR, 0x00);
	outb(MSR, 0x00);
	ck_assert_uint_eq(inb(LSR), lsr);
	ck_assert_uint_eq(inb(MSR), msr);
	outb(LSR, 0xff);
	outb(MSR, 0xff);
	ck_assert_uint_eq(inb(LSR), lsr);
	ck_assert_uint_eq(inb(MSR), msr);
	/* Not even a claim of data ready. */
	ck_assert(!(inb(LSR) & LSR_DR));
}
END_TEST

START_TEST(test_wide_access_stays_within_ports)
{
	uint8_t v[4] = { 0x11, 0x22, 0x33, 0x44 };

	/* 16 bits at MSR: MSR ignores its byte, SCR takes the next. */
	serial_access(&s, MSR, v, 2, true);
	ck_assert_uint_eq(inb(SCR), 0x22);
	/* 32 bits at SCR: only SCR exists, the rest is left alone. */
	memset(v, 0xcc, sizeof(v));
	serial_access(&s, SCR, v, 4, false);
	ck_assert_uint_eq(v[0], 0x22);
	ck_assert_uint_eq(v[1], 0xcc);
	ck_assert_uint_eq(v[3], 0xcc);
	/* An offset past the ports does nothing. */
	serial_access(&s, 8, v, 1, true);
	serial_access(&s, UINT64_MAX, v, 1, true);
	ck_assert_uint_eq(inb(SCR), 0x22);
}
END_TEST

static Suite *serial_suite(void)
{
	Suite *su = suite_create("serial");
	TCase *tc;

	tc = tcase_create("probe_tx");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_reset_state);
	tcase_add_test(tc, test_scratch_register_round_trip);
	tcase_add_test(tc, test_loopback_probe);
	tcase_add_test(tc, test_thr_bytes_reach_output);
	tcase_add_test(tc, test_no_output_fd_discards);
	tcase_add_test(tc, test_dlab_divisor_access_does_not_transmit);
	tcase_add_test(tc, test_dlab_hides_rx_data);
	tcase_add_test(tc, test_ier_keeps_low_nibble);
	tcase_add_test(tc, test_thre_interrupt_raised_and_cleared_by_iir);
	suite_add_tcase(su, tc);

	tc = tcase_create("rx_irq");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_rx_bytes_in_order);
	tcase_add_test(tc, test_rx_interrupt_level);
	tcase_add_test(tc, test_rx_interrupt_outranks_thre);
	tcase_add_test(tc, test_out2_gates_irq);
	tcase_add_test(tc, test_irq_callback_only_on_change);
	tcase_add_test(tc, test_fifo_bits_in_iir);
	tcase_add_test(tc, test_fcr_clears_receiver);
	tcase_add_test(tc, test_rx_overrun_drops_excess);
	tcase_add_test(tc, test_lsr_msr_writes_ignored);
	tcase_add_test(tc, test_wide_access_stays_within_ports);
	suite_add_tcase(su, tc);
	return su;
}

int main(void)
{
	return unit_main(serial_suite());
}
