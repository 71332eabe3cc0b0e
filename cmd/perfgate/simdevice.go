package main

import (
	"errors"
	"io"
)

func runSimdevice(args []string, stdout, stderr io.Writer) error {
	return errors.New("simdevice: not built yet")
}
