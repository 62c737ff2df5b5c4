package main

import (
	"context"
	"encoding/json"
	"fmt"
	"runtime"
	"runtime/debug"
)

// buildVersion is what the Go toolchain recorded of the build.
type buildVersion struct {
	Version     string `json:"version"`  // the module's version: a tag, a pseudo-version of the revision, or "(devel)"
	Revision    string `json:"revision"` // the VCS revision, "" when not recorded
	Time        string `json:"time"`     // the revision's commit time, RFC 3339
	Modified    bool   `json:"modified"` // the work tree had uncommitted changes
	GoVersion   string `json:"go_version"`
	Platform    string `json:"platform"`
	VCSRecorded bool   `json:"-"`
}

// readVersion reads the build information the binary carries: a module
// version when installed with "go install ...@version", the VCS revision
// when built inside a checkout (go build stamps it unless -buildvcs=false).
func readVersion() buildVersion {
	v := buildVersion{Version: "unknown", GoVersion: runtime.Version(), Platform: runtime.GOOS + "/" + runtime.GOARCH}
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return v
	}
	v.Version = info.Main.Version
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			v.Revision, v.VCSRecorded = s.Value, true
		case "vcs.time":
			v.Time = s.Value
		case "vcs.modified":
			v.Modified = s.Value == "true"
		}
	}
	return v
}

// String is the one line that pipelined version prints.
func (v buildVersion) String() string {
	s := "pipelined " + v.Version
	if v.VCSRecorded {
		s += " revision " + v.Revision
		if v.Time != "" {
			s += " (" + v.Time + ")"
		}
		if v.Modified {
			s += " with uncommitted changes"
		}
	} else {
		s += " (no VCS revision recorded)"
	}
	return s + ", " + v.GoVersion + " " + v.Platform
}

// runVersion prints the version as one line, or as JSON with -json.
func runVersion(_ context.Context, e env, args []string) error {
	fs := newFlagSet(e)
	asJSON := fs.Bool("json", false, "print a JSON object")
	if err := parseFlags(e, fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usageErrorf(e, fs, "version takes no arguments")
	}
	v := readVersion()
	if *asJSON {
		return json.NewEncoder(e.stdout).Encode(v)
	}
	_, err := fmt.Fprintln(e.stdout, v)
	return err
}
