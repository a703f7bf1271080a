// client.mjs drives examples/reports-server with the official MCP TypeScript SDK client,
// as a consumer of the Reports binding would: list, filter, get, update, get again.
//
//   node client.mjs --transport stdio --server BIN --dir REPORTS_DIR --data DATA_DIR
//   node client.mjs --transport http --url http://127.0.0.1:PORT/mcp
//
// Every check is a node:assert assertion. On success it prints one JSON summary line on
// stdout and exits 0; on any failure it prints the error on stderr and exits 1. It is run
// by ../tsclient_test.go, which compares the summary with the sample reports.

import assert from 'node:assert/strict';
import { parseArgs } from 'node:util';
import { readFileSync } from 'node:fs';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { LATEST_PROTOCOL_VERSION } from '@modelcontextprotocol/sdk/types.js';

const TOOLS = ['REPORTS_LIST', 'REPORTS_GET', 'REPORTS_UPDATE_STATUS'];
const STATUSES = ['passing', 'warning', 'failing', 'info'];
const LIFECYCLE = ['unread', 'read', 'dismissed'];
const SECTION_TYPES = ['markdown', 'metrics', 'table'];
const SUMMARY_FIELDS = ['id', 'title', 'category', 'status', 'summary', 'updatedAt', 'source', 'tags', 'lifecycleStatus'];
const REQUEST_TIMEOUT_MS = 20_000;
const OVERALL_TIMEOUT_MS = 90_000;

const { values: opts } = parseArgs({
  options: {
    transport: { type: 'string' },
    server: { type: 'string' },
    dir: { type: 'string' },
    data: { type: 'string' },
    url: { type: 'string' },
  },
  strict: true,
});

// A watchdog, so that a hung server never hangs the test that runs this script.
const watchdog = setTimeout(() => {
  console.error(`client.mjs: gave up after ${OVERALL_TIMEOUT_MS} ms`);
  process.exit(2);
}, OVERALL_TIMEOUT_MS);
watchdog.unref();

// The SDK's exports map does not expose its package.json; read it from node_modules.
const sdkVersion = JSON.parse(readFileSync(new URL('./node_modules/@modelcontextprotocol/sdk/package.json', import.meta.url), 'utf8')).version;

// call invokes a tool and returns its result after the checks every binding result must
// pass: a text block holding the same JSON as structuredContent (the SDK itself has
// already validated structuredContent against the tool's outputSchema).
async function call(client, name, args) {
  const res = await client.callTool({ name, arguments: args }, undefined, { timeout: REQUEST_TIMEOUT_MS });
  assert.ok(Array.isArray(res.content) && res.content.length > 0, `${name}: result has no content`);
  const text = res.content.find((c) => c.type === 'text');
  assert.ok(text, `${name}: result has no text block`);
  if (!res.isError) {
    assert.equal(typeof res.structuredContent, 'object', `${name}: no structuredContent`);
    assert.deepEqual(JSON.parse(text.text), res.structuredContent, `${name}: text block and structuredContent differ`);
  }
  return res;
}

async function callOK(client, name, args) {
  const res = await call(client, name, args);
  assert.ok(!res.isError, `${name}(${JSON.stringify(args)}) failed: ${res.content?.[0]?.text}`);
  return res.structuredContent;
}

// newerFirst says whether a may come before b: updatedAt descending, ties by id.
function newerFirst(a, b) {
  const ta = Date.parse(a.updatedAt);
  const tb = Date.parse(b.updatedAt);
  return ta > tb || (ta === tb && a.id < b.id);
}

function checkSummary(s, where) {
  assert.equal(typeof s.id, 'string', `${where}: id`);
  assert.ok(s.id.length > 0, `${where}: empty id`);
  for (const f of ['title', 'category', 'summary', 'updatedAt']) {
    assert.equal(typeof s[f], 'string', `${where} ${s.id}: ${f} is not a string`);
  }
  assert.ok(STATUSES.includes(s.status), `${where} ${s.id}: status ${s.status}`);
  assert.ok(!Number.isNaN(Date.parse(s.updatedAt)), `${where} ${s.id}: updatedAt ${s.updatedAt} is not a date`);
  assert.match(s.updatedAt, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/, `${where} ${s.id}: updatedAt is not ISO 8601`);
  if (s.tags !== undefined) assert.ok(Array.isArray(s.tags) && s.tags.every((t) => typeof t === 'string'), `${where} ${s.id}: tags`);
  if (s.lifecycleStatus !== undefined) assert.ok(LIFECYCLE.includes(s.lifecycleStatus), `${where} ${s.id}: lifecycleStatus ${s.lifecycleStatus}`);
}

