package devtext

import (
	"encoding/binary"
	"math/bits"
)

// NonDigits8 marks the bytes of w that are not ASCII digits with their
// high bit; the lowest mark is exact (the bytes below it are digits, whose
// sums and differences carry and borrow nothing), those above it may not
// be. 0 when all eight are digits.
func NonDigits8(w uint64) uint64 {
	return ((w + 0x4646464646464646) | (w - 0x3030303030303030)) & 0x8080808080808080
}

// Value8 is the number eight ASCII digits spell, the first in w's low
// byte (a little-endian load).
func Value8(w uint64) uint64 {
	w -= 0x3030303030303030
	w = (w & 0x0F0F0F0F0F0F0F0F) * (10<<8 + 1) >> 8
	w = (w & 0x00FF00FF00FF00FF) * (100<<16 + 1) >> 16
	return (w & 0x0000FFFF0000FFFF) * (10000<<32 + 1) >> 32
}

// Pow10 are the powers of ten up to 10⁸.
var Pow10 = [9]uint64{1, 10, 100, 1000, 10000, 100000, 1000000, 10000000, 100000000}

// Digits reads the ASCII digits b starts with, eight at a time: their
// number, and their value, exact for up to 19 digits.
func Digits(b []byte) (v uint64, n int) {
	for n+8 <= len(b) {
		w := binary.LittleEndian.Uint64(b[n:])
		m := NonDigits8(w)
		if m == 0 {
			v = v*100_000_000 + Value8(w)
			n += 8
			continue
		}
		k := bits.TrailingZeros64(m) / 8 // digits before the first non-digit
		if k > 0 {
			// The k digits moved to the word's end, '0's before them.
			v = v*Pow10[k] + Value8(w<<uint(8*(8-k))|0x3030303030303030>>uint(8*k))
		}
		return v, n + k
	}
	for ; n < len(b); n++ {
		d := b[n] - '0'
		if d > 9 {
			break
		}
		v = v*10 + uint64(d)
	}
	return v, n
}
