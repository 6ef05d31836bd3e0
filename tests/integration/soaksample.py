#!/usr/bin/env python3
"""Samples a running generator's resident memory and open descriptors from
/proc (never from the tool itself) as its completed requests pass given
counts, for tests/integration/t_soak.sh and bench/soak.

usage: soaksample.py PID ERRFILE COUNT... [--stop] [--bound SECONDS]
       soaksample.py PID ERRFILE --every SECONDS [--bound SECONDS]

The count of completed requests comes from the tool's --progress line on
ERRFILE (its stderr): one a second, the requests completed in that second;
their sum is the count. Right after each line the sampler reads
/proc/PID/status (VmRSS), /proc/PID/fd and /proc/PID/stat. For each COUNT
it prints one JSON line: {"count": COUNT, "requests": the count when
sampled, "rss_bytes": ..., "fds": ..., "cpu_s": the process's user + system
CPU, "t": seconds since the sampler began}. --stop sends SIGINT once the
last COUNT is passed. Exit 1 when the process ended, or --bound seconds
(default 300) passed, before the last COUNT. With --every, one such line
(without "count") after the first progress line past each multiple of
SECONDS, until the process ends or --bound passes (then it is sent SIGINT).
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


class Progress:
    """The requests the tool has completed, summed from its progress lines."""

    def __init__(self, path):
        self.path, self.offset, self.rest, self.total = path, 0, b"", 0

    def read(self):
        """True when new lines came."""
        try:
            with open(self.path, "rb") as f:
                f.seek(self.offset)
                data = f.read()
        except FileNotFoundError:
            return False
        self.offset += len(data)
        lines = (self.rest + data).split(b"\r")
        self.rest = lines.pop()  # the last piece may be a line still being written
        for line in lines:
            m = PROGRESS.search(line)
            if m:
                self.total += int(m.group(1))
        return bool(lines)


def alive(pid):
    try:
        os.kill(pid, 0)
    except OSError:
        return False
    # a zombie has ended: its /proc/PID/stat says Z
    try:
        with open("/proc/%d/stat" % pid, "rb") as f:
            stat = f.read()
        return stat[stat.rindex(b")") + 2:stat.rindex(b")") + 3] not in (b"Z", b"X")
    except OSError:
        return False


def main(argv):
    args = [a for a in argv[1:] if not a.startswith("--")]
    stop = "--stop" in argv
    for opt in ("--bound", "--every"):
        if opt in argv:
            args.remove(argv[argv.index(opt) + 1])
    bound = float(argv[argv.index("--bound") + 1]) if "--bound" in argv else 300.0
    every = float(argv[argv.index("--every") + 1]) if "--every" in argv else None
    pid, progress = int(args[0]), Progress(args[1])
    counts = sorted(int(c) for c in args[2:])
    start = time.monotonic()
    deadline = start + bound
    due = every
    while (counts or every) and time.monotonic() < deadline:
        new = progress.read()
        total, now = progress.total, time.monotonic() - start
        if new and ((counts and total >= counts[0]) or (every and now >= due)):
            try:
                rss, fds, cpu = proc_sample(pid)
            except OSError:
                break
            row = {"requests": total, "rss_bytes": rss, "fds": fds, "cpu_s": cpu, "t": round(now, 3)}
            while counts and total >= counts[0]:
                print(json.dumps(dict(row, count=counts.pop(0))), flush=True)
            if every and now >= due:
                print(json.dumps(row), flush=True)
                while due <= now:
                    due += every
        if not alive(pid):
            break
        time.sleep(0.02)
    if every and alive(pid):
        stop = True  # the bound passed
    if stop:
        try:
            os.kill(pid, signal.SIGINT)
        except OSError:
            pass
    if counts:
        print("soaksample: the run reached %d requests, not %d" % (progress.total, counts[0]),
              file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
