//go:build !unix

package testenv

import "errors"

func execSelf(string, []string, []string) error { return errors.New("testenv: no exec here") }
