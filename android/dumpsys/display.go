package dumpsys

import (
	"github.com/perfgate/perfgate/android/devtext"
	"regexp"
	"strconv"
	"strings"
)

// DisplayMode is one entry of a display's supportedModes.
type DisplayMode struct {
	ID            int
	Width, Height int
	FPS           float64
}

// DisplayRefresh is the refresh rate of the built-in display from `dumpsys
// display`.
type DisplayRefresh struct {
	// ActiveHz is the refresh rate in use: the fps of the mode whose id is
	// the active modeId, else renderFrameRate, else mRefreshRate=, else a
	// "N fps" figure.
	ActiveHz float64
	// RenderHz is "renderFrameRate" (Android 14+): the rate apps render at,
	// which can be a divisor of ActiveHz. 0 when absent.
	RenderHz float64
	ModeID   int // active modeId; 0 when absent
	Modes    []DisplayMode
}

var (
	displayModeRE    = regexp.MustCompile(`\{id=(\d+), width=(\d+), height=(\d+), fps=([0-9.]+)`)
	displayModeIDRE  = regexp.MustCompile(`\bmode(?:Id)? (\d+)`)
	displayRenderRE  = regexp.MustCompile(`renderFrameRate ([0-9.]+)`)
	displayRefreshRE = regexp.MustCompile(`mRefreshRate=([0-9.]+)`)
	displayFPSRE     = regexp.MustCompile(`([0-9.]+) fps`)
)

// DisplaySource names `dumpsys display` in errors.
const DisplaySource = "dumpsys display"

// ParseDisplayRefresh reads the built-in display's refresh rates from
// `dumpsys display` (whole, or grepped for DisplayDeviceInfo/mRefreshRate).
// The first DisplayDeviceInfo{...} line is the built-in screen; without one
// the first line mentioning a rate is used.
func ParseDisplayRefresh(b []byte) (DisplayRefresh, error) {
	text := string(devtext.Normalize(b))
	line := ""
	for _, ln := range strings.Split(text, "\n") {
		if strings.Contains(ln, "DisplayDeviceInfo{") {
			line = ln
			break
		}
	}
	var d DisplayRefresh
	if line != "" {
		for _, m := range displayModeRE.FindAllStringSubmatch(line, -1) {
			id, _ := strconv.Atoi(m[1])
			w, _ := strconv.Atoi(m[2])
			h, _ := strconv.Atoi(m[3])
			fps, err := strconv.ParseFloat(m[4], 64)
			if err != nil {
				return DisplayRefresh{}, &devtext.ParseError{Source: DisplaySource, Text: line, Reason: "bad fps " + strconv.Quote(m[4])}
			}
			d.Modes = append(d.Modes, DisplayMode{ID: id, Width: w, Height: h, FPS: fps})
		}
		if m := displayModeIDRE.FindStringSubmatch(line); m != nil {
			d.ModeID, _ = strconv.Atoi(m[1])
		}
		if m := displayRenderRE.FindStringSubmatch(line); m != nil {
			d.RenderHz, _ = strconv.ParseFloat(m[1], 64)
		}
		for _, m := range d.Modes {
			if m.ID == d.ModeID {
				d.ActiveHz = m.FPS
			}
		}
	}
	if d.ActiveHz == 0 {
		d.ActiveHz = d.RenderHz
	}
	for _, re := range []*regexp.Regexp{displayRefreshRE, displayFPSRE} {
		if d.ActiveHz != 0 {
			break
		}
		if m := re.FindStringSubmatch(text); m != nil {
			d.ActiveHz, _ = strconv.ParseFloat(m[1], 64)
		}
	}
	if d.ActiveHz <= 0 {
		return DisplayRefresh{}, &devtext.ParseError{Source: DisplaySource, Reason: "no refresh rate (modeId with supportedModes, renderFrameRate, mRefreshRate= or 'N fps')"}
	}
	return d, nil
}
