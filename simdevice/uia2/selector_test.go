package uia2

import (
	"image"
	"slices"
	"strings"
	"testing"
)

// listScreen is a settings list: a frame holding a title, a list of three
// rows (text + switch each) and a button.
func listScreen() []Element {
	r := image.Rect
	return []Element{
		{Class: "android.widget.FrameLayout", Package: "com.android.settings", Bounds: r(0, 0, 1080, 2400)},                                                                              // 1
		{Class: "android.widget.TextView", ResourceID: "android:id/title", Text: "Settings", Bounds: r(0, 100, 1080, 200)},                                                               // 2
		{Class: "android.widget.ListView", ResourceID: "android:id/list", Bounds: r(0, 200, 1080, 2000), Scrollable: true},                                                               // 3
		{Class: "android.widget.LinearLayout", Bounds: r(0, 200, 1080, 400), Clickable: true},                                                                                            // 4
		{Class: "android.widget.TextView", Text: "Wi-Fi", ContentDesc: "Wi-Fi settings", Bounds: r(40, 250, 600, 350)},                                                                   // 5
		{Class: "android.widget.Switch", ResourceID: "android:id/switch_widget", Bounds: r(900, 250, 1040, 350), Checkable: true, Checked: true},                                         // 6
		{Class: "android.widget.LinearLayout", Bounds: r(0, 400, 1080, 600), Clickable: true},                                                                                            // 7
		{Class: "android.widget.TextView", Text: "Bluetooth", ContentDesc: "Bluetooth settings", Bounds: r(40, 450, 600, 550)},                                                           // 8
		{Class: "android.widget.Switch", ResourceID: "android:id/switch_widget", Bounds: r(900, 450, 1040, 550), Checkable: true},                                                        // 9
		{Class: "android.widget.LinearLayout", Bounds: r(0, 600, 1080, 800), Clickable: true},                                                                                            // 10
		{Class: "android.widget.TextView", Text: "Battery 80%", Bounds: r(40, 650, 600, 750)},                                                                                            // 11
		{Class: "android.widget.Button", ResourceID: "com.android.settings:id/done", Text: "Done", ContentDesc: "done", Bounds: r(40, 2100, 1040, 2300), Clickable: true, Focused: true}, // 12
	}
}

func TestBuildTree(t *testing.T) {
	tr := buildTree(listScreen())
	// Parents read off the bounds by hand; 0 is the <hierarchy> root.
	wantParent := []int{-1, 0, 1, 1, 3, 4, 4, 3, 7, 7, 3, 10, 1}
	for n, want := range wantParent {
		if got := tr.nodes[n].parent; got != want {
			t.Errorf("parent of node %d = %d; want %d", n, got, want)
		}
	}
	if got := tr.descendants(3); !slices.Equal(got, []int{4, 5, 6, 7, 8, 9, 10, 11}) {
		t.Errorf("descendants of the list = %v", got)
	}
	if idx, _ := tr.attr(12, "index"); idx != "2" {
		t.Errorf("index of the button = %s; want 2", idx)
	}
}

