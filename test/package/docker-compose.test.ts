// docker-compose.yml as an operator deploys it (no container engine here): it parses, its Redis is a primary and
// a replica that refuse writes without a replica, three Sentinels watch them, the services' Redis variables pass
// the service's own config validation, and the Sentinels' start-up script really runs a Sentinel.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Redis } from 'ioredis';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../config/env.ts';
import { freePort } from '../helpers/process.ts';

interface Service {
  command?: string[];
  environment?: Record<string, string | number>;
  depends_on?: Record<string, unknown>;
  volumes?: string[];
  healthcheck?: unknown;
}

const compose = parse(readFileSync(path.resolve(import.meta.dirname, '../../docker-compose.yml'), 'utf8'), { merge: true }) as {
  services: Record<string, Service>;
  volumes: Record<string, unknown>;
};
const { services } = compose;
const argAfter = (command: string[] | undefined, flag: string) => command?.[command.indexOf(flag) + 1];

describe('docker-compose.yml', () => {
  it('runs Redis as a primary and a replica, both with AOF and min-replicas-to-write 1', () => {
    for (const name of ['redis', 'redis-replica']) {
      const command = services[name]?.command;
      expect(argAfter(command, '--appendonly'), name).toBe('yes');
      expect(argAfter(command, '--min-replicas-to-write'), name).toBe('1');
      expect(Number(argAfter(command, '--min-replicas-max-lag')), name).toBeGreaterThan(0);
      expect(services[name]?.healthcheck, name).toBeDefined();
    }
    expect(services['redis-replica']?.command?.slice(services['redis-replica']!.command!.indexOf('--replicaof') + 1).slice(0, 2)).toEqual(['redis', '6379']);
  });

  it('watches them with three Sentinels, quorum 2, named as the services are told', () => {
    const env = services.api!.environment!;
    const sentinels = String(env.REDIS_SENTINELS).split(',');
    expect(sentinels).toHaveLength(3);
    for (const entry of sentinels) {
      const [host, port] = entry.split(':');
      const script = services[host!]?.command?.join(' ') ?? '';
      expect(script, host).toContain(`'port ${port}'`);
      expect(script, host).toContain(`'sentinel monitor ${env.REDIS_SENTINEL_NAME} redis 6379 2'`);
    }
  });

  it("gives every role Redis variables the service's own validation accepts: Sentinel mode, WAIT for one replica", () => {
    for (const role of ['api', 'indexer', 'worker']) {
      const env = Object.fromEntries(
        Object.entries(services[role]!.environment!)
          .filter(([k]) => k.startsWith('REDIS_'))
          .map(([k, v]) => [k, String(v)]),
      );
      const config = loadConfig(env);
      expect(config.redis.sentinels, role).toHaveLength(3);
      expect(config.REDIS_WAIT_REPLICAS, role).toBe(1);
      for (const dependency of ['redis', 'redis-replica', 'sentinel-1', 'sentinel-2', 'sentinel-3'])
        expect(services[role]!.depends_on, role).toHaveProperty(dependency);
    }
  });

  it('declares every named volume it mounts, and depends only on services it defines', () => {
    for (const [name, service] of Object.entries(services)) {
      for (const volume of service.volumes ?? []) {
        const source = volume.split(':')[0]!;
        if (!source.startsWith('.') && !source.startsWith('/')) expect(compose.volumes, `${name} mounts ${source}`).toHaveProperty(source);
      }
      for (const dependency of Object.keys(service.depends_on ?? {})) expect(services, `${name} depends on ${dependency}`).toHaveProperty(dependency);
    }
  });

  it("the Sentinels' start-up script writes a config once and starts a Sentinel on it", { timeout: 60_000 }, async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'pfws-compose-'));
    const redisPort = await freePort();
    const sentinelPort = await freePort();
    const primary = spawn('redis-server', ['--port', String(redisPort), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
    // The container's paths and names, mapped onto this host.
    const script = services['sentinel-1']!.command![2]!.replaceAll('/data', dir)
      .replace("'port 26379'", `'port ${sentinelPort}' 'bind 127.0.0.1'`)
      .replace('redis 6379', `127.0.0.1 ${redisPort}`);
    const sentinel = spawn('sh', ['-c', script], { stdio: 'ignore' });
    const client = new Redis({ port: sentinelPort, host: '127.0.0.1', retryStrategy: () => 100 });
    client.on('error', () => {});
    try {
      let addr: unknown = null;
      for (let i = 0; i < 100 && !addr; i++) {
        addr = await client.call('SENTINEL', 'get-master-addr-by-name', 'pfws').catch(() => null);
        if (!addr) await new Promise((r) => setTimeout(r, 100));
      }
      expect(addr).toEqual(['127.0.0.1', String(redisPort)]);
      // Run again (a restart), the script keeps the config Sentinel has rewritten since.
      const before = readFileSync(path.join(dir, 'sentinel.conf'), 'utf8');
      expect(before).toMatch(/sentinel myid/);
      spawnSync('sh', ['-c', script.replace(/;\s*exec .*$/, '')]);
      expect(readFileSync(path.join(dir, 'sentinel.conf'), 'utf8')).toBe(before);
    } finally {
      client.disconnect();
      sentinel.kill('SIGKILL');
      primary.kill('SIGKILL');
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
