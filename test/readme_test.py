#!/usr/bin/env python3
"""The README's examples run as shown.

Convention (README.md says it too, in a comment at its top):

- Every ```sql block of README.md is run, in order, with psql.  Each section
  (a heading of any level) runs in a database of its own, created empty with
  bloomfilter installed, so a section must create the data it uses and no
  section sees another's tables.
- A ```sql block followed (after at most blank lines) by a plain ``` block:
  that block is the block's output, and must be what psql prints
  (aligned, without the "(N rows)" footer, blank lines ignored).  Plan costs
  (not row estimates), times and memory figures of EXPLAIN are masked, and
  InitPlan outputs are read alike in PostgreSQL 15 and 17+; a block may add a narrow
  mask of its own with an HTML comment just before it:
      <!-- readme-test: mask REGEX -->
  (every match of REGEX is replaced by "#", in the shown and the actual
  output).
- A ```sql block that cannot run on one throwaway server (another cluster,
  a preloaded library, an hour of work) is marked, with the reason, by
      <!-- readme-test: skip REASON -->
  just before it; skipped blocks are listed in this script's output.
- Several databases: a line "-- in NAME" in a ```sql block switches to the
  database NAME (\\c NAME), which is created empty the first time and kept
  for the sections after it (the cookbook's shop and warehouse), then
  dropped at the end with the roles the README creates.  Hosts written
  NAME.internal (host 'warehouse.internal' of a foreign server,
  host=warehouse.internal of a dblink connection string) are rewritten to
  this server's host and port: the "remote" databases are on the same
  server.
- No two sections create a table of the same name (checked).
- Other blocks (```sh, ``` with a psql prompt "=#") are shown, not run.
- The same holds for the design notes beside the code and the benchmarks'
  page: every README*.md under src/ (but src/clients/) and test/ is run the same way, after
  README.md (its sections' databases are its own).
- README.md's "Reference" and src/REFERENCE.md (the full reference, one line per
  function) each name every user-facing function, aggregate, type, operator
  class and access method of the extension (checked against the installed
  extension: the internal support functions, named after a type, are left
  out as sql/bloom_comments.sql defines them).

Usage:
    python3 test/readme_test.py            # check; exit 1 on any difference
    python3 test/readme_test.py --update   # rewrite the shown outputs from
                                           # what psql prints now
    python3 test/readme_test.py --section "Getting started"   # one section
    python3 test/readme_test.py --file src/index/slice/README.md    # one file
The server is the one of PGHOST/PGPORT/PGUSER (run it under pg_virtualenv, as
test/run-all.sh does, or against your own server with the extension
installed).
"""

import glob
import os
import re
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
README = os.path.join(ROOT, "README.md")
REFERENCE = os.path.join(ROOT, "src", "REFERENCE.md")


def doc_files():
    """README.md, then every README*.md beside the code and the tests."""
    files = [README]
    for pattern in ("src/**/README*.md", "test/**/README*.md"):
        files += sorted(f for f in glob.glob(os.path.join(ROOT, pattern), recursive=True)
                        # the clients' READMEs are theirs, with their own tests
                        if "/src/clients/" not in f)
    return files

# (regex, replacement): the spelling of an InitPlan's output that changed in
# PostgreSQL 17 ("InitPlan 1 (returns $0)"
# and "$0" became "InitPlan 1" and "(InitPlan 1).col1"), so that the outputs
# shown, from PostgreSQL 15, also hold on 17 and 18
VERSION_MASKS = [
    (r" \(returns \$\d+\)", ""),
    (r"\(InitPlan \d+\)\.col\d+|\$\d+\b", "#"),
]
# What varies from run to run (replaced by "#"): plan costs (not the row
# estimates), times, memory
GLOBAL_MASKS = [
    r"cost=[0-9.]+\.\.[0-9.]+",
    r"actual time=[0-9.]+\.\.[0-9.]+ ",
    r"(Planning|Execution) Time: [0-9.]+ ms",
    r"Memory Usage: \d+kB",
    r"^Time: .*$",
]

MARK = "@@readme-test-block@@"


class Block:
    def __init__(self, section, line, sql, out_start, out_end, shown, masks, skip, indent=""):
        self.indent = indent
        self.section = section
        self.line = line            # 1-based line of the ```sql fence
        self.sql = sql
        self.out_start = out_start  # 0-based index of the output's first line
        self.out_end = out_end      # 0-based index past its last line
        self.shown = shown          # list of lines, or None
        self.masks = masks
        self.skip = skip


