/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * `stainless exec`'s control protocol between the host and the guest's
 * init (guest-images/exec-init.c), on one vsock stream. Both ends build
 * and read frames with this file alone (it needs nothing but libc, so the
 * static guest init compiles it too).
 *
 * A frame is a 4-byte header, then len payload bytes:
 *   u8 type | u8 zero | u16 len (little endian)
 * The host sends the command (ARG..., ENV..., CWD, USER, HOSTNAME,
 * RLIMIT..., TTY, then START), later SIGNAL and WINSIZE; the guest sends
 * exactly one EXIT or ERROR. The host never trusts the guest's bytes:
 * exec_guest_msg() accepts only those two types, with their exact sizes,
 * a message of at most EXEC_MSG_MAX bytes, and nothing after them.
 * docs/containers.md describes the protocol for readers.
 */
#ifndef STAINLESS_CMD_EXEC_WIRE_H
#define STAINLESS_CMD_EXEC_WIRE_H

#include <stddef.h>
#include <stdint.h>

/* Guest connects to host ports (vsock CID 2): control first, then stdio. */
#define EXEC_PORT_CTL    7000
#define EXEC_PORT_STDIN  7001
#define EXEC_PORT_STDOUT 7002
#define EXEC_PORT_STDERR 7003

#define EXEC_HDR      4
#define EXEC_LEN_MAX  65535u   /* the u16: no frame is longer */
#define EXEC_MSG_MAX  256u     /* an ERROR's text, from the guest */
/* What the host reads from the guest at most before a whole frame: a
 * guest message is never longer than this. */
#define EXEC_GUEST_FRAME_MAX (EXEC_HDR + 1 + EXEC_MSG_MAX)

enum exec_type {
	/* host -> guest */
	EXEC_ARG = 1,      /* one argv word, argv[0] first (the command) */
	EXEC_ENV = 2,      /* "KEY=VALUE" */
	EXEC_CWD = 3,      /* the command's working directory */
	EXEC_USER = 4,     /* u32 uid, u32 gid */
	EXEC_HOSTNAME = 5, /* the guest's host name */
	EXEC_RLIMIT = 6,   /* u32 resource, u64 soft, u64 hard */
	EXEC_TTY = 7,      /* u16 rows, u16 cols: run the command on a pty */
	EXEC_START = 8,    /* empty: the command is complete, run it */
	EXEC_SIGNAL = 9,   /* u32 signal number, for the command */
	EXEC_WINSIZE = 10, /* u16 rows, u16 cols: the terminal was resized */
	/* guest -> host */
	EXEC_EXIT = 32,    /* u8 how (0 exited, 1 killed by a signal), u8 value */
	EXEC_ERROR = 33,   /* u8 exit code (126, 127), then a message */
};

struct exec_frame {
	uint8_t type;
	uint16_t len;
	const uint8_t *data;   /* points into the buffer given */
};

/*
 * One frame from buf[0..n): its size (header and payload) with *f set,
 * 0 when buf holds no whole frame yet, -EPROTO for a header that is not
 * one (the zero byte set). f->data points into buf.
 */
int exec_frame_next(const uint8_t *buf, size_t n, struct exec_frame *f);

/* Appends a frame to buf (cap bytes, *used of them taken): 0, -E2BIG
 * when len > EXEC_LEN_MAX, -ENOSPC when it does not fit. */
int exec_frame_put(uint8_t *buf, size_t cap, size_t *used, uint8_t type, const void *data,
		   size_t len);

/* Little-endian fields of a payload. */
void exec_put_u16(uint8_t *p, uint16_t v);
void exec_put_u32(uint8_t *p, uint32_t v);
void exec_put_u64(uint8_t *p, uint64_t v);
uint16_t exec_get_u16(const uint8_t *p);
uint32_t exec_get_u32(const uint8_t *p);
uint64_t exec_get_u64(const uint8_t *p);

/* What the guest said about the command. */
struct exec_result {
	enum { EXEC_EXITED, EXEC_KILLED, EXEC_FAILED } how;
	int value;              /* exit code, signal number, or 126/127 */
	char msg[EXEC_MSG_MAX + 1];  /* EXEC_FAILED: printable, NUL-ended */
};

/*
 * A guest's frame taken as its result: 0, or -EPROTO with why set for a
 * type the guest may not send, a wrong size, a signal out of 1..64 or an
 * ERROR code other than 126 and 127. Bytes of the message that are not
 * printable ASCII become '?': the host prints them on a terminal.
 */
int exec_guest_msg(const struct exec_frame *f, struct exec_result *r, const char **why);

/* The shell's status for a result: the code, 128 + the signal, 126/127. */
int exec_result_status(const struct exec_result *r);

#endif
