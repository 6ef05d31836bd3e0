#!/usr/bin/env python3
"""Checks a page of `loadstats report` and the DOM headless Chromium made of it.

usage: reportcheck.py PAGE.html DOM.html CHROMIUM_STDERR [EXPECTATION...]

Always checked: the page is well-formed XML whose root is <html>; no element
refers to anything outside the page (no src, href, url(), @import, script,
link, img, iframe, object or embed; the only '://' in an attribute is an
xmlns); the browser logged no console message; the DOM holds every figure the
page holds, each with a title, an x and a y axis with tick labels and an axis
label, a legend with at least one entry and a caption, the x axis's tick
labels below the plot area, and an <svg> as wide as the page (width 100%,
its drawing scaled by a viewBox).

EXPECTATION is one of
  figures=N            the page has N figures
  series:KIND=N        the figure of data-kind KIND draws N series
  legend:KIND=N        ... and its legend has N entries
  bars:KIND=N          the (bar) figure of KIND has N bars
  marks:KIND=N         ... N vertical marks (the knee)
  nofigure:KIND        no figure of that kind
  section:ID           the page has a <section id="ID">
  nosection:ID         ... has none
  count:STRING=N       the page's text contains STRING N times
  rows:CLASS=N         the table of that class has N rows of data (rows with a <td>)
  text:STRING          the page's text contains STRING
  maxbytes:N           the page is at most N bytes
Prints one line per failure and exits 1 if any; else prints what it checked.
"""
import html.parser
import re
import sys
import xml.etree.ElementTree as ET

VOID = {"meta", "br", "hr", "img", "input", "link", "col", "area", "base", "wbr", "source"}


class Node:
    def __init__(self, tag, attrs, parent):
        self.tag, self.attrs, self.parent, self.children, self.text = tag, dict(attrs), parent, [], ""

    def classes(self):
        return self.attrs.get("class", "").split()

    def walk(self):
        yield self
        for c in self.children:
            yield from c.walk()

    def find_all(self, pred):
        return [n for n in self.walk() if pred(n)]

    def all_text(self):
        return self.text + "".join(c.all_text() for c in self.children)


