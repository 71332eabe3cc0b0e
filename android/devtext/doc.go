// Package devtext is the line reading every parser of device text shares:
// captures as users store them (UTF-16LE or BE with a BOM, a UTF-8 BOM,
// CRLF or lone CR) normalised to plain lines (Normalize, NewNormReader),
// text read with a bound (ReadText), and ParseError, the error that names
// the source and line and quotes a bounded excerpt of it. No line longer
// than MaxLine is held: a reader stops with ErrLineTooLong first.
//
//	text, err := devtext.ReadText(r, "dumpsys meminfo", 0)
//	var pe *devtext.ParseError
//	if errors.As(err, &pe) { fmt.Println(pe.Source, pe.Line) }
package devtext
