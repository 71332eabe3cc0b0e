package uia2_test

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"image/png"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/electricbubble/guia2"

	"github.com/perfgate/perfgate/simdevice/uia2"
)

func TestSessionLifecycle(t *testing.T) {
	prefix := serve(t, shopScreen())
	d, err := guia2.NewDriver(nil, prefix)
	if err != nil {
		t.Fatal(err)
	}
	if d.ActiveSessionID() == "" {
		t.Fatal("NewDriver: empty session id")
	}
	ready, err := d.Status()
	if err != nil || !ready {
		t.Fatalf("Status() = %v, %v; want ready", ready, err)
	}
	ids, err := d.SessionIDs()
	if err != nil || len(ids) != 1 || ids[0] != d.ActiveSessionID() {
		t.Fatalf("SessionIDs() = %q, %v; want [%s]", ids, err, d.ActiveSessionID())
	}
	details, err := d.SessionDetails()
	if err != nil {
		t.Fatal(err)
	}
	if details["platformName"] != "Android" || details["deviceName"] != "Pixel 7" {
		t.Errorf("SessionDetails() = %v; want platformName Android, deviceName Pixel 7", details)
	}

	// A second session replaces the first, as on the real server.
	d2, err := guia2.NewDriver(nil, prefix)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := d.DeviceSize(); err == nil || !strings.Contains(err.Error(), "invalid session id") {
		t.Errorf("old session after a new one: err = %v; want invalid session id", err)
	}
	if err := d2.Quit(); err != nil {
		t.Fatalf("Quit: %v", err)
	}
	ids, err = d2.SessionIDs()
	if err != nil || len(ids) != 0 {
		t.Errorf("SessionIDs() after Quit = %q, %v; want none", ids, err)
	}
}

func TestDeviceQueries(t *testing.T) {
	d := driver(t, shopScreen())
	size, err := d.DeviceSize()
	if err != nil || size != (guia2.Size{Width: 1080, Height: 2400}) {
		t.Errorf("DeviceSize() = %+v, %v; want 1080x2400", size, err)
	}
	info, err := d.DeviceInfo()
	if err != nil {
		t.Fatal(err)
	}
	if info.Model != "Pixel 7" || info.Manufacturer != "Google" || info.APIVersion != "34" ||
		info.PlatformVersion != "14" || info.DisplayDensity != 420 || info.RealDisplaySize != "1080x2400" {
		t.Errorf("DeviceInfo() = %+v", info)
	}
	ratio, err := d.DeviceScaleRatio()
	if err != nil || ratio != 2.625 { // 420 dpi / 160
		t.Errorf("DeviceScaleRatio() = %v, %v; want 2.625", ratio, err)
	}
	bar, err := d.StatusBarHeight()
	if err != nil || bar != 118 {
		t.Errorf("StatusBarHeight() = %v, %v; want 118", bar, err)
	}
	bat, err := d.BatteryInfo()
	if err != nil || bat.Level != 0.8 || bat.Status != guia2.BatteryStatusDischarging {
		t.Errorf("BatteryInfo() = %+v, %v; want 0.8 discharging", bat, err)
	}
	o, err := d.Orientation()
	if err != nil || o != guia2.OrientationPortrait {
		t.Errorf("Orientation() = %v, %v; want PORTRAIT", o, err)
	}
	rot, err := d.Rotation()
	if err != nil || rot != (guia2.Rotation{}) {
		t.Errorf("Rotation() = %+v, %v; want 0", rot, err)
	}
	if err := d.SetOrientation(guia2.OrientationPortrait); err != nil {
		t.Errorf("SetOrientation(PORTRAIT) on a portrait screen: %v", err)
	}
	if err := d.SetOrientation(guia2.OrientationLandscape); err == nil || !strings.Contains(err.Error(), "unsupported operation") {
		t.Errorf("SetOrientation(LANDSCAPE) = %v; want unsupported operation", err)
	}
}

func TestSettings(t *testing.T) {
	d := driver(t, shopScreen())
	if err := d.SetAppiumSettings(map[string]any{"waitForIdleTimeout": 0}); err != nil {
		t.Fatal(err)
	}
	got, err := d.GetAppiumSettings()
	if err != nil {
		t.Fatal(err)
	}
	if got["waitForIdleTimeout"] != float64(0) || got["waitForSelectorTimeout"] == nil {
		t.Errorf("GetAppiumSettings() = %v; want waitForIdleTimeout 0 and the defaults", got)
	}
}

