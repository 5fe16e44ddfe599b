import { Random } from '../core/random';
import { Scheduler } from '../core/scheduler';
import type { Micros } from '../core/time';
import { MemorySink, Trace, makeHeader, type TraceSink } from '../core/trace';
import { DEFAULT_DISK_CONFIG, Disk, type DiskConfig, type FileInspection } from './disk';
import { Host, type HostOptions, type HostState } from './host';
import { DEFAULT_NETWORK_CONFIG, Network, type LinkFault, type NetworkConfig } from './network';
import type { Fault, TargetResolver } from './nemesis';

export interface WorldOptions {
  readonly seed: number | string;
  /** Names the run in the trace header. */
  readonly scenario?: string;
  /** The run's resolved configuration, written into the trace header. */
  readonly config?: unknown;
  readonly network?: Partial<NetworkConfig>;
  readonly disk?: Partial<DiskConfig>;
  /** Extra trace sinks (a file, a filter). An in-memory sink is always kept unless `keepEvents` is false. */
  readonly sinks?: readonly TraceSink[];
  readonly keepEvents?: boolean;
  /** Compute the trace hash as the run goes (on by default). */
  readonly hash?: boolean;
}

export interface HostInspection {
  readonly id: string;
  readonly rack: string;
  readonly zone: string;
  readonly state: HostState;
  readonly processes: string[];
  readonly disk: FileInspection[];
}

/**
 * The simulated world: one clock, one root seed, a network, hosts with disks, and the fault verbs.
 * Everything above (Kafka) runs as processes on its hosts. Nothing here knows about Kafka.
 */
export class World {
  readonly scheduler: Scheduler;
  readonly trace: Trace;
  readonly random: Random;
  readonly network: Network;
  readonly memory: MemorySink | undefined;
  private readonly hostMap = new Map<string, Host>();
  private readonly diskConfig: DiskConfig;
  /** Resolvers for selectors beyond host ids, zones, racks and tags (a higher layer adds its own). */
  private readonly resolvers: TargetResolver[] = [];

  constructor(readonly options: WorldOptions) {
    this.scheduler = new Scheduler();
    this.random = Random.root(options.seed);
    const sinks: TraceSink[] = [];
    if (options.keepEvents !== false) {
      this.memory = new MemorySink();
      sinks.push(this.memory);
    }
    sinks.push(...(options.sinks ?? []));
    this.trace = new Trace(this.scheduler, makeHeader(options.scenario ?? 'world', options.seed, options.config ?? {}), sinks, {
      hash: options.hash !== false,
    });
    this.network = new Network(this.scheduler, this.trace, this.random.fork('network'), { ...DEFAULT_NETWORK_CONFIG, ...options.network });
    this.diskConfig = { ...DEFAULT_DISK_CONFIG, ...options.disk };
  }

  get now(): Micros {
    return this.scheduler.now;
  }

  addHost(opts: HostOptions, disk: Partial<DiskConfig> = {}): Host {
    if (this.hostMap.has(opts.id)) throw new Error(`a host named ${opts.id} already exists`);
    const d = new Disk(opts.id, this.scheduler, this.trace, this.random.fork(`disk/${opts.id}`), { ...this.diskConfig, ...disk });
    const h = new Host(opts, d, this.scheduler, this.trace, this.random.fork(`host/${opts.id}`), this.network);
    this.hostMap.set(opts.id, h);
    return h;
  }

  host(id: string): Host {
    const h = this.hostMap.get(id);
    if (!h) throw new Error(`no host named ${id}`);
    return h;
  }

  hosts(): Host[] {
    return [...this.hostMap.values()];
  }

  /** Starts every host's processes. */
  start(): void {
    for (const h of this.hostMap.values()) h.start();
  }

  runUntil(time: Micros, maxEvents?: number): number {
    return this.scheduler.runUntil(time, maxEvents);
  }

  // ---- targets ----

  addResolver(r: TargetResolver): void {
    this.resolvers.push(r);
  }

  /** The resolver the fault schedule validates and fires against: hosts, zones, racks, tags, and added ones. */
  get resolver(): TargetResolver {
    const hosts = [...this.hostMap.values()];
    return {
      prefixes: ['zone:', 'rack:', 'tag:', ...this.resolvers.flatMap((r) => r.prefixes)],
      hostIds: hosts.map((h) => h.id),
      resolve: (sel: string) => {
        if (sel === '*') return hosts.map((h) => h.id);
        if (this.hostMap.has(sel)) return [sel];
        if (sel.startsWith('zone:')) return hosts.filter((h) => h.zone === sel.slice(5)).map((h) => h.id);
        if (sel.startsWith('rack:')) return hosts.filter((h) => h.rack === sel.slice(5)).map((h) => h.id);
        if (sel.startsWith('tag:')) return hosts.filter((h) => h.tags.includes(sel.slice(4))).map((h) => h.id);
        for (const r of this.resolvers) {
          const out = r.resolve(sel);
          if (out) return out;
        }
        return null;
      },
    };
  }

