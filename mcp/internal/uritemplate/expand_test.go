package uritemplate

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// rfcVars are the variables of RFC 6570 section 3.2. The associative array keys is
// ordered as the RFC lists it, so it is a []Pair.
var rfcVars = map[string]any{
	"count":      []string{"one", "two", "three"},
	"dom":        []string{"example", "com"},
	"dub":        "me/too",
	"hello":      "Hello World!",
	"half":       "50%",
	"var":        "value",
	"who":        "fred",
	"base":       "http://example.com/home/",
	"path":       "/foo/bar",
	"list":       []string{"red", "green", "blue"},
	"keys":       []Pair{{"semi", ";"}, {"dot", "."}, {"comma", ","}},
	"v":          "6",
	"x":          "1024",
	"y":          "768",
	"empty":      "",
	"empty_keys": []Pair{},
	"undef":      nil,
}

// rfcExamples are the expansion examples of RFC 6570 sections 1.2, 2.4 and 3.2,
// all expanded with rfcVars (the section 1.2 and 2.4 variables agree with them).
var rfcExamples = []struct{ section, template, want string }{
	// 1.2 Level 1
	{"1.2", "{var}", "value"},
	{"1.2", "{hello}", "Hello%20World%21"},
	// 1.2 Level 2
	{"1.2", "{+var}", "value"},
	{"1.2", "{+hello}", "Hello%20World!"},
	{"1.2", "{+path}/here", "/foo/bar/here"},
	{"1.2", "here?ref={+path}", "here?ref=/foo/bar"},
	{"1.2", "X{#var}", "X#value"},
	{"1.2", "X{#hello}", "X#Hello%20World!"},
	// 1.2 Level 3
	{"1.2", "map?{x,y}", "map?1024,768"},
	{"1.2", "{x,hello,y}", "1024,Hello%20World%21,768"},
	{"1.2", "{+x,hello,y}", "1024,Hello%20World!,768"},
	{"1.2", "{+path,x}/here", "/foo/bar,1024/here"},
	{"1.2", "{#x,hello,y}", "#1024,Hello%20World!,768"},
	{"1.2", "{#path,x}/here", "#/foo/bar,1024/here"},
	{"1.2", "X{.var}", "X.value"},
	{"1.2", "X{.x,y}", "X.1024.768"},
	{"1.2", "{/var}", "/value"},
	{"1.2", "{/var,x}/here", "/value/1024/here"},
	{"1.2", "{;x,y}", ";x=1024;y=768"},
	{"1.2", "{;x,y,empty}", ";x=1024;y=768;empty"},
	{"1.2", "{?x,y}", "?x=1024&y=768"},
	{"1.2", "{?x,y,empty}", "?x=1024&y=768&empty="},
	{"1.2", "?fixed=yes{&x}", "?fixed=yes&x=1024"},
	{"1.2", "{&x,y,empty}", "&x=1024&y=768&empty="},
	// 1.2 Level 4
	{"1.2", "{var:3}", "val"},
	{"1.2", "{var:30}", "value"},
	{"1.2", "{list}", "red,green,blue"},
	{"1.2", "{list*}", "red,green,blue"},
	{"1.2", "{keys}", "semi,%3B,dot,.,comma,%2C"},
	{"1.2", "{keys*}", "semi=%3B,dot=.,comma=%2C"},
	{"1.2", "{+path:6}/here", "/foo/b/here"},
	{"1.2", "{+list}", "red,green,blue"},
	{"1.2", "{+list*}", "red,green,blue"},
	{"1.2", "{+keys}", "semi,;,dot,.,comma,,"},
	{"1.2", "{+keys*}", "semi=;,dot=.,comma=,"},
	{"1.2", "{#path:6}/here", "#/foo/b/here"},
	{"1.2", "{#list}", "#red,green,blue"},
	{"1.2", "{#list*}", "#red,green,blue"},
	{"1.2", "{#keys}", "#semi,;,dot,.,comma,,"},
	{"1.2", "{#keys*}", "#semi=;,dot=.,comma=,"},
	{"1.2", "X{.var:3}", "X.val"},
	{"1.2", "X{.list}", "X.red,green,blue"},
	{"1.2", "X{.list*}", "X.red.green.blue"},
	{"1.2", "X{.keys}", "X.semi,%3B,dot,.,comma,%2C"},
	{"1.2", "X{.keys*}", "X.semi=%3B.dot=..comma=%2C"},
	{"1.2", "{/var:1,var}", "/v/value"},
	{"1.2", "{/list}", "/red,green,blue"},
	{"1.2", "{/list*}", "/red/green/blue"},
	{"1.2", "{/list*,path:4}", "/red/green/blue/%2Ffoo"},
	{"1.2", "{/keys}", "/semi,%3B,dot,.,comma,%2C"},
	{"1.2", "{/keys*}", "/semi=%3B/dot=./comma=%2C"},
	{"1.2", "{;hello:5}", ";hello=Hello"},
	{"1.2", "{;list}", ";list=red,green,blue"},
	{"1.2", "{;list*}", ";list=red;list=green;list=blue"},
	{"1.2", "{;keys}", ";keys=semi,%3B,dot,.,comma,%2C"},
	{"1.2", "{;keys*}", ";semi=%3B;dot=.;comma=%2C"},
	{"1.2", "{?var:3}", "?var=val"},
	{"1.2", "{?list}", "?list=red,green,blue"},
	{"1.2", "{?list*}", "?list=red&list=green&list=blue"},
	{"1.2", "{?keys}", "?keys=semi,%3B,dot,.,comma,%2C"},
	{"1.2", "{?keys*}", "?semi=%3B&dot=.&comma=%2C"},
	{"1.2", "{&var:3}", "&var=val"},
	{"1.2", "{&list}", "&list=red,green,blue"},
	{"1.2", "{&list*}", "&list=red&list=green&list=blue"},
	{"1.2", "{&keys}", "&keys=semi,%3B,dot,.,comma,%2C"},
	{"1.2", "{&keys*}", "&semi=%3B&dot=.&comma=%2C"},

	// 2.4.1 Prefix values
	{"2.4.1", "{var}", "value"},
	{"2.4.1", "{var:20}", "value"},
	{"2.4.1", "{var:3}", "val"},

	// 3.2.1 Variable expansion
	{"3.2.1", "{count}", "one,two,three"},
	{"3.2.1", "{count*}", "one,two,three"},
	{"3.2.1", "{/count}", "/one,two,three"},
	{"3.2.1", "{/count*}", "/one/two/three"},
	{"3.2.1", "{;count}", ";count=one,two,three"},
	{"3.2.1", "{;count*}", ";count=one;count=two;count=three"},
	{"3.2.1", "{?count}", "?count=one,two,three"},
	{"3.2.1", "{?count*}", "?count=one&count=two&count=three"},
	{"3.2.1", "{&count*}", "&count=one&count=two&count=three"},

	// 3.2.2 Simple string expansion
	{"3.2.2", "{var}", "value"},
	{"3.2.2", "{hello}", "Hello%20World%21"},
	{"3.2.2", "{half}", "50%25"},
	{"3.2.2", "O{empty}X", "OX"},
	{"3.2.2", "O{undef}X", "OX"},
	{"3.2.2", "{x,y}", "1024,768"},
	{"3.2.2", "{x,hello,y}", "1024,Hello%20World%21,768"},
	{"3.2.2", "?{x,empty}", "?1024,"},
	{"3.2.2", "?{x,undef}", "?1024"},
	{"3.2.2", "?{undef,y}", "?768"},
	{"3.2.2", "{var:3}", "val"},
	{"3.2.2", "{var:30}", "value"},
	{"3.2.2", "{list}", "red,green,blue"},
	{"3.2.2", "{list*}", "red,green,blue"},
	{"3.2.2", "{keys}", "semi,%3B,dot,.,comma,%2C"},
	{"3.2.2", "{keys*}", "semi=%3B,dot=.,comma=%2C"},

	// 3.2.3 Reserved expansion
	{"3.2.3", "{+var}", "value"},
	{"3.2.3", "{+hello}", "Hello%20World!"},
	{"3.2.3", "{+half}", "50%25"},
	{"3.2.3", "{base}index", "http%3A%2F%2Fexample.com%2Fhome%2Findex"},
	{"3.2.3", "{+base}index", "http://example.com/home/index"},
	{"3.2.3", "O{+empty}X", "OX"},
	{"3.2.3", "O{+undef}X", "OX"},
	{"3.2.3", "{+path}/here", "/foo/bar/here"},
	{"3.2.3", "here?ref={+path}", "here?ref=/foo/bar"},
	{"3.2.3", "up{+path}{var}/here", "up/foo/barvalue/here"},
	{"3.2.3", "{+x,hello,y}", "1024,Hello%20World!,768"},
	{"3.2.3", "{+path,x}/here", "/foo/bar,1024/here"},
	{"3.2.3", "{+path:6}/here", "/foo/b/here"},
	{"3.2.3", "{+list}", "red,green,blue"},
	{"3.2.3", "{+list*}", "red,green,blue"},
	{"3.2.3", "{+keys}", "semi,;,dot,.,comma,,"},
	{"3.2.3", "{+keys*}", "semi=;,dot=.,comma=,"},

	// 3.2.4 Fragment expansion
	{"3.2.4", "{#var}", "#value"},
	{"3.2.4", "{#hello}", "#Hello%20World!"},
	{"3.2.4", "{#half}", "#50%25"},
	{"3.2.4", "foo{#empty}", "foo#"},
	{"3.2.4", "foo{#undef}", "foo"},
	{"3.2.4", "{#x,hello,y}", "#1024,Hello%20World!,768"},
	{"3.2.4", "{#path,x}/here", "#/foo/bar,1024/here"},
	{"3.2.4", "{#path:6}/here", "#/foo/b/here"},
	{"3.2.4", "{#list}", "#red,green,blue"},
	{"3.2.4", "{#list*}", "#red,green,blue"},
	{"3.2.4", "{#keys}", "#semi,;,dot,.,comma,,"},
	{"3.2.4", "{#keys*}", "#semi=;,dot=.,comma=,"},

	// 3.2.5 Label expansion with dot-prefix
	{"3.2.5", "{.who}", ".fred"},
	{"3.2.5", "{.who,who}", ".fred.fred"},
	{"3.2.5", "{.half,who}", ".50%25.fred"},
	{"3.2.5", "www{.dom*}", "www.example.com"},
	{"3.2.5", "X{.var}", "X.value"},
	{"3.2.5", "X{.empty}", "X."},
	{"3.2.5", "X{.undef}", "X"},
	{"3.2.5", "X{.var:3}", "X.val"},
	{"3.2.5", "X{.list}", "X.red,green,blue"},
	{"3.2.5", "X{.list*}", "X.red.green.blue"},
	{"3.2.5", "X{.keys}", "X.semi,%3B,dot,.,comma,%2C"},
	{"3.2.5", "X{.keys*}", "X.semi=%3B.dot=..comma=%2C"},
	{"3.2.5", "X{.empty_keys}", "X"},
	{"3.2.5", "X{.empty_keys*}", "X"},

	// 3.2.6 Path segment expansion
	{"3.2.6", "{/who}", "/fred"},
	{"3.2.6", "{/who,who}", "/fred/fred"},
	{"3.2.6", "{/half,who}", "/50%25/fred"},
	{"3.2.6", "{/who,dub}", "/fred/me%2Ftoo"},
	{"3.2.6", "{/var}", "/value"},
	{"3.2.6", "{/var,empty}", "/value/"},
	{"3.2.6", "{/var,undef}", "/value"},
	{"3.2.6", "{/var,x}/here", "/value/1024/here"},
	{"3.2.6", "{/var:1,var}", "/v/value"},
	{"3.2.6", "{/list}", "/red,green,blue"},
	{"3.2.6", "{/list*}", "/red/green/blue"},
	{"3.2.6", "{/list*,path:4}", "/red/green/blue/%2Ffoo"},
	{"3.2.6", "{/keys}", "/semi,%3B,dot,.,comma,%2C"},
	{"3.2.6", "{/keys*}", "/semi=%3B/dot=./comma=%2C"},

	// 3.2.7 Path-style parameter expansion
	{"3.2.7", "{;who}", ";who=fred"},
	{"3.2.7", "{;half}", ";half=50%25"},
	{"3.2.7", "{;empty}", ";empty"},
	{"3.2.7", "{;v,empty,who}", ";v=6;empty;who=fred"},
	{"3.2.7", "{;v,bar,who}", ";v=6;who=fred"},
	{"3.2.7", "{;x,y}", ";x=1024;y=768"},
	{"3.2.7", "{;x,y,empty}", ";x=1024;y=768;empty"},
	{"3.2.7", "{;x,y,undef}", ";x=1024;y=768"},
	{"3.2.7", "{;hello:5}", ";hello=Hello"},
	{"3.2.7", "{;list}", ";list=red,green,blue"},
	{"3.2.7", "{;list*}", ";list=red;list=green;list=blue"},
	{"3.2.7", "{;keys}", ";keys=semi,%3B,dot,.,comma,%2C"},
	{"3.2.7", "{;keys*}", ";semi=%3B;dot=.;comma=%2C"},

	// 3.2.8 Form-style query expansion
	{"3.2.8", "{?who}", "?who=fred"},
	{"3.2.8", "{?half}", "?half=50%25"},
	{"3.2.8", "{?x,y}", "?x=1024&y=768"},
	{"3.2.8", "{?x,y,empty}", "?x=1024&y=768&empty="},
	{"3.2.8", "{?x,y,undef}", "?x=1024&y=768"},
	{"3.2.8", "{?var:3}", "?var=val"},
	{"3.2.8", "{?list}", "?list=red,green,blue"},
	{"3.2.8", "{?list*}", "?list=red&list=green&list=blue"},
	{"3.2.8", "{?keys}", "?keys=semi,%3B,dot,.,comma,%2C"},
	{"3.2.8", "{?keys*}", "?semi=%3B&dot=.&comma=%2C"},

	// 3.2.9 Form-style query continuation
	{"3.2.9", "{&who}", "&who=fred"},
	{"3.2.9", "{&half}", "&half=50%25"},
	{"3.2.9", "?fixed=yes{&x}", "?fixed=yes&x=1024"},
	{"3.2.9", "{&x,y,empty}", "&x=1024&y=768&empty="},
	{"3.2.9", "{&var:3}", "&var=val"},
	{"3.2.9", "{&list}", "&list=red,green,blue"},
	{"3.2.9", "{&list*}", "&list=red&list=green&list=blue"},
	{"3.2.9", "{&keys}", "&keys=semi,%3B,dot,.,comma,%2C"},
	{"3.2.9", "{&keys*}", "&semi=%3B&dot=.&comma=%2C"},
}