// hierarchy mirrors the uiautomator dump format for decoding in tests.
type dumpNode struct {
	Text       string     `xml:"text,attr"`
	ResourceID string     `xml:"resource-id,attr"`
	Class      string     `xml:"class,attr"`
	Desc       string     `xml:"content-desc,attr"`
	Index      string     `xml:"index,attr"`
	Checked    string     `xml:"checked,attr"`
	Scrollable string     `xml:"scrollable,attr"`
	Bounds     string     `xml:"bounds,attr"`
	Nodes      []dumpNode `xml:"node"`
}

type dump struct {
	XMLName xml.Name   `xml:"hierarchy"`
	Width   int        `xml:"width,attr"`
	Height  int        `xml:"height,attr"`
	Nodes   []dumpNode `xml:"node"`
}

func TestSource(t *testing.T) {
	d := driver(t, shopScreen())
	src, err := d.Source()
	if err != nil {
		t.Fatal(err)
	}
	var h dump
	if err := xml.Unmarshal([]byte(src), &h); err != nil {
		t.Fatalf("source is not XML: %v\n%s", err, src)
	}
	if h.Width != 1080 || h.Height != 2400 || len(h.Nodes) != 1 {
		t.Fatalf("hierarchy %dx%d with %d roots; want 1080x2400 with 1", h.Width, h.Height, len(h.Nodes))
	}
	root := h.Nodes[0]
	// Expected nesting read off the screen's bounds: title, search and list
	// sit in the frame; the items in the list; each name in its item.
	if len(root.Nodes) != 4 {
		t.Fatalf("root children = %d; want 4 (title, search, list, cart)", len(root.Nodes))
	}
	list := root.Nodes[2]
	if list.ResourceID != pkg+":id/list" || list.Scrollable != "true" || list.Bounds != "[0,450][1080,2200]" || list.Index != "2" {
		t.Errorf("list node = %+v", list)
	}
	if len(list.Nodes) != 2 || list.Nodes[1].Index != "1" {
		t.Fatalf("list children = %+v; want 2 items", list.Nodes)
	}
	item2 := list.Nodes[1]
	if len(item2.Nodes) != 2 || item2.Nodes[0].Text != "Blue shoes" || item2.Nodes[1].Checked != "true" {
		t.Errorf("second item = %+v; want Blue shoes and a checked box", item2)
	}
	if cart := root.Nodes[3]; cart.Desc != "Cart" || cart.Bounds != "[900,2250][1040,2390]" {
		t.Errorf("cart node = %+v", cart)
	}
}

func TestSourceEscapes(t *testing.T) {
	screen := &fakeScreen{W: 100, H: 100, Elems: []uia2.Element{
		{Class: "android.widget.TextView", Text: `a "quoted" <b> & 'x'` + "\x01\n", Bounds: rect(0, 0, 10, 10)},
	}}
	d := driver(t, screen)
	src, err := d.Source()
	if err != nil {
		t.Fatal(err)
	}
	var h dump
	if err := xml.Unmarshal([]byte(src), &h); err != nil {
		t.Fatalf("source is not XML: %v\n%s", err, src)
	}
	// XML cannot carry U+0001; it becomes U+FFFD.
	if want := `a "quoted" <b> & 'x'` + "\uFFFD\n"; h.Nodes[0].Text != want {
		t.Errorf("text = %q; want %q", h.Nodes[0].Text, want)
	}
}

func TestScreenshot(t *testing.T) {
	d := driver(t, shopScreen())
	buf, err := d.Screenshot()
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(buf)
	if err != nil {
		t.Fatalf("screenshot is not a PNG: %v", err)
	}
	if b := img.Bounds(); b.Dx() != 1080 || b.Dy() != 2400 {
		t.Fatalf("screenshot is %v; want 1080x2400", b)
	}
	// The cart button's top edge is outlined; the middle of the empty area
	// between the list and the cart is background.
	edge, bg := img.At(970, 2250), img.At(500, 2300)
	if edge == bg {
		t.Errorf("outline pixel %v equals background pixel %v", edge, bg)
	}
}

