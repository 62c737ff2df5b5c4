package pipelinehttp

import (
	"bytes"
	"encoding/json"
	"math/big"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/pipeline-dev/pipeline/pipeline"
)

// input is an operation's input as read from an HTTP request or from a
// tool's arguments: the records its path names, the domain input its
// parameters fill, the idempotency key of a write, and what could not be
// read, which the domain answers in its check order.
type input[In any] struct {
	ref    pipeline.Ref
	value  In
	key    *pipeline.Idempotency
	reason *string // a write's reason; nil: none given
	unread pipeline.FieldErrors
	// unreadErr is an input not read at all for another reason than its
	// content: a body over the size limit.
	unreadErr error
	// idUnread: an id of the path could not be read (a tool's argument of
	// the wrong type), so it names no record.
	idUnread bool
	// self is the URL of the request without its query: where a list's
	// links point.
	self string
}

// problems is what could not be read of the input, nil when nothing.
func (in *input[In]) problems() error {
	if in.unreadErr != nil {
		return in.unreadErr
	}
	return in.unread.Err()
}

// domain is the input's value as the domain takes it: with the key, the
// reason and what could not be read, each given through the setter of
// the input types that take it.
func (in *input[In]) domain() In {
	v := in.value
	p := any(&v)
	if u, ok := p.(unreadInput); ok && in.problems() != nil {
		u.SetUnread(in.problems())
	}
	if k, ok := p.(keyedInput); ok {
		k.SetIdempotency(in.key)
	}
	if r, ok := p.(reasonedInput); ok {
		r.SetReason(in.reason)
	}
	return v
}

// The setters of the domain's inputs for what a face reads beside their
// own fields (TestInputs_Setters holds every input with such a field to
// its setter).
type (
	unreadInput   interface{ SetUnread(error) }
	keyedInput    interface{ SetIdempotency(*pipeline.Idempotency) }
	reasonedInput interface{ SetReason(*string) }
)

// place is where a parameter travels in an HTTP request.
type place int

const (
	inPath place = iota
	inQuery
	inBody
)

// param is one parameter of an operation: a path id, a query parameter or
// a body field, with what it may be (its schema, which the document must
// declare alike) and how its value is read into the input, from the text
// of a path or query or from a JSON value. A reader returns "" when the
// value was read, else the message naming what is wrong.
type param[In any] struct {
	name     string // the API's name
	place    place
	required bool
	schema   *jsonschema.Schema
	fromText func(in *input[In], values []string) string
	fromJSON func(in *input[In], raw []byte) string
	// fromFile reads a multipart body's file part (see fileField).
	fromFile func(in *input[In], filename string, content []byte)
}

// argName is the name of p as a tool's argument: a path id is job_id,
// candidate_id, webhook_id.
func (p param[In]) argName() string {
	if p.place == inPath {
		return p.name + "_id"
	}
	return p.name
}

// Argument names that are not parameters.
const argKey = "idempotency_key"

// wrongType is the message of a value of the wrong JSON type.
func wrongType(name, kind string) string { return "The " + name + " field must be " + kind + "." }

// textOf decodes raw as a JSON string exactly as sent (see jsonText).
func textOf(raw []byte) (string, bool) {
	if bytes.Equal(raw, []byte("null")) {
		return "", false
	}
	return jsonText(raw)
}

// integerOf decodes raw as a JSON number of whole int64 value.
func integerOf(raw []byte) (int64, bool) {
	var n int64
	return n, !bytes.Equal(raw, []byte("null")) && json.Unmarshal(wholeNumber(raw), &n) == nil
}

