#!/usr/bin/env python3
"""Where the CPU per request goes, by library: each tool's run sampled by
perf on its CPU clock (one sample per PERIOD_NS of CPU, every thread), its
samples per library turned into microseconds of CPU per request, side by side;
a tool given several runs gets the median of its runs, row by row.
A sample lands where the CPU was, so the instruction after a system call
takes some of the kernel's exit (libc's wrappers, libev's loop after its
epoll_wait): compare a library across tools, not alone.

usage: perfdso.py [--symbols N] PERIOD_NS TOOL DSO_FILE REQUESTS [TOOL DSO_FILE REQUESTS...]
(a TOOL named again is another run of it)
DSO_FILE: "SAMPLES LIBRARY" lines (perf report --sort dso -n).
--symbols N: the files hold "SAMPLES SYMBOL" lines instead (perf report
--sort sym -n of one library, the kernel's in bench/lib.sh), and the N symbols
whose CPU per request differs most between the first tool and the second are
printed, largest difference first: where a tool's extra time in that library
goes, at the same caveat.
"""
import sys


def group(library, tool):
    """The row a library's samples go to: the tool's own code, a few named
    libraries, and the rest."""
    name = library.rsplit("/", 1)[-1]
    if name == tool or name in ("floor", "httpload", "dnsload", "wrk", "h2load", "dnsperf"):
        return "own code"
    if name.startswith("[kernel"):
        return "kernel"
    if name == "[vdso]":
        return "vdso (clock reads)"
    for prefix, row in (("libc.so", "libc"), ("libev.so", "libev"), ("libnghttp2", "libnghttp2"),
                        ("libssl", "OpenSSL"), ("libcrypto", "OpenSSL")):
        if name.startswith(prefix):
            return row
    return "other"


def median(values):
    values = sorted(values)
    n = len(values)
    return values[n // 2] if n % 2 else (values[n // 2 - 1] + values[n // 2]) / 2


def main(argv):
    symbols = 0
    if len(argv) > 2 and argv[1] == "--symbols":
        symbols = int(argv[2])
        argv = argv[:1] + argv[3:]
    if len(argv) < 5 or (len(argv) - 2) % 3:
        sys.exit(__doc__)
    period_us = float(argv[1]) / 1000.0
    runs = {}  # tool: [(us per request by row, requests)], in the order given
    for i in range(2, len(argv), 3):
        tool, path, requests = argv[i], argv[i + 1], int(argv[i + 2])
        rows = {}
        for line in open(path):
            parts = line.split(None, 1)
            if len(parts) == 2 and parts[0].isdigit():
                key = parts[1].strip() if symbols else group(parts[1].strip(), tool)
                rows[key] = rows.get(key, 0) + int(parts[0])
        us = {k: v * period_us / requests for k, v in rows.items()}
        us["total"] = sum(us.values())
        runs.setdefault(tool, []).append((us, requests))
    if symbols:
        print_symbols(runs, symbols)
        return
    order = ["kernel", "libc", "vdso (clock reads)", "libev", "libnghttp2", "OpenSSL", "own code", "other"]
    present = [k for k in order if any(k in us for r in runs.values() for us, _ in r)]
    print("%-20s" % "us of CPU/request" + "".join("%12s" % t for t in runs))
    for key in present + ["total"]:
        print("%-20s" % key + "".join("%12.3f" % median([us.get(key, 0.0) for us, _ in r])
                                      for r in runs.values()))
    print("%-20s" % "runs" + "".join("%12d" % len(r) for r in runs.values()))


def print_symbols(runs, n):
    """The n symbols whose median CPU per request differs most between the
    first two tools, with both figures and the difference."""
    tools = list(runs)
    if len(tools) < 2:
        return
    a, b = tools[0], tools[1]
    keys = {k for t in (a, b) for us, _ in runs[t] for k in us if k != "total"}
    med = {t: {k: median([us.get(k, 0.0) for us, _ in runs[t]]) for k in keys} for t in (a, b)}
    rows = sorted(keys, key=lambda k: -abs(med[b][k] - med[a][k]))[:n]
    print("%-36s%12s%12s%12s" % ("us of CPU/request", a, b, "difference"))
    for k in rows:
        print("%-36s%12.3f%12.3f%+12.3f" % (k[:36], med[a][k], med[b][k], med[b][k] - med[a][k]))
    print("%-36s%12.3f%12.3f%+12.3f" % ("all the library's symbols", median([us["total"] for us, _ in runs[a]]),
                                        median([us["total"] for us, _ in runs[b]]),
                                        median([us["total"] for us, _ in runs[b]]) - median([us["total"] for us, _ in runs[a]])))


if __name__ == "__main__":
    main(sys.argv)
