package devtext

// NormalizeHead is Normalize of the start of a capture, read to tell its
// format: a UTF-16 head is first cut to whole code units.
func NormalizeHead(head []byte) []byte {
	if len(head) >= 2 && (head[0] == 0xFF || head[0] == 0xFE) {
		head = head[:len(head)&^1]
	}
	return Normalize(head)
}
