package simlab

import (
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"strings"
	"time"
)

// ConnectStock joins addr to the user's stock adb server with the adb
// binary on PATH ("adb connect addr", then "adb -s addr wait-for-device")
// and returns the serial the server lists it under, the address itself:
// an Options.Connect for a lab the user runs.
func ConnectStock(addr string) (string, error) {
	if err := stockADB("connect", addr); err != nil {
		return "", err
	}
	return addr, stockADB("-s", addr, "wait-for-device")
}

// DisconnectStock takes a phone ConnectStock joined off the user's stock
// adb server ("adb disconnect serial").
func DisconnectStock(serial string) error {
	return stockADB("disconnect", serial)
}

// stockADB runs the stock adb binary with the user's environment, for 30s
// at most. adb connect exits 0 when it fails, saying so: output that says
// "failed" or "cannot" is an error too.
func stockADB(args ...string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "adb", args...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("adb %s: %w: %s", strings.Join(args, " "), err, strings.TrimSpace(out.String()))
	}
	if s := out.String(); strings.Contains(s, "failed") || strings.Contains(s, "cannot") {
		return fmt.Errorf("adb %s: %s", strings.Join(args, " "), strings.TrimSpace(s))
	}
	return nil
}
