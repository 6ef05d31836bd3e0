#!/usr/bin/env python3
"""Judges the runs of scripts/torture: whether each survived its injected
failure (one allocation, or one system call, failing).

usage: verdict.py engine RUNDIR...
       verdict.py loadstats --expect FILE --expect-status N RUNDIR...
       verdict.py preflight --expect-status N RUNDIR...

Each RUNDIR holds what one run left: `rc` (its exit status, or "timeout"
when its bound killed it), `out` and `err` (its stdout and stderr), `what`
(the injection, for messages) and `fired` when the injection happened (a
run may end before its Nth call). A run survived when it ended by itself
with a documented exit status and told the truth:
  engine (httpload, dnsload): status 0, 1 or 3 with one valid document that
    passes the integration tests' own checks (doccheck.invariants and
    doccheck.client_progress: attempts = requests + errors + unfinished,
    errors = the sum of errors.<class>, requests = cold + warm samples,
    scheduled = attempts + unsent, the clients' attempts add up to the
    level's; at status 0 or 1 every client made an attempt; status 0 also
    means no error and nothing unfinished);
    or status 4 with no document and one line on stderr saying why (after
    the notes about levels that had ended before: "TOOL: level cN ..." and
    "TOOL: --watch ...", which a run of several levels prints as it goes,
    and --io-uring's "TOOL: --io-uring: probe: ..." when the probe found
    the ring late, which a loaded machine can make it);
  loadstats: the clean run's status and exactly its output (--expect,
    --expect-status), or status 4 with no output and one line on stderr;
  preflight (--preflight): the clean run's status (0 fit, 6 unfit) with
    nothing on stdout and a verdict line on stderr, or status 4 with
    nothing on stdout and a last line saying why (after the checks' lines);
and in every case no report from a sanitizer, and no abort from libev. A
leak report whose stacks ASan cut short (OpenSSL is built without frame
pointers) makes it print "rerun: RUNDIR": the script runs it again into
RUNDIR/again with full stacks, and then only a leak that
tests/torture/lsan.supp names may remain (shown by LeakSanitizer's table of
the suppressions it used).
Prints one line per run that did not survive, then "RUNS REACHED
SURVIVED SURVIVED_REACHED" (runs, runs whose injection happened, runs that
survived, and of those whose injection happened); exit status 1 when any
run did not survive.
"""
import json
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "integration"))
import doccheck  # noqa: E402  (the contract's document checks)

ALARMS = ("Sanitizer", "runtime error:", "(libev)", "libev:")
SIDE_OUTPUT = re.compile(r"^[a-z]+: (--meta \S+: |--log \S+: .* records lost)")
DOC_FAILED = re.compile(r"^[a-z]+: writing the document to ")
LEVEL_NOTE = re.compile(r"^[a-z]+: (level c[0-9]+\b|--watch |--io-uring: probe: )")
PREFLIGHT_LINE = re.compile(r"^[a-z]+: preflight ")
PREFLIGHT_VERDICT = re.compile(r"^[a-z]+: preflight: (fit|unfit) ")


def read(path):
    try:
        with open(path, "rb") as f:
            return f.read().decode("utf-8", "replace")
    except FileNotFoundError:
        return None


def load_text(text):
    """One JSON document and nothing after it, as doccheck.load reads a file."""
    doc, end = json.JSONDecoder().raw_decode(text.lstrip())
    if text.lstrip()[end:].strip():
        raise ValueError("text after the document")
    return doc


def one_line(err):
    lines = [x for x in err.splitlines() if x.strip()]
    return len(lines) == 1


def one_reason(err):
    """The last line says why; every line before it is a level's note."""
    lines = [x for x in err.splitlines() if x.strip()]
    return bool(lines) and all(LEVEL_NOTE.match(x) for x in lines[:-1])


