#!/usr/bin/env python3
"""Judges a run through a fault from its document and its --log records, for
tests/integration/t_faults.sh.

usage: faultlog.py recovered DOC LOG --allowed CLASS,... --retry-delay-ms D [--tick-ms T]
       faultlog.py timeouts LOG --timeout-ms T [--tick-ms T] [--min N]

recovered: the log holds one record per attempt of the document's one level
and its error classes are the document's; every failure is of an allowed
class; every client failed at least once and completed a request after its
last failure (nobody stuck); after a failure that left a client without a
working connection (a cold request that failed, its connection closed with
no success on it; a datagram refused by ICMP) its next request started no
sooner than --retry-delay, less one timer tick (--tick-ms: the kernel's,
1/HZ).

timeouts: every request that ended as timeout or connect_timeout lasted
--timeout, not less, and not more than one timer tick more: from its start,
which lies between its origin (the schedule's moment, in an open loop) and
its sent time (a cold request: its connection attempt's start). --min N: at
least N such requests.

Prints what it measured; exit 1 with one line per broken rule.
"""
import collections
import json
import sys

TIMEOUTS = ("timeout", "connect_timeout")


def opt(argv, name, default=None, conv=float):
    if name in argv:
        return conv(argv[argv.index(name) + 1])
    if default is None:
        sys.exit("faultlog.py: %s is required" % name)
    return default


def records(path):
    with open(path) as f:
        return [json.loads(line) for line in f]


def start_bounds(r):
    """The earliest and latest moment the request can have started: its
    timeout counts from its start."""
    latest = r["attempt_ms"] if r["cold"] else r["sent_ms"]
    return r["origin_ms"], latest


def recovered(argv):
    doc, log = argv[0], argv[1]
    allowed = set(opt(argv, "--allowed", conv=str).split(","))
    delay = opt(argv, "--retry-delay-ms")
    tick = opt(argv, "--tick-ms", 1.0)
    m = json.load(open(doc))["metrics"]
    level = [k for k in m if k.endswith(".attempts")]
    if len(level) != 1:
        return ["%s: expected one level, found %s" % (doc, level)]
    p = level[0][: -len("attempts")]
    recs = records(log)
    errs = []
    if len(recs) != m[p + "attempts"]["samples"][0]:
        errs.append("%d records for %d attempts" % (len(recs), m[p + "attempts"]["samples"][0]))
    classes = collections.Counter(r["outcome"] for r in recs if r["outcome"] != "ok")
    in_doc = {k[len(p + "errors."):]: v["samples"][0] for k, v in m.items() if k.startswith(p + "errors.")}
    print("error classes: %s" % dict(classes))
    if dict(classes) != in_doc:
        errs.append("the log's error classes %s are not the document's %s" % (dict(classes), in_doc))
    for cls in classes:
        if cls not in allowed:
            errs.append("%d requests failed as %s, not one of %s" % (classes[cls], cls, sorted(allowed)))
    by_client = collections.defaultdict(list)
    for r in recs:
        by_client[r["client"]].append(r)
    clients = len(m[p + "client_attempts"]["samples"])
    if len(by_client) != clients:
        errs.append("records of %d clients, the level has %d" % (len(by_client), clients))
    shortest = None
    for c, rs in sorted(by_client.items()):
        rs.sort(key=lambda r: start_bounds(r)[1])
        failed = [i for i, r in enumerate(rs) if r["outcome"] != "ok"]
        if not failed:
            errs.append("client %d never failed: the fault missed it" % c)
            continue
        if not any(r["outcome"] == "ok" for r in rs[failed[-1] + 1:]):
            errs.append("client %d completed nothing after its last failure (%s at %.1f ms): stuck"
                        % (c, rs[failed[-1]]["outcome"], rs[failed[-1]]["done_ms"]))
        for i in failed:
            r = rs[i]
            if i + 1 == len(rs):
                continue
            # a cold request's connection carried no success: closed after
            # the failure (the next request is on another), it is owed the
            # pause; an HTTP/2 stream that timed out leaves it open
            replaced = r["cold"] and rs[i + 1]["connection"] != r["connection"]
            if not (replaced or r["outcome"] == "icmp"):
                continue
            gap = start_bounds(rs[i + 1])[0] - r["done_ms"]
            shortest = gap if shortest is None else min(shortest, gap)
            if gap < delay - tick:
                errs.append("client %d: %s at %.3f ms, next request %.3f ms later, sooner than "
                            "--retry-delay %s ms" % (c, r["outcome"], r["done_ms"], gap, delay))
    print("%d clients, each failed and recovered; shortest pause after a failed connection: %s ms"
          % (len(by_client), "%.3f" % shortest if shortest is not None else "none"))
    return errs


def timeouts(argv):
    log = argv[0]
    limit = opt(argv, "--timeout-ms")
    tick = opt(argv, "--tick-ms", 1.0)
    least = opt(argv, "--min", 1, int)
    errs = []
    over = []
    n = 0
    for r in records(log):
        if r["outcome"] not in TIMEOUTS:
            continue
        n += 1
        earliest, latest = start_bounds(r)
        longest, shortest = r["done_ms"] - earliest, r["done_ms"] - latest
        over.append(shortest - limit)
        if longest < limit:
            errs.append("client %d: %s after %.3f ms, before --timeout %s ms"
                        % (r["client"], r["outcome"], longest, limit))
        if shortest > limit + tick:
            errs.append("client %d: %s after %.3f ms, more than --timeout %s ms + one tick (%s ms)"
                        % (r["client"], r["outcome"], shortest, limit, tick))
    if n < least:
        errs.append("%d requests timed out, expected at least %d" % (n, least))
    if over:
        print("%d timed out, %.3f to %.3f ms after --timeout" % (n, min(over), max(over)))
    return errs


def main(argv):
    if len(argv) < 3 or argv[1] not in ("recovered", "timeouts"):
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    errs = recovered(argv[2:]) if argv[1] == "recovered" else timeouts(argv[2:])
    for e in errs[:20]:
        print("faultlog: " + e, file=sys.stderr)
    if len(errs) > 20:
        print("faultlog: ... and %d more" % (len(errs) - 20), file=sys.stderr)
    return 1 if errs else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
