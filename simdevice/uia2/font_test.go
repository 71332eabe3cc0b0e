package uia2

import (
	"image"
	"testing"
)

// A screenshot writes each view's text (its content description when it
// has none) inside it, letter by letter in the font, from the top-left
// corner inward: a person reading it sees "SHOP", not an empty box.
func TestScreenshotShowsTexts(t *testing.T) {
	elems := []Element{
		{Class: "android.widget.TextView", Text: "Shop", Bounds: image.Rect(48, 150, 600, 250)},
		{Class: "android.widget.ImageButton", ContentDesc: "Cart", Bounds: image.Rect(700, 2250, 1040, 2390), Clickable: true},
		{Class: "android.widget.TextView", Text: "Too long to fit", Bounds: image.Rect(0, 400, 100, 480)},
	}
	img, err := render(1080, 2400, elems)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		text string
		at   image.Point
	}{{"SHOP", image.Pt(56, 158)}, {"CART", image.Pt(708, 2258)}} {
		for k, ch := range c.text {
			g := glyphs[ch]
			for i := range len(g) {
				// The middle of the font pixel's 4×4 square.
				x := c.at.X + k*(glyphW*glyphScale+glyphGap) + i%glyphW*glyphScale + glyphScale/2
				y := c.at.Y + i/glyphW*glyphScale + glyphScale/2
				if drawn := img.ColorIndexAt(x, y) == textColour; drawn != (g[i] == '#') {
					t.Fatalf("%s: letter %c, font pixel %d at %d,%d: drawn %v", c.text, ch, i, x, y, drawn)
				}
			}
		}
	}
	// Text stops at its view's edge: nothing drawn past x = 100.
	for x := 100; x < 200; x++ {
		for y := 400; y < 480; y++ {
			if img.ColorIndexAt(x, y) == textColour {
				t.Fatalf("text drawn outside its view at %d,%d", x, y)
			}
		}
	}
	for r, g := range glyphs {
		if len(g) != glyphW*glyphH {
			t.Errorf("glyph %q has %d pixels", r, len(g))
		}
	}
}
