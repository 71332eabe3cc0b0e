package uia2_test

import (
	"strings"
	"sync"
	"testing"

	"github.com/electricbubble/guia2"

	"github.com/perfgate/perfgate/simdevice/uia2"
)

func TestLandscape(t *testing.T) {
	screen := &fakeScreen{W: 2400, H: 1080, Dev: uia2.DeviceInfo{Density: 0}}
	d := driver(t, screen)
	if o, err := d.Orientation(); err != nil || o != guia2.OrientationLandscape {
		t.Errorf("Orientation() = %v, %v; want LANDSCAPE", o, err)
	}
	if r, err := d.Rotation(); err != nil || r.Z != 90 {
		t.Errorf("Rotation() = %+v, %v; want z 90", r, err)
	}
	if err := d.SetRotation(guia2.Rotation{Z: 270}); err != nil {
		t.Errorf("SetRotation(270) on a landscape screen: %v", err)
	}
	if err := d.SetRotation(guia2.Rotation{Z: 0}); err == nil {
		t.Error("SetRotation(0) on a landscape screen: no error")
	}
	if err := d.SetRotation(guia2.Rotation{Z: 45}); err == nil || !strings.Contains(err.Error(), "invalid argument") {
		t.Errorf("SetRotation(45) = %v; want invalid argument", err)
	}
	// Without a density the ratio is Android's baseline 1.
	if ratio, err := d.DeviceScaleRatio(); err != nil || ratio != 1 {
		t.Errorf("DeviceScaleRatio() = %v, %v; want 1", ratio, err)
	}
	// An empty screen still has a hierarchy, and nothing to find.
	if src, err := d.Source(); err != nil || !strings.Contains(src, `<hierarchy rotation="0" width="2400" height="1080"></hierarchy>`) {
		t.Errorf("Source() = %q, %v", src, err)
	}
	if _, err := d.ActiveElement(); err == nil {
		t.Error("ActiveElement() on an empty screen: no error")
	}
}

func TestActiveElement(t *testing.T) {
	screen := shopScreen()
	screen.Elems[2].Focused = true
	d := driver(t, screen)
	el, err := d.ActiveElement()
	if err != nil {
		t.Fatal(err)
	}
	if id, err := el.GetAttribute("resource-id"); err != nil || id != pkg+":id/search" {
		t.Errorf("active element = %q, %v; want the search field", id, err)
	}
	// A focused field takes keys without a tap first.
	if err := el.SendKeys("boots"); err != nil {
		t.Fatal(err)
	}
	wantEvents(t, screen, `type "boots"`)
}

func TestW3CSources(t *testing.T) {
	screen := shopScreen()
	d := driver(t, screen)
	// Sources run one after another; a chain that ends with the finger down
	// lifts it where it stopped; "none" sources only wait.
	err := d.PerformW3CActions(
		guia2.NewW3CAction("none", guia2.NewW3CGestures().Pause(0.2)),
		guia2.NewW3CAction(guia2.ATPointer, guia2.NewW3CGestures().PointerMoveTo(1, 2, 0).PointerDown().PointerUp()),
		guia2.NewW3CAction(guia2.ATKey, guia2.NewW3CGestures().SendKeys("a\uE003b")),
		guia2.NewW3CAction(guia2.ATPointer, guia2.NewW3CGestures().PointerMoveTo(5, 6, 0).PointerDown().PointerMoveTo(5, 600, 0.25)),
	)
	if err != nil {
		t.Fatal(err)
	}
	wantEvents(t, screen, "tap 1,2", `type "a"`, "key 67", `type "b"`, "swipe 5,6->5,600 250ms")
}

func TestNewSessionErrors(t *testing.T) {
	prefix := serve(t, shopScreen())
	for _, body := range []string{`{}`, `{"capabilities":"x"}`, `[`} {
		status, env := rawCall(t, prefix, "POST", "/session", body)
		v, _ := env["value"].(map[string]any)
		if status/100 == 2 || v["error"] == nil {
			t.Errorf("POST /session %s = %d %v; want an error", body, status, env)
		}
	}
	// JSON Wire Protocol clients send desiredCapabilities.
	status, env := rawCall(t, prefix, "POST", "/session", `{"desiredCapabilities":{"deviceName":"mine"}}`)
	v, _ := env["value"].(map[string]any)
	caps, _ := v["capabilities"].(map[string]any)
	if status != 200 || caps["deviceName"] != "mine" || caps["platformName"] != "Android" {
		t.Errorf("desiredCapabilities session = %d %v", status, env)
	}
}

// TestConcurrentClients drives one server from many goroutines, for the race
// detector.
func TestConcurrentClients(t *testing.T) {
	screen := shopScreen()
	d := driver(t, screen)
	var wg sync.WaitGroup
	errs := make(chan error, 8*20)
	for range 8 {
		wg.Go(func() {
			for range 20 {
				el, err := d.FindElement(guia2.BySelector{XPath: `//*[@content-desc='Cart']`})
				if err == nil {
					err = el.Click()
				}
				if err == nil {
					_, err = d.Source()
				}
				if err != nil {
					errs <- err
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if got := len(screen.take()); got != 8*20 {
		t.Errorf("taps = %d; want %d", got, 8*20)
	}
}