func TestFind(t *testing.T) {
	d := driver(t, shopScreen())
	tests := []struct {
		name  string
		by    guia2.BySelector
		count int    // elements FindElements returns
		text  string // text of the first
	}{
		{"id full", guia2.BySelector{ResourceIdID: pkg + ":id/title"}, 1, "Shop"},
		{"id bare", guia2.BySelector{ResourceIdID: "name"}, 2, "Red shoes"},
		{"accessibility id", guia2.BySelector{ContentDescription: "Cart"}, 1, ""},
		{"class name", guia2.BySelector{ClassName: "android.widget.TextView"}, 3, "Shop"},
		{"uiautomator text", guia2.BySelector{UiAutomator: guia2.NewUiSelectorHelper().Text("Blue shoes").String()}, 1, "Blue shoes"},
		{"uiautomator textContains", guia2.BySelector{UiAutomator: guia2.NewUiSelectorHelper().TextContains("shoes").String()}, 2, "Red shoes"},
		{"uiautomator description", guia2.BySelector{UiAutomator: guia2.NewUiSelectorHelper().Description("Cart").String()}, 1, ""},
		{"uiautomator resourceId", guia2.BySelector{UiAutomator: guia2.NewUiSelectorHelper().ResourceId(pkg + ":id/name").Instance(1).String()}, 1, "Blue shoes"},
		{"uiautomator className", guia2.BySelector{UiAutomator: guia2.NewUiSelectorHelper().ClassName("android.widget.CheckBox").Checked(true).String()}, 1, ""},
		{"uiautomator childSelector", guia2.BySelector{UiAutomator: guia2.NewUiSelectorHelper().Scrollable(true).ChildSelector(guia2.NewUiSelectorHelper().TextStartsWith("blue")).String()}, 1, "Blue shoes"},
		{"xpath text", guia2.BySelector{XPath: `//*[@text='Red shoes']`}, 1, "Red shoes"},
		{"xpath class and id", guia2.BySelector{XPath: `//android.widget.TextView[@resource-id="` + pkg + `:id/name"]`}, 2, "Red shoes"},
		{"xpath path", guia2.BySelector{XPath: `//androidx.recyclerview.widget.RecyclerView/*[2]/android.widget.TextView`}, 1, "Blue shoes"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			els, err := d.FindElements(tt.by)
			if err != nil {
				t.Fatalf("FindElements: %v", err)
			}
			if len(els) != tt.count {
				t.Fatalf("found %d; want %d", len(els), tt.count)
			}
			el, err := d.FindElement(tt.by)
			if err != nil {
				t.Fatalf("FindElement: %v", err)
			}
			if text, err := el.Text(); err != nil || text != tt.text {
				t.Errorf("Text() = %q, %v; want %q", text, err, tt.text)
			}
		})
	}
}

func TestFindNotFound(t *testing.T) {
	d := driver(t, shopScreen())
	for _, by := range []guia2.BySelector{
		{ResourceIdID: "nope"},
		{ContentDescription: "Checkout"},
		{ClassName: "android.widget.Switch"},
		{UiAutomator: guia2.NewUiSelectorHelper().Text("Green shoes").String()},
		{XPath: `//*[@text='Green shoes']`},
	} {
		if _, err := d.FindElement(by); err == nil || !strings.Contains(err.Error(), "no such element") {
			t.Errorf("FindElement(%+v) = %v; want no such element", by, err)
		}
		if _, err := d.FindElements(by); err == nil || !strings.Contains(err.Error(), "no such element") {
			t.Errorf("FindElements(%+v) = %v; want no such element", by, err)
		}
	}
	if _, err := d.FindElement(guia2.BySelector{XPath: "//*[@text="}); err == nil || !strings.Contains(err.Error(), "invalid selector") {
		t.Errorf("bad xpath: err = %v; want invalid selector", err)
	}
	if _, err := d.FindElement(guia2.BySelector{UiAutomator: "new UiSelector().bogus(1)"}); err == nil || !strings.Contains(err.Error(), "invalid selector") {
		t.Errorf("bad UiSelector: err = %v; want invalid selector", err)
	}
}

