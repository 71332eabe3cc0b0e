package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"strings"

	"github.com/perfgate/perfgate/metrics"
)

// framesOutput is what `perfgate analyze frames` prints: the summary of one
// window plus, for gfxinfo, the windows it did not pick.
type framesOutput struct {
	metrics.FrameSummary
	// RefreshFrom says where R came from: "capture" or "flag".
	RefreshFrom string `json:"refresh_from"`
	// Rejected counts the window's rows that were not frames, by reason
	// (metrics.FrameReject).
	Rejected     metrics.FrameRejects `json:"rejected"`
	OtherWindows []framesWindow       `json:"other_windows,omitempty"`
}

type framesWindow struct {
	Window   string               `json:"window"`
	Frames   int                  `json:"frames"`
	Rejected metrics.FrameRejects `json:"rejected"`
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
	raw, err := os.ReadFile(name)
	if err != nil {
		return fmt.Errorf("analyze frames: %w", err)
	}
	kind := *source
	if kind == "auto" {
		kind = framesDetect(metrics.Normalize(raw))
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
	case metrics.FrameSourceSurfaceFlinger:
		out, err = framesSurfaceFlinger(raw, flagPeriod)
	case metrics.FrameSourceGfxInfo:
		out, err = framesGfxInfo(raw, flagPeriod, *window)
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

// framesDetect tells the two capture kinds apart by content: gfxinfo has its
// banner or PROFILEDATA markers; --latency starts with a lone integer.
func framesDetect(text []byte) string {
	if bytes.Contains(text, []byte("---PROFILEDATA---")) || bytes.Contains(text, []byte("Graphics info for pid")) ||
		bytes.Contains(text, []byte("Applications Graphics Acceleration Info")) {
		return metrics.FrameSourceGfxInfo
	}
	first := ""
	for _, ln := range strings.Split(string(text), "\n") {
		if first = strings.TrimSpace(ln); first != "" {
			break
		}
	}
	if first != "" && strings.Trim(first, "0123456789") == "" {
		return metrics.FrameSourceSurfaceFlinger
	}
	return ""
}

func framesSurfaceFlinger(raw []byte, flagPeriod int64) (framesOutput, error) {
	lat, err := metrics.ParseSurfaceFlingerLatency(raw)
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
		FrameSummary: metrics.FrameSummarizeSurfaceFlinger(lat.PresentTimes(), period),
		RefreshFrom:  from,
		Rejected:     lat.Rejected,
	}, nil
}

func framesGfxInfo(raw []byte, flagPeriod int64, want string) (framesOutput, error) {
	g, err := metrics.ParseGfxInfo(raw)
	if err != nil {
		return framesOutput{}, err
	}
	type cand struct {
		w        *metrics.GfxInfoWindow
		frames   []metrics.GfxInfoFrame
		rejected metrics.FrameRejects
	}
	var all []cand
	best := -1
	for _, w := range g.Windows() {
		if w.Frames == nil {
			continue
		}
		frames, rejected := metrics.GfxInfoFramesOf(w.Frames, g.ClockNs())
		c := cand{w, frames, rejected}
		all = append(all, c)
		if want != "" && !strings.Contains(w.Name, want) && !strings.Contains(w.Title, want) {
			continue
		}
		if best < 0 || len(c.frames) > len(all[best].frames) {
			best = len(all) - 1
		}
	}
	if len(all) == 0 {
		return framesOutput{}, errors.New("no PROFILEDATA block: capture with `dumpsys gfxinfo <pkg> framestats`")
	}
	if best < 0 {
		return framesOutput{}, fmt.Errorf("no window matches -window %q", want)
	}
	picked := all[best]
	period, from := picked.w.Frames.RefreshPeriod(), "capture"
	if period <= 0 {
		period, from = flagPeriod, "flag"
	}
	if period <= 0 {
		return framesOutput{}, errors.New("no refresh period: this gfxinfo has no FrameInterval column; give -refresh-hz")
	}
	out := framesOutput{FrameSummary: metrics.FrameSummarizeGfxInfo(picked.frames, period), RefreshFrom: from, Rejected: picked.rejected}
	out.Window = picked.w.Label()
	for i, c := range all {
		if i != best {
			out.OtherWindows = append(out.OtherWindows, framesWindow{Window: c.w.Label(), Frames: len(c.frames), Rejected: c.rejected})
		}
	}
	return out, nil
}
