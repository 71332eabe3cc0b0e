// Package adbwire is the adb wire format, written once for both sides: the
// client in adbx and the loopback endpoints in adbx/adbtest. It frames
// bytes and nothing more; what a request means, and what a connection does
// with a reply, belongs to the packages above it.
//
//   - the host protocol (adb's SERVICES.TXT): strings prefixed by their
//     length in four hex digits, and OKAY / FAIL replies;
//   - the device protocol (adb's protocol.txt): 24-byte message headers and
//     their payloads, as adbd and the adb server exchange them;
//   - shell protocol v2 packets (adb's shell_protocol.h): an id byte, a
//     little-endian length and the data;
//   - the sync service (adb's SYNC.TXT): a four-character id and a
//     little-endian uint32, and the st_mode bits its stat replies carry.
//
// Every reader bounds what it accepts and reports input that breaks the
// format with an error matching ErrMalformed; a stream cut short matches
// io.ErrUnexpectedEOF as well.
package adbwire
