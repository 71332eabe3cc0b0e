package analyze

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/perfgate/perfgate/android/gfxinfo"
	"github.com/perfgate/perfgate/android/surfaceflinger"
	"github.com/perfgate/perfgate/frames"
)

// Frames is what `perfgate analyze frames` prints: the summary of one
// window plus, for gfxinfo, the windows it did not pick.
type Frames struct {
	frames.Summary
	// RefreshFrom says where R came from: "capture" or "flag".
	RefreshFrom string `json:"refresh_from"`
	// Rejected counts the window's rows that were not frames, by reason
	// (gfxinfo.Reject).
	Rejected     gfxinfo.Rejects `json:"rejected"`
	OtherWindows []FramesWindow  `json:"other_windows,omitempty"`
}

// FramesWindow is a gfxinfo window ReadFrames did not pick.
type FramesWindow struct {
	Window   string          `json:"window"`
	Frames   int             `json:"frames"`
	Rejected gfxinfo.Rejects `json:"rejected"`
}

// FramesOptions say how ReadFrames reads a capture.
type FramesOptions struct {
	// Source is the capture's kind: frames.SourceSurfaceFlinger,
	// frames.SourceGfxInfo, or "auto" (and "") to tell it from the
	// capture's start.
	Source string
	// RefreshPeriod is the vsync period in ns, used when the capture does
	// not give it; 0 for none.
	RefreshPeriod int64
	// Window picks the gfxinfo window whose name or title contains it;
	// "" picks the one with most frames.
	Window string
}

// ErrUnknownFormat is ReadFrames' error for a capture that is neither
// gfxinfo framestats nor SurfaceFlinger --latency output.
var ErrUnknownFormat = errors.New("neither gfxinfo framestats nor SurfaceFlinger --latency output")

// headSize is how much of a capture DetectFrames is shown.
const headSize = 1 << 20

// ReadFrames reads the frame capture r, named name in errors, as a stream
// (an hour at 120 Hz is over 100 MB) and summarises it. When r is an
// io.ReaderAt (an *os.File) the parsers are handed r itself, whose size
// lets them reserve the frames' memory at once.
func ReadFrames(r io.Reader, name string, o FramesOptions) (*Frames, error) {
	in, kind := r, o.Source
	if kind == "auto" || kind == "" {
		var head []byte
		var err error
		if in, head, err = peek(r); err != nil {
			return nil, err
		}
		if kind = DetectFrames(head); kind == "" {
			return nil, fmt.Errorf("%s: %w", name, ErrUnknownFormat)
		}
	}
	var out *Frames
	var err error
	switch kind {
	case frames.SourceSurfaceFlinger:
		out, err = framesSurfaceFlinger(in, o.RefreshPeriod)
	case frames.SourceGfxInfo:
		out, err = framesGfxInfo(in, o.RefreshPeriod, o.Window)
	default:
		return nil, fmt.Errorf("-source %q: want auto, surfaceflinger or gfxinfo", kind)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return out, nil
}

// peek returns the start of r's capture, and the reader that then reads
// all of it.
func peek(r io.Reader) (io.Reader, []byte, error) {
	if ra, ok := r.(io.ReaderAt); ok {
		head := make([]byte, headSize)
		n, err := ra.ReadAt(head, 0)
		if err == nil || errors.Is(err, io.EOF) {
			return r, head[:n], nil
		}
	}
	// Not a file one can read at an offset (a pipe): its start is peeked
	// through a buffer the parsers then read.
	br := bufio.NewReaderSize(r, headSize)
	head, err := br.Peek(headSize)
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, bufio.ErrBufferFull) {
		return nil, nil, err
	}
	return br, head, nil
}

// DetectFrames tells the two capture kinds apart by the start of the
// capture: gfxinfo has its banner or PROFILEDATA markers; --latency starts
// with a lone integer. It returns frames.SourceGfxInfo,
// frames.SourceSurfaceFlinger, or "" for neither.
func DetectFrames(head []byte) string {
	switch {
	case gfxinfo.IsDump(head):
		return frames.SourceGfxInfo
	case surfaceflinger.IsLatency(head):
		return frames.SourceSurfaceFlinger
	}
	return ""
}

// WriteJSON writes f as indented JSON.
func (f *Frames) WriteJSON(w io.Writer) error { return writeIndented(w, f, true) }

func framesSurfaceFlinger(in io.Reader, flagPeriod int64) (*Frames, error) {
	// The present times held in 4 bytes a frame: a GB of rows is 22
	// million frames.
	lat, times, err := surfaceflinger.ScanTimes(in)
	if err != nil {
		return nil, err
	}
	period, from := lat.RefreshPeriod, "capture"
	if period <= 0 {
		period, from = flagPeriod, "flag"
	}
	if period <= 0 {
		return nil, errors.New("no refresh period: the first line is 0; give -refresh-hz")
	}
	return &Frames{
		Summary:     frames.SummarizeSurfaceFlingerTimes(times, period),
		RefreshFrom: from,
		Rejected:    lat.Rejected,
	}, nil
}

func framesGfxInfo(in io.Reader, flagPeriod int64, want string) (*Frames, error) {
	sc, err := gfxinfo.Scan(in)
	if err != nil {
		return nil, err
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
		return nil, errors.New("no PROFILEDATA block: capture with `dumpsys gfxinfo <pkg> framestats`")
	}
	if best < 0 {
		return nil, fmt.Errorf("no window matches -window %q", want)
	}
	picked := sc.Windows[best]
	period, from := picked.RefreshPeriod, "capture"
	if period <= 0 {
		period, from = flagPeriod, "flag"
	}
	if period <= 0 {
		return nil, errors.New("no refresh period: this gfxinfo has no FrameInterval column; give -refresh-hz")
	}
	out := &Frames{Summary: frames.SummarizeGfxInfoTimes(picked.Frames, period), RefreshFrom: from, Rejected: picked.Rejected}
	out.Window = picked.Window.Label()
	for i, w := range sc.Windows {
		if i != best {
			out.OtherWindows = append(out.OtherWindows, FramesWindow{Window: w.Window.Label(), Frames: len(w.Frames), Rejected: w.Rejected})
		}
	}
	return out, nil
}
