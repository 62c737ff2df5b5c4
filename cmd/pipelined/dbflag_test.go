package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pipeline-dev/pipeline/pipelinestore/storetest"
)

// TestCLI_DBFlag: every command that takes -db works on the database it
// names, run from a directory where PIPELINE_DB's default (pipeline.db)
// would be created: nothing is created there, and the named database holds
// what each command did.
func TestCLI_DBFlag(t *testing.T) {
	seedFile, err := filepath.Abs(filepath.Join("testdata", "seed.json"))
	require.NoError(t, err)
	bin := binary(t)
	check := func(t *testing.T, db string) {
		work := t.TempDir()
		command := func(args ...string) *exec.Cmd {
			cmd := exec.Command(bin, append(args, "-db", db)...)
			cmd.Dir = work
			cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + os.Getenv("HOME")}
			return cmd
		}
		nothingHere := func(after string) {
			t.Helper()
			entries, err := os.ReadDir(work)
			require.NoError(t, err)
			require.Empty(t, entries, "pipelined %s created files in the working directory", after)
		}
		must := func(args ...string) string {
			t.Helper()
			var out, errOut bytes.Buffer
			cmd := command(args...)
			cmd.Stdout, cmd.Stderr = &out, &errOut
			require.NoError(t, cmd.Run(), "pipelined %s -db …\n%s", strings.Join(args, " "), errOut.String())
			nothingHere(strings.Join(args, " "))
			return out.String()
		}

		// serve migrates the named database, then stops on SIGTERM.
		serve := command("serve", "-addr", "127.0.0.1:0")
		stderr, err := serve.StderrPipe()
		require.NoError(t, err)
		require.NoError(t, serve.Start())
		listening := make(chan bool, 1)
		go func() {
			sc := bufio.NewScanner(stderr)
			for sc.Scan() {
				if strings.Contains(sc.Text(), `"msg":"listening"`) {
					listening <- true
				}
			}
			close(listening)
		}()
		select {
		case ok := <-listening:
			require.True(t, ok, "serve -db stopped before listening")
		case <-time.After(30 * time.Second):
			_ = serve.Process.Kill()
			t.Fatal("serve -db is not listening")
		}
		require.NoError(t, serve.Process.Signal(syscall.SIGTERM))
		require.NoError(t, serve.Wait())
		nothingHere("serve")

		must("migrate", "status")
		must("migrate")
		must("seed", seedFile)
		must("team", "create", "--key", "globex", "--name", "Globex")
		assert.Contains(t, must("team", "list"), `"key":"globex"`)
		must("user", "add", "--email", "nora@acme.test", "--name", "Nora New", "--team", "acme", "--role", "member")
		must("user", "add", "--email", "nora@acme.test", "--team", "globex", "--role", "member")
		must("user", "set-role", "--email", "nora@acme.test", "--team", "acme", "--role", "admin")
		must("user", "remove", "--email", "nora@acme.test", "--team", "globex")
		var nora userJSON
		for _, line := range jsonLines(t, must("user", "list", "--team", "acme")) {
			if line["email"] == "nora@acme.test" {
				raw, err := json.Marshal(line)
				require.NoError(t, err)
				require.NoError(t, json.Unmarshal(raw, &nora))
			}
		}
		require.Len(t, nora.Teams, 1, "nora is on acme alone")
		assert.Equal(t, "acme", nora.Teams[0].Key)
		assert.EqualValues(t, "admin", nora.Teams[0].Role)

		var tok issuedToken
		require.NoError(t, json.Unmarshal([]byte(must("token", "create", "--user", "olivia@acme.test", "--name", "cli", "--scopes", "jobs:read")), &tok))
		must("token", "revoke", itoa(tok.ID))
		var revoked bool
		for _, line := range jsonLines(t, must("token", "list", "--team", "acme")) {
			if line["name"] == "cli" {
				revoked = line["revoked_at"] != nil
			}
		}
		assert.True(t, revoked, "the token created and revoked in the named database")
		must("activity")
	}
	t.Run("sqlite", func(t *testing.T) {
		t.Parallel()
		db := filepath.Join(t.TempDir(), "named.db")
		check(t, db)
		_, err := os.Stat(db)
		assert.NoError(t, err, "the named file holds the database")
	})
	t.Run("postgres", func(t *testing.T) {
		t.Parallel()
		check(t, storetest.PostgresSchemaDSN(t))
	})
}
