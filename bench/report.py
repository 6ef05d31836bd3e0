#!/usr/bin/env python3
"""Tables and a collector document from the rows a bench/ script measured.

Reads rows "TOOL METRIC ROUND VALUE" (one measurement of one generator in one
round), prints a table of medians per tool and of per-round ratios of the
subject (httpload or dnsload) to each anchor (wrk, h2load, dnsperf), then the
targets with their verdicts, and writes the same figures as a collector
document ({"metrics": {KEY: {"unit": ..., "samples": [...]}}}, one sample per
round) that `loadstats compare` can track over time.

A ratio is the median over rounds of subject/anchor measured in the same round
(interleaved pairs), not a ratio of medians. Ratios below 1 are better for
costs (CPU, system calls, instructions, memory) and above 1 for throughput.

In the document every key is BENCH.TOOL.METRIC (absolute figures, in the unit
named) or BENCH.SUBJECT_over_ANCHOR.METRIC (unit "ratio"). loadstats compare
treats "higher is worse" for every unit but requests_per_second, so the
throughput ratio is stored inverted, as time_per_request
(anchor req/s / subject req/s): for every ratio key, lower is better.

With --base (bench/floor) the subject is the reference instead: every
ratio is ANCHOR/subject, each tool as a multiple of the floor, and the
document's ratio keys are BENCH.ANCHOR_over_SUBJECT.METRIC.

usage: report.py --rows FILE --bench NAME --subject TOOL --anchors A,B [--base]
                 [--title TEXT] [--note TEXT]... [--per request|query|client]
                 [--target SPEC]... [--doc FILE]
SPEC: METRIC<=X or METRIC>=X (the subject's median), METRIC/ANCHOR<=X (the
median ratio to ANCHOR, ANCHOR/subject with --base; ANCHOR * means every
anchor).
"""
import argparse
import json
import math
import statistics
import sys

# id: (label, document key, document unit, scale for the table, format, higher_is_better)
METRICS = {
    "rps": ("{pers}/s", "requests_per_second", "requests_per_second", 1, "{:,.0f}", True),
    "cpu": ("CPU µs/{per} (user+sys)", "cpu_s_per_request", "seconds", 1e6, "{:.2f}", False),
    "user": ("user CPU µs/{per}", "user_cpu_s_per_request", "seconds", 1e6, "{:.2f}", False),
    "sys": ("sys CPU µs/{per}", "sys_cpu_s_per_request", "seconds", 1e6, "{:.2f}", False),
    "syscalls": ("syscalls/{per}", "syscalls_per_request", "count", 1, "{:.2f}", False),
    "instr": ("instructions/{per}", "instructions_per_request", "count", 1, "{:,.0f}", False),
    "rss_client": ("RSS KiB/client", "rss_bytes_per_client", "bytes", 1 / 1024, "{:.2f}", False),
    "rss_small": ("peak RSS MiB, few clients", "rss_bytes_small", "bytes", 1 / 1048576, "{:.1f}", False),
    "rss_large": ("peak RSS MiB, many clients", "rss_bytes_large", "bytes", 1 / 1048576, "{:.1f}", False),
    "cpu_total": ("CPU s", "cpu_s", "seconds", 1, "{:.3f}", False),
    # bench/openloop: send lag over the requests whose client was idle when they
    # fell due, and over all requests (the document's send_lag_ms)
    "lag_p50": ("send lag p50 µs, requests of idle clients", "send_lag_idle_client_p50_ms", "milliseconds", 1e3, "{:.1f}", False),
    "lag_p99": ("send lag p99 µs, requests of idle clients", "send_lag_idle_client_p99_ms", "milliseconds", 1e3, "{:.1f}", False),
    "all_lag_p50": ("send lag p50 µs, all requests", "send_lag_all_p50_ms", "milliseconds", 1e3, "{:.1f}", False),
    "all_lag_p99": ("send lag p99 µs, all requests", "send_lag_all_p99_ms", "milliseconds", 1e3, "{:.1f}", False),
    "lat_p50": ("latency_warm p50 µs", "latency_warm_p50_ms", "milliseconds", 1e3, "{:.1f}", False),
    "lat_p99": ("latency_warm p99 µs", "latency_warm_p99_ms", "milliseconds", 1e3, "{:.1f}", False),
    "cpu_share": ("CPU % of the run", "cpu_share", "ratio", 100, "{:.1f}", False),
    # bench/openloop: each client's first request (cold: to its connection attempt)
    "first_lag_p50": ("send lag p50 µs, first requests", "send_lag_first_p50_ms", "milliseconds", 1e3, "{:.1f}", False),
    "first_lag_p99": ("send lag p99 µs, first requests", "send_lag_first_p99_ms", "milliseconds", 1e3, "{:.1f}", False),
}


def plural(word):
    return word[:-1] + "ies" if word.endswith("y") else word + "s"


def parse_rows(path):
    data = {}  # tool -> metric -> round -> value
    with open(path) as f:
        for line in f:
            parts = line.split()
            if len(parts) != 4:
                continue
            tool, metric, rnd, value = parts
            try:
                v = float(value)
            except ValueError:
                continue
            if not math.isfinite(v):
                continue
            data.setdefault(tool, {}).setdefault(metric, {})[rnd] = v
    return data


