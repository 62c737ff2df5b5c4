// Package doctext reads the text of documents: the text layer of a PDF
// (with pdfcpu, which reads the file's structure; the page content
// operators that show text are read here), the XML of a Word (.docx) or
// OpenDocument (.odt) zip with encoding/xml (which resolves no external
// entity), and plain text.
//
// Files come from strangers, so the parsers run in a child process with
// limits (Process): the program that uses Process must call
// ServeChildIfAsked first thing in main, and a test binary in TestMain, so
// that its own executable, run again with the child's environment
// variable, parses one file from stdin under the limits and exits. A
// document that kills the child, or outlives its wall time, ends failed.
package doctext

import (
	"archive/zip"
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/pdfcpu/pdfcpu/pkg/api"
	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/model"
	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/types"

	"github.com/pipeline-dev/pipeline/pipeline"
)

// MaxXMLBytes bounds how much of an office document's XML is
// decompressed and read: a zip bomb's part, however large it claims or
// expands, is read no further, and its text is what came before.
const MaxXMLBytes = 64 << 20

// ErrUnsupported is the error of a media type with no text to read.
var ErrUnsupported = errors.New("doctext: no text in this type")

// Parse returns the text of content, of media type contentType, in this
// process: at most max characters, and whether there was more. It trusts
// nothing in the file but takes no limit of time or memory itself: run it
// through Process.
func Parse(contentType string, content []byte, max int) (string, bool, error) {
	w := &textWriter{max: max}
	var err error
	switch contentType {
	case pipeline.TypeText:
		w.WriteString(string(content))
	case pipeline.TypePDF:
		err = readPDF(content, w)
	case pipeline.TypeDOCX:
		err = readZipXML(content, "word/document.xml", w, docxText)
	case pipeline.TypeODT:
		err = readZipXML(content, "content.xml", w, odtText)
	default:
		return "", false, ErrUnsupported
	}
	if errors.Is(err, errFull) {
		err = nil
	}
	return w.b.String(), w.full, err
}

// errFull stops a reader once the text holds max characters.
var errFull = errors.New("doctext: text full")

// textWriter keeps at most max characters.
type textWriter struct {
	b    strings.Builder
	n    int
	max  int
	full bool
}

func (w *textWriter) WriteString(s string) error {
	for _, r := range s {
		if w.n == w.max {
			w.full = true
			return errFull
		}
		if r == 0 || r == utf8.RuneError {
			continue
		}
		w.b.WriteRune(r)
		w.n++
	}
	return nil
}

func (w *textWriter) WriteRune(r rune) error { return w.WriteString(string(r)) }

// readZipXML reads the text of the XML part name of a zip, at most
// MaxXMLBytes of it decompressed, with text, which decodes the elements.
func readZipXML(content []byte, name string, w *textWriter, text func(*xml.Decoder, *textWriter) error) error {
	z, err := zip.NewReader(bytes.NewReader(content), int64(len(content)))
	if err != nil {
		return err
	}
	for _, f := range z.File {
		if f.Name != name {
			continue
		}
		r, err := f.Open()
		if err != nil {
			return err
		}
		defer r.Close()
		d := xml.NewDecoder(io.LimitReader(r, MaxXMLBytes))
		d.Strict = true
		err = text(d, w)
		if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
			return nil // cut at the bound: the text read so far
		}
		var syntax *xml.SyntaxError
		if errors.As(err, &syntax) && w.n > 0 && syntax.Msg == "unexpected EOF" {
			return nil
		}
		return err
	}
	return fmt.Errorf("doctext: no %s", name)
}

// docxText reads WordprocessingML: runs' text (w:t), tabs and breaks,
// a line after each paragraph.
func docxText(d *xml.Decoder, w *textWriter) error {
	inText := false
	for {
		tok, err := d.Token()
		if err != nil {
			return err
		}
		switch t := tok.(type) {
		case xml.StartElement:
			switch t.Name.Local {
			case "t":
				inText = true
			case "tab":
				err = w.WriteString("\t")
			case "br", "cr":
				err = w.WriteString("\n")
			}
		case xml.EndElement:
			switch t.Name.Local {
			case "t":
				inText = false
			case "p":
				err = w.WriteString("\n")
			}
		case xml.CharData:
			if inText {
				err = w.WriteString(string(t))
			}
		}
		if err != nil {
			return err
		}
	}
}

// odtText reads OpenDocument text: the character data of the body's
// paragraphs and headings, a line after each.
func odtText(d *xml.Decoder, w *textWriter) error {
	depth := 0 // inside text:p or text:h
	for {
		tok, err := d.Token()
		if err != nil {
			return err
		}
		switch t := tok.(type) {
		case xml.StartElement:
			switch t.Name.Local {
			case "p", "h":
				depth++
			case "s":
				err = w.WriteString(" ")
			case "tab":
				err = w.WriteString("\t")
			case "line-break":
				err = w.WriteString("\n")
			}
		case xml.EndElement:
			if t.Name.Local == "p" || t.Name.Local == "h" {
				depth--
				err = w.WriteString("\n")
			}
		case xml.CharData:
			if depth > 0 {
				err = w.WriteString(string(t))
			}
		}
		if err != nil {
			return err
		}
	}
}

