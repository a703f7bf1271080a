package stdio_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/wiremcp/wiremcp/jsonrpc"
	"github.com/wiremcp/wiremcp/transport/stdio"
)

func Example() {
	in := strings.NewReader("\r\n" + // empty lines are ignored
		`{"jsonrpc":"2.0","id":1,"method":"upper","params":["hello\nworld"]}` + "\r\n")
	var out bytes.Buffer
	t := stdio.New(in, &out, nil)
	conn := jsonrpc.NewConn(t, &jsonrpc.ConnOptions{
		Handler: jsonrpc.HandlerFunc(func(ctx context.Context, req *jsonrpc.Request) (any, error) {
			var args []string
			if err := json.Unmarshal(req.Params, &args); err != nil || len(args) != 1 {
				return nil, jsonrpc.ErrInvalidParams
			}
			return strings.ToUpper(args[0]), nil // the newline is escaped on the wire
		}),
	})
	<-conn.Done() // the input ended and the reply was written
	fmt.Print(out.String())
	// Output:
	// {"jsonrpc":"2.0","id":1,"result":"HELLO\nWORLD"}
}
