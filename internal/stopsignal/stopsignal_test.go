package stopsignal_test

import (
	"context"
	"os"
	"syscall"
	"testing"

	"github.com/perfgate/perfgate/internal/stopsignal"
)

func TestWatchCaught(t *testing.T) {
	sigs := make(chan os.Signal, 1)
	ctx, stop := stopsignal.Watch(sigs)
	defer stop()
	if _, ok := stopsignal.Caught(ctx); ok {
		t.Fatal("caught a signal before one came")
	}
	sigs <- syscall.SIGTERM
	<-ctx.Done()
	sig, ok := stopsignal.Caught(ctx)
	if !ok || sig.ExitCode() != 143 || sig.Error() != "terminated (SIGTERM)" {
		t.Errorf("Caught = %v (%d), %v; want SIGTERM, 143", sig, sig.ExitCode(), ok)
	}
}

func TestFanOut(t *testing.T) {
	sigs := make(chan os.Signal)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	fan := stopsignal.FanOut(ctx, sigs, 3)
	sigs <- os.Interrupt
	for i, c := range fan {
		if s := <-c; s != os.Interrupt {
			t.Errorf("receiver %d got %v", i, s)
		}
	}
}
