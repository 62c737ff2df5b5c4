package main

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"reflect"

	"github.com/gin-gonic/gin"
)

// maxBody is the largest request body read.
const maxBody = 1 << 20

// readBody reads at most maxBody bytes of the body, answering 413 for more.
func readBody(c *gin.Context) ([]byte, bool) {
	b, err := io.ReadAll(io.LimitReader(c.Request.Body, maxBody+1))
	if err != nil {
		fail(c, http.StatusInternalServerError, "server_error", "Server error.", nil)
		return nil, false
	}
	if len(b) > maxBody {
		fail(c, http.StatusRequestEntityTooLarge, "payload_too_large", "The request body may not be larger than 1 MiB.", nil)
		return nil, false
	}
	return b, true
}

// bodyField is a field a write takes: its name, its JSON type for the
// message and where its value goes.
type bodyField struct {
	name string
	kind string // "a string", "an integer"
	into any
	// nullable: null is the empty string (a patch that clears the field).
	nullable bool
}

// decodeFields decodes a JSON object body into fields and returns the field
// messages of what is wrong, reported after the record lookup: a body that
// is no object under "body", else each unknown field and each value of the
// wrong type (null included) under its name. An empty body is {}.
func decodeFields(raw []byte, fields ...bodyField) map[string][]string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return nil
	}
	errs := map[string][]string{}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(raw, &obj); err != nil || obj == nil {
		errs["body"] = []string{"The body must be a JSON object."}
		return errs
	}
	for name, value := range obj {
		f, known := findField(fields, name)
		null := bytes.Equal(bytes.TrimSpace(value), []byte("null"))
		switch {
		case !known:
			errs[name] = append(errs[name], "The "+name+" field is not allowed.")
		case null && f.nullable:
			_ = json.Unmarshal([]byte(`""`), f.into)
		case null || json.Unmarshal(value, f.into) != nil:
			errs[name] = append(errs[name], "The "+name+" field must be "+f.kind+".")
			// As unread: a pointer the failed decoding allocated would
			// count as sent.
			v := reflect.ValueOf(f.into).Elem()
			v.Set(reflect.Zero(v.Type()))
		}
	}
	if len(errs) == 0 {
		return nil
	}
	return errs
}

func findField(fields []bodyField, name string) (bodyField, bool) {
	for _, f := range fields {
		if f.name == name {
			return f, true
		}
	}
	return bodyField{}, false
}
