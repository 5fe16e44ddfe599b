import { spawn, type ChildProcess } from 'node:child_process'; // determinism-ok: runs outside any simulation
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

/**
 * esbuild's keepNames helper as tsx emits it at the top of each module, and what a worker uses instead. keepNames
 * wraps every named closure in `__name(fn, "name")`, which redefines the function's `name` each time the closure
 * is made (the simulator makes many on its hot paths: ~5-15% of a chaos run's CPU). With the identity, classes and
 * function declarations keep their names, but a closure wrapped that way has an empty `name` in a worker
 * (JavaScript does not name a function passed as an argument). Nothing in the simulator reads a function's name
 * (its errors set theirs), and test/unit/explore/pool.test.ts pins workers' trace hashes to the main thread's. If
 * tsx ever emits the helper differently, nothing is replaced and workers run as the main thread does.
 */
export const KEEP_NAMES_HELPER = 'var __name=(target,value)=>__defProp(target,"name",{value,configurable:true});';
const NO_NAMES_HELPER = 'var __name=(target)=>target;';

/**
 * Boot code for a worker (thread or child process): compiles TypeScript through tsx's CommonJS hook, with the
 * keepNames helper swapped for the identity in each compiled module, and requires the entry.
 */
function loadEntry(entry: string): string {
  const tsx = createRequire(import.meta.url).resolve('tsx/cjs/api');
  return `
    const Module = require('node:module');
    const compile = Module.prototype._compile;
    Module.prototype._compile = function (code, filename) {
      return compile.call(this, code.replace(${JSON.stringify(KEEP_NAMES_HELPER)}, ${JSON.stringify(NO_NAMES_HELPER)}), filename);
    };
    require(${JSON.stringify(tsx)}).register();
    require(${JSON.stringify(entry)});
  `;
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
    const boot = `
      const { workerData } = require('node:worker_threads'); // determinism-ok: runs outside any simulation
      try { ${loadEntry(entry)} }
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
 * Child processes running a TypeScript entry (which calls `serveTasks`), the same way WorkerPool's threads do:
 * each worker has its own process (its own allocator and V8 platform, and node flags that are per process, such
 * as `--single-threaded`, which cannot be asked of one worker thread). Tasks and replies go over Node's IPC channel with
 * structured-clone serialisation (what a worker thread's messages use). Start-up is not awaited in the
 * constructor: tasks sent before a child is ready wait in its channel; `ready()` awaits every child, and a child
 * that fails to start (or dies) fails the next pump with an Error naming it.
 */
export class ProcessPool<T, R> implements TaskPool<T, R> {
  private readonly children: ChildProcess[] = [];
  private readonly started: boolean[];
  private queue: [number, R][] = [];
  private wake: (() => void) | null = null;
  private failure: Error | null = null;
  private closed = false;
  private readonly startTimer: ReturnType<typeof setTimeout>;

  /** `entry`: the absolute path of the worker's TypeScript module; `data`: plain data for it; `execArgv`: node flags. */
  constructor(
    readonly size: number,
    entry: string,
    data: unknown,
    execArgv: readonly string[] = [],
    startTimeoutMs = 60_000,
  ) {
    const boot = `
      try { ${loadEntry(entry)} }
      catch (e) { process.send({ type: 'error', message: String((e && e.stack) || e) }, () => process.exit(1)); }
    `;
    this.started = new Array<boolean>(size).fill(false);
    for (let i = 0; i < size; i++) {
      const child = spawn(process.execPath, [...execArgv, '-e', boot], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'], serialization: 'advanced' }); // determinism-ok: runs outside any simulation
      child.unref();
      (child.channel as { unref?: () => void } | undefined)?.unref?.();
      child.on('message', (m: R | Hello) => this.receive(i, m));
      child.on('error', (e) => this.fail(`worker ${i + 1} of ${size} died: ${e.name}: ${e.message}`));
      child.on('exit', (code, sig) => this.fail(`worker ${i + 1} of ${size} died: it exited with ${sig ? `signal ${sig}` : `code ${code}`}`));
      child.send({ type: 'init', data });
      this.children.push(child);
    }
    this.startTimer = setTimeout(() => this.fail(`workers did not start within ${startTimeoutMs / 1000}s`), startTimeoutMs); // determinism-ok: runs outside any simulation
    this.startTimer.unref();
  }

  private receive(i: number, m: R | Hello): void {
    if (!this.started[i]) {
      const hello = m as Hello;
      if (hello.type === 'error') return this.fail(`worker ${i + 1} did not start: ${hello.message}`);
      this.started[i] = true;
      if (this.started.every(Boolean)) clearTimeout(this.startTimer); // determinism-ok: runs outside any simulation
    } else this.queue.push([i, m as R]);
    this.wake?.();
  }

  private fail(why: string): void {
    if (this.closed || this.failure) return;
    this.failure = new Error(why);
    this.wake?.();
  }

  /** Resolves once every child has started (rejects if one cannot). */
  async ready(): Promise<void> {
    while (!this.started.every(Boolean)) {
      if (this.failure) throw this.failure;
      await this.waitForMessage(1000);
    }
  }

  private waitForMessage(timeoutMs: number): Promise<void> {
    return new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer); // determinism-ok: runs outside any simulation
        this.wake = null;
        resolve();
      };
      const timer = setTimeout(done, timeoutMs); // determinism-ok: runs outside any simulation
      this.wake = done;
    });
  }

  send(worker: number, task: T): void {
    this.children[worker]!.send(task as object);
  }

  async pump(onReply: (worker: number, reply: R) => void, timeoutMs: number): Promise<void> {
    if (this.queue.length === 0 && !this.failure) await this.waitForMessage(timeoutMs);
    if (this.failure) throw this.failure;
    const q = this.queue;
    this.queue = [];
    for (const [i, m] of q) onReply(i, m);
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    clearTimeout(this.startTimer); // determinism-ok: runs outside any simulation
    this.wake?.();
    for (const c of this.children) {
      if (c.connected) c.disconnect();
      c.kill();
    }
  }
}

/**
 * The worker side: builds a handler from the pool's data, says it is ready, runs each task it is sent
 * and posts the replies. On a worker thread (`workerData` set by WorkerPool) it bumps the shared counter after
 * each post so the main thread wakes up; in a child process (ProcessPool: no `workerData`) the data is the first
 * message on the IPC channel. A handler that cannot be built is reported as the worker's start-up error.
 */
export function serveTasks<D, T, R>(workerData: unknown, makeHandler: (data: D) => TaskHandler<T, R>): void {
  if (workerData == null && process.send) serveTasksInProcess(makeHandler);
  else serveTasksOnThread(workerData as WorkerData<D>, makeHandler);
}

function serveTasksOnThread<D, T, R>(workerData: WorkerData<D>, makeHandler: (data: D) => TaskHandler<T, R>): void {
  const { port, signal, data } = workerData;
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

function serveTasksInProcess<D, T, R>(makeHandler: (data: D) => TaskHandler<T, R>): void {
  const post = (m: unknown) => process.send!(m);
  let handle: TaskHandler<T, R> | null = null;
  // Ctrl-C reaches the whole process group: the parent decides when a sweep stops (it closes the pool).
  process.on('SIGINT', () => {});
  // The parent gone (closed the pool, or died): nothing left to do.
  process.on('disconnect', () => process.exit(0));
  process.on('message', (m: { type: 'init'; data: D } | T) => {
    if (handle === null) {
      try {
        handle = makeHandler((m as { data: D }).data);
      } catch (e) {
        post({ type: 'error', message: String((e instanceof Error && e.stack) || e) });
        return;
      }
      post({ type: 'ready' });
      return;
    }
    handle(m as T, post);
  });
}

/** The absolute path of a module next to `base` (an import.meta.url), for a WorkerPool entry. */
export function entryPath(base: string, relativePath: string): string {
  return fileURLToPath(new URL(relativePath, base));
}