  private resolveAll(selectors: readonly string[] | undefined): string[] {
    const out = new Set<string>();
    const r = this.resolver;
    for (const s of selectors ?? []) for (const id of r.resolve(s) ?? []) out.add(id);
    return [...out].sort();
  }

  // ---- faults ----

  /** Schedules every fault of a validated schedule (see `validateSchedule`). */
  schedule(faults: readonly Fault[]): void {
    for (const f of faults) {
      this.scheduler.at(f.atUs, () => this.applyFault(f), undefined, `fault #${f.index} (${f.fault})`);
    }
  }

  /** Applies one fault now; if it has a duration, undoes it later. */
  applyFault(f: Fault): void {
    const targets = this.resolveAll(f.targets);
    const hosts = (ids: string[]) => ids.map((id) => this.host(id));
    let undo: (() => string[]) | undefined;
    let involved = targets;
    let detail = '';
    switch (f.fault) {
      case 'crash':
        for (const h of hosts(targets)) h.crash();
        undo = () => {
          for (const h of hosts(targets)) h.restart();
          return targets;
        };
        break;
      case 'power-loss':
        for (const h of hosts(targets)) h.powerOff();
        undo = () => {
          for (const h of hosts(targets)) h.restart();
          return targets;
        };
        break;
      case 'restart':
      case 'power-on':
        for (const h of hosts(targets)) h.restart();
        break;
      case 'pause':
        for (const h of hosts(targets)) h.pause();
        undo = () => {
          for (const h of hosts(targets)) h.resume();
          return targets;
        };
        break;
      case 'resume':
        for (const h of hosts(targets)) h.resume();
        break;
      case 'isolate': {
        const rest = [...this.hostMap.keys()].filter((id) => !targets.includes(id)).sort();
        const groups = [targets, rest];
        this.network.partition(groups);
        undo = () => {
          this.network.unpartition(groups);
          return targets;
        };
        break;
      }
      case 'partition': {
        const groups = (f.groups ?? []).map((g) => this.resolveAll(g));
        involved = groups.flat().sort();
        detail = groups.map((g) => `[${g.join(',')}]`).join(' | ');
        this.network.partition(groups);
        undo = () => {
          this.network.unpartition(groups);
          return involved;
        };
        break;
      }
      case 'one-way': {
        const from = this.resolveAll(f.from);
        const to = this.resolveAll(f.to);
        involved = [...new Set([...from, ...to])].sort();
        detail = `[${from.join(',')}] -/-> [${to.join(',')}]`;
        this.network.cutOneWay(from, to);
        undo = () => {
          this.network.uncutOneWay(from, to);
          return involved;
        };
        break;
      }
      case 'heal':
        if (targets.length > 0) this.network.heal(targets);
        else this.network.heal();
        this.network.clearLinkFaults();
        break;
      case 'latency':
      case 'lossy': {
        const from = this.resolveAll(f.from);
        const to = this.resolveAll(f.to);
        involved = [...new Set([...from, ...to])].sort();
        const fault: LinkFault = { extraLatencyMs: f.addMs ?? 0, extraJitterMs: f.jitterMs ?? 0, lossRate: f.rate ?? 0 };
        detail = f.fault === 'lossy' ? `loss ${fault.lossRate}` : `+${fault.extraLatencyMs}ms ~${fault.extraJitterMs}ms`;
        for (const a of from) for (const b of to) if (a !== b) this.network.setLinkFault(a, b, fault);
        undo = () => {
          for (const a of from) for (const b of to) if (a !== b) this.network.setLinkFault(a, b, null);
          return involved;
        };
        break;
      }
      case 'slow-disk':
        for (const h of hosts(targets)) h.disk.slowFactor = f.factor ?? 10;
        detail = `x${f.factor ?? 10}`;
        undo = () => {
          for (const h of hosts(targets)) h.disk.slowFactor = 1;
          return targets;
        };
        break;
      case 'disk-full':
        for (const h of hosts(targets)) h.disk.full = true;
        undo = () => {
          for (const h of hosts(targets)) h.disk.full = false;
          return targets;
        };
        break;
    }
    this.trace.emit('fault.start', 'nemesis', { index: f.index, fault: f.fault, hosts: involved, detail });
    if (undo && f.durationUs !== undefined) {
      const u = undo;
      this.scheduler.after(
        f.durationUs,
        () => {
          const hs = u();
          this.trace.emit('fault.end', 'nemesis', { index: f.index, fault: f.fault, hosts: hs });
        },
        undefined,
        `the end of fault #${f.index}`,
      );
    }
  }

  // ---- inspection (tests and the UI; never read by actors) ----

  inspect(): { now: Micros; hosts: HostInspection[]; network: ReturnType<Network['inspect']> } {
    return {
      now: this.now,
      hosts: [...this.hostMap.values()].map((h) => ({
        id: h.id,
        rack: h.rack,
        zone: h.zone,
        state: h.state,
        processes: h.processes().map((p) => p.id),
        disk: h.disk.inspect(),
      })),
      network: this.network.inspect(),
    };
  }
}
