package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/perfgate/perfgate/adbx"
	"github.com/perfgate/perfgate/android/dumpsys"
	"github.com/perfgate/perfgate/android/surfaceflinger"
	"github.com/perfgate/perfgate/internal/clihelp"
)

const layerUsage = `usage: perfgate layer -package PKG [-serial S] [-adb host:port] [LIST]

Prints the SurfaceFlinger layer that carries the app's frames (the one
perfgate measures) and a command that saves its frame times for
'perfgate analyze frames -source surfaceflinger'. The layer list comes from
the device ('dumpsys SurfaceFlinger --list'), or from LIST, a file holding
that command's output.

'adb shell' joins its arguments with spaces before the device's shell reads
them, so quotes meant for the device must be inside quotes meant for the
host's shell: the command printed here has both.
`

// runLayer is `perfgate layer`.
func runLayer(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("layer", layerUsage, stderr)
	pkg := fs.String("package", "", "the app's package name")
	serial := fs.String("serial", "", "device serial (default $ANDROID_SERIAL, else the only device)")
	server := fs.String("adb", "", "adb server host:port (default $ADB_SERVER_SOCKET, else $ANDROID_ADB_SERVER_PORT, else 127.0.0.1:5037)")
	if err := clihelp.Parse(fs, args); err != nil {
		return err
	}
	if err := dumpsys.ValidatePackage(*pkg); err != nil {
		return clihelp.Wrong(fs, fmt.Errorf("layer: -package: %w", err))
	}
	if fs.NArg() > 1 {
		return clihelp.Wrong(fs, fmt.Errorf("layer: want at most one LIST file, got %d arguments", fs.NArg()))
	}
	var list []byte
	from := surfaceflinger.ListSource
	if fs.NArg() == 1 {
		b, err := os.ReadFile(fs.Arg(0))
		if err != nil {
			return fmt.Errorf("layer: %w", err)
		}
		list, from = b, fs.Arg(0)
	} else {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		dev, err := adbx.Open(ctx, adbx.Options{Serial: *serial, Server: *server})
		if err != nil {
			return fmt.Errorf("layer: %w", err)
		}
		res, err := dev.Shell(ctx, surfaceflinger.ListSource)
		if err == nil {
			err = res.Err(surfaceflinger.ListSource)
		}
		if err != nil {
			return fmt.Errorf("layer: %w", err)
		}
		list = res.Stdout
		if *serial == "" {
			*serial = dev.Serial()
		}
	}
	layers, err := surfaceflinger.ParseList(list)
	if err != nil {
		return fmt.Errorf("layer: %s: %w", from, err)
	}
	l, err := surfaceflinger.PickLayer(layers, *pkg)
	if errors.Is(err, surfaceflinger.ErrNoLayer) {
		return fmt.Errorf("layer: %s lists no layer of %s among its %d layers; is the app in the foreground?", from, *pkg, len(layers))
	}
	if err != nil {
		return fmt.Errorf("layer: %w", err)
	}
	fmt.Fprintf(stdout, "layer: %s\n", l.Name)
	fmt.Fprintf(stdout, "%s > sf.txt\n", adbx.HostCommand(*serial, "dumpsys SurfaceFlinger --latency "+adbx.Quote(l.Name)))
	return nil
}
