// SPDX-License-Identifier: GPL-2.0-only
/*
 * 16550A UART (see serial.h). Enough of the real chip for Linux's 8250
 * driver to detect a 16550A (scratch and loopback probes, FIFO bits) and
 * drive it by interrupts; transmission is instantaneous.
 */
#include "vmm/serial.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>

enum { RBR_THR, IER, IIR_FCR, LCR, MCR, LSR, MSR, SCR };

#define IER_RDI   0x01
#define IER_THRI  0x02
#define IIR_NONE  0x01
#define IIR_THRI  0x02
#define IIR_RDI   0x04
#define IIR_FIFO  0xc0
#define FCR_FIFO  0x01
#define FCR_CLRX  0x02
#define LCR_DLAB  0x80
#define MCR_LOOP  0x10
#define MCR_OUT2  0x08
#define LSR_DR    0x01
#define LSR_THRE  0x20
#define LSR_TEMT  0x40
#define MSR_CTS   0x10
#define MSR_DSR   0x20
#define MSR_RI    0x40
#define MSR_DCD   0x80

void serial_init(struct serial *s, int out_fd, serial_irq_fn *set_irq, void *irq_ctx)
{
	memset(s, 0, sizeof(*s));
	pthread_mutex_init(&s->lock, NULL);
	s->out_fd = out_fd;
	s->set_irq = set_irq;
	s->irq_ctx = irq_ctx;
	s->lsr = LSR_THRE | LSR_TEMT;
	s->msr = MSR_DCD | MSR_DSR | MSR_CTS;
	s->mcr = MCR_OUT2;
}

void serial_destroy(struct serial *s)
{
	pthread_mutex_destroy(&s->lock);
}

static uint8_t iir(const struct serial *s)
{
	uint8_t fifo = (s->fcr & FCR_FIFO) ? IIR_FIFO : 0;

	if ((s->ier & IER_RDI) && s->rx_count)
		return fifo | IIR_RDI;
	if ((s->ier & IER_THRI) && s->thre_pending)
		return fifo | IIR_THRI;
	return fifo | IIR_NONE;
}

/* Called with the lock held. On a PC, OUT2 gates the UART's IRQ line. */
static void update_irq(struct serial *s)
{
	int level = !(iir(s) & IIR_NONE) && (s->mcr & MCR_OUT2);

	if (level != s->irq_level && s->set_irq) {
		s->irq_level = level;
		s->set_irq(s->irq_ctx, level);
	}
}

static void rx_push(struct serial *s, uint8_t c)
{
	if (s->rx_count == SERIAL_RX_SIZE)
		return; /* overrun: the byte is lost, as on the real chip */
	s->rx[(s->rx_head + s->rx_count) % SERIAL_RX_SIZE] = c;
	s->rx_count++;
	s->lsr |= LSR_DR;
}

static uint8_t rx_pop(struct serial *s)
{
	uint8_t c;

	if (!s->rx_count)
		return 0;
	c = s->rx[s->rx_head];
	s->rx_head = (s->rx_head + 1) % SERIAL_RX_SIZE;
	if (--s->rx_count == 0)
		s->lsr &= ~LSR_DR;
	return c;
}

static void transmit(struct serial *s, uint8_t c)
{
	if (s->mcr & MCR_LOOP) {
		rx_push(s, c);
	} else if (s->out_fd >= 0) {
		ssize_t n;

		do {
			n = write(s->out_fd, &c, 1);
		} while (n < 0 && errno == EINTR);
	}
	s->thre_pending = true;
}

/* In loopback the modem inputs follow the modem outputs. */
static uint8_t modem_status(const struct serial *s)
{
	if (!(s->mcr & MCR_LOOP))
		return s->msr;
	return (uint8_t)(((s->mcr & 0x01) ? MSR_DSR : 0) | ((s->mcr & 0x02) ? MSR_CTS : 0) |
			 ((s->mcr & 0x04) ? MSR_RI : 0) | ((s->mcr & 0x08) ? MSR_DCD : 0));
}

static void write_reg(struct serial *s, unsigned reg, uint8_t v)
{
	switch (reg) {
	case RBR_THR:
		if (s->lcr & LCR_DLAB)
			s->dll = v;
		else
			transmit(s, v);
		break;
	case IER:
		if (s->lcr & LCR_DLAB) {
			s->dlm = v;
			break;
		}
		/* Enabling THRI while the transmitter is empty raises it. */
		if ((v & IER_THRI) && !(s->ier & IER_THRI))
			s->thre_pending = true;
		s->ier = v & 0x0f;
		break;
	case IIR_FCR:
		s->fcr = v;
		if (v & FCR_CLRX) {
			s->rx_head = s->rx_count = 0;
			s->lsr &= ~LSR_DR;
		}
		break;
	case LCR:
		s->lcr = v;
		break;
	case MCR:
		s->mcr = v & 0x1f;
		break;
	case SCR:
		s->scr = v;
		break;
	default: /* LSR and MSR are read-only */
		break;
	}
}

static uint8_t read_reg(struct serial *s, unsigned reg)
{
	uint8_t v;

	switch (reg) {
	case RBR_THR:
		return (s->lcr & LCR_DLAB) ? s->dll : rx_pop(s);
	case IER:
		return (s->lcr & LCR_DLAB) ? s->dlm : s->ier;
	case IIR_FCR:
		v = iir(s);
		if ((v & 0x0f) == IIR_THRI)
			s->thre_pending = false; /* reading IIR acknowledges THRI */
		return v;
	case LCR:
		return s->lcr;
	case MCR:
		return s->mcr;
	case LSR:
		return s->lsr;
	case MSR:
		return modem_status(s);
	default:
		return s->scr;
	}
}

void serial_access(void *opaque, uint64_t off, void *data, unsigned size, bool is_write)
{
	struct serial *s = opaque;
	uint8_t *b = data;

	pthread_mutex_lock(&s->lock);
	/* Wider accesses touch consecutive registers, as on the bus. */
	for (unsigned i = 0; i < size && off + i < SERIAL_PORTS; i++) {
		if (is_write)
			write_reg(s, (unsigned)(off + i), b[i]);
		else
			b[i] = read_reg(s, (unsigned)(off + i));
	}
	update_irq(s);
	pthread_mutex_unlock(&s->lock);
}

size_t serial_rx_room(struct serial *s)
{
	size_t room;

	pthread_mutex_lock(&s->lock);
	room = SERIAL_RX_SIZE - s->rx_count;
	pthread_mutex_unlock(&s->lock);
	return room;
}

size_t serial_rx(struct serial *s, const uint8_t *buf, size_t len)
{
	size_t n = 0;

	pthread_mutex_lock(&s->lock);
	for (; n < len && s->rx_count < SERIAL_RX_SIZE; n++)
		rx_push(s, buf[n]);
	update_irq(s);
	pthread_mutex_unlock(&s->lock);
	return n;
}
