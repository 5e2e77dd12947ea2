/**
 * Spreads the work of a worker's turns over the event loop's iterations, a slice of at most
 * `sliceMs` at a time. With bots that answer in a steady time, a worker's matches fall into waves:
 * answers that arrive together are handled together (the judging, the write, the next state, its
 * JSON, the signature, the next request), so the next requests leave together and their answers
 * come back together. Handling each wave whole held the loop for tens of milliseconds, and timers
 * (deadlines, lock renewals) fired late. Through the pacer an answer's handling starts in the
 * loop's check phase, in arrival order; once a slice is spent the rest wait for the next iteration,
 * after timers and I/O have had their turn, and the next requests leave spread out.
 *
 * @example
 * const pacer = new TurnPacer(2);
 * const answer = await player.move(request);
 * await pacer.turn(); // then judge it, record it and ask for the next move
 */
export class TurnPacer {
  readonly #waiting: (() => void)[] = [];
  #next = 0;
  #scheduled = false;

  constructor(
    private readonly sliceMs: number,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** Resolves when the turn may go on: in a later slice, never in the caller's own callback. */
  turn(): Promise<void> {
    return new Promise((resolve) => {
      this.#waiting.push(resolve);
      if (!this.#scheduled) {
        this.#scheduled = true;
        setImmediate(this.#slice);
      }
    });
  }

  readonly #slice = async (): Promise<void> => {
    const ends = this.now() + this.sliceMs;
    while (this.#next < this.#waiting.length) {
      this.#waiting[this.#next++]?.();
      // Lets the turn just released run up to its next wait (its request sent) before the clock
      // is read again.
      await null;
      if (this.now() >= ends) break;
    }
    if (this.#next < this.#waiting.length) {
      if (this.#next > 1024) {
        this.#waiting.splice(0, this.#next);
        this.#next = 0;
      }
      setImmediate(this.#slice);
    } else {
      this.#waiting.length = 0;
      this.#next = 0;
      this.#scheduled = false;
    }
  };
}
