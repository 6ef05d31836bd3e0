/* Batched datagram I/O (loadgen/transport/udp_batch.c, the QUIC transport's packets)
 * on a pair of connected UDP sockets on loopback: what one send of several
 * same-size segments delivers (with UDP GSO, with sendmmsg, one by one), a
 * short last segment, several datagrams in one receive, a datagram larger
 * than its slot reported as cut, and nothing waiting. */
#include <errno.h>
#include <netinet/in.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include <cmocka.h>

#include "loadgen/transport/udp_batch.h"

struct pair {
    int a, b;
};

/* Two UDP sockets on 127.0.0.1 connected to each other, non-blocking. */
static int pair_setup(void **state)
{
    static struct pair p;
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    struct sockaddr_in sb = sa;
    socklen_t len = sizeof(sa);
    p.a = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK, 0);
    p.b = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK, 0);
    if (p.a < 0 || p.b < 0) return -1;
    if (bind(p.a, (struct sockaddr *)&sa, sizeof(sa)) < 0 ||
        bind(p.b, (struct sockaddr *)&sb, sizeof(sb)) < 0)
        return -1;
    getsockname(p.a, (struct sockaddr *)&sa, &len);
    len = sizeof(sb);
    getsockname(p.b, (struct sockaddr *)&sb, &len);
    if (connect(p.a, (struct sockaddr *)&sb, sizeof(sb)) < 0 ||
        connect(p.b, (struct sockaddr *)&sa, sizeof(sa)) < 0)
        return -1;
    *state = &p;
    return 0;
}

static int pair_teardown(void **state)
{
    struct pair *p = *state;
    close(p->a);
    close(p->b);
    return 0;
}

/* Sends 3 segments of 1000 bytes and a last one of 300, each filled with
 * its index, and checks that 4 datagrams of those sizes arrive in order. */
static void send_and_receive(struct pair *p, bool gso, bool batch)
{
    uint8_t out[3300];
    for (size_t i = 0; i < sizeof(out); i++)
        out[i] = (uint8_t)(i / 1000);
    bool use_gso = gso;
    ssize_t n = lg_udp_send_batch(p->a, out, sizeof(out), 1000, &use_gso, batch);
    assert_int_equal(n, (ssize_t)sizeof(out));
    uint8_t in[8 * 2048];
    size_t len[8];
    int got = 0;
    for (int tries = 0; got < 4 && tries < 1000; tries++) {
        int r = lg_udp_recv_batch(p->b, in + (size_t)got * 2048, 2048, (unsigned)(8 - got),
                                  len + got, batch);
        assert_true(r >= 0);
        if (r == 0) usleep(1000); /* loopback delivers at once; bounded all the same */
        got += r;
    }
    assert_int_equal(got, 4);
    static const size_t want[4] = {1000, 1000, 1000, 300};
    for (int i = 0; i < 4; i++) {
        assert_int_equal(len[i], want[i]);
        assert_int_equal(in[(size_t)i * 2048], i);
        assert_int_equal(in[(size_t)i * 2048 + len[i] - 1], i);
    }
}

static void segments_arrive_as_datagrams_with_gso(void **state)
{
    if (!lg_udp_gso_available(AF_INET)) skip(); /* a kernel without UDP_SEGMENT */
    send_and_receive(*state, true, true);
}

static void segments_arrive_as_datagrams_with_sendmmsg(void **state)
{
    send_and_receive(*state, false, true);
}

static void segments_arrive_as_datagrams_one_by_one(void **state)
{
    send_and_receive(*state, false, false);
}

static void a_datagram_larger_than_its_slot_is_reported_cut(void **state)
{
    struct pair *p = *state;
    uint8_t big[3000] = {0}, in[2 * 1024];
    size_t len[2];
    assert_int_equal(send(p->a, big, sizeof(big), 0), (ssize_t)sizeof(big));
    assert_int_equal(send(p->a, big, 100, 0), 100);
    usleep(1000);
    assert_int_equal(lg_udp_recv_batch(p->b, in, 1024, 2, len, true), 2);
    assert_int_equal(len[0], 0); /* cut short: the caller drops it */
    assert_int_equal(len[1], 100);
}

static void nothing_waiting_is_zero(void **state)
{
    struct pair *p = *state;
    uint8_t in[2048];
    size_t len[1];
    assert_int_equal(lg_udp_recv_batch(p->b, in, sizeof(in), 1, len, true), 0);
    assert_int_equal(lg_udp_recv_batch(p->b, in, sizeof(in), 1, len, false), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(segments_arrive_as_datagrams_with_gso, pair_setup,
                                        pair_teardown),
        cmocka_unit_test_setup_teardown(segments_arrive_as_datagrams_with_sendmmsg, pair_setup,
                                        pair_teardown),
        cmocka_unit_test_setup_teardown(segments_arrive_as_datagrams_one_by_one, pair_setup,
                                        pair_teardown),
        cmocka_unit_test_setup_teardown(a_datagram_larger_than_its_slot_is_reported_cut, pair_setup,
                                        pair_teardown),
        cmocka_unit_test_setup_teardown(nothing_waiting_is_zero, pair_setup, pair_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