func TestExpandRFCExamples(t *testing.T) {
	for _, tc := range rfcExamples {
		t.Run(tc.section+" "+tc.template, func(t *testing.T) {
			tmpl, err := Parse(tc.template)
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			got, err := tmpl.Expand(rfcVars)
			if err != nil {
				t.Fatalf("Expand: %v", err)
			}
			if got != tc.want {
				t.Errorf("Expand(%q) = %q, want %q", tc.template, got, tc.want)
			}
		})
	}
}

func TestExpandOther(t *testing.T) {
	tests := []struct {
		name     string
		template string
		vars     map[string]any
		want     string
	}{
		{"prefix of reserved semicolon", "{semi:2}", map[string]any{"semi": ";"}, "%3B"},
		{"prefix counts characters not bytes", "{s:2}", map[string]any{"s": "żółw"}, "%C5%BC%C3%B3"},
		{"utf-8 encoded", "{s}", map[string]any{"s": "é/€"}, "%C3%A9%2F%E2%82%AC"},
		{"reserved keeps pct triplets", "{+s}", map[string]any{"s": "a%2Fb%zz"}, "a%2Fb%25zz"},
		{"reserved upper-cases kept triplets", "{#s}", map[string]any{"s": "%c3%bc%2f"}, "#%C3%BC%2F"},
		{"simple encodes percent", "{s}", map[string]any{"s": "a%2Fb"}, "a%252Fb"},
		{"non-ascii literal encoded", "ü/{x}", map[string]any{"x": "1"}, "%C3%BC/1"},
		{"pct literal kept", "a%20b{x}", map[string]any{"x": "1"}, "a%20b1"},
		{"map sorted by key", "{?m*}", map[string]any{"m": map[string]string{"b": "2", "a": "1"}}, "?a=1&b=2"},
		{"empty map undefined", "x{?m*}", map[string]any{"m": map[string]string{}}, "x"},
		{"empty list undefined", "x{/l}", map[string]any{"l": []string{}}, "x"},
		{"explode empty list item named", "{?l*}", map[string]any{"l": []string{"a", ""}}, "?l=a&l="},
		{"explode empty pair named", "{;k*}", map[string]any{"k": []Pair{{"a", ""}, {"b", "1"}}}, ";a;b=1"},
		{"integers and bools", "{?page,big,ok}", map[string]any{"page": 2, "big": int64(-3), "ok": true}, "?page=2&big=-3&ok=true"},
		{"unsigned", "{a}{b}{c}{d}", map[string]any{"a": uint(1), "b": uint64(2), "c": uint32(3), "d": int32(4)}, "1234"},
		{"missing vars", "a{b}c{/d}{?e}", nil, "ac"},
		{"mcp report", "report://{id}", map[string]any{"id": "q1 2025"}, "report://q1%202025"},
		{"mcp file", "file:///{+path}", map[string]any{"path": "home/a b/c.txt"}, "file:///home/a%20b/c.txt"},
		{"mcp query", "users/{user}/posts{?page,limit}", map[string]any{"user": "ada", "limit": "10"}, "users/ada/posts?limit=10"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := MustParse(tc.template).Expand(tc.vars)
			if err != nil {
				t.Fatalf("Expand: %v", err)
			}
			if got != tc.want {
				t.Errorf("Expand(%q) = %q, want %q", tc.template, got, tc.want)
			}
		})
	}
}