shown_only = []


def parse(lines):
    blocks = []
    section = "(top)"
    pending_masks = []
    pending_skip = None
    i = 0
    n = len(lines)
    while i < n:
        line = lines[i]
        m = re.match(r"^#{1,6} (.*)", line)
        if m:
            section = m.group(1).strip()
            i += 1
            continue
        m = re.match(r"^<!-- readme-test: mask (.*) -->\s*$", line)
        if m:
            pending_masks.append(m.group(1))
            i += 1
            continue
        m = re.match(r"^<!-- readme-test: skip (.*) -->\s*$", line)
        if m:
            pending_skip = m.group(1)
            i += 1
            continue
        m = re.match(r"^(\s*)```(\w*)\s*$", line)
        if m:
            indent, lang = m.group(1), m.group(2)
            j = i + 1
            while j < n and lines[j].strip() != "```":
                j += 1
            body = [l[len(indent):] if l.startswith(indent) else l for l in lines[i + 1:j]]
            if lang == "" and j > i + 1 and re.match(r"^(=#|SELECT |CREATE |EXPLAIN )", body[0]):
                shown_only.append((section, i + 1, body[0][:60]))
            if lang == "sql":
                # an output block right after?
                k = j + 1
                while k < n and lines[k].strip() == "":
                    k += 1
                shown = None
                out_start = out_end = None
                if k < n and lines[k].strip() == "```" and lines[k].startswith(indent + "```"):
                    e = k + 1
                    while e < n and lines[e].strip() != "```":
                        e += 1
                    shown = [l[len(indent):] if l.startswith(indent) else l for l in lines[k + 1:e]]
                    out_start, out_end = k + 1, e
                    j = e
                blocks.append(Block(section, i + 1, "\n".join(body), out_start, out_end,
                                    shown, pending_masks, pending_skip, indent))
            pending_masks = []
            pending_skip = None
            i = j + 1
            continue
        if line.strip():
            pending_masks = []
            pending_skip = None
        i += 1
    return blocks


def psql(args, stdin=None):
    return subprocess.run(["psql", "-X", "-q"] + args, input=stdin, text=True,
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT)


named_dbs = []


def server_address():
    r = psql(["-At", "-d", "postgres", "-c",
              "SELECT coalesce(host(inet_server_addr()), split_part(current_setting('unix_socket_directories'), ',', 1)), current_setting('port')"])
    host, port = r.stdout.strip().split("|")
    return host, port


def localize(sql, host, port):
    sql = re.sub(r"host '\w+\.internal'", "host '%s', port '%s'" % (host, port), sql)
    sql = re.sub(r"host=\w+\.internal", "host=%s port=%s" % (host, port), sql)
    out = []
    for line in sql.split("\n"):
        m = re.match(r"^-- in (\w+)", line)
        if m:
            name = m.group(1)
            if name not in named_dbs:
                psql(["-d", "postgres", "-c", "DROP DATABASE IF EXISTS %s" % name])
                psql(["-d", "postgres", "-c", "CREATE DATABASE %s" % name])
                named_dbs.append(name)
            out.append("\\c %s" % name)
        out.append(line)
    return "\n".join(out)


def run_section(db, blocks):
    host, port = server_address()
    script = ["\\pset footer off", "SET client_min_messages = warning;"]
    if not any(re.search(r"CREATE EXTENSION (IF NOT EXISTS )?bloomfilter", b.sql, re.I) for b in blocks):
        script.append("CREATE EXTENSION bloomfilter;")
    script.append("RESET client_min_messages;")
    for b in blocks:
        script.append("\\echo " + MARK)
        script.append(localize(b.sql, host, port))
        # a block's last statement may lack its semicolon in prose; never
        # let it swallow the marker
        script.append(";")
    script.append("\\echo " + MARK)
    r = psql(["-d", db, "-v", "ON_ERROR_STOP=0"], "\n".join(script) + "\n")
    parts = r.stdout.split(MARK + "\n")
    return parts[1:len(blocks) + 1]


