#!/usr/bin/env python3
"""Compares the merge of a sharded run with one process that did the same work
(the shards' documents, their merge, and one or two single-process documents of
the same options), for t_shards.sh.

Exact checks: every count of the merge is the sum of the shards' counts; the
merged requests_per_second series is as long as the shards' and the single
process's, and each of its bins is the sum of the shards' bins; connections
equal the level's clients in the merge and in the single process (each shard
has its share); in an open loop, scheduled is the same in the merge and the
single process, and equals rate x duration. With --logs, the --log files of the
shards together hold each scheduled moment n/rate at most once, and each on
the client n mod clients, as does the single process's; when nothing was
unsent, both are exactly the whole schedule.

Within noise: the merge's attempts and requests against the single process's,
as a ratio that must lie in [bound, 1/bound]; the spread of two single runs is
printed beside it (the noise this machine showed in the same test).

Without --single only the merge's own checks run (counts, bins, connections,
and the schedule's length): nothing is compared with itself.

usage: shardcompare.py --clients C --merged M.json --shards S0 S1 ... [--single ONE
                       [--single TWO]] [--bound 0.6] [--rate R --duration S]
                       [--logs L0 L1 ... --single-log L] [--label TEXT] [--table FILE]
Prints one table row (and appends it to --table); exit 1 with one line per
failed check on stderr.
"""
import argparse
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import metrickinds  # noqa: E402  the table of metric kinds loadstats merges by


def metrics(path):
    with open(path) as f:
        return json.load(f)["metrics"]


def count(m, key):
    s = m.get(key, {}).get("samples", [0])
    return s[0]


