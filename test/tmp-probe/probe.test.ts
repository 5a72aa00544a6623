import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { it } from 'vitest';
import { startTestService } from '../helpers/service.ts';
import { Player } from '../helpers/player.ts';

it('probe', async () => {
  const svc = await startTestService();
  try {
    const player = await new Player(svc.api, svc.rpcUrl).onboard(20);
    const key = await player.get('/protocol/v1/player/agent-key');
    await player.setup(0, key.body.sessionPubkey);
    const client = new Client({ name: 'p', version: '1' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${svc.api}/mcp`), { requestInit: { headers: { authorization: `Bearer ${player.token}` } } }),
    );
    for (const name of ['get_house', 'get_arcade_state', 'play_dice']) {
      const times: number[] = [];
      for (let i = 0; i < 20; i++) {
        const t0 = performance.now();
        await client.callTool({ name, arguments: name === 'play_dice' ? { betAmount: 0.01, target: 50, direction: 'under' } : {} });
        times.push(performance.now() - t0);
      }
      console.log(name, times.map((t) => t.toFixed(1)).join(' '));
    }
    const t0 = performance.now();
    for (let i = 0; i < 20; i++) await player.playDice({ wager: 0.01, target: 50 });
    console.log('rest dice avg', ((performance.now() - t0) / 20).toFixed(1));
  } finally {
    await svc.cleanup();
  }
}, 120_000);
