#!/usr/bin/env python3
"""The frame metrics of README.md's "Metric definitions", written plainly:
the reference `perfgate analyze frames` is timed against and checked with.

frames_ref.py gfxinfo|surfaceflinger FILE prints JSON: the frames and
rejected rows of the window with the most frames, fps, frame time
percentiles, deadline-missed jank (gfxinfo), Chromium and PerfDog jank."""
import json
import math
import sys

MAX = 2**63 - 1


def text(path):
    raw = open(path, "rb").read()
    if raw[:2] in (b"\xff\xfe", b"\xfe\xff"):
        raw = raw.decode("utf-16").encode()
    return raw.decode("utf-8", "replace").replace("\r\n", "\n").replace("\r", "\n").splitlines()


def rank(v, p):
    s = sorted(v)
    return s[max(0, math.ceil(p / 100 * len(s)) - 1)]


def common(t, ft, period):
    n = len(t)
    out = {"frames": n, "fps": (n - 1) / ((t[-1] - t[0]) / 1e9) if n > 1 else None}
    out["frame_time_ms"] = {f"p{p}": rank(ft, p) / 1e6 for p in (50, 90, 95, 99)}
    L = [b - a for a, b in zip(t, t[1:]) if (b - a) / period >= 0.5]
    N = [x / period for x in L]
    out["max_frame_delay"] = math.floor(max(N) + 0.5) if N else 0
    out["jank_chromium"] = sum(1 for a, b in zip(N, N[1:]) if 0 < math.floor(b - a + 0.5) < 20)
    F = [(b - a) / 1e6 for a, b in zip(t, t[1:])]
    out["jank_perfdog"] = sum(1 for i in range(3, len(F)) if F[i] > 2 * sum(F[i - 3:i]) / 3 and F[i] > 2000 / 24)
    return out


def gfxinfo(lines):
    clock, windows, cols, rows = None, [], None, None
    for ln in lines:
        s = ln.strip()
        if s.startswith("Uptime:") and clock is None:
            clock = int(s.split()[1]) * 1_000_000
        elif s == "---PROFILEDATA---":
            if rows is None:
                cols, rows = None, []
            else:
                windows.append((cols, rows))
                rows = None
        elif rows is not None and cols is None:
            cols = [c.strip() for c in s.rstrip(",").split(",")]
        elif rows is not None and s:
            rows.append([int(x) for x in s.rstrip(",").split(",")])
    best = None
    for cols, rows in windows:
        ix = {c: i for i, c in enumerate(cols)}
        fl, iv, fc, dl = ix["Flags"], ix["IntendedVsync"], ix["FrameCompleted"], ix.get("FrameDeadline")
        st, fi = ix.get("FrameStartTime"), ix.get("FrameInterval")
        periods = [r[c] for r in rows for c in (st, fi) if c is not None and 0 < r[c] <= 1_000_000_000]
        rejected, kept, last = {}, [], None
        for r in rows:
            v, c = r[iv], r[fc]
            why = None
            if r[fl] != 0:
                why = "flags"
            elif v <= 0 or v == MAX or c < 0 or c == MAX:
                why = "sentinel"
            elif c == 0:
                why = "not_completed"
            elif v > clock + 10e9 or c > clock + 10e9:
                why = "beyond_clock"
            elif c < v:
                why = "completed_before_vsync"
            elif c - v > 60e9:
                why = "too_long"
            elif last is not None and v <= last:
                why = "duplicate_vsync"
            if why:
                rejected[why] = rejected.get(why, 0) + 1
                continue
            last = v
            kept.append(r)
        if best is None or len(kept) > len(best[0]):
            best = (kept, rejected, iv, fc, dl, periods)
    kept, rejected, iv, fc, dl, periods = best
    period = sorted(periods)[len(periods) // 2]
    dur = [r[fc] - r[iv] for r in kept]
    out = common([r[iv] for r in kept], dur, period)
    miss = 0
    for r, d in zip(kept, dur):
        deadline = r[dl] if dl is not None else 0
        if 0 < deadline < MAX and deadline > r[iv]:
            miss += r[fc] > deadline
        else:
            miss += d > period
    out["deadline_missed"], out["rejected"] = miss, rejected
    return out


def surfaceflinger(lines):
    period = int(lines[0].strip())
    t, rejected, pending = [], {}, 0
    for ln in lines[1:]:
        f = ln.split()
        if len(f) != 3:
            continue
        b = int(f[1])
        why = None
        if b == 0:
            why = "empty"
        elif b == MAX:
            pending += 1
            continue
        elif b < 0:
            why = "sentinel"
        elif t and b <= t[-1]:
            why = "backwards"
        if why:
            rejected[why] = rejected.get(why, 0) + 1
            continue
        if pending:
            rejected["pending_fence"] = rejected.get("pending_fence", 0) + pending
            pending = 0
        t.append(b)
    out = common(t, [b - a for a, b in zip(t, t[1:])], period)
    out["rejected"] = rejected
    return out


if __name__ == "__main__":
    kind, path = sys.argv[1], sys.argv[2]
    lines = text(path)
    print(json.dumps(gfxinfo(lines) if kind == "gfxinfo" else surfaceflinger(lines)))