func TestFindFromElement(t *testing.T) {
	d := driver(t, shopScreen())
	list, err := d.FindElement(guia2.BySelector{ResourceIdID: "list"})
	if err != nil {
		t.Fatal(err)
	}
	names, err := list.FindElements(guia2.BySelector{ClassName: "android.widget.TextView"})
	if err != nil || len(names) != 2 {
		t.Fatalf("TextViews in the list = %d, %v; want 2 (the title is outside)", len(names), err)
	}
	if _, err := list.FindElement(guia2.BySelector{XPath: "//*[@text='Shop']"}); err == nil {
		t.Error("xpath from the list found the title outside it")
	}
}

func TestElementProperties(t *testing.T) {
	d := driver(t, shopScreen())
	fav, err := d.FindElement(guia2.BySelector{ResourceIdID: "fav"})
	if err != nil {
		t.Fatal(err)
	}
	r, err := fav.Rect()
	if err != nil || r != (guia2.Rect{Point: guia2.Point{X: 900, Y: 680}, Size: guia2.Size{Width: 100, Height: 100}}) {
		t.Errorf("Rect() = %+v, %v", r, err)
	}
	loc, err := fav.Location()
	if err != nil || loc != (guia2.Point{X: 900, Y: 680}) {
		t.Errorf("Location() = %+v, %v", loc, err)
	}
	size, err := fav.Size()
	if err != nil || size != (guia2.Size{Width: 100, Height: 100}) {
		t.Errorf("Size() = %+v, %v", size, err)
	}
	for name, want := range map[string]string{
		"checked": "true", "checkable": "true", "clickable": "true", "scrollable": "false",
		"resource-id": pkg + ":id/fav", "resourceId": pkg + ":id/fav", "className": "android.widget.CheckBox",
		"bounds": "[900,680][1000,780]", "index": "1", "package": pkg, "displayed": "true",
	} {
		if got, err := fav.GetAttribute(name); err != nil || got != want {
			t.Errorf("GetAttribute(%q) = %q, %v; want %q", name, got, err, want)
		}
	}
	if _, err := fav.GetAttribute("colour"); err == nil {
		t.Error("GetAttribute(colour): no error")
	}
	cart, err := d.FindElement(guia2.BySelector{ResourceIdID: "cart"})
	if err != nil {
		t.Fatal(err)
	}
	if desc, err := cart.ContentDescription(); err != nil || desc != "Cart" {
		t.Errorf("ContentDescription() = %q, %v; want Cart", desc, err)
	}
	shot, err := cart.Screenshot()
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(shot)
	if err != nil || img.Bounds().Dx() != 140 || img.Bounds().Dy() != 140 {
		t.Errorf("element screenshot: %v, %v; want a 140x140 PNG", err, img)
	}
}

func TestStaleElement(t *testing.T) {
	screen := shopScreen()
	d := driver(t, screen)
	name, err := d.FindElement(guia2.BySelector{UiAutomator: `new UiSelector().text("Red shoes")`})
	if err != nil {
		t.Fatal(err)
	}
	screen.setElems(screen.Elems[:4])
	if err := name.Click(); err == nil || !strings.Contains(err.Error(), "stale element reference") {
		t.Errorf("Click on a vanished element = %v; want stale element reference", err)
	}
	wantEvents(t, screen)
}

func TestTouch(t *testing.T) {
	screen := shopScreen()
	d := driver(t, screen)
	cart, err := d.FindElement(guia2.BySelector{ContentDescription: "Cart"})
	if err != nil {
		t.Fatal(err)
	}
	list, err := d.FindElement(guia2.BySelector{ResourceIdID: "list"})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		do   func() error
		want []string
	}{
		// Centres are Android's Rect.centerX/Y: (900+1040)/2, (2250+2390)/2.
		{"element click", cart.Click, []string{"tap 970,2320"}},
		{"appium tap", func() error { return d.TapFloat(12.4, 99.6) }, []string{"tap 12,100"}},
		// 12 steps (guia2's default) of 5 ms each.
		{"swipe", func() error { return d.Swipe(540, 1800, 540, 600) }, []string{"swipe 540,1800->540,600 60ms"}},
		{"swipe steps", func() error { return d.Swipe(100, 200, 300, 400, 100) }, []string{"swipe 100,200->300,400 500ms"}},
		// Element swipes count from the element's top-left corner (0,450).
		{"element swipe", func() error { return list.Swipe(540, 1500, 540, 100, 20) }, []string{"swipe 540,1950->540,550 100ms"}},
		{"drag", func() error { return d.Drag(10, 20, 30, 40, 4) }, []string{"swipe 10,20->30,40 20ms"}},
		{"drag to element", func() error { return list.DragTo(cart, 2) }, []string{"swipe 540,1325->970,2320 10ms"}},
		{"long click", func() error { return d.TouchLongClick(50, 60, 1.5) }, []string{"swipe 50,60->50,60 1.5s"}},
		{"touch down up", func() error {
			if err := d.TouchDown(70, 80); err != nil {
				return err
			}
			return d.TouchUp(70, 80)
		}, []string{"tap 70,80"}},
		{"back", d.PressBack, []string{"key 4"}},
		{"press keycode", func() error { return d.PressKeyCode(guia2.KCEnter, guia2.KMEmpty) }, []string{"key 66"}},
		{"long press keycode", func() error { return d.LongPressKeyCode(guia2.KCBack, guia2.KMEmpty) }, []string{"key 4"}},
		{"send keys", func() error { return d.SendKeys("red shoes") }, []string{`type "red shoes"`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := tt.do(); err != nil {
				t.Fatal(err)
			}
			wantEvents(t, screen, tt.want...)
		})
	}
}

