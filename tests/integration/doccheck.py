#!/usr/bin/env python3
"""Checks a collector document against the contract of shared/DESIGN.md and
evaluates assertions over it, for the integration tests.

usage: doccheck.py FILE [--idle-clients-ok] [--invariants] [EXPR ...]

The document must be exactly one JSON object with the single key "metrics", a
non-empty map of metrics, each with a known unit and a non-empty list of finite
numbers. Every level that carries client_attempts (one sample per client) must
show every client making progress: each client made at least one attempt
(unless --idle-clients-ok: the test expects an invalid level), and the
clients' attempts add up to the level's attempts. Such a level (a generator's,
or a merge of them) also says how long it ran (ran_s, one sample >= 0), and
its requests_per_second and errors_per_second hold one sample per whole second
of that time (one when it ran less than a second, none when it did not run):
an interrupted level's series end with the last whole second it ran.
--invariants checks, for every level, the accounting identities:
attempts = requests + errors + unfinished, errors = sum of errors.<class>,
scheduled = attempts + unsent (open loop),
requests = cold + warm latency samples (when nothing was sampled away).
Each EXPR is a Python expression over helpers: v(key) the single value of a
count (0 when absent), n(key) the number of samples (0 when absent),
s(key) the samples, has(key), levels() the client counts. Exit 0 when every
check holds; otherwise one line per failure on stderr and exit 1.
The torture's verdict (tests/torture/verdict.py) judges documents with the
same functions (validate, invariants, client_progress): one checker.
"""
import json
import math
import sys

UNITS = {"milliseconds", "seconds", "bytes", "count", "requests_per_second", "ratio"}


def fail(msg):
    print("doccheck: " + msg, file=sys.stderr)
    return 1


def load(path):
    with open(path, "rb") as f:
        text = f.read().decode("utf-8")
    dec = json.JSONDecoder()
    doc, end = dec.raw_decode(text.lstrip())
    rest = text.lstrip()[end:]
    if rest.strip():
        raise ValueError("text after the document: %r" % rest[:40])
    return doc


def validate(doc):
    errs = []
    if not isinstance(doc, dict) or set(doc) != {"metrics"}:
        return ["top level must be exactly {\"metrics\": ...}, got keys %s" % list(doc)]
    m = doc["metrics"]
    if not isinstance(m, dict) or not m:
        return ["metrics must be a non-empty object"]
    for k, v in m.items():
        if not isinstance(v, dict) or set(v) != {"unit", "samples"}:
            errs.append("%s: must have exactly unit and samples" % k)
            continue
        if v["unit"] not in UNITS:
            errs.append("%s: unknown unit %r" % (k, v["unit"]))
        s = v["samples"]
        if not isinstance(s, list) or not s:
            errs.append("%s: samples must be a non-empty list" % k)
            continue
        for x in s:
            if isinstance(x, bool) or not isinstance(x, (int, float)) or not math.isfinite(x):
                errs.append("%s: sample %r is not a finite number" % (k, x))
                break
        if not k.startswith("c") or "." not in k or not k[1:k.index(".")].isdigit():
            errs.append("%s: key does not start with c<clients>." % k)
    return errs



def counts(m):
    """v(key), n(key), s(key) over a document's metrics, as EXPRs see them."""

    def s(k):
        return m[k]["samples"] if k in m else []

    def n(k):
        return len(s(k))

    def v(k):
        x = s(k)
        return x[0] if len(x) == 1 else (0 if not x else sum(x))

    return v, n, s


def levels_of(m):
    return sorted({int(k[1:k.index(".")]) for k in m})


