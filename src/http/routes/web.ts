import { fileURLToPath } from 'node:url';
import express, { Router } from 'express';

/** The web front end: static files from public/, built on the public API. */
export const PUBLIC_DIR = fileURLToPath(new URL('../../../public/', import.meta.url));

export function webRouter(): Router {
  const router = Router();
  router.use(express.static(PUBLIC_DIR, { index: 'index.html', maxAge: 0 }));
  return router;
}
