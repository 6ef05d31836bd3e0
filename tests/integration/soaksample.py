#!/usr/bin/env python3
"""Samples a running generator's resident memory and open descriptors from
/proc (never from the tool itself) as its completed requests pass given
counts, for tests/integration/t_soak.sh and bench/soak.

usage: soaksample.py PID ERRFILE COUNT... [--stop] [--bound SECONDS]

The count of completed requests comes from the tool's --progress line on
ERRFILE (its stderr): one a second, the requests completed in that second;
their sum is the count. Right after each line the sampler reads
/proc/PID/status (VmRSS) and /proc/PID/fd. For each COUNT it prints one JSON
line: {"count": COUNT, "requests": the count when sampled, "rss_bytes": ...,
"fds": ..., "cpu_s": the process's user + system CPU}. --stop sends SIGINT
once the last COUNT is passed. Exit 1 when the process ended, or --bound
seconds (default 300) passed, before the last COUNT.
"""
import json
import os
import re
import signal
import sys
import time

PROGRESS = re.compile(rb"(\d+) req/s")


def proc_sample(pid):
    rss = None
    with open("/proc/%d/status" % pid, "rb") as f:
        for line in f:
            if line.startswith(b"VmRSS:"):
                rss = int(line.split()[1]) * 1024
    fds = len(os.listdir("/proc/%d/fd" % pid))
    with open("/proc/%d/stat" % pid, "rb") as f:
        stat = f.read()
    fields = stat[stat.rindex(b")") + 2:].split()
    ticks = os.sysconf("SC_CLK_TCK")
    cpu = (int(fields[11]) + int(fields[12])) / ticks  # utime, stime
    return rss, fds, cpu


def main(argv):
    args = [a for a in argv[1:] if not a.startswith("--")]
    stop = "--stop" in argv
    bound = float(argv[argv.index("--bound") + 1]) if "--bound" in argv else 300.0
    if "--bound" in argv:
        args.remove(argv[argv.index("--bound") + 1])
    pid, errfile, counts = int(args[0]), args[1], sorted(int(c) for c in args[2:])
    deadline = time.monotonic() + bound
    seen = 0
    total = 0
    while counts and time.monotonic() < deadline:
        try:
            data = open(errfile, "rb").read()
        except FileNotFoundError:
            data = b""
        lines = data.split(b"\r")
        # the last piece may be a line still being written
        complete = lines[:-1]
        new = complete[seen:]
        seen = len(complete)
        for line in new:
            m = PROGRESS.search(line)
            if m:
                total += int(m.group(1))
        if new and total >= counts[0]:
            try:
                rss, fds, cpu = proc_sample(pid)
            except OSError:
                break
            while counts and total >= counts[0]:
                print(json.dumps({"count": counts[0], "requests": total, "rss_bytes": rss,
                                  "fds": fds, "cpu_s": cpu}), flush=True)
                counts.pop(0)
        try:
            os.kill(pid, 0)
        except OSError:
            break
        time.sleep(0.02)
    if stop:
        try:
            os.kill(pid, signal.SIGINT)
        except OSError:
            pass
    if counts:
        print("soaksample: the run reached %d requests, not %d" % (total, counts[0]), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
