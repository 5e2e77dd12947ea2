import { Cluster, Pipeline, Redis } from 'ioredis';

/**
 * Gives each Redis command's errors the stack of the code that sent it. ioredis rejects every
 * command still in flight when a connection closes with one "Connection is closed." error whose
 * stack is its own, so a run that reports one unhandled says nothing of who sent the command and
 * let it go (seen in 2 of 9 CI runs, in pull.test.ts, once in the Sentinel project; not reproduced
 * alone; then it named the finish's read of a run pull.test.ts never awaited, now played out).
 * ioredis' `showFriendlyErrorStack` does this for the connections it is set on, by an Error
 * made with each command: too dear for the whole suite, so this runs in the topology projects only
 * (vitest.config.ts), once per fork, as the files of a fork share it.
 */
const installed = Symbol.for('reversi-arena.redis-command-origins');
const fork = globalThis as { [installed]?: true };

if (fork[installed] === undefined) {
  fork[installed] = true;
  // A server's connection, a cluster client (which refuses a command itself while it is not
  // ready, before any node's connection sees it) and a pipeline (an auto-pipelined command is
  // queued on one in its sender's call, and sent from a later tick with no sender on the stack).
  for (const kind of [Redis, Cluster, Pipeline]) {
    const prototype = kind.prototype as unknown as {
      sendCommand(command: { errorStack?: Error }, ...rest: unknown[]): unknown;
    };
    const send = prototype.sendCommand;
    prototype.sendCommand = function (this: unknown, command: { errorStack?: Error }, ...rest: unknown[]) {
      // Read by the command's reject (ioredis Command.initPromise) when it fails: the error then
      // carries this stack, as with showFriendlyErrorStack.
      command.errorStack ??= new Error();
      return send.call(this, command, ...rest);
    };
  }
}