// pathID is the id of a record in the path: a value that is not a positive
// integer names no record (0), for the Service to answer not_found in its
// turn, as for an id no record has. A tool's argument is typed and
// declared a positive integer, so one that is not (a string, 1.5, 0, -1)
// is refused naming it, in the check order's place of the input.
func pathID[In any](name string, doc string) param[In] {
	if (&pipeline.Ref{}).ID(name) == nil {
		panic("pipelinehttp: no kind of record is named " + name)
	}
	set := func(in *input[In], id int64) { *in.ref.ID(name) = id }
	p := param[In]{name: name, place: inPath, required: true, schema: described(idSchema(), doc)}
	p.fromText = func(in *input[In], v []string) string {
		id, _ := parseID(v[0])
		set(in, id)
		return ""
	}
	p.fromJSON = func(in *input[In], raw []byte) string {
		if len(raw) == 0 || raw[0] != '-' && (raw[0] < '0' || raw[0] > '9') {
			in.idUnread = true
			return wrongType(p.argName(), "an integer")
		}
		id, ok := integerOf(raw)
		if !ok || id <= 0 {
			in.idUnread = true
			return "The " + p.argName() + " must be a positive integer."
		}
		set(in, id)
		return ""
	}
	return p
}

// textField is a body field of text, read exactly as sent: whether it is
// valid text is the domain's to say.
func textField[In any, S ~string](name string, required bool, s *jsonschema.Schema, at func(*In) *S) param[In] {
	kind := "a string"
	if len(s.Enum) > 0 {
		kind = oneOf(s)
	}
	return param[In]{name: name, place: inBody, required: required, schema: s,
		fromJSON: func(in *input[In], raw []byte) string {
			v, ok := textOf(raw)
			if !ok {
				return wrongType(name, kind)
			}
			*at(&in.value) = S(v)
			return ""
		}}
}

// optionalField is textField for a field that may be left out: it is set
// only when sent.
func optionalField[In any, S ~string](name string, s *jsonschema.Schema, at func(*In) **S) param[In] {
	p := textField(name, false, s, func(in *In) *S {
		v := new(S)
		*at(in) = v
		return v
	})
	return p
}

// nullableField is optionalField for a field that null clears: null sets
// it to "", which the domain takes as none.
func nullableField[In any](name string, s *jsonschema.Schema, at func(*In) **string) param[In] {
	c := *s
	c.Types, c.Type = []string{c.Type, "null"}, ""
	p := optionalField(name, &c, at)
	read := p.fromJSON
	p.fromJSON = func(in *input[In], raw []byte) string {
		if bytes.Equal(raw, []byte("null")) {
			*at(&in.value) = new(string)
			return ""
		}
		return read(in, raw)
	}
	return p
}

// reasonSchema is a write's reason's. Its length is counted once trimmed,
// which no schema can say: the description does.
var reasonSchema = described(textSchema(1, 0, `\S`), "Optional: why this write is made, 1 to 1,000 characters once trimmed, line breaks allowed. "+
	"Kept on the write's activity entry, in the feed and in webhook payloads.")

// reasonParam is the reason every write's body takes (newOperation adds
// it), which the domain judges.
func reasonParam[In any]() param[In] {
	return param[In]{name: pipeline.ReasonField, place: inBody, schema: reasonSchema,
		fromJSON: func(in *input[In], raw []byte) string {
			v, ok := textOf(raw)
			if !ok {
				return wrongType(pipeline.ReasonField, "a string")
			}
			in.reason = &v
			return ""
		}}
}

// requiredReason is the reason of a write that must give one.
func requiredReason[In any]() param[In] {
	p := reasonParam[In]()
	p.required = true
	return p
}

// integerField is a body field of an integer.
func integerField[In any](name string, required bool, s *jsonschema.Schema, at func(*In) *int64) param[In] {
	return param[In]{name: name, place: inBody, required: required, schema: s,
		fromJSON: func(in *input[In], raw []byte) string {
			n, ok := integerOf(raw)
			if !ok {
				return wrongType(name, "an integer")
			}
			*at(&in.value) = n
			return ""
		}}
}