func TestTouchMoveSwipes(t *testing.T) {
	screen := shopScreen()
	d := driver(t, screen)
	for _, step := range []func() error{
		func() error { return d.TouchDown(100, 1500) },
		func() error { return d.TouchMove(100, 1000) },
		func() error { return d.TouchUp(100, 500) },
	} {
		if err := step(); err != nil {
			t.Fatal(err)
		}
	}
	ev := screen.take()
	if len(ev) != 1 || !strings.HasPrefix(ev[0], "swipe 100,1500->100,500 ") {
		t.Errorf("events = %q; want one swipe 100,1500->100,500", ev)
	}
	if err := d.TouchUp(1, 1); err == nil {
		t.Error("TouchUp without TouchDown: no error")
	}
}

func TestElementSendKeys(t *testing.T) {
	screen := shopScreen()
	screen.Elems[2].Text = "old"
	d := driver(t, screen)
	search, err := d.FindElement(guia2.BySelector{ResourceIdID: "search"})
	if err != nil {
		t.Fatal(err)
	}
	if err := search.SendKeys("shoes"); err != nil {
		t.Fatal(err)
	}
	// Not focused: tap its centre (540,360), then replace "old": end, 3 × DEL.
	wantEvents(t, screen, "tap 540,360", "key 123", "key 67", "key 67", "key 67", `type "shoes"`)
	if err := search.SendKeys(" more", false); err != nil {
		t.Fatal(err)
	}
	wantEvents(t, screen, "tap 540,360", `type " more"`)
	if err := search.Clear(); err != nil {
		t.Fatal(err)
	}
	wantEvents(t, screen, "tap 540,360", "key 123", "key 67", "key 67", "key 67")
}

func TestW3CActions(t *testing.T) {
	screen := shopScreen()
	d := driver(t, screen)
	cart, err := d.FindElement(guia2.BySelector{ContentDescription: "Cart"})
	if err != nil {
		t.Fatal(err)
	}
	pointer := func(g *guia2.W3CGestures) guia2.W3CAction {
		return guia2.NewW3CAction(guia2.ATPointer, g)
	}
	tests := []struct {
		name    string
		actions []guia2.W3CAction
		want    []string
	}{
		{"tap", []guia2.W3CAction{pointer(guia2.NewW3CGestures().
			PointerMoveTo(300, 400, 0).PointerDown().Pause(0.05).PointerUp())},
			[]string{"tap 300,400"}},
		// guia2 durations are seconds; the wire carries milliseconds.
		{"swipe", []guia2.W3CAction{pointer(guia2.NewW3CGestures().
			PointerMoveTo(540, 1800, 0).PointerDown().PointerMoveTo(540, 600, 0.3).PointerUp())},
			[]string{"swipe 540,1800->540,600 300ms"}},
		{"long press", []guia2.W3CAction{pointer(guia2.NewW3CGestures().
			PointerMoveTo(10, 20, 0).PointerDown().Pause(1).PointerUp())},
			[]string{"swipe 10,20->10,20 1s"}},
		{"relative move", []guia2.W3CAction{pointer(guia2.NewW3CGestures().
			PointerMoveTo(100, 100, 0).PointerDown().PointerMoveRelative(0, 250, 0.1).PointerUp())},
			[]string{"swipe 100,100->100,350 100ms"}},
		// Element origins are the element's centre (970,2320) plus the offset.
		{"element origin", []guia2.W3CAction{pointer(guia2.NewW3CGestures().
			PointerMouseOver(5, -5, cart, 0).PointerDown().PointerUp())},
			[]string{"tap 975,2315"}},
		{"keys", []guia2.W3CAction{guia2.NewW3CAction(guia2.ATKey, guia2.NewW3CGestures().SendKeys("hi").KeyDown("\uE007").KeyUp("\uE007"))},
			[]string{`type "hi"`, "key 66"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := d.PerformW3CActions(tt.actions[0], tt.actions[1:]...); err != nil {
				t.Fatal(err)
			}
			wantEvents(t, screen, tt.want...)
		})
	}
}