func TestUiSelector(t *testing.T) {
	tr := buildTree(listScreen())
	tests := []struct {
		sel  string
		want []int
	}{
		{`new UiSelector().text("Wi-Fi")`, []int{5}},
		{`new UiSelector().text("wi-fi")`, nil}, // text is case-sensitive
		{`new UiSelector().textContains("tooth");`, []int{8}},
		{`new UiSelector().textContains("TOOTH")`, nil},
		{`new UiSelector().textStartsWith("bat")`, []int{11}}, // case-insensitive
		{`new UiSelector().textMatches("Battery \\d+%")`, []int{11}},
		{`new UiSelector().textMatches("Battery")`, nil}, // must match the whole text
		{`new UiSelector().description("Wi-Fi settings")`, []int{5}},
		{`new UiSelector().descriptionContains("SETTINGS")`, []int{5, 8}},
		{`new UiSelector().descriptionStartsWith("blue")`, []int{8}},
		{`new UiSelector().descriptionMatches(".*settings")`, []int{5, 8}},
		{`new UiSelector().resourceId("android:id/switch_widget")`, []int{6, 9}},
		{`new UiSelector().resourceIdMatches(".*:id/switch.*")`, []int{6, 9}},
		{`new UiSelector().className("android.widget.Switch").checked(false)`, []int{9}},
		{`new UiSelector().className("android.widget.Switch").instance(1)`, []int{9}},
		{`new UiSelector().className("android.widget.Switch").instance(2)`, nil},
		{`new UiSelector().classNameMatches("android\\.widget\\.(Switch|Button)")`, []int{6, 9, 12}},
		{`new UiSelector().packageName("com.android.settings")`, []int{1}},
		{`new UiSelector().scrollable(true)`, []int{3}},
		{`new UiSelector().clickable(true).focused(true)`, []int{12}},
		{`new UiSelector().focusable(true).enabled(false).index(2)`, []int{10, 12}}, // third row and the button
		{`new UiSelector().checkable(true).selected(false).longClickable(false)`, []int{6, 9}},
		{`new UiSelector().className("android.widget.LinearLayout").index(1).childSelector(new UiSelector().className("android.widget.Switch"))`, []int{9}},
		{`new UiSelector().text("Bluetooth").fromParent(new UiSelector().checkable(true))`, []int{9}},
		{`new UiSelector().text("Wi-Fi"); new UiSelector().text("Done")`, []int{5, 12}},
		{`  UiSelector ( ) . text ( "Done" ) ;  `, []int{12}},
		{`new UiSelector().text("Battery \u0038\u0030%")`, []int{11}},
	}
	for _, tt := range tests {
		sels, err := parseUiSelectors(tt.sel)
		if err != nil {
			t.Errorf("parse %s: %v", tt.sel, err)
			continue
		}
		var got []int
		for _, s := range sels {
			got = append(got, s.find(tr, tr.descendants(0))...)
		}
		if got = sortUnique(got); !slices.Equal(got, tt.want) {
			t.Errorf("%s selected %v; want %v", tt.sel, got, tt.want)
		}
	}
}

func TestUiSelectorErrors(t *testing.T) {
	for _, sel := range []string{
		``,
		`;`,
		`new UiObject().text("x")`,
		`new UiSelector(`,
		`new UiSelector().text(`,
		`new UiSelector().text("x"`,
		`new UiSelector().text("unterminated)`,
		`new UiSelector().text(42)`,
		`new UiSelector().clickable(yes)`,
		`new UiSelector().instance(-1)`,
		`new UiSelector().instance(x)`,
		`new UiSelector().textMatches("(")`,
		`new UiSelector().scrollIntoView(new UiSelector())`,
		`new UiSelector().text("a") new UiSelector()`,
		`new UiSelector().text("\u12")`,
		`new UiSelector().` + strings.Repeat(`childSelector(new UiSelector().`, 40) + `text("x")` + strings.Repeat(")", 40),
	} {
		if _, err := parseUiSelectors(sel); err == nil {
			t.Errorf("parse %q: no error", sel)
		} else if !strings.Contains(err.Error(), "UiSelector") {
			t.Errorf("parse %q: error %q does not name the UiSelector", sel, err)
		}
	}
}

func TestXPath(t *testing.T) {
	tr := buildTree(listScreen())
	tests := []struct {
		path    string
		context int
		want    []int
	}{
		{`//*[@text='Wi-Fi']`, 0, []int{5}},
		{`//*[@text="Wi-Fi"]`, 0, []int{5}},
		{`//android.widget.Switch[@resource-id='android:id/switch_widget']`, 0, []int{6, 9}},
		{`//android.widget.Switch[@checked='true']`, 0, []int{6}},
		{`//android.widget.Switch[1]`, 0, []int{6, 9}}, // first Switch child of each row
		{`(//android.widget.Switch)[1]`, 0, nil},       // grouping is outside the subset: invalid
		{`//android.widget.ListView/android.widget.LinearLayout[2]/android.widget.TextView`, 0, []int{8}},
		{`/hierarchy/android.widget.FrameLayout/android.widget.Button`, 0, []int{12}},
		{`/android.widget.FrameLayout`, 0, nil}, // the root is <hierarchy>
		{`//*[contains(@content-desc, 'settings')]`, 0, []int{5, 8}},
		{`//*[starts-with(@text,'Bat')]`, 0, []int{11}},
		{`//*[@clickable='true' and @focused='true']`, 0, []int{12}},
		{`//*[@text='Wi-Fi' or @text='Done']`, 0, []int{5, 12}},
		{`//android.widget.TextView[not(@text='Settings')][2]`, 0, nil}, // one TextView per row
		{`//android.widget.TextView[not(@text='Settings')]`, 0, []int{5, 8, 11}},
		{`//*[@resource-id]`, 0, []int{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}},
		{`//*[@resource-id!='']`, 0, []int{2, 3, 6, 9, 12}},
		{`//*[@bogus]`, 0, nil},
		{`android.widget.Button`, 0, []int{12}},
		{`/hierarchy/node/node[2]/node[2]/node[1]`, 0, []int{8}}, // the dump's own tags
		{`//android.widget.TextView`, 3, []int{5, 8, 11}},        // inside the list only
	}
	for _, tt := range tests {
		x, err := parseXPath(tt.path)
		if err != nil {
			if tt.want != nil {
				t.Errorf("parse %s: %v", tt.path, err)
			}
			continue
		}
		if got := x.find(tr, tt.context); !slices.Equal(got, tt.want) {
			t.Errorf("%s (context %d) selected %v; want %v", tt.path, tt.context, got, tt.want)
		}
	}
}

