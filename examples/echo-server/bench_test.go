package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"testing"

	"github.com/wiremcp/wiremcp/transport/stdio"
)

// BenchmarkStdioEcho drives the echo server the way the load driver does: newline-
// delimited requests over an OS pipe, one call in flight, responses read line by line.
func BenchmarkStdioEcho(b *testing.B) {
	inR, inW, _ := os.Pipe()
	outR, outW, _ := os.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- newServer().Run(ctx, stdio.New(inR, outW, nil)) }()
	defer func() {
		inW.Close()
		cancel()
		<-done
		outR.Close()
	}()
	rd := bufio.NewReader(outR)
	call := func(line string) string {
		if _, err := io.WriteString(inW, line+"\n"); err != nil {
			b.Fatal(err)
		}
		resp, err := rd.ReadString('\n')
		if err != nil {
			b.Fatal(err)
		}
		return resp
	}
	call(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"b","version":"1"}}}`)
	io.WriteString(inW, `{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n")
	b.ReportAllocs()
	b.ResetTimer()
	i := 0
	for b.Loop() {
		i++
		resp := call(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"echo","arguments":{"message":"0123456789abcdef"}}}`, i))
		if !strings.Contains(resp, "0123456789abcdef") {
			b.Fatal(resp)
		}
	}
}

// BenchmarkStdioEcho64k is BenchmarkStdioEcho with a 64 KiB message.
func BenchmarkStdioEcho64k(b *testing.B) {
	inR, inW, _ := os.Pipe()
	outR, outW, _ := os.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- newServer().Run(ctx, stdio.New(inR, outW, nil)) }()
	defer func() {
		inW.Close()
		cancel()
		<-done
		outR.Close()
	}()
	rd := bufio.NewReaderSize(outR, 1<<20)
	msg := strings.Repeat("0123456789abcdef", 4096)
	req := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"message":"` + msg + `"}}}` + "\n"
	io.WriteString(inW, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"b","version":"1"}}}`+"\n")
	rd.ReadString('\n')
	b.ReportAllocs()
	b.SetBytes(int64(len(msg)))
	b.ResetTimer()
	for b.Loop() {
		go io.WriteString(inW, req)
		resp, err := rd.ReadString('\n')
		if err != nil || len(resp) < len(msg) {
			b.Fatal(err)
		}
	}
}
