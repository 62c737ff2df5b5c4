package pipeline

import (
	"context"
	"errors"
	"io"
	"unicode/utf8"
)

// Extractor reads the text of a document's bytes. Files come from
// strangers: an Extractor that parses them must bound the time and memory
// the parsing takes, and report a file it cannot read in its bounds as an
// error. doctext.Process runs the parsers in a child process with limits.
type Extractor interface {
	// Extract returns the text of content, whose media type contentType
	// is one of the Type constants but an image's, at most
	// MaxDocumentText characters of it, and whether it was cut there.
	Extract(ctx context.Context, contentType string, content []byte) (text string, truncated bool, err error)
}

// Texts extracts the text of documents in the background: the store's
// queue calls Extract with each document added pending.
type Texts struct {
	store Store
	ex    Extractor
}

// NewTexts returns the extraction of documents' text stored in store, by
// ex.
func NewTexts(store Store, ex Extractor) *Texts { return &Texts{store: store, ex: ex} }

// Extract reads the text of document id and stores it: ready with its
// text, or failed when ex could not read it (a file that will not read
// better later: it is not tried again). A document that is gone, or no
// longer pending, is left alone. An error is the store's, and asks for
// another attempt.
func (t *Texts) Extract(ctx context.Context, id int64) error {
	d, err := t.store.Documents().ForText(ctx, DocumentByIDParams{ID: id})
	if errors.Is(err, ErrNotFound) {
		return nil
	}
	if err != nil || d.TextStatus != TextPending {
		return err
	}
	r, err := t.store.Documents().Open(ctx, DocumentByIDParams{ID: id})
	if errors.Is(err, ErrNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	content, err := io.ReadAll(io.LimitReader(r, d.Size+1))
	r.Close()
	if err != nil {
		return err
	}
	text, truncated, err := t.ex.Extract(ctx, d.ContentType, content)
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err() // the server stops: try again later
		}
		return t.store.Documents().SetText(ctx, SetDocumentTextParams{ID: id, Status: TextFailed})
	}
	text, cut := CapText(text)
	return t.store.Documents().SetText(ctx, SetDocumentTextParams{ID: id, Status: TextReady, Text: text, Truncated: truncated || cut})
}

// CapText is text with its invalid UTF-8 and NUL characters dropped, cut
// at MaxDocumentText characters, and whether it was cut.
func CapText(text string) (string, bool) {
	if !utf8.ValidString(text) {
		text = string([]rune(text))
	}
	out := make([]rune, 0, min(len(text), MaxDocumentText))
	for _, r := range text {
		if r == 0 || r == utf8.RuneError {
			continue
		}
		if len(out) == MaxDocumentText {
			return string(out), true
		}
		out = append(out, r)
	}
	return string(out), false
}
