package devtext

import "strings"

// Field returns the value after key in a line of key=value pairs
// (" uid=10229 set=DEFAULT", key "uid=" → "10229"), up to the next space,
// ',' or '}', or "" when key is absent. Only a whole key matches: "uid="
// does not match inside "subId=".
func Field(s, key string) string {
	for off := 0; ; {
		j := strings.Index(s[off:], key)
		if j < 0 {
			return ""
		}
		j += off
		if j == 0 || s[j-1] == ' ' || s[j-1] == ',' || s[j-1] == '{' {
			v := s[j+len(key):]
			if k := strings.IndexAny(v, " ,}"); k >= 0 {
				v = v[:k]
			}
			return v
		}
		off = j + len(key)
	}
}