function checkSection(sec, where) {
  assert.ok(SECTION_TYPES.includes(sec.type), `${where}: section type ${sec.type}`);
  switch (sec.type) {
    case 'markdown':
      assert.equal(typeof sec.content, 'string', `${where}: markdown content`);
      break;
    case 'metrics':
      assert.ok(Array.isArray(sec.items) && sec.items.length > 0, `${where}: metrics items`);
      for (const it of sec.items) {
        assert.equal(typeof it.label, 'string', `${where}: metric label`);
        assert.ok(['number', 'string'].includes(typeof it.value), `${where}: metric ${it.label} value ${it.value}`);
        if (it.previousValue !== undefined) assert.ok(['number', 'string'].includes(typeof it.previousValue), `${where}: metric ${it.label} previousValue`);
      }
      break;
    case 'table':
      assert.ok(Array.isArray(sec.columns) && sec.columns.every((c) => typeof c === 'string'), `${where}: table columns`);
      assert.ok(Array.isArray(sec.rows), `${where}: table rows`);
      for (const row of sec.rows) {
        assert.ok(Array.isArray(row), `${where}: table row`);
        for (const cell of row) assert.ok(cell === null || ['string', 'number'].includes(typeof cell), `${where}: table cell ${cell}`);
      }
      break;
  }
}

const ids = (list) => list.map((s) => s.id);

// The client in use, so that a failed run still closes it (and stops a stdio server).
let activeClient;

async function exercise(client) {
  const out = {};

  // The binding is detected by the tool names; each tool declares an outputSchema.
  const { tools } = await client.listTools(undefined, { timeout: REQUEST_TIMEOUT_MS });
  const byName = new Map(tools.map((t) => [t.name, t]));
  for (const name of TOOLS) {
    const t = byName.get(name);
    assert.ok(t, `tool ${name} missing; server lists ${[...byName.keys()].join(', ')}`);
    assert.equal(t.outputSchema?.type, 'object', `tool ${name}: outputSchema ${JSON.stringify(t.outputSchema)}`);
    assert.equal(t.inputSchema?.type, 'object', `tool ${name}: inputSchema`);
  }
  out.tools = TOOLS.filter((n) => byName.has(n));

  // No filter: every report, newest first, all unread at the start.
  const all = (await callOK(client, 'REPORTS_LIST', {})).reports;
  assert.ok(Array.isArray(all) && all.length > 0, 'REPORTS_LIST {} returned no reports');
  all.forEach((s) => checkSummary(s, 'REPORTS_LIST'));
  assert.equal(new Set(ids(all)).size, all.length, 'REPORTS_LIST returned duplicate ids');
  for (let i = 1; i < all.length; i++) {
    assert.ok(newerFirst(all[i - 1], all[i]),
      `order broken at ${i}: ${all[i - 1].id} (${all[i - 1].updatedAt}) before ${all[i].id} (${all[i].updatedAt})`);
  }
  for (const s of all) assert.equal(s.lifecycleStatus, 'unread', `${s.id} starts as ${s.lifecycleStatus}`);
  out.all = ids(all);

  // status filter: exactly the failing reports, in the same order.
  const failing = (await callOK(client, 'REPORTS_LIST', { status: 'failing' })).reports;
  assert.ok(failing.length > 0, 'no failing reports');
  for (const s of failing) assert.equal(s.status, 'failing', `status filter returned ${s.id} (${s.status})`);
  assert.deepEqual(ids(failing), ids(all.filter((s) => s.status === 'failing')), 'status=failing is not the failing subset');
  out.failing = ids(failing);

  // category filter: the category of the newest failing report.
  const category = failing[0].category;
  const inCategory = (await callOK(client, 'REPORTS_LIST', { category })).reports;
  for (const s of inCategory) assert.equal(s.category, category, `category filter returned ${s.id} (${s.category})`);
  assert.deepEqual(ids(inCategory), ids(all.filter((s) => s.category === category)), `category=${category} is not the subset`);
  out.category = { name: category, ids: ids(inCategory) };

  // Both filters together.
  const both = (await callOK(client, 'REPORTS_LIST', { category, status: 'failing' })).reports;
  assert.deepEqual(ids(both), ids(all.filter((s) => s.category === category && s.status === 'failing')), 'category+status filter');

  // An invalid status is refused as a tool error, not a protocol failure.
  const bad = await call(client, 'REPORTS_LIST', { status: 'red' });
  assert.equal(bad.isError, true, `status "red" was accepted: ${JSON.stringify(bad)}`);

  // Get one report: the summary fields plus well-formed sections.
  const id = failing[0].id;
  const rep = await callOK(client, 'REPORTS_GET', { id });
  checkSummary(rep, 'REPORTS_GET');
  const listed = all.find((s) => s.id === id);
  for (const f of SUMMARY_FIELDS) assert.deepEqual(rep[f], listed[f], `REPORTS_GET ${id}: ${f} differs from REPORTS_LIST`);
  assert.ok(Array.isArray(rep.sections) && rep.sections.length > 0, `REPORTS_GET ${id}: no sections`);
  rep.sections.forEach((sec, i) => checkSection(sec, `REPORTS_GET ${id} section ${i}`));
  out.get = { id, sectionTypes: rep.sections.map((s) => s.type) };

  // An unknown id is a tool result with isError and a message that names it.
  const missing = await call(client, 'REPORTS_GET', { id: 'no-such-report' });
  assert.equal(missing.isError, true, `unknown id: ${JSON.stringify(missing)}`);
  assert.match(missing.content[0].text, /no-such-report/, 'unknown id: the message does not name the id');
  out.unknownIsError = true;

  // Dismiss it, then read it back through both tools.
  const upd = await callOK(client, 'REPORTS_UPDATE_STATUS', { reportId: id, lifecycleStatus: 'dismissed' });
  assert.equal(upd.success, true, `REPORTS_UPDATE_STATUS: ${JSON.stringify(upd)}`);
  const updMissing = await callOK(client, 'REPORTS_UPDATE_STATUS', { reportId: 'no-such-report', lifecycleStatus: 'read' });
  assert.equal(updMissing.success, false, `update of an unknown id: ${JSON.stringify(updMissing)}`);

  const again = await callOK(client, 'REPORTS_GET', { id });
  assert.equal(again.lifecycleStatus, 'dismissed', `REPORTS_GET after dismiss: ${again.lifecycleStatus}`);
  assert.deepEqual(again.sections, rep.sections, 'sections changed with the lifecycle status');
  const after = (await callOK(client, 'REPORTS_LIST', {})).reports;
  assert.deepEqual(ids(after), ids(all), 'REPORTS_LIST order changed after the update');
  for (const s of after) {
    assert.equal(s.lifecycleStatus, s.id === id ? 'dismissed' : 'unread', `REPORTS_LIST after dismiss: ${s.id} is ${s.lifecycleStatus}`);
  }
  const dismissed = (await callOK(client, 'REPORTS_LIST', { lifecycleStatus: 'dismissed' })).reports;
  assert.deepEqual(ids(dismissed), [id], 'lifecycleStatus=dismissed filter');
  out.dismissed = id;
  return out;
}

