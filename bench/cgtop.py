#!/usr/bin/env python3
"""Where the instructions per request go: the functions with the highest self
cost per request, as the difference between a long and a short callgrind run
of the same command (start-up, exit and the document's fixed part cancel out).

usage: cgtop.py SHORT.callgrind REQ_SHORT LONG.callgrind REQ_LONG [N]
Prints N (default 20) rows: instructions per request, share of the marginal
total, function (file) [object].
"""
import os
import re
import subprocess
import sys

LINE = re.compile(r"^\s*([\d,]+)\s+\(\s*[\d.]+%\)\s+(.+?)\s*$")


def self_costs(path):
    out = subprocess.run(["callgrind_annotate", "--auto=no", "--threshold=100", path],
                         capture_output=True, text=True, check=True).stdout
    costs = {}
    for line in out.splitlines():
        m = LINE.match(line)
        if not m or "PROGRAM TOTALS" in m.group(2):
            continue
        costs[m.group(2)] = costs.get(m.group(2), 0) + int(m.group(1).replace(",", ""))
    return costs


def pretty(name):
    obj = ""
    m = re.match(r"^(.*?)\s+\[(.+)\]$", name)
    if m:
        name, obj = m.group(1), os.path.basename(m.group(2))
    file, _, func = name.rpartition(":")
    file = os.path.basename(file) if file else "?"
    return f"{func} ({file})" + (f" [{obj}]" if obj else "")


def main():
    if len(sys.argv) < 5:
        print(__doc__, file=sys.stderr)
        return 2
    short, req_s, long_, req_l = sys.argv[1], int(sys.argv[2]), sys.argv[3], int(sys.argv[4])
    n = int(sys.argv[5]) if len(sys.argv) > 5 else 20
    if req_l <= req_s:
        print("cgtop: the long run completed no more requests than the short one", file=sys.stderr)
        return 1
    a, b = self_costs(short), self_costs(long_)
    per = {k: (b.get(k, 0) - a.get(k, 0)) / (req_l - req_s) for k in set(a) | set(b)}
    total = sum(per.values())
    print(f"  {'instr/req':>10} {'share':>6}  function (file) [object]    total {total:,.0f} instr/req")
    for k, v in sorted(per.items(), key=lambda kv: -kv[1])[:n]:
        print(f"  {v:>10,.1f} {100 * v / total if total else 0:>5.1f}%  {pretty(k)}")
    objects = {}
    for k, v in per.items():
        m = re.match(r"^.*\[(.+)\]$", k)
        obj = os.path.basename(m.group(1)) if m else "?"
        objects[obj] = objects.get(obj, 0) + v
    print("  by object: " + ", ".join(f"{o} {v:,.0f}" for o, v in sorted(objects.items(), key=lambda kv: -kv[1])
                                     if abs(v) >= max(total, 1) * 0.005))
    return 0


if __name__ == "__main__":
    sys.exit(main())
