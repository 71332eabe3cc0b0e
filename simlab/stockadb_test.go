package simlab_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/perfgate/perfgate/simlab"
)

// stockADB puts an adb on PATH that appends its arguments to a log file
// it returns and prints what the script says.
func stockADB(t *testing.T, script string) string {
	t.Helper()
	dir := t.TempDir()
	log := filepath.Join(dir, "log")
	sh := "#!/bin/sh\necho \"$@\" >> " + log + "\n" + script + "\n"
	if err := os.WriteFile(filepath.Join(dir, "adb"), []byte(sh), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", dir+string(os.PathListSeparator)+os.Getenv("PATH"))
	return log
}

// ConnectStock runs adb connect and waits for the phone; adb's word that
// it failed is an error though adb exits 0, and so is a failed adb.
func TestConnectStock(t *testing.T) {
	log := stockADB(t, `echo "connected to $2"`)
	serial, err := simlab.ConnectStock("127.0.0.1:15555")
	if err != nil || serial != "127.0.0.1:15555" {
		t.Fatalf("ConnectStock = %q, %v", serial, err)
	}
	if err := simlab.DisconnectStock(serial); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(log)
	if want := "connect 127.0.0.1:15555\n-s 127.0.0.1:15555 wait-for-device\ndisconnect 127.0.0.1:15555\n"; string(b) != want {
		t.Errorf("adb ran with\n%s\nwant\n%s", b, want)
	}

	stockADB(t, `echo "failed to connect to '$2': Connection refused"`)
	if _, err := simlab.ConnectStock("127.0.0.1:15556"); err == nil || err.Error() != "adb connect 127.0.0.1:15556: failed to connect to '127.0.0.1:15556': Connection refused" {
		t.Errorf("refused: %v", err)
	}
	stockADB(t, `echo "error: no devices" >&2; exit 1`)
	if err := simlab.DisconnectStock("x"); err == nil || !strings.HasPrefix(err.Error(), "adb disconnect x: exit status 1: error: no devices") {
		t.Errorf("adb failed: %v", err)
	}
}
