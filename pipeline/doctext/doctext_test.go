package doctext_test

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pipeline-dev/pipeline/pipeline"
	"github.com/pipeline-dev/pipeline/pipeline/doctext"
	"github.com/pipeline-dev/pipeline/pipeline/doctext/doctexttest"
)

// TestMain lets the test binary serve as the child of a Process.
func TestMain(m *testing.M) {
	doctext.ServeChildIfAsked()
	os.Exit(m.Run())
}

func TestProcess_Types(t *testing.T) {
	p := doctext.Process{}
	cases := []struct {
		name, ctype string
		content     []byte
		want        []string
	}{
		{"pdf", pipeline.TypePDF, doctexttest.PDF("Ada Lovelace", "Analytical Engine (1843)"), []string{"Ada Lovelace", "Analytical Engine (1843)"}},
		{"docx", pipeline.TypeDOCX, doctexttest.DOCX("Grace Hopper", "COBOL & compilers"), []string{"Grace Hopper\nCOBOL & compilers"}},
		{"odt", pipeline.TypeODT, doctexttest.ODT("Ingénieure", "Zürich <CH>"), []string{"Ingénieure\nZürich <CH>"}},
		{"text", pipeline.TypeText, []byte("plain résumé\n"), []string{"plain résumé\n"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			assert.Equal(t, c.ctype, pipeline.DetectType(c.content))
			text, truncated, err := p.Extract(context.Background(), c.ctype, c.content)
			require.NoError(t, err)
			assert.False(t, truncated)
			for _, w := range c.want {
				assert.Contains(t, text, w)
			}
		})
	}
}

func TestProcess_Hostile(t *testing.T) {
	p := doctext.Process{WallTime: 10 * time.Second}
	t.Run("zip bomb", func(t *testing.T) {
		bomb := doctexttest.ZipBomb(256 << 20)
		require.Less(t, len(bomb), 4<<20)
		start := time.Now()
		text, truncated, err := p.Extract(context.Background(), pipeline.TypeDOCX, bomb)
		assert.Less(t, time.Since(start), 15*time.Second)
		if err == nil {
			assert.True(t, truncated)
			assert.Equal(t, pipeline.MaxDocumentText, len([]rune(text)))
		}
	})
	t.Run("reference loop", func(t *testing.T) {
		start := time.Now()
		_, _, err := p.Extract(context.Background(), pipeline.TypePDF, doctexttest.LoopPDF())
		assert.Less(t, time.Since(start), 15*time.Second)
		t.Logf("loop: %v", err)
	})
	t.Run("many tiny pages", func(t *testing.T) {
		// As many as a 10 MiB upload holds: the page tree is walked once,
		// so that the text is read, cut at the limit, well within the
		// child's CPU time (it once took n² steps and was killed).
		pdf := doctexttest.TinyPagesPDF(31000)
		text, truncated, err := doctext.Process{WallTime: time.Minute}.Extract(context.Background(), pipeline.TypePDF, pdf)
		require.NoError(t, err)
		assert.True(t, truncated)
		assert.Equal(t, pipeline.MaxDocumentText, len([]rune(text)))
		assert.Greater(t, strings.Count(text, "word"), 20000, "the pages' text, in order, up to the limit")
	})
	t.Run("wall time", func(t *testing.T) {
		slow := doctext.Process{WallTime: time.Millisecond}
		_, _, err := slow.Extract(context.Background(), pipeline.TypeText, []byte("x"))
		assert.Error(t, err)
	})
}

func TestDetectType(t *testing.T) {
	for name, c := range map[string][]byte{
		"empty": {}, "gif": []byte("GIF89a\x01\x00\x01\x00\x80\x00\x00"), "zip": doctexttest.ZipBomb(0)[:0],
		"binary": {0, 1, 2, 3}, "latin1": []byte("caf\xe9"), "exe": []byte("MZ\x90\x00"),
	} {
		assert.Equal(t, "", pipeline.DetectType(c), name)
	}
	assert.Equal(t, pipeline.TypePNG, pipeline.DetectType(doctexttest.PNG()))
	assert.Equal(t, pipeline.TypeJPEG, pipeline.DetectType(doctexttest.JPEG()))
}

// BenchmarkParse_TinyPages reads PDFs of 1,000, 4,000 and 16,000 tiny
// pages: the time per page stays about the same as the pages grow,
// since the page tree is walked once (it once grew with their number).
func BenchmarkParse_TinyPages(b *testing.B) {
	for _, n := range []int{1000, 4000, 16000} {
		pdf := doctexttest.TinyPagesPDF(n)
		b.Run(fmt.Sprintf("pages=%d", n), func(b *testing.B) {
			for b.Loop() {
				if _, _, err := doctext.Parse(pipeline.TypePDF, pdf, pipeline.MaxDocumentText); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/page")
		})
	}
}
