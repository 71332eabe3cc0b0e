// Package simdevice is a simulated Android phone.
package simdevice
