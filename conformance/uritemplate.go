package conformance

import (
	"fmt"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// uriTemplateFormat replaces the validator's own "uri-template" format,
// which parses the template as a URL and so refuses valid templates whose
// expression stands where a URL parser expects a host ("report://{id}").
// The MCP schemas use the format for resource template URIs.
var uriTemplateFormat = &jsonschema.Format{Name: "uri-template", Validate: func(v any) error {
	s, ok := v.(string)
	if !ok {
		return nil
	}
	return checkURITemplate(s)
}}

// newSchemaCompiler returns a compiler with the suite's format policy:
// formats are asserted for every draft, so a message gets the same verdict
// under a draft-07 schema (2024-11-05 to 2025-06-18) as under a 2020-12 one
// (2025-11-25 on), and "uri-template" follows RFC 6570.
func newSchemaCompiler() *jsonschema.Compiler {
	c := jsonschema.NewCompiler()
	c.UseLoader(jsonschema.SchemeURLLoader{})
	c.AssertFormat()
	c.RegisterFormat(uriTemplateFormat)
	return c
}

// checkURITemplate reports whether s is a URI Template by the grammar of
// RFC 6570 section 2 (any level): literals outside the characters the RFC
// excludes, and expressions "{" [operator] varspec *("," varspec) "}".
func checkURITemplate(s string) error {
	for i := 0; i < len(s); {
		switch ch := s[i]; {
		case ch == '{':
			end := strings.IndexByte(s[i:], '}')
			if end < 0 {
				return fmt.Errorf("unclosed expression at offset %d", i)
			}
			if err := checkExpression(s[i+1 : i+end]); err != nil {
				return fmt.Errorf("expression at offset %d: %w", i, err)
			}
			i += end + 1
		case ch == '%':
			if !pctEncoded(s, i) {
				return fmt.Errorf("bad percent-encoding at offset %d", i)
			}
			i += 3
		case ch < 0x80 && !literalASCII(ch):
			return fmt.Errorf("character %q at offset %d is not allowed in a literal", ch, i)
		default:
			i++ // other ASCII literals, and UTF-8 bytes of ucschar/iprivate
		}
	}
	return nil
}

// literalASCII reports whether an ASCII byte may appear as a literal.
func literalASCII(ch byte) bool {
	if ch <= 0x20 || ch == 0x7f {
		return false
	}
	return !strings.ContainsRune("\"'%<>\\^`{|}", rune(ch))
}

// checkExpression checks the inside of one "{…}".
func checkExpression(e string) error {
	if e == "" {
		return fmt.Errorf("empty expression")
	}
	if strings.ContainsRune("+#./;?&", rune(e[0])) {
		e = e[1:]
	} else if strings.ContainsRune("=,!@|", rune(e[0])) {
		return fmt.Errorf("operator %q is reserved", e[0])
	}
	for _, spec := range strings.Split(e, ",") {
		if err := checkVarspec(spec); err != nil {
			return err
		}
	}
	return nil
}

// checkVarspec checks varname [":" max-length / "*"].
func checkVarspec(spec string) error {
	name := spec
	if n, ok := strings.CutSuffix(spec, "*"); ok {
		name = n
	} else if n, limit, ok := strings.Cut(spec, ":"); ok {
		name = n
		if limit == "" || len(limit) > 4 || limit[0] == '0' || strings.Trim(limit, "0123456789") != "" {
			return fmt.Errorf("bad prefix modifier %q", spec)
		}
	}
	if name == "" {
		return fmt.Errorf("empty variable name in %q", spec)
	}
	prevDot := true // a name may not start with "."
	for i := 0; i < len(name); i++ {
		ch := name[i]
		switch {
		case ch == '.':
			if prevDot {
				return fmt.Errorf("bad variable name %q", name)
			}
			prevDot = true
			continue
		case ch == '%':
			if !pctEncoded(name, i) {
				return fmt.Errorf("bad percent-encoding in variable name %q", name)
			}
			i += 2
		case ch == '_' || ch >= '0' && ch <= '9' || ch >= 'a' && ch <= 'z' || ch >= 'A' && ch <= 'Z':
		default:
			return fmt.Errorf("character %q is not allowed in variable name %q", ch, name)
		}
		prevDot = false
	}
	if prevDot {
		return fmt.Errorf("bad variable name %q", name)
	}
	return nil
}

// pctEncoded reports whether s[i:] starts with "%" and two hex digits.
func pctEncoded(s string, i int) bool {
	return i+2 < len(s) && s[i] == '%' && isHex(s[i+1]) && isHex(s[i+2])
}

func isHex(ch byte) bool {
	return ch >= '0' && ch <= '9' || ch >= 'a' && ch <= 'f' || ch >= 'A' && ch <= 'F'
}