// listField is a list of actions: a body field of an array, or a query
// parameter that may be repeated.
func listField[In any](name string, where place, s *jsonschema.Schema, at func(*In) *[]string) param[In] {
	return param[In]{name: name, place: where, schema: s,
		fromText: func(in *input[In], v []string) string { *at(&in.value) = v; return "" },
		fromJSON: func(in *input[In], raw []byte) string {
			if bytes.Equal(raw, []byte("null")) || json.Unmarshal(raw, at(&in.value)) != nil {
				return wrongType(name, "an array of actions")
			}
			return ""
		}}
}

// queryParam is a query parameter read by read from its text, or from a
// tool's JSON value: a string's text, a number's digits. bad is the
// message of a value that cannot be read, a JSON value of another type
// included; "" takes wrongType's.
func queryParam[In any](name string, s *jsonschema.Schema, bad string, read func(in *input[In], text string) bool) param[In] {
	p := param[In]{name: name, place: inQuery, schema: s}
	p.fromText = func(in *input[In], v []string) string {
		if len(v) > 1 {
			return "The " + name + " parameter may be given only once."
		}
		if !read(in, v[0]) {
			return bad
		}
		return ""
	}
	p.fromJSON = func(in *input[In], raw []byte) string {
		text, ok := textOf(raw)
		if s.Type == "integer" {
			var n int64
			n, ok = integerOf(raw)
			text = strconv.FormatInt(n, 10)
		}
		switch {
		case !ok && s.Type == "string" && len(s.Enum) == 0:
			return wrongType(name, "a string")
		case !ok || !read(in, text):
			return bad
		}
		return ""
	}
	return p
}

// searchParam is a text filter, as sent; "" does not filter.
func searchParam[In any](s *jsonschema.Schema, at func(*In) *string) param[In] {
	return queryParam("search", s, "", func(in *input[In], text string) bool {
		*at(&in.value) = text
		return true
	})
}

// pageParam is the page of a list, from 1.
func pageParam[In any](s *jsonschema.Schema, at func(*In) *int) param[In] {
	return queryParam("page", s, msgPage, func(in *input[In], text string) bool {
		n, err := strconv.Atoi(text)
		*at(&in.value) = n
		return err == nil && n >= 1
	})
}

// Messages of parameters that cannot be read.
const (
	msgPage  = "The page must be an integer greater than or equal to 1."
	msgStage = "The stage must be the id of a stage of this job."
	msgSince = "The since parameter must be an RFC 3339 date and time, such as 2026-01-05T10:00:00Z."
	msgLimit = "The limit must be an integer from 1 to 100."
	msgAfter = "The after cursor must not be empty."
)

// statusParam is a status of a job or a candidate; its value is the
// domain's to judge, but the empty one cannot be sent.
func statusParam[In any, S ~string](s *jsonschema.Schema, at func(*In) *S) param[In] {
	return queryParam("status", s, "The status must be "+oneOf(s)+".", func(in *input[In], text string) bool {
		*at(&in.value) = S(text)
		return text != ""
	})
}

// stageParam is a stage id.
func stageParam[In any](s *jsonschema.Schema, at func(*In) *int64) param[In] {
	return queryParam("stage", s, msgStage, func(in *input[In], text string) bool {
		id, ok := parseID(text)
		*at(&in.value) = id
		return ok
	})
}

// feedParams are the parameters of the activity feed. since is ignored
// after a cursor, however it is sent.
func feedParams(after, since, limit, action *jsonschema.Schema) []param[pipeline.FeedFilter] {
	type in = input[pipeline.FeedFilter]
	return []param[pipeline.FeedFilter]{
		queryParam("after", after, msgAfter, func(in *in, text string) bool {
			in.value.After = text
			return text != ""
		}),
		queryParam("since", since, msgSince, func(in *in, text string) bool {
			t, err := time.Parse(time.RFC3339, text)
			in.value.Since = &t
			return err == nil
		}),
		queryParam("limit", limit, msgLimit, func(in *in, text string) bool {
			n, err := strconv.Atoi(text)
			in.value.Limit = n
			return err == nil && n >= 1 && n <= pipeline.MaxFeedLimit
		}),
		listField("action", inQuery, action, func(f *pipeline.FeedFilter) *[]string { return &f.Actions }),
	}
}

