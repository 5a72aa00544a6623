// Cacheable bytes for static-like reads (tiles, the checkpoint): a strong ETag over the bytes, and 304 when a
// conditional GET already holds them (RFC 9110 §13.1.2, weak comparison as If-None-Match requires).
import { hash } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';

/** A strong validator: the bytes' SHA-256, so equal bytes on any host (or a mirror) carry the same tag. */
export const etagOf = (bytes: Uint8Array): string => `"${hash('sha256', bytes, 'base64url')}"`;

/** Whether an If-None-Match header value names `etag` (or is `*`). */
export function matchesEtag(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  return header.split(',').some((tag) => {
    const t = tag.trim();
    return t === '*' || (t.startsWith('W/') ? t.slice(2) : t) === etag;
  });
}

/**
 * ETags of immutable bytes by name, so that serving them again hashes nothing; bounded, and emptied when full.
 */
export class EtagMemo {
  readonly #tags = new Map<string, string>();
  constructor(readonly limit = 100_000) {}
  of(name: string, bytes: Uint8Array): string {
    let tag = this.#tags.get(name);
    if (tag === undefined) {
      tag = etagOf(bytes);
      if (this.#tags.size >= this.limit) this.#tags.clear();
      this.#tags.set(name, tag);
    }
    return tag;
  }
}

export function sendCacheable(
  request: FastifyRequest,
  reply: FastifyReply,
  bytes: Uint8Array,
  cacheControl: string,
  type: string,
  etag = etagOf(bytes),
): FastifyReply {
  reply.header('cache-control', cacheControl).header('etag', etag);
  if (matchesEtag(request.headers['if-none-match'], etag)) return reply.code(304).send();
  return reply.type(type).send(Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length));
}
