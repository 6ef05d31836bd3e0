#!/usr/bin/env python3
"""Makes one shard of a sharded run out of the document and --meta descriptor
of an ordinary generator run, the way `--shard I/N` writes them: document keys
name each level's total clients (c<N*clients>), and the descriptor gains
run_id, shard, clock and per level shard_clients, start_lag_s and the true
count ("seen") of every metric --max-samples cut. The true counts come from the
document itself: requests = |latency_cold_ms| + |latency_warm_ms| = |ttfb_ms|
when nothing is cut, and cold latencies are never cut in these short runs.

usage: shardify.py RAW.json OUT.json INDEX COUNT [--run-id ID] [--unsynchronized]
                   [--lag SECONDS] [--no-seen] [--start-shift SECONDS]
(--start-shift: every level's requested start that many seconds later, as if
the shard had been given another --start-at)
Writes OUT.json and OUT.meta.json (RAW.meta.json must exist).
"""
import argparse
import json
import re


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("raw")
    ap.add_argument("out")
    ap.add_argument("index", type=int)
    ap.add_argument("count", type=int)
    ap.add_argument("--run-id", default="run-1")
    ap.add_argument("--unsynchronized", action="store_true")
    ap.add_argument("--lag", type=float, default=0.0001)
    ap.add_argument("--no-seen", action="store_true")
    ap.add_argument("--start-shift", type=int, default=0)
    a = ap.parse_args()

    metrics = json.load(open(a.raw))["metrics"]
    meta = json.load(open(re.sub(r"\.json$", "", a.raw) + ".meta.json"))
    key = re.compile(r"^c(\d+)\.(.*)$")

    def total(clients):
        return clients * a.count

    renamed = {}
    for k, v in metrics.items():
        m = key.match(k)
        renamed["c%d.%s" % (total(int(m.group(1))), m.group(2)) if m else k] = v
    with open(a.out, "w") as f:
        json.dump({"metrics": renamed}, f)

    def n(clients, metric):
        return len(metrics.get("c%d.%s" % (clients, metric), {"samples": []})["samples"])

    for level in meta["levels"]:
        c = level["clients"]
        requests = metrics["c%d.requests" % c]["samples"][0]
        truth = {"latency_warm_ms": requests - n(c, "latency_cold_ms"), "ttfb_ms": requests}
        level["clients"] = total(c)
        level["shard_clients"] = c
        level["start_lag_s"] = a.lag
        level["requested_start"] = "2026-12-01T10:00:%02d.000000000Z" % a.start_shift
        if a.no_seen:
            level.pop("seen", None)  # the generators write it; a test removes it
        else:
            level["seen"] = {s: truth[s] for s in level["sampled"]}
    meta.update({
        "run_id": a.run_id,
        "shard": {"index": a.index, "count": a.count},
        "host": "gen%d" % a.index,
        "clock": {"synchronized": not a.unsynchronized, "est_error_us": 120 if not a.unsynchronized else 250000,
                  "max_error_us": 5000},
        "start_at": "2026-12-01T10:00:00.000000000Z",
    })
    with open(re.sub(r"\.json$", "", a.out) + ".meta.json", "w") as f:
        json.dump(meta, f, indent=1)


main()
