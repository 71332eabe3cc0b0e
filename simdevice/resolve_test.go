package simdevice

import (
	"bytes"
	"testing"
)

// `cmd package resolve-activity --brief` answers the launcher activity in
// its two-line form, and "No activity found" for other packages.
func TestResolveActivity(t *testing.T) {
	d, err := New(Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	for _, c := range []struct{ cmd, want string }{
		{"cmd package resolve-activity --brief -c android.intent.category.LAUNCHER " + PresetPackage,
			"priority=0 preferredOrder=0 match=0x108000 specificIndex=-1 isDefault=true\n" + PresetPackage + "/.MainActivity\n"},
		{"cmd package resolve-activity --brief com.example.none", "No activity found\n"},
	} {
		var out, errb bytes.Buffer
		if code := d.Shell(t.Context(), c.cmd, nil, &out, &errb); code != 0 || out.String() != c.want {
			t.Errorf("%s: exit %d, stdout %q stderr %q, want %q", c.cmd, code, out.String(), errb.String(), c.want)
		}
	}
}
