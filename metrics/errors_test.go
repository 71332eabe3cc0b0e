package metrics

import (
	"strings"
	"testing"
)

// A bad row of 5 MB gives a message of a line, quoting a bounded excerpt
// of the row and of the token that was bad.
func TestParseErrorBounded(t *testing.T) {
	row := "cpu " + strings.Repeat("9", 5<<20) + "x 1 2 3 4 5 6 7"
	_, err := ParseProcStat([]byte(row + "\n"))
	if err == nil {
		t.Fatal("a bad /proc/stat row parsed")
	}
	if len(err.Error()) > 1000 || !strings.Contains(err.Error(), "bytes)") {
		t.Errorf("a %d-byte error for a %d-byte row: %.300s", len(err.Error()), len(row), err)
	}
	e := &ParseError{Source: "x", Line: 3, Text: strings.Repeat("\xff", 5<<20), Reason: "bad"}
	if n := len(e.Error()); n > 400 {
		t.Errorf("ParseError of a 5 MB line: %d bytes", n)
	}
}
