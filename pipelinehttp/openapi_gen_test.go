package pipelinehttp

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strconv"
	"testing"
)

var updateOpenAPI = flag.Bool("update", false, "write openapi.yaml from the table of operations and openapi/overlay.yaml")

// overlayPath is the hand-written part of the document.
var overlayPath = filepath.Join("openapi", "overlay.yaml")

// TestOpenAPI_Generated: the committed openapi.yaml is what the table of
// operations and the overlay make; -update writes it.
func TestOpenAPI_Generated(t *testing.T) {
	overlay, err := os.ReadFile(overlayPath)
	if err != nil {
		t.Fatal(err)
	}
	got, err := generateOpenAPI(overlay)
	if err != nil {
		t.Fatal(err)
	}
	if *updateOpenAPI {
		if err := os.WriteFile("openapi.yaml", got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if !bytes.Equal(got, openapiYAML) {
		t.Fatalf("openapi.yaml differs from what the table of operations and %s make (%s); run:\n"+
			"\tgo test ./pipelinehttp -run TestOpenAPI_Generated -update\nand commit it", overlayPath, firstDiff(openapiYAML, got))
	}
}

// firstDiff names the first line where the committed and generated
// documents differ.
func firstDiff(committed, generated []byte) string {
	a, b := bytes.Split(committed, []byte("\n")), bytes.Split(generated, []byte("\n"))
	for i := range min(len(a), len(b)) {
		if !bytes.Equal(a[i], b[i]) {
			return "line " + strconv.Itoa(i+1) + ": committed " + string(a[i]) + ", generated " + string(b[i])
		}
	}
	return "one is longer"
}
