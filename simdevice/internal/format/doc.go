// Package format renders what a phone prints: the text of dumpsys services
// (gfxinfo, SurfaceFlinger, meminfo, display, package, activity, battery,
// netstats) and of the files under /proc and /sys, in the layout of each
// simulated API level (28, 30, 33, 34), each layout taken from a real
// capture in ../shared/fixtures and named where it is written.
//
// The functions are pure: they take plain values (counters, frame rows,
// memory rows) and return or write text. What the values are, and which
// quirks a row shows, is the simulated world's business (package
// simdevice); how they look on a phone of a given API level is this
// package's. Numbers are in the units the phone prints: ns for frame
// times, KiB for memory, bytes for traffic, clock ticks (USER_HZ = 100) for
// CPU time.
package format
