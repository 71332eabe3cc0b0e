#!/usr/bin/env python3
"""An independent class histogram of an hprof heap dump, for the Go reader's test.

Reads the whole dump (gzipped or not) into memory and walks it with struct,
then prints one line per class: name, TAB, instances, TAB, shallow bytes.
Shallow bytes: an instance's field bytes, an object array's length times
the identifier size, a primitive array's length times its element size.
Standard library only.
"""
import gzip
import struct
import sys

PRIM = {4: ("boolean[]", 1), 5: ("char[]", 2), 6: ("float[]", 4), 7: ("double[]", 8),
        8: ("byte[]", 1), 9: ("short[]", 2), 10: ("int[]", 4), 11: ("long[]", 8)}


def main(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rb") as f:
        data = f.read()
    nul = data.index(b"\0")
    pos = nul + 1
    ids = struct.unpack_from(">I", data, pos)[0]
    pos += 12
    idfmt = ">I" if ids == 4 else ">Q"

    def rid(p):
        return struct.unpack_from(idfmt, data, p)[0]

    strings, load, inst = {}, {}, {}
    prim = {}
    while pos < len(data):
        tag = data[pos]
        length = struct.unpack_from(">I", data, pos + 5)[0]
        body, end = pos + 9, pos + 9 + length
        if tag == 0x01:
            strings[rid(body)] = data[body + ids:end].decode("utf-8", "replace")
        elif tag == 0x02:
            load[rid(body + 4)] = rid(body + 8 + ids)
        elif tag in (0x0C, 0x1C):
            walk(data, body, end, ids, rid, inst, prim)
        pos = end
    rows = {}
    for cls, (n, size) in inst.items():
        name = strings.get(load.get(cls), "class@0x%x" % cls) if cls in load else "class@0x%x" % cls
        r = rows.setdefault(name, [0, 0])
        r[0] += n
        r[1] += size
    for t, (n, size) in prim.items():
        r = rows.setdefault(PRIM[t][0], [0, 0])
        r[0] += n
        r[1] += size
    for name in sorted(rows):
        sys.stdout.write("%s\t%d\t%d\n" % (name, rows[name][0], rows[name][1]))


# Bytes after the tag of the root sub-records, as (identifiers, bytes).
ROOTS = {0xFF: (1, 0), 0x01: (2, 0), 0x02: (1, 8), 0x03: (1, 8), 0x04: (1, 4), 0x05: (1, 0),
         0x06: (1, 4), 0x07: (1, 0), 0x08: (1, 8), 0x89: (1, 0), 0x8A: (1, 0), 0x8B: (1, 0),
         0x8C: (1, 0), 0x8D: (1, 0), 0x8E: (1, 8), 0x90: (1, 0)}


def vsize(t, ids):
    return ids if t in (1, 2) else PRIM[t][1]


def walk(data, p, end, ids, rid, inst, prim):
    while p < end:
        tag = data[p]
        p += 1
        if tag in ROOTS:
            a, b = ROOTS[tag]
            p += a * ids + b
        elif tag == 0xFE:
            p += 4 + ids
        elif tag == 0x20:
            p += 7 * ids + 8
            n = struct.unpack_from(">H", data, p)[0]
            p += 2
            for _ in range(n):
                p += 3 + vsize(data[p + 2], ids)
            n = struct.unpack_from(">H", data, p)[0]
            p += 2
            for _ in range(n):
                p += ids + 1 + vsize(data[p + ids], ids)
            n = struct.unpack_from(">H", data, p)[0]
            p += 2 + n * (ids + 1)
        elif tag == 0x21:
            cls = rid(p + ids + 4)
            n = struct.unpack_from(">I", data, p + 2 * ids + 4)[0]
            e = inst.setdefault(cls, [0, 0])
            e[0] += 1
            e[1] += n
            p += 2 * ids + 8 + n
        elif tag == 0x22:
            n = struct.unpack_from(">I", data, p + ids + 4)[0]
            cls = rid(p + ids + 8)
            e = inst.setdefault(cls, [0, 0])
            e[0] += 1
            e[1] += n * ids
            p += 2 * ids + 8 + n * ids
        elif tag in (0x23, 0xC3):
            n = struct.unpack_from(">I", data, p + ids + 4)[0]
            t = data[p + ids + 8]
            e = prim.setdefault(t, [0, 0])
            e[0] += 1
            e[1] += n * PRIM[t][1]
            p += ids + 9 + (n * PRIM[t][1] if tag == 0x23 else 0)
        else:
            raise SystemExit("unknown sub-record 0x%02X at %d" % (tag, p - 1))


if __name__ == "__main__":
    main(sys.argv[1])
