package pipelinehttp

import (
	"unicode/utf16"
	"unicode/utf8"
)

// jsonText decodes a JSON string exactly as sent, and reports whether raw
// is one. encoding/json replaces bytes that are not UTF-8 and the escape of
// a lone surrogate (\ud800) by U+FFFD, so that the text stored would not be
// the text sent; here they are kept, a lone surrogate as the three bytes
// WTF-8 gives it, which are not UTF-8 either. Whether text is valid is the
// domain's to say (pipeline.ValidText): it refuses such text naming the
// field, as it refuses a NUL (\u0000), which decodes to itself here.
//
// raw is a JSON value that encoding/json has found well-formed.
func jsonText(raw []byte) (string, bool) {
	if len(raw) < 2 || raw[0] != '"' || raw[len(raw)-1] != '"' {
		return "", false
	}
	s := raw[1 : len(raw)-1]
	out := make([]byte, 0, len(s))
	for i := 0; i < len(s); {
		if s[i] != '\\' {
			out = append(out, s[i])
			i++
			continue
		}
		if i+1 >= len(s) {
			return "", false
		}
		if e, ok := jsonEscapes[s[i+1]]; ok {
			out = append(out, e)
			i += 2
			continue
		}
		if s[i+1] != 'u' {
			return "", false
		}
		r, ok := hex4(s[i+2:])
		if !ok {
			return "", false
		}
		i += 6
		if utf16.IsSurrogate(r) && r < 0xdc00 && i+6 <= len(s) && s[i] == '\\' && s[i+1] == 'u' {
			if low, ok := hex4(s[i+2:]); ok && low >= 0xdc00 && low <= 0xdfff {
				out = utf8.AppendRune(out, utf16.DecodeRune(r, low))
				i += 6
				continue
			}
		}
		out = appendWTF8(out, r)
	}
	return string(out), true
}

// jsonEscapes are JSON's one-character escapes.
var jsonEscapes = map[byte]byte{'"': '"', '\\': '\\', '/': '/', 'b': '\b', 'f': '\f', 'n': '\n', 'r': '\r', 't': '\t'}

// hex4 reads the four hexadecimal digits of a \u escape.
func hex4(b []byte) (rune, bool) {
	if len(b) < 4 {
		return 0, false
	}
	var r rune
	for _, c := range b[:4] {
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c -= 'a' - 10
		case c >= 'A' && c <= 'F':
			c -= 'A' - 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	return r, true
}

// appendWTF8 appends the UTF-8 encoding of r, extended to surrogates as
// WTF-8 does (utf8.AppendRune would write U+FFFD for them).
func appendWTF8(b []byte, r rune) []byte {
	if !utf16.IsSurrogate(r) {
		return utf8.AppendRune(b, r)
	}
	return append(b, byte(0xe0|r>>12), byte(0x80|(r>>6)&0x3f), byte(0x80|r&0x3f))
}

// faithfulJSON reports whether encoding/json decodes every string of the
// JSON text body exactly as sent: body is UTF-8 and holds no escape of a
// lone surrogate. (A backslash is an escape only inside a string in valid
// JSON, so the strings need not be found.)
func faithfulJSON(body []byte) bool {
	if !utf8.Valid(body) {
		return false
	}
	for i := 0; i < len(body); i++ {
		if body[i] != '\\' {
			continue
		}
		if i+1 >= len(body) || body[i+1] != 'u' {
			i++ // the escaped character
			continue
		}
		r, ok := hex4(body[i+2:])
		switch {
		case !ok || !utf16.IsSurrogate(r):
			i += 5
		case r < 0xdc00 && i+12 <= len(body) && body[i+6] == '\\' && body[i+7] == 'u':
			low, ok := hex4(body[i+8:])
			if !ok || low < 0xdc00 || low > 0xdfff {
				return false
			}
			i += 11
		default:
			return false
		}
	}
	return true
}
