package pipelinehttp

import (
	"reflect"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestInputs_Setters: every operation's input that has a field for the
// key, the reason or what could not be read has its setter, so that
// domain() passes each on; without it the field would stay empty.
func TestInputs_Setters(t *testing.T) {
	setters := map[string]reflect.Type{
		"Idempotency": reflect.TypeFor[keyedInput](),
		"Reason":      reflect.TypeFor[reasonedInput](),
		"Unread":      reflect.TypeFor[unreadInput](),
	}
	checked := 0
	for _, o := range operations {
		if o.input.Kind() != reflect.Struct {
			continue
		}
		for field, setter := range setters {
			if _, ok := o.input.FieldByName(field); ok {
				checked++
				assert.True(t, reflect.PointerTo(o.input).Implements(setter), "%s: %v has %s but no setter", o.op, o.input, field)
			}
		}
	}
	assert.NotZero(t, checked)
}
