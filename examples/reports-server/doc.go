// Command reports-server serves reports — CI runs, security scans, performance and
// accessibility checks — to MCP clients through the Reports binding (REPORTS_LIST,
// REPORTS_GET, REPORTS_UPDATE_STATUS), as MCP resources and a triage prompt, and to
// people through an HTML inbox.
//
// Usage:
//
//	reports-server [-http ADDR] [-stdio] [-dir DIR] [-data DIR] [-poll DURATION]
//	reports-server check DIR
//	reports-server publish -dir DIR FILE...
//	reports-server import gotest -dir DIR [-id ID] [-title TITLE] [-category C] [-source S] < go-test.json
//
// Without -dir it serves a built-in set of sample reports. With -dir it serves the JSON
// report files in DIR (one report per file) and picks up new, changed and removed files
// by polling. Lifecycle state (unread, read, dismissed) and the last versions of each
// report (for the inbox's trend charts) are kept under -data, by default in the user's
// state directory; several processes may share it (updates lock and merge).
//
// Over HTTP (the default, 127.0.0.1:8080) the MCP endpoint is /mcp and the inbox is /.
// With -stdio it speaks MCP on stdin/stdout for clients that launch it.
package main