async function main() {
  let transport;
  let negotiated;
  if (opts.transport === 'stdio') {
    for (const k of ['server', 'dir', 'data']) assert.ok(opts[k], `--${k} is required with --transport stdio`);
    transport = new StdioClientTransport({
      command: opts.server,
      args: ['-stdio', '-dir', opts.dir, '-data', opts.data],
      stderr: 'inherit',
    });
    // The stdio transport has no use for the negotiated version; record it anyway.
    transport.setProtocolVersion = (v) => { negotiated = v; };
  } else if (opts.transport === 'http') {
    assert.ok(opts.url, '--url is required with --transport http');
    transport = new StreamableHTTPClientTransport(new URL(opts.url));
  } else {
    throw new Error(`--transport must be stdio or http, not ${opts.transport}`);
  }

  const client = new Client({ name: 'wiremcp-reports-tsclient', version: '0.0.0' });
  activeClient = client;
  client.onerror = (err) => console.error('client.mjs: transport error:', err);
  await client.connect(transport, { timeout: REQUEST_TIMEOUT_MS });
  if (opts.transport === 'http') negotiated = transport.protocolVersion;
  const server = client.getServerVersion();
  assert.ok(server?.name, 'the server sent no serverInfo.name');
  assert.ok(client.getServerCapabilities()?.tools, 'the server did not declare the tools capability');

  const out = await exercise(client);

  const summary = {
    ok: true,
    transport: opts.transport,
    node: process.version,
    sdk: sdkVersion,
    sdkLatestProtocolVersion: LATEST_PROTOCOL_VERSION,
    protocolVersion: negotiated,
    server: { name: server.name, version: server.version },
    ...out,
  };
  if (opts.transport === 'http') {
    summary.sessionId = transport.sessionId ?? null;
    await transport.terminateSession(); // DELETE /mcp; throws on an unexpected status
    summary.sessionTerminated = transport.sessionId === undefined;
    await client.close();
  } else {
    // Closing ends the server's stdin. The SDK waits 2 s for the process to exit, then
    // sends SIGTERM; a server that exits on end of input is gone well before that.
    const pid = transport.pid;
    const start = performance.now();
    await client.close();
    summary.closeMs = Math.round(performance.now() - start);
    let alive = true;
    try { process.kill(pid, 0); } catch { alive = false; }
    summary.serverExited = !alive;
  }
  console.log(JSON.stringify(summary));
}

main().then(
  () => process.exit(0),
  async (err) => {
    console.error('client.mjs: FAILED:', err?.stack ?? err);
    // Close the connection before exiting; the SDK's stdio close takes at most ~4 s.
    const closed = activeClient?.close().catch(() => {});
    await Promise.race([closed, new Promise((resolve) => setTimeout(resolve, 5000).unref())]);
    process.exit(1);
  },
);