// readPDF reads the text shown on each page of a PDF.
func readPDF(content []byte, w *textWriter) error {
	model.ConfigPath = "disable" // never read or write a configuration file
	conf := model.NewDefaultConfiguration()
	conf.ValidationMode = model.ValidationRelaxed
	ctx, err := api.ReadContext(bytes.NewReader(content), conf)
	if err != nil {
		return err
	}
	if err := ctx.EnsurePageCount(); err != nil {
		return err
	}
	return pdfPages(ctx, func(d types.Dict, page int) error {
		stream, err := ctx.PageContent(d, page)
		if err != nil && !errors.Is(err, model.ErrNoContent) {
			return fmt.Errorf("page %d: %w", page, err)
		}
		if err := showText(stream, w); err != nil {
			return err
		}
		return w.WriteString("\n")
	})
}

// pdfPages calls page with each page's dictionary and number, in order,
// walking the page tree once: pdfcpu's PageDict walks it from its root
// for each page, so that a file of n tiny pages took n² steps and a
// 10 MiB file of 31,000 more than its 10 s (BenchmarkParse_TinyPages:
// a page of a 4,000-page file cost 4.4× one of a 1,000-page file, and
// now costs the same). A node of the tree met twice (a tree that refers
// to itself, or shares a subtree) is an error.
func pdfPages(ctx *model.Context, page func(types.Dict, int) error) error {
	root, err := ctx.Pages()
	if err != nil {
		return err
	}
	seen := map[int]bool{}
	n := 0
	var walk func(ref types.IndirectRef, depth int) error
	walk = func(ref types.IndirectRef, depth int) error {
		if err := ctx.CheckRecursionDepth("page tree", depth); err != nil {
			return err
		}
		d, err := ctx.DereferenceDict(ref)
		if err != nil || d == nil {
			return err
		}
		kids := d.ArrayEntry("Kids")
		if kids == nil {
			n++
			return page(d, n)
		}
		nr := ref.ObjectNumber.Value()
		if seen[nr] {
			return fmt.Errorf("doctext: the page tree meets node %d twice", nr)
		}
		seen[nr] = true
		for _, kid := range kids {
			ref, ok := kid.(types.IndirectRef)
			if !ok {
				return errors.New("doctext: a page tree node is not a reference")
			}
			if err := walk(ref, depth+1); err != nil {
				return err
			}
		}
		return nil
	}
	return walk(*root, 0)
}

// showText writes the strings a content stream's text operators show
// (Tj, TJ, ' and "), a line at each move to another line. Strings are
// read as PDFDocEncoding (Latin-1 for the simple fonts that PDF writers
// use for Western text) or UTF-16BE with its byte order mark; the glyph
// codes of composite fonts are not mapped back to text.
func showText(stream []byte, w *textWriter) error {
	lx := lexer{s: stream}
	var operands []token
	for {
		t, ok := lx.next()
		if !ok {
			return nil
		}
		if t.kind != opToken {
			operands = append(operands, t)
			if len(operands) > 64 {
				operands = operands[1:]
			}
			continue
		}
		var err error
		switch t.text {
		case "Tj":
			err = showStrings(operands, w, false)
		case "TJ":
			err = showStrings(operands, w, true)
		case "'", "\"":
			if err = w.WriteString("\n"); err == nil {
				err = showStrings(operands, w, false)
			}
		case "T*":
			err = w.WriteString("\n")
		case "Td", "TD":
			if len(operands) >= 1 && operands[len(operands)-1].text != "0" {
				err = w.WriteString("\n")
			}
		case "ET":
			err = w.WriteString(" ")
		case "BI":
			lx.skipInlineImage()
		}
		operands = operands[:0]
		if err != nil {
			return err
		}
	}
}

// showStrings writes the last string operand, or with tj every string of
// the array operands, a space where a TJ's adjustment is a word's gap.
func showStrings(operands []token, w *textWriter, tj bool) error {
	for i, t := range operands {
		switch {
		case t.kind == stringToken && (tj || i == len(operands)-1):
			if err := w.WriteString(decodePDFString(t.raw)); err != nil {
				return err
			}
		case tj && t.kind == numberToken && strings.HasPrefix(t.text, "-") && len(strings.TrimLeft(t.text, "-")) >= 3:
			if err := w.WriteString(" "); err != nil {
				return err
			}
		}
	}
	return nil
}

// decodePDFString is a string's bytes as text.
func decodePDFString(b []byte) string {
	if len(b) >= 2 && b[0] == 0xfe && b[1] == 0xff {
		u := make([]uint16, 0, len(b)/2)
		for i := 2; i+1 < len(b); i += 2 {
			u = append(u, uint16(b[i])<<8|uint16(b[i+1]))
		}
		return string(utf16.Decode(u))
	}
	r := make([]rune, len(b))
	for i, c := range b {
		r[i] = rune(c)
	}
	return string(r)
}