def normalize(text, masks):
    out = []
    for line in text.split("\n"):
        line = re.sub(r"^psql:<stdin>:\d+: ", "", line).rstrip()
        for m, r in VERSION_MASKS:
            line = re.sub(m, r, line)
        for m in GLOBAL_MASKS + masks:
            line = re.sub(m, "#", line)
        out.append(line.rstrip())
    # blank lines and row-count footers do not count
    return [l for l in out if l != "" and not re.match(r"^\(\d+ rows?\)$", l)]


def pretty(text):
    """What --update writes: psql's output, trailing spaces and runs of blank
    lines removed."""
    lines = [re.sub(r"^psql:<stdin>:\d+: ", "", l).rstrip() for l in text.split("\n")]
    out = []
    for l in lines:
        if l == "" and (not out or out[-1] == ""):
            continue
        out.append(l)
    while out and out[-1] == "":
        out.pop()
    return out


def run_file(path, update, only):
    """Run the blocks of one file; returns (ran, checked, failed, skipped)."""
    rel = os.path.relpath(path, ROOT)
    del shown_only[:]
    del named_dbs[:]
    with open(path) as fh:
        lines = fh.read().split("\n")
    blocks = parse(lines)

    sections = []
    for b in blocks:
        if not sections or sections[-1][0] != b.section:
            sections.append((b.section, []))
        sections[-1][1].append(b)

    failed = checked = ran = 0

    # no two sections create a table of the same name, so that a reader who
    # runs the whole README in one database meets no collision
    creator = {}
    for b in blocks:
        for t in re.findall(r"CREATE (?:FOREIGN )?TABLE (?:IF NOT EXISTS )?(\w+)", b.sql, re.I):
            if t in creator and creator[t][0] != b.section:
                failed += 1
                print("FAIL %s:%d (%s): creates table %s, which %s:%d (%s) creates too"
                      % (rel, b.line, b.section, t, rel, creator[t][1], creator[t][0]))
            creator.setdefault(t, (b.section, b.line))
    skipped = []
    replacements = []
    for idx, (name, sblocks) in enumerate(sections):
        if only is not None and name != only:
            continue
        torun = [b for b in sblocks if b.skip is None]
        skipped += [(b, b.skip) for b in sblocks if b.skip is not None]
        if not torun:
            continue
        db = "readme_test_%d" % idx
        psql(["-d", "postgres", "-c", "DROP DATABASE IF EXISTS %s" % db])
        r = psql(["-d", "postgres", "-c", "CREATE DATABASE %s" % db])
        if r.returncode != 0:
            print(r.stdout)
            return 2
        t0 = time.time()
        outs = run_section(db, torun)
        print("section %-60s %5.1f s" % (name[:60], time.time() - t0))
        psql(["-d", "postgres", "-c", "DROP DATABASE IF EXISTS %s" % db])
        for b, out in zip(torun, outs):
            ran += 1
            if b.shown is None:
                # no output shown: it must at least not fail
                if re.search(r"^(psql:<stdin>:\d+: )?ERROR:", out, re.M):
                    failed += 1
                    print("FAIL %s:%d (%s): the block raised an error and shows no output:\n%s"
                          % (rel, b.line, name, out))
                continue
            checked += 1
            if normalize(out, b.masks) != normalize("\n".join(b.shown), b.masks):
                if update:
                    replacements.append((b.out_start, b.out_end,
                                         [(b.indent + l) if l else l for l in pretty(out)]))
                    print("updated %s:%d (%s)" % (rel, b.line, name))
                    continue
                failed += 1
                print("FAIL %s:%d (%s): the output differs" % (rel, b.line, name))
                print("--- shown")
                print("\n".join(b.shown))
                print("--- actual")
                print("\n".join(pretty(out)))
                print("---")

    for name in named_dbs:
        psql(["-d", "postgres", "-c", "DROP DATABASE IF EXISTS %s" % name])
    for role in sorted(set(re.findall(r"CREATE ROLE (\w+)", "\n".join(b.sql for b in blocks)))):
        psql(["-d", "postgres", "-c", "DROP ROLE IF EXISTS %s" % role])

    if update and replacements:
        for start, end, new in sorted(replacements, reverse=True):
            lines[start:end] = new
        with open(path, "w") as fh:
            fh.write("\n".join(lines))

    print("%s: blocks not run (marked skip), with the reason:" % rel)
    for b, why in skipped:
        print("  %s:%d (%s): %s" % (rel, b.line, b.section, why))
    print("%s: blocks with SQL that are shown, not run (not ```sql blocks):" % rel)
    for sec, line, first in shown_only:
        if only is None or sec == only:
            print("  %s:%d (%s): %s" % (rel, line, sec, first))
    print("%s: %d sql blocks run, %d outputs compared, %d failed, %d skipped"
          % (rel, ran, checked, failed, len(skipped)))
    return ran, checked, failed, len(skipped)


