#!/usr/bin/env python3
"""Checks a --log file (one JSON record per request) against the engine's
timing and fairness rules, for the integration tests.

usage: reqlogcheck.py LOG [--first-attempts] [--clients N]

Every record: origin <= sent <= done, latency and ttfb not negative, latency
equal to done - origin (to the printed precision); a cold record, and only
one, has attempt_ms (its connection attempt's start), origin <= attempt <= sent. --first-attempts: in each
level, the level's first attempts in start order (origin_ms) come from
distinct clients, one each, before any client's second (--clients N: the
level has N clients; default: the level's key). Prints the records and
attempts per client of each level; exit 1 with one line per broken rule.
"""
import collections
import json
import sys


def main(argv):
    if len(argv) < 2:
        print("usage: reqlogcheck.py LOG [--first-attempts] [--clients N]", file=sys.stderr)
        return 2
    first = "--first-attempts" in argv
    clients = int(argv[argv.index("--clients") + 1]) if "--clients" in argv else None
    errs = []
    by_level = collections.defaultdict(list)
    with open(argv[1]) as f:
        for i, line in enumerate(f, 1):
            r = json.loads(line)
            by_level[r["level"]].append(r)
            o, s, d, lat = r["origin_ms"], r["sent_ms"], r["done_ms"], r["latency_ms"]
            if not (o <= s <= d):
                errs.append("line %d: moments out of order: origin %s sent %s done %s" % (i, o, s, d))
            if r["cold"] != ("attempt_ms" in r):
                errs.append("line %d: attempt_ms on a record with cold %s" % (i, r["cold"]))
            elif r["cold"] and not (o <= r["attempt_ms"] <= s):
                errs.append("line %d: connection attempt at %s, not between origin %s and sent %s"
                            % (i, r["attempt_ms"], o, s))
            if lat < 0 or r.get("ttfb_ms", 0) < 0:
                errs.append("line %d: negative latency %s or ttfb %s" % (i, lat, r.get("ttfb_ms")))
            if abs(lat - (d - o)) > 0.01:
                errs.append("line %d: latency %s is not done - origin %s" % (i, lat, d - o))
    for level, recs in sorted(by_level.items()):
        per = collections.Counter(r["client"] for r in recs)
        print("level %d: %d records, attempts per client min %d max %d over %d clients"
              % (level, len(recs), min(per.values()), max(per.values()), len(per)))
        if first:
            n = clients or level
            order = sorted(recs, key=lambda r: r["origin_ms"])[:n]
            seen = [r["client"] for r in order]
            if len(set(seen)) != n:
                errs.append("level %d: the first %d attempts came from clients %s, not one each"
                            % (level, n, seen))
    for e in errs[:20]:
        print("reqlogcheck: " + e, file=sys.stderr)
    return 1 if errs else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
