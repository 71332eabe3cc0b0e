package main

import (
	"errors"
	"fmt"
	"io"
)

const analyzeUsage = `usage: perfgate analyze <what> [flags] FILE...

  frames  [-source auto|surfaceflinger|gfxinfo] [-refresh-hz F] [-window SUBSTRING] FILE
  meminfo FILE
  cpu     BEFORE AFTER
  trace   [-package PKG] [-from T] [-to T] [-clock boottime|monotonic] [-top N] [-json] FILE
`

func runAnalyze(args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		fmt.Fprint(stderr, analyzeUsage)
		return errors.New("analyze: say what to analyze")
	}
	switch args[0] {
	case "frames":
		return analyzeFrames(args[1:], stdout, stderr)
	case "meminfo":
		return analyzeMeminfo(args[1:], stdout, stderr)
	case "cpu":
		return analyzeCPU(args[1:], stdout, stderr)
	case "trace":
		return analyzeTrace(args[1:], stdout, stderr)
	}
	if isHelp(args[0]) {
		fmt.Fprint(stdout, analyzeUsage)
		return nil
	}
	fmt.Fprint(stderr, analyzeUsage)
	return fmt.Errorf("analyze: unknown kind %q", args[0])
}