func TestAlert(t *testing.T) {
	screen := shopScreen()
	d := driver(t, screen)
	if _, err := d.AlertText(); err == nil || !strings.Contains(err.Error(), "no such alert") {
		t.Errorf("AlertText() without a dialog = %v; want no such alert", err)
	}
	if err := d.AlertAccept(); err == nil || !strings.Contains(err.Error(), "no such alert") {
		t.Errorf("AlertAccept() without a dialog = %v; want no such alert", err)
	}
	screen.setElems(append(screen.Elements(),
		uia2.Element{Class: "android.widget.TextView", ResourceID: "android:id/message", Text: "Remove item?", Bounds: rect(100, 1000, 980, 1100)},
		uia2.Element{Class: "android.widget.Button", ResourceID: "android:id/button2", Text: "CANCEL", Bounds: rect(500, 1200, 700, 1300)},
		uia2.Element{Class: "android.widget.Button", ResourceID: "android:id/button1", Text: "OK", Bounds: rect(750, 1200, 950, 1300)},
	))
	if text, err := d.AlertText(); err != nil || text != "Remove item?" {
		t.Errorf("AlertText() = %q, %v", text, err)
	}
	if err := d.AlertAccept(); err != nil {
		t.Fatal(err)
	}
	if err := d.AlertDismiss(); err != nil {
		t.Fatal(err)
	}
	if err := d.AlertAccept("cancel"); err != nil {
		t.Fatal(err)
	}
	wantEvents(t, screen, "tap 850,1250", "tap 600,1250", "tap 600,1250")
}

// rawCall sends a request the way any WebDriver client would and decodes
// the envelope.
func rawCall(t *testing.T, prefix, method, path, body string) (int, map[string]any) {
	t.Helper()
	req, err := http.NewRequest(method, prefix+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	resp, err := testHTTP.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		t.Errorf("%s %s: Content-Type %q", method, path, ct)
	}
	var env map[string]any
	if err := json.NewDecoder(bytes.NewReader(data)).Decode(&env); err != nil {
		t.Fatalf("%s %s: body %q is not JSON: %v", method, path, data, err)
	}
	return resp.StatusCode, env
}

