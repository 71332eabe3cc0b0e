//go:build tools

// This file pins the module's dependencies before every package uses them.
package perfgate

import (
	_ "github.com/electricbubble/gadb"
	_ "github.com/electricbubble/guia2"
	_ "github.com/stretchr/testify/assert"
	_ "golang.org/x/perf/benchmath"
	_ "gotest.tools/v3/assert"
	_ "mvdan.cc/sh/v3/interp"
)