def counts_add_up(doc, rc):
    """doccheck's accounting identities and clients' progress, as the
    integration tests check them, for a run that ended with status rc; []
    when they hold. A level reported valid (status 0 or 1) has every client
    past its first attempt; status 0 also means nothing failed."""
    m = doc["metrics"]
    valid = rc in (0, 1)
    errs = doccheck.invariants(m, attempts_cover_clients=valid)
    errs += doccheck.client_progress(m, idle_ok=not valid)
    if rc == 0:
        v, _, _ = doccheck.counts(m)
        for c in doccheck.levels_of(m):
            p = "c%d." % c
            bad = v(p + "errors") + v(p + "unfinished") + v(p + "unsent")
            if bad > 0:
                errs.append("%s exit status 0 with %s errors, %s unfinished, %s unsent"
                            % (p, v(p + "errors"), v(p + "unfinished"), v(p + "unsent")))
    return errs


def side_output_failed(out, err):
    """Status 4 with a document on stdout: only when the document was
    written whole and an output beside it (--meta, --log) then could not be
    (doc/harness.md's exit statuses); stderr names that output."""
    lines = [x for x in err.splitlines() if x.strip()]
    if not lines or not SIDE_OUTPUT.match(lines[-1]):
        return "exit status 4 with a document on stdout, and stderr's last line names no --meta or --log failure"
    if any(DOC_FAILED.match(x) for x in lines):
        return "exit status 4 with a document on stdout that stderr says could not be written"
    try:
        doc = load_text(out)
    except Exception as e:  # noqa: BLE001 - any parse failure is the finding
        return "exit status 4 (%s) with a document on stdout cut short: %s" % (lines[-1], e)
    problems = doccheck.validate(doc) or counts_add_up(doc, 4)
    if problems:
        return "exit status 4 (%s), document: %s" % (lines[-1], "; ".join(problems[:3]))
    return None


def judge_engine(rc, out, err):
    if rc not in (0, 1, 3, 4):
        return "exit status %s is not a documented one (0, 1, 3, 4)" % rc
    if rc == 4:
        if out.strip():
            return side_output_failed(out, err)
        if not one_reason(err):
            return "exit status 4 without one line saying why on stderr (%d lines)" % len(err.splitlines())
        return None
    try:
        doc = load_text(out)
    except Exception as e:  # noqa: BLE001 - any parse failure is the finding
        return "exit status %s without a valid document: %s" % (rc, e)
    problems = doccheck.validate(doc) or counts_add_up(doc, rc)
    if problems:
        return "exit status %s, document: %s" % (rc, "; ".join(problems[:3]))
    return None


def judge_loadstats(rc, out, err, expect, expect_rc):
    if rc == expect_rc and rc != 4:
        if out != expect:
            return "exit status %d but the output differs from the clean run's" % rc
        return None
    if rc == 4:
        if out.strip():
            return "exit status 4 with output on stdout"
        if not one_line(err):
            return "exit status 4 with %d lines on stderr, not one" % len(err.splitlines())
        return None
    return "exit status %s, not the clean run's %s: memory running out is status 4" % (rc, expect_rc)


def judge_preflight(rc, out, err, expect_rc):
    lines = [x for x in err.splitlines() if x.strip()]
    if out.strip():
        return "exit status %s with output on stdout (--preflight writes to stderr)" % rc
    if rc == 4:
        if not lines or not all(PREFLIGHT_LINE.match(x) for x in lines[:-1]):
            return "exit status 4 without one last line saying why after the checks' lines"
        return None
    if rc != expect_rc:
        return "exit status %s, not the clean run's %s: memory running out is status 4" % (rc, expect_rc)
    if not lines or not PREFLIGHT_VERDICT.match(lines[-1]):
        return "exit status %s without the verdict line last on stderr" % rc
    return None


LEAK = "ERROR: LeakSanitizer: detected memory leaks"
LEAK_SUMMARY = re.compile(r"^SUMMARY: AddressSanitizer: [0-9]+ byte\(s\) leaked")
SUPPRESSED = "Suppressions used:"


def without_suppressions(err):
    """stderr without LeakSanitizer's table of the suppressions it used."""
    lines, kept, inside = err.splitlines(), [], False
    for i, line in enumerate(lines):
        if not inside and line.startswith("-----") and i + 1 < len(lines) and SUPPRESSED in lines[i + 1]:
            inside = True
            continue
        if inside:
            if line.startswith("-----"):
                inside = False
            continue
        kept.append(line)
    return "\n".join(kept) + ("\n" if kept else "")


