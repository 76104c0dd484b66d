// The floor for the one-client figure of bench/anchor.ts: what an MCP server in its own process adds to a call when
// it does nothing but forward it. Plain node:http and undici's request, no framework, no validation, no guards: it answers the SDK client's
// initialize, takes notifications, and forwards a tools/call's get-record arguments to the store emulator
// (FLOOR_UPSTREAM, with FLOOR_TOKEN), answering with the record as text and structured content, as our tool does.
// Not a server anyone should run: only a measure of what the second hop itself costs on this machine.

import { createServer } from 'node:http';
import { request } from 'undici';

const upstream = process.env.FLOOR_UPSTREAM;
const authorization = `Bearer ${process.env.FLOOR_TOKEN}`;

async function answer(message) {
  if (message.method === 'initialize') {
    return {
      protocolVersion: message.params.protocolVersion,
      capabilities: { tools: {} },
      serverInfo: { name: 'floor', version: '1' },
    };
  }
  const { baseId, tableId, recordId } = message.params.arguments;
  const path = [baseId, tableId, recordId].map(encodeURIComponent).join('/');
  const response = await request(`${upstream}/v0/${path}`, { headers: { authorization } });
  const record = await response.body.json();
  return { content: [{ type: 'text', text: JSON.stringify(record) }], structuredContent: record };
}

const server = createServer((req, res) => {
  const chunks = [];
  req.on('data', (chunk) => chunks.push(chunk));
  req.on('end', async () => {
    if (req.method !== 'POST') return res.writeHead(405).end();
    const message = JSON.parse(Buffer.concat(chunks).toString());
    if (message.id === undefined) return res.writeHead(202).end();
    const body = JSON.stringify({ result: await answer(message), jsonrpc: '2.0', id: message.id });
    res
      .writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) })
      .end(body);
  });
});
server.listen(0, '127.0.0.1', () =>
  console.log(`floor listening on http://127.0.0.1:${server.address().port}/mcp`),
);