func TestErrors(t *testing.T) {
	prefix := serve(t, shopScreen())
	_, env := rawCall(t, prefix, "POST", "/session", `{"capabilities":{"alwaysMatch":{"platformName":"Android"},"firstMatch":[{}]}}`)
	sid, _ := env["sessionId"].(string)
	if sid == "" {
		t.Fatalf("new session: %v", env)
	}
	elemID := func() string {
		_, env := rawCall(t, prefix, "POST", "/session/"+sid+"/element", `{"using":"id","value":"cart"}`)
		ref, _ := env["value"].(map[string]any)
		id, _ := ref["element-6066-11e4-a52e-4f735466cecf"].(string)
		if id == "" || ref["ELEMENT"] != id {
			t.Fatalf("element reference %v", env)
		}
		return id
	}()
	tests := []struct {
		method, path, body string
		status             int
		code               string
	}{
		{"GET", "/session/nope/source", "", 404, "invalid session id"},
		{"GET", "/session/" + sid + "/element/nope/text", "", 404, "no such element"},
		{"POST", "/session/" + sid + "/element", `{"strategy":"id","selector":"nope"}`, 404, "no such element"},
		{"POST", "/session/" + sid + "/element", `{"strategy":"css selector","selector":"a"}`, 400, "invalid selector"},
		{"POST", "/session/" + sid + "/element", `{"strategy":`, 400, "invalid argument"},
		{"GET", "/session/" + sid + "/alert/text", "", 404, "no such alert"},
		{"GET", "/session/" + sid + "/nonsense", "", 404, "unknown command"},
		{"GET", "/nothing/here", "", 404, "unknown command"},
		{"PUT", "/session/" + sid + "/source", "", 405, "unknown method"},
		{"POST", "/session/" + sid + "/appium/tap", `{"x":1}`, 400, "invalid argument"},
		{"POST", "/session/" + sid + "/appium/device/press_keycode", `{}`, 400, "invalid argument"},
		{"POST", "/session/" + sid + "/actions", `{"actions":[{"type":"wheel","id":"w","actions":[]}]}`, 400, "invalid argument"},
		{"POST", "/session/" + sid + "/actions", `{"actions":[{"type":"pointer","id":"p","actions":[{"type":"pause","duration":-1}]}]}`, 400, "invalid argument"},
		{"POST", "/session/" + sid + "/element/" + elemID + "/value", `{}`, 400, "invalid argument"},
		{"POST", "/session/" + sid + "/actions", `{"actions":[{"type":"pointer","id":"p","actions":[{"type":"pointerMove","origin":"no-such-id","x":0,"y":0}]}]}`, 404, "no such element"},
		{"POST", "/session/" + sid + "/actions", `{"actions":[{"type":"pointer","id":"p","actions":[{"type":"pointerMove","origin":{"x":1},"x":0,"y":0}]}]}`, 400, "invalid argument"},
		{"POST", "/session/" + sid + "/touch/click", `{"params":{"element":"no-such-id"}}`, 404, "no such element"},
		{"POST", "/session/" + sid + "/touch/perform", `{"startX":1,"startY":2,"endX":3}`, 400, "invalid argument"},
		{"POST", "/session/" + sid + "/touch/longclick", `{"params":{"x":1,"y":2,"duration":-5}}`, 400, "invalid argument"},
		{"POST", "/session/" + sid + "/touch/move", `{"params":{"x":1,"y":2}}`, 400, "invalid argument"},
		{"POST", "/session/" + sid + "/appium/device/set_clipboard", `{"content":"%%%"}`, 400, "invalid argument"},
		{"POST", "/session/" + sid + "/touch/scroll", `{"params":{}}`, 400, "invalid argument"},
		{"POST", "/session/" + sid + "/appium/settings", `{}`, 400, "invalid argument"},
		{"POST", "/session/" + sid + "/orientation", `{"orientation":"SIDEWAYS"}`, 400, "invalid argument"},
	}
	for _, tt := range tests {
		status, env := rawCall(t, prefix, tt.method, tt.path, tt.body)
		v, _ := env["value"].(map[string]any)
		if status != tt.status || v["error"] != tt.code || v["message"] == "" {
			t.Errorf("%s %s %s = %d %v; want %d %q", tt.method, tt.path, tt.body, status, env, tt.status, tt.code)
		}
	}
	if status, _ := rawCall(t, prefix, "POST", "/session/"+sid+"/touch/click", `{"params":{"element":"`+elemID+`"}}`); status != 200 {
		t.Errorf("touch click on an element = %d", status)
	}
	// Successful answers carry the session id; status has none.
	if status, env := rawCall(t, prefix, "GET", "/session/"+sid+"/window/current/size", ""); status != 200 || env["sessionId"] != sid {
		t.Errorf("window size = %d %v", status, env)
	}
	if _, env := rawCall(t, prefix, "GET", "/status", ""); env["sessionId"] != nil {
		t.Errorf("status sessionId = %v; want null", env["sessionId"])
	}
	if _, env := rawCall(t, prefix, "GET", "/session/"+sid+"/window/rect", ""); env["value"].(map[string]any)["width"] != float64(1080) {
		t.Errorf("window rect = %v", env)
	}
}

// BenchmarkFindAndClick is one guia2 round trip pair: find by id, click.
func BenchmarkFindAndClick(b *testing.B) {
	d := driver(b, shopScreen())
	b.ReportAllocs()
	for b.Loop() {
		el, err := d.FindElement(guia2.BySelector{ResourceIdID: "cart"})
		if err != nil {
			b.Fatal(err)
		}
		if err := el.Click(); err != nil {
			b.Fatal(err)
		}
	}
}
