// SPDX-License-Identifier: GPL-2.0-only
/*
 * log_listener: a syslog daemon's /dev/log end and nothing more, for
 * tests/host/vhost_user_syslog.sh. Binds a datagram socket at PATH and
 * appends every message it receives to OUT as one line, as received (no
 * parsing: the test checks the format), until it is killed.
 *
 *   log_listener PATH OUT
 */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	char msg[8192];
	int s, out;

	if (argc != 3 || strlen(argv[1]) >= sizeof(sa.sun_path)) {
		fprintf(stderr, "usage: log_listener PATH OUT\n");
		return 2;
	}
	strcpy(sa.sun_path, argv[1]);
	unlink(argv[1]);
	s = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	out = open(argv[2], O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
	if (s < 0 || out < 0 || bind(s, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		perror("log_listener");
		return 1;
	}
	for (;;) {
		ssize_t n = recv(s, msg, sizeof(msg) - 1, 0);

		if (n < 0)
			continue;
		msg[n++] = '\n';
		if (write(out, msg, (size_t)n) != n)
			return 1;
	}
}