func TestXPathErrors(t *testing.T) {
	for _, p := range []string{
		``, `/`, `//`, `//*[`, `//*[@text='x'`, `//*[@text=x]`, `//*[@='x']`, `//*[0]`,
		`//*[contains(@text)]`, `//*[contains(@text,'x']`, `//*[not(@a]`, `//*[text()='x']`,
		`//a//`, `//*[@text='x' and]`, `//*[(@a]`, `//a b`, `//*[@text="x]`,
		`//*` + strings.Repeat(`[not(`, 40) + `@a` + strings.Repeat(`)]`, 40),
		strings.Repeat(`/a`, 100),
	} {
		if _, err := parseXPath(p); err == nil {
			t.Errorf("parse %q: no error", p)
		} else if !strings.Contains(err.Error(), "xpath") {
			t.Errorf("parse %q: error %q does not name the xpath", p, err)
		}
	}
}

func FuzzParseUiSelector(f *testing.F) {
	for _, s := range []string{
		`new UiSelector().text("Wi-Fi");`,
		`new UiSelector().textContains("a").instance(1)`,
		`new UiSelector().descriptionMatches(".*x")`,
		`new UiSelector().scrollable(true).childSelector(new UiSelector().text("x"))`,
		`new UiSelector().text("Bluetooth").fromParent(new UiSelector().checkable(true))`,
		`new UiSelector().text("a\"b\\c\u0041"); new UiSelector().index(2)`,
		`new UiSelector().packageNameMatches(com.x)`,
	} {
		f.Add(s)
	}
	tr := buildTree(listScreen())
	f.Fuzz(func(t *testing.T, src string) {
		sels, err := parseUiSelectors(src)
		if err != nil {
			if sels != nil {
				t.Fatal("selectors returned with an error")
			}
			return
		}
		for _, s := range sels {
			for _, n := range s.find(tr, tr.descendants(0)) {
				if n <= 0 || n >= len(tr.nodes) {
					t.Fatalf("selected node %d out of range", n)
				}
			}
		}
	})
}

func FuzzParseXPath(f *testing.F) {
	for _, s := range []string{
		`//*[@text='Wi-Fi']`,
		`//android.widget.Switch[@resource-id="android:id/switch_widget"][1]`,
		`/hierarchy/android.widget.FrameLayout/*[2]`,
		`//*[contains(@content-desc,'x') and not(starts-with(@text,'y')) or @checked]`,
		`//*[@a!='b']`,
	} {
		f.Add(s)
	}
	tr := buildTree(listScreen())
	f.Fuzz(func(t *testing.T, src string) {
		x, err := parseXPath(src)
		if err != nil {
			return
		}
		for _, ctx := range []int{0, 3} {
			got := x.find(tr, ctx)
			if !slices.IsSorted(got) {
				t.Fatalf("result %v not in document order", got)
			}
			for _, n := range got {
				if n <= 0 || n >= len(tr.nodes) {
					t.Fatalf("selected node %d out of range", n)
				}
			}
		}
	})
}

