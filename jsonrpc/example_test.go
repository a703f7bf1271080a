package jsonrpc_test

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/wiremcp/wiremcp/jsonrpc"
	"github.com/wiremcp/wiremcp/transport/memory"
)

func Example() {
	a, b := memory.NewPair()
	server := jsonrpc.NewConn(a, &jsonrpc.ConnOptions{
		Handler: jsonrpc.HandlerFunc(func(ctx context.Context, req *jsonrpc.Request) (any, error) {
			switch req.Method {
			case "greet":
				var p struct{ Name string }
				if err := json.Unmarshal(req.Params, &p); err != nil {
					return nil, fmt.Errorf("greet: %w", jsonrpc.ErrInvalidParams)
				}
				return "hello, " + p.Name, nil
			}
			return nil, jsonrpc.ErrMethodNotFound
		}),
	})
	defer server.Close()
	client := jsonrpc.NewConn(b, nil)
	defer client.Close()

	ctx := context.Background()
	var greeting string
	if err := client.Call(ctx, "greet", map[string]string{"name": "gopher"}, &greeting); err != nil {
		fmt.Println("error:", err)
	}
	fmt.Println(greeting)

	err := client.Call(ctx, "shout", nil, nil)
	fmt.Println(err)
	// Output:
	// hello, gopher
	// jsonrpc error -32601: Method not found
}

func ExampleDecode() {
	for _, frame := range []string{
		`{"jsonrpc":"2.0","id":9007199254740993,"method":"sum","params":[1,2]}`,
		`{"jsonrpc":"2.0","id":1,"method":"sum","Method":"other"}`,
		`{"jsonrpc":"2.0","id":1,"method":"sum","params":{"a":1,"a":2}}`,
		`{"jsonrpc":"2.0","id":1,`,
	} {
		msg, err := jsonrpc.Decode([]byte(frame), nil)
		if err != nil {
			// The answer owed: the *Invalid when Decode returned one, else "id": null.
			var reply jsonrpc.Message = &jsonrpc.Response{ID: jsonrpc.NullID, Error: jsonrpc.AsError(err)}
			if inv, ok := msg.(*jsonrpc.Invalid); ok {
				reply = inv
			}
			out, _ := jsonrpc.Encode(nil, reply)
			fmt.Println(string(out))
			continue
		}
		req := msg.(*jsonrpc.Request)
		fmt.Println(req.ID, req.Method, string(req.Params))
	}
	// Output:
	// 9007199254740993 sum [1,2]
	// {"jsonrpc":"2.0","id":1,"error":{"code":-32600,"message":"Invalid Request: member \"Method\" must be spelled \"method\""}}
	// {"jsonrpc":"2.0","id":1,"error":{"code":-32600,"message":"Invalid Request: duplicate member \"a\""}}
	// {"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error: unexpected end of input"}}
}
