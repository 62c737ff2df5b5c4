package doctext

import "bytes"

// tokenKind is the kind of a content stream's token.
type tokenKind int

const (
	opToken tokenKind = iota
	stringToken
	numberToken
	otherToken
)

// token is one token of a content stream: an operator, a string (raw
// holds its bytes, escapes decoded), a number, or another operand.
type token struct {
	kind tokenKind
	text string
	raw  []byte
}

// lexer splits a content stream into tokens. It never fails: what it
// cannot read it skips, one byte at a time, so it always ends.
type lexer struct {
	s []byte
	i int
}

func isSpace(c byte) bool {
	return c == ' ' || c == '\n' || c == '\r' || c == '\t' || c == '\f' || c == 0
}

func isDelim(c byte) bool { return bytes.IndexByte([]byte("()<>[]{}/%"), c) >= 0 }

func (l *lexer) next() (token, bool) {
	for l.i < len(l.s) {
		c := l.s[l.i]
		switch {
		case isSpace(c):
			l.i++
		case c == '%':
			for l.i < len(l.s) && l.s[l.i] != '\n' && l.s[l.i] != '\r' {
				l.i++
			}
		case c == '(':
			return token{kind: stringToken, raw: l.literal()}, true
		case c == '<' && l.i+1 < len(l.s) && l.s[l.i+1] == '<', c == '>' && l.i+1 < len(l.s) && l.s[l.i+1] == '>':
			l.i += 2
			return token{kind: otherToken}, true
		case c == '<':
			return token{kind: stringToken, raw: l.hex()}, true
		case c == '[' || c == ']' || c == '{' || c == '}' || c == '>' || c == ')':
			l.i++
			return token{kind: otherToken, text: string(c)}, true
		case c == '/':
			l.i++
			l.word()
			return token{kind: otherToken}, true
		default:
			w := l.word()
			if w == "" {
				l.i++
				continue
			}
			if (w[0] >= '0' && w[0] <= '9') || w[0] == '-' || w[0] == '+' || w[0] == '.' {
				return token{kind: numberToken, text: w}, true
			}
			return token{kind: opToken, text: w}, true
		}
	}
	return token{}, false
}

// word reads a run of regular characters.
func (l *lexer) word() string {
	start := l.i
	for l.i < len(l.s) && !isSpace(l.s[l.i]) && !isDelim(l.s[l.i]) {
		l.i++
	}
	return string(l.s[start:l.i])
}

// literal reads a (string), with nested parentheses and escapes.
func (l *lexer) literal() []byte {
	l.i++ // (
	var out []byte
	depth := 1
	for l.i < len(l.s) {
		c := l.s[l.i]
		l.i++
		switch c {
		case '(':
			depth++
		case ')':
			depth--
			if depth == 0 {
				return out
			}
		case '\\':
			if l.i >= len(l.s) {
				return out
			}
			e := l.s[l.i]
			l.i++
			switch e {
			case 'n':
				c = '\n'
			case 'r':
				c = '\r'
			case 't':
				c = '\t'
			case 'b':
				c = '\b'
			case 'f':
				c = '\f'
			case '\r', '\n':
				continue
			default:
				if e >= '0' && e <= '7' {
					v := int(e - '0')
					for k := 0; k < 2 && l.i < len(l.s) && l.s[l.i] >= '0' && l.s[l.i] <= '7'; k++ {
						v = v*8 + int(l.s[l.i]-'0')
						l.i++
					}
					c = byte(v)
				} else {
					c = e
				}
			}
		}
		out = append(out, c)
	}
	return out
}

// hex reads a <hex string>.
func (l *lexer) hex() []byte {
	l.i++ // <
	var out []byte
	var hi int = -1
	for l.i < len(l.s) {
		c := l.s[l.i]
		l.i++
		if c == '>' {
			break
		}
		v := hexValue(c)
		if v < 0 {
			continue
		}
		if hi < 0 {
			hi = v
		} else {
			out = append(out, byte(hi<<4|v))
			hi = -1
		}
	}
	if hi >= 0 {
		out = append(out, byte(hi<<4))
	}
	return out
}

func hexValue(c byte) int {
	switch {
	case c >= '0' && c <= '9':
		return int(c - '0')
	case c >= 'a' && c <= 'f':
		return int(c-'a') + 10
	case c >= 'A' && c <= 'F':
		return int(c-'A') + 10
	}
	return -1
}

// skipInlineImage skips an inline image's data, from its ID to its EI.
func (l *lexer) skipInlineImage() {
	id := bytes.Index(l.s[l.i:], []byte("ID"))
	if id < 0 {
		l.i = len(l.s)
		return
	}
	l.i += id + 2
	ei := bytes.Index(l.s[l.i:], []byte("EI"))
	if ei < 0 {
		l.i = len(l.s)
		return
	}
	l.i += ei + 2
}
