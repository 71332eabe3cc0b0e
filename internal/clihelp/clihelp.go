// Package clihelp holds what perfgate's commands share about their flags
// and usage: a command called wrongly says what was wrong in one line and
// where the usage is, and prints the whole usage only when asked (-h).
package clihelp

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
)

// NewFlagSet is a command's flag set; its usage, printed to stderr for
// -h, is usage followed by the flags' defaults.
func NewFlagSet(name, usage string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, usage); fs.PrintDefaults() }
	return fs
}

// Parse parses args with fs. -h prints the usage and returns
// flag.ErrHelp; a bad flag prints nothing and returns a *UsageError
// naming the command, where fs.Parse would print the whole usage before
// the error.
func Parse(fs *flag.FlagSet, args []string) error {
	out, usage := fs.Output(), fs.Usage
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	err := fs.Parse(args)
	fs.SetOutput(out)
	fs.Usage = usage
	if errors.Is(err, flag.ErrHelp) {
		fs.Usage()
		return err
	}
	if err != nil {
		return Wrong(fs, err)
	}
	return nil
}

// Wrong is err for a command called wrongly (a bad flag, a missing
// argument): a *UsageError, which Exit follows with where the usage is.
func Wrong(fs *flag.FlagSet, err error) error {
	return &UsageError{Command: fs.Name(), Err: err}
}

// UsageError is an error in how a command was called.
type UsageError struct {
	Command string // "run", "analyze trace"; "" for perfgate itself
	Err     error
}

// Error is the command's name and what was wrong, unless Err names the
// command already.
func (e *UsageError) Error() string {
	msg := e.Err.Error()
	if e.Command == "" {
		return msg
	}
	if len(msg) > len(e.Command) && msg[:len(e.Command)+1] == e.Command+":" {
		return msg
	}
	return e.Command + ": " + msg
}

func (e *UsageError) Unwrap() error { return e.Err }

// Hint is the line after the error: where the command's usage is.
func (e *UsageError) Hint() string {
	if e.Command == "" {
		return "run 'perfgate -h' for usage"
	}
	return fmt.Sprintf("run 'perfgate %s -h' for usage", e.Command)
}

// exitCoder is an error that asks for a particular exit status.
type exitCoder interface{ ExitCode() int }

// Exit prints err to stderr ("perfgate: " and the error, then a
// UsageError's hint) and returns the exit status it asks for: 0 for nil
// and flag.ErrHelp, an exit coder's own, else 1.
func Exit(err error, stderr io.Writer) int {
	if err == nil || errors.Is(err, flag.ErrHelp) {
		return 0
	}
	fmt.Fprintln(stderr, "perfgate:", err)
	var ue *UsageError
	if errors.As(err, &ue) {
		fmt.Fprintln(stderr, ue.Hint())
	}
	var ec exitCoder
	if errors.As(err, &ec) {
		return ec.ExitCode()
	}
	return 1
}

// IsHelp reports whether a command's first argument asks for its usage.
func IsHelp(arg string) bool {
	switch arg {
	case "help", "-h", "-help", "--help":
		return true
	}
	return false
}

// Command runs one command or subcommand on its arguments.
type Command func(args []string, stdout, stderr io.Writer) error

// Subcommands are the commands of a group, "perfgate analyze" and the
// like: the first argument names one, help prints the group's usage.
type Subcommands struct {
	What, Usage   string // the group's name in errors ("" for perfgate itself), and its usage
	None, Unknown string // the errors for no command and an unknown one (with %q)
	Cmds          map[string]Command
}

// Run runs the command args[0] names on the arguments after it. No
// command, or an unknown one, is a UsageError, in one line: no command
// names the group's commands ("no command given (want add, trend …)").
func (g Subcommands) Run(args []string, stdout, stderr io.Writer) error {
	wrong := func(err error) error { return &UsageError{Command: g.What, Err: err} }
	if len(args) == 0 {
		return wrong(fmt.Errorf("%s (want %s)", g.None, strings.Join(slices.Sorted(maps.Keys(g.Cmds)), ", ")))
	}
	if cmd, ok := g.Cmds[args[0]]; ok {
		return cmd(args[1:], stdout, stderr)
	}
	if IsHelp(args[0]) {
		fmt.Fprint(stdout, g.Usage)
		return nil
	}
	return wrong(fmt.Errorf(g.Unknown, args[0]))
}
