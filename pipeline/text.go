package pipeline

import (
	"strings"
	"unicode/utf8"
)

// ValidText reports whether s is text that can be stored exactly as it was
// given: valid UTF-8 (which also rules out the halves of a surrogate pair,
// which UTF-8 cannot encode) without a NUL character. Every string an
// operation stores or searches for must be valid text; text that is not is
// refused, never repaired, so that what is stored is what the caller sent.
func ValidText(s string) bool { return utf8.ValidString(s) && strings.IndexByte(s, 0) < 0 }

// checkText adds field's message to f unless s is valid text, and reports
// whether it was.
func checkText(f FieldErrors, field, s string) bool {
	if ValidText(s) {
		return true
	}
	f.Add(field, "The "+field+" must be valid UTF-8 text without NUL characters or unpaired surrogates.")
	return false
}
