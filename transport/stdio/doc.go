// Package stdio implements the MCP stdio transport: newline-delimited JSON-RPC
// messages over a byte stream, one compact UTF-8 JSON message per line.
//
// A server uses Stdio (os.Stdin and os.Stdout); a client starts the server as a
// child process with Command, which also relays the child's stderr and stops it
// cleanly on Close (close its stdin, wait, SIGTERM, wait, SIGKILL). New builds a
// Transport over any io.Reader and io.Writer.
//
// Lines are bounded (Options.MaxLineBytes, 4 MiB by default). A longer line, or one
// that is not a valid message, is answered with a JSON-RPC error by the jsonrpc.Conn
// reading the transport, and the stream carries on with the next line. Empty lines
// are ignored and "\r\n" endings are accepted. Writes are serialised, one message
// per underlying Write, and an encoded message never holds a raw newline.
//
// Reading happens on a goroutine the Transport owns, through the reader as the Go
// runtime gives it; Close and a done context end a waiting Read without losing
// input. The Transport never writes into its input and never changes the flags of a
// descriptor it did not open (os.Stdin's open file is shared with the parent).
//
// Serving one request from a byte stream:
//
//	t := stdio.New(os.Stdin, os.Stdout, nil)
//	conn := jsonrpc.NewConn(t, &jsonrpc.ConnOptions{Handler: h})
//	<-conn.Done() // the input ended and every reply was written
package stdio
