/**
 * `npm run demo`: the arena as `npm start` runs it, set up for trying it on one machine: bot URLs
 * on loopback allowed (for bots you run locally), the house bots registered and playing each other
 * (so the leaderboard fills within a minute), matchmaking on and quick, a round robin of the house
 * bots every four minutes (any bot may enter it), its data under the `demo` prefix apart from a real arena's. Any of these can still be set
 * in the environment.
 */
const DEMO_DEFAULTS: Record<string, string> = {
  ARENA_ALLOW_PRIVATE_BOT_URLS: 'true',
  HOUSE_BOTS: 'true',
  MATCHMAKING_ENABLED: 'true',
  MATCHMAKING_INTERVAL_MS: '3000',
  MATCHMAKING_HOUSE_VS_HOUSE: 'true',
  // Every bot of the demo is registered from, and served on, this machine.
  ALLOW_SAME_OPERATOR_GAMES: 'true',
  STRENGTH_INTERVAL_MS: '15000',
  // An event every four minutes with the house bots entered, so that one is always about to run.
  EVENTS: JSON.stringify([
    {
      key: 'demo',
      name: 'Demo round robin',
      format: 'round-robin',
      every: '4m',
      minEntrants: 2,
      gamesPerPairing: 1,
      houseBots: true,
    },
  ]),
  REDIS_PREFIX: 'demo',
};
for (const [name, value] of Object.entries(DEMO_DEFAULTS)) process.env[name] ??= value;
await import('./main.ts');
