import express, { type RequestHandler } from 'express';
import { PayloadTooLargeError } from '../model/errors.ts';

/**
 * JSON bodies up to `limitBytes`. A body announced larger (Content-Length) is refused before a byte
 * of it is read, and the connection is closed after the answer: body-parser would read it to the
 * end first, so a client could make the server swallow megabytes for a 413. A chunked body has no
 * length to check; body-parser stops at the limit and the server's request timeout bounds the rest.
 */
export function jsonBodies(limitBytes: number): RequestHandler[] {
  const refuseAnnouncedTooLarge: RequestHandler = (req, res, next) => {
    const announced = Number(req.get('content-length') ?? 0);
    if (announced <= limitBytes) return next();
    res.setHeader('Connection', 'close');
    next(
      new PayloadTooLargeError(
        'request/too-large',
        `The body is larger than the server accepts (${limitBytes} bytes).`,
      ),
    );
  };
  return [refuseAnnouncedTooLarge, express.json({ limit: limitBytes, strict: true })];
}
