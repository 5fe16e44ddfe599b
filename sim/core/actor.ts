import type { Random } from './random';
import { NO_TIMER, type Scheduler, type TimerId } from './scheduler';
import type { Micros } from './time';
import type { Trace } from './trace';

/**
 * Where an actor's work is admitted. The world's host implements it: a paused host queues the work and
 * runs it, in order, when it resumes; a crashed host never runs it. The default runs everything at once.
 */
export interface Gate {
  admit(actor: Actor, work: () => void): void;
}

/** Runs everything immediately: an actor without a host (unit tests). */
export const OPEN_GATE: Gate = {
  admit(_actor, work) {
    work();
  },
};

/** How an actor's messages leave it. The world's network implements it. */
export interface Transport {
  send(from: Actor, to: string, msg: unknown, bytes: number): void;
}

/** What an actor is given when it is created. */
export interface ActorContext {
  readonly scheduler: Scheduler;
  readonly trace: Trace;
  /** The actor's own stream; forked by its id (and incarnation) so it never shifts another's draws. */
  readonly random: Random;
  readonly transport: Transport;
  readonly gate: Gate;
}

interface TimerRecord {
  readonly actor: Actor;
  readonly fn: () => void;
}

function fireTimer(rec: TimerRecord): void {
  const actor = rec.actor;
  if (!actor.alive) return;
  actor.ctx.gate.admit(actor, rec.fn);
}

/**
 * An actor owns its state, talks to others only through messages, and acts on its own timers. One
 * instance is one incarnation of a process: a crash kills the instance (its memory and timers die with
 * it) and a restart creates a new instance that must recover from its host's disk.
 */
export abstract class Actor {
  private _alive = true;

  constructor(
    readonly id: string,
    readonly ctx: ActorContext,
  ) {}

  get alive(): boolean {
    return this._alive;
  }

  get now(): Micros {
    return this.ctx.scheduler.now;
  }

  get trace(): Trace {
    return this.ctx.trace;
  }

  get random(): Random {
    return this.ctx.random;
  }

  /** Runs `fn` after `delay` microseconds, unless this incarnation has died by then. */
  setTimer(delay: Micros, fn: () => void): TimerId {
    if (!this._alive) return NO_TIMER;
    // The name for the scheduler's error is built only when there is one (this runs for every timer).
    if (!(delay >= 0)) return this.ctx.scheduler.after(delay, fireTimer, { actor: this, fn }, `a timer of ${this.id}`);
    return this.ctx.scheduler.after(delay, fireTimer, { actor: this, fn });
  }

  cancelTimer(id: TimerId): void {
    this.ctx.scheduler.cancel(id);
  }

  /** Sends a message; `bytes` is its size on the wire (for bandwidth). */
  send(to: string, msg: unknown, bytes = 64): void {
    if (!this._alive) return;
    this.ctx.transport.send(this, to, msg, bytes);
  }

  /** Called once when the incarnation starts (after recovery from disk, if any). */
  onStart(): void {}

  /** A message from another actor, in the order that actor sent it. */
  abstract onMessage(from: string, msg: unknown): void;

  /** The connection to `peer` broke (its process died, a link was cut, a message was lost). */
  onDisconnect(_peer: string): void {}

  /** Ends this incarnation: no more timers, messages or sends. Called by the host on crash or stop. */
  kill(): void {
    this._alive = false;
  }
}
