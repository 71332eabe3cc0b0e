#!/usr/bin/env python3
"""The reference `perfgate analyze trace -package PKG` is measured against.

Usage: trace_ref.py PACKAGE TRACE

It decodes the Perfetto protobuf wire format itself (standard library
only, no perfetto or protobuf package) and prints, as JSON, figures README.md
defines for `analyze trace`:

  packets         the trace's TracePackets
  display_frames  SurfaceFlinger's actual display frames
  frames          the app layer's actual surface frames that ended (FrameEnd)
  expected        its expected surface frames that ended
  janky           its frames with a jank type other than None, Non Animating
                  and Display not ON
  app_jank        its frames with App Deadline Missed or App Resynced Jitter
  running_ns, runnable_ns, asleep_ns, other_ns
                  the app's main thread (tid = pid) over its janky frames
                  [actual start, end), summed: on a CPU; woken or switched
                  out preempted (prev_state R); switched out in S or D
                  (binder waits included); anything else or before its first
                  scheduler event
  sched_events    sched_switch and sched_waking events, plain and compact

The app is the process whose cmdline is PACKAGE in the process tree, which
comes before the scheduler events (linux.process_stats writes it when the
trace starts).
"""
import bisect
import json
import sys


def varint(b, i):
    r = 0
    s = 0
    while True:
        c = b[i]
        i += 1
        r |= (c & 0x7F) << s
        if c < 0x80:
            return r, i
        s += 7


def fields(b, i=0, end=None):
    """Yields (field number, wire type, value) of a message: an int for
    varints and fixed ones, a (start, end) pair for length-delimited."""
    if end is None:
        end = len(b)
    while i < end:
        tag, i = varint(b, i)
        num, wt = tag >> 3, tag & 7
        if wt == 0:
            v, i = varint(b, i)
        elif wt == 2:
            n, i = varint(b, i)
            v = (i, i + n)
            i += n
        elif wt == 1:
            v = int.from_bytes(b[i:i + 8], "little")
            i += 8
        elif wt == 5:
            v = int.from_bytes(b[i:i + 4], "little")
            i += 4
        else:
            raise ValueError("wire type %d at %d" % (wt, i))
        yield num, wt, v


def packed(b, span):
    i, end = span
    out = []
    while i < end:
        v, i = varint(b, i)
        out.append(v)
    return out


def signed(v):
    return v - (1 << 64) if v >= 1 << 63 else v


R, RUNNING, RUNNABLE, ASLEEP, OTHER = "r", "running", "runnable", "asleep", "other"


def task_state(raw):
    """sched_switch's prev_state: S or D asleep, R (or preempted) runnable."""
    raw = signed(raw)
    if raw < 0:
        return OTHER
    if raw & 0x3:
        return ASLEEP
    if raw & 0x7C:
        return OTHER
    if raw & 0x80:
        return ASLEEP
    return RUNNABLE


