package main

import (
	"bytes"
	"net/http/httptest"
	"regexp"
	"slices"

	"github.com/wiremcp/wiremcp/mcp"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestConfigValidationReportsEveryErrorWithItsPath(t *testing.T) {
	t.Setenv("GW_TEST_SECRET", "s3cr3t-value")
	os.Unsetenv("GW_TEST_MISSING")
	cfg := `{
	  "titel": "typo",
	  "cors": {"allowedOrigins": ["not an origin"]},
	  "servers": {
	    "meta": {"command": {"argv": ["true"]}},
	    "bad name": {"command": {"argv": ["true"]}},
	    "empty": {"description": "nothing"},
	    "both": {"mcp": {"command": ["x"], "url": "http://h/mcp"}},
	    "neither": {"mcp": {"sessions": "sometimes", "maxSessions": 0}},
	    "types": {"enabled": "yes", "timeout": "soon", "command": {"argv": []}},
	    "tpl": {"tools": {"t": {"inputSchema": {"type": "object", "properties": {"path": {"type": "string"}}},
	                            "command": {"argv": ["cat", "{{.path}}", "{{.other}}", "{{"]}}}},
	    "res": {"resources": {"r": {"uri": "no-scheme", "text": "a", "file": "b"}}},
	    "env": {"mcp": {"url": "https://x/mcp", "headers": {"Authorization": "Bearer ${GW_TEST_MISSING}"}}},
	    "prompt": {"prompts": {"p": {"messages": [{"role": "robot", "text": "{{.x}}"}]}}}
	  }
	}`
	_, err := ParseConfig([]byte(cfg), t.TempDir())
	errs, ok := err.(ConfigErrors)
	if !ok {
		t.Fatalf("err = %v, want ConfigErrors", err)
	}
	// The structural pass reports first; fix nothing and every structural error is
	// there at once.
	var got []string
	for _, e := range errs {
		got = append(got, e.Path)
	}
	want := []string{
		"servers.neither.mcp.maxSessions",
		"servers.neither.mcp.sessions",
		`servers.prompt.prompts.p.messages[0].role`,
		"servers.types.command.argv",
		"servers.types.enabled",
		"servers.types.timeout",
		"titel",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("structural error paths (-want +got):\n%s\n%v", diff, err)
	}

	// Once the structure is right, the semantic errors all come at once.
	cfg = strings.NewReplacer(`"titel": "typo",`, ``, `"sometimes"`, `"shared"`, `"maxSessions": 0`, `"maxSessions": 8`, `"robot"`, `"user"`,
		`"enabled": "yes", "timeout": "soon", "command": {"argv": []}`, `"command": {"argv": ["true"]}`).Replace(cfg)
	_, err = ParseConfig([]byte(cfg), t.TempDir())
	errs, ok = err.(ConfigErrors)
	if !ok {
		t.Fatalf("err = %v, want ConfigErrors", err)
	}
	got = nil
	for _, e := range errs {
		got = append(got, e.Path)
	}
	want = []string{
		"cors.allowedOrigins[0]",
		`servers["bad name"]`,
		"servers.both.mcp",
		"servers.empty",
		"servers.env.mcp.headers.Authorization",
		"servers.meta",
		"servers.neither.mcp",
		"servers.prompt.prompts.p.messages[0].text",
		"servers.res.resources.r.uri",
		"servers.res.resources.r",
		"servers.tpl.tools.t.command.argv[2]",
		"servers.tpl.tools.t.command.argv[3]",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("semantic error paths (-want +got):\n%s\n%v", diff, err)
	}
	if !strings.Contains(err.Error(), "GW_TEST_MISSING is not set") {
		t.Errorf("missing variable not named: %v", err)
	}
}

func TestConfigEnvironmentNeverShown(t *testing.T) {
	t.Setenv("GW_TEST_TOKEN", "tok-very-secret")
	c, err := ParseConfig([]byte(`{"servers": {"docs": {"description": "d",
	  "mcp": {"url": "http://127.0.0.1:1/mcp", "headers": {"Authorization": "Bearer ${GW_TEST_TOKEN}"}, "start": "lazy"},
	  "env": {"TOKEN": "${GW_TEST_TOKEN}"}}}}`), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if got := expandEnv("Bearer ${GW_TEST_TOKEN} costs $5"); got != "Bearer tok-very-secret costs $5" {
		t.Errorf("expandEnv = %q", got)
	}
	tg := &testGateway{}
	_ = tg
	g, err := NewGateway(c, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	for _, path := range []string{"/mcp", "/mcp/meta/docs", "/mcp/docs", "/healthz"} {
		rec := record(g, path)
		if strings.Contains(rec, "tok-very-secret") {
			t.Errorf("%s shows the secret", path)
		}
	}
	// The fingerprint follows the variable's value, so a reload restarts the server
	// when the secret changes.
	fp := c.Servers["docs"].fingerprint(c.dir)
	t.Setenv("GW_TEST_TOKEN", "other")
	if c.Servers["docs"].fingerprint(c.dir) == fp {
		t.Error("fingerprint ignores the environment")
	}
}

func TestCheckCommand(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.json")
	bad := filepath.Join(dir, "bad.json")
	os.WriteFile(good, []byte(`{"servers": {"date": {"command": {"argv": ["date"]}}, "x": {"enabled": false, "command": {"argv": ["true"]}}}}`), 0o644)
	os.WriteFile(bad, []byte(`{"servers": {"date": {"command": {"argv": "date"}, "extra": 1}}}`), 0o644)
	out, code := captureStd(t, func() int { return checkMain([]string{"-config", good}) })
	if code != 0 || !strings.Contains(out, "ok, 2 server(s), 1 enabled") {
		t.Errorf("check good: %d %q", code, out)
	}
	out, code = captureStd(t, func() int { return checkMain([]string{"-config", bad}) })
	if code != 1 || !strings.Contains(out, "servers.date.command.argv: must be an array of strings") || !strings.Contains(out, "servers.date.extra: unknown member") {
		t.Errorf("check bad: %d %q", code, out)
	}
}

// captureStd runs fn with stdout and stderr sent to a pipe and returns what it wrote.
func captureStd(t *testing.T, fn func() int) (string, int) {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	oldOut, oldErr := os.Stdout, os.Stderr
	os.Stdout, os.Stderr = w, w
	code := fn()
	os.Stdout, os.Stderr = oldOut, oldErr
	w.Close()
	var b bytes.Buffer
	b.ReadFrom(r)
	return b.String(), code
}

// TestDemo serves the built-in demo configuration and uses every server of it.
func TestDemo(t *testing.T) {
	c, err := demoConfig()
	if err != nil {
		t.Fatal(err)
	}
	g, err := NewGateway(c, nil)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(g)
	tg := &testGateway{g: g, srv: srv}
	t.Cleanup(func() { srv.CloseClientConnections(); g.Close(); srv.Close() })
	echo := tg.connect(t, "/mcp/echo", nil)
	if text, _ := callText(t, echo, "echo", map[string]any{"message": "demo"}); text != "demo" {
		t.Errorf("echo = %q", text)
	}
	if text, _ := callText(t, echo, "add", map[string]any{"a": 2, "b": 3}); text != "5" {
		t.Errorf("add = %q", text)
	}
	date := tg.connect(t, "/mcp/date", nil)
	if text, isErr := callText(t, date, "date", nil); isErr || !regexp.MustCompile(`^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$`).MatchString(strings.TrimSpace(text)) {
		t.Errorf("date = %q, %v", text, isErr)
	}
	shell := tg.connect(t, "/mcp/shell", nil)
	if text, _ := callText(t, shell, "greet", map[string]any{"name": "demo"}); strings.TrimSpace(text) != "Hello, demo!" {
		t.Errorf("greet = %q", text)
	}
	if text, _ := callText(t, shell, "count_words", map[string]any{"text": "one two three"}); strings.TrimSpace(text) != "3" {
		t.Errorf("count_words = %q", text)
	}
	ctx := testCtx(t)
	if res, err := shell.ReadResource(ctx, &mcp.ReadResourceParams{URI: "demo://about"}); err != nil || !strings.Contains(res.Contents[0].Text, "wiremcp gateway") {
		t.Errorf("about = %v, %v", res, err)
	}
	if pr, err := shell.GetPrompt(ctx, &mcp.GetPromptParams{Name: "summarize", Arguments: map[string]string{"topic": "MCP"}}); err != nil || !strings.Contains(pr.Messages[0].Content.(*mcp.TextContent).Text, "Summarize MCP") {
		t.Errorf("summarize = %v, %v", pr, err)
	}
	all := tg.connect(t, "/mcp/all", nil)
	if names := toolNames(t, all); !slices.Contains(names, "shell__greet") || !slices.Contains(names, "echo__echo") {
		t.Errorf("/mcp/all tools = %v", names)
	}
}

// TestREADMEConfigExample keeps the README's example configuration valid.
func TestREADMEConfigExample(t *testing.T) {
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(readme), "## Writing a configuration\n\n```json\n")
	example, _, ok2 := strings.Cut(rest, "```")
	if !ok || !ok2 {
		t.Fatal("README has no example configuration")
	}
	t.Setenv("DOCS_TOKEN", "x")
	dir := t.TempDir()
	os.Mkdir(filepath.Join(dir, "notes"), 0o755)
	c, err := ParseConfig([]byte(example), dir)
	if err != nil {
		t.Fatalf("README example: %v", err)
	}
	if len(c.Servers) != 5 || c.Servers["old"].enabled() {
		t.Errorf("README example parsed as %+v", c.Servers)
	}
}

// TestSecretsNeverShownInErrors: an upstream URL holding a secret from the
// environment fails; its errors are shown with the reference, not the value.
func TestSecretsNeverShownInErrors(t *testing.T) {
	t.Setenv("GW_TEST_URL_KEY", "k3y-very-secret")
	t.Setenv("GW_TEST_CHILD_SECRET", "ch1ld-secret")
	tg := startGateway(t, `{"servers": {
	  "web": {"mcp": {"url": "http://127.0.0.1:1/mcp?key=${GW_TEST_URL_KEY}"}},
	  "child": {"env": {"S": "${GW_TEST_CHILD_SECRET}"}, "mcp": {"command": ["sh", "-c", "echo \"my secret is $S\" >&2; exit 1"]}}}}`)
	waitFor(t, "both failures to show", func() bool {
		h := tg.g.health()
		return !h.Servers["web"].Healthy && len(h.Servers["web"].Errors) > 0 &&
			strings.Contains(record(tg.g, "/mcp/meta/child"), "my secret is")
	})
	for _, path := range []string{"/mcp", "/mcp/meta/web", "/mcp/meta/child", "/healthz"} {
		_, _, body := tg.get(t, path, "text/html")
		if strings.Contains(body, "k3y-very-secret") || strings.Contains(body, "ch1ld-secret") {
			t.Errorf("%s shows a secret", path)
		}
	}
	if body := record(tg.g, "/mcp/meta/child"); !strings.Contains(body, "my secret is ${GW_TEST_CHILD_SECRET}") {
		t.Error("the child's stderr is not shown with the reference")
	}
	if _, _, body := tg.get(t, "/healthz", ""); !strings.Contains(body, "${GW_TEST_URL_KEY}") {
		t.Errorf("healthz does not show the failing URL with its reference: %s", body)
	}
}
