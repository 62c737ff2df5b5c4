// Package doctexttest makes real files of each type the API accepts, by
// their formats' own structure, and files built to hurt a parser, for
// tests.
package doctexttest

import (
	"archive/zip"
	"bytes"
	"fmt"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"io"
	"strings"

	"github.com/go-pdf/fpdf"
)

// PDF is a PDF of one page per line of text, written by fpdf with a core
// font, its content streams compressed.
func PDF(lines ...string) []byte {
	p := fpdf.New("P", "mm", "A4", "")
	p.SetFont("Helvetica", "", 12)
	for _, line := range lines {
		p.AddPage()
		p.Cell(40, 10, line)
	}
	var buf bytes.Buffer
	if err := p.Output(&buf); err != nil {
		panic(err)
	}
	return buf.Bytes()
}

// TinyPagesPDF is a PDF of n pages of one point square, each with a word.
func TinyPagesPDF(n int) []byte {
	p := fpdf.NewCustom(&fpdf.InitType{UnitStr: "pt", Size: fpdf.SizeType{Wd: 1, Ht: 1}})
	p.SetFont("Helvetica", "", 1)
	for i := 0; i < n; i++ {
		p.AddPage()
		p.Text(0, 1, "word")
	}
	var buf bytes.Buffer
	if err := p.Output(&buf); err != nil {
		panic(err)
	}
	return buf.Bytes()
}

// LoopPDF is a PDF whose page tree refers to itself: the Pages node is
// its own kid, and each content stream's length is a reference to itself.
func LoopPDF() []byte {
	objs := []string{
		"<< /Type /Catalog /Pages 2 0 R >>",
		"<< /Type /Pages /Kids [2 0 R 3 0 R] /Count 2 /Parent 2 0 R >>",
		"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 10 10] /Contents 4 0 R >>",
		"<< /Length 4 0 R >>\nstream\nBT (loop) Tj ET\nendstream",
	}
	return rawPDF(objs)
}

// rawPDF writes objects 1… as a PDF with a correct cross-reference table.
func rawPDF(objs []string) []byte {
	var b bytes.Buffer
	b.WriteString("%PDF-1.4\n")
	offsets := make([]int, len(objs))
	for i, o := range objs {
		offsets[i] = b.Len()
		fmt.Fprintf(&b, "%d 0 obj\n%s\nendobj\n", i+1, o)
	}
	xref := b.Len()
	fmt.Fprintf(&b, "xref\n0 %d\n0000000000 65535 f \n", len(objs)+1)
	for _, off := range offsets {
		fmt.Fprintf(&b, "%010d 00000 n \n", off)
	}
	fmt.Fprintf(&b, "trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n", len(objs)+1, xref)
	return b.Bytes()
}

// DOCX is a Word document of one paragraph per line.
func DOCX(lines ...string) []byte {
	var body strings.Builder
	for _, l := range lines {
		body.WriteString(`<w:p><w:r><w:t xml:space="preserve">` + escape(l) + `</w:t></w:r></w:p>`)
	}
	return zipOf([][2]string{
		{"[Content_Types].xml", `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>`},
		{"_rels/.rels", `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/></Relationships>`},
		{"word/document.xml", `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body>` + body.String() + `</w:body></w:document>`},
	}, nil)
}

// ODT is an OpenDocument text of one paragraph per line.
func ODT(lines ...string) []byte {
	var body strings.Builder
	for _, l := range lines {
		body.WriteString(`<text:p>` + escape(l) + `</text:p>`)
	}
	return zipOf([][2]string{
		{"mimetype", "application/vnd.oasis.opendocument.text"},
		{"META-INF/manifest.xml", `<?xml version="1.0" encoding="UTF-8"?>
<manifest:manifest xmlns:manifest="urn:oasis:names:tc:opendocument:xmlns:manifest:1.0" manifest:version="1.2"><manifest:file-entry manifest:full-path="/" manifest:media-type="application/vnd.oasis.opendocument.text"/><manifest:file-entry manifest:full-path="content.xml" manifest:media-type="text/xml"/></manifest:manifest>`},
		{"content.xml", `<?xml version="1.0" encoding="UTF-8"?>
<office:document-content xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" office:version="1.2"><office:body><office:text>` + body.String() + `</office:text></office:body></office:document-content>`},
	}, nil)
}

// ZipBomb is a .docx whose document.xml expands to size bytes of text
// in one paragraph, from a small file.
func ZipBomb(size int64) []byte {
	d := DOCX("x")
	return zipOf([][2]string{
		{"[Content_Types].xml", `<Types/>`},
	}, func(z *zip.Writer) {
		w, _ := z.CreateHeader(&zip.FileHeader{Name: "word/document.xml", Method: zip.Deflate})
		io.WriteString(w, `<w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body><w:p><w:r><w:t>`)
		chunk := bytes.Repeat([]byte("A"), 1<<20)
		for n := int64(0); n < size; n += int64(len(chunk)) {
			w.Write(chunk)
		}
		io.WriteString(w, `</w:t></w:r></w:p></w:body></w:document>`)
		_ = d
	})
}

func zipOf(files [][2]string, more func(*zip.Writer)) []byte {
	var buf bytes.Buffer
	z := zip.NewWriter(&buf)
	for _, f := range files {
		method := zip.Deflate
		if f[0] == "mimetype" {
			method = zip.Store
		}
		w, err := z.CreateHeader(&zip.FileHeader{Name: f[0], Method: method})
		if err != nil {
			panic(err)
		}
		io.WriteString(w, f[1])
	}
	if more != nil {
		more(z)
	}
	if err := z.Close(); err != nil {
		panic(err)
	}
	return buf.Bytes()
}

func escape(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;").Replace(s)
}

// PNG is a small PNG image.
func PNG() []byte {
	var buf bytes.Buffer
	_ = png.Encode(&buf, picture())
	return buf.Bytes()
}

// JPEG is a small JPEG image.
func JPEG() []byte {
	var buf bytes.Buffer
	_ = jpeg.Encode(&buf, picture(), nil)
	return buf.Bytes()
}

func picture() image.Image {
	m := image.NewRGBA(image.Rect(0, 0, 8, 8))
	for i := range 8 {
		m.Set(i, i, color.RGBA{200, 10, 10, 255})
	}
	return m
}
