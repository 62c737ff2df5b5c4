package mailtest

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"testing"
)

// Address is an address of a header field as a reader finds it.
type Address struct {
	Name    string `json:"name"`
	Address string `json:"address"`
}

// PythonReading is what Python's email package reads of a mail with
// email.policy.default, as programs that read mail in Python do: each
// field decoded and unfolded, the addresses with their display names, the
// defects it found, and the text of the first text/calendar part.
type PythonReading struct {
	Subject  string    `json:"subject"`
	From     []Address `json:"from"`
	To       []Address `json:"to"`
	ReplyTo  []Address `json:"reply_to"`
	Defects  []string  `json:"defects"`  // of the message and of each field
	Calendar string    `json:"calendar"` // "": no text/calendar part
}

// pythonReader reads a mail on its standard input and writes a
// PythonReading as JSON.
const pythonReader = `
import email, email.policy, json, sys
m = email.message_from_binary_file(sys.stdin.buffer, policy=email.policy.default)
def addresses(name):
    h = m[name]
    return [] if h is None else [{"name": a.display_name, "address": a.addr_spec} for a in h.addresses]
defects = [repr(d) for d in m.defects]
for name, value in m.items():
    defects += [name + ": " + repr(d) for d in getattr(value, "defects", ())]
calendar = ""
for part in m.walk():
    if part.get_content_type() == "text/calendar":
        calendar = part.get_content()
        break
json.dump({"subject": str(m["Subject"]), "from": addresses("From"), "to": addresses("To"),
    "reply_to": addresses("Reply-To"), "defects": defects, "calendar": calendar}, sys.stdout)
`

// Python reads the mail with Python 3's email package, in a child
// process. Without python3 on the PATH the test is skipped, unless
// CI=true, where it fails: .ci/run installs it.
func (r Received) Python(tb testing.TB) PythonReading {
	tb.Helper()
	python, err := exec.LookPath("python3")
	if err != nil {
		msg := "python3 is not installed (apt-get install -y --no-install-recommends python3): the mail is not read with Python's email package"
		if os.Getenv("CI") == "true" {
			tb.Fatal(msg)
		}
		tb.Skip(msg)
	}
	cmd := exec.Command(python, "-c", pythonReader)
	cmd.Stdin = bytes.NewReader(r.Raw)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		tb.Fatalf("mailtest: python3 could not read the mail: %v\n%s", err, stderr.String())
	}
	var got PythonReading
	if err := json.Unmarshal(out, &got); err != nil {
		tb.Fatalf("mailtest: python3's reading: %v\n%s", err, out)
	}
	return got
}
