#!/usr/bin/env python3
"""The release files tell the truth, and the version is written once.

The version is bloomfilter.control's default_version (X.Y); the Makefile
derives EXTVERSION from it, and everything else that names it must agree:
META.json (X.Y.0, its provides too), the Python client (pyproject.toml and
bloomfilter.__version__) and the JavaScript client (package.json and its
lock file).  The format versions FORMAT.md names in its headings must be
the constants of the core (BF_FORMAT_VERSION and the others).

META.json must match the install scripts: the access methods and operator
classes they create (bloomslice and GiST; no GIN), the four types, the
files it names, a stable release, and the prerequisites the scripts and
the pg_regress files use (plpgsql for the install script's DO blocks, each
extension a test creates).  LICENSE is the PostgreSQL License, and
CHANGELOG.md has a section for the version with an "Upgrading" part.

Usage: python3 test/release_files.py      (no server; prints each failure)
"""
import json
import os
import re
import sys

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
failures = []


def read(path):
    with open(os.path.join(ROOT, path), encoding="utf-8") as f:
        return f.read()


def check(ok, message):
    if not ok:
        failures.append(message)


# ---- the version, written once ----
control = read("bloomfilter.control")
m = re.search(r"^default_version\s*=\s*'([^']+)'", control, re.M)
check(m is not None, "bloomfilter.control: no default_version")
version = m.group(1) if m else "?"
check(re.fullmatch(r"\d+\.\d+", version) is not None,
      f"default_version {version!r} is not MAJOR.MINOR")
full = version + ".0"

makefile = read("Makefile")
check(re.search(r"^EXTVERSION\s*=.*default_version.*\.control", makefile, re.M) is not None,
      "Makefile: EXTVERSION must be derived from bloomfilter.control's default_version, not written again")
check(re.search(r"^EXTVERSION\s*=\s*\d", makefile, re.M) is None,
      "Makefile: EXTVERSION is a number written by hand")

meta = json.loads(read("META.json"))
check(meta.get("version") == full, f"META.json version {meta.get('version')!r}, expected {full!r}")
provides = meta.get("provides", {})
check(list(provides) == ["bloomfilter"], f"META.json provides {list(provides)}, expected bloomfilter")
for name, p in provides.items():
    check(p.get("version") == full,
          f"META.json provides.{name}.version {p.get('version')!r}, expected {full!r}")
    for key in ("file", "docfile"):
        check(key in p and os.path.isfile(os.path.join(ROOT, p[key])),
              f"META.json provides.{name}.{key} {p.get(key)!r} is not a file")

pyproject = read("src/clients/python/pyproject.toml")
m = re.search(r'^version\s*=\s*"([^"]+)"', pyproject, re.M)
check(m and m.group(1) == full,
      f"src/clients/python/pyproject.toml version {m and m.group(1)!r}, expected {full!r}")
init = read("src/clients/python/bloomfilter/__init__.py")
m = re.search(r'^__version__\s*=\s*"([^"]+)"', init, re.M)
check(m and m.group(1) == full,
      f"src/clients/python/bloomfilter/__init__.py __version__ {m and m.group(1)!r}, expected {full!r}")
package = json.loads(read("src/clients/js/package.json"))
check(package.get("version") == full,
      f"src/clients/js/package.json version {package.get('version')!r}, expected {full!r}")
if os.path.isfile(os.path.join(ROOT, "src/clients/js/package-lock.json")):
    lock = json.loads(read("src/clients/js/package-lock.json"))
    for where, v in (("version", lock.get("version")),
                     ('packages[""].version', lock.get("packages", {}).get("", {}).get("version"))):
        check(v == full, f"src/clients/js/package-lock.json {where} {v!r}, expected {full!r}")

# ---- the format versions: FORMAT.md's headings and the core's constants ----
constants = {}
for name in sorted(os.listdir(os.path.join(ROOT, "src/core"))):
    if name.endswith(".h"):
        for c, v in re.findall(r"^#define\s+(BF\w*_FORMAT_VERSION)\s+(\d+)", read("src/core/" + name), re.M):
            constants[c] = int(v)
# each constant and the word its FORMAT.md heading names it by
headings = {
    "BF_FORMAT_VERSION": "bloomfilter portable format",
    "BFC_FORMAT_VERSION": "countingbloom",
    "BFW_FORMAT_VERSION": "bloomwindow",
    "BFS_FORMAT_VERSION": "scalablebloom",
    "BFAS_FORMAT_VERSION": "bloomfilter_aggstate",
}
check(set(constants) == set(headings),
      f"format version constants in src/core/*.h: {sorted(constants)}; this check knows {sorted(headings)} "
      "(a new one: add its FORMAT.md heading here)")
format_md = read("src/core/FORMAT.md")
titles = re.findall(r"^# (.*), version (\d+)\s*$", format_md, re.M)
for c, word in headings.items():
    named = [int(v) for title, v in titles if word in title]
    check(len(named) == 1, f"FORMAT.md: {len(named)} headings '# ...{word}..., version N' (expected one)")
    if len(named) == 1 and c in constants:
        check(named[0] == constants[c],
              f"FORMAT.md: {word} is version {named[0]}, {c} is {constants[c]}")

