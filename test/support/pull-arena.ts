import { runnerFor } from './arena.ts';
import { createHarness, type Harness } from './harness.ts';
import { type LoopbackBot, playsFirstLegal, startLoopbackBot } from './loopback-bot.ts';
import { serve } from './serve.ts';

export interface PullArena {
  readonly h: Harness;
  readonly arena: ReturnType<typeof runnerFor>;
  /** The API's origin, for pull bots that talk HTTP. */
  readonly base: string;
  /** A push bot playing the first legal move, to be a pull bot's opponent. */
  readonly pushBot: LoopbackBot;
  close(): Promise<void>;
}

/** A harness whose runner plays pull bots, its API on a loopback port, and a push bot to play them. */
export async function startPullArena(
  env: Record<string, string> = {},
  options: Parameters<typeof createHarness>[1] = {},
): Promise<PullArena> {
  const h = await createHarness(env, options);
  const arena = runnerFor(h);
  const site = await serve(h);
  const pushBot = await startLoopbackBot(playsFirstLegal());
  return {
    h,
    arena,
    base: site.origin,
    pushBot,
    close: async () => {
      await pushBot.close();
      await site.close();
      await arena.close();
      await h.close();
    },
  };
}
