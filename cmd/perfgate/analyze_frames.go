package main

import (
	"errors"
	"io"
)

func analyzeFrames(args []string, stdout, stderr io.Writer) error {
	return errors.New("analyze frames: not built yet")
}