// ignoreSinceAfterCursor drops since from a feed's input read after a
// cursor: the cursor says where to start.
func ignoreSinceAfterCursor(in *input[pipeline.FeedFilter]) {
	if in.value.After != "" {
		in.value.Since = nil
		delete(in.unread, "since")
	}
}

// oneOf names the values of an enum schema: "one of a, b, c".
func oneOf(s *jsonschema.Schema) string {
	values := make([]string, len(s.Enum))
	for i, v := range s.Enum {
		values[i] = v.(string)
	}
	return "one of " + strings.Join(values, ", ")
}

// parseID reads a positive decimal integer id, without sign.
func parseID(raw string) (int64, bool) {
	if raw == "" || raw[0] == '+' {
		return 0, false
	}
	n, err := strconv.ParseInt(raw, 10, 64)
	return n, err == nil && n > 0
}

// wholeNumber is raw, or, when raw is a JSON number written with a
// fraction or an exponent whose value is a whole int64 (2.0, 2e0), that
// number as an integer literal: JSON Schema's integer, which the API's
// document and the tools' schemas declare, takes any such number.
func wholeNumber(raw []byte) []byte {
	// Longer literals are left alone: no whole int64 needs one, and
	// big.Rat would spend its time on them.
	if len(raw) == 0 || len(raw) > 64 || raw[0] != '-' && (raw[0] < '0' || raw[0] > '9') ||
		!bytes.ContainsAny(raw, ".eE") || !json.Valid(raw) {
		return raw
	}
	if i := bytes.IndexAny(raw, "eE"); i >= 0 {
		// No whole int64 needs an exponent past its digits and int64's
		// 19; a larger one would have big.Rat build the power first.
		exp, err := strconv.Atoi(strings.TrimPrefix(string(raw[i+1:]), "+"))
		if err != nil || max(exp, -exp) > 20+i {
			return raw
		}
	}
	r, ok := new(big.Rat).SetString(string(raw))
	if !ok || !r.IsInt() || !r.Num().IsInt64() {
		return raw
	}
	return strconv.AppendInt(nil, r.Num().Int64(), 10)
}

// readObject reads a JSON object's members by params' names (a body, or a
// tool's arguments) into in. An empty text is the empty object. What cannot
// be read is named in in.unread: text that is not JSON, or not an object,
// under whole; a member no parameter takes, or of the wrong JSON type, under
// its own name. A member named in others is left to the caller.
func readObject[In any](in *input[In], raw []byte, whole string, params []param[In], others ...string) map[string]json.RawMessage {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return nil
	}
	var obj map[string]json.RawMessage
	switch err := json.Unmarshal(raw, &obj); {
	case err != nil && !json.Valid(raw):
		in.unread.Add(whole, "The "+whole+" is not valid JSON.")
		return nil
	case err != nil || obj == nil:
		in.unread.Add(whole, "The "+whole+" must be a JSON object.")
		return nil
	}
	for name, value := range obj {
		if slices.Contains(others, name) {
			continue
		}
		p, ok := paramNamed(params, name)
		if !ok {
			in.unread.Add(name, "The "+name+" field is not allowed.")
			continue
		}
		if msg := p.fromJSON(in, bytes.TrimSpace(value)); msg != "" {
			in.unread.Add(name, msg)
		}
	}
	return obj
}

// paramNamed is the parameter of params whose tool argument is named name.
func paramNamed[In any](params []param[In], name string) (param[In], bool) {
	for _, p := range params {
		if p.argName() == name {
			return p, true
		}
	}
	return param[In]{}, false
}
