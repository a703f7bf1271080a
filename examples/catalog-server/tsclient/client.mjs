// client.mjs drives examples/catalog-server with the official MCP TypeScript SDK
// client, as an AI client would: discover, describe, search, query.
//
//   node client.mjs --transport stdio --server BIN --catalog DIR
//   node client.mjs --transport http --url http://127.0.0.1:PORT/mcp
//
// Structural checks are node:assert assertions; the answers go into one JSON summary
// line on stdout, which ../tsclient_test.go compares with what the catalog holds.
// On any failure the script prints the error on stderr and exits 1.

import assert from 'node:assert/strict';
import { parseArgs } from 'node:util';
import { readFileSync } from 'node:fs';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

const REQUEST_TIMEOUT_MS = 20_000;
const OVERALL_TIMEOUT_MS = 90_000;

const { values: opts } = parseArgs({
  options: {
    transport: { type: 'string' },
    server: { type: 'string' },
    catalog: { type: 'string' },
    url: { type: 'string' },
  },
  strict: true,
});

const watchdog = setTimeout(() => {
  console.error(`client.mjs: gave up after ${OVERALL_TIMEOUT_MS} ms`);
  process.exit(2);
}, OVERALL_TIMEOUT_MS);
watchdog.unref();

const sdkVersion = JSON.parse(readFileSync(new URL('./node_modules/@modelcontextprotocol/sdk/package.json', import.meta.url), 'utf8')).version;

// call invokes a tool; a successful result must carry structuredContent and a text
// block with the same JSON (the SDK validates structuredContent against outputSchema).
async function call(client, name, args) {
  const res = await client.callTool({ name, arguments: args }, undefined, { timeout: REQUEST_TIMEOUT_MS });
  const text = res.content.find((c) => c.type === 'text');
  assert.ok(text, `${name}: result has no text block`);
  if (!res.isError) {
    assert.equal(typeof res.structuredContent, 'object', `${name}: no structuredContent`);
    assert.deepEqual(JSON.parse(text.text), res.structuredContent, `${name}: text block and structuredContent differ`);
  }
  return res;
}

async function main() {
  let transport;
  if (opts.transport === 'stdio') {
    transport = new StdioClientTransport({ command: opts.server, args: ['-stdio', '-catalog', opts.catalog], stderr: 'inherit' });
  } else if (opts.transport === 'http') {
    transport = new StreamableHTTPClientTransport(new URL(opts.url));
  } else {
    throw new Error('--transport stdio|http');
  }
  transport.onerror = (err) => console.error(`transport error: ${err}`);
  const client = new Client({ name: 'catalog-tsclient', version: '1.0.0' });
  await client.connect(transport, { timeout: REQUEST_TIMEOUT_MS });
  const summary = { ok: false, transport: opts.transport, sdk: sdkVersion, node: process.version };
  summary.protocolVersion = transport.protocolVersion ?? null;
  summary.server = client.getServerVersion();

  const tools = await client.listTools();
  summary.tools = tools.tools.map((t) => t.name).sort();
  for (const t of tools.tools) {
    assert.equal(t.annotations?.readOnlyHint, true, `${t.name} is not marked read-only`);
  }

  const projects = await call(client, 'list_catalog', {});
  summary.projects = projects.structuredContent.items.map((i) => `${i.kind} ${i.path}`);

  const src = await call(client, 'describe', { path: 'retail/shop/sales/orders' });
  summary.orders = {
    rowCount: src.structuredContent.rowCount,
    columns: src.structuredContent.columns.map((c) => `${c.name}:${c.type}`),
    samples: src.structuredContent.sampleRows.length,
  };

  const found = await call(client, 'search_catalog', { query: 'revenue' });
  summary.searchFirst = found.structuredContent.results[0]?.path ?? null;

  const q = await call(client, 'execute_query', { path: 'retail/shop/sales', sql: 'SELECT count(*) AS n, sum(quantity) AS units FROM orders' });
  assert.equal(q.structuredContent.truncated, false);
  summary.aggregate = q.structuredContent.rows[0];

  const named = await call(client, 'execute_query', { path: 'retail/shop/sales', queryName: 'revenue_by_month', parameters: { year: 2024 } });
  summary.namedRows = named.structuredContent.rowCount;

  const bad = await call(client, 'execute_query', { path: 'retail/shop/sale', sql: 'SELECT 1' });
  assert.equal(bad.isError, true, 'an unknown model is not an error');
  summary.unknownModel = { isError: bad.isError, suggestion: bad.structuredContent?.suggestions?.[0] ?? null };

  const refused = await call(client, 'execute_query', { path: 'retail/shop/sales', sql: "COPY orders TO '/tmp/x.csv'" });
  summary.copyRefused = refused.isError === true && refused.structuredContent?.kind === 'refused';

  const templates = await client.listResourceTemplates();
  summary.templates = templates.resourceTemplates.map((t) => t.uriTemplate).sort();
  const model = await client.readResource({ uri: 'catalog://model/retail/shop/sales' }, { timeout: REQUEST_TIMEOUT_MS });
  assert.equal(model.contents[0].mimeType, 'application/json');
  summary.modelSources = JSON.parse(model.contents[0].text).sources.map((s) => s.name);

  let listed = 0;
  let cursor;
  do {
    const page = await client.listResources(cursor ? { cursor } : {});
    listed += page.resources.length;
    cursor = page.nextCursor;
  } while (cursor);
  summary.resources = listed;

  if (opts.transport === 'stdio') {
    await client.close();
  } else {
    await transport.close();
  }
  summary.ok = true;
  console.log(JSON.stringify(summary));
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(err?.stack ?? String(err));
    process.exit(1);
  },
);
