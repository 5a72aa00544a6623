/**
 * Questions an API process forked by `node:cluster` asks the main process, which holds what API processes do not: the
 * chDB engine (analytics/cluster-ipc.ts) and the worker's newest state trees (funding/state-proof.ts). Each kind of
 * question has its own message types on the one channel; each question has a request id, and one left unanswered for
 * `timeoutMs` fails.
 * @module
 */
import { isErrorCode, PfwsError } from '../protocol/errors.ts';

/** The API process's end of the channel (`process` in a cluster worker). */
export interface IpcChannel {
  send?(message: unknown): boolean;
  on(event: 'message', listener: (message: unknown) => void): unknown;
  off(event: 'message', listener: (message: unknown) => void): unknown;
}

/** A forked process as the main process sees it. */
export interface IpcPeer {
  send(message: unknown): boolean;
}

/** The main process's view of its cluster (`node:cluster`'s primary). */
export interface IpcHub {
  on(event: 'message', listener: (peer: IpcPeer, message: unknown) => void): unknown;
  off(event: 'message', listener: (peer: IpcPeer, message: unknown) => void): unknown;
}

interface Request {
  type: string;
  id: number;
  method: string;
  query: Record<string, unknown>;
}

type Reply =
  | { type: string; id: number; ok: true; value: unknown }
  | { type: string; id: number; ok: false; error: { code: string; message: string; details?: Record<string, unknown>; headers?: Record<string, string> } };

const requestType = (kind: string) => `pfws:${kind}:request`;
const replyType = (kind: string) => `pfws:${kind}:reply`;

/**
 * Answers one kind of question with `methods` (only their own names: a request naming another is ignored). An answer
 * that throws crosses as its `PfwsError` (code, message, details and headers), or as `failure(err)`.
 * @returns a function that stops answering
 */
export function serveIpc(
  hub: IpcHub,
  kind: string,
  methods: Readonly<Record<string, (query: Record<string, unknown>) => Promise<unknown>>>,
  failure: (err: unknown) => PfwsError,
): () => void {
  const type = requestType(kind);
  const reply = replyType(kind);
  const listener = (peer: IpcPeer, message: unknown) => {
    const m = message as Request;
    if (typeof m !== 'object' || m === null || m.type !== type || !Number.isSafeInteger(m.id)) return;
    if (typeof m.method !== 'string' || !Object.hasOwn(methods, m.method)) return;
    const { id } = m;
    Promise.resolve()
      .then(() => methods[m.method]!(m.query ?? {}))
      .then(
        (value) => safeSend(peer, { type: reply, id, ok: true, value: value ?? null }),
        (err: unknown) => {
          const e = err instanceof PfwsError ? err : failure(err);
          const error = {
            code: e.code,
            message: e.message,
            ...(e.details ? { details: e.details } : {}),
            ...(e.extras.headers ? { headers: e.extras.headers } : {}),
          };
          safeSend(peer, { type: reply, id, ok: false, error });
        },
      );
  };
  hub.on('message', listener);
  return () => hub.off('message', listener);
}

function safeSend(peer: IpcPeer, reply: Reply): void {
  try {
    peer.send(reply);
  } catch {
    // The process went away; it has no one left to answer.
  }
}

/** An API process's end: asks the main process one kind of question. */
export class IpcAsker {
  private nextId = 1;
  private readonly type: string;
  private readonly reply: string;
  private readonly pending = new Map<number, { resolve: (value: unknown) => void; reject: (err: Error) => void; timer: NodeJS.Timeout }>();
  private readonly listener = (message: unknown) => {
    const reply = message as Reply;
    if (typeof reply !== 'object' || reply === null || reply.type !== this.reply) return;
    const waiting = this.pending.get(reply.id);
    if (!waiting) return;
    this.pending.delete(reply.id);
    clearTimeout(waiting.timer);
    if (reply.ok) waiting.resolve(reply.value);
    else {
      const { code, message: text, details, headers } = reply.error;
      waiting.reject(new PfwsError(isErrorCode(code) ? code : 'SERVICE_UNAVAILABLE', text, details, headers ? { extras: { headers } } : undefined));
    }
  };

  /**
   * @param channel - `process` in a cluster worker
   * @param failure - the error for a question nobody answered (`why` says what happened)
   */
  constructor(
    private readonly channel: IpcChannel,
    kind: string,
    private readonly timeoutMs: number,
    private readonly failure: (why: Error) => Error,
  ) {
    this.type = requestType(kind);
    this.reply = replyType(kind);
    channel.on('message', this.listener);
  }

  ask(method: string, query: Record<string, unknown>): Promise<unknown> {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      if (!this.channel.send) {
        reject(this.failure(new Error('no IPC channel to the main process')));
        return;
      }
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(this.failure(new Error(`the main process did not answer within ${this.timeoutMs} ms`)));
      }, this.timeoutMs);
      this.pending.set(id, { resolve, reject, timer });
      try {
        this.channel.send({ type: this.type, id, method, query } satisfies Request);
      } catch {
        // The channel closed under it: the timeout answers.
      }
    });
  }

  close(): void {
    this.channel.off('message', this.listener);
    for (const [id, w] of this.pending) {
      clearTimeout(w.timer);
      w.reject(this.failure(new Error('closed')));
      this.pending.delete(id);
    }
  }
}
