#!/usr/bin/env python3
"""The reference package frametiming is checked against on real traces.

Usage: frametiming_ref.py PACKAGE TRACE

It decodes the Perfetto protobuf wire format itself (standard library only)
and prints, as JSON, androidx Macrobenchmark's FrameTimingMetric over the
whole trace, by the rule of androidx FrameTimingQuery.kt (benchmark-macro,
f4fd4f16) and MetricResult.kt (benchmark-common):

  frames        the frames counted: a RenderThread "DrawFrame <id>" slice with
                the main thread's "Choreographer#doFrame <id>" slice and the
                app's actual and expected FrameTimeline frames of token <id>
                (slices that never ended or last 0 ns left out, "resynced"
                doFrames left out)
  cpu           p50, p90, p95, p99 of DrawFrame end - doFrame start, in ms
  overrun       p50, p90, p95, p99 of actual end - expected end, in ms
  cpu_absent    true when no frame has both slices; overrun is then taken over
                every app FrameTimeline frame with its expected frame
                (perfgate's rule for traces recorded without the view and gfx
                atrace categories)

The app's processes are those whose FrameTimeline layers are its windows
("TX - PACKAGE/..." or "PACKAGE/..."), and those whose process tree cmdline is
PACKAGE. Percentile p of m sorted values: linear between the ranks around
p/100*(m-1).
"""
import json
import os
import sys

# The wire format's varints and fields, as trace/testdata/trace_ref.py reads
# them (standard library only).
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "testdata"))
from trace_ref import fields  # noqa: E402


def text(b, span):
    return b[span[0]:span[1]].decode("utf-8", "replace")


class Reader:
    def __init__(self, b, pkg):
        self.b, self.pkg = b, pkg
        self.pids = set()
        self.starts = {}  # cookie -> (kind, ts, fields)
        self.ends = {}  # cookie -> ts
        self.marks = []  # (tid, ts, order, line)

    def read(self):
        for num, wt, v in fields(self.b):
            if num == 1 and wt == 2:
                self.packet(*v)

    def packet(self, i, end):
        ts = 0
        for num, wt, v in fields(self.b, i, end):
            if num == 8:
                ts = v
            elif num == 1 and wt == 2:
                self.bundle(*v)
            elif num == 2 and wt == 2:
                self.process_tree(*v)
            elif num == 76 and wt == 2:
                self.frame_timeline(ts, *v)

    def process_tree(self, i, end):
        for num, wt, v in fields(self.b, i, end):
            if num != 1:
                continue
            pid, cmd = None, None
            for n2, w2, v2 in fields(self.b, *v):
                if n2 == 1:
                    pid = v2
                elif n2 == 3 and cmd is None:
                    cmd = text(self.b, v2)
            if cmd == self.pkg or (cmd or "").startswith(self.pkg + ":"):
                self.pids.add(pid)

    def frame_timeline(self, ts, i, end):
        for kind, wt, v in fields(self.b, i, end):
            f = {}
            for n2, w2, v2 in fields(self.b, *v):
                f[n2] = text(self.b, v2) if w2 == 2 else v2
            if kind == 5:
                self.ends[f.get(1)] = ts
            elif kind in (3, 4):
                self.starts[f.get(1)] = (kind, ts, f)
                layer = f.get(5, "")
                if layer.startswith("TX - "):
                    layer = layer[5:]
                if kind == 4 and layer.startswith(self.pkg + "/"):
                    self.pids.add(f.get(4))

    def bundle(self, i, end):
        for num, wt, v in fields(self.b, i, end):
            if num == 2 and wt == 2:
                self.event(*v)

    def event(self, i, end):
        ts = tid = 0
        line = None
        for num, wt, v in fields(self.b, i, end):
            if num == 1:
                ts = v
            elif num == 2:
                tid = v
            elif num == 3 and wt == 2:
                for n2, w2, v2 in fields(self.b, *v):
                    if n2 == 2:
                        line = text(self.b, v2).rstrip("\n\x00")
        if line is not None:
            self.marks.append((tid, ts, len(self.marks), line))


def slices(marks):
    """(tid, tgid, name, start, end) of every finished slice."""
    out = []
    stacks = {}
    for tid, ts, _, line in sorted(marks):
        if line.startswith("B|"):
            parts = line.split("|", 2)
            if len(parts) == 3 and parts[1].isdigit():
                stacks.setdefault(tid, []).append((int(parts[1]), parts[2], ts))
        elif line == "E" or line.startswith("E|"):
            st = stacks.get(tid)
            if st:
                tgid, name, start = st.pop()
                out.append((tid, tgid, name, start, ts))
    return out


def frame_id(name):
    last = name.rsplit(" ", 1)[-1]
    return int(last) if " " in name and last.isdigit() else None


def percentile(sorted_vals, p):
    ideal = p / 100 * (len(sorted_vals) - 1)
    first = int(ideal)
    a = sorted_vals[first]
    b = sorted_vals[first + 1] if first + 1 < len(sorted_vals) else a
    r = ideal - first
    return a * (1 - r) + b * r


def percentiles(vals):
    if not vals:
        return None
    vals = sorted(vals)
    return [percentile(vals, p) for p in (50, 90, 95, 99)]


def main():
    pkg, path = sys.argv[1], sys.argv[2]
    with open(path, "rb") as f:
        r = Reader(f.read(), pkg)
    r.read()
    actual, expected = {}, {}
    for cookie, (kind, ts, f) in r.starts.items():
        end = r.ends.get(cookie)
        if end is None or end <= ts or f.get(4) not in r.pids:
            continue
        key = (f.get(4), f.get(2))
        side = actual if kind == 4 else expected
        if key not in side or ts < side[key][0]:
            side[key] = (ts, end)
    ui, rt = {}, []
    for tid, tgid, name, start, end in slices(r.marks):
        if tgid not in r.pids or end <= start:
            continue
        if tid == tgid and name.startswith("Choreographer#doFrame") and "resynced" not in name:
            i = frame_id(name)
            if i is not None and (i not in ui or start < ui[i][0]):
                ui[i] = (start, end)
        elif tid != tgid and name.startswith("DrawFrame"):
            rt.append((frame_id(name), tgid, start, end))
    cpu, over = [], []
    if ui and rt:
        for i, tgid, start, end in rt:
            if i not in ui:
                continue
            a, e = actual.get((tgid, i)), expected.get((tgid, i))
            if actual and (a is None or e is None):
                continue
            cpu.append((end - ui[i][0]) / 1e6)
            if a is not None:
                over.append((a[1] - e[1]) / 1e6)
    else:
        for key, (ts, end) in actual.items():
            if key in expected:
                over.append((end - expected[key][1]) / 1e6)
    out = {"frames": max(len(cpu), len(over)), "cpu": percentiles(cpu),
           "overrun": percentiles(over), "cpu_absent": not (ui and rt)}
    json.dump(out, sys.stdout, sort_keys=True)
    print()


if __name__ == "__main__":
    main()
