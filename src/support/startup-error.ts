/**
 * A reason the arena cannot start that its message states whole (a bad setting, no Redis, a Redis
 * too old): the entry points print the message alone, without a stack, and exit.
 */
export class StartupError extends Error {
  constructor(message: string) {
    super(message);
    this.name = new.target.name;
  }
}
