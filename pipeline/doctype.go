package pipeline

import (
	"archive/zip"
	"bytes"
	"io"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// The media types of the documents the API accepts, as detected from their
// content and sent back with their bytes.
const (
	TypePDF  = "application/pdf"
	TypeDOCX = "application/vnd.openxmlformats-officedocument.wordprocessingml.document"
	TypeODT  = "application/vnd.oasis.opendocument.text"
	TypeText = "text/plain; charset=utf-8"
	TypePNG  = "image/png"
	TypeJPEG = "image/jpeg"
)

// DocumentTypes are the Type constants: every type a document's bytes can
// be served with.
var DocumentTypes = []string{TypePDF, TypeDOCX, TypeODT, TypeText, TypePNG, TypeJPEG}

// msgAcceptedTypes names the accepted types for a file of another.
const msgAcceptedTypes = "The file must be a PDF, a Word (.docx) or OpenDocument text (.odt) document, plain UTF-8 text, a PNG or a JPEG image."

// DetectType is the media type of content, read from the content alone
// (never a declared type or a name): one of the Type constants, or "" for
// anything else. Office documents are zips told apart by their parts,
// which are listed from the zip's central directory without decompressing
// any of them but the few bytes of an OpenDocument's mimetype.
func DetectType(content []byte) string {
	switch {
	case bytes.HasPrefix(content, []byte("%PDF-")):
		return TypePDF
	case bytes.HasPrefix(content, []byte("\x89PNG\r\n\x1a\n")):
		return TypePNG
	case bytes.HasPrefix(content, []byte("\xff\xd8\xff")):
		return TypeJPEG
	case bytes.HasPrefix(content, []byte("PK\x03\x04")):
		return zipType(content)
	case isPlainText(content):
		return TypeText
	}
	return ""
}

// zipType tells a .docx from an .odt, "" for any other zip.
func zipType(content []byte) string {
	z, err := zip.NewReader(bytes.NewReader(content), int64(len(content)))
	if err != nil {
		return ""
	}
	var types, document bool
	for _, f := range z.File {
		switch f.Name {
		case "mimetype":
			if odtMimetype(f) {
				return TypeODT
			}
		case "[Content_Types].xml":
			types = true
		case "word/document.xml":
			document = true
		}
	}
	if types && document {
		return TypeDOCX
	}
	return ""
}

// odtMimetype reports whether an OpenDocument's mimetype part names a text
// document; at most a few bytes of it are read, however large it claims.
func odtMimetype(f *zip.File) bool {
	r, err := f.Open()
	if err != nil {
		return false
	}
	defer r.Close()
	b, _ := io.ReadAll(io.LimitReader(r, 64))
	return string(b) == TypeODT
}

// isPlainText reports whether content is UTF-8 text: valid, and without
// NUL or other control characters than tab, line breaks and form feed.
func isPlainText(content []byte) bool {
	if len(content) == 0 || !utf8.Valid(content) {
		return false
	}
	for _, r := range string(content) {
		if r < 0x20 && r != '\t' && r != '\n' && r != '\r' && r != '\f' || r == 0x7f {
			return false
		}
	}
	return true
}

// MaxFilenameLength is the longest kept filename, in characters.
const MaxFilenameLength = 255

// CleanFilename is the filename kept of name as sent: its last segment
// after "/" or "\", NFC-normalized, without control or bidirectional
// formatting characters (which could make a name read as another), and
// cut to MaxFilenameLength characters keeping its extension where it can.
// Text that is not UTF-8 has its bad bytes replaced.
func CleanFilename(name string) string {
	name = strings.ToValidUTF8(name, "\uFFFD")
	if i := strings.LastIndexAny(name, `/\`); i >= 0 {
		name = name[i+1:]
	}
	name = norm.NFC.String(name)
	name = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) || isBidiFormat(r) {
			return -1
		}
		return r
	}, name)
	name = strings.TrimSpace(name)
	if utf8.RuneCountInString(name) <= MaxFilenameLength {
		return name
	}
	runes := []rune(name)
	ext := []rune{}
	if i := strings.LastIndexByte(name, '.'); i > 0 && utf8.RuneCountInString(name[i:]) <= 16 {
		ext = []rune(name[i:])
	}
	return string(runes[:MaxFilenameLength-len(ext)]) + string(ext)
}

// isBidiFormat reports the characters that reorder text (embeddings,
// overrides, isolates and marks): "invoice\u202Efdp.exe" reads as
// "invoiceexe.pdf".
func isBidiFormat(r rune) bool {
	switch {
	case r >= 0x202A && r <= 0x202E, r >= 0x2066 && r <= 0x2069,
		r == 0x200E, r == 0x200F, r == 0x061C:
		return true
	}
	return false
}