# the names sql/bloom_comments.sql counts as internal support functions
INTERNAL = r"^(bloomfilter|countingbloom|scalablebloom|bloomwindow|gbloomfilter|gbloom_key)_"


def check_reference():
    """Every user-facing object of the installed extension is named in
    README.md's Reference and in src/REFERENCE.md; returns the number of
    failures."""
    with open(README) as fh:
        text = fh.read()
    m = re.search(r"^## Reference\n(.*?)(?=^## |\Z)", text, re.M | re.S)
    if not m:
        print("FAIL README.md: no \"## Reference\" section")
        return 1
    refs = [("README.md (Reference)", m.group(1))]
    if not os.path.exists(REFERENCE):
        print("FAIL src/REFERENCE.md: missing")
        return 1
    with open(REFERENCE) as fh:
        refs.append(("src/REFERENCE.md", fh.read()))
    db = "readme_test_reference"
    psql(["-d", "postgres", "-c", "DROP DATABASE IF EXISTS %s" % db])
    psql(["-d", "postgres", "-c", "CREATE DATABASE %s" % db])
    r = psql(["-At", "-d", db, "-c", """
        CREATE EXTENSION bloomfilter;
        WITH x AS (SELECT d.classid, d.objid FROM pg_depend d
                   JOIN pg_extension e ON e.oid = d.refobjid AND e.extname = 'bloomfilter'
                   WHERE d.deptype = 'e')
        SELECT 'function|' || p.proname FROM x JOIN pg_proc p ON x.classid = 'pg_proc'::regclass AND p.oid = x.objid
        UNION SELECT 'type|' || t.typname FROM x JOIN pg_type t ON x.classid = 'pg_type'::regclass AND t.oid = x.objid
              WHERE NOT EXISTS (SELECT 1 FROM pg_type a WHERE a.typarray = t.oid)
        UNION SELECT 'operator class|' || c.opcname FROM x JOIN pg_opclass c ON x.classid = 'pg_opclass'::regclass AND c.oid = x.objid
        UNION SELECT 'access method|' || a.amname FROM x JOIN pg_am a ON x.classid = 'pg_am'::regclass AND a.oid = x.objid
        ORDER BY 1"""])
    psql(["-d", "postgres", "-c", "DROP DATABASE IF EXISTS %s" % db])
    names = []
    for row in r.stdout.split("\n"):
        if "|" not in row:
            continue
        kind, name = row.split("|", 1)
        # internal support functions are not meant to be called
        if kind == "function" and re.match(INTERNAL, name):
            continue
        names.append((kind, name))
    failed = 0
    for where, ref in refs:
        missing = [(k, n) for k, n in names if not re.search(r"(?<![\w.])%s(?!\w)" % re.escape(n), ref)]
        for k, n in missing:
            print("FAIL %s: %s %s is an object of the extension it does not name" % (where, k, n))
        print("%s names %d of %d user-facing objects" % (where, len(names) - len(missing), len(names)))
        failed += len(missing)
    # a check that saw nothing would pass: it must see the extension's objects
    if len(names) < 60:
        print("FAIL Reference: only %d user-facing objects found in the extension" % len(names))
        return failed + 1
    return failed


def main():
    update = "--update" in sys.argv
    only = None
    if "--section" in sys.argv:
        only = sys.argv[sys.argv.index("--section") + 1]
    files = doc_files()
    if "--file" in sys.argv:
        files = [os.path.join(ROOT, sys.argv[sys.argv.index("--file") + 1])]
    totals = [0, 0, 0, 0]
    for path in files:
        for i, n in enumerate(run_file(path, update, only)):
            totals[i] += n
    if only is None and "--file" not in sys.argv:
        totals[2] += check_reference()
    print("readme_test: %d files, %d sql blocks run, %d outputs compared, %d failed, %d skipped"
          % (len(files), totals[0], totals[1], totals[2], totals[3]))
    return 1 if totals[2] else 0


if __name__ == "__main__":
    sys.exit(main())