class Reader:
    def __init__(self, b, pkg):
        self.b = b
        self.pkg = pkg
        self.pid = None
        self.packets = 0
        self.sched = 0
        self.ft = {}  # cookie -> (kind, fields)
        self.ends = {}  # cookie -> ts
        self.events = []  # (ts, order, tid, kind, state)
        self.cpu_last = {}  # compact: the task a CPU switched to last

    def read(self):
        b = self.b
        for num, wt, v in fields(b):
            if num == 1 and wt == 2:
                self.packets += 1
                self.packet(*v)

    def packet(self, i, end):
        b = self.b
        ts = 0
        for num, wt, v in fields(b, i, end):
            if num == 8:
                ts = v
            elif num == 1:
                self.bundle(*v)
            elif num == 2:
                self.process_tree(*v)
            elif num == 76:
                self.frame_timeline(ts, *v)

    def process_tree(self, i, end):
        b = self.b
        for num, wt, v in fields(b, i, end):
            if num != 1:
                continue
            pid, cmd = None, ""
            for n2, _, v2 in fields(b, *v):
                if n2 == 1:
                    pid = v2
                elif n2 == 3 and not cmd:
                    cmd = b[v2[0]:v2[1]].decode("utf-8", "replace")
            if cmd == self.pkg and self.pid is None:
                self.pid = pid

    def frame_timeline(self, ts, i, end):
        b = self.b
        for kind, _, v in fields(b, i, end):
            f = {}
            for n2, wt2, v2 in fields(b, *v):
                f[n2] = b[v2[0]:v2[1]].decode() if wt2 == 2 else v2
            if kind == 5:
                self.ends[f.get(1)] = ts
            else:
                self.ft[f.get(1)] = (kind, ts, f)

    def bundle(self, i, end):
        b = self.b
        cpu = 0
        evs = []
        for num, wt, v in fields(b, i, end):
            if num == 1:
                cpu = v
            elif num == 2:
                evs.append(v)
            elif num == 4:
                self.compact(cpu, *v)
        for v in evs:
            self.event(*v)

    def add(self, ts, tid, kind, state=None):
        if tid == self.pid:
            self.events.append((ts, len(self.events), tid, kind, state))

    def event(self, i, end):
        b = self.b
        ts = 0
        for num, wt, v in fields(b, i, end):
            if num == 1:
                ts = v
            elif num == 4:
                self.sched += 1
                prev = nxt = st = None
                for n2, _, v2 in fields(b, *v):
                    if n2 == 2:
                        prev = v2
                    elif n2 == 4:
                        st = v2
                    elif n2 == 6:
                        nxt = v2
                self.add(ts, prev, "out", task_state(st or 0))
                self.add(ts, nxt, "in")
            elif num in (17, 20):
                self.sched += 1
                for n2, _, v2 in fields(b, *v):
                    if n2 == 2:
                        self.add(ts, v2, "wake")

    def compact(self, cpu, i, end):
        b = self.b
        a = {}
        for num, wt, v in fields(b, i, end):
            if wt == 2 and num != 5:
                a[num] = packed(b, v)
        t = 0
        for k, d in enumerate(a.get(1, [])):
            t += d
            self.sched += 1
            if cpu in self.cpu_last:
                self.add(t, self.cpu_last[cpu], "out", task_state(a[2][k]))
            nxt = a[3][k]
            self.add(t, nxt, "in")
            self.cpu_last[cpu] = nxt
        t = 0
        for k, d in enumerate(a.get(7, [])):
            t += d
            self.sched += 1
            self.add(t, a[8][k], "wake")


def timeline(events):
    """The thread's states as change times and states, from its events in
    time order."""
    times, states = [], []
    cur = None
    for ts, _, _, kind, st in sorted(events):
        if kind == "in":
            new = RUNNING
        elif kind == "out":
            new = st
        elif cur in (RUNNING, RUNNABLE):
            continue
        else:
            new = RUNNABLE
        if new != cur:
            times.append(ts)
            states.append(new)
            cur = new
    return times, states


def over(times, states, a, b, acc):
    i = bisect.bisect_right(times, a) - 1
    cur = states[i] if i >= 0 else OTHER
    t = a
    i += 1
    while i < len(times) and times[i] < b:
        acc[cur] += times[i] - t
        t, cur = times[i], states[i]
        i += 1
    acc[cur] += b - t


def main():
    pkg, path = sys.argv[1], sys.argv[2]
    with open(path, "rb") as f:
        r = Reader(f.read(), pkg)
    r.read()
    pid = r.pid
    if pid is None:
        sys.exit("trace_ref.py: %s: no process of %s" % (path, pkg))
    out = {"packets": r.packets, "sched_events": r.sched, "display_frames": 0,
           "frames": 0, "expected": 0, "janky": 0, "app_jank": 0}
    janky = []
    for cookie, (kind, ts, f) in r.ft.items():
        if cookie not in r.ends:
            continue
        if kind == 2:
            out["display_frames"] += 1
        if f.get(4) != pid or kind not in (3, 4):
            continue
        if kind == 3:
            out["expected"] += 1
            continue
        out["frames"] += 1
        jank = f.get(9, 0)
        if jank & ~(1 | 2048 | 8192):
            out["janky"] += 1
            janky.append((ts, r.ends[cookie]))
        if jank & (64 | 4096):
            out["app_jank"] += 1
    acc = {RUNNING: 0, RUNNABLE: 0, ASLEEP: 0, OTHER: 0}
    times, states = timeline(r.events)
    for a, b in janky:
        over(times, states, a, b, acc)
    for k, v in acc.items():
        out[k + "_ns"] = v
    json.dump(out, sys.stdout, sort_keys=True)
    print()


if __name__ == "__main__":
    main()
