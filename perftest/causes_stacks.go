package perftest

import (
	"errors"
	"fmt"
	"github.com/perfgate/perfgate/result"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// foldedStacks is every main-thread sample of the session folded for
// flame-graph tools (Brendan Gregg's stackcollapse format): one line per
// stack, "step;outermost;…;innermost count", the step a sample fell in
// first ("(between steps)" outside every step), sorted. It runs under the
// session's lock, after finish placed the steps on the device clock.
func (c *collector) foldedStacks() []byte {
	if len(c.causes.samples) == 0 {
		return nil
	}
	steps := c.s.res.Steps
	counts := map[string]int{}
	for _, smp := range c.causes.samples {
		name := "(between steps)"
		for _, st := range steps {
			if smp.TimeNs >= st.DeviceStartNs && smp.TimeNs < st.DeviceEndNs {
				name = st.Name
				break
			}
		}
		counts[strings.ReplaceAll(name, ";", ":")+";"+smp.Stack]++
	}
	keys := make([]string, 0, len(counts))
	for k := range counts {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var b strings.Builder
	for _, k := range keys {
		b.WriteString(k + " " + strconv.Itoa(counts[k]) + "\n")
	}
	return []byte(b.String())
}

// writeStacks writes the folded stacks beside the Result, as
// <result>.folded: the Result's own stem with .folded for .json (see
// WriteInDir), and names the file in r.Causes. Nothing is written when
// the Result is not ("-") or there are no stacks.
func (c Config) writeStacks(r *result.Result, data []byte) error {
	if len(data) == 0 || r.Causes == nil || c.ResultFile == "-" {
		return nil
	}
	fail := func(err error) error { return fmt.Errorf("perftest: write folded stacks: %w", err) }
	dir := c.resultsDir()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fail(err)
	}
	tmp, err := os.CreateTemp(dir, ".stacks.*")
	if err != nil {
		return fail(err)
	}
	_, werr := tmp.Write(data)
	if err := errors.Join(werr, tmp.Close(), os.Chmod(tmp.Name(), 0o644)); err != nil {
		os.Remove(tmp.Name())
		return fail(err)
	}
	p, err := c.fileStem().Claim(dir, result.Base(c.Name), ".folded", tmp.Name())
	if err != nil {
		os.Remove(tmp.Name())
		return fail(err)
	}
	r.Causes.StacksFile = filepath.Base(p)
	return nil
}