def only_leaks(err):
    """A LeakSanitizer report, and no other sanitizer's."""
    alarms = [x for x in err.splitlines() if any(a in x for a in ALARMS)]
    return any(LEAK in x for x in alarms) and all(LEAK in x or LEAK_SUMMARY.match(x) for x in alarms)


# Libraries that do not survive their own allocations failing: a crash whose
# innermost frame is theirs is their defect, which no caller can avoid.
# Debian 12's libtasn1 (4.19), under GnuTLS's certificate parsing (the QUIC
# handshake's, even with --insecure): asn1_create_element and the DER decoder
# dereference the NULL of a calloc that failed.
CRASHING_LIBRARIES = ("libtasn1.so",)
CRASH_TOP = re.compile(r"^\s*#0 0x[0-9a-f]+ .*\((/[^)]*)\+0x[0-9a-f]+\)")


# GNU MP (under GnuTLS's nettle: the QUIC handshake's key exchange) has no
# failure return: its allocation functions may not return NULL, so its
# default ones print this and abort (SIGABRT, status 134) when memory runs
# out (GMP's manual, "Custom Allocation"). No caller can avoid it.
GMP_ABORT = "GNU MP: Cannot allocate memory"


def library_abort(rc_text, err):
    """GNU MP's own abort on its failed allocation, and nothing else wrong."""
    return rc_text == "134" and GMP_ABORT in err and not any(a in err for a in ALARMS)


# Reports a library makes of its own memory, each the report's kind and the
# functions its first stack must show. OpenSSL 3.0 (Debian 12's 3.0.x): when
# one of its allocations fails under X509_STORE_set_default_paths_ex's
# OSSL_STORE_LOADER_fetch, OPENSSL_cleanup at exit frees that loader twice
# (whole torture run, mitm allocation 11,307 of 16,979); we hold no loader.
LIBRARY_REPORTS = (("attempting double-free", ("OSSL_STORE_LOADER_free", "OPENSSL_cleanup")),)


# Functions of a library's own exit code: an allocation of theirs failing
# there (the injection's stack, which failalloc.c writes into `fired`) leaves
# what they were freeing unfreed, which LeakSanitizer then reports. OpenSSL
# 3.0's OPENSSL_cleanup (an atexit handler) allocates in
# CRYPTO_free_ex_data, and when that fails frees none of its default
# context's stores (whole torture run: doh's and mitm's last allocations,
# 16,964 and 16,989). Our code has ended by then.
LIBRARY_EXIT = ("OPENSSL_cleanup",)


def injected_in(d, functions):
    """Whether the failed allocation of the run in d was made under one of
    functions (its stack in d/fired)."""
    stack = read(os.path.join(d, "fired")) or ""
    return any("(%s+0x" % f in stack for f in functions)


def library_report(err):
    """A sanitizer's report of LIBRARY_REPORTS, the only one in err."""
    lines = err.splitlines()
    for i, line in enumerate(lines):
        for kind, functions in LIBRARY_REPORTS:
            if "ERROR: AddressSanitizer: " + kind in line:
                stack = []
                for frame in lines[i + 1:]:
                    if not frame.strip():
                        break
                    stack.append(frame)
                text = "\n".join(stack)
                return all((" in %s " % f) in text for f in functions) and err.count("ERROR: ") == 1
    return False


def library_crash(err):
    """A sanitizer's SEGV report whose innermost frame is in a library of
    CRASHING_LIBRARIES, and no other report."""
    lines = err.splitlines()
    for i, line in enumerate(lines):
        if "ERROR: AddressSanitizer: SEGV" in line:
            for frame in lines[i + 1:i + 6]:
                m = CRASH_TOP.match(frame)
                if m:
                    return any(lib in m.group(1) for lib in CRASHING_LIBRARIES)
            return False
    return False


