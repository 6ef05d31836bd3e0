#!/usr/bin/env python3
"""Checks the tools' per-level summary on stderr against the document the
same run wrote, line by line and figure by figure, for the integration tests.

usage: summarycheck.py DOC ERR TOOL [--udp] [--watch NAME ...]

For each level of DOC, ERR must hold:
  TOOL: level cN: R requests/s, B/s received; Q requests in S.SSs, E errors, U unfinished
with R = requests / ran_s to one decimal and B the bytes per second in binary
units ("5.7 MiB"); then the transport line, "  connections C established of A
attempted ..." or, with --udp, "  sockets C opened of A attempted, reopened
N, ..." (no "connections" at all), ending with the bytes received in binary
units; the table header with mean and stdev beside the percentiles; each
latency row with its n, and its mean, stdev, min and max within 0.001 ms of
the document's samples; and for each --watch NAME the line
  watch NAME: P% CPU, peak RSS X, peak PSS Y; Z requests per CPU second
with the figures loadstats summary takes from the same series. Exit 0 when
every line holds; otherwise one line per difference on stderr and exit 1.
"""
import json
import re
import statistics
import sys


def human(n):
    """lg_format_bytes: binary units, one decimal; whole bytes below 1 KiB."""
    units = ["B", "KiB", "MiB", "GiB", "TiB"]
    u = 0
    while n >= 1024 and u < 4:
        n /= 1024
        u += 1
    return "%.1f %s" % (n, units[u]) if u else "%.0f %s" % (n, units[u])


def main():
    args = sys.argv[1:]
    doc_path, err_path, tool = args[:3]
    udp = "--udp" in args
    watches = [args[i + 1] for i, a in enumerate(args) if a == "--watch"]
    metrics = json.load(open(doc_path))["metrics"]
    lines = open(err_path).read().splitlines()
    problems = []

    def m(level, name):
        return metrics.get("c%d.%s" % (level, name), {}).get("samples", [])

    def count(level, name):
        s = m(level, name)
        return s[0] if s else 0

    levels = sorted({int(k.split(".")[0][1:]) for k in metrics})
    for c in levels:
        head = [i for i, l in enumerate(lines) if re.match(r"%s: level c%d: [0-9]" % (tool, c), l)]
        if len(head) != 1:
            problems.append("level c%d: %d headlines" % (c, len(head)))
            continue
        i = head[0]
        secs = count(c, "ran_s") or 1e-9
        req, received = int(count(c, "requests")), count(c, "bytes_received")
        want = "%s: level c%d: %.1f requests/s, %s/s received; %d requests in %.2fs, %d errors, %d unfinished" % (
            tool, c, req / secs, human(received / secs), req, secs, count(c, "errors"), count(c, "unfinished"))
        if not lines[i].startswith(want):
            problems.append("headline: expected %r, got %r" % (want, lines[i]))
        conns, tried, again = count(c, "connections"), count(c, "connect_attempts"), count(c, "reconnects")
        line = lines[i + 1] if i + 1 < len(lines) else ""
        if udp:
            want = "  sockets %d opened of %d attempted, reopened %d, " % (conns, tried, again)
        else:
            want = "  connections %d established of %d attempted" % (conns, tried)
        if not line.startswith(want):
            problems.append("transport line: expected %r at its start, got %r" % (want, line))
        if not line.endswith(" %s received" % human(received)):
            problems.append("transport line: expected %r at its end, got %r" % (human(received) + " received", line))
        if m(c, "origin_switches") and ", origin switches %d, " % count(c, "origin_switches") not in line:
            problems.append("transport line: expected 'origin switches %d', got %r" % (count(c, "origin_switches"), line))
        if not m(c, "origin_switches") and "origin switches" in line:
            problems.append("transport line: origin switches without origin_switches: %r" % line)
        if udp and "connection" in line:
            problems.append("a UDP level's line speaks of connections: %r" % line)
        # the table and what follows, up to the next headline
        end = next((j for j in range(i + 1, len(lines)) if re.match(r"%s: " % tool, lines[j])), len(lines))
        block = lines[i + 1:end]
        header = [l for l in block if l.startswith("  ms ")]
        if not header or header[0].split() != ["ms", "n", "mean", "stdev", "min", "p50", "p90", "p99", "p99.9", "max"]:
            problems.append("level c%d: table header %r" % (c, header))
        for row in block:
            f = row.split()
            if not f or not f[0].endswith("_ms") or len(f) != 10:
                continue
            s = m(c, f[0])
            if int(f[1]) != len(s):
                problems.append("%s: n %s, the document has %d" % (f[0], f[1], len(s)))
                continue
            exp = [statistics.fmean(s), statistics.pstdev(s), min(s), max(s)]
            got = [float(f[2]), float(f[3]), float(f[4]), float(f[9])]
            for what, e, g in zip(("mean", "stdev", "min", "max"), exp, got):
                if abs(e - g) > 0.0015:
                    problems.append("%s %s: %.3f, the document gives %.4f" % (f[0], what, g, e))
        for name in watches:
            cpu = m(c, "watch.%s.cpu_s" % name)
            cores = sum(cpu) / len(cpu)
            want = "  watch %s: %.0f%% CPU, peak RSS %s" % (name, cores * 100, human(max(m(c, "watch.%s.rss_bytes" % name))))
            pss = m(c, "watch.%s.pss_bytes" % name)
            if pss:
                want += ", peak PSS %s" % human(max(pss))
            rps = m(c, "requests_per_second")
            if cores > 0 and rps:
                want += "; %.0f requests per CPU second" % ((sum(rps) / len(rps)) / cores)
            if want not in block:
                problems.append("level c%d: no line %r in %r" % (c, want, [l for l in block if "watch" in l]))
    for p in problems:
        print("summarycheck: " + p, file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
