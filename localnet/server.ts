// HTTP transport: JSON-RPC 2.0 envelope (single and batch), CORS for browser wallets, /health.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { RpcError } from './errors.ts';
import type { Logger } from './history.ts';
import { stringify, type Json } from './json.ts';
import type { Rpc } from './rpc.ts';

const MAX_BODY_BYTES = 10 * 1024 * 1024;

type Obj = { [k: string]: Json };
type Id = string | number | null;

const CORS = {
  'access-control-allow-origin': '*',
  'access-control-allow-methods': 'POST, GET, OPTIONS',
  'access-control-allow-headers': 'content-type, solana-client',
  'access-control-max-age': '86400',
};

function errorResponse(id: Id, code: number, message: string, data?: Json): Obj {
  const error: Obj = { code, message };
  if (data !== undefined) error.data = data;
  return { jsonrpc: '2.0', error, id };
}

function isObj(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

async function handleOne(rpc: Rpc, req: unknown, log: Logger): Promise<Obj | null> {
  if (!isObj(req) || req.jsonrpc !== '2.0' || typeof req.method !== 'string') {
    return errorResponse(null, -32600, 'Invalid request');
  }
  const rawId = req.id;
  const isNotification = !('id' in req);
  if (!isNotification && rawId !== null && typeof rawId !== 'string' && typeof rawId !== 'number') {
    return errorResponse(null, -32600, 'Invalid request');
  }
  const id: Id = (rawId as Id | undefined) ?? null;
  const method = req.method;
  const params = req.params ?? [];
  let response: Obj;
  if (!Object.hasOwn(rpc.handlers, method)) {
    response = errorResponse(id, -32601, 'Method not found');
  } else if (!Array.isArray(params)) {
    response = errorResponse(id, -32602, 'Invalid params: invalid type: map, expected a sequence');
  } else {
    try {
      const handler = rpc.handlers[method];
      const result = handler ? await handler(params) : null;
      response = { jsonrpc: '2.0', result, id };
    } catch (e) {
      if (e instanceof RpcError) {
        response = errorResponse(id, e.code, e.message, e.data);
      } else {
        log.error({ err: e, method }, 'localnet: internal error');
        response = errorResponse(id, -32603, 'Internal error');
      }
    }
  }
  // A crash must not take back what a client was told (localnet/rpc.ts `durable`).
  await rpc.durable();
  return isNotification ? null : response;
}

function readBody(req: IncomingMessage): Promise<Buffer | null> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > MAX_BODY_BYTES) {
        resolve(null);
        req.destroy();
        return;
      }
      chunks.push(c);
    });
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

function send(res: ServerResponse, status: number, body: string, type = 'application/json; charset=utf-8'): void {
  res.writeHead(status, { ...CORS, 'content-type': type, 'content-length': Buffer.byteLength(body) });
  res.end(body);
}

export function createRpcServer(rpc: Rpc, log: Logger): Server {
  return createServer((req, res) => {
    void (async () => {
      if (req.method === 'OPTIONS') {
        res.writeHead(204, CORS);
        res.end();
        return;
      }
      if (req.method === 'GET') {
        if (req.url === '/health') send(res, 200, 'ok', 'text/plain; charset=utf-8');
        else send(res, 405, 'Used HTTP Method is not allowed. POST or OPTIONS is required', 'text/plain; charset=utf-8');
        return;
      }
      if (req.method !== 'POST') {
        send(res, 405, 'Used HTTP Method is not allowed. POST or OPTIONS is required', 'text/plain; charset=utf-8');
        return;
      }
      const body = await readBody(req);
      if (body === null) {
        send(res, 413, 'Payload Too Large', 'text/plain; charset=utf-8');
        return;
      }
      let parsed: unknown;
      try {
        parsed = JSON.parse(body.toString('utf8'));
      } catch {
        send(res, 200, stringify(errorResponse(null, -32700, 'Parse error')));
        return;
      }
      if (Array.isArray(parsed)) {
        if (parsed.length === 0) {
          send(res, 200, stringify(errorResponse(null, -32600, 'Invalid request')));
          return;
        }
        const out: Obj[] = [];
        for (const item of parsed) {
          const r = await handleOne(rpc, item, log);
          if (r) out.push(r);
        }
        send(res, 200, out.length ? stringify(out) : '');
        return;
      }
      const r = await handleOne(rpc, parsed, log);
      send(res, 200, r ? stringify(r) : '');
    })().catch((e: unknown) => {
      log.error({ err: e }, 'localnet: request failed');
      if (!res.headersSent) send(res, 500, stringify(errorResponse(null, -32603, 'Internal error')));
      else res.destroy();
    });
  });
}
