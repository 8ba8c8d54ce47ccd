#!/usr/bin/python3
"""Checks that the frozen values (test/vectors/frozen/<version>/values.tsv)
are the bytes committed when they were written (SHA256SUMS), and that
make_frozen.py refuses to write over them.  No server needed.

    python3 test/vectors/frozen/check_frozen.py

Frozen values are never regenerated (src/core/FORMAT.md, "Frozen values"):
a later build that reads them differently is the bug.
"""
import hashlib
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def main():
    failed = 0
    sums = {}
    with open(os.path.join(HERE, "SHA256SUMS"), encoding="ascii") as f:
        for line in f:
            digest, path = line.split()
            sums[path] = digest
    found = sorted("%s/%s" % (d, f) for d in os.listdir(HERE)
                   if os.path.isdir(os.path.join(HERE, d)) and not d.startswith("__")
                   for f in os.listdir(os.path.join(HERE, d)))
    if sorted(sums) != found:
        print("check_frozen: SHA256SUMS lists %s, the directory holds %s" % (sorted(sums), found))
        failed += 1
    for path, digest in sorted(sums.items()):
        full = os.path.join(HERE, path)
        if not os.path.exists(full):
            print("check_frozen: %s is missing" % path)
            failed += 1
            continue
        with open(full, "rb") as f:
            data = f.read()
        if hashlib.sha256(data).hexdigest() != digest:
            print("check_frozen: %s changed since it was frozen (SHA256SUMS): frozen values are "
                  "never regenerated or edited" % path)
            failed += 1
        if not data.startswith(b"# FROZEN:"):
            print("check_frozen: %s lacks its FROZEN header" % path)
            failed += 1
        # the generator must refuse, before it connects to any server
        version = path.split("/")[0]
        env = dict(os.environ, PGHOST="/nonexistent", PGPORT="1")
        r = subprocess.run([sys.executable, os.path.join(HERE, "make_frozen.py"), version],
                           capture_output=True, text=True, env=env)
        with open(full, "rb") as f:
            after = f.read()
        if r.returncode != 3 or "never regenerated" not in r.stderr or after != data:
            print("check_frozen: make_frozen.py %s did not refuse to overwrite %s (exit %d: %s)"
                  % (version, path, r.returncode, r.stderr.strip()))
            failed += 1
        else:
            print("check_frozen: %s: make_frozen.py %s refuses: %s"
                  % (path, version, r.stderr.strip()))
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
