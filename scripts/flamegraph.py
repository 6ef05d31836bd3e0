#!/usr/bin/env python3
"""Flame graphs from perf, without the FlameGraph scripts (Debian 12 has no
package of them): Python standard library only.

  flamegraph.py collapse [PERF_SCRIPT_OUTPUT]      > stacks.folded
  flamegraph.py svg [--title T] [--width W] [STACKS.folded] > graph.svg
  perf script -i perf.data | flamegraph.py collapse | flamegraph.py svg > graph.svg

collapse reads `perf script` output (a header line per sample, then its stack
from leaf to root, one frame per line, a blank line after) and writes one line
per distinct stack, root first, frames joined by ';', then the number of
samples: the "folded" format of Brendan Gregg's stackcollapse-perf.pl. The
command name is the root frame; offsets (+0x...) are dropped; a frame without
a symbol is named after its object, as [libfoo.so].

svg draws the folded stacks as a flame graph: the root at the bottom, every
frame as wide as the samples it (and what it called) was on the CPU for,
children sorted by name, so the x axis is not time. Hovering a frame shows its
name, samples and share; clicking zooms to it (clicking the root resets).
"""
import argparse
import hashlib
import html
import os
import re
import sys

FRAME = re.compile(r"^\s*([0-9a-fA-F]+)\s+(.+?)\s+\((.*)\)\s*$")


def collapse(lines):
    stacks = {}
    comm = None
    frames = []

    def flush():
        if comm is not None and frames:
            key = ";".join([comm] + frames[::-1])
            stacks[key] = stacks.get(key, 0) + 1

    for line in lines:
        line = line.rstrip("\n")
        if not line.strip():
            flush()
            comm, frames = None, []
            continue
        if not line[0].isspace():
            flush()
            frames = []
            # "comm pid[/tid] [cpu] time: period event:" (comm may hold spaces)
            m = re.match(r"^(.*?)\s+\d+(?:/\d+)?\s+(?:\[\d+\]\s+)?[\d.]+:", line)
            comm = (m.group(1) if m else line.split()[0]).replace(";", ":").replace(" ", "_")
            continue
        m = FRAME.match(line)
        if not m:
            continue
        sym, dso = m.group(2), m.group(3)
        sym = re.sub(r"\+0x[0-9a-fA-F]+$", "", sym)
        if sym in ("[unknown]", "") or sym.startswith("0x"):
            base = os.path.basename(dso.strip("[]")) if dso else ""
            sym = f"[{base or 'unknown'}]"
        frames.append(sym.replace(";", ":"))
    flush()
    return stacks


class Node:
    __slots__ = ("name", "value", "children")

    def __init__(self, name):
        self.name, self.value, self.children = name, 0, {}


def build(folded_lines):
    root = Node("all")
    for line in folded_lines:
        line = line.strip()
        if not line:
            continue
        stack, _, count = line.rpartition(" ")
        try:
            n = int(count)
        except ValueError:
            continue
        root.value += n
        node = root
        for f in stack.split(";"):
            node = node.children.setdefault(f, Node(f))
            node.value += n
    return root


def color(name):
    """Warm colours, stable per name; the kernel in orange, libraries paler."""
    h = int(hashlib.md5(name.encode()).hexdigest()[:8], 16)
    r, g, b = 205 + h % 50, 60 + (h >> 8) % 130, 40 + (h >> 16) % 40
    if name.startswith("[") and name.endswith("]"):
        g = min(255, g + 60)
        b = min(255, b + 60)
    elif re.match(r"^(entry_|do_syscall|__x64_sys|__sys_|tcp_|ip_|sock_|__sock|sys_|__do_sys|ep_|__softirq|net_rx)", name):
        r, g, b = 230, 140 + h % 40, 30
    return f"rgb({r},{g},{b})"


