import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { MessageChannel, Worker, receiveMessageOnPort, type MessagePort } from 'node:worker_threads'; // determinism-ok: runs outside any simulation

/** Where tasks run: the caller sends tasks and pumps replies. */
export interface TaskPool<T, R> {
  readonly size: number;
  send(worker: number, task: T): void;
  /**
   * Delivers the replies that have arrived, waiting up to `timeoutMs` for the first one. Asynchronous, so the
   * thread that drives a pool stays free to hear signals (SIGINT, SIGTERM) while workers run.
   */
  pump(onReply: (worker: number, reply: R) => void, timeoutMs: number): Promise<void>;
  close(): void;
}

/** A task handler: runs one task, posting any number of replies. */
export type TaskHandler<T, R> = (task: T, reply: (r: R) => void) => void;

/** Runs tasks in this thread, one at a time (one worker without a thread's start-up cost). */
export class InlinePool<T, R> implements TaskPool<T, R> {
  readonly size = 1;
  private pending: { task: T } | null = null;

  constructor(private readonly handle: TaskHandler<T, R>) {}

  send(_worker: number, task: T): void {
    this.pending = { task };
  }

  /** Runs the pending task here and now (a signal is heard between tasks, not during one). */
  async pump(onReply: (worker: number, reply: R) => void): Promise<void> {
    const p = this.pending;
    this.pending = null;
    if (p) this.handle(p.task, (r) => onReply(0, r));
  }

  close(): void {}
}

/** What a worker thread receives: its channel back, the shared wake-up counter, and the caller's data. */
export interface WorkerData<D> {
  readonly port: MessagePort;
  readonly signal: Int32Array;
  readonly data: D;
}

type Hello = { readonly type: 'ready' } | { readonly type: 'error'; readonly message: string };

/**
 * Worker threads running a TypeScript entry (which calls `serveTasks`). Node 20 does not carry ESM loader
 * hooks into workers, so each one registers tsx's CommonJS hook and requires the entry. Replies come back
 * on a MessageChannel per worker. Start-up is awaited synchronously (receiveMessageOnPort, and a shared
 * counter that workers bump after each message lets the main thread sleep in Atomics.wait); after it, replies
 * are queued as they arrive and `pump` awaits them, so the main thread's event loop runs meanwhile. A worker
 * that dies (out of memory, say) fails the next pump with an Error naming it.
 */
export class WorkerPool<T, R> implements TaskPool<T, R> {
  private readonly signal = new Int32Array(new SharedArrayBuffer(4));
  private readonly ports: MessagePort[] = [];
  private readonly workers: Worker[] = [];
  private queue: [number, R][] = [];
  private wake: (() => void) | null = null;
  private failure: Error | null = null;
  private closed = false;

  /** `entry`: the absolute path of the worker's TypeScript module; `data`: plain data for it. */
  constructor(
    readonly size: number,
    entry: string,
    data: unknown,
    startTimeoutMs = 60_000,
  ) {
    const tsx = createRequire(import.meta.url).resolve('tsx/cjs/api');
    const boot = `
      const { workerData } = require('node:worker_threads'); // determinism-ok: runs outside any simulation
      try { require(${JSON.stringify(tsx)}).register(); require(${JSON.stringify(entry)}); }
      catch (e) { workerData.port.postMessage({ type: 'error', message: String((e && e.stack) || e) }); Atomics.add(workerData.signal, 0, 1); Atomics.notify(workerData.signal, 0); }
    `;
    for (let i = 0; i < size; i++) {
      const { port1, port2 } = new MessageChannel();
      const workerData: WorkerData<unknown> = { port: port2, signal: this.signal, data };
      const w = new Worker(boot, { eval: true, workerData, transferList: [port2] }); // determinism-ok: runs outside any simulation
      w.unref();
      const died = (why: string) => {
        if (this.closed || this.failure) return;
        this.failure = new Error(`worker ${i + 1} of ${size} died: ${why}`);
        this.wake?.();
      };
      w.on('error', (e) => died(e instanceof Error ? `${e.name}: ${e.message}` : String(e)));
      w.on('exit', (code) => died(`it exited with code ${code}`));
      this.workers.push(w);
      this.ports.push(port1);
    }
    this.awaitReady(startTimeoutMs);
    this.ports.forEach((port, i) =>
      port.on('message', (m: R) => {
        this.queue.push([i, m]);
        this.wake?.();
      }),
    );
  }

  private awaitReady(timeoutMs: number): void {
    const ready = new Array<boolean>(this.size).fill(false);
    const deadline = Date.now() + timeoutMs; // determinism-ok: runs outside any simulation
    while (ready.some((r) => !r)) {
      const seen = Atomics.load(this.signal, 0);
      let got = false;
      for (let i = 0; i < this.size; i++) {
        if (ready[i]) continue;
        const m = receiveMessageOnPort(this.ports[i]!);
        if (!m) continue;
        got = true;
        const hello = m.message as Hello;
        if (hello.type === 'error') {
          this.close();
          throw new Error(`worker ${i + 1} did not start: ${hello.message}`);
        }
        ready[i] = true;
      }
      if (got) continue;
      const left = deadline - Date.now(); // determinism-ok: runs outside any simulation
      if (left <= 0) {
        this.close();
        throw new Error(`workers did not start within ${timeoutMs / 1000}s`);
      }
      Atomics.wait(this.signal, 0, seen, Math.min(left, 1000)); // determinism-ok: runs outside any simulation
    }
  }

  send(worker: number, task: T): void {
    this.ports[worker]!.postMessage(task);
  }

  async pump(onReply: (worker: number, reply: R) => void, timeoutMs: number): Promise<void> {
    if (this.queue.length === 0 && !this.failure) {
      await new Promise<void>((resolve) => {
        const done = () => {
          clearTimeout(timer); // determinism-ok: runs outside any simulation
          this.wake = null;
          resolve();
        };
        const timer = setTimeout(done, timeoutMs); // determinism-ok: runs outside any simulation
        this.wake = done;
      });
    }
    if (this.failure) throw this.failure;
    const q = this.queue;
    this.queue = [];
    for (const [i, m] of q) onReply(i, m);
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.wake?.();
    for (const p of this.ports) {
      p.postMessage({ type: 'exit' });
      p.close();
    }
    for (const w of this.workers) void w.terminate();
  }
}

/**
 * The worker side: builds a handler from the pool's data, says it is ready, runs each task it is sent
 * and posts the replies, bumping the shared counter after each so the main thread wakes up. A handler
 * that cannot be built is reported as the worker's start-up error.
 */
export function serveTasks<D, T, R>(workerData: unknown, makeHandler: (data: D) => TaskHandler<T, R>): void {
  const { port, signal, data } = workerData as WorkerData<D>;
  const post = (m: unknown) => {
    port.postMessage(m);
    Atomics.add(signal, 0, 1);
    Atomics.notify(signal, 0);
  };
  const handle = makeHandler(data);
  port.on('message', (task: T | { type: 'exit' }) => {
    if ((task as { type?: unknown }).type === 'exit') {
      port.close();
      return;
    }
    handle(task as T, post);
  });
  post({ type: 'ready' });
}

/** The absolute path of a module next to `base` (an import.meta.url), for a WorkerPool entry. */
export function entryPath(base: string, relativePath: string): string {
  return fileURLToPath(new URL(relativePath, base));
}
