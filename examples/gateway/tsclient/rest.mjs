// rest.mjs drives a gateway server bridging the demo knowledge-base API (a "rest"
// server) with the official MCP TypeScript SDK client over Streamable HTTP: it lists
// the bridged tools and calls them (the SDK checks structuredContent against each
// tool's outputSchema), including calls the gateway must refuse.
//
//   node rest.mjs --url http://127.0.0.1:PORT/mcp/kb --project UUID --entity UUID
//
// Every check is a node:assert assertion. On success it prints one JSON summary line
// on stdout and exits 0; on any failure it prints the error on stderr and exits 1.

import assert from 'node:assert/strict';
import { parseArgs } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

const { values: opts } = parseArgs({
  options: { url: { type: 'string' }, project: { type: 'string' }, entity: { type: 'string' } },
  strict: true,
});
const watchdog = setTimeout(() => {
  console.error('rest.mjs: gave up after 60 s');
  process.exit(2);
}, 60_000);
watchdog.unref();

const client = new Client({ name: 'gateway-rest-tsclient', version: '1.0.0' });
await client.connect(new StreamableHTTPClientTransport(new URL(opts.url)));
const summary = { ok: false };

const { tools } = await client.listTools();
summary.tools = tools.map((t) => t.name).sort();
for (const t of tools) {
  assert.equal(t.annotations?.readOnlyHint, true, `${t.name} is read-only`);
  assert.equal(t.outputSchema?.type, 'object', `${t.name} has an output schema`);
}

const projects = await client.callTool({ name: 'list_projects', arguments: { limit: 2 } });
assert.notEqual(projects.isError, true);
summary.projectSlugs = projects.structuredContent.data.map((p) => p.slug);
summary.projectsPagination = projects.structuredContent.pagination;
assert.deepEqual(JSON.parse(projects.content[0].text), projects.structuredContent);

const graph = await client.callTool({ name: 'get_entity_graph', arguments: { projectId: opts.project, entityId: opts.entity, depth: 2 } });
assert.notEqual(graph.isError, true);
summary.graphRoot = graph.structuredContent.data.rootEntity.id;
summary.graphEdges = graph.structuredContent.data.relationships.length;

const bad = await client.callTool({ name: 'search_entities', arguments: { projectId: opts.project, entityType: 'blog' } });
summary.badEnumIsError = bad.isError === true;
summary.badEnumText = bad.content[0].text;

const missing = await client.callTool({ name: 'get_entity', arguments: { projectId: opts.project, entityId: 'e0000009-0000-4000-8000-000000000001' } });
summary.missingIsError = missing.isError === true;
summary.missingCode = missing.structuredContent?.error?.code ?? null;

await client.close();
summary.ok = true;
console.log(JSON.stringify(summary));
clearTimeout(watchdog);
