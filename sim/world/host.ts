import type { Actor, ActorContext, Gate } from '../core/actor';
import type { Random } from '../core/random';
import type { Scheduler } from '../core/scheduler';
import { ms } from '../core/time';
import type { Trace } from '../core/trace';
import { defineKinds, list, num, str, type KindsOf } from '../core/traceSchema';
import type { Disk } from './disk';
import type { NetHost, Network } from './network';
import type { Process } from './process';

/** What happens to hosts and their processes. */
export const HOST_KINDS = defineKinds({
  /** The host's processes stopped; its page cache survived (`processes`: the ones that were running). */
  'host.crash': { processes: list(str) },
  /** SIGTERM to every process: each shuts down gracefully and exits on its own (`process.exit`). */
  'host.stop': { processes: list(str) },
  /** The host lost power: processes stopped and unflushed writes are gone. */
  'host.power-off': { processes: list(str) },
  /** A crashed or powered-off host will come back after `delayMs`. */
  'host.restart': { delayMs: num },
  'host.power-on': {},
  /** The host runs again with these processes. */
  'host.up': { processes: list(str) },
  /** The host froze (a GC pause, a VM stall): it keeps its state and hears nothing until resumed. */
  'host.pause': {},
  /** The host resumed; `queued` messages that arrived meanwhile are delivered now. */
  'host.resume': { queued: num },
  /** One process on the host stopped on its own. */
  'process.exit': { process: str, reason: str },
});

declare module '../core/trace' {
  interface TraceKinds extends KindsOf<typeof HOST_KINDS> {}
}

/** The host's state as a person would describe it. */
export type HostState = 'up' | 'crashed' | 'powered-off' | 'starting' | 'paused' | 'stopping' | 'stopped';

/** What a process is given: the actor context plus its host's disk and the network. */
export interface ProcessContext extends ActorContext {
  readonly host: Host;
  readonly disk: Disk;
  readonly network: Network;
  /** 0 for the first start, then 1, 2, ... for each restart. */
  readonly incarnation: number;
}

/** How to start a process on a host (again after each restart). */
export interface ProcessSpec {
  readonly id: string;
  create(ctx: ProcessContext): Process;
}

export interface HostOptions {
  readonly id: string;
  readonly rack?: string;
  readonly zone?: string;
  /** Free-form labels the fault schedule can target (`tag:broker`). */
  readonly tags?: readonly string[];
  /** Time from restart or power-on until the processes run again. */
  readonly startupDelayMs?: number;
}

interface Queued {
  readonly actor: Actor;
  readonly work: () => void;
}

/**
 * A machine: a rack and zone, a disk, and the processes (actors) on it. Faults act here: a crash kills the
 * processes but keeps the OS and its page cache; a power loss also empties the page cache; a pause stops
 * all handling (timers fire late and messages queue, then run in order on resume).
 */
export class Host implements Gate, NetHost {
  readonly id: string;
  readonly rack: string;
  readonly zone: string;
  readonly tags: readonly string[];
  readonly startupDelayMs: number;
  private powered = true;
  private starting = false;
  /** `start` ran once: processes added later start at once (if the host is up). */
  private booted = false;
  private _paused = false;
  private readonly specs: ProcessSpec[] = [];
  private readonly live = new Map<string, Process>();
  private readonly incarnations = new Map<string, number>();
  private queue: Queued[] = [];
  /** Taken down by a crash or a power loss (not a process that exited on its own) and not restarted since. */
  downByFault = false;
  /** Bumped on every crash or power loss, so a pending restart from before it is void. */
  private lifeEpoch = 0;
  /** A stop (SIGTERM) was sent and no start has happened since: down processes are stopped, not crashed. */
  private stopRequested = false;
  /** A restart asked for while processes were still shutting down: it happens when the last one exits. */
  private restartWhenStopped: number | null = null;
  /** Who waits for the processes of a stop to exit. */
  private exitWaiters: (() => void)[] = [];

