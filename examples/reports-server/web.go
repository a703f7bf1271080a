package main

import (
	"crypto/rand"
	"embed"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"io"
	"log/slog"
	"math"
	"mime"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/wiremcp/wiremcp/bindings/reports"
)

//go:embed web/*.html
var webFS embed.FS

var pages = template.Must(template.New("").Funcs(template.FuncMap{
	"when":     func(t time.Time) string { return t.UTC().Format("2006-01-02 15:04 UTC") },
	"iso":      func(t time.Time) string { return t.UTC().Format(time.RFC3339) },
	"markdown": renderMarkdown,
	"icon":     func(s reports.Status) string { return statusIcons[s] },
	"column": func(cols []string, i int) string {
		if i < len(cols) {
			return cols[i]
		}
		return ""
	},
	"reportURL": func(id string) string {
		return "/reports/" + url.PathEscape(id)
	},
}).ParseFS(webFS, "web/*.html"))

// webHandler serves the HTML inbox and its small JSON API. It checks the Host of every
// request (on loopback listeners, against DNS rebinding) and the Origin of every
// state-changing request (against cross-site requests).
type webHandler struct {
	inbox        *Inbox
	log          *slog.Logger
	loopbackOnly bool
	mux          *http.ServeMux
	// timeout bounds the reading of a request's body and each write of its answer
	// (webTimeout; tests shorten it).
	timeout time.Duration
}

// webTimeout is the time an inbox client has to send a request's body, and to take
// each piece of the answer. The http.Server has no ReadTimeout or WriteTimeout, which would cut the
// MCP endpoint's event streams on the same server; the inbox's exchanges are short,
// so each gets its own deadlines here.
const webTimeout = 10 * time.Second

// newWebHandler returns the inbox handler. loopbackOnly restricts the Host header to
// localhost names, which is right when the server listens on a loopback address.
func newWebHandler(inbox *Inbox, log *slog.Logger, loopbackOnly bool) *webHandler {
	h := &webHandler{inbox: inbox, log: log, loopbackOnly: loopbackOnly, mux: http.NewServeMux(), timeout: webTimeout}
	h.mux.HandleFunc("GET /{$}", h.list)
	h.mux.HandleFunc("GET /reports/{id}", h.detail)
	h.mux.HandleFunc("GET /api/reports", h.apiList)
	h.mux.HandleFunc("GET /api/reports/{id}", h.apiGet)
	h.mux.HandleFunc("POST /api/reports/{id}/status", h.apiStatus)
	h.mux.HandleFunc("GET /api/diagnostics", h.apiDiagnostics)
	return h
}

func (h *webHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if h.loopbackOnly && !isLoopbackHost(r.Host) {
		http.Error(w, "forbidden host", http.StatusForbidden)
		return
	}
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.Header().Set("Referrer-Policy", "no-referrer")
	w.Header().Set("X-Frame-Options", "DENY")
	// A client that stops sending its body, or stops reading the answer, holds this
	// goroutine only until a deadline: the body has h.timeout, and so has each piece
	// of the answer (deadlineWriter).
	rc := http.NewResponseController(w)
	if r.ContentLength != 0 {
		_ = rc.SetReadDeadline(time.Now().Add(h.timeout))
	}
	dw := &deadlineWriter{ResponseWriter: w, rc: rc, timeout: h.timeout}
	defer dw.finish()
	h.mux.ServeHTTP(dw, r)
}

// deadlineWriter gives each piece of an answer (at most deadlinePiece bytes) its own
// write deadline: a client that reads keeps receiving, one that stops is cut off
// after timeout.
type deadlineWriter struct {
	http.ResponseWriter
	rc      *http.ResponseController
	timeout time.Duration
}

const deadlinePiece = 32 << 10