class Tree(html.parser.HTMLParser):
    """A DOM from Chromium's serialization (HTML: void elements, lowercase tags)."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.root = Node("#root", [], None)
        self.at = self.root

    def handle_starttag(self, tag, attrs):
        node = Node(tag, attrs, self.at)
        self.at.children.append(node)
        if tag not in VOID:
            self.at = node

    def handle_startendtag(self, tag, attrs):
        self.at.children.append(Node(tag, attrs, self.at))

    def handle_endtag(self, tag):
        n = self.at
        while n is not self.root and n.tag != tag:
            n = n.parent
        if n is not self.root:
            self.at = n.parent

    def handle_data(self, data):
        self.at.text += data


def has_class(name):
    return lambda n: name in n.classes()


def main():
    page_path, dom_path, log_path, *expectations = sys.argv[1:]
    problems = []
    raw = open(page_path, "rb").read()
    page = raw.decode("utf-8")

    try:
        root = ET.fromstring(raw)
        if not root.tag.endswith("html"):
            problems.append(f"{page_path}: the root element is <{root.tag}>, not <html>")
    except ET.ParseError as e:
        problems.append(f"{page_path}: not well-formed: {e}")
        root = None
    if root is not None:
        for el in root.iter():
            tag = el.tag.split("}")[-1]
            if tag in {"script", "link", "img", "iframe", "object", "embed", "image", "use"}:
                problems.append(f"{page_path}: a <{tag}> element (the page must fetch nothing)")
            for name, value in el.attrib.items():
                local = name.split("}")[-1]
                if local in {"src", "href", "srcset", "action", "data"}:
                    problems.append(f"{page_path}: <{tag} {local}=...> refers outside the page")
                if "://" in value and local != "xmlns":
                    problems.append(f"{page_path}: <{tag} {local}=\"{value}\"> names a URL")
    for m in re.finditer(r"url\(|@import", page):
        problems.append(f"{page_path}: '{m.group(0)}' in the page (nothing may be fetched)")

    log = open(log_path, errors="replace").read()
    for line in log.splitlines():
        if ":CONSOLE" in line:
            problems.append(f"the browser logged a console message: {line.strip()}")

    tree = Tree()
    tree.feed(open(dom_path, errors="replace").read())
    dom = tree.root
    if not dom.find_all(lambda n: n.tag == "body"):
        problems.append(f"{dom_path}: the browser's DOM has no <body> (did the page load?)")
    figures = dom.find_all(lambda n: n.tag == "figure")
    page_figures = page.count("<figure ")
    if len(figures) != page_figures:
        problems.append(f"the DOM has {len(figures)} figures, the page {page_figures}")
    by_kind = {}
    for f in figures:
        kind = f.attrs.get("data-kind", "?")
        by_kind[kind] = f
        where = f"figure {f.attrs.get('id')} ({kind})"
        svg = f.find_all(lambda n: n.tag == "svg")
        if not svg:
            problems.append(f"{where}: no <svg>")
            continue
        if svg[0].attrs.get("width") != "100%" or not svg[0].attrs.get("viewbox"):
            problems.append(f"{where}: the <svg> is not as wide as the page (width "
                            f"{svg[0].attrs.get('width')!r}, viewBox {svg[0].attrs.get('viewbox')!r})")
        if not any(n.all_text().strip() for n in svg[0].find_all(lambda n: n.tag == "title")):
            problems.append(f"{where}: no title")
        for axis in ("x-axis", "y-axis"):
            a = f.find_all(has_class(axis))
            ticks = a[0].find_all(has_class("tick")) if a else []
            label = a[0].find_all(has_class("axis-label")) if a else []
            if not a or not ticks or not label or not label[0].all_text().strip():
                problems.append(f"{where}: the {axis} lacks ticks or a label")
        area = f.find_all(has_class("plot-area"))
        x_axis = f.find_all(has_class("x-axis"))
        if area and x_axis:
            bottom = float(area[0].attrs["y"]) + float(area[0].attrs["height"])
            for t in x_axis[0].find_all(has_class("tick")):
                if float(t.attrs["y"]) <= bottom:
                    problems.append(f"{where}: x tick '{t.all_text()}' at y {t.attrs['y']}, "
                                    f"inside the plot area (bottom {bottom})")
        if not f.find_all(has_class("legend-entry")):
            problems.append(f"{where}: no legend entry")
        caption = f.find_all(lambda n: n.tag == "figcaption")
        if not caption or not caption[0].all_text().strip():
            problems.append(f"{where}: no caption")

    text = dom.all_text()
    for e in expectations:
        what, _, value = e.partition("=")
        if what == "figures":
            got = len(figures)
        elif what.startswith("nofigure:"):
            if what[9:] in by_kind:
                problems.append(f"a figure of kind {what[9:]} is present; expected none")
            continue
        elif what.startswith("section:") or what.startswith("nosection:"):
            want = what.startswith("section:")
            ident = what.partition(":")[2]
            got = bool(dom.find_all(lambda n: n.tag == "section" and n.attrs.get("id") == ident))
            if got != want:
                problems.append(f"a section {ident!r} is {'missing' if want else 'present'}")
            continue
        elif what.startswith("count:"):
            needle = what[6:]
            got = text.count(needle)
        elif what.startswith("text:"):
            if e[5:] not in text:
                problems.append(f"the page's text lacks '{e[5:]}'")
            continue
        elif what == "maxbytes":
            got = len(raw)
            if got > int(value):
                problems.append(f"the page is {got} bytes, more than {value}")
            continue
        elif what.startswith("rows:"):
            tables = dom.find_all(lambda n: n.tag == "table" and what[5:] in n.classes())
            if not tables:
                problems.append(f"no table of class {what[5:]}")
                continue
            got = len(tables[0].find_all(
                lambda n: n.tag == "tr" and any(c.tag == "td" for c in n.children)))
        else:
            part, _, kind = what.partition(":")
            f = by_kind.get(kind)
            if f is None:
                problems.append(f"no figure of kind {kind}")
                continue
            cls = {"series": "series", "legend": "legend-entry", "bars": "bar", "marks": "mark"}[part]
            got = len(f.find_all(has_class(cls)))
        if str(got) != value:
            problems.append(f"{what}: expected {value}, got {got}")

    for p in problems:
        print(p)
    if problems:
        return 1
    print(f"{page_path}: {len(raw)} bytes, {len(figures)} figures ({', '.join(sorted(by_kind))}) "
          f"checked in the browser's DOM")
    return 0


if __name__ == "__main__":
    sys.exit(main())
