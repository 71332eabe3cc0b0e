package main

import (
	"errors"
	"io"
)

func analyzeMeminfo(args []string, stdout, stderr io.Writer) error {
	return errors.New("analyze meminfo: not built yet")
}

func analyzeCPU(args []string, stdout, stderr io.Writer) error {
	return errors.New("analyze cpu: not built yet")
}
