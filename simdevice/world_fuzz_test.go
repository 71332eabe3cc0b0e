package simdevice

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// FuzzParseWorkload feeds arbitrary JSON to the workload parser; whatever
// it accepts must simulate without panicking and keep frames in order.
func FuzzParseWorkload(f *testing.F) {
	if b, err := os.ReadFile(filepath.Join("testdata", "workload.json")); err == nil {
		f.Add(b)
	}
	for _, n := range PresetNames() {
		p, _ := Preset(n)
		b, _ := json.Marshal(p)
		f.Add(b)
	}
	f.Add([]byte(`{"package":"a.b","uid":10000,"activity":".A","startup":{"cold_ms":1},"launch":"p","phases":[{"name":"p","every_vsyncs":1,"janks":[{"every":1,"ms":0.001}]}]}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		wl, err := ParseWorkload(b)
		if err != nil {
			return
		}
		w, clk := newTestWorld(t, Config{API: 33, Workload: wl})
		wlaunch(t, w)
		w.Screen().Tap(500, 2270)
		clk.advance(1500 * time.Millisecond)
		w.Screen().Swipe(1, 2, 3, 4, time.Millisecond)
		clk.advance(1500 * time.Millisecond)
		fr := w.TruthFrames()
		for i := 1; i < len(fr); i++ {
			if fr[i].Present <= fr[i-1].Present || fr[i].IntendedVsync <= fr[i-1].IntendedVsync {
				t.Fatalf("frame %d out of order: %+v after %+v", i, fr[i], fr[i-1])
			}
		}
		wdumpsys(w, "gfxinfo", wl.Package, "framestats")
		wdumpsys(w, "meminfo", wl.Package)
	})
}

// FuzzWorldCommands runs arbitrary argument lists through every command a
// shell hands to the World: none may panic, and a bad argument is an error
// status, not a crash.
func FuzzWorldCommands(f *testing.F) {
	for _, s := range []string{
		"am start -W -S -n com.perfgate.demo/.MainActivity", "am force-stop com.perfgate.demo", "am start -n",
		"input tap 500 2270", "input swipe 1 2 3 4 500", "input keyevent KEYCODE_BACK 3", "input text hello",
		"pm list packages -f -U demo", "pm path com.perfgate.demo", "ps -A", "ps -T -p 1", "ps -ef", "pidof com.perfgate.demo",
		"logcat -d -v time -T 1", "logcat -d -T '11-22 09:00:00.000'", "logcat -d -b crash,main *:E", "service call SurfaceFlinger 1013",
		"dumpsys gfxinfo com.perfgate.demo framestats", "dumpsys SurfaceFlinger --latency", "dumpsys meminfo 1",
		"dumpsys netstats detail", "dumpsys display", "monkey -p com.perfgate.demo -c android.intent.category.LAUNCHER 1",
		"pm compile -m speed -f com.perfgate.demo", "pm compile --reset com.perfgate.demo", "pm compile -m", "dumpsys package com.perfgate.demo",
		"am broadcast -a androidx.profileinstaller.action.INSTALL_PROFILE -n com.perfgate.demo/androidx.profileinstaller.ProfileInstallReceiver",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		args := strings.Fields(line)
		if len(args) == 0 {
			return
		}
		w, clk := newTestWorld(t, Config{API: 28})
		wlaunch(t, w)
		clk.advance(time.Second)
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		var o, e bytes.Buffer
		rest := args[1:]
		switch args[0] {
		case "am":
			w.Am(ctx, rest, &o, &e)
		case "input":
			w.Input(rest, &o, &e)
		case "pm":
			w.Pm(rest, &o, &e)
		case "ps":
			w.Ps(rest, &o, &e)
		case "pidof":
			w.Pidof(rest, &o, &e)
		case "logcat":
			w.Logcat(ctx, append([]string{"-d"}, rest...), &o, &e)
		case "service":
			if len(rest) > 0 {
				w.ServiceCall(rest[1:], &o, &e)
			}
		case "dumpsys":
			w.Dumpsys(rest, &o, &e)
		case "monkey":
			w.Monkey(ctx, rest, &o, &e)
		default:
			w.ReadFile(line)
			w.ReadDir(line)
		}
		clk.advance(time.Second)
		w.Truth()
	})
}
