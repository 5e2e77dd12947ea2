import type { Request } from 'express';
import type { RelyingParty } from '../arena/sign-in.ts';

/**
 * The site passkeys are bound to: PUBLIC_URL's host and origin when set, else the request's own (the
 * Host header, as the browser sent it; behind a proxy it must keep it). WebAuthn needs a host name:
 * a page opened at an IP address cannot use passkeys.
 */
export function relyingParty(req: Request, publicUrl: string | undefined): RelyingParty {
  if (publicUrl !== undefined) {
    const url = new URL(publicUrl);
    return { id: url.hostname, origin: url.origin };
  }
  return { id: req.hostname, origin: `${req.protocol}://${req.get('host')}` };
}
