// Package heapview shows a session's Java heap dumps on the report's page:
// the two dumps (before the first step, after the last) with links to
// their files beside the Result, their totals, and the classes that grew
// most between them; or why the session has no diff.
//
//	hr.HeapDumps = heapview.HTML(r, pageDir)
package heapview

import (
	"fmt"
	"html/template"
	"path/filepath"
	"strings"

	"github.com/perfgate/perfgate/android/hprof"
	"github.com/perfgate/perfgate/report/internal/cmppage"
	"github.com/perfgate/perfgate/result"
)

// Dump is one heap dump's row.
type Dump struct {
	Which, File, Size, PID, Classes, Instances, Shallow string
	Href                                                template.URL
	// Absent says why the dump is missing.
	Absent string
}

// Class is one grown class's row.
type Class struct {
	Name, Instances, Counts, Shallow string
}

// View is a session's heap dumps on the page.
type View struct {
	Dumps []Dump
	Grew  []Class
	// Line is the growth a failing memory gate quotes (HeapDumps.Line).
	Line string
	// Note says why there is no diff; NoGrowth that the dumps differ by
	// no class that grew.
	Note     string
	NoGrowth bool
}

var tmpl = template.Must(template.New("heapdumps").Parse(`<h3>Heap dumps</h3>
{{if .Note}}<p class="notes heapdump-note">{{.Note}}</p>
{{end}}<table class="heapdumps"><tr><th>dump</th><th>file</th><th>size</th><th>pid</th><th>classes</th><th>instances</th><th>shallow size</th></tr>
{{range .Dumps}}<tr><td>{{.Which}}</td>{{if .Absent}}<td colspan="6">not taken: {{.Absent}}</td>{{else}}<td><a href="{{.Href}}"><code>{{.File}}</code></a></td><td class="num">{{.Size}}</td><td class="num">{{.PID}}</td><td class="num">{{.Classes}}</td><td class="num">{{.Instances}}</td><td class="num">{{.Shallow}}</td>{{end}}</tr>
{{end}}</table>
{{if .Grew}}<p>{{.Line}}</p>
<table class="heap-growth"><tr><th>class</th><th>instances</th><th>first → last</th><th>shallow size</th></tr>
{{range .Grew}}<tr><td><code>{{.Name}}</code></td><td class="num">{{.Instances}}</td><td class="num">{{.Counts}}</td><td class="num">{{.Shallow}}</td></tr>
{{end}}</table>
{{else if .NoGrowth}}<p>No class grew between the dumps.</p>
{{end}}`))

// Of is the view of r's heap dumps for the page written into pageDir
// (links go from there; "": file URLs); nil when the session took none.
func Of(r *result.Result, pageDir string) *View {
	h := r.HeapDumps
	if h == nil {
		return nil
	}
	v := &View{Note: h.Note, Line: h.Line()}
	for _, d := range []struct {
		which string
		d     *result.HeapDump
	}{{"first (before the first step)", h.First}, {"last (after the last step)", h.Last}} {
		v.Dumps = append(v.Dumps, dumpRow(r, d.which, d.d, h.Note, pageDir))
	}
	for _, g := range h.Grew {
		v.Grew = append(v.Grew, Class{Name: g.Class, Instances: signed(g.Instances, hprof.Thousands),
			Counts: hprof.Thousands(g.Before) + " → " + hprof.Thousands(g.After), Shallow: signed(g.ShallowBytes, hprof.Bytes)})
	}
	v.NoGrowth = len(v.Grew) == 0 && h.First != nil && h.Last != nil && h.Note == ""
	return v
}

// dumpRow is a dump's row; a missing dump's says why (the session's note).
func dumpRow(r *result.Result, which string, d *result.HeapDump, note, pageDir string) Dump {
	if d == nil {
		if note == "" {
			note = "the Result names no file"
		}
		return Dump{Which: which, Absent: note}
	}
	f := cmppage.Beside(r.Path, d.File)
	if f == "" && r.Path != "" {
		f = filepath.Join(filepath.Dir(r.Path), d.File) // gone: the link says where it was
	} else if f == "" {
		f = d.File
	}
	return Dump{Which: which, File: d.File, Href: cmppage.Href(pageDir, f), Size: hprof.Bytes(d.Bytes), PID: fmt.Sprint(d.PID),
		Classes: hprof.Thousands(int64(d.Classes)), Instances: hprof.Thousands(d.Instances), Shallow: hprof.Bytes(d.ShallowBytes)}
}

// signed is v with its sign, as hprof.Growth.String writes it.
func signed(v int64, f func(int64) string) string {
	if v >= 0 {
		return "+" + f(v)
	}
	return "−" + f(-v)
}

// HTML is the view of r's heap dumps, "" when the session took none.
func HTML(r *result.Result, pageDir string) template.HTML {
	v := Of(r, pageDir)
	if v == nil {
		return ""
	}
	var b strings.Builder
	if err := tmpl.Execute(&b, v); err != nil {
		return template.HTML(template.HTMLEscapeString("heap dumps: " + err.Error()))
	}
	return template.HTML(b.String())
}