def origins(path, clients):
    """The scheduled moments (ns after the level start) and clients of a --log."""
    out = []
    with open(path) as f:
        for line in f:
            r = json.loads(line)
            if r["level"] == clients:
                out.append((round(r["origin_ms"] * 1e6), r["client"]))
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--clients", type=int, required=True)
    ap.add_argument("--merged", required=True)
    ap.add_argument("--shards", nargs="+", required=True)
    ap.add_argument("--single", action="append", default=[])
    ap.add_argument("--bound", type=float, default=0.6)
    ap.add_argument("--rate", type=float)
    ap.add_argument("--duration", type=float)
    ap.add_argument("--logs", nargs="*")
    ap.add_argument("--single-log")
    ap.add_argument("--label", default="")
    ap.add_argument("--table")
    a = ap.parse_args()
    if a.logs and not (a.single and a.single_log):
        ap.error("--logs needs --single and --single-log")
    errs = []
    c = a.clients
    p = "c%d." % c
    merged = metrics(a.merged)
    shards = [metrics(s) for s in a.shards]
    singles = [metrics(s) for s in a.single]
    n = len(shards)

    # the merge: counts summed, bins added
    for key, val in merged.items():
        # exact counts, as the table of metric kinds says
        if metrickinds.kind(key, val["unit"]) == "count":
            total = sum(count(s, key) for s in shards)
            if count(merged, key) != total:
                errs.append("%s: merged %s, shards sum to %s" % (key, count(merged, key), total))
    rps = merged[p + "requests_per_second"]["samples"]
    for k, s in enumerate(shards):
        bins = s[p + "requests_per_second"]["samples"]
        if len(bins) != len(rps):
            errs.append("shard %d has %d per-second bins, the merge %d" % (k, len(bins), len(rps)))
    for i, b in enumerate(rps):
        total = sum(s[p + "requests_per_second"]["samples"][i] for s in shards
                    if i < len(s[p + "requests_per_second"]["samples"]))
        if b != total:
            errs.append("requests_per_second bin %d: merged %s, shards sum to %s" % (i, b, total))
    for j, one in enumerate(singles):
        if len(one[p + "requests_per_second"]["samples"]) != len(rps):
            errs.append("single run %d has %d per-second bins, the merge %d"
                        % (j + 1, len(one[p + "requests_per_second"]["samples"]), len(rps)))

    # every client of every shard: one client_attempts sample each, all made progress
    ca = merged.get(p + "client_attempts", {}).get("samples", [])
    if len(ca) != c or min(ca, default=0) < 1:
        errs.append("merged client_attempts: %d samples (min %s) for %d clients" % (len(ca), min(ca, default=None), c))

    # connections: exactly the clients, each shard its share
    if count(merged, p + "connections") != c:
        errs.append("merged connections %s != clients %d" % (count(merged, p + "connections"), c))
    for j, one in enumerate(singles):
        if count(one, p + "connections") != c:
            errs.append("single run %d: connections %s != clients %d" % (j + 1, count(one, p + "connections"), c))
    for k, s in enumerate(shards):
        share = (c - k + n - 1) // n if c > k else 0
        if count(s, p + "connections") != share:
            errs.append("shard %d: connections %s != its share %d" % (k, count(s, p + "connections"), share))

    # open loop: one schedule
    if a.rate:
        want = round(a.rate * a.duration)
        for name, m in [("merged", merged)] + [("single run %d" % (j + 1), s) for j, s in enumerate(singles)]:
            if count(m, p + "scheduled") != want:
                errs.append("%s: scheduled %s != rate x duration %d" % (name, count(m, p + "scheduled"), want))

    # within noise
    one = singles[0] if singles else {}
    ratio = {}
    for key in ("attempts", "requests") if singles else ():
        if count(one, p + key) == 0:
            errs.append("single run: no %s" % key)
            continue
        ratio[key] = count(merged, p + key) / count(one, p + key)
        if not a.bound <= ratio[key] <= 1 / a.bound:
            errs.append("%s: merged %s / single %s = %.3f, outside [%g, %.3g]"
                        % (key, count(merged, p + key), count(one, p + key), ratio[key], a.bound, 1 / a.bound))
    spread = ""
    if len(singles) > 1 and count(singles[1], p + "requests"):
        spread = "%.3f" % (count(singles[1], p + "requests") / count(one, p + "requests"))

    # the schedule, from the --log files
    if a.logs:
        per_req = 1e9 / a.rate
        scheduled = count(merged, p + "scheduled")
        schedule = {int(k * per_req): k % c for k in range(scheduled)}
        union = [o for path in a.logs for o in origins(path, c)]
        single = origins(a.single_log, c)
        for name, got, att, unsent in (("shards", union, count(merged, p + "attempts"), count(merged, p + "unsent")),
                                       ("single", single, count(one, p + "attempts"), count(one, p + "unsent"))):
            moments = [t for t, _ in got]
            if len(set(moments)) != len(moments):
                errs.append("%s: a scheduled moment was sent twice" % name)
            off = [t for t, cl in got if schedule.get(t) != cl]
            if off:
                errs.append("%s: %d requests off the single-process schedule (first at %d ns)"
                            % (name, len(off), off[0]))
            if len(got) != att:
                errs.append("%s: %d requests logged, %d attempts" % (name, len(got), att))
            if unsent == 0 and set(moments) != set(schedule):
                errs.append("%s: nothing unsent, yet the logged moments are not the whole schedule" % name)

    row = "| %s | %s | %s | %s | %s | %s | %s | %s |" % (
        a.label, count(merged, p + "requests"), count(one, p + "requests"),
        "%.3f" % ratio.get("requests", float("nan")), spread or "-",
        "%s / %s" % (count(merged, p + "connections"), count(one, p + "connections")),
        "%s / %s" % (count(merged, p + "scheduled"), count(one, p + "scheduled")) if a.rate else "-",
        "%d / %d" % (len(rps), len(one.get(p + "requests_per_second", {}).get("samples", []))))
    print(row)
    if a.table:
        with open(a.table, "a") as f:
            f.write(row + "\n")
    for e in errs:
        print("shardcompare: " + e, file=sys.stderr)
    return 1 if errs else 0


if __name__ == "__main__":
    sys.exit(main())