def svg(root, title, width):
    fh, pad_top, pad_bottom, side = 16, 44, 24, 10
    depth = 0

    def measure(node, d):
        nonlocal depth
        depth = max(depth, d)
        for c in node.children.values():
            measure(c, d + 1)

    measure(root, 0)
    height = pad_top + (depth + 1) * fh + pad_bottom
    total = max(root.value, 1)
    scale = (width - 2 * side) / total
    min_w = 0.3
    out = [
        '<?xml version="1.0" standalone="no"?>',
        f'<svg version="1.1" width="{width}" height="{height}" viewBox="0 0 {width} {height}" '
        'xmlns="http://www.w3.org/2000/svg" onload="init(evt)">',
        "<style>text { font-family: Verdana, sans-serif; font-size: 12px; fill: #000; } "
        ".f:hover rect { stroke: #000; stroke-width: 0.5; cursor: pointer; } "
        "#title { font-size: 17px; } #details { font-size: 12px; }</style>",
        f'<rect x="0" y="0" width="{width}" height="{height}" fill="#fafafa"/>',
        f'<text id="title" x="{width / 2}" y="24" text-anchor="middle">{html.escape(title)}</text>',
        f'<text id="details" x="{side}" y="{height - 8}"> </text>',
        SCRIPT.replace("@SIDE@", str(side)).replace("@WIDTH@", str(width - 2 * side)),
    ]

    def emit(node, x, d):
        w = node.value * scale
        if w < min_w:
            return
        y = height - pad_bottom - (d + 1) * fh
        pct = 100.0 * node.value / total
        name = html.escape(node.name)
        label = name
        chars = int((w - 6) / 7)
        if chars < 3:
            label = ""
        elif len(node.name) > chars:
            label = html.escape(node.name[: chars - 2]) + ".."
        out.append(
            f'<g class="f" data-x="{x:.2f}" data-w="{w:.2f}"><title>{name} '
            f"({node.value} samples, {pct:.2f}%)</title>"
            f'<rect x="{x:.2f}" y="{y}" width="{max(w - 0.5, 0.1):.2f}" height="{fh - 1}" '
            f'fill="{color(node.name)}" rx="2"/>'
            f'<text x="{x + 3:.2f}" y="{y + fh - 4}">{label}</text></g>'
        )
        cx = x
        for c in sorted(node.children.values(), key=lambda n: n.name):
            emit(c, cx, d + 1)
            cx += c.value * scale

    emit(root, side, 0)
    out.append("</svg>")
    return "\n".join(out) + "\n"


# Click to zoom: frames keep their original x and width in data-x/data-w; a
# click on a frame stretches it to the full width, hides what lies outside it,
# and a click on the root frame restores everything.
SCRIPT = """<script type="text/ecmascript"><![CDATA[
var frames, side = @SIDE@, full = @WIDTH@;
function init(evt) {
  frames = document.querySelectorAll("g.f");
  frames.forEach(function (g) {
    g.addEventListener("click", function () { zoom(g); });
    g.addEventListener("mouseover", function () {
      document.getElementById("details").textContent = g.querySelector("title").textContent;
    });
  });
}
function zoom(target) {
  var x0 = parseFloat(target.dataset.x), w0 = parseFloat(target.dataset.w);
  var ty = parseFloat(target.querySelector("rect").getAttribute("y"));
  var k = full / w0;
  frames.forEach(function (g) {
    var x = parseFloat(g.dataset.x), w = parseFloat(g.dataset.w);
    var r = g.querySelector("rect"), t = g.querySelector("text");
    var y = parseFloat(r.getAttribute("y"));
    var inside = x >= x0 - 0.01 && x + w <= x0 + w0 + 0.01;
    var contains = x <= x0 + 0.01 && x + w >= x0 + w0 - 0.01;
    /* below the target: its callers, drawn full width; at and above: what lies within it */
    if (!(y > ty ? contains : inside)) { g.style.display = "none"; return; }
    g.style.display = "";
    var nx = side + (x - x0) * k, nw = w * k;
    if (y > ty) { nx = side; nw = full; }
    r.setAttribute("x", nx); r.setAttribute("width", Math.max(nw - 0.5, 0.1));
    t.setAttribute("x", nx + 3);
    var name = g.querySelector("title").textContent.replace(/ \\(\\d+ samples.*$/, "");
    var chars = Math.floor((nw - 6) / 7);
    t.textContent = chars < 3 ? "" : (name.length > chars ? name.slice(0, chars - 2) + ".." : name);
  });
}
]]></script>"""


def main():
    ap = argparse.ArgumentParser(description="perf script output to folded stacks to an SVG flame graph")
    sub = ap.add_subparsers(dest="cmd", required=True)
    c = sub.add_parser("collapse")
    c.add_argument("input", nargs="?")
    s = sub.add_parser("svg")
    s.add_argument("input", nargs="?")
    s.add_argument("--title", default="Flame graph")
    s.add_argument("--width", type=int, default=1200)
    args = ap.parse_args()
    src = open(args.input, errors="replace") if args.input else sys.stdin
    if args.cmd == "collapse":
        for stack, n in sorted(collapse(src).items()):
            sys.stdout.write(f"{stack} {n}\n")
    else:
        root = build(src)
        if root.value == 0:
            print("flamegraph.py: no samples in the input", file=sys.stderr)
            return 1
        sys.stdout.write(svg(root, args.title, args.width))
    return 0


if __name__ == "__main__":
    sys.exit(main())
