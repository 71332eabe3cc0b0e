package uia2

import (
	"encoding/xml"
	"strconv"
	"strings"
)

// tree is the screen's flat element list arranged as a view hierarchy: an
// element's parent is the closest earlier element whose bounds contain it,
// since a flat list in drawing order lists containers before their content.
// nodes[0] is the <hierarchy> root; nodes[i+1] holds elems[i].
type tree struct {
	nodes []node
}

type node struct {
	el       Element
	parent   int // -1 for the root
	children []int
	index    int // position among the parent's children, as uiautomator's index attribute
	end      int // nodes[i+1:end] are this node's descendants
}

func buildTree(elems []Element) *tree {
	t := &tree{nodes: make([]node, len(elems)+1)}
	t.nodes[0] = node{parent: -1}
	stack := []int{0}
	for i, e := range elems {
		id := i + 1
		for len(stack) > 1 && !e.Bounds.In(t.nodes[stack[len(stack)-1]].el.Bounds) {
			stack = stack[:len(stack)-1]
		}
		p := stack[len(stack)-1]
		t.nodes[id] = node{el: e, parent: p, index: len(t.nodes[p].children)}
		t.nodes[p].children = append(t.nodes[p].children, id)
		stack = append(stack, id)
	}
	t.setEnds()
	return t
}

// setEnds fills node.end without recursion, so deep hierarchies cannot
// exhaust the stack.
func (t *tree) setEnds() {
	for i := len(t.nodes) - 1; i >= 0; i-- {
		end := i + 1
		if c := t.nodes[i].children; len(c) > 0 {
			end = t.nodes[c[len(c)-1]].end
		}
		t.nodes[i].end = end
	}
}

// descendants lists the node ids below n in document order.
func (t *tree) descendants(n int) []int {
	ids := make([]int, 0, t.nodes[n].end-n-1)
	for i := n + 1; i < t.nodes[n].end; i++ {
		ids = append(ids, i)
	}
	return ids
}

// below lists, in document order, the nodes below any of roots (which are
// in document order). Subtrees are nested ranges, so a root inside an
// earlier root's range adds nothing and the walk stays linear.
func (t *tree) below(roots []int) []int {
	var ids []int
	covered := 0
	for _, r := range roots {
		if r < 0 || r < covered {
			continue
		}
		for i := r + 1; i < t.nodes[r].end; i++ {
			ids = append(ids, i)
		}
		covered = t.nodes[r].end
	}
	return ids
}

// attr returns the uiautomator dump attribute name of node n, and whether
// the attribute exists.
func (t *tree) attr(n int, name string) (string, bool) {
	nd := &t.nodes[n]
	e := &nd.el
	switch name {
	case "index":
		return strconv.Itoa(nd.index), true
	case "text":
		return e.Text, true
	case "resource-id", "resourceId":
		return e.ResourceID, true
	case "class", "className":
		return e.Class, true
	case "package":
		return e.Package, true
	case "content-desc", "contentDescription", "name":
		return e.ContentDesc, true
	case "checkable":
		return strconv.FormatBool(e.Checkable), true
	case "checked":
		return strconv.FormatBool(e.Checked), true
	case "clickable":
		return strconv.FormatBool(e.Clickable), true
	case "enabled":
		return strconv.FormatBool(e.Enabled), true
	case "focusable":
		return strconv.FormatBool(focusable(e)), true
	case "focused":
		return strconv.FormatBool(e.Focused), true
	case "scrollable":
		return strconv.FormatBool(e.Scrollable), true
	case "long-clickable", "longClickable", "password":
		return "false", true
	case "selected":
		return strconv.FormatBool(e.Selected), true
	case "displayed", "visible-to-user":
		return "true", true
	case "bounds":
		return boundsString(e), true
	}
	return "", false
}

// focusable is not part of Element: views that take taps or hold focus are
// the ones Android marks focusable.
func focusable(e *Element) bool { return e.Clickable || e.Focused }

func boundsString(e *Element) string {
	b := e.Bounds
	return "[" + strconv.Itoa(b.Min.X) + "," + strconv.Itoa(b.Min.Y) + "][" + strconv.Itoa(b.Max.X) + "," + strconv.Itoa(b.Max.Y) + "]"
}

// nodeAttrs is the attribute order of `uiautomator dump`.
var nodeAttrs = []string{"index", "text", "resource-id", "class", "package", "content-desc",
	"checkable", "checked", "clickable", "enabled", "focusable", "focused", "scrollable",
	"long-clickable", "password", "selected", "bounds"}

// xml renders the hierarchy as `uiautomator dump` does.
func (t *tree) xml(width, height, rotation int) string {
	var b strings.Builder
	b.Grow(64 + 320*len(t.nodes))
	b.WriteString(`<?xml version='1.0' encoding='UTF-8' standalone='yes' ?>`)
	b.WriteString(`<hierarchy rotation="`)
	b.WriteString(strconv.Itoa(rotation))
	b.WriteString(`" width="`)
	b.WriteString(strconv.Itoa(width))
	b.WriteString(`" height="`)
	b.WriteString(strconv.Itoa(height))
	b.WriteString(`">`)
	// An explicit stack of open nodes avoids recursion on deep trees.
	open := []int{0}
	for id := 1; id < len(t.nodes); id++ {
		for open[len(open)-1] != t.nodes[id].parent {
			b.WriteString("</node>")
			open = open[:len(open)-1]
		}
		b.WriteString("<node")
		for _, a := range nodeAttrs {
			v, _ := t.attr(id, a)
			b.WriteByte(' ')
			b.WriteString(a)
			b.WriteString(`="`)
			escapeAttr(&b, v)
			b.WriteByte('"')
		}
		if t.nodes[id].end == id+1 {
			b.WriteString(" />")
			continue
		}
		b.WriteByte('>')
		open = append(open, id)
	}
	for len(open) > 1 {
		b.WriteString("</node>")
		open = open[:len(open)-1]
	}
	b.WriteString("</hierarchy>")
	return b.String()
}

type builderWriter struct{ b *strings.Builder }

func (w builderWriter) Write(p []byte) (int, error) { return w.b.Write(p) }

// escapeAttr writes v escaped for a double-quoted XML attribute; characters
// XML cannot carry become U+FFFD.
func escapeAttr(b *strings.Builder, v string) {
	for i := 0; i < len(v); i++ {
		if c := v[i]; c < 0x20 || c >= 0x7f || strings.IndexByte(`<>&"'`, c) >= 0 {
			_ = xml.EscapeText(builderWriter{b}, []byte(v))
			return
		}
	}
	// Printable ASCII without markup characters needs no escaping.
	b.WriteString(v)
}
