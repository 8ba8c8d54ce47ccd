#!/usr/bin/python3
"""clients_bench.py: building and probing a million integer keys with the
Python client (src/clients/python), beside a plain set() and beside the
server's bloom_agg and bloom_contains over a million rows, in one run.

    pg_virtualenv -t /usr/bin/python3 test/bench/clients_bench.py
    PGHOST=... PGPORT=... PGUSER=... python3 test/bench/clients_bench.py   # a server with bloomfilter

Without a server (no PGHOST/PGPORT reachable) the server rows say "not
measured".  Environment: BENCH_N (1000000 keys), BENCH_REPS (3).

Keys: BENCH_N distinct random int8 values; misses: BENCH_N others.
  python build   BloomFilter.empty(N, 0.01).add_all(keys)   (blocked, the default)
  python probe   sum(k in f for k in keys), then the misses
  set build      set(keys); set probe: the same probes
  server build   SELECT bloom_agg(k, N, 0.01) IS NOT NULL FROM t   (t: N rows, int8, prewarmed)
  server probe   SELECT count(*) FROM t WHERE bloom_contains((SELECT f FROM filt), k)
Each variant runs BENCH_REPS times, interleaved; the best wall time counts
(Python's CPU time is shown beside it: on a shared machine it is steadier).
Ratios are against set() and against the server, measured in the same run.
"""
import os
import random
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "src", "clients", "python"))

from bloomfilter import BloomFilter  # noqa: E402

N = int(os.environ.get("BENCH_N", "1000000"))
REPS = int(os.environ.get("BENCH_REPS", "3"))


def backend_cpu(pid):
    """A local backend's on-CPU time in seconds (/proc/PID/schedstat), or
    None (another machine, or no permission)."""
    try:
        with open("/proc/%d/schedstat" % pid) as fh:
            return int(fh.read().split()[0]) / 1e9
    except (OSError, ValueError, TypeError):
        return None


def timed(fn, pid=None):
    """Wall time, CPU time (of this process, or of backend pid) and result."""
    cpu = (lambda: backend_cpu(pid)) if pid else time.process_time
    w, c = time.perf_counter(), cpu()
    r = fn()
    w2, c2 = time.perf_counter(), cpu()
    return w2 - w, (c2 - c if c is not None and c2 is not None else float("nan")), r


def main():
    r = random.Random(1)
    seen = set()
    while len(seen) < 2 * N:
        seen.add(r.randint(-(1 << 63), (1 << 63) - 1))
    both = list(seen)
    r.shuffle(both)
    keys, misses = both[:N], both[N:]

    conn = None
    pid = None
    if os.environ.get("PGHOST") or os.environ.get("PGPORT"):
        try:
            import psycopg
            conn = psycopg.connect(autocommit=True)
            conn.execute("CREATE EXTENSION IF NOT EXISTS bloomfilter")
            conn.execute("SET jit = off")
            pid = conn.execute("SELECT pg_backend_pid()").fetchone()[0]
            conn.execute("SET max_parallel_workers_per_gather = 0")
            conn.execute("DROP TABLE IF EXISTS clients_bench_t, clients_bench_filt")
            conn.execute("CREATE TABLE clients_bench_t (k int8)")
            with conn.cursor().copy("COPY clients_bench_t (k) FROM STDIN") as cp:
                for k in keys:
                    cp.write_row((k,))
            conn.execute("VACUUM ANALYZE clients_bench_t")
            conn.execute("SELECT count(*) FROM clients_bench_t")
            conn.execute("CREATE TABLE clients_bench_filt AS "
                         "SELECT bloom_agg(k, %s, 0.01) AS f FROM clients_bench_t", (N,))
        except Exception as e:      # a bench without a server still measures Python
            print("clients_bench: no server (%s): server rows not measured" % e)
            conn = None

    state = {}

    def py_build():
        state["f"] = BloomFilter.empty(N, 0.01).add_all(keys)
        return state["f"]

    def py_probe_hits():
        f = state["f"]
        return sum(1 for k in keys if k in f)

    def py_probe_misses():
        f = state["f"]
        return sum(1 for k in misses if k in f)

    def set_build():
        state["s"] = set(keys)
        return len(state["s"])

    def set_probe():
        s = state["s"]
        return sum(1 for k in keys if k in s)

    def srv_build():
        return conn.execute("SELECT bloom_agg(k, %s, 0.01) IS NOT NULL FROM clients_bench_t",
                            (N,)).fetchone()[0]

    def srv_probe():
        return conn.execute("SELECT count(*) FROM clients_bench_t "
                            "WHERE bloom_contains((SELECT f FROM clients_bench_filt), k)").fetchone()[0]

    variants = [("python build", py_build), ("python probe (hits)", py_probe_hits),
                ("python probe (misses)", py_probe_misses), ("set() build", set_build),
                ("set() probe", set_probe)]
    if conn is not None:
        variants += [("server bloom_agg build", srv_build), ("server probe", srv_probe)]

    best = {}
    results = {}
    for rep in range(REPS):
        for name, fn in variants:
            w, c, res = timed(fn, pid if name.startswith("server") else None)
            if name not in best:
                best[name] = (w, c)
            else:
                best[name] = (min(w, best[name][0]), min(c, best[name][1]))
            results[name] = res

    assert results["python probe (hits)"] == N, "a false negative"
    fpr = results["python probe (misses)"] / N
    if conn is not None:
        server = conn.execute("SELECT f::bytea FROM clients_bench_filt").fetchone()[0]
        same = bytes(state["f"]) == bytes(server)
        assert same, "the client's filter differs from the server's"
        assert results["server probe"] == N

    print("clients_bench: %d int8 keys, %d reps, best wall and CPU time (the server's: its "
          "backend's, from /proc)" % (N, REPS))
    print("  python %s.%s.%s, filter %d bits, %d hashes, measured fpr %.4f (target 0.01)%s" % (
        sys.version_info[0], sys.version_info[1], sys.version_info[2], state["f"].nbits,
        state["f"].hashes, fpr, ", bytes equal to the server's bloom_agg" if conn is not None else ""))
    set_bytes = sys.getsizeof(state["s"]) + sum(sys.getsizeof(k) for k in keys)
    print("  memory: the filter %d bytes, the set() %d bytes with its int objects (%.0fx)" % (
        len(bytes(state["f"])), set_bytes, set_bytes / len(bytes(state["f"]))))
    for name, _ in variants:
        w, c = best[name]
        print("  %-24s wall %7.3f s  cpu %7.3f s  %6.0f ns/key (cpu)" % (name, w, c, c / N * 1e9))

    def ratio(a, b):
        return "%6.1fx cpu  %6.1fx wall" % (best[a][1] / best[b][1], best[a][0] / best[b][0])
    print("ratios:")
    print("  python build / set() build           " + ratio("python build", "set() build"))
    print("  python probe hits / set() probe      " + ratio("python probe (hits)", "set() probe"))
    print("  python probe misses / set() probe    " + ratio("python probe (misses)", "set() probe"))
    if conn is not None:
        print("  python build / server bloom_agg      " + ratio("python build", "server bloom_agg build"))
        print("  python probe hits / server probe     " + ratio("python probe (hits)", "server probe"))
        conn.execute("DROP TABLE clients_bench_t, clients_bench_filt")
    else:
        print("  server: not measured")


if __name__ == "__main__":
    main()
