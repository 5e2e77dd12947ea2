// Clocks counted down from the arena's deadlines. A deadline is on the server's clock: the time left
// is the deadline minus the server's time now, which is the browser's time plus the offset measured
// from a `serverTime` the server sent (so a browser whose clock is set wrong still counts right).

/** What to add to `Date.now()` to get the server's time, from a `serverTime` it sent just now. */
export function serverOffset(serverTime) {
  const server = Date.parse(serverTime);
  return Number.isFinite(server) ? server - Date.now() : 0;
}

/** Milliseconds left until `deadline` (an ISO date), on the server's clock; never below 0. */
export function timeLeft(deadline, offset) {
  return Math.max(0, Date.parse(deadline) - (Date.now() + offset));
}

/** "12.3 s" */
export function formatLeft(ms) {
  return `${(ms / 1000).toFixed(1)} s`;
}
