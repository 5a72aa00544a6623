// `/api/mcp`: MCP Streamable HTTP, stateless (design §7, §9). The bearer token names the wallet; each POST gets its
// own server and transport, and Fastify hands the raw request and response to the transport.
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { agentServer, type McpParts } from './tools.ts';

/** Stateless: no stream to resume and no session to end, so only POST is served (as the SDK's stateless example does). */
function methodNotAllowed(_request: FastifyRequest, reply: FastifyReply) {
  void reply
    .code(405)
    .header('allow', 'POST')
    .type('application/json')
    .send({ jsonrpc: '2.0', error: { code: -32000, message: 'Method not allowed: this MCP endpoint is stateless; POST JSON-RPC messages' }, id: null });
}

export default async function mcpRoutes(app: FastifyInstance, parts: McpParts) {
  // JSON-RPC, not REST: the transport answers protocol errors in JSON-RPC, so the route stays out of the OpenAPI
  // document (whose routes all speak the REST envelope); the README describes it.
  const schema = { hide: true };

  app.post('/mcp', { onRequest: app.requireWallet, schema }, async (request, reply) => {
    const server = agentServer(parts, request.wallet, request.log, request.ip);
    // JSON answers, not an SSE stream: every tool call is one request and one response.
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    reply.hijack();
    reply.raw.on('close', () => {
      void transport.close();
      void server.close();
    });
    try {
      await server.connect(transport);
      await transport.handleRequest(request.raw, reply.raw, request.body);
    } catch (err) {
      request.log.error({ err }, 'mcp request failed');
      if (!reply.raw.headersSent) {
        reply.raw.writeHead(500, { 'content-type': 'application/json' });
        reply.raw.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32603, message: 'Internal error' }, id: null }));
      }
    }
  });
  app.get('/mcp', { onRequest: app.requireWallet, schema }, methodNotAllowed);
  app.delete('/mcp', { onRequest: app.requireWallet, schema }, methodNotAllowed);
}
