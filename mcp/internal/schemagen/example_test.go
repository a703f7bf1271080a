package schemagen_test

import (
	"fmt"
	"reflect"
	"testing"

	"github.com/wiremcp/wiremcp/mcp/internal/schemagen"
)

type WeatherArgs struct {
	City  string `json:"city" description:"City name" mcp:"minLength=1"`
	Units string `json:"units,omitempty" mcp:"enum=metric|imperial;default=metric"`
	Days  int    `json:"days,omitempty" mcp:"minimum=1;maximum=14"`
}

func ExampleForType() {
	schema, err := schemagen.ForType[WeatherArgs](nil)
	if err != nil {
		panic(err)
	}
	fmt.Println(string(schema))
	// Output:
	// {"type":"object","properties":{"city":{"type":"string","description":"City name","minLength":1},"units":{"type":"string","enum":["metric","imperial"],"default":"metric"},"days":{"type":"integer","minimum":1,"maximum":14}},"required":["city"]}
}

type benchArgs struct {
	Query   string            `json:"query" description:"Search terms" mcp:"minLength=1;maxLength=200"`
	Limit   int               `json:"limit,omitempty" mcp:"minimum=1;maximum=100;default=10"`
	Sort    string            `json:"sort,omitempty" mcp:"enum=relevance|date|title"`
	Filters map[string]string `json:"filters,omitempty"`
	Tags    []string          `json:"tags,omitempty" mcp:"maxItems=10"`
	Cursor  *string           `json:"cursor"`
	Nested  struct {
		A bool    `json:"a"`
		B float64 `json:"b"`
	} `json:"nested"`
}

func BenchmarkFor(b *testing.B) {
	typ := reflect.TypeFor[benchArgs]()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := schemagen.For(typ, nil); err != nil {
			b.Fatal(err)
		}
	}
}
