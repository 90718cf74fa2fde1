/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * notify-listen SOCKET SECONDS: plays systemd's side of sd_notify() for the
 * tests: binds a datagram socket at SOCKET and prints each message it gets
 * on one line (newlines as " | "), for SECONDS at most.
 */

#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char *argv[])
{
        struct sockaddr_un addr = { .sun_family = AF_UNIX };
        char buf[4097];
        int fd;

        if (argc != 3 || strlen(argv[1]) >= sizeof(addr.sun_path)) {
                fprintf(stderr, "usage: notify-listen SOCKET SECONDS\n");
                return 2;
        }
        strcpy(addr.sun_path, argv[1]);
        fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
        if (fd < 0 || bind(fd, (struct sockaddr *)&addr, sizeof(addr)) < 0) {
                perror(argv[1]);
                return 1;
        }
        time_t end = time(NULL) + atoi(argv[2]);
        setvbuf(stdout, NULL, _IOLBF, 0);
        while (time(NULL) < end) {
                struct pollfd p = { .fd = fd, .events = POLLIN };
                if (poll(&p, 1, 200) <= 0)
                        continue;
                ssize_t n = recv(fd, buf, sizeof(buf) - 1, 0);
                if (n <= 0)
                        continue;
                buf[n] = '\0';
                while (n > 0 && buf[n - 1] == '\n')
                        buf[--n] = '\0';
                for (char *c = buf; *c; c++)
                        if (*c == '\n')
                                printf(" | ");
                        else
                                putchar(*c);
                putchar('\n');
        }
        return 0;
}
