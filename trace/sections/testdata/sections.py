#!/usr/bin/env python3
"""Trace sections of a Perfetto trace, computed apart from perfgate's Go.

Decodes the protobuf by hand (standard library only): Trace.packet (1) ->
TracePacket.ftrace_events (1) -> FtraceEventBundle.event (2) ->
FtraceEvent{timestamp 1, pid 2, print 3 -> PrintFtraceEvent.buf 2}.
Pairs each thread's atrace "B|tgid|name" and "E[|tgid]" markers in time
order, and each process's async "S|tgid|name|cookie" and "F|…" markers by
name and cookie, on any thread (androidx Macrobenchmark's
TraceSectionMetric: a section never ended is left out, async ones are on
no thread), keeps those of process PID, and prints, as JSON, for each
SPEC ("name" or "name%pattern", "main:" before it for the main thread
only) the count, first, min, max and sum of the durations (ns) of the
sections that begin in [START, END).

usage: sections.py TRACE PID START END SPEC...   (or: TRACE PID list)
"""
import json
import sys


def varint(b, i):
    v = s = 0
    while True:
        c = b[i]
        i += 1
        v |= (c & 0x7F) << s
        s += 7
        if c < 0x80:
            return v, i


def fields(b):
    i = 0
    while i < len(b):
        k, i = varint(b, i)
        num, wire = k >> 3, k & 7
        if wire == 0:
            v, i = varint(b, i)
        elif wire == 1:
            v, i = b[i:i + 8], i + 8
        elif wire == 2:
            n, i = varint(b, i)
            v, i = b[i:i + n], i + n
        elif wire == 5:
            v, i = b[i:i + 4], i + 4
        else:
            raise ValueError("wire type %d" % wire)
        yield num, v


def markers(data):
    order = 0
    for num, pkt in fields(data):
        if num != 1:
            continue
        for pn, bundle in fields(pkt):
            if pn != 1:
                continue
            for bn, ev in fields(bundle):
                if bn != 2:
                    continue
                ts = tid = None
                buf = None
                for en, v in fields(ev):
                    if en == 1:
                        ts = v
                    elif en == 2:
                        tid = v
                    elif en == 3:
                        for qn, qv in fields(v):
                            if qn == 2:
                                buf = qv
                if buf is None:
                    continue
                order += 1
                yield ts, tid, order, buf.rstrip(b"\n\x00").decode("utf-8", "replace")


def sections(data, pid):
    per = {}
    async_marks = []
    for ts, tid, order, text in markers(data):
        if text[:2] in ("S|", "F|"):
            head, _, cookie = text.rpartition("|")
            phase, tgid, name = head.split("|", 2)
            async_marks.append((ts, order, phase, int(tgid), name, cookie))
        else:
            per.setdefault(tid, []).append((ts, order, text))
    out = []
    open_async = {}
    for ts, _, phase, tgid, name, cookie in sorted(async_marks):
        key = (tgid, name, cookie)
        if phase == "S":
            open_async.setdefault(key, []).append(ts)
        elif open_async.get(key):
            start = open_async[key].pop()
            if tgid == pid:
                out.append((start, ts, name, False))
    for tid, ms in per.items():
        ms.sort()
        stack = []
        for ts, _, text in ms:
            if text.startswith("B|"):
                parts = text.split("|", 2)
                stack.append((ts, int(parts[1]), parts[2] if len(parts) > 2 and parts[2] else "[empty slice name]"))
            elif text == "E" or text.startswith("E|"):
                if stack:
                    start, tgid, name = stack.pop()
                    if tgid == pid:
                        out.append((start, ts, name, tid == tgid))
    return out


def like(pattern, name):
    parts = pattern.split("%")
    if len(parts) == 1:
        return name == pattern
    if not name.startswith(parts[0]):
        return False
    pos = len(parts[0])
    for p in parts[1:-1]:
        i = name.find(p, pos)
        if i < 0:
            return False
        pos = i + len(p)
    return len(name) - pos >= len(parts[-1]) and name.endswith(parts[-1])


def main():
    data = open(sys.argv[1], "rb").read()
    pid = int(sys.argv[2])
    ss = sections(data, pid)
    if sys.argv[3] == "list":
        names = {}
        for s in ss:
            names[s[2]] = names.get(s[2], 0) + 1
        for n, c in sorted(names.items(), key=lambda x: -x[1])[:40]:
            print(c, n)
        return
    lo, hi = int(sys.argv[3]), int(sys.argv[4])
    res = {}
    for spec in sys.argv[5:]:
        main_only = spec.startswith("main:")
        pat = spec[5:] if main_only else spec
        durs = [e - s for s, e, n, m in sorted(ss) if lo <= s < hi and like(pat, n) and (m or not main_only)]
        r = {"count": len(durs)}
        if durs:
            r.update(first=durs[0], min=min(durs), max=max(durs), sum=sum(durs))
        res[spec] = r
    json.dump(res, sys.stdout, sort_keys=True)


main()