  constructor(
    opts: HostOptions,
    readonly disk: Disk,
    private readonly scheduler: Scheduler,
    private readonly trace: Trace,
    private readonly random: Random,
    private readonly network: Network,
  ) {
    this.id = opts.id;
    this.rack = opts.rack ?? 'rack-0';
    this.zone = opts.zone ?? 'zone-0';
    this.tags = opts.tags ?? [];
    this.startupDelayMs = opts.startupDelayMs ?? 1000;
    network.addHost(this);
  }

  get osUp(): boolean {
    return this.powered;
  }

  get paused(): boolean {
    return this._paused;
  }

  get state(): HostState {
    if (!this.powered) return 'powered-off';
    if (this.starting) return 'starting';
    if (this.stopRequested) return this.live.size === 0 ? 'stopped' : 'stopping';
    if (this.live.size === 0 && this.specs.length > 0) return 'crashed';
    return this._paused ? 'paused' : 'up';
  }

  /** Processes running now. */
  processes(): Process[] {
    return [...this.live.values()];
  }

  process(id: string): Process | undefined {
    return this.live.get(id);
  }

  /** Adds a process to this host; it starts with the host (or at once if the host is already up). */
  addProcess(spec: ProcessSpec): void {
    if (this.specs.some((s) => s.id === spec.id)) throw new Error(`host ${this.id} already runs a process named ${spec.id}`);
    const upNow = this.booted && this.powered && !this.starting && !(this.live.size === 0 && this.specs.length > 0);
    this.specs.push(spec);
    this.network.placeActor(spec.id, this);
    if (upNow) this.start();
  }

  /** Starts every process that is not running (first boot). */
  start(): void {
    this.booted = true;
    this.stopRequested = false;
    this.restartWhenStopped = null;
    const started: string[] = [];
    for (const spec of this.specs) {
      if (this.live.has(spec.id)) continue;
      const incarnation = this.incarnations.get(spec.id) ?? 0;
      this.incarnations.set(spec.id, incarnation + 1);
      const ctx: ProcessContext = {
        scheduler: this.scheduler,
        trace: this.trace,
        random: this.random.fork(`${spec.id}#${incarnation}`),
        transport: this.network,
        gate: this,
        host: this,
        disk: this.disk,
        network: this.network,
        incarnation,
      };
      const p = spec.create(ctx);
      this.live.set(spec.id, p);
      started.push(spec.id);
    }
    if (started.length > 0) this.trace.emit('host.up', this.id, { processes: started });
    for (const id of started) {
      const p = this.live.get(id);
      if (p) this.admit(p, () => p.onStart());
    }
  }

  // ---- Gate: where every timer and message of this host's actors is admitted ----

  admit(actor: Actor, work: () => void): void {
    if (!actor.alive) return;
    if (this._paused) this.queue.push({ actor, work });
    else work();
  }

  deliver(actorId: string, from: string, msg: unknown): void {
    const p = this.live.get(actorId);
    if (!p) return;
    if (this._paused) this.queue.push({ actor: p, work: () => p.onMessage(from, msg) });
    else p.onMessage(from, msg);
  }

  notifyDisconnect(actorId: string, peer: string): void {
    const p = this.live.get(actorId);
    if (p) this.admit(p, () => p.onDisconnect(peer));
  }

  hasLiveActor(actorId: string): boolean {
    return this.live.has(actorId);
  }

  // ---- faults ----

  /** kill -9 of every process: memory and timers gone, the OS and its page cache stay. */
  crash(): void {
    // A crash while the processes are still starting kills them too: the pending start is void.
    if (!this.powered || (this.live.size === 0 && !this.starting)) return;
    const ids = this.killAll();
    this.downByFault = true;
    this.trace.emit('host.crash', this.id, { processes: ids });
    this.network.actorsDied(ids, true);
  }

