#!/usr/bin/env python3
"""The commands of README.md and doc/*.md that say they run, and the links
between the pages; for t_readme.sh.

A block runs when the line before its ```sh fence is `<!-- runnable -->`, or
`<!-- runnable: exit 0 6 -->` for a block whose last command may also end
with one of the statuses named (a preflight that finds the machine unfit, a
comparison that finds a regression). The blocks are written for the servers
of scripts/serve with its defaults: ports 18000 + an offset (127.0.0.1:18080,
-p 18053) and its files under /tmp/loadgen-serve.

  runnable.py blocks OUTDIR PORT_BASE SERVE_DIR FILE...
      writes each block as OUTDIR/NNN.sh, its ports moved to PORT_BASE and
      /tmp/loadgen-serve to SERVE_DIR, and prints one line per block:
      FILE<TAB>LINE<TAB>STATUSES<TAB>SCRIPT (LINE: the fence's)
  runnable.py links FILE...
      prints one line per relative link (to a file, or to a file's heading)
      that does not resolve ("FILE:LINE: LINK: no such file: PATH", or
      "...: no heading 'ANCHOR' in PATH"); exit status 1 when there is one
"""
import os
import re
import sys

MARK = re.compile(r"^<!-- runnable(?::\s*exit((?:\s+\d+)+))?\s*-->\s*$")
FENCE = re.compile(r"^```sh\s*$")
SERVE_DIR = "/tmp/loadgen-serve"
# a port of scripts/serve: 18NNN after "127.0.0.1:", "localhost:", "-p " or "--port"
PORT = re.compile(r"(127\.0\.0\.1:|localhost:|-p |--port[ =])18(\d\d\d)\b")


def blocks(path):
    lines = open(path, encoding="utf-8").read().split("\n")
    i = 0
    while i < len(lines):
        m = MARK.match(lines[i])
        if m:
            if i + 1 >= len(lines) or not FENCE.match(lines[i + 1]):
                raise SystemExit(f"{path}:{i + 1}: a runnable mark must stand right before a ```sh fence")
            start = i + 2
            end = start
            while end < len(lines) and not lines[end].startswith("```"):
                end += 1
            if end == len(lines):
                raise SystemExit(f"{path}:{i + 2}: the block has no closing fence")
            statuses = {0}
            if m.group(1):
                statuses |= {int(s) for s in m.group(1).split()}
            yield i + 2, sorted(statuses), "\n".join(lines[start:end]) + "\n"
            i = end
        i += 1


def cmd_blocks(outdir, base, serve_dir, files):
    base = int(base)
    n = 0
    for path in files:
        for line, statuses, code in blocks(path):
            n += 1
            code = PORT.sub(lambda m: m.group(1) + str(base + int(m.group(2))), code)
            code = code.replace(SERVE_DIR, serve_dir)
            script = os.path.join(outdir, f"{n:03d}.sh")
            with open(script, "w", encoding="utf-8") as f:
                f.write(code)
            print(f"{path}\t{line}\t{','.join(map(str, statuses))}\t{script}")


def slug(heading):
    """GitHub's anchor for a heading: lower case, punctuation but - and _
    dropped, spaces to -."""
    h = re.sub(r"`", "", heading.strip().lower())
    h = re.sub(r"[^\w\- ]", "", h)
    return h.replace(" ", "-")


def anchors(path):
    out, fenced = set(), False
    for line in open(path, encoding="utf-8"):
        if line.startswith("```"):
            fenced = not fenced
        elif not fenced and line.startswith("#"):
            out.add(slug(line.lstrip("#")))
    return out


def cmd_links(files):
    bad = 0
    link = re.compile(r"\]\(([^)\s]+)\)")
    for path in files:
        fenced = False
        for no, line in enumerate(open(path, encoding="utf-8"), 1):
            if line.startswith("```"):
                fenced = not fenced
            if fenced:
                continue
            for target in link.findall(line):
                if re.match(r"[a-z]+:", target):
                    continue  # http:, https:, mailto:
                file, _, anchor = target.partition("#")
                dest = os.path.normpath(os.path.join(os.path.dirname(path), file)) if file else path
                if not os.path.exists(dest):
                    print(f"{path}:{no}: {target}: no such file: {dest}")
                    bad += 1
                elif anchor and dest.endswith(".md") and anchor not in anchors(dest):
                    print(f"{path}:{no}: {target}: no heading '{anchor}' in {dest}")
                    bad += 1
    return 1 if bad else 0


if __name__ == "__main__":
    if len(sys.argv) >= 5 and sys.argv[1] == "blocks":
        cmd_blocks(sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5:])
    elif len(sys.argv) >= 2 and sys.argv[1] == "links":
        sys.exit(cmd_links(sys.argv[2:]))
    else:
        sys.exit(__doc__)
