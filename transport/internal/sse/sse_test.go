package sse

import (
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"
)

func TestAppendEvent(t *testing.T) {
	tests := []struct {
		name, ev, id string
		retry        int
		data         string
		want         string
	}{
		{"plain", "message", "1-2", 0, `{"a":1}`, "event: message\nid: 1-2\ndata: {\"a\":1}\n\n"},
		{"priming", "", "3-0", 500, "", "id: 3-0\nretry: 500\ndata: \n\n"},
		{"multiline", "", "", 0, "a\nb\r\nc\rd", "data: a\ndata: b\ndata: c\ndata: d\n\n"},
		{"trailing newline", "", "", 0, "x\n", "data: x\n\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := string(AppendEvent(nil, tc.ev, tc.id, tc.retry, []byte(tc.data)))
			if got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
	if got := string(AppendRetry(nil, 250)); got != "retry: 250\n\n" {
		t.Errorf("AppendRetry = %q", got)
	}
	if got := string(AppendComment(nil, "")); got != ":\n\n" {
		t.Errorf("AppendComment = %q", got)
	}
}

type event struct{ name, id, data string }

func readAll(t *testing.T, r *Reader) []event {
	t.Helper()
	var out []event
	for i := 0; i < 1000; i++ {
		ev, err := r.Next()
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatalf("Next: %v", err)
		}
		out = append(out, event{ev.Name, ev.ID, string(ev.Data)})
	}
	t.Fatal("too many events")
	return nil
}

func TestReader(t *testing.T) {
	tests := []struct {
		name   string
		stream string
		want   []event
		lastID string
		retry  int
	}{
		{"basic", "event: message\nid: 1\ndata: {}\n\n", []event{{"message", "1", "{}"}}, "1", -1},
		{"default name, CRLF", "data: a\r\ndata: b\r\n\r\n", []event{{"message", "", "a\nb"}}, "", -1},
		{"lone CR", "data: x\rid: 7\r\r", []event{{"message", "7", "x"}}, "7", -1},
		{"priming has empty data", "id: 5-0\nretry: 300\ndata: \n\n", []event{{"message", "5-0", ""}}, "5-0", 300},
		{"no data: not dispatched, id kept", "id: 9\n\n: comment\n\n", nil, "9", -1},
		{"named event", "event: endpoint\ndata: /m?s=1\n\n", []event{{"endpoint", "", "/m?s=1"}}, "", -1},
		{"no space after colon", "data:{}\n\n", []event{{"message", "", "{}"}}, "", -1},
		{"BOM", "\xEF\xBB\xBFdata: z\n\n", []event{{"message", "", "z"}}, "", -1},
		{"unterminated event dropped", "data: a\n\ndata: b\n", []event{{"message", "", "a"}}, "", -1},
		{"bad retry ignored", "retry: 1x\ndata: q\n\n", []event{{"message", "", "q"}}, "", -1},
		{"id with NUL ignored", "id: a\x00b\ndata: q\n\n", []event{{"message", "", "q"}}, "", -1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			for _, mode := range []string{"whole", "bytewise"} {
				var src io.Reader = strings.NewReader(tc.stream)
				if mode == "bytewise" {
					src = iotest.OneByteReader(src)
				}
				r := NewReader(src, 0)
				got := readAll(t, r)
				if len(got) != len(tc.want) {
					t.Fatalf("%s: got %v, want %v", mode, got, tc.want)
				}
				for i := range got {
					if got[i] != tc.want[i] {
						t.Errorf("%s: event %d = %+v, want %+v", mode, i, got[i], tc.want[i])
					}
				}
				if r.LastEventID() != tc.lastID || r.Retry() != tc.retry {
					t.Errorf("%s: lastID %q retry %d, want %q %d", mode, r.LastEventID(), r.Retry(), tc.lastID, tc.retry)
				}
			}
		})
	}
}

func TestReaderRoundTrip(t *testing.T) {
	var b []byte
	payloads := []string{`{"x":"a\nb"}`, "line1\nline2", "", "plain"}
	for i, p := range payloads {
		b = AppendEvent(b, "message", string(rune('a'+i)), 0, []byte(p))
	}
	r := NewReader(strings.NewReader(string(b)), 0)
	got := readAll(t, r)
	if len(got) != len(payloads) {
		t.Fatalf("got %d events", len(got))
	}
	for i, p := range payloads {
		if got[i].data != p {
			t.Errorf("event %d data %q, want %q", i, got[i].data, p)
		}
	}
}

func TestReaderTooLarge(t *testing.T) {
	r := NewReader(strings.NewReader("data: "+strings.Repeat("x", 100)+"\n\n"), 10)
	if _, err := r.Next(); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("err = %v, want ErrTooLarge", err)
	}
	r = NewReader(strings.NewReader("data: 12345\ndata: 12345\n\n"), 8)
	if _, err := r.Next(); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("err = %v, want ErrTooLarge", err)
	}
}
