#!/usr/bin/env python3
"""The relative links of the documentation resolve.

Every Markdown link of README.md and of the .md files under src/ and test/
(the clients' node_modules left out) that is not a URL must name a file that
exists, and, with a "#anchor", a heading of that file (GitHub's anchors: lower
case, punctuation dropped, spaces as hyphens, "-1", "-2" for repeats).
Fenced code blocks are not read.  No server is needed.

Usage: python3 test/doc_links.py      # exit 1 on any broken link
"""

import glob
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def doc_files():
    files = [os.path.join(ROOT, "README.md")]
    for pattern in ("src/**/*.md", "test/**/*.md"):
        files += sorted(f for f in glob.glob(os.path.join(ROOT, pattern), recursive=True)
                        if "/node_modules/" not in f)
    return files


def slug(heading):
    h = heading.strip().lower()
    h = re.sub(r"[^\w\- ]", "", h)
    return h.replace(" ", "-")


def anchors(path):
    found = set()
    seen = {}
    fenced = False
    with open(path, encoding="utf-8") as fh:
        for line in fh:
            if line.lstrip().startswith("```"):
                fenced = not fenced
                continue
            if fenced:
                continue
            m = re.match(r"^#{1,6} (.*)", line)
            if m:
                s = slug(m.group(1))
                n = seen.get(s, 0)
                seen[s] = n + 1
                found.add(s if n == 0 else "%s-%d" % (s, n))
    return found


def main():
    checked = broken = 0
    for path in doc_files():
        rel = os.path.relpath(path, ROOT)
        with open(path, encoding="utf-8") as fh:
            text = fh.read()
        text = re.sub(r"```.*?```", "", text, flags=re.S)
        for m in re.finditer(r"\]\(([^)\s]+)\)", text):
            target = m.group(1)
            if re.match(r"^[a-z][a-z0-9+.-]*:", target):
                continue            # a URL (https:, mailto:)
            checked += 1
            name, _, anchor = target.partition("#")
            dest = os.path.normpath(os.path.join(os.path.dirname(path), name)) if name else path
            if not os.path.exists(dest):
                broken += 1
                print("BROKEN %s: %s (no such file)" % (rel, target))
            elif anchor and dest.endswith(".md") and anchor not in anchors(dest):
                broken += 1
                print("BROKEN %s: %s (no such heading)" % (rel, target))
    print("doc_links: %d relative links checked, %d broken" % (checked, broken))
    # a check that saw nothing would pass
    if checked < 50:
        print("doc_links: only %d links found" % checked)
        return 1
    return 1 if broken else 0


if __name__ == "__main__":
    sys.exit(main())