def ratios(data, subject, anchor, metric):
    """Per-round subject/anchor ratios, for rounds where both were measured."""
    s = data.get(subject, {}).get(metric, {})
    a = data.get(anchor, {}).get(metric, {})
    return [s[r] / a[r] for r in sorted(s, key=str) if r in a and a[r] != 0]


def spread(xs):
    return "" if len(xs) < 2 else f" ({min(xs):.2f}–{max(xs):.2f})"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rows", required=True)
    ap.add_argument("--bench", required=True)
    ap.add_argument("--subject", required=True)
    ap.add_argument("--anchors", required=True)
    ap.add_argument("--title", default="")
    ap.add_argument("--note", action="append", default=[])
    ap.add_argument("--per", default="request")
    ap.add_argument("--target", action="append", default=[])
    ap.add_argument("--base", action="store_true",
                    help="the subject is the reference: ratios are anchor/subject")
    ap.add_argument("--doc")
    ap.add_argument("--append", action="store_true",
                    help="add to the metrics of an existing --doc instead of replacing it")
    args = ap.parse_args()

    data = parse_rows(args.rows)
    subject = args.subject
    anchors = [a for a in args.anchors.split(",") if a]
    tools = [subject] + anchors

    def pair(a):
        """(numerator, denominator) of the ratio shown for anchor a."""
        return (a, subject) if args.base else (subject, a)

    def ratio_name(a):
        n, d = pair(a)
        return f"{n}/{d}"
    present = [m for m in METRICS if any(m in data.get(t, {}) for t in tools)]
    if not present:
        print(f"{args.bench}: nothing was measured", file=sys.stderr)
        return 1

    rounds = max((len(v) for t in data.values() for v in t.values()), default=0)
    if args.title:
        print(f"{args.title}   ({rounds} rounds; medians; ratios: median of per-round pairs, min–max)")
    for n in args.note:
        print(f"  {n}")

    label_w = max(len(METRICS[m][0].format(per=args.per, pers=plural(args.per))) for m in present) + 2
    # a space before every column: a figure wider than its column still stands apart
    head = f"{'':<{label_w}}" + "".join(f" {t:>11}" for t in tools)
    head += "".join(f" {ratio_name(a):>25}" for a in anchors)
    print(head)
    for m in present:
        label, _, _, scale, fmt, _ = METRICS[m]
        line = f"{label.format(per=args.per, pers=plural(args.per)):<{label_w}}"
        for t in tools:
            vals = list(data.get(t, {}).get(m, {}).values())
            line += f" {fmt.format(statistics.median(vals) * scale) if vals else '-':>11}"
        for a in anchors:
            rs = ratios(data, *pair(a), m)
            line += f" {(f'{statistics.median(rs):.2f}' + spread(rs)) if rs else '-':>25}"
        print(line)

    if args.target:
        print("targets (issue)                                     measured  verdict")
        for spec in args.target:
            op = "<=" if "<=" in spec else ">="
            lhs, rhs = spec.split(op)
            limit = float(rhs)
            metric, _, anchor = lhs.partition("/")
            label, _, _, scale, fmt, _ = METRICS[metric]
            label = label.format(per=args.per, pers=plural(args.per))
            checks = []
            if anchor:
                for a in (anchors if anchor == "*" else [anchor]):
                    rs = ratios(data, *pair(a), metric)
                    checks.append((f"{label} {ratio_name(a)} {op} {limit:g}",
                                   statistics.median(rs) if rs else None, "{:.2f}"))
            else:
                vals = list(data.get(subject, {}).get(metric, {}).values())
                checks.append((f"{label} {subject} {op} {fmt.format(limit * scale)}",
                               statistics.median(vals) if vals else None, fmt, scale))
            for c in checks:
                desc, value, vfmt = c[0], c[1], c[2]
                sc = c[3] if len(c) > 3 else 1
                if value is None:
                    print(f"  {desc:<50}{'-':>10}  not measured")
                    continue
                ok = value <= limit if op == "<=" else value >= limit
                print(f"  {desc:<50}{vfmt.format(value * sc):>10}  {'met' if ok else 'NOT MET'}")

    if args.doc:
        metrics = {}
        for t in tools:
            for m in present:
                vals = data.get(t, {}).get(m, {})
                if vals:
                    _, key, unit, _, _, _ = METRICS[m]
                    metrics[f"{args.bench}.{t}.{key}"] = {
                        "unit": unit, "samples": [vals[r] for r in sorted(vals, key=str)]}
        for a in anchors:
            for m in present:
                rs = ratios(data, *pair(a), m)
                if not rs:
                    continue
                key = METRICS[m][1]
                if METRICS[m][5]:  # throughput: stored inverted, lower is better
                    rs = [1 / r for r in rs]
                    key = "time_per_request"
                metrics[f"{args.bench}.{ratio_name(a).replace('/', '_over_')}.{key}"] = {"unit": "ratio", "samples": rs}
        if args.append:
            try:
                with open(args.doc) as f:
                    old = json.load(f)["metrics"]
                old.update(metrics)
                metrics = old
            except (OSError, ValueError, KeyError):
                pass
        with open(args.doc, "w") as f:
            json.dump({"metrics": metrics}, f, indent=None)
            f.write("\n")
        print(f"document: {args.doc}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