  /** Power loss: the processes and the page cache are gone; only durable data survives. */
  powerOff(): void {
    if (!this.powered) return;
    const ids = this.killAll();
    this.powered = false;
    this.downByFault = true;
    this.trace.emit('host.power-off', this.id, { processes: ids });
    this.disk.powerLoss();
    this.network.actorsDied(ids, false);
  }

  /**
   * SIGTERM to every process (`systemctl stop`): each runs its own graceful shutdown and exits when it is done;
   * the OS and the page cache stay. On a paused host the signal waits, like everything else, for the resume.
   * `onExited` runs when the last process has exited (as `systemctl stop` returns); false when nothing ran.
   */
  stop(onExited?: () => void): boolean {
    if (!this.powered || this.live.size === 0) return false;
    this.stopRequested = true;
    if (onExited) this.exitWaiters.push(onExited);
    this.downByFault = true;
    const procs = [...this.live.values()];
    this.trace.emit('host.stop', this.id, { processes: procs.map((p) => p.id) });
    for (const p of procs) this.admit(p, () => p.onStop());
    return true;
  }

  /** Brings the processes back (power on if needed); they recover from disk after the start-up delay. */
  restart(delayMs = this.startupDelayMs): void {
    if (this.powered && this.stopRequested && this.live.size > 0) {
      // Still shutting down: start again once the last process has exited (`systemctl restart` waits for the stop).
      this.restartWhenStopped = delayMs;
      return;
    }
    if (this.powered && this.live.size === this.specs.length) return;
    this.powered = true;
    this.downByFault = false;
    this.starting = true;
    const epoch = this.lifeEpoch;
    this.trace.emit('host.restart', this.id, { delayMs });
    this.scheduler.after(
      ms(delayMs),
      () => {
        if (this.lifeEpoch !== epoch) return;
        this.starting = false;
        this.start();
      },
      undefined,
      `the restart of ${this.id}`,
    );
  }

  /**
   * Power comes back but the processes stay down (a crash fault still holds them): the OS answers again, so
   * peers get connection refused instead of silence. `restart` brings the processes back.
   */
  powerOn(): void {
    if (this.powered) return;
    this.powered = true;
    this.trace.emit('host.power-on', this.id, {});
  }

  /** A long GC pause or a frozen VM: nothing is handled until `resume`. */
  pause(): void {
    if (this._paused || !this.powered) return;
    this._paused = true;
    this.trace.emit('host.pause', this.id, {});
  }

  resume(): void {
    if (!this._paused) return;
    this._paused = false;
    const queued = this.queue;
    this.queue = [];
    this.trace.emit('host.resume', this.id, { queued: queued.length });
    // Late timers and queued messages run now, in the order they would have run.
    for (const q of queued) if (q.actor.alive) this.admit(q.actor, q.work);
  }

  /** A process ends by itself (a clean shutdown): its sockets close and peers hear at once. */
  processExited(p: Process, reason: string): void {
    if (this.live.get(p.id) !== p) return;
    this.live.delete(p.id);
    p.kill();
    this.trace.emit('process.exit', this.id, { process: p.id, reason });
    this.network.actorsDied([p.id], true);
    if (this.live.size === 0) {
      const waiters = this.exitWaiters;
      this.exitWaiters = [];
      for (const w of waiters) w();
    }
    if (this.live.size === 0 && this.restartWhenStopped !== null) {
      const delay = this.restartWhenStopped;
      this.restartWhenStopped = null;
      this.restart(delay);
    }
  }

  private killAll(): string[] {
    this.lifeEpoch++;
    this.stopRequested = false;
    this.restartWhenStopped = null;
    // A kill ends a shutdown under way: whoever waited for it hears now.
    const waiters = this.exitWaiters;
    this.exitWaiters = [];
    if (waiters.length > 0) this.scheduler.after(0, () => waiters.forEach((w) => w()), undefined, `the exit of ${this.id}'s processes`);
    this.starting = false;
    this._paused = false;
    this.queue = [];
    const ids = [...this.live.keys()];
    for (const p of this.live.values()) p.kill();
    this.live.clear();
    return ids;
  }
}
