// A TCP proxy in front of the suite's Redis that can lose one reply: it lets a matching command through, drops
// what Redis answers, and cuts the connection, as a reset link or a failover does after a command has run.
import { createServer, connect, type Server, type Socket } from 'node:net';

interface Trap {
  match: (request: Buffer) => boolean;
  sprung: () => void;
}

export class ReplyLossProxy {
  #server: Server | null = null;
  #trap: Trap | null = null;
  #holdMs = 300;
  readonly #sockets = new Set<Socket>();
  port = 0;

  constructor(readonly upstreamPort: () => number) {}

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  async start(): Promise<void> {
    const server = createServer((client) => this.#pipe(client));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    this.port = (server.address() as { port: number }).port;
    this.#server = server;
  }

  /**
   * The next request chunk that `match`es goes through; Redis's answers on that connection are then dropped for
   * `holdMs` (time for Redis to run it) and the connection is cut. Resolves once it has happened.
   */
  loseNextReply(match: (request: Buffer) => boolean, holdMs = 300): Promise<void> {
    return new Promise((resolve) => {
      this.#trap = { match, sprung: resolve };
      this.#holdMs = holdMs;
    });
  }

  /** Takes back a trap that never sprang. */
  disarm(): void {
    this.#trap = null;
  }

  #pipe(client: Socket): void {
    const upstream = connect(this.upstreamPort(), '127.0.0.1');
    this.#sockets.add(client);
    this.#sockets.add(upstream);
    let dropping = false;
    const close = () => {
      client.destroy();
      upstream.destroy();
      this.#sockets.delete(client);
      this.#sockets.delete(upstream);
    };
    client.on('data', (chunk: Buffer) => {
      upstream.write(chunk);
      const trap = this.#trap;
      if (trap && !dropping && trap.match(chunk)) {
        this.#trap = null;
        dropping = true;
        setTimeout(() => {
          close();
          trap.sprung();
        }, this.#holdMs);
      }
    });
    upstream.on('data', (chunk) => {
      if (!dropping) client.write(chunk);
    });
    client.on('error', close);
    upstream.on('error', close);
    client.on('close', close);
    upstream.on('close', close);
  }

  async close(): Promise<void> {
    for (const s of this.#sockets) s.destroy();
    await new Promise<void>((resolve) => (this.#server ? this.#server.close(() => resolve()) : resolve()));
  }
}

/** A request chunk that runs a Lua script (EVALSHA or EVAL) naming `text`. */
export const scriptNaming =
  (text: string) =>
  (request: Buffer): boolean => {
    const s = request.toString('latin1');
    return s.includes(text) && /\r\n(evalsha|eval)\r\n/i.test(s);
  };

/** A request chunk with the command `name` naming `text`. */
export const commandNaming =
  (name: string, text: string) =>
  (request: Buffer): boolean => {
    const s = request.toString('latin1');
    return s.includes(text) && new RegExp(`\\r\\n${name}\\r\\n`, 'i').test(s);
  };
