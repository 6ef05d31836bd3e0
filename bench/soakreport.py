#!/usr/bin/env python3
"""One row of bench/soak's table: what a long run did to the generator,
from the samples soaksample.py took of it in /proc and from its document.

usage: soakreport.py NAME SAMPLES DOC LOG_RECORDS EXIT_STATUS WARMUP_S [--header]

RSS, descriptors and CPU per request (user + system CPU over requests
completed, per sampling interval) are each fitted by least squares against
the requests completed, over the samples from WARMUP_S on (before it: the
cohort's set-up and the sample reservoirs filling), and given as a slope
per million requests; RSS at the warm-up's end and at the last sample of
the load beside it (samples after the level ended are left out). The server's RSS (--watch, from the document) at the same moments. The
log's records against the document's attempts: a soak whose log lost
records says so.
"""
import json
import sys


def slope(xs, ys):
    """Least-squares slope of ys over xs; None with fewer than two points."""
    n = len(xs)
    if n < 2:
        return None
    mx, my = sum(xs) / n, sum(ys) / n
    sxx = sum((x - mx) ** 2 for x in xs)
    if sxx == 0:
        return None
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sxx


def fmt(v, spec):
    return "n/a" if v is None else format(v, spec)


COLUMNS = ("case", "requests", "exit", "RSS MiB at warm-up end -> end", "RSS KiB per M req",
           "fds then -> end", "fds per M req", "CPU us/req", "CPU us/req per M req",
           "server RSS MiB then -> end", "log records / attempts")


def main(argv):
    if "--header" in argv:
        print("| " + " | ".join(COLUMNS) + " |")
        print("|" + "---|" * len(COLUMNS))
        return 0
    name, samples, doc, records, status, warmup = argv[1:7]
    warmup = float(warmup)
    rows = [json.loads(line) for line in open(samples)]
    # A sample after the level ended is the document being written, not the
    # load: its connections are closed and nothing completed since the one
    # before (an hour's open loop sampled there read 61 MiB against 39 MiB a
    # minute earlier, the reservoirs turned into JSON). Such tail samples are
    # left out.
    steady_fds = sorted(r["fds"] for r in rows)[len(rows) // 2] if rows else 0
    while len(rows) > 1 and (rows[-1]["fds"] < steady_fds or rows[-1]["requests"] <= rows[-2]["requests"]):
        rows.pop()
    m = json.load(open(doc))["metrics"] if doc != "-" else {}
    level = [k[: -len("attempts")] for k in m if k.endswith(".attempts")]
    p = level[0] if level else ""
    attempts = m[p + "attempts"]["samples"][0] if p else None
    # the document's count is the whole run's; the samples' ends at the last one
    requests = m[p + "requests"]["samples"][0] if p else (rows[-1]["requests"] if rows else 0)
    late = [r for r in rows if r["t"] >= warmup]
    if not late:
        print("| %s | %s | %s | no sample after the warm-up (%s s) |" % (name, requests, status, warmup))
        return 0
    first, last = late[0], late[-1]
    xs = [r["requests"] / 1e6 for r in late]
    rss_slope = slope(xs, [r["rss_bytes"] / 1024 for r in late])
    fd_slope = slope(xs, [r["fds"] for r in late])
    # CPU per request of each interval, at the interval's end
    cx, cy = [], []
    for a, b in zip(rows, rows[1:]):
        if b["t"] >= warmup and b["requests"] > a["requests"]:
            cx.append(b["requests"] / 1e6)
            cy.append((b["cpu_s"] - a["cpu_s"]) / (b["requests"] - a["requests"]) * 1e6)
    cpu_mean = sum(cy) / len(cy) if cy else None
    cpu_slope = slope(cx, cy)
    server = "n/a"
    watch = [k for k in m if k.startswith(p + "watch.") and k.count(".") == 3 and k.endswith(".rss_bytes")]
    if watch:
        s = m[watch[0]]["samples"]
        i = min(len(s), max(1, int(first["t"]))) - 1
        server = "%.1f -> %.1f" % (s[i] / 2**20, s[-1] / 2**20)
    log = "%s / %s" % (records, attempts if attempts is not None else "n/a")
    print("| %s | %d | %s | %.1f -> %.1f | %s | %d -> %d | %s | %s | %s | %s | %s |" % (
        name, requests, status, first["rss_bytes"] / 2**20, last["rss_bytes"] / 2**20,
        fmt(rss_slope, "+.1f"), first["fds"], last["fds"], fmt(fd_slope, "+.2f"),
        fmt(cpu_mean, ".2f"), fmt(cpu_slope, "+.3f"), server, log))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
