import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { pino } from 'pino';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWorkers } from '../../src/wiring/processes.ts';
import { registerBot } from '../../test/support/api.ts';
import { exited, killedAfterTest } from '../../test/support/children.ts';
import { createHarness, type Harness } from '../../test/support/harness.ts';
import { serve } from '../../test/support/serve.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

let h: Harness;
let site: Awaited<ReturnType<typeof serve>>;
let workers: Awaited<ReturnType<typeof startWorkers>>;
beforeAll(async () => {
  h = await createHarness({ HOUSE_BOTS: 'true', SHUTDOWN_GRACE_MS: '0' });
  site = await serve(h);
  workers = await startWorkers(h.config, pino({ level: 'silent' }));
}, 60_000);
afterAll(async () => {
  await workers?.close();
  await site?.close();
  await h?.close();
});

describe('examples/agents/mcp-agent.ts', { timeout: 60_000 }, () => {
  it('plays a game against a house bot through MCP alone, as its usage line says', async () => {
    const bot = await registerBot(h, { name: 'example-agent' });
    const child = killedAfterTest(
      spawn(
        process.execPath,
        ['--import', 'tsx', 'examples/agents/mcp-agent.ts', '--arena', site.origin, '--token', bot.token],
        { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] },
      ),
    );
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
    });
    child.stderr.on('data', (chunk: Buffer) => {
      out += chunk.toString();
    });
    expect(await exited(child), out).toBe(0);
    const [, matchId, outcome] =
      /^(match_\w+): (won|lost|draw) as (black|white) in \d+ moves$/m.exec(out) ?? [];
    expect(matchId, out).toBeDefined();
    const match = (await request(h.app).get(`/v1/matches/${matchId}`)).body;
    expect(match.status).toBe('finished');
    const mine = match.black.id === bot.id ? 'black' : 'white';
    expect(outcome).toBe(
      match.result.winner === null ? 'draw' : match.result.winner === mine ? 'won' : 'lost',
    );
  });
});
