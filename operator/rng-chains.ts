// The operator's RNG chain secrets, one file per chain under <dataDir>/rng, loaded lazily by id.
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { chainCheckpoints, RngChain } from '../protocol/rng-chain.ts';
import { fromHex, toHex } from '../protocol/encoding.ts';
import { inTurns } from './in-turns.ts';

interface ChainFile {
  chainId: number;
  secret: string;
  length: number;
  head: string;
  checkpointInterval?: number;
  checkpoints?: string[];
}

const CHECKPOINT_INTERVAL = 1024;
// About 10 ms of hashing between two turns of the event loop.
const SLICE_HASHES = 8192;

export class RngChains {
  readonly #dir: string;
  readonly #loaded = new Map<number, RngChain>();
  readonly #creating = new Set<number>();

  constructor(dir: string) {
    this.#dir = dir;
  }

  #file(chainId: number): string {
    return path.join(this.#dir, `chain-${chainId}.json`);
  }

  ids(): number[] {
    if (!existsSync(this.#dir)) return [];
    return readdirSync(this.#dir)
      .map((f) => /^chain-(\d+)\.json$/.exec(f)?.[1])
      .filter((id): id is string => id !== undefined)
      .map(Number)
      .sort((a, b) => a - b);
  }

  /**
   * Draws a new secret s_N; the head is computed and stored with it. The hashing (one per index, about 1 s per
   * million) runs in slices with the event loop free between them, so a rollover never stalls the process that
   * makes it (in the all-in-one mode: the analytics answers, the local chain, anchoring).
   * @throws when the chain exists, or is being created here already
   */
  async create(chainId: number, length: number): Promise<RngChain> {
    if (existsSync(this.#file(chainId)) || this.#creating.has(chainId)) throw new Error(`rng chain ${chainId} already exists`);
    this.#creating.add(chainId);
    try {
      return await this.#create(chainId, length);
    } finally {
      this.#creating.delete(chainId);
    }
  }

  async #create(chainId: number, length: number): Promise<RngChain> {
    const secret = new Uint8Array(randomBytes(32));
    const checkpoints = await inTurns(chainCheckpoints(secret, length, CHECKPOINT_INTERVAL, SLICE_HASHES));
    const chain = new RngChain({ secret, length, checkpointInterval: CHECKPOINT_INTERVAL, checkpoints });
    if (existsSync(this.#file(chainId))) throw new Error(`rng chain ${chainId} already exists`);
    mkdirSync(this.#dir, { recursive: true });
    const file: ChainFile = {
      chainId,
      secret: toHex(secret),
      length,
      head: chain.headHex,
      checkpointInterval: CHECKPOINT_INTERVAL,
      checkpoints: chain.checkpoints().map(toHex),
    };
    const tmp = `${this.#file(chainId)}.tmp`;
    writeFileSync(tmp, JSON.stringify(file), { mode: 0o600 });
    renameSync(tmp, this.#file(chainId));
    this.#remember(chainId, chain);
    return chain;
  }

  /** @throws when the chain's secret is not on this host */
  get(chainId: number): RngChain {
    let chain = this.#loaded.get(chainId);
    if (!chain) {
      const file = JSON.parse(readFileSync(this.#file(chainId), 'utf8')) as ChainFile;
      chain = new RngChain({
        secret: fromHex(file.secret, 32),
        length: file.length,
        checkpointInterval: file.checkpointInterval ?? CHECKPOINT_INTERVAL,
        ...(file.checkpoints ? { checkpoints: file.checkpoints.map((c) => fromHex(c, 32)) } : {}),
      });
      if (chain.headHex !== file.head) throw new Error(`rng chain ${chainId}: stored head does not match its secret`);
      this.#remember(chainId, chain);
    }
    return chain;
  }

  #remember(chainId: number, chain: RngChain): void {
    this.#loaded.set(chainId, chain);
    // Bets settle on the current chain and, briefly after a rollover, the previous one.
    for (const id of this.#loaded.keys()) if (this.#loaded.size > 3 && id !== chainId) this.#loaded.delete(id);
  }
}