# ---- META.json against the install scripts ----
scripts = sorted(f for f in os.listdir(os.path.join(ROOT, "sql")) if re.fullmatch(r"bloomfilter--.*\.sql", f))
sql = "\n".join(read("sql/" + f) for f in scripts)
text = " ".join([meta.get("abstract", ""), meta.get("description", ""), " ".join(meta.get("tags", []))]
                + [p.get("abstract", "") for p in provides.values()])
methods = set(re.findall(r"CREATE ACCESS METHOD\s+(\w+)", sql, re.I))
methods |= {m.lower() for m in re.findall(r"CREATE OPERATOR CLASS.*?\bUSING\s+(\w+)", sql, re.I | re.S)}
index_methods = methods - {"btree", "hash"}  # equality, not what META.json advertises
check({"bloomslice", "gist"} <= methods, f"the install scripts' index methods are {sorted(methods)}")
for am in sorted(index_methods):
    check(re.search(r"\b" + am + r"\b", text, re.I) is not None,
          f"META.json does not name the index method {am} the install scripts create")
for am in ("gin", "brin", "spgist"):
    if am not in methods:
        check(re.search(r"\b" + am + r"\b", text, re.I) is None,
              f"META.json names {am.upper()}, which the install scripts do not create")
types = set(re.findall(r"CREATE TYPE\s+(?:@extschema@\.)?(\w+)\s*\(\s*INPUT", sql, re.I))
for t in ("bloomfilter", "countingbloom", "scalablebloom", "bloomwindow"):
    check(t in types, f"the install scripts create no type {t}")
    check(re.search(r"\b" + t + r"\b", text) is not None, f"META.json does not name the type {t}")
check(meta.get("release_status") == "stable", f"META.json release_status {meta.get('release_status')!r}")
check(meta.get("license") == "postgresql", f"META.json license {meta.get('license')!r}")
check(meta.get("meta-spec", {}).get("version") == "1.0.0", "META.json meta-spec version is not 1.0.0")
for key in ("name", "abstract", "version", "maintainer", "license", "provides", "meta-spec"):
    check(key in meta, f"META.json has no {key} (required by the PGXN meta spec)")

prereqs = meta.get("prereqs", {})
runtime = prereqs.get("runtime", {}).get("requires", {})
tests = prereqs.get("test", {}).get("requires", {})
if re.search(r"^\s*DO\b|LANGUAGE\s+plpgsql", sql, re.I | re.M):
    check("plpgsql" in runtime, "META.json: the install scripts use plpgsql (DO blocks), runtime requires lacks it")
for ext in re.findall(r"^\s*(?:--\s*)?requires\s*=\s*'([^']*)'", control, re.M):
    for e in filter(None, re.split(r"[,\s]+", ext)):
        check(e in runtime, f"META.json: the control file requires {e}, runtime requires lacks it")
regress = re.search(r"^REGRESS\s*=\s*((?:.*\\\n)*.*)$", makefile, re.M)
regress_files = regress.group(1).replace("\\\n", " ").split() if regress else []
check(len(regress_files) > 0, "Makefile: no REGRESS")
used = set()
for name in regress_files:
    used |= {e.lower() for e in re.findall(r"CREATE EXTENSION\s+(?:IF NOT EXISTS\s+)?(\w+)", read(f"sql/{name}.sql"), re.I)}
for e in sorted(used - {"bloomfilter"}):
    check(e in tests, f"META.json: the pg_regress files create extension {e}, test requires lacks it")
pg_range = runtime.get("PostgreSQL", "")
check(pg_range.startswith(">= 15"), f"META.json runtime PostgreSQL {pg_range!r}: the oldest supported is 15")

# ---- LICENSE, CHANGELOG.md ----
license_text = read("LICENSE") if os.path.isfile(os.path.join(ROOT, "LICENSE")) else ""
check(license_text.startswith("PostgreSQL License") and "bloomfilter developers" in license_text
      and "WITHOUT FEE" in license_text.upper().replace("\n", " "),
      "LICENSE is not the PostgreSQL License of the bloomfilter developers")
changelog = read("CHANGELOG.md") if os.path.isfile(os.path.join(ROOT, "CHANGELOG.md")) else ""
sections = re.split(r"^## ", changelog, flags=re.M)[1:]
named = {s.split()[0]: s for s in sections if s.split()}
check(version in named, f"CHANGELOG.md has no section '## {version}'")
check("1.0" in named, "CHANGELOG.md has no section '## 1.0'")
if version in named and version != "1.0":
    check(re.search(r"^### Upgrading", named[version], re.M) is not None,
          f"CHANGELOG.md: the {version} section has no '### Upgrading' part")
check(list(named)[:1] == [version], f"CHANGELOG.md: the newest section must be {version}, first")

for f in failures:
    print("release_files: " + f)
if failures:
    print(f"release_files: {len(failures)} failure(s)")
    sys.exit(1)
print(f"release_files: ok (version {version}: control, Makefile, META.json, clients; "
      f"{len(constants)} format versions as in FORMAT.md; META.json names {sorted(index_methods)}, "
      f"the four types, {len(runtime) + len(tests)} prerequisites)")
