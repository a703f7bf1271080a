// client.mjs drives examples/gateway with the official MCP TypeScript SDK client, over
// Streamable HTTP (/mcp/{server}) or the legacy HTTP+SSE route (/mcp/{server}/sse):
// upstream stdio MCP servers (examples/echo-server, and the test binary's richer
// one), a command tool, a static resource and a prompt.
//
//   node client.mjs --transport http|sse --base http://127.0.0.1:PORT
//
// Every check is a node:assert assertion. On success it prints one JSON summary line
// on stdout and exits 0; on any failure it prints the error on stderr and exits 1.

import assert from 'node:assert/strict';
import { parseArgs } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';

const { values: opts } = parseArgs({
  options: { transport: { type: 'string' }, base: { type: 'string' } },
  strict: true,
});
const watchdog = setTimeout(() => {
  console.error('client.mjs: gave up after 60 s');
  process.exit(2);
}, 60_000);
watchdog.unref();

function transportFor(server) {
  const url = new URL(`${opts.base}/mcp/${server}${opts.transport === 'sse' ? '/sse' : ''}`);
  return opts.transport === 'sse' ? new SSEClientTransport(url) : new StreamableHTTPClientTransport(url);
}

async function connect(server, capabilities = {}) {
  const client = new Client({ name: 'gateway-tsclient', version: '1.0.0' }, { capabilities });
  await client.connect(transportFor(server));
  return client;
}

function text(res) {
  return res.content.filter((c) => c.type === 'text').map((c) => c.text).join('');
}

const summary = { ok: false, transport: opts.transport };

// examples/echo-server over stdio behind the gateway.
const echo = await connect('echo');
summary.echoTools = (await echo.listTools()).tools.map((t) => t.name);
assert.deepEqual(summary.echoTools, ['echo']);
summary.echo = text(await echo.callTool({ name: 'echo', arguments: { message: 'echo from TS' } }));
assert.equal(summary.echo, 'echo from TS');
await echo.close();

// The test binary's upstream, with elicitation travelling through.
const up = await connect('up', { elicitation: {} });
up.setRequestHandler(ElicitRequestSchema, async () => ({ action: 'accept', content: { name: 'TS' } }));
summary.protocolVersion = up.transport.protocolVersion ?? null;
summary.server = up.getServerVersion();
summary.upTools = (await up.listTools()).tools.map((t) => t.name).sort();
assert.ok(summary.upTools.includes('say'), 'renamed echo tool listed');
summary.say = text(await up.callTool({ name: 'say', arguments: { message: 'hello from TS' } }));
assert.equal(summary.say, 'hello from TS');
summary.ask = text(await up.callTool({ name: 'ask', arguments: {} }));
const progress = [];
summary.progressResult = text(await up.callTool({ name: 'progress', arguments: {} }, undefined, {
  onprogress: (p) => progress.push(p.progress),
}));
summary.progress = progress;
const note = await up.readResource({ uri: 'demo://note' });
summary.note = note.contents[0].text;
await up.close();

// Command tools, a static resource and a templated prompt.
const tools = await connect('tools');
summary.greet = text(await tools.callTool({ name: 'greet', arguments: { name: 'Node' } }));
const fail = await tools.callTool({ name: 'fail', arguments: {} });
summary.failIsError = fail.isError === true;
summary.failText = text(fail);
summary.resource = (await tools.readResource({ uri: 'test://text' })).contents[0].text;
const prompt = await tools.getPrompt({ name: 'p', arguments: { topic: 'gateways' } });
summary.prompt = prompt.messages[0].content.text;
await tools.close();

summary.ok = true;
console.log(JSON.stringify(summary));
clearTimeout(watchdog);
