#!/usr/bin/env python3
"""The table of metric kinds (stats/read/metrickinds.def) for the tests' checkers:
the same rows loadstats and the generators use, read from the same file, so
that a checker decides what a metric is exactly as merge and export do.

As a module:   import metrickinds; metrickinds.kind("c64.requests", "count")
As a command:  metrickinds.py covers DOC...   every key of these generator
               documents has a row of its own (not a catch-all row for other
               collectors), in the unit the document uses; exit 1 otherwise.
"""
import fnmatch
import json
import os
import re
import sys

DEF = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "stats",
                   "read", "metrickinds.def")
ROW = re.compile(r'^METRIC\("([^"]*)", "([^"]*)", (\w+), (\w+), (\w+), (\w+)\)$')
PART = re.compile(r"^(?:(?:shard|input)\d+\.)+(?=.)")
LEVEL = re.compile(r"^c(\d+)\.(.+)$")


def _rows():
    rows = []
    with open(DEF) as f:
        for line in f:
            m = ROW.match(line.strip())
            if m:
                pattern, unit, kind, worse, presence, tally = m.groups()
                rows.append({"pattern": pattern, "unit": unit, "kind": kind.lower(),
                             "worse": worse.lower(), "always": presence == "ALWAYS",
                             "part": tally == "PART"})
    if not rows or rows[-1]["pattern"] != "*" or rows[-1]["unit"] != "*":
        raise SystemExit("metrickinds.py: %s has no rows, or does not end in the catch-all" % DEF)
    return rows


ROWS = _rows()


def metric(key):
    """The metric of a key: past its level (c64.) and the shard<K>./input<K>.
    a merge gives gauges kept apart."""
    m = LEVEL.match(key)
    name = m.group(2) if m else key
    return PART.sub("", name)


def _matches(pattern, name):
    # '*' matches any run of characters, dots included; no other wildcard
    return fnmatch.fnmatchcase(name, pattern.replace("[", "[[]").replace("?", "[?]"))


def row(key, unit):
    """The table's row for a key in its document unit (first match wins)."""
    name = metric(key)
    for r in ROWS:
        if r["unit"] in ("*", unit) and _matches(r["pattern"], name):
            return r
    return ROWS[-1]


def kind(key, unit):
    """'count', 'samples', 'timeline', 'gauge' or 'span'."""
    return row(key, unit)["kind"]


def is_catch_all(r):
    return r["pattern"] == "*"


def covers(paths):
    bad = []
    for path in paths:
        for key, value in json.load(open(path))["metrics"].items():
            r = row(key, value["unit"])
            if is_catch_all(r):
                bad.append("%s: %s (%s) has no row of its own in stats/read/metrickinds.def"
                           % (path, key, value["unit"]))
            elif r["unit"] != "*" and r["unit"] != value["unit"]:
                bad.append("%s: %s is in %s, the table says %s" % (path, key, value["unit"], r["unit"]))
    for line in bad:
        print("ASSERTION: " + line)
    return not bad


if __name__ == "__main__":
    if len(sys.argv) < 3 or sys.argv[1] != "covers":
        raise SystemExit(__doc__)
    sys.exit(0 if covers(sys.argv[2:]) else 1)
