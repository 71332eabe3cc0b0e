package simdevice

import (
	"context"
	"io"
	"strings"
	"testing"
	"time"
)

// FuzzShell runs arbitrary command lines: the shell must neither panic nor
// outlive its context, whatever the script.
func FuzzShell(f *testing.F) {
	for _, s := range []string{
		"cat /proc/stat; cat /proc/1/stat 2>/dev/null",
		"dumpsys gfxinfo com.example framestats | head -n 3",
		"pidof com.example || echo none",
		"for t in /proc/1/task/*/stat; do cat $t; done",
		"echo a > /data/local/tmp/x && grep -c a /data/local/tmp/x",
		"x=$(id -u); [ $x -eq 2000 ] && echo shell",
		"ls -la /sdcard /nope 2>&1 | wc -l",
		"printf '%s\\n' a b | sort -r | uniq -c",
		"sh -c 'exit 3'; echo $?",
		"seq 3 | tail -n +2 | cut -c 1",
		"logcat -d -v threadtime | grep -E 'Skipped [0-9]+ frames'",
		"date +%s%N; getprop ro.build.version.sdk",
		"cd /data/local/tmp; mkdir -p a/b; rm -r a; echo */",
		"(echo out; echo err >&2) 2>&1 >/dev/null",
		"eval 'cat <(echo x)'",
		"stat -c '%n %s %a %F' /system/build.prop",
		"base64 /system/build.prop | base64 -d | head -c 20",
		"chmod u+x /data/local/tmp/x; /data/local/tmp/x",
	} {
		f.Add(s)
	}
	d, err := New(Config{})
	if err != nil {
		f.Fatal(err)
	}
	defer d.Close()
	f.Fuzz(func(t *testing.T, script string) {
		ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
		defer cancel()
		done := make(chan struct{})
		go func() {
			defer close(done)
			d.Shell(ctx, script, strings.NewReader("in\n"), io.Discard, io.Discard)
		}()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			t.Fatalf("Shell(%q) still running 5s after a 200ms deadline", script)
		}
	})
}
