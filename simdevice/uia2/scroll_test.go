package uia2_test

import (
	"strings"
	"testing"

	"github.com/electricbubble/guia2"

	"github.com/perfgate/perfgate/simdevice/uia2"
)

func TestScrollTo(t *testing.T) {
	screen := shopScreen()
	// Each swipe brings one more row into the list, "Row 1", "Row 2", ….
	rows := 0
	screen.OnSwipe = func(f *fakeScreen) {
		rows++
		f.setElems(append(f.Elements(), uia2.Element{
			Class: "android.widget.TextView", Package: pkg, Text: "Row " + string(rune('0'+rows)),
			Bounds: rect(48, 900, 700, 980),
		}))
	}
	d := driver(t, screen)
	if err := d.ScrollTo(guia2.BySelector{UiAutomator: `new UiSelector().text("Row 3")`}); err != nil {
		t.Fatal(err)
	}
	// Three swipes over the list [0,450][1080,2200]: from 3/4 to 1/4 of its
	// height (1762 → 887) at x 540, 55 steps of 5 ms.
	swipe := "swipe 540,1762->540,887 275ms"
	wantEvents(t, screen, swipe, swipe, swipe)

	if err := d.ScrollTo(guia2.BySelector{ContentDescription: "Cart"}); err != nil {
		t.Fatal(err)
	}
	wantEvents(t, screen) // already on screen: no swipe

	err := d.ScrollTo(guia2.BySelector{UiAutomator: `new UiSelector().text("Row 9")`}, 2)
	if err == nil || !strings.Contains(err.Error(), "no such element") {
		t.Errorf("ScrollTo past maxSwipes = %v; want no such element", err)
	}
	if got := len(screen.take()); got != 2 {
		t.Errorf("swipes with maxSwipes 2 = %d", got)
	}

	// An element origin scrolls that element: the cart button here.
	cart, err := d.FindElement(guia2.BySelector{ContentDescription: "Cart"})
	if err != nil {
		t.Fatal(err)
	}
	// Five swipes so far; the sixth brings "Row 6".
	if err := cart.ScrollTo(guia2.BySelector{UiAutomator: `new UiSelector().text("Row 6")`}, 1); err != nil {
		t.Fatal(err)
	}
	wantEvents(t, screen, "swipe 970,2355->970,2285 275ms")
}

func TestClipboard(t *testing.T) {
	d := driver(t, shopScreen())
	if got, err := d.GetClipboard(); err != nil || got != "" {
		t.Errorf("GetClipboard() on a fresh device = %q, %v; want empty", got, err)
	}
	if err := d.SetClipboard(guia2.ClipDataTypePlaintext, "coupon: SAVE10 ✓"); err != nil {
		t.Fatal(err)
	}
	if got, err := d.GetClipboard(); err != nil || got != "coupon: SAVE10 ✓" {
		t.Errorf("GetClipboard() = %q, %v", got, err)
	}
}
