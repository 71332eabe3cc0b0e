package format

import (
	"encoding/binary"
	"fmt"
	"strings"
)

// ARTRecord is one record of an ART method trace: thread tid entered
// (Exit false) or left the method with id Method (a multiple of 4) at Us µs
// after the trace began.
type ARTRecord struct {
	TID    uint16
	Method uint32
	Exit   bool
	Us     uint32
}

// ARTTrace lays out an ART method trace file as ART's trace.cc writes one
// of version 3 with both clocks (`am profile start --sampling`): the text
// header, then the "SLOW" data header and 14-byte records (tid, method and
// action, thread CPU µs, wall µs). methods[i] is the method with id 4·i,
// as "class\tname\tsignature\tfile".
func ARTTrace(pid int, startUs, elapsedUs uint64, threads map[int]string, tids []int, methods []string, recs []ARTRecord) []byte {
	var b strings.Builder
	fmt.Fprintf(&b, "*version\n3\ndata-file-overflow=false\nclock=dual\nelapsed-time-usec=%d\nnum-method-calls=%d\nclock-call-overhead-nsec=2200\nvm=art\npid=%d\n", elapsedUs, len(recs), pid)
	b.WriteString("*threads\n")
	for _, tid := range tids {
		fmt.Fprintf(&b, "%d\t%s\n", tid, threads[tid])
	}
	b.WriteString("*methods\n")
	for i, m := range methods {
		// C's %#x, which ART uses, prints 0 without the 0x.
		id := fmt.Sprintf("%#x", i<<2)
		if i == 0 {
			id = "0"
		}
		fmt.Fprintf(&b, "%s\t%s\n", id, m)
	}
	b.WriteString("*end\n")
	out := []byte(b.String())
	hdr := make([]byte, 32)
	binary.LittleEndian.PutUint32(hdr, 0x574f4c53)
	binary.LittleEndian.PutUint16(hdr[4:], 3)
	binary.LittleEndian.PutUint16(hdr[6:], 32)
	binary.LittleEndian.PutUint64(hdr[8:], startUs)
	binary.LittleEndian.PutUint16(hdr[16:], 14)
	out = append(out, hdr...)
	for _, r := range recs {
		rec := make([]byte, 14)
		binary.LittleEndian.PutUint16(rec, r.TID)
		mv := r.Method
		if r.Exit {
			mv |= 1
		}
		binary.LittleEndian.PutUint32(rec[2:], mv)
		binary.LittleEndian.PutUint32(rec[6:], r.Us/2) // the thread's CPU time: about half the wall time
		binary.LittleEndian.PutUint32(rec[10:], r.Us)
		out = append(out, rec...)
	}
	return out
}
