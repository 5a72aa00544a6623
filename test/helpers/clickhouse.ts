// Starts a private clickhouse-server (Debian's 18.16 in CI) on free ports with a temp data dir and a generated config.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

/** CI sets this: a missing clickhouse-server then fails the suite instead of skipping it. */
export const REQUIRE_ENV = 'PFWS_REQUIRE_CLICKHOUSE';

const CANDIDATES = ['/usr/sbin/clickhouse-server', '/usr/bin/clickhouse-server', '/usr/local/bin/clickhouse-server'];

/** The server binary: `CLICKHOUSE_SERVER_BIN`, else the Debian package's path, else null. */
export function clickhouseServerBinary(): string | null {
  const configured = process.env.CLICKHOUSE_SERVER_BIN;
  if (configured) return existsSync(configured) ? configured : null;
  return CANDIDATES.find((p) => existsSync(p)) ?? null;
}

export const clickhouseRequired = (): boolean => process.env[REQUIRE_ENV] === '1';

/**
 * Whether the server suite runs. It may be skipped only when the binary is absent and CI did not ask
 * for it; when CI asks and the binary is absent, {@link startClickHouse} throws and the suite fails.
 */
export const runServerSuite = (): boolean => clickhouseServerBinary() !== null || clickhouseRequired();

export interface ClickHouseServer {
  url: string;
  httpPort: number;
  dataDir: string;
  /** Stops the server (SIGKILL: an outage, not a clean shutdown); the data stays. */
  stop(): Promise<void>;
  /** Starts it again on the same ports and data. */
  start(): Promise<void>;
  /** Stops it and deletes its data. */
  cleanup(): Promise<void>;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

function config(dir: string, httpPort: number, tcpPort: number): string {
  const data = `${dir}/data/`;
  return `<?xml version="1.0"?>
<yandex>
  <logger><level>warning</level><console>1</console></logger>
  <listen_host>127.0.0.1</listen_host>
  <http_port>${httpPort}</http_port>
  <tcp_port>${tcpPort}</tcp_port>
  <path>${data}</path>
  <tmp_path>${data}tmp/</tmp_path>
  <user_files_path>${data}user_files/</user_files_path>
  <format_schema_path>${data}format_schemas/</format_schema_path>
  <mark_cache_size>67108864</mark_cache_size>
  <uncompressed_cache_size>67108864</uncompressed_cache_size>
  <max_concurrent_queries>50</max_concurrent_queries>
  <timezone>UTC</timezone>
  <default_profile>default</default_profile>
  <default_database>default</default_database>
  <users>
    <default>
      <password></password>
      <networks><ip>127.0.0.1</ip></networks>
      <profile>default</profile>
      <quota>default</quota>
    </default>
  </users>
  <profiles><default><max_threads>2</max_threads></default></profiles>
  <quotas><default></default></quotas>
</yandex>
`;
}

async function answers(url: string): Promise<boolean> {
  try {
    const res = await fetch(`${url}/ping`, { signal: AbortSignal.timeout(1000) });
    return res.ok;
  } catch {
    return false;
  }
}

/**
 * Starts a clickhouse-server of its own.
 * @throws when the binary is absent (the suite must fail, not pass vacuously) or it does not answer
 */
export async function startClickHouse(): Promise<ClickHouseServer> {
  const bin = clickhouseServerBinary();
  if (!bin)
    throw new Error(
      `clickhouse-server not found (install Debian's clickhouse-server, or set CLICKHOUSE_SERVER_BIN); ${REQUIRE_ENV}=${process.env[REQUIRE_ENV] ?? ''}`,
    );
  const dir = mkdtempSync(path.join(os.tmpdir(), 'pfws-clickhouse-'));
  const [httpPort, tcpPort] = [await freePort(), await freePort()];
  const configFile = path.join(dir, 'config.xml');
  writeFileSync(configFile, config(dir, httpPort, tcpPort));
  const url = `http://127.0.0.1:${httpPort}`;
  let child: ChildProcess | null = null;
  let output = '';
  const killOnExit = () => child?.kill('SIGKILL');
  process.once('exit', killOnExit);

  const start = async () => {
    output = '';
    const proc = spawn(bin, [`--config-file=${configFile}`], { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
    child = proc;
    proc.stdout?.on('data', (b: Buffer) => (output += b.toString()));
    proc.stderr?.on('data', (b: Buffer) => (output += b.toString()));
    const deadline = Date.now() + 30_000;
    while (!(await answers(url))) {
      if (proc.exitCode !== null || Date.now() > deadline) {
        proc.kill('SIGKILL');
        throw new Error(`clickhouse-server did not start (exit ${proc.exitCode}): ${output.slice(-2000)}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  };
  const stop = async () => {
    const proc = child;
    child = null;
    if (!proc || proc.exitCode !== null) return;
    const exited = new Promise((resolve) => proc.once('exit', resolve));
    proc.kill('SIGKILL');
    await exited;
  };

  await start();
  return {
    url,
    httpPort,
    dataDir: dir,
    stop,
    start,
    async cleanup() {
      await stop();
      process.removeListener('exit', killOnExit);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
