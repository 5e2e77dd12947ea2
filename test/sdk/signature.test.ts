import { createPushVerifier, verifyPushSignature } from '@reversi-arena/client';
import { describe, expect, it } from 'vitest';
import { signedHeaders } from '../../src/bot-client/signing.ts';

const SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
const OTHER = 'whsec_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA';
const BODY = '{"matchId":"match_01JC3S2Q7G5T1XK0V3JH3W6R2D","ply":1,"legalMoves":["e3","f4","c5","d6"]}';
const ID = 'match_01JC3S2Q7G5T1XK0V3JH3W6R2D-1-9f2c04d1e5ab';

describe('verifyPushSignature', () => {
  describe('given a call the arena signed (its own signing code)', () => {
    const headers = signedHeaders(SECRET, ID, Date.now(), BODY);

    it('passes, with the body as text or as the bytes received', () => {
      expect(verifyPushSignature(SECRET, headers, BODY)).toEqual({ ok: true });
      expect(verifyPushSignature(SECRET, headers, Buffer.from(BODY))).toEqual({ ok: true });
      expect(verifyPushSignature(SECRET, headers, new TextEncoder().encode(BODY))).toEqual({ ok: true });
    });

    it('reads the headers as Node, fetch or a plain object with any case gives them', () => {
      expect(verifyPushSignature(SECRET, new Headers({ ...headers }), BODY).ok).toBe(true);
      const shouted = Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toUpperCase(), v]));
      expect(verifyPushSignature(SECRET, shouted, BODY).ok).toBe(true);
    });

    it('fails when one byte of the body changed', () => {
      const tampered = BODY.replace('"ply":1', '"ply":2');
      expect(verifyPushSignature(SECRET, headers, tampered)).toEqual({
        ok: false,
        reason: expect.stringMatching(/does not verify/),
      });
    });

    it('fails under another secret', () => {
      expect(verifyPushSignature(OTHER, headers, BODY).ok).toBe(false);
    });

    it('fails when the id or the timestamp was changed', () => {
      expect(verifyPushSignature(SECRET, { ...headers, 'webhook-id': `${ID}0` }, BODY).ok).toBe(false);
      const later = String(Number(headers['webhook-timestamp']) + 1);
      expect(verifyPushSignature(SECRET, { ...headers, 'webhook-timestamp': later }, BODY).ok).toBe(false);
    });
  });

  it('fails a call signed more than five minutes ago (a replay), though its signature is right', () => {
    const stale = signedHeaders(SECRET, ID, Date.now() - 6 * 60_000, BODY);
    expect(verifyPushSignature(SECRET, stale, BODY)).toEqual({
      ok: false,
      reason: expect.stringMatching(/too old/),
    });
  });

  it('fails a call without the signature headers, saying which are needed', () => {
    expect(verifyPushSignature(SECRET, { 'content-type': 'application/json' }, BODY)).toEqual({
      ok: false,
      reason: 'missing webhook-id, webhook-timestamp or webhook-signature',
    });
  });
});

describe('createPushVerifier', () => {
  it('throws at once on a secret that is not a whsec_ one, rather than refusing every call', () => {
    expect(() => createPushVerifier('not-a-secret')).toThrow(/whsec_/);
    expect(() => createPushVerifier('whsec_')).toThrow(/not a webhook secret/);
  });
});
