// Package adbx is perfgate's one way to talk to an Android device.
package adbx
