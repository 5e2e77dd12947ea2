/**
 * The entry of the worker thread that fits Bradley–Terry strengths (see ./fit-thread.ts): one
 * request in, one fit out, then the thread ends. Only the pure rating maths runs here.
 */
import { parentPort, threadId } from 'node:worker_threads';
import { bradleyTerryFromColumns } from '../rating/bradley-terry.ts';
import type { FitReply, FitRequest } from './fit-thread.ts';

const port = parentPort;
if (port === null) throw new Error('fit-worker.ts runs as a worker thread, not as a program');
port.once('message', ({ columns, options }: FitRequest) => {
  let reply: FitReply;
  try {
    reply = { ok: true, fit: bradleyTerryFromColumns(columns, options), threadId };
  } catch (error) {
    reply = { ok: false, message: error instanceof Error ? error.message : String(error) };
  }
  port.postMessage(reply);
});
