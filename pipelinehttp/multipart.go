package pipelinehttp

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"mime"
	"mime/multipart"
	"net"
	"net/http"
	"strconv"
	"time"

	"github.com/gin-gonic/gin"
	"github.com/google/jsonschema-go/jsonschema"

	"github.com/pipeline-dev/pipeline/pipeline"
)

// bodyKind is how an operation's HTTP body is read: a JSON object (the
// default), or multipart/form-data for an upload.
type bodyKind int

const (
	jsonBody bodyKind = iota
	// multipartBody is a form of one file part and text fields. The file
	// may be as large as Config.MaxDocumentBytes, the whole body that and
	// formAllowance more.
	multipartBody
)

// formAllowance is what a multipart body may carry beyond its file: the
// parts' headers, boundaries and text fields.
const formAllowance = 64 << 10

// CodeUnsupportedMediaType reports a body of another media type than the
// operation reads.
const CodeUnsupportedMediaType = "unsupported_media_type"

var errNotMultipart = &pipeline.Error{Code: CodeUnsupportedMediaType, Message: "The request body must be multipart/form-data."}

// fileField is a multipart body's file part: at receives its filename,
// as sent, and its bytes. A tool has no file argument.
func fileField[In any](name string, s *jsonschema.Schema, at func(in *In, filename string, content []byte)) param[In] {
	return param[In]{name: name, place: inBody, required: true, schema: s,
		fromFile: func(in *input[In], filename string, content []byte) { at(&in.value, filename, content) },
		fromJSON: func(*input[In], []byte) string { return "The " + name + " must be sent as a file." }}
}

// readMultipart reads a multipart/form-data body into in: one file part
// for a fileField, text parts for the other fields. What it cannot take
// is named in in.unread (another part, a second file, a field sent
// twice); a body of another type, or over the limit, is an input not
// read at all (in.unreadErr), answered in the check order. The file is
// counted while it is read, and reading stops at the limit.
func readMultipart[In any](a *api, c *gin.Context, in *input[In], params []param[In]) error {
	r := c.Request
	mediaType, mt, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil || mediaType != "multipart/form-data" || mt["boundary"] == "" {
		in.unreadErr = errNotMultipart
		return nil
	}
	tooLarge := &pipeline.Error{Code: CodePayloadTooLarge, Message: "The file may not be larger than " + sizeText(a.maxDocument) + "."}
	limit := a.maxDocument + formAllowance
	if r.ContentLength > limit {
		in.unreadErr = tooLarge
		return nil
	}
	ctx := r.Context()
	if ctx.Err() != nil {
		return pipeline.Unavailable(context.Cause(ctx))
	}
	rc := http.NewResponseController(c.Writer)
	stop := context.AfterFunc(ctx, func() { _ = rc.SetReadDeadline(time.Now()) })
	defer stop()
	body := http.MaxBytesReader(unwrapWriter(c.Writer), r.Body, limit)
	mr := multipart.NewReader(body, mt["boundary"])
	seen := map[string]bool{}
	for {
		part, err := mr.NextRawPart()
		if err == io.EOF {
			break
		}
		if err != nil {
			return multipartError(ctx, err, in, tooLarge)
		}
		name := part.FormName()
		p, known := paramNamed(params, name)
		switch {
		case name == "" || !known:
			in.unread.Add(cmpOrName(name), "The "+cmpOrName(name)+" field is not allowed.")
		case seen[name]:
			in.unread.Add(name, "The "+name+" field may be sent only once.")
		case p.fromFile != nil:
			filename, isFile := partFilename(part)
			if !isFile {
				in.unread.Add(name, "The "+name+" must be sent as a file, with its filename.")
				break
			}
			content, err := io.ReadAll(io.LimitReader(part, a.maxDocument+1))
			if err != nil {
				return multipartError(ctx, err, in, tooLarge)
			}
			if int64(len(content)) > a.maxDocument {
				in.unreadErr = tooLarge
				return nil
			}
			if content == nil {
				content = []byte{}
			}
			p.fromFile(in, filename, content)
		default:
			value, err := io.ReadAll(io.LimitReader(part, formAllowance))
			if err != nil {
				return multipartError(ctx, err, in, tooLarge)
			}
			raw, _ := json.Marshal(string(value))
			if !validUTF8(value) {
				in.unread.Add(name, "The "+name+" must be valid UTF-8 text without NUL characters or unpaired surrogates.")
			} else if msg := p.fromJSON(in, raw); msg != "" {
				in.unread.Add(name, msg)
			}
		}
		seen[name] = true
		// What a part holds beyond what was read is drained by NextRawPart,
		// within the body's limit.
	}
	return nil
}

// multipartError is the answer to a multipart body that could not be
// read: over the limit, cut short, or not well-formed.
func multipartError[In any](ctx context.Context, err error, in *input[In], tooLarge error) error {
	var mbe *http.MaxBytesError
	switch {
	case errors.As(err, &mbe):
		in.unreadErr = tooLarge
		return nil
	case errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, net.ErrClosed), ctx.Err() != nil:
		return bodyError(ctx, err)
	}
	in.unread.Add("body", "The body is not valid multipart/form-data.")
	return nil
}

// partFilename is the filename a part declares, exactly as sent (not cut
// to its base, which the domain does), and whether it declares one.
func partFilename(p *multipart.Part) (string, bool) {
	_, params, err := mime.ParseMediaType(p.Header.Get("Content-Disposition"))
	if err != nil {
		return "", false
	}
	name, ok := params["filename"]
	return name, ok
}

func cmpOrName(name string) string {
	if name == "" {
		return "body"
	}
	return name
}

// validUTF8 reports whether b is text a field may hold.
func validUTF8(b []byte) bool { return pipeline.ValidText(string(b)) }

// sizeText is n bytes in MiB or KiB, as a limit's message says it.
func sizeText(n int64) string {
	switch {
	case n%(1<<20) == 0:
		return strconv.FormatInt(n>>20, 10) + " MiB"
	case n%(1<<10) == 0:
		return strconv.FormatInt(n>>10, 10) + " KiB"
	}
	return strconv.FormatInt(n, 10) + " bytes"
}
