package sse

import (
	"bytes"
	"errors"
	"io"
	"strconv"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/google/go-cmp/cmp"
)

// refParse is a plain reading of the event-stream interpretation rules of the HTML
// standard (split into lines on CRLF, LF or CR; a leading BOM dropped; an unterminated
// last line and an unfinished event discarded at the end), kept deliberately simple
// so that FuzzReader can hold Reader to it. It returns the dispatched events, the last
// event id and the last valid retry (-1 when none).
func refParse(in []byte) (evs []event, lastID string, retry int) {
	retry = -1
	in = bytes.TrimPrefix(in, []byte("\xEF\xBB\xBF"))
	var data, name []byte
	hasData := false
	for {
		i := bytes.IndexAny(in, "\r\n")
		if i < 0 {
			return evs, lastID, retry // the rest is an unterminated line: discarded
		}
		line := in[:i]
		if in[i] == '\r' && i+1 < len(in) && in[i+1] == '\n' {
			i++
		}
		in = in[i+1:]
		if len(line) == 0 {
			if hasData {
				ev := event{name: "message", id: lastID, data: strings.TrimSuffix(string(data), "\n")}
				if len(name) > 0 {
					ev.name = string(name)
				}
				evs = append(evs, ev)
			}
			data, name, hasData = data[:0], name[:0], false
			continue
		}
		if line[0] == ':' {
			continue
		}
		field, value := line, []byte(nil)
		if j := bytes.IndexByte(line, ':'); j >= 0 {
			field, value = line[:j], bytes.TrimPrefix(line[j+1:], []byte(" "))
		}
		switch string(field) {
		case "data":
			data = append(append(data, value...), '\n')
			hasData = true
		case "event":
			name = append(name[:0], value...)
		case "id":
			if bytes.IndexByte(value, 0) < 0 {
				lastID = string(value)
			}
		case "retry":
			digits := len(value) > 0
			for _, c := range value {
				digits = digits && c >= '0' && c <= '9'
			}
			if n, err := strconv.Atoi(string(value)); digits && err == nil {
				retry = n
			}
		}
	}
}

// readEvents reads every event of src with a Reader limited to max bytes.
func readEvents(src io.Reader, max int) (evs []event, lastID string, retry int, err error) {
	r := NewReader(src, max)
	for {
		ev, err := r.Next()
		if err != nil {
			if errors.Is(err, io.EOF) {
				err = nil
			}
			return evs, r.LastEventID(), r.Retry(), err
		}
		evs = append(evs, event{ev.Name, ev.ID, string(ev.Data)})
	}
}

// FuzzReader feeds the same bytes to a Reader whole and one byte at a time (so that
// every line break, CRLF pair and BOM can be split across reads) and checks both
// against refParse; with a small size limit, only that the two agree.
func FuzzReader(f *testing.F) {
	for _, s := range []string{
		"event: message\nid: 1-2\ndata: {\"a\":1}\n\n",
		"id: 3-0\nretry: 500\ndata: \n\n",
		"data: a\r\ndata: b\rdata: c\n\r\n",
		"\xEF\xBB\xBFdata: bom\n\n",
		": comment\nevent: x\ndata\n\n",
		"data: unfinished\n",
		"id: a\x00b\nretry: 12x\ndata:x\r",
		"data: " + strings.Repeat("z", 300) + "\n\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		wantEvs, wantID, wantRetry := refParse(in)
		for _, tc := range []struct {
			name string
			src  io.Reader
		}{
			{"whole", bytes.NewReader(in)},
			{"byte by byte", iotest.OneByteReader(bytes.NewReader(in))},
		} {
			evs, id, retry, err := readEvents(tc.src, 1<<20)
			if err != nil {
				t.Fatalf("%s: %v", tc.name, err)
			}
			if d := cmp.Diff(wantEvs, evs, cmp.AllowUnexported(event{})); d != "" {
				t.Fatalf("%s: events differ from the reference (-want +got):\n%s", tc.name, d)
			}
			if id != wantID || retry != wantRetry {
				t.Fatalf("%s: last id %q retry %d, want %q %d", tc.name, id, retry, wantID, wantRetry)
			}
		}
		// A small limit: whole and byte-by-byte reads must agree, error included.
		e1, _, _, err1 := readEvents(bytes.NewReader(in), 16)
		e2, _, _, err2 := readEvents(iotest.OneByteReader(bytes.NewReader(in)), 16)
		if !errors.Is(err1, err2) && (err1 == nil) != (err2 == nil) {
			t.Fatalf("limit 16: whole read %v, byte by byte %v", err1, err2)
		}
		if err1 == nil && err2 == nil {
			if d := cmp.Diff(e1, e2, cmp.AllowUnexported(event{})); d != "" {
				t.Fatalf("limit 16: whole and byte-by-byte reads differ (-whole +bytes):\n%s", d)
			}
		}
	})
}
