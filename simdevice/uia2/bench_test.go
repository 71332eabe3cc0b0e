package uia2

import (
	"fmt"
	"image"
	"testing"
)

// bigScreen is a long feed: 200 rows of an image, a title and a button.
func bigScreen() []Element {
	elems := []Element{
		{Class: "android.widget.FrameLayout", Bounds: image.Rect(0, 0, 1080, 2400)},
		{Class: "androidx.recyclerview.widget.RecyclerView", ResourceID: "app:id/feed", Bounds: image.Rect(0, 0, 1080, 2400), Scrollable: true},
	}
	for i := range 200 {
		y := i * 12
		elems = append(elems,
			Element{Class: "android.widget.LinearLayout", Bounds: image.Rect(0, y, 1080, y+12), Clickable: true},
			Element{Class: "android.widget.ImageView", ResourceID: "app:id/thumb", Bounds: image.Rect(0, y, 12, y+12)},
			Element{Class: "android.widget.TextView", ResourceID: "app:id/title", Text: fmt.Sprintf("Post %d", i), Bounds: image.Rect(20, y, 600, y+12)},
			Element{Class: "android.widget.Button", ResourceID: "app:id/like", Text: "Like", Bounds: image.Rect(900, y, 1000, y+12), Clickable: true},
		)
	}
	return elems
}

func BenchmarkSource(b *testing.B) {
	elems := bigScreen()
	b.ReportAllocs()
	for b.Loop() {
		_ = buildTree(elems).xml(1080, 2400, 0)
	}
}

func BenchmarkScreenshot(b *testing.B) {
	elems := bigScreen()
	b.ReportAllocs()
	for b.Loop() {
		img, err := render(1080, 2400, elems)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := encodePNG(img); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkFind(b *testing.B) {
	elems := bigScreen()
	for _, bc := range []struct{ name, strategy, selector string }{
		{"id", byID, "like"},
		{"uiautomator", byUiAutomator, `new UiSelector().text("Post 199")`},
		{"xpath-path", byXPath, `//android.widget.LinearLayout[200]/android.widget.TextView[@text='Post 199']`},
		{"xpath-any", byXPath, `//*[@text='Post 199']`},
	} {
		b.Run("by="+bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				hits, err := locate(buildTree(elems), bc.strategy, bc.selector, 0)
				if err != nil || len(hits) == 0 {
					b.Fatal(hits, err)
				}
			}
		})
	}
}