func (w *deadlineWriter) Write(b []byte) (int, error) {
	n := 0
	for len(b) > 0 {
		k := min(len(b), deadlinePiece)
		_ = w.rc.SetWriteDeadline(time.Now().Add(w.timeout))
		m, err := w.ResponseWriter.Write(b[:k])
		n += m
		if err != nil {
			return n, err
		}
		b = b[k:]
	}
	return n, nil
}

// Unwrap lets http.ResponseController reach the connection's ResponseWriter.
func (w *deadlineWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// finish flushes what the handler left buffered within the timeout, then clears the
// deadline, which must not reach the next request on the connection (it may be the
// MCP endpoint's event stream; net/http of Go 1.26 clears it after each request too).
func (w *deadlineWriter) finish() {
	_ = w.rc.SetWriteDeadline(time.Now().Add(w.timeout))
	_ = w.rc.Flush()
	_ = w.rc.SetWriteDeadline(time.Time{})
}

// isLoopbackHost reports whether a Host header names this machine.
func isLoopbackHost(hostport string) bool {
	host := hostport
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		host = h
	}
	host = strings.Trim(host, "[]")
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// sameOrigin reports whether a state-changing request comes from the inbox's own pages
// (or from a non-browser client, which sends neither Origin nor Sec-Fetch-Site).
func sameOrigin(r *http.Request) bool {
	if o := r.Header.Get("Origin"); o != "" {
		u, err := url.Parse(o)
		return err == nil && (u.Scheme == "http" || u.Scheme == "https") && strings.EqualFold(u.Host, r.Host)
	}
	switch r.Header.Get("Sec-Fetch-Site") {
	case "", "same-origin", "none":
		return true
	}
	return false
}

func nonce() string {
	var b [16]byte
	rand.Read(b[:])
	return base64.RawStdEncoding.EncodeToString(b[:])
}

// render writes the page name with status code. Every header is set before the
// status line is written, so error pages carry the same policy as the others.
func (h *webHandler) render(w http.ResponseWriter, code int, name string, data map[string]any) {
	n := nonce()
	data["Nonce"] = n
	w.Header().Set("Content-Security-Policy", "default-src 'none'; style-src 'nonce-"+n+"'; script-src 'nonce-"+n+
		"'; connect-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'self'; frame-ancestors 'none'")
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	var b strings.Builder
	if err := pages.ExecuteTemplate(&b, name, data); err != nil {
		h.log.Error("rendering page", "page", name, "err", err)
		http.Error(w, "internal error", http.StatusInternalServerError)
		return
	}
	w.WriteHeader(code)
	io.WriteString(w, b.String())
}

// list is the inbox: tab=inbox (unread and read) or tab=done (dismissed), filtered by
// category and status.
func (h *webHandler) list(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	tab := q.Get("tab")
	if tab != "done" {
		tab = "inbox"
	}
	f := reports.ListInput{Category: q.Get("category"), Status: reports.Status(q.Get("status"))}
	if f.Status != "" && !f.Status.Valid() {
		f.Status = ""
	}
	var shown []reports.ReportSummary
	inboxN, doneN := 0, 0
	for _, s := range h.inbox.List(f) {
		done := s.LifecycleStatus == reports.LifecycleDismissed
		if done {
			doneN++
		} else {
			inboxN++
		}
		if done == (tab == "done") {
			shown = append(shown, s)
		}
	}
	h.render(w, http.StatusOK, "list.html", map[string]any{
		"Tab": tab, "Category": f.Category, "Status": string(f.Status),
		"Categories": h.inbox.Categories(), "Statuses": reports.Statuses,
		"Reports": shown, "InboxCount": inboxN, "DoneCount": doneN,
		"Diagnostics": h.inbox.Diagnostics(),
	})
}

// sectionView is a report section prepared for the detail template.
type sectionView struct {
	Type    string
	Title   string
	HTML    template.HTML
	Metrics []metricView
	Trends  []trendView
	HasPP   bool // a change is given in percentage points
	// HasPrevious is set when a metric of the section has a previousValue; without
	// one the Previous and Change columns are left out.
	HasPrevious bool
	Cut         bool // the Markdown was over maxMarkdownSection and is shown cut
	Columns     []string
	Rows        [][]cellView
}

// cellView is one table cell; Pre is set for text of several lines (test output),
// shown preformatted.
type cellView struct {
	Text string
	Pre  bool
}

type metricView struct {
	Label, Value, Previous, Trend string
	// Change is the difference from the previous value (percentage points for a
	// value in %), Relative the change relative to the previous value.
	Change, Relative string
	Status           reports.Status
}

// statusIcons tell statuses apart by shape as well as colour (WCAG 1.4.1).
var statusIcons = map[reports.Status]string{
	reports.StatusPassing: "✓", reports.StatusWarning: "!", reports.StatusFailing: "✗", reports.StatusInfo: "i",
}

// changeParts splits the change of m from its previous value into the difference and
// the relative change: "-0.7 pp" and "-0.9% relative" for a coverage in %, "+20 ms"
// and "+20.0% relative" otherwise. Non-numeric values get reports.Delta's wording.
func changeParts(m reports.MetricItem) (change, relative string) {
	cur, ok1 := m.Value.Number()
	prev, ok2 := m.PreviousValue.Number()
	if !ok1 || !ok2 {
		return reports.Delta(m), ""
	}
	d := math.Round((cur-prev)*1e6) / 1e6
	if d == 0 {
		return "unchanged", ""
	}
	sign := ""
	if d > 0 {
		sign = "+"
	}
	if m.Unit == "%" {
		change = sign + reports.Num(d).String() + " pp"
	} else {
		change = sign + reports.WithUnit(reports.Num(d), m.Unit)
	}
	if prev != 0 {
		relative = fmt.Sprintf("%+.1f%% relative", d/math.Abs(prev)*100)
	}
	return change, relative
}

func viewSections(r *reports.Report, versions []historyPoint) []sectionView {
	out := make([]sectionView, 0, len(r.Sections))
	for _, s := range r.Sections {
		v := sectionView{Type: string(s.Type), Title: s.Title}
		switch s.Type {
		case reports.SectionMarkdown:
			md := renderMarkdownSection(s.Content)
			v.HTML, v.Cut = md.HTML, md.Truncated
		case reports.SectionMetrics:
			for _, m := range s.Items {
				mv := metricView{Label: m.Label, Value: reports.WithUnit(m.Value, m.Unit),
					Previous: reports.WithUnit(m.PreviousValue, m.Unit), Status: m.Status}
				mv.Change, mv.Relative = changeParts(m)
				v.HasPP = v.HasPP || strings.HasSuffix(mv.Change, " pp")
				v.HasPrevious = v.HasPrevious || !m.PreviousValue.IsZero()
				cur, ok1 := m.Value.Number()
				prev, ok2 := m.PreviousValue.Number()
				switch {
				case ok1 && ok2 && cur > prev:
					mv.Trend = "up"
				case ok1 && ok2 && cur < prev:
					mv.Trend = "down"
				case !m.PreviousValue.IsZero():
					mv.Trend = "same"
				}
				v.Metrics = append(v.Metrics, mv)
				if tv, ok := trendOf(s.Title, m, versions); ok {
					v.Trends = append(v.Trends, tv)
				}
			}
		case reports.SectionTable:
			v.Columns = s.Columns
			// A column holding text of several lines anywhere (test output) is shown
			// preformatted throughout.
			pre := map[int]bool{}
			for _, row := range s.Rows {
				for i, c := range row {
					pre[i] = pre[i] || strings.Contains(c.String(), "\n")
				}
			}
			for _, row := range s.Rows {
				cells := make([]cellView, len(row))
				for i, c := range row {
					cells[i] = cellView{Text: c.String(), Pre: pre[i]}
				}
				v.Rows = append(v.Rows, cells)
			}
		}
		out = append(out, v)
	}
	return out
}

func (h *webHandler) detail(w http.ResponseWriter, r *http.Request) {
	rep, err := h.inbox.Get(r.PathValue("id"))
	if err != nil {
		h.render(w, http.StatusNotFound, "notfound.html", map[string]any{"ID": r.PathValue("id")})
		return
	}
	sections := viewSections(rep, h.inbox.Versions(rep.ID))
	for i, s := range sections {
		if s.Cut {
			h.log.Warn("Markdown section over the size cap shown cut", "report", rep.ID, "section", i+1, "capBytes", maxMarkdownSection)
		}
	}
	h.render(w, http.StatusOK, "detail.html", map[string]any{"Report": rep, "Sections": sections})
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(code)
	json.NewEncoder(w).Encode(v)
}

// apiList answers GET /api/reports with the binding's list output; the query takes the
// same filters as REPORTS_LIST.
func (h *webHandler) apiList(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	f := reports.ListInput{Category: q.Get("category"), Status: reports.Status(q.Get("status")),
		Source: q.Get("source"), Tag: q.Get("tag"), LifecycleStatus: reports.LifecycleStatus(q.Get("lifecycleStatus"))}
	if (f.Status != "" && !f.Status.Valid()) || (f.LifecycleStatus != "" && !f.LifecycleStatus.Valid()) {
		writeJSON(w, http.StatusBadRequest, reports.UpdateStatusOutput{Message: "invalid status or lifecycleStatus filter"})
		return
	}
	writeJSON(w, http.StatusOK, reports.ListOutput{Reports: h.inbox.List(f)})
}

func (h *webHandler) apiGet(w http.ResponseWriter, r *http.Request) {
	rep, err := h.inbox.Get(r.PathValue("id"))
	if err != nil {
		writeJSON(w, http.StatusNotFound, reports.UpdateStatusOutput{Message: err.Error()})
		return
	}
	writeJSON(w, http.StatusOK, rep)
}

func (h *webHandler) apiDiagnostics(w http.ResponseWriter, r *http.Request) {
	d := h.inbox.Diagnostics()
	if d == nil {
		d = []reports.Diagnostic{}
	}
	writeJSON(w, http.StatusOK, map[string]any{"diagnostics": d})
}

// apiStatus answers POST /api/reports/{id}/status with body {"lifecycleStatus": …}.
// The answer is sent after the change is on disk.
func (h *webHandler) apiStatus(w http.ResponseWriter, r *http.Request) {
	if !sameOrigin(r) {
		writeJSON(w, http.StatusForbidden, reports.UpdateStatusOutput{Message: "cross-origin request refused"})
		return
	}
	// A JSON content type cannot be sent cross-site without a CORS preflight, which this
	// server never approves.
	if mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); mt != "application/json" {
		writeJSON(w, http.StatusUnsupportedMediaType, reports.UpdateStatusOutput{Message: "send application/json"})
		return
	}
	var body struct {
		LifecycleStatus reports.LifecycleStatus `json:"lifecycleStatus"`
	}
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, 4096))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&body); err != nil {
		writeJSON(w, http.StatusBadRequest, reports.UpdateStatusOutput{Message: "invalid body: " + err.Error()})
		return
	}
	err := h.inbox.SetStatus(r.PathValue("id"), body.LifecycleStatus)
	switch {
	case errors.Is(err, ErrNotFound):
		writeJSON(w, http.StatusNotFound, reports.UpdateStatusOutput{Message: err.Error()})
	case err != nil && !body.LifecycleStatus.Valid():
		writeJSON(w, http.StatusBadRequest, reports.UpdateStatusOutput{Message: err.Error()})
	case err != nil:
		h.log.Error("saving lifecycle status", "err", err)
		writeJSON(w, http.StatusInternalServerError, reports.UpdateStatusOutput{Message: "could not save the change"})
	default:
		writeJSON(w, http.StatusOK, reports.UpdateStatusOutput{Success: true})
	}
}
