/* recv and send on a loop's sockets as plain system calls. glibc's recv and
 * send are cancellation points: in a process with more than one thread (the
 * tools always have a control thread) each call brackets its system call with
 * turning asynchronous cancellation on and off, about 60 instructions a
 * request that buys nothing, since loadgen never cancels a thread. Same
 * results and errno as recv(2) and send(2). */
#ifndef LOADGEN_SOCKIO_H
#define LOADGEN_SOCKIO_H

#include <stddef.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <unistd.h>

static inline ssize_t lg_recv(int fd, void *buf, size_t len, int flags)
{
    return syscall(SYS_recvfrom, fd, buf, len, flags, NULL, NULL);
}

static inline ssize_t lg_send(int fd, const void *buf, size_t len, int flags)
{
    return syscall(SYS_sendto, fd, buf, len, flags, NULL, 0);
}

#endif
