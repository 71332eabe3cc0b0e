package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"strings"

	"github.com/perfgate/perfgate/android/gfxinfo"
	"github.com/perfgate/perfgate/android/surfaceflinger"
	"github.com/perfgate/perfgate/frames"
)

// framesOutput is what `perfgate analyze frames` prints: the summary of one
// window plus, for gfxinfo, the windows it did not pick.
type framesOutput struct {
	frames.Summary
	// RefreshFrom says where R came from: "capture" or "flag".
	RefreshFrom string `json:"refresh_from"`
	// Rejected counts the window's rows that were not frames, by reason
	// (gfxinfo.Reject).
	Rejected     gfxinfo.Rejects `json:"rejected"`
	OtherWindows []framesWindow  `json:"other_windows,omitempty"`
}

type framesWindow struct {
	Window   string          `json:"window"`
	Frames   int             `json:"frames"`
	Rejected gfxinfo.Rejects `json:"rejected"`
}

func analyzeFrames(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("analyze frames", flag.ContinueOnError)
	fs.SetOutput(stderr)
	source := fs.String("source", "auto", "capture kind: auto, surfaceflinger or gfxinfo")
	refreshHz := fs.Float64("refresh-hz", 0, "display refresh rate, used when the capture does not give the vsync period")
	window := fs.String("window", "", "gfxinfo: analyze the window whose name contains this text (default: the one with most frames)")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: perfgate analyze frames [-source auto|surfaceflinger|gfxinfo] [-refresh-hz F] [-window SUBSTRING] FILE")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		fs.Usage()
		return errors.New("analyze frames: give exactly one capture file")
	}
	if *refreshHz < 0 || math.IsNaN(*refreshHz) || math.IsInf(*refreshHz, 0) {
		return fmt.Errorf("analyze frames: -refresh-hz %v is not a rate", *refreshHz)
	}
	name := fs.Arg(0)
	// The capture is read as a stream: an hour at 120 Hz is over 100 MB.
	file, err := os.Open(name)
	if err != nil {
		return fmt.Errorf("analyze frames: %w", err)
	}
	defer file.Close()
	// The parsers are handed the file itself, whose size lets them
	// reserve the frames' memory at once; the kind is told from its start.
	var in io.Reader = file
	kind := *source
	if kind == "auto" {
		head := make([]byte, 1<<20)
		n, err := file.ReadAt(head, 0)
		if err != nil && !errors.Is(err, io.EOF) {
			// Not a file one can read at an offset (a pipe): its start
			// is peeked through a buffer the parsers then read.
			br := bufio.NewReaderSize(file, 1<<20)
			head, err = br.Peek(1 << 20)
			if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, bufio.ErrBufferFull) {
				return fmt.Errorf("analyze frames: %w", err)
			}
			n, in = len(head), br
		}
		kind = framesDetect(head[:n])
		if kind == "" {
			return fmt.Errorf("analyze frames: %s: neither gfxinfo framestats nor SurfaceFlinger --latency output; say which with -source", name)
		}
	}
	flagPeriod := int64(0)
	if *refreshHz > 0 {
		flagPeriod = int64(math.Round(1e9 / *refreshHz))
	}
	var out framesOutput
	switch kind {
	case frames.SourceSurfaceFlinger:
		out, err = framesSurfaceFlinger(in, flagPeriod)
	case frames.SourceGfxInfo:
		out, err = framesGfxInfo(in, flagPeriod, *window)
	default:
		return fmt.Errorf("analyze frames: -source %q: want auto, surfaceflinger or gfxinfo", kind)
	}
	if err != nil {
		return fmt.Errorf("analyze frames: %s: %w", name, err)
	}
	enc := json.NewEncoder(stdout)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}

// framesDetect tells the two capture kinds apart by the start of the
// capture: gfxinfo has its banner or PROFILEDATA markers; --latency starts
// with a lone integer.
func framesDetect(head []byte) string {
	switch {
	case gfxinfo.IsDump(head):
		return frames.SourceGfxInfo
	case surfaceflinger.IsLatency(head):
		return frames.SourceSurfaceFlinger
	}
	return ""
}

func framesSurfaceFlinger(in io.Reader, flagPeriod int64) (framesOutput, error) {
	// The present times held in 4 bytes a frame: a GB of rows is 22
	// million frames.
	lat, times, err := surfaceflinger.ScanTimes(in)
	if err != nil {
		return framesOutput{}, err
	}
	period, from := lat.RefreshPeriod, "capture"
	if period <= 0 {
		period, from = flagPeriod, "flag"
	}
	if period <= 0 {
		return framesOutput{}, errors.New("no refresh period: the first line is 0; give -refresh-hz")
	}
	return framesOutput{
		Summary:     frames.SummarizeSurfaceFlingerTimes(times, period),
		RefreshFrom: from,
		Rejected:    lat.Rejected,
	}, nil
}

func framesGfxInfo(in io.Reader, flagPeriod int64, want string) (framesOutput, error) {
	sc, err := gfxinfo.Scan(in)
	if err != nil {
		return framesOutput{}, err
	}
	best := -1
	for i, w := range sc.Windows {
		if want != "" && !strings.Contains(w.Window.Name, want) && !strings.Contains(w.Window.Title, want) {
			continue
		}
		if best < 0 || len(w.Frames) > len(sc.Windows[best].Frames) {
			best = i
		}
	}
	if len(sc.Windows) == 0 {
		return framesOutput{}, errors.New("no PROFILEDATA block: capture with `dumpsys gfxinfo <pkg> framestats`")
	}
	if best < 0 {
		return framesOutput{}, fmt.Errorf("no window matches -window %q", want)
	}
	picked := sc.Windows[best]
	period, from := picked.RefreshPeriod, "capture"
	if period <= 0 {
		period, from = flagPeriod, "flag"
	}
	if period <= 0 {
		return framesOutput{}, errors.New("no refresh period: this gfxinfo has no FrameInterval column; give -refresh-hz")
	}
	out := framesOutput{Summary: frames.SummarizeGfxInfoTimes(picked.Frames, period), RefreshFrom: from, Rejected: picked.Rejected}
	out.Window = picked.Window.Label()
	for i, w := range sc.Windows {
		if i != best {
			out.OtherWindows = append(out.OtherWindows, framesWindow{Window: w.Window.Label(), Frames: len(w.Frames), Rejected: w.Rejected})
		}
	}
	return out, nil
}
