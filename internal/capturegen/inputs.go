package capturegen

import (
	"bytes"
	"encoding/binary"
	"strings"

	"github.com/perfgate/perfgate/internal/fixtures"
)

// GfxInfoInputs are the captures the streamed gfxinfo reading is checked
// against the whole-capture parser on: real captures (read from the
// fixtures folder; skipped where it is absent), a generated one of 5,000
// frames at 90 Hz, the same with rows the fast path leaves to the common
// one (spaces, a 19-digit value), and the generated one with CRLF line
// ends and as UTF-16LE, as captures saved on Windows are, and 4,000
// frames of each of HourShapes.
func GfxInfoInputs(t fixtures.TB) map[string][]byte {
	var gen bytes.Buffer
	if err := (Capture{Frames: 5000, Hz: 90, JankEvery: 7, FlaggedEvery: 11}).GfxInfo(&gen); err != nil {
		t.Fatalf("capturegen: %v", err)
	}
	inputs := map[string][]byte{"generated": gen.Bytes()}
	for _, name := range []string{
		"gfxinfo_framestats/soundvis_120hz_android13plus_scroll.txt",
		"gfxinfo_framestats/anavmode_all_processes_topicon_t865_60hz.txt",
		"gfxinfo_framestats/yuvaupdate_reactnative_android12plus_utf16le.txt",
		"gfxinfo_framestats/androidviewclient_test_api23_rows_with_placeholders.txt",
		"gfxinfo_framestats/labaffinity_blog_api23_rows_with_input_events.txt",
	} {
		inputs[name] = fixtures.Read(t, name)
	}
	odd := bytes.Replace(gen.Bytes(), []byte("\n0,"), []byte("\n 0, "), 1)
	i := len(odd) / 2
	i += bytes.IndexByte(odd[i:], '\n') + 1
	odd = append(odd[:i:i], append([]byte("1,1000000000000000000,1,1000000000000000001,"+strings.Repeat("0,", 19)+"\n"), odd[i:]...)...)
	inputs["generated with odd rows"] = odd
	crlf := bytes.ReplaceAll(gen.Bytes(), []byte("\n"), []byte("\r\n"))
	inputs["generated, CRLF"] = crlf
	inputs["generated, CRLF, UTF-16LE"] = UTF16(string(crlf), binary.LittleEndian)
	for _, s := range HourShapes() {
		s.Frames = 4000
		inputs["shape "+s.Name] = s.Bytes("gfxinfo")
	}
	return inputs
}