// TestXMLFormat compares with the node format of `uiautomator dump`, written
// out by hand from a device dump: same attributes, same order.
func TestXMLFormat(t *testing.T) {
	tr := buildTree([]Element{
		{Class: "android.widget.FrameLayout", Package: "com.android.settings", Bounds: image.Rect(0, 0, 1080, 2400), Enabled: true},
		{Class: "android.widget.Button", Package: "com.android.settings", ResourceID: "android:id/button1", Text: "OK & go",
			Bounds: image.Rect(10, 20, 30, 40), Clickable: true, Enabled: true},
	})
	want := `<?xml version='1.0' encoding='UTF-8' standalone='yes' ?><hierarchy rotation="0" width="1080" height="2400">` +
		`<node index="0" text="" resource-id="" class="android.widget.FrameLayout" package="com.android.settings" content-desc="" checkable="false" checked="false" clickable="false" enabled="true" focusable="false" focused="false" scrollable="false" long-clickable="false" password="false" selected="false" bounds="[0,0][1080,2400]">` +
		`<node index="0" text="OK &amp; go" resource-id="android:id/button1" class="android.widget.Button" package="com.android.settings" content-desc="" checkable="false" checked="false" clickable="true" enabled="true" focusable="true" focused="false" scrollable="false" long-clickable="false" password="false" selected="false" bounds="[10,20][30,40]" />` +
		`</node></hierarchy>`
	if got := tr.xml(1080, 2400, 0); got != want {
		t.Errorf("xml:\n got %s\nwant %s", got, want)
	}
}

// TestDeepHierarchy nests 20000 views, each inside the previous one: nothing
// may recurse per level.
func TestDeepHierarchy(t *testing.T) {
	const depth = 20000
	elems := make([]Element, depth)
	for i := range elems {
		elems[i] = Element{Class: "android.view.View", Bounds: image.Rect(0, 0, 100000-i, 100000-i)}
	}
	elems[depth-1].Text = "leaf"
	tr := buildTree(elems)
	if p := tr.nodes[depth].parent; p != depth-1 {
		t.Fatalf("parent of the leaf = %d; want %d", p, depth-1)
	}
	if src := tr.xml(1080, 2400, 0); strings.Count(src, "</node>") != depth-1 {
		t.Errorf("closing tags = %d; want %d", strings.Count(src, "</node>"), depth-1)
	}
	x, err := parseXPath(`//android.view.View[@text='leaf']`)
	if err != nil {
		t.Fatal(err)
	}
	if got := x.find(tr, 0); !slices.Equal(got, []int{depth}) {
		t.Errorf("xpath found %v", got)
	}
	sels, err := parseUiSelectors(`new UiSelector().text("leaf")`)
	if err != nil {
		t.Fatal(err)
	}
	if got := sels[0].find(tr, tr.descendants(0)); !slices.Equal(got, []int{depth}) {
		t.Errorf("UiSelector found %v", got)
	}
}

// TestXPathNestedContexts keeps // steps from nested contexts linear: on a
// 20000-deep chain `//*//*//*` would otherwise walk every subtree again.
func TestXPathNestedContexts(t *testing.T) {
	const depth = 20000
	elems := make([]Element, depth)
	for i := range elems {
		elems[i] = Element{Class: "v", Bounds: image.Rect(0, 0, 100000-i, 100000-i)}
	}
	tr := buildTree(elems)
	x, err := parseXPath(`//*//*//v`)
	if err != nil {
		t.Fatal(err)
	}
	// <hierarchy> is an element too, so every view from the second (node 2)
	// down has two element ancestors.
	if got := x.find(tr, 0); len(got) != depth-1 || got[0] != 2 {
		t.Errorf("found %d nodes starting at %v; want %d from node 2", len(got), got[:min(len(got), 1)], depth-1)
	}
}

// TestUiSelectorNestedScopes keeps childSelector linear when every match
// contains the next one.
func TestUiSelectorNestedScopes(t *testing.T) {
	const depth = 20000
	elems := make([]Element, depth)
	for i := range elems {
		elems[i] = Element{Class: "v", Bounds: image.Rect(0, 0, 100000-i, 100000-i)}
	}
	tr := buildTree(elems)
	sels, err := parseUiSelectors(`new UiSelector().className("v").childSelector(new UiSelector().className("v").fromParent(new UiSelector().className("v")))`)
	if err != nil {
		t.Fatal(err)
	}
	// Children of any view: nodes 2…depth; their parents' descendants: the same.
	if got := sels[0].find(tr, tr.descendants(0)); len(got) != depth-1 || got[0] != 2 {
		t.Errorf("found %d nodes from %v; want %d from node 2", len(got), got[:min(len(got), 1)], depth-1)
	}
}
