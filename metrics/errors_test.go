package metrics

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/perfgate/perfgate/internal/excerpt"
	"github.com/perfgate/perfgate/internal/fixtures"
)

// A bad row of 5 MB gives a message of a line, quoting a bounded excerpt
// of the row and of the token that was bad.
func TestParseErrorBounded(t *testing.T) {
	row := "cpu " + strings.Repeat("9", 5<<20) + "x 1 2 3 4 5 6 7"
	_, err := ParseProcStat([]byte(row + "\n"))
	if err == nil {
		t.Fatal("a bad /proc/stat row parsed")
	}
	if len(err.Error()) > 1000 || !strings.Contains(err.Error(), "bytes)") {
		t.Errorf("a %d-byte error for a %d-byte row: %.300s", len(err.Error()), len(row), err)
	}
	e := &ParseError{Source: "x", Line: 3, Text: strings.Repeat("\xff", 5<<20), Reason: "bad"}
	if n := len(e.Error()); n > 400 {
		t.Errorf("ParseError of a 5 MB line: %d bytes", n)
	}
}

// parseAll runs every parser of the package that can fail over b and
// returns their errors.
func parseAll(b []byte) []error {
	var errs []error
	add := func(err error) {
		if err != nil {
			errs = append(errs, err)
		}
	}
	e := func(_ any, err error) { add(err) }
	e(ParseARTTrace(b))
	e(ParseBatteryDumpsys(b))
	e(ParseBatteryUevent(b))
	e(ParseBatteryCurrentNow(b))
	e(ParseBatteryVoltageNow(b))
	e(ParseCPUSnapshot(b))
	e(ParseCPUInfo(b))
	e(ParseCPUList(b))
	e(ParseDisplayRefresh(b))
	e(ParseGfxInfo(b))
	e(ScanGfxInfo(bytes.NewReader(b)))
	e(ParseLogcat(b))
	e(ParseMeminfoAll(b))
	e(ParseMeminfoTotalPSSByProcess(b))
	e(ParseProcMeminfo(b))
	e(ParsePackageList(b))
	e(ParsePidof(b))
	e(ParsePS(b))
	e(ParseDumpsysPackage(b))
	e(ParseTop(b))
	_, _, err := ParseResumedActivity(b)
	add(err)
	e(ParseProcStat(b))
	e(ParseProcPidStat(b))
	e(ParseProcPidStats(b))
	e(ParseProcStatus(b))
	e(ParseSimpleperfSamples(b))
	e(ParseAmStart(b))
	e(ParseSurfaceFlingerLatency(b))
	_, _, err = ScanSurfaceFlingerLatency(bytes.NewReader(b))
	add(err)
	layers, err := ParseSurfaceFlingerList(b)
	add(err)
	e(PickLayer(layers, string(b)))
	e(ParseSurfaceFlingerFrameCounter(b))
	e(ParseSurfaceFlingerTimeStats(b))
	e(ParseThermalZones(b))
	e(ParseThermalService(b))
	e(ParseTrafficQtaguid(b))
	e(ParseTrafficUIDStat(b))
	e(ParseTrafficNetDev(b))
	e(ParseTrafficNetstats(b))
	e(ParseProcUptime(b))
	add(ValidatePackage(string(b)))
	e(ReadText(bytes.NewReader(b), "fuzz", 1<<10))
	return errs
}

// FuzzErrorsBounded: every error of every parser quotes a bounded excerpt
// of the text, however long its lines or tokens and whatever their bytes
// (invalid UTF-8 quotes four bytes a byte): no quote longer than
// excerpt.Max, no message longer than excerpt.MaxMessage. The seeds are
// the real captures, and each with every line, or its first word, made a
// long run of bad bytes.
func FuzzErrorsBounded(f *testing.F) {
	if root, err := fixtures.Root(); err == nil {
		paths, _ := filepath.Glob(filepath.Join(root, "*", "*"))
		bad := bytes.Repeat([]byte("9\xff"), 300)
		for _, p := range paths {
			b, err := os.ReadFile(p)
			if err != nil || len(b) > 64<<10 {
				continue
			}
			f.Add(b)
			var appended, first []byte
			for _, ln := range bytes.Split(Normalize(b), []byte("\n")) {
				appended = append(append(append(appended, ln...), bad...), '\n')
				if i := bytes.IndexAny(ln, " :=,\t"); i > 0 {
					ln = append(append([]byte(nil), bad...), ln[i:]...)
				}
				first = append(append(first, ln...), '\n')
			}
			f.Add(appended)
			f.Add(first)
		}
	}
	f.Add([]byte("16666666\n" + strings.Repeat("\xff", 3000) + "\n"))
	f.Add([]byte("cpu " + strings.Repeat("9", 3000) + "x 1 2 3 4 5 6 7\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		for _, err := range parseAll(b) {
			if cerr := excerpt.Check(err.Error()); cerr != nil {
				t.Fatalf("%v\nof %T: %.300v", cerr, err, err)
			}
		}
	})
}
