// Embedding files with go:embed (here a string; embed.FS works the same way).
package main

import (
	_ "embed"
	"fmt"
	"strings"
	"text/template"
)

// greeting would normally be a file next to this source: //go:embed greeting.tmpl
var greeting = "Hello, {{.}}!\n"

//go:embed embed-files.go
var self string

func main() {
	t := template.Must(template.New("greeting").Parse(greeting))
	var b strings.Builder
	t.Execute(&b, "gopher")
	fmt.Print(b.String())
	fmt.Println("this program embeds its own source:", strings.HasPrefix(self, "// Embedding"))
}
