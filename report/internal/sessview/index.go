package sessview

import (
	"bytes"
	"html/template"
)

var indexTmpl = template.Must(template.New("index").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>perfgate: all sessions</title>
<style>body{font:14px/1.4 system-ui,sans-serif;margin:24px}table{border-collapse:collapse}td,th{border:1px solid #ddd;padding:3px 8px;text-align:left}
.pass{color:#1a7f37;font-weight:bold}.fail{color:#cf222e;font-weight:bold}</style></head>
<body><h1>perfgate: all sessions ({{len .}})</h1>
<table><tr><th>test</th><th></th><th>steps</th><th>device</th><th>summary</th></tr>
{{range .}}<tr><td><a href="{{.HTML}}">{{.Name}}</a></td><td>{{if .Failed}}<span class="fail">failed</span>{{else}}<span class="pass">passed</span>{{end}}</td><td>{{.Steps}}</td><td>{{.Device}}</td><td><a href="{{.MD}}">Markdown</a> · <a href="{{.JSON}}">JSON</a></td></tr>
{{end}}</table></body></html>
`))

// IndexRow is one session of a report folder's index.html: its name as
// its page gives it (Labels), its files, steps, device and verdict.
type IndexRow struct {
	Name, HTML, MD, JSON, Steps, Device string
	Failed                              bool
}

// Index is the index.html of a report folder listing rows.
func Index(rows []IndexRow) ([]byte, error) {
	var b bytes.Buffer
	err := indexTmpl.Execute(&b, rows)
	return b.Bytes(), err
}