def library_what(d):
    """Which library's own crash ended the run in d."""
    err = read(os.path.join(d, "err")) or ""
    if GMP_ABORT in err:
        return "GNU MP aborted"
    if library_report(err):
        return "OpenSSL freed its own memory twice"
    if injected_in(d, LIBRARY_EXIT):
        return "OpenSSL's exit cleanup leaked its stores"
    return "crashed inside " + "/".join(CRASHING_LIBRARIES)


def judge_run(d, kind, expect, expect_rc):
    """Why the run in d did not survive, None when it did, or "rerun" for a
    leak report whose stack ASan cut short (libraries built without frame
    pointers): the script runs it again with full stacks (d/again), where
    only a leak tests/torture/lsan.supp names (OpenSSL's own) may remain."""
    rc_text = (read(os.path.join(d, "rc")) or "").strip()
    out = read(os.path.join(d, "out")) or ""
    err = without_suppressions(read(os.path.join(d, "err")) or "")
    alarm = next((line for line in err.splitlines() if any(a in line for a in ALARMS)), None)
    if rc_text == "timeout":
        return "did not end within its bound (killed)"
    if alarm and only_leaks(err) and injected_in(d, LIBRARY_EXIT):
        return "library"
    if alarm and only_leaks(err):
        again = os.path.join(d, "again")
        if not os.path.isdir(again):
            return "rerun"
        why = judge_run(again, kind, expect, expect_rc)
        if why == "library":
            return why
        if why:
            return "leaked; run again with full stacks: " + why
        if SUPPRESSED not in (read(os.path.join(again, "err")) or ""):
            return "leaked, and did not leak when run again: a leak no suppression explains"
        return None  # OpenSSL's own leak, named in lsan.supp
    if alarm and (library_crash(err) or library_report(err)):
        return "library"
    if library_abort(rc_text, err):
        return "library"
    if alarm:
        return "stderr: " + alarm.strip()[:200]
    if not rc_text.isdigit():
        return "no exit status recorded"
    if kind == "engine":
        return judge_engine(int(rc_text), out, err)
    if kind == "preflight":
        return judge_preflight(int(rc_text), out, err, expect_rc)
    return judge_loadstats(int(rc_text), out, err, expect, expect_rc)


def main(argv):
    if len(argv) < 2 or argv[1] not in ("engine", "loadstats", "preflight"):
        print(__doc__, file=sys.stderr)
        return 2
    kind, args = argv[1], argv[2:]
    expect = expect_rc = None
    if kind == "loadstats":
        if len(args) < 4 or args[0] != "--expect" or args[2] != "--expect-status":
            print("verdict.py loadstats needs --expect FILE --expect-status N", file=sys.stderr)
            return 2
        expect, expect_rc = read(args[1]), int(args[3])
        args = args[4:]
    if kind == "preflight":
        if len(args) < 2 or args[0] != "--expect-status":
            print("verdict.py preflight needs --expect-status N", file=sys.stderr)
            return 2
        expect_rc = int(args[1])
        args = args[2:]
    ran = reached = survived = survived_reached = library = 0
    for d in args:
        ran += 1
        fired = os.path.exists(os.path.join(d, "fired"))
        reached += fired
        why = judge_run(d, kind, expect, expect_rc)
        if why == "library":
            what = (read(os.path.join(d, "what")) or d).strip()
            print("library defect: %s: %s on its own failed allocation" % (what, library_what(d)))
            library += 1
            reached -= fired
            continue
        if why == "rerun":
            print("rerun: %s" % d)
        elif why:
            what = (read(os.path.join(d, "what")) or d).strip()
            err = read(os.path.join(d, "err")) or ""
            first = next((x for x in err.splitlines() if x.strip()), "")
            print("not survived: %s: %s%s" % (what, why, (" | stderr: " + first[:160]) if first else ""))
        else:
            survived += 1
            survived_reached += fired
    # a run a library's own crash ended is neither survived nor failed: it
    # is left out of the counts, and named above
    ran -= library
    print("%d %d %d %d %d" % (ran, reached, survived, survived_reached, library))
    return 0 if survived == ran else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
