import type { TraceEvent, TraceEventOf, TraceKind } from '../../../sim/core/trace';
import type { ProcessContext } from '../../../sim/world/host';
import { validateSchedule, type FaultEntry } from '../../../sim/world/nemesis';
import { Process } from '../../../sim/world/process';
import { World, type WorldOptions } from '../../../sim/world/world';

/** What a test process does on each hook; every hook is optional. */
export interface Hooks {
  start?(p: TestProcess): void;
  message?(p: TestProcess, from: string, msg: unknown): void;
  disconnect?(p: TestProcess, peer: string): void;
  killed?(p: TestProcess): void;
  /** SIGTERM; without this hook the process exits at once (Process's default). */
  stop?(p: TestProcess): void;
}

/** A process whose behaviour a test supplies, and which records what happened to it. */
export class TestProcess extends Process {
  readonly received: { t: number; from: string; msg: unknown }[] = [];
  readonly disconnects: { t: number; peer: string }[] = [];
  started = false;

  constructor(
    id: string,
    ctx: ProcessContext,
    private readonly hooks: Hooks = {},
  ) {
    super(id, ctx);
  }

  override onStart(): void {
    this.started = true;
    this.hooks.start?.(this);
  }

  onMessage(from: string, msg: unknown): void {
    this.received.push({ t: this.now, from, msg });
    this.hooks.message?.(this, from, msg);
  }

  override onDisconnect(peer: string): void {
    this.disconnects.push({ t: this.now, peer });
    this.hooks.disconnect?.(this, peer);
  }

  override onStop(): void {
    if (this.hooks.stop) this.hooks.stop(this);
    else super.onStop();
  }

  override kill(): void {
    if (this.alive) this.hooks.killed?.(this);
    super.kill();
  }
}

/** Adds a process running `hooks` and returns a function giving its current incarnation (or undefined). */
export function addTestProcess(world: World, hostId: string, id: string, hooks: Hooks = {}): () => TestProcess | undefined {
  const host = world.host(hostId);
  host.addProcess({ id, create: (ctx) => new TestProcess(id, ctx, hooks) });
  return () => host.process(id) as TestProcess | undefined;
}

/** A world with hosts given as `id@zone/rack` (zone and rack optional). */
export function makeWorld(opts: Partial<WorldOptions> & { hosts: string[] }): World {
  const world = new World({ seed: 1, ...opts });
  for (const spec of opts.hosts) {
    const m = /^([^@]+)(?:@([^/]+))?(?:\/(.+))?$/.exec(spec)!;
    world.addHost({ id: m[1]!, ...(m[2] ? { zone: m[2] } : {}), ...(m[3] ? { rack: m[3] } : {}) });
  }
  return world;
}

/** Validates a hand-written schedule against the world's targets and schedules it. */
export function scheduleFaults(world: World, entries: readonly FaultEntry[]): void {
  world.schedule(validateSchedule(entries, world.resolver));
}

/** The events the world kept in memory. */
export function events(world: World): TraceEvent[] {
  return world.memory!.events;
}

/** The events of the given kinds, in trace order. */
export function eventsOf<K extends TraceKind>(world: World, ...kinds: K[]): TraceEventOf<K>[] {
  return events(world).filter((e): e is TraceEventOf<K> => (kinds as string[]).includes(e.kind));
}
