// Package adbtest provides loopback adb endpoints serving simulated devices,
// in the spirit of net/http/httptest.
package adbtest
