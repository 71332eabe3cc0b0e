#!/usr/bin/env python3
"""A naive, independent reference for BenchmarkTrendSteps20: the change
points of one series of runs and their levels, in plain Python.

Reads one value per line from the file named by the first argument and
prints JSON: {"changes": [{"index", "before", "after", "pct"}...],
"seconds": the time spent computing, without reading or starting up}.

Changes are found by binary segmentation on the mean (least squares): a
segment is split where the sum of squared deviations drops most, while the
drop exceeds 4 log(n) sigma^2, sigma from the median absolute difference
of consecutive runs; segments keep at least 4 runs. Each change's levels
are the medians of up to 30 runs on each side, none beyond the changes
next to it, as perfgate reports them.
"""
import json
import math
import sys
import time


def median(xs):
    s = sorted(xs)
    n = len(s)
    return s[n // 2] if n % 2 else (s[n // 2 - 1] + s[n // 2]) / 2


def best_split(x, lo, hi, min_size):
    """The split of x[lo:hi] that lowers the squared deviations most."""
    total = sum(x[lo:hi])
    m = hi - lo
    best, at, left = 0.0, -1, 0.0
    for t in range(lo, hi - 1):
        left += x[t]
        a = t + 1 - lo
        b = m - a
        if a < min_size or b < min_size:
            continue
        gain = (left / a - (total - left) / b) ** 2 * a * b / m
        if gain > best:
            best, at = gain, t + 1
    return best, at


def changes(x, min_size=4, window=30):
    n = len(x)
    sigma = 1.4826 * median([abs(x[i + 1] - x[i]) for i in range(n - 1)]) / math.sqrt(2)
    penalty = 4 * math.log(n) * sigma * sigma
    cps, todo = [], [(0, n)]
    while todo:
        lo, hi = todo.pop()
        gain, at = best_split(x, lo, hi, min_size)
        if at < 0 or gain <= penalty:
            continue
        cps.append(at)
        todo += [(lo, at), (at, hi)]
    cps.sort()
    out = []
    for k, c in enumerate(cps):
        prev = cps[k - 1] if k > 0 else 0
        nxt = cps[k + 1] if k + 1 < len(cps) else n
        before = median(x[max(prev, c - window):c])
        after = median(x[c:min(nxt, c + window)])
        out.append({"index": c, "before": before, "after": after,
                    "pct": (after - before) / abs(before) * 100})
    return out


def main():
    with open(sys.argv[1]) as f:
        x = [float(line) for line in f if line.strip()]
    start = time.perf_counter()
    out = changes(x)
    json.dump({"changes": out, "seconds": time.perf_counter() - start}, sys.stdout)


if __name__ == "__main__":
    main()
