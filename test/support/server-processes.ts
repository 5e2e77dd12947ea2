import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { exited } from './children.ts';

/** redis-server processes of a test's own, by port, working in a directory of their own. */
export class ServerProcesses {
  readonly #children = new Map<number, ChildProcess>();
  /** Their working directory (configuration files go there). */
  readonly dir: string;

  constructor(name: string) {
    this.dir = mkdtempSync(join(tmpdir(), `${name}-`));
  }

  /** Starts `redis-server` with `args` (its port among them), known by `port`. */
  spawn(port: number, args: string[]): void {
    this.#children.set(port, spawn('redis-server', args, { stdio: 'ignore', cwd: this.dir }));
  }

  /** The ports of the servers still running. */
  running(): number[] {
    return [...this.#children]
      .filter(([, child]) => child.exitCode === null && child.signalCode === null)
      .map(([port]) => port);
  }

  /** Kills one with SIGKILL: no shutdown, no last write. */
  async kill(port: number): Promise<void> {
    const child = this.#children.get(port)!;
    child.kill('SIGKILL');
    await exited(child);
  }

  /** Kills them all and removes their directory. */
  async stop(): Promise<void> {
    for (const port of this.running()) await this.kill(port);
    rmSync(this.dir, { recursive: true, force: true });
  }
}
