package simdevice

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"
)

// cmdPm runs `cmd package ARGS` and returns its exit status and stdout.
func cmdPm(w *World, args string) (int, string) {
	var o, e bytes.Buffer
	st := w.cmd(context.Background(), append([]string{"package"}, strings.Fields(args)...), &o, &e)
	return st, o.String() + e.String()
}

// Compiling the app makes its cold start the workload's saving sooner:
// `cmd package compile -m speed -f` at once, speed-profile only once
// profileinstaller installed the baseline profile the APK ships; --reset
// undoes both. `dumpsys package` shows each state, and every start's
// truth names the filter it ran under, its bindApplication and first
// section shorter by the saving.
func TestCompilationChangesColdStart(t *testing.T) {
	wl := mustPreset(t, "slow-start")
	wl.Startup.ColdMs = 1000
	wl.Startup.Cold = ColdStart{BindApplicationMs: 400, Sections: []StartSection{{Name: "com.example.App.onCreate", Ms: 300}}, CompiledSavingMs: 150, BaselineProfile: true}
	// Root: a userdebug build, whose shell may --reset before Android 14.
	w, _ := newTestWorld(t, Config{Workload: wl, Root: true})
	var bcast bytes.Buffer
	for _, step := range []struct {
		cmd, filter string
		ms          time.Duration
	}{
		{"", "verify", 1000},
		{"compile -m speed -f " + wl.Package, "speed", 850},
		{"compile --reset " + wl.Package, "verify", 1000},
		{"compile -m speed-profile -f " + wl.Package, "speed-profile", 1000},
		{"broadcast", "speed-profile", 850},
		{"compile --reset " + wl.Package, "verify", 1000},
	} {
		switch step.cmd {
		case "":
		case "broadcast":
			w.Am(context.Background(), strings.Fields("broadcast -a androidx.profileinstaller.action.INSTALL_PROFILE -n "+wl.Package+"/androidx.profileinstaller.ProfileInstallReceiver"), &bcast, &bcast)
			if !strings.Contains(bcast.String(), "result=1") {
				t.Fatalf("broadcast: %s", bcast.String())
			}
		default:
			if st, out := cmdPm(w, step.cmd); st != 0 || strings.TrimSpace(out) != "Success" {
				t.Fatalf("%s: %d %q", step.cmd, st, out)
			}
		}
		if d := wdumpsys(w, "package", wl.Package); !strings.Contains(d, "Dexopt state:\n  ["+wl.Package+"]\n") || !strings.Contains(d, "arm64: [status="+step.filter+"] [reason=") {
			t.Errorf("after %q dumpsys package shows:\n%s", step.cmd, d[strings.Index(d, "Dexopt"):])
		}
		if got := amStartW(t, w); got != step.ms*time.Millisecond {
			t.Errorf("after %q a cold start took %v, want %v ms", step.cmd, got, step.ms)
		}
		ss := w.Truth().Startups
		ts := ss[len(ss)-1]
		bind := ts.Phases[1]
		saving := int64(1000-step.ms) * 1e6
		if ts.Compilation != step.filter || bind.EndNs-bind.StartNs != 400e6-saving || bind.Sections[0].DurNs != 300e6-saving {
			t.Errorf("after %q the start's truth: %s, bindApplication %+v", step.cmd, ts.Compilation, bind)
		}
	}
	// What the package manager refuses: --reset to the shell of a user
	// build before Android 14 (not from 14 on), a filter it does not
	// know, a package it does not have.
	for api, refused := range map[int]bool{33: true, 34: false} {
		u, _ := newTestWorld(t, Config{Workload: wl, API: api})
		st, out := cmdPm(u, "compile --reset "+wl.Package)
		if (st != 0) != refused || refused && !strings.Contains(out, "SecurityException") {
			t.Errorf("API %d user build: --reset: %d %q", api, st, out)
		}
	}
	if st, out := cmdPm(w, "compile -m fastest -f "+wl.Package); st == 0 || !strings.Contains(out, `"fastest" is not a valid compiler filter`) {
		t.Errorf("a bad filter: %d %q", st, out)
	}
	if st, out := cmdPm(w, "compile -m speed -f com.other"); st == 0 || !strings.Contains(out, "Failure") {
		t.Errorf("another package: %d %q", st, out)
	}
}

// A cold start's sections must fit in its bindApplication, and the
// saving in its first section.
func TestColdStartValidate(t *testing.T) {
	for _, c := range []ColdStart{
		{BindApplicationMs: 700},
		{BindApplicationMs: 200, Sections: []StartSection{{Name: "a", Ms: 150}, {Name: "b", Ms: 60}}},
		{BindApplicationMs: 200, Sections: []StartSection{{Name: "a|b", Ms: 10}}},
		{BindApplicationMs: 200, Sections: []StartSection{{Name: "a", Ms: 50}}, CompiledSavingMs: 50},
		{BindApplicationMs: 200, Sections: []StartSection{{Name: "a", Ms: 50, IOMs: 30}}, CompiledSavingMs: 20},
	} {
		if err := c.validate(1000); err == nil {
			t.Errorf("%+v passed", c)
		}
	}
}
