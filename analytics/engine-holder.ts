/**
 * Opens the analytics engine on first use and keeps it: start-up never waits for ClickHouse, and while it cannot be
 * opened each caller learns so at once (an {@link EngineError}), with a new attempt at most every `retryMs`.
 * @module
 */
import { EngineError, type AnalyticsEngine } from './engine.ts';

export class EngineHolder {
  private engine: AnalyticsEngine | null = null;
  private opening: Promise<AnalyticsEngine> | null = null;
  private failure: { at: number; error: EngineError } | null = null;
  private closed = false;

  /**
   * @param open - opens the engine (chDB under the data dir, or a server)
   * @param retryMs - after a failed open, callers get that failure for this long before the next attempt
   */
  constructor(
    private readonly open: () => Promise<AnalyticsEngine>,
    private readonly retryMs = 1_000,
  ) {}

  /** The engine when it is open, else null (nothing is attempted). */
  current(): AnalyticsEngine | null {
    return this.engine;
  }

  /**
   * The engine, opened now if it is not yet.
   * @throws {EngineError} while it cannot be opened, or after {@link close}
   */
  async get(): Promise<AnalyticsEngine> {
    if (this.engine) return this.engine;
    if (this.closed) throw new EngineError('the analytics engine is closed');
    if (this.failure && performance.now() - this.failure.at < this.retryMs) throw this.failure.error;
    this.opening ??= this.open().then(
      (engine) => {
        this.opening = null;
        this.failure = null;
        if (this.closed) {
          void engine.close();
          throw new EngineError('the analytics engine is closed');
        }
        this.engine = engine;
        return engine;
      },
      (err: unknown) => {
        this.opening = null;
        const error = err instanceof EngineError ? err : new EngineError(`cannot open the analytics engine: ${(err as Error).message}`, { cause: err });
        this.failure = { at: performance.now(), error };
        throw error;
      },
    );
    return this.opening;
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.opening?.catch(() => {});
    const engine = this.engine;
    this.engine = null;
    await engine?.close();
  }
}
