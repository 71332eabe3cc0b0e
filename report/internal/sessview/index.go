package sessview

import (
	"bytes"
	"html/template"
	"os"
	"path/filepath"
)

var indexTmpl = template.Must(template.New("index").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>perfgate: all sessions</title>
<style>body{font:14px/1.4 system-ui,sans-serif;margin:24px}table{border-collapse:collapse}td,th{border:1px solid #ddd;padding:3px 8px;text-align:left}
.pass{color:#1a7f37;font-weight:bold}.fail{color:#cf222e;font-weight:bold}</style></head>
<body><h1>perfgate: all sessions ({{.Sessions}})</h1>
<table><tr><th>test</th><th></th><th>steps</th><th>device</th><th>summary</th></tr>
{{range .Rows}}<tr><td>{{if .HTML}}<a href="{{.HTML}}">{{.Name}}</a>{{else}}{{.Name}}{{end}}</td><td>{{if .Unreadable}}<span class="fail">not a Result</span>: {{.Unreadable}}{{else if .Failed}}<span class="fail">failed</span>{{else}}<span class="pass">passed</span>{{end}}</td><td>{{.Steps}}</td><td>{{.Device}}</td><td>{{if .MD}}<a href="{{.MD}}">Markdown</a> · {{end}}<a href="{{.JSON}}">JSON</a></td></tr>
{{end}}</table></body></html>
`))

// IndexRow is one session of a report folder's index.html: its name as
// its page gives it (Labels), its files, steps, device and verdict.
// Unreadable says why a JSON file there is no Result (a budget file, a
// scenario).
type IndexRow struct {
	Name, HTML, MD, JSON, Steps, Device string
	Failed                              bool
	Unreadable                          string
}

// IndexRowOf is the row of the Result base.json in dir: its name base until its
// Result is read, and links to its JSON and to those of its reports
// (base.html, base.md) that are there. A Result whose session wrote no
// report (in a folder that is also the results folder) links none.
func IndexRowOf(dir, base string) IndexRow {
	r := IndexRow{Name: base, JSON: base + ".json"}
	if fi, err := os.Stat(filepath.Join(dir, base+".html")); err == nil && fi.Mode().IsRegular() {
		r.HTML = base + ".html"
	}
	if fi, err := os.Stat(filepath.Join(dir, base+".md")); err == nil && fi.Mode().IsRegular() {
		r.MD = base + ".md"
	}
	return r
}

// Index is the index.html of a report folder listing rows, headed by
// the number of sessions among them (not the files that are no Result).
func Index(rows []IndexRow) ([]byte, error) {
	n := 0
	for _, r := range rows {
		if r.Unreadable == "" {
			n++
		}
	}
	var b bytes.Buffer
	err := indexTmpl.Execute(&b, struct {
		Rows     []IndexRow
		Sessions int
	}{rows, n})
	return b.Bytes(), err
}
