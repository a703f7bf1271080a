package streamable

import (
	"encoding/json"
	"net/http"
	"strconv"
	"strings"

	"github.com/wiremcp/wiremcp/jsonrpc"
	"github.com/wiremcp/wiremcp/transport/internal/sse"
)

// codeServerError is the implementation-defined code used in the bodies of HTTP-level
// errors (406, 415, 404, ...), as the reference SDKs do.
const codeServerError int64 = -32000

// writeHTTPError answers with status and an id-less JSON-RPC error body.
func writeHTTPError(w http.ResponseWriter, status int, msg string) {
	writeRPCError(w, status, jsonrpc.ID{}, codeServerError, msg)
}

// writeRPCError answers with status and a JSON-RPC error response. An absent id is
// left out of the body (the request's id could not be determined).
func writeRPCError(w http.ResponseWriter, status int, id jsonrpc.ID, code int64, msg string) {
	b := make([]byte, 0, 96+len(msg))
	b = append(b, `{"jsonrpc":"2.0",`...)
	if !id.IsAbsent() {
		b = append(b, `"id":`...)
		b = append(b, id.Raw()...)
		b = append(b, ',')
	}
	b = append(b, `"error":{"code":`...)
	b = strconv.AppendInt(b, code, 10)
	b = append(b, `,"message":`...)
	q, _ := json.Marshal(msg)
	b = append(b, q...)
	b = append(b, "}}"...)
	h := w.Header()
	h["Content-Type"] = hdrJSON
	h["Content-Length"] = []string{strconv.Itoa(len(b))}
	w.WriteHeader(status)
	w.Write(b)
}

// writeMessageJSON answers 200 with msg as the JSON body.
func writeMessageJSON(w http.ResponseWriter, msg jsonrpc.Message) {
	b, err := jsonrpc.Encode(nil, msg)
	if err != nil {
		writeHTTPError(w, http.StatusInternalServerError, "Internal Server Error: "+err.Error())
		return
	}
	w.Header()["Content-Type"] = hdrJSON
	w.WriteHeader(http.StatusOK)
	w.Write(b)
}

// appendStoredEvent frames a stored message as an SSE event.
func appendStoredEvent(dst []byte, id string, data []byte) []byte {
	return sse.AppendEvent(dst, "message", id, 0, data)
}

// acceptTypes reports whether an Accept header admits application/json and
// text/event-stream (wildcards count). A media range with q=0 is one the client
// refuses (RFC 9110, section 12.4.2), so it admits nothing.
func acceptTypes(vals []string) (json, stream bool) {
	for _, v := range vals {
		for v != "" {
			var part string
			part, v, _ = strings.Cut(v, ",")
			mt, params, _ := strings.Cut(part, ";")
			mt = strings.Trim(mt, " \t")
			if refused(params) {
				continue
			}
			switch {
			case strings.EqualFold(mt, "application/json"):
				json = true
			case strings.EqualFold(mt, "text/event-stream"):
				stream = true
			case mt == "*/*":
				json, stream = true, true
			case strings.EqualFold(mt, "application/*"):
				json = true
			case strings.EqualFold(mt, "text/*"):
				stream = true
			}
		}
	}
	return json, stream
}

// refused reports whether the parameters of a media range carry a weight of 0.
func refused(params string) bool {
	for params != "" {
		var p string
		p, params, _ = strings.Cut(params, ";")
		name, val, ok := strings.Cut(strings.Trim(p, " \t"), "=")
		if !ok || !strings.EqualFold(strings.Trim(name, " \t"), "q") {
			continue
		}
		q, err := strconv.ParseFloat(strings.Trim(val, " \t"), 64)
		return err == nil && q == 0
	}
	return false
}

func acceptsBoth(vals []string) bool {
	j, s := acceptTypes(vals)
	return j && s
}

func isJSONContentType(vals []string) bool {
	if len(vals) == 0 {
		return false
	}
	mt, _, _ := strings.Cut(vals[0], ";")
	return strings.EqualFold(strings.Trim(mt, " \t"), "application/json")
}

// checkHostAndOrigin applies the DNS-rebinding defences and answers 403 on failure.
func (h *Handler) checkHostAndOrigin(w http.ResponseWriter, r *http.Request) bool {
	if msg := h.check.Check(r); msg != "" {
		writeHTTPError(w, http.StatusForbidden, msg)
		return false
	}
	return true
}
