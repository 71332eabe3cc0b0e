package adbx_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/perfgate/perfgate/adbx"
	"github.com/perfgate/perfgate/adbx/adbtest"
)

// List reads every device a server lists, in every state; a server that
// does not answer is an error naming it.
func TestList(t *testing.T) {
	t.Parallel()
	srv := adbtest.NewServer(&adbtest.FakeDevice{SerialNo: "phone-1", ModelName: "Pixel 7"}, &adbtest.FakeDevice{SerialNo: "phone-2", ModelName: "Galaxy S23"})
	defer srv.Close()
	devs, err := adbx.List(context.Background(), srv.Addr)
	if err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(devs); got != "[phone-1 (device, model Pixel_7) phone-2 (device, model Galaxy_S23)]" {
		t.Errorf("listed %s", got)
	}
	srv.Close()
	if _, err := adbx.List(context.Background(), srv.Addr); err == nil || !strings.Contains(err.Error(), "adbx list "+srv.Addr) {
		t.Errorf("closed server: %v", err)
	}
	if _, err := adbx.List(context.Background(), "no-port"); err == nil || !strings.Contains(err.Error(), `server "no-port"`) {
		t.Errorf("bad address: %v", err)
	}
}
