import { createHmac } from 'node:crypto';
import { type SoloLayoutBytes, useSoloLayouts } from '../game/index.ts';

/**
 * The solo game's layouts from the deployment's key: a layout's shuffle reads the HMAC-SHA512 of its
 * number under the key. A layout is then the same in every process and every replay, yet its tokens
 * cannot be worked out from its number, nor its number searched for from a few tokens seen (the
 * engine's 31-bit seeded shuffle could be): a bot learns a token by turning it. See docs/solo.md.
 */

const sources = new Map<string, SoloLayoutBytes>();

/** The layouts' bytes under `key`, one function per key (so giving the game the same key again is no change). */
export function soloLayoutBytes(key: string): SoloLayoutBytes {
  let source = sources.get(key);
  if (source === undefined) {
    source = (layout) => createHmac('sha512', key).update(`solo-layout:${layout}`).digest();
    sources.set(key, source);
  }
  return source;
}

/**
 * Gives this process's solo game its layouts: from `SOLO_SECRET` when set, else from the key the
 * deployment keeps in Redis (`stored`, made by the first process that asks).
 */
export async function loadSoloLayouts(
  secret: string | undefined,
  stored: () => Promise<string>,
): Promise<void> {
  useSoloLayouts(soloLayoutBytes(secret ?? (await stored())));
}
