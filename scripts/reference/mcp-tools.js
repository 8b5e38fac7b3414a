// The MCP tools as an agent's client sees them: the server (dist/mcp/server.js) asked over an
// in-memory transport, so names, descriptions, annotations and input schemas are what tools/list
// answers. Listing runs no tool: the options below are never used to send or read anything.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';

/** The server's instructions and each tool as tools/list gives it. */
export async function describeMcpTools(dist) {
  const server = dist.mcp.createMcpServer({
    extract: { apiKey: 'sk_00000000000000000000000000000000', baseUrl: 'http://127.0.0.1:1', stateDir: '/nonexistent', cwd: '/', out: '/out' },
    client: () => Promise.reject(new Error('the reference lists the tools; it calls none')),
  });
  const [serverSide, clientSide] = InMemoryTransport.createLinkedPair();
  const client = new Client({ name: 'docextract-reference', version: '0' });
  await server.connect(serverSide);
  await client.connect(clientSide);
  try {
    const { tools } = await client.listTools();
    return { instructions: client.getInstructions() ?? '', tools };
  } finally {
    await client.close();
    await server.close();
  }
}