def client_progress(m, idle_ok=False):
    """Every level carrying client_attempts shows each client's progress:
    the clients' attempts add up to the level's, there are no more of them
    than clients, and (unless idle_ok) each made an attempt; the level says
    how long it ran (ran_s) and its per-second series hold one sample per
    whole second of that. [] when so."""
    v, n, s = counts(m)
    errs = []
    for c in levels_of(m):
        p = "c%d." % c
        per = s(p + "client_attempts")
        if not per:
            continue
        if sum(per) != v(p + "attempts"):
            errs.append("%s client_attempts add up to %s, attempts is %s" % (p, sum(per), v(p + "attempts")))
        idle = sum(1 for x in per if x < 1)
        if idle and not idle_ok:
            errs.append("%s %d of %d clients made no attempt (client_attempts min %s, max %s)"
                        % (p, idle, len(per), min(per), max(per)))
        if len(per) > c:
            errs.append("%s client_attempts has %d samples for %d clients" % (p, len(per), c))
        ran = s(p + "ran_s")
        if len(ran) != 1 or ran[0] < 0 or m[p + "ran_s"]["unit"] != "seconds":
            errs.append("%s ran_s must be one sample >= 0 in seconds, got %s" % (p, ran))
            continue
        whole = max(1, math.floor(ran[0])) if ran[0] > 0 else 0
        for series in ("requests_per_second", "errors_per_second"):
            if n(p + series) != whole:
                errs.append("%s%s has %d samples for a level that ran %s s (%d whole seconds)"
                            % (p, series, n(p + series), ran[0], whole))
    return errs


def invariants(m, attempts_cover_clients=True):
    """The accounting identities of every level: attempts = requests + errors
    + unfinished, errors = the sum of errors.<class>, requests = cold + warm
    samples (when nothing was sampled away), scheduled = attempts + unsent;
    and (attempts_cover_clients, a level reported valid) at least one
    attempt per client. [] when they hold."""
    v, n, _ = counts(m)
    errs = []
    for c in levels_of(m):
        p = "c%d." % c
        if p + "attempts" not in m:
            errs.append("%s: no attempts count" % p)
            continue
        att, req, err, unf = v(p + "attempts"), v(p + "requests"), v(p + "errors"), v(p + "unfinished")
        if att != req + err + unf:
            errs.append("%s attempts %s != requests %s + errors %s + unfinished %s" % (p, att, req, err, unf))
        classes = sum(v(k) for k in m if k.startswith(p + "errors."))
        if classes != err:
            errs.append("%s errors %s != sum of errors.<class> %s" % (p, err, classes))
        lat = n(p + "latency_cold_ms") + n(p + "latency_warm_ms")
        if req <= 1000000 and lat != req:
            errs.append("%s requests %s != cold + warm samples %s" % (p, req, lat))
        if p + "scheduled" in m and v(p + "scheduled") != att + v(p + "unsent"):
            errs.append("%s scheduled %s != attempts %s + unsent %s" % (p, v(p + "scheduled"), att, v(p + "unsent")))
        if attempts_cover_clients and att < c:
            errs.append("%s attempts %s < clients %s" % (p, att, c))
    return errs

def main(argv):
    if len(argv) < 2:
        return fail("usage: doccheck.py FILE [--invariants] [EXPR ...]")
    try:
        doc = load(argv[1])
    except Exception as e:  # noqa: BLE001 - any parse failure is a test failure
        return fail("%s: not a valid document: %s" % (argv[1], e))
    errs = validate(doc)
    m = doc.get("metrics", {}) if isinstance(doc, dict) else {}
    v, n, s = counts(m)

    def has(k):
        return k in m

    def levels():
        return levels_of(m)

    if not errs:
        errs += client_progress(m, idle_ok="--idle-clients-ok" in argv[2:])
    env = {"s": s, "n": n, "v": v, "has": has, "levels": levels, "m": m}
    for arg in argv[2:]:
        if arg == "--idle-clients-ok":
            continue
        if arg == "--invariants":
            if not validate(doc):
                errs += invariants(m)
            continue
        try:
            ok = eval(arg, env)  # noqa: S307 - test expressions written by us
        except Exception as e:  # noqa: BLE001
            errs.append("%s: %s" % (arg, e))
            continue
        if not ok:
            errs.append("failed: %s" % arg)
    for e in errs:
        fail(e)
    return 1 if errs else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
