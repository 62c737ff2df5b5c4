package storetest

import (
	"fmt"
	"os"
	"sync"
)

// ReportEnv names the environment variable holding the path of a file that
// tests append one line per fact to, for CI to print after `go test ./...`,
// whose output of passing packages is otherwise silent.
const ReportEnv = "PIPELINE_TEST_REPORT"

var reportMu sync.Mutex

// Report appends a line to the report file, if one is named.
func Report(format string, args ...any) {
	path := os.Getenv(ReportEnv)
	if path == "" {
		return
	}
	reportMu.Lock()
	defer reportMu.Unlock()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return // the report is a courtesy; the tests stand without it
	}
	defer f.Close()
	fmt.Fprintf(f, format+"\n", args...)
}
