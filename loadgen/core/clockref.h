/* --clock-ref HOST: how far this host's wall clock is from an NTP server's,
 * measured once before the run, so that --start-at's common starts are the
 * reference's moments whatever this clock says, and --meta records by how
 * much it was off. */
#ifndef LOADGEN_CLOCKREF_H
#define LOADGEN_CLOCKREF_H

#include <stddef.h>
#include <sys/socket.h>

struct lg_clock_ref {
    double offset_s; /* this clock minus the reference's */
    double rtt_s;    /* round trip of the exchange the offset comes from */
};

/* Four SNTP exchanges, the offset from the one with the shortest round trip.
 * 0, or -1 with a reason in err when none was answered. */
int lg_clock_ref_measure(const struct sockaddr *addr, socklen_t len, struct lg_clock_ref *out,
                         char *err, size_t errlen);

#endif
