package pipelinehttp

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// testBaseURL is where the MCP tests say clients reach the server, so that
// the links of the API's and the MCP face's lists are alike whatever host
// each request named.
const testBaseURL = "https://api.example.test"

// withBaseURL sets Config.BaseURL to testBaseURL.
func withBaseURL(c *envConfig) { c.BaseURL = testBaseURL }

// serve serves e's engine over real HTTP on the loopback interface until
// the test ends.
func (e *env) serve(t *testing.T) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(e.h)
	t.Cleanup(srv.Close)
	return srv
}

// bearer is an http.RoundTripper that sends a token, as an MCP client
// configured with a header does.
type bearer struct{ token string }

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	if b.token != "" {
		r.Header.Set("Authorization", "Bearer "+b.token)
	}
	return http.DefaultTransport.RoundTrip(r)
}

// mcpClient connects the SDK's client to endpoint with token, closing the
// session when the test ends.
func mcpClient(t *testing.T, endpoint, token string) (*mcp.ClientSession, error) {
	t.Helper()
	c := mcp.NewClient(&mcp.Implementation{Name: "pipelinehttp-test", Version: "1"}, nil)
	cs, err := c.Connect(context.Background(), &mcp.StreamableClientTransport{
		Endpoint:   endpoint,
		HTTPClient: &http.Client{Transport: bearer{token}},
		MaxRetries: -1,
	}, nil)
	if err == nil {
		t.Cleanup(func() { _ = cs.Close() })
	}
	return cs, err
}

// mcpSession connects to e's MCP face on a server of its own as the fixture
// token key.
func (e *env) mcpSession(t *testing.T, key string) *mcp.ClientSession {
	t.Helper()
	cs, err := mcpClient(t, e.serve(t).URL+MCPPath, e.token(key))
	require.NoError(t, err)
	return cs
}

// callTool calls a tool; a protocol error fails the test.
func callTool(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any) *mcp.CallToolResult {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	require.NoError(t, err, "tools/call %s", name)
	return res
}

// content is the structured content of a result that is no error, as
// decoded JSON, after checking that its text content is the same JSON.
func content(t *testing.T, res *mcp.CallToolResult) any {
	t.Helper()
	require.False(t, res.IsError, "tool error: %v", res.StructuredContent)
	return structured(t, res)
}

// structured is a result's structured content as decoded JSON, after
// checking that its text content is the same JSON.
func structured(t *testing.T, res *mcp.CallToolResult) any {
	t.Helper()
	require.Len(t, res.Content, 1)
	text, ok := res.Content[0].(*mcp.TextContent)
	require.True(t, ok, "text content")
	var fromText any
	require.NoError(t, json.Unmarshal([]byte(unmarked(text.Text)), &fromText))
	b, err := json.Marshal(res.StructuredContent)
	require.NoError(t, err)
	var structured any
	require.NoError(t, json.Unmarshal(b, &structured))
	assert.Equal(t, fromText, structured, "text and structured content")
	return structured
}

// unmarked is a tool result's text without the marks of what candidates
// wrote: the note before it, the tags around each value.
func unmarked(text string) string {
	body, marked := strings.CutPrefix(text, suppliedNote+"\n")
	if !marked {
		return text
	}
	body = suppliedTag.ReplaceAllString(body, "")
	return strings.ReplaceAll(body, "&lt;/candidate_supplied&gt;", "</candidate_supplied>")
}

var suppliedTag = regexp.MustCompile(`<candidate_supplied field=\\"[a-z_]+\\">|</candidate_supplied>`)

// toolError is the structured content of a tool error, checked to be the
// API's error envelope, and its code.
func toolError(t *testing.T, res *mcp.CallToolResult) (any, string) {
	t.Helper()
	require.True(t, res.IsError, "want a tool error, got %v", res.StructuredContent)
	body := structured(t, res)
	r := &Response{JSON: body}
	checkErrorEnvelope(t, r)
	return body, r.ErrorCode()
}

// toolNames lists the names of the tools a session sees.
func toolNames(t *testing.T, cs *mcp.ClientSession) []string {
	t.Helper()
	var names []string
	for tool, err := range cs.Tools(context.Background(), nil) {
		require.NoError(t, err)
		names = append(names, tool.Name)
	}
	return names
}