func TestExpandErrors(t *testing.T) {
	tests := []struct {
		name, template string
		vars           map[string]any
		contains       string
	}{
		{"prefix on list", "{l:2}", map[string]any{"l": []string{"a"}}, "prefix modifier"},
		{"prefix on map", "{m:2}", map[string]any{"m": map[string]string{"a": "b"}}, "prefix modifier"},
		{"unsupported type", "{f}", map[string]any{"f": 1.5}, "unsupported value type float64"},
		{"unsupported slice", "{f}", map[string]any{"f": []int{1}}, "unsupported value type []int"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := MustParse(tc.template).Expand(tc.vars)
			if err == nil {
				t.Fatalf("Expand = %q, want an error", got)
			}
			if !strings.Contains(err.Error(), tc.contains) {
				t.Errorf("error %q does not mention %q", err, tc.contains)
			}
		})
	}
}

func TestParse(t *testing.T) {
	tests := []struct {
		template string
		vars     []string
	}{
		{"", nil},
		{"plain/text", nil},
		{"{a}{b}{a}", []string{"a", "b"}},
		{"{a.b,c_d,%41x}", []string{"a.b", "c_d", "%41x"}},
		{"{/x:9999,y*}", []string{"x", "y"}},
		{"http://example.com/~user/{id}?q=1#frag", []string{"id"}},
		{"{+a}{#b}{.c}{/d}{;e}{?f}{&g}", []string{"a", "b", "c", "d", "e", "f", "g"}},
	}
	for _, tc := range tests {
		t.Run(tc.template, func(t *testing.T) {
			tmpl, err := Parse(tc.template)
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			if diff := cmp.Diff(tc.vars, tmpl.Vars()); diff != "" {
				t.Errorf("Vars (-want +got):\n%s", diff)
			}
			if tmpl.String() != tc.template {
				t.Errorf("String() = %q", tmpl.String())
			}
		})
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct {
		template string
		offset   int
		contains string
	}{
		{"{", 0, "unclosed"},
		{"a{b", 1, "unclosed"},
		{"a}b", 1, "not allowed"},
		{"{}", 1, "empty expression"},
		{"{a{b}}", 2, "inside an expression"},
		{"{=a}", 1, "reserved"},
		{"{!a}", 1, "reserved"},
		{"{|a}", 1, "reserved"},
		{"{a,}", 3, "bad variable name"},
		{"{,a}", 1, "reserved"},
		{"{/,a}", 2, "bad variable name"},
		{"{a-b}", 1, "bad variable name"},
		{"{.a.}", 2, "bad variable name"},
		{"{a..b}", 1, "bad variable name"},
		{"{.a}{x:0}", 5, "bad prefix"},
		{"{x:10000}", 1, "bad prefix"},
		{"{x:}", 1, "bad prefix"},
		{"{x:1a}", 1, "bad prefix"},
		{"{x:2*}", 1, "bad variable name"},
		{"{%4}", 1, "bad variable name"},
		{"{/a,b c}", 4, "bad variable name"},
		{"a b", 1, "not allowed"},
		{"a\"b", 1, "not allowed"},
		{"a'b", 1, "not allowed"},
		{"a|b", 1, "not allowed"},
		{"a\\b", 1, "not allowed"},
		{"a%zz", 1, "hex digits"},
		{"a%2", 1, "hex digits"},
		{"a\xffb", 1, "invalid UTF-8"},
		{"a\x00", 1, "not allowed"},
	}
	for _, tc := range tests {
		t.Run(tc.template, func(t *testing.T) {
			tmpl, err := Parse(tc.template)
			if err == nil {
				t.Fatalf("Parse succeeded: %v", tmpl.parts)
			}
			se, ok := err.(*SyntaxError)
			if !ok {
				t.Fatalf("error %T, want *SyntaxError", err)
			}
			if se.Offset != tc.offset || !strings.Contains(se.Msg, tc.contains) {
				t.Errorf("error %q at %d, want %q at %d", se.Msg, se.Offset, tc.contains, tc.offset)
			}
		})
	}
}

func TestMustParsePanics(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("MustParse did not panic on a bad template")
		}
	}()
	MustParse("{")
}
