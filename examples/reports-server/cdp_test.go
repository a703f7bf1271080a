package main

// A minimal Chrome DevTools Protocol client over a minimal WebSocket client (RFC 6455),
// standard library only, for the headless-browser test. It is single-goroutine: calls
// write a command and read frames until the matching response arrives, keeping the
// events seen on the way for waitEvent. Timeouts come from connection deadlines.

import (
	"bufio"
	"crypto/rand"
	"crypto/sha1"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// wsConn is a client WebSocket connection carrying text messages.
type wsConn struct {
	conn net.Conn
	br   *bufio.Reader
}

func dialWebSocket(rawURL string, timeout time.Duration) (*wsConn, error) {
	u, err := url.Parse(rawURL)
	if err != nil {
		return nil, err
	}
	if u.Scheme != "ws" {
		return nil, fmt.Errorf("unsupported scheme %q", u.Scheme)
	}
	conn, err := net.DialTimeout("tcp", u.Host, timeout)
	if err != nil {
		return nil, err
	}
	conn.SetDeadline(time.Now().Add(timeout))
	var key [16]byte
	rand.Read(key[:])
	k := base64.StdEncoding.EncodeToString(key[:])
	fmt.Fprintf(conn, "GET %s HTTP/1.1\r\nHost: %s\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: %s\r\nSec-WebSocket-Version: 13\r\n\r\n", u.RequestURI(), u.Host, k)
	br := bufio.NewReader(conn)
	res, err := http.ReadResponse(br, nil)
	if err != nil {
		conn.Close()
		return nil, err
	}
	res.Body.Close()
	sum := sha1.Sum([]byte(k + "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"))
	if res.StatusCode != http.StatusSwitchingProtocols || res.Header.Get("Sec-WebSocket-Accept") != base64.StdEncoding.EncodeToString(sum[:]) {
		conn.Close()
		return nil, fmt.Errorf("websocket handshake failed: %s", res.Status)
	}
	conn.SetDeadline(time.Time{})
	return &wsConn{conn: conn, br: br}, nil
}

// writeText sends one masked text frame.
func (c *wsConn) writeText(p []byte) error {
	hdr := []byte{0x81}
	switch n := len(p); {
	case n < 126:
		hdr = append(hdr, 0x80|byte(n))
	case n <= 0xFFFF:
		hdr = append(hdr, 0x80|126, byte(n>>8), byte(n))
	default:
		hdr = append(hdr, 0x80|127)
		hdr = binary.BigEndian.AppendUint64(hdr, uint64(n))
	}
	var mask [4]byte
	rand.Read(mask[:])
	hdr = append(hdr, mask[:]...)
	out := make([]byte, len(p))
	for i := range p {
		out[i] = p[i] ^ mask[i%4]
	}
	_, err := c.conn.Write(append(hdr, out...))
	return err
}

// readMessage returns the next complete text or binary message, answering pings.
func (c *wsConn) readMessage() ([]byte, error) {
	var msg []byte
	for frames := 0; frames < 1<<16; frames++ {
		var h [2]byte
		if _, err := io.ReadFull(c.br, h[:]); err != nil {
			return nil, err
		}
		fin, op := h[0]&0x80 != 0, h[0]&0x0F
		n := uint64(h[1] & 0x7F)
		switch n {
		case 126:
			var b [2]byte
			if _, err := io.ReadFull(c.br, b[:]); err != nil {
				return nil, err
			}
			n = uint64(binary.BigEndian.Uint16(b[:]))
		case 127:
			var b [8]byte
			if _, err := io.ReadFull(c.br, b[:]); err != nil {
				return nil, err
			}
			n = binary.BigEndian.Uint64(b[:])
		}
		if n > 64<<20 {
			return nil, errors.New("websocket frame too large")
		}
		var mask [4]byte
		if h[1]&0x80 != 0 {
			if _, err := io.ReadFull(c.br, mask[:]); err != nil {
				return nil, err
			}
		}
		payload := make([]byte, n)
		if _, err := io.ReadFull(c.br, payload); err != nil {
			return nil, err
		}
		if h[1]&0x80 != 0 {
			for i := range payload {
				payload[i] ^= mask[i%4]
			}
		}
		switch op {
		case 0x8:
			return nil, io.EOF
		case 0x9: // ping: answer with a pong carrying the same data
			pong := []byte{0x8A, 0x80 | byte(len(payload))}
			pong = append(pong, 0, 0, 0, 0)
			c.conn.Write(append(pong, payload...))
			continue
		case 0xA:
			continue
		}
		msg = append(msg, payload...)
		if fin {
			return msg, nil
		}
	}
	return nil, errors.New("websocket message has too many fragments")
}

func (c *wsConn) Close() error { return c.conn.Close() }

// cdpClient speaks the DevTools protocol to one page session (flattened mode).
type cdpClient struct {
	ws      *wsConn
	session string
	nextID  int
	events  []cdpMessage
	timeout time.Duration
}

type cdpMessage struct {
	ID        int                       `json:"id,omitempty"`
	Method    string                    `json:"method,omitempty"`
	Params    json.RawMessage           `json:"params,omitempty"`
	Result    json.RawMessage           `json:"result,omitempty"`
	Error     *struct{ Message string } `json:"error,omitempty"`
	SessionID string                    `json:"sessionId,omitempty"`
}

func (c *cdpClient) read() (cdpMessage, error) {
	c.ws.conn.SetReadDeadline(time.Now().Add(c.timeout))
	data, err := c.ws.readMessage()
	if err != nil {
		return cdpMessage{}, err
	}
	var m cdpMessage
	if err := json.Unmarshal(data, &m); err != nil {
		return cdpMessage{}, fmt.Errorf("bad CDP message %q: %w", data, err)
	}
	return m, nil
}

// call sends a command (to the page session unless browserLevel) and returns its result.
func (c *cdpClient) call(method string, params any, result any) error {
	return c.callOn(c.session, method, params, result)
}

func (c *cdpClient) callOn(session, method string, params any, result any) error {
	c.nextID++
	id := c.nextID
	msg := map[string]any{"id": id, "method": method}
	if params != nil {
		msg["params"] = params
	}
	if session != "" {
		msg["sessionId"] = session
	}
	b, _ := json.Marshal(msg)
	if err := c.ws.writeText(b); err != nil {
		return err
	}
	for range 100000 {
		m, err := c.read()
		if err != nil {
			return fmt.Errorf("%s: %w", method, err)
		}
		if m.ID != id {
			if m.Method != "" {
				c.events = append(c.events, m)
			}
			continue
		}
		if m.Error != nil {
			return fmt.Errorf("%s: %s", method, m.Error.Message)
		}
		if result != nil {
			return json.Unmarshal(m.Result, result)
		}
		return nil
	}
	return fmt.Errorf("%s: no response", method)
}

// waitEvent returns the first event named method received after the last call to
// clearEvents, reading more messages as needed.
func (c *cdpClient) waitEvent(method string) (cdpMessage, error) {
	for i, e := range c.events {
		if e.Method == method {
			c.events = append(c.events[:i:i], c.events[i+1:]...)
			return e, nil
		}
	}
	for range 100000 {
		m, err := c.read()
		if err != nil {
			return cdpMessage{}, fmt.Errorf("waiting for %s: %w", method, err)
		}
		if m.Method == method {
			return m, nil
		}
		if m.Method != "" {
			c.events = append(c.events, m)
		}
	}
	return cdpMessage{}, fmt.Errorf("waiting for %s: too many other messages", method)
}

func (c *cdpClient) clearEvents() { c.events = nil }

// navigate loads url in the page and waits for its load event.
func (c *cdpClient) navigate(u string) error {
	c.clearEvents()
	var res struct{ ErrorText string }
	if err := c.call("Page.navigate", map[string]any{"url": u}, &res); err != nil {
		return err
	}
	if res.ErrorText != "" {
		return fmt.Errorf("navigate %s: %s", u, res.ErrorText)
	}
	_, err := c.waitEvent("Page.loadEventFired")
	return err
}

// eval evaluates a JavaScript expression in the page and decodes its value into out.
func (c *cdpClient) eval(expr string, out any) error {
	var res struct {
		Result struct {
			Value json.RawMessage
		}
		ExceptionDetails *struct{ Text string }
	}
	if err := c.call("Runtime.evaluate", map[string]any{"expression": expr, "returnByValue": true, "awaitPromise": true}, &res); err != nil {
		return err
	}
	if res.ExceptionDetails != nil {
		return fmt.Errorf("evaluating %q: %s", expr, res.ExceptionDetails.Text)
	}
	if out == nil {
		return nil
	}
	if len(res.Result.Value) == 0 {
		return fmt.Errorf("evaluating %q: no value", expr)
	}
	return json.Unmarshal(res.Result.Value, out)
}

// click presses and releases the left mouse button at page coordinates (x, y), as a
// user would.
func (c *cdpClient) click(x, y float64) error {
	for _, typ := range []string{"mouseMoved", "mousePressed", "mouseReleased"} {
		p := map[string]any{"type": typ, "x": x, "y": y}
		if typ != "mouseMoved" {
			p["button"] = "left"
			p["clickCount"] = 1
		}
		if err := c.call("Input.dispatchMouseEvent", p, nil); err != nil {
			return err
		}
	}
	return nil
}

// openPage connects to the browser endpoint, creates a page and attaches to it.
func openPage(browserWS string, timeout time.Duration) (*cdpClient, error) {
	ws, err := dialWebSocket(browserWS, timeout)
	if err != nil {
		return nil, err
	}
	c := &cdpClient{ws: ws, timeout: timeout}
	var target struct{ TargetID string }
	if err := c.callOn("", "Target.createTarget", map[string]any{"url": "about:blank"}, &target); err != nil {
		ws.Close()
		return nil, err
	}
	var att struct{ SessionID string }
	if err := c.callOn("", "Target.attachToTarget", map[string]any{"targetId": target.TargetID, "flatten": true}, &att); err != nil {
		ws.Close()
		return nil, err
	}
	c.session = att.SessionID
	for _, m := range []string{"Page.enable", "Runtime.enable"} {
		if err := c.call(m, nil, nil); err != nil {
			ws.Close()
			return nil, err
		}
	}
	return c, nil
}

// devToolsURL extracts the browser endpoint from Chromium's stderr line
// "DevTools listening on ws://…".
func devToolsURL(line string) (string, bool) {
	const p = "DevTools listening on "
	i := strings.Index(line, p)
	if i < 0 {
		return "", false
	}
	return strings.TrimSpace(line[i+len(p):]), true
}
