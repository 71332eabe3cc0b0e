package frames

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/perfgate/perfgate/android/devtext"
	"github.com/perfgate/perfgate/android/dumpsys"
	"github.com/perfgate/perfgate/android/gfxinfo"
	"github.com/perfgate/perfgate/android/logcat"
	"github.com/perfgate/perfgate/android/procfs"
	"github.com/perfgate/perfgate/android/profiler"
	"github.com/perfgate/perfgate/android/surfaceflinger"
	"github.com/perfgate/perfgate/internal/excerpt"
	"github.com/perfgate/perfgate/internal/fixtures"
)

// A bad row of 5 MB gives a message of a line, quoting a bounded excerpt
// of the row and of the token that was bad.
func TestParseErrorBounded(t *testing.T) {
	row := "cpu " + strings.Repeat("9", 5<<20) + "x 1 2 3 4 5 6 7"
	_, err := procfs.ParseStat([]byte(row + "\n"))
	if err == nil {
		t.Fatal("a bad /proc/stat row parsed")
	}
	if len(err.Error()) > 1000 || !strings.Contains(err.Error(), "bytes)") {
		t.Errorf("a %d-byte error for a %d-byte row: %.300s", len(err.Error()), len(row), err)
	}
	e := &devtext.ParseError{Source: "x", Line: 3, Text: strings.Repeat("\xff", 5<<20), Reason: "bad"}
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
	e(profiler.ParseARTTrace(b))
	e(dumpsys.ParseBattery(b))
	e(dumpsys.ParseBatteryUevent(b))
	e(dumpsys.ParseBatteryCurrentNow(b))
	e(dumpsys.ParseBatteryVoltageNow(b))
	e(procfs.ParseCPUSnapshot(b))
	e(dumpsys.ParseCPUInfo(b))
	e(procfs.ParseCPUList(b))
	e(dumpsys.ParseDisplayRefresh(b))
	e(gfxinfo.Parse(b))
	e(gfxinfo.Scan(bytes.NewReader(b)))
	e(logcat.Parse(b))
	e(dumpsys.ParseMeminfoAll(b))
	e(dumpsys.ParseMeminfoTotalPSSByProcess(b))
	e(procfs.ParseMeminfo(b))
	e(dumpsys.ParsePackageList(b))
	e(dumpsys.ParsePidof(b))
	e(dumpsys.ParsePS(b))
	e(dumpsys.ParsePackage(b))
	e(dumpsys.ParseTop(b))
	_, _, err := dumpsys.ParseResumedActivity(b)
	add(err)
	e(procfs.ParseStat(b))
	e(procfs.ParsePidStat(b))
	e(procfs.ParsePidStats(b))
	e(procfs.ParseStatus(b))
	e(profiler.ParseSimpleperfSamples(b))
	e(dumpsys.ParseAmStart(b))
	e(surfaceflinger.ParseLatency(b))
	_, _, err = surfaceflinger.ScanLatency(bytes.NewReader(b))
	add(err)
	layers, err := surfaceflinger.ParseList(b)
	add(err)
	e(surfaceflinger.PickLayer(layers, string(b)))
	e(surfaceflinger.ParseFrameCounter(b))
	e(surfaceflinger.ParseTimeStats(b))
	e(dumpsys.ParseThermalZones(b))
	e(dumpsys.ParseThermalService(b))
	e(procfs.ParseTrafficQtaguid(b))
	e(procfs.ParseTrafficUIDStat(b))
	e(procfs.ParseTrafficNetDev(b))
	e(dumpsys.ParseNetstats(b))
	e(procfs.ParseUptime(b))
	add(dumpsys.ValidatePackage(string(b)))
	e(devtext.ReadText(bytes.NewReader(b), "fuzz", 1<<10))
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
			for _, ln := range bytes.Split(devtext.Normalize(b), []byte("\n")) {
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
