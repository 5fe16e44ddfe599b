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
  /** Record routine detail (see Trace.detail); off for a minimal trace. */
  readonly traceDetail?: boolean;
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
  /** Which applied faults hold each host's effect (by fault token), so each undo undoes only its own. */
  private nextFaultToken = 0;
  /** Crashes and stops: either keeps a host's processes down. */
  private readonly crashHeld = new Map<string, Set<number>>();
  private readonly powerHeld = new Map<string, Set<number>>();
  private readonly pauseHeld = new Map<string, Set<number>>();
  private readonly fullHeld = new Map<string, Set<number>>();
  private readonly slowHeld = new Map<string, Map<number, number>>();
  /** The directed cuts each cutting fault still holds (a heal removes some). */
  private readonly cutsHeld = new Map<number, [string, string][]>();
  /** from host -> to host -> fault token -> its link fault. */
  private readonly linkHeld = new Map<string, Map<string, Map<number, LinkFault>>>();

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
      detail: options.traceDetail !== false,
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

  /**
   * Applies one fault now; if it has a duration, undoes it later. Its `fault.start` comes before its effects
   * and its `fault.end` before their undoing. Faults may overlap on the same hosts and links: each holds its
   * own effect, and its end undoes only that (a host comes back when no crash, stop or power loss holds it any more;
   * latency and loss on a link add up; a slow disk takes the largest factor in force). `restart`, `power-on`
   * and `resume` end every crash, stop, power loss or pause holding their hosts; `heal` ends every cut and link fault
   * touching its hosts (all of them without targets).
   */
  applyFault(f: Fault): void {
    const token = this.nextFaultToken++;
    const targets = this.resolveAll(f.targets);
    const hosts = (ids: string[]) => ids.map((id) => this.host(id));
    let apply: () => void;
    let undo: (() => void) | undefined;
    let involved = targets;
    let detail = '';
    switch (f.fault) {
      case 'crash':
        apply = () => {
          for (const h of hosts(targets)) {
            hold(this.crashHeld, h.id, token);
            h.crash();
          }
        };
        undo = () => {
          for (const h of hosts(targets)) {
            if (release(this.crashHeld, h.id, token) && !held(this.powerHeld, h.id)) h.restart();
          }
        };
        break;
      case 'stop':
        // A stop holds the processes down like a crash does; its end (or `restart`) starts them again once
        // they have finished shutting down.
        apply = () => {
          for (const h of hosts(targets)) {
            hold(this.crashHeld, h.id, token);
            h.stop();
          }
        };
        undo = () => {
          for (const h of hosts(targets)) {
            if (release(this.crashHeld, h.id, token) && !held(this.powerHeld, h.id)) h.restart();
          }
        };
        break;
      case 'power-loss':
        apply = () => {
          for (const h of hosts(targets)) {
            hold(this.powerHeld, h.id, token);
            h.powerOff();
          }
        };
        undo = () => {
          for (const h of hosts(targets)) {
            if (!release(this.powerHeld, h.id, token)) continue;
            // A crash still in force keeps the processes down; the OS comes back all the same.
            if (held(this.crashHeld, h.id)) h.powerOn();
            else h.restart();
          }
        };
        break;
      case 'restart':
      case 'power-on':
        apply = () => {
          for (const h of hosts(targets)) {
            this.crashHeld.delete(h.id);
            this.powerHeld.delete(h.id);
            h.restart();
          }
        };
        break;
      case 'pause':
        apply = () => {
          for (const h of hosts(targets)) {
            hold(this.pauseHeld, h.id, token);
            h.pause();
          }
        };
        undo = () => {
          for (const h of hosts(targets)) if (release(this.pauseHeld, h.id, token)) h.resume();
        };
        break;
      case 'resume':
        apply = () => {
          for (const h of hosts(targets)) {
            this.pauseHeld.delete(h.id);
            h.resume();
          }
        };
        break;
      case 'isolate':
      case 'partition':
      case 'one-way': {
        let pairs: [string, string][];
        if (f.fault === 'one-way') {
          const from = this.resolveAll(f.from);
          const to = this.resolveAll(f.to);
          involved = [...new Set([...from, ...to])].sort();
          detail = `[${from.join(',')}] -/-> [${to.join(',')}]`;
          pairs = directedPairs([from, to], false);
        } else if (f.fault === 'partition') {
          const groups = (f.groups ?? []).map((g) => this.resolveAll(g));
          involved = [...new Set(groups.flat())].sort();
          detail = groups.map((g) => `[${g.join(',')}]`).join(' | ');
          pairs = directedPairs(groups, true);
        } else {
          const rest = [...this.hostMap.keys()].filter((id) => !targets.includes(id)).sort();
          pairs = directedPairs([targets, rest], true);
        }
        apply = () => {
          for (const [a, b] of pairs) this.network.cutOneWay([a], [b]);
          this.cutsHeld.set(token, pairs);
        };
        undo = () => {
          // Only the cuts of this fault that no heal has removed since.
          const mine = this.cutsHeld.get(token) ?? [];
          this.cutsHeld.delete(token);
          for (const [a, b] of mine) this.network.uncutOneWay([a], [b]);
        };
        break;
      }
      case 'heal': {
        const only = f.targets === undefined ? undefined : new Set(targets);
        apply = () => {
          if (!only) {
            this.network.heal();
            this.network.clearLinkFaults();
            this.cutsHeld.clear();
            this.linkHeld.clear();
            return;
          }
          const touches = (a: string, b: string) => only.has(a) || only.has(b);
          this.network.heal([...only]);
          for (const [t, pairs] of this.cutsHeld) this.cutsHeld.set(t, pairs.filter(([a, b]) => !touches(a, b)));
          for (const [a, m] of this.linkHeld) {
            for (const b of [...m.keys()]) {
              if (!touches(a, b)) continue;
              m.delete(b);
              this.network.setLinkFault(a, b, null);
            }
            if (m.size === 0) this.linkHeld.delete(a);
          }
        };
        break;
      }
      case 'latency':
      case 'lossy': {
        const from = this.resolveAll(f.from);
        const to = this.resolveAll(f.to);
        involved = [...new Set([...from, ...to])].sort();
        const fault: LinkFault = { extraLatencyMs: f.addMs ?? 0, extraJitterMs: f.jitterMs ?? 0, lossRate: f.rate ?? 0 };
        detail = f.fault === 'lossy' ? `loss ${fault.lossRate}` : `+${fault.extraLatencyMs}ms ~${fault.extraJitterMs}ms`;
        const pairs = directedPairs([from, to], false);
        apply = () => {
          for (const [a, b] of pairs) {
            let m = this.linkHeld.get(a);
            if (!m) this.linkHeld.set(a, (m = new Map()));
            let byToken = m.get(b);
            if (!byToken) m.set(b, (byToken = new Map()));
            byToken.set(token, fault);
            this.network.setLinkFault(a, b, combineLinkFaults(byToken));
          }
        };
        undo = () => {
          for (const [a, b] of pairs) {
            const m = this.linkHeld.get(a);
            const byToken = m?.get(b);
            if (!m || !byToken || !byToken.delete(token)) continue; // healed since
            if (byToken.size > 0) {
              this.network.setLinkFault(a, b, combineLinkFaults(byToken));
              continue;
            }
            m.delete(b);
            if (m.size === 0) this.linkHeld.delete(a);
            this.network.setLinkFault(a, b, null);
          }
        };
        break;
      }
      case 'slow-disk': {
        const factor = f.factor ?? 10;
        detail = `x${factor}`;
        apply = () => {
          for (const h of hosts(targets)) {
            let m = this.slowHeld.get(h.id);
            if (!m) this.slowHeld.set(h.id, (m = new Map()));
            m.set(token, factor);
            h.disk.slowFactor = Math.max(...m.values());
          }
        };
        undo = () => {
          for (const h of hosts(targets)) {
            const m = this.slowHeld.get(h.id);
            if (!m || !m.delete(token)) continue;
            if (m.size > 0) h.disk.slowFactor = Math.max(...m.values());
            else {
              this.slowHeld.delete(h.id);
              h.disk.slowFactor = 1;
            }
          }
        };
        break;
      }
      case 'disk-full':
        apply = () => {
          for (const h of hosts(targets)) {
            hold(this.fullHeld, h.id, token);
            h.disk.full = true;
          }
        };
        undo = () => {
          for (const h of hosts(targets)) if (release(this.fullHeld, h.id, token)) h.disk.full = false;
        };
        break;
    }
    this.trace.emit('fault.start', 'nemesis', { index: f.index, fault: f.fault, hosts: involved, detail });
    apply();
    if (undo && f.durationUs !== undefined) {
      const u = undo;
      const hs = involved;
      this.scheduler.after(
        f.durationUs,
        () => {
          this.trace.emit('fault.end', 'nemesis', { index: f.index, fault: f.fault, hosts: hs });
          u();
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

function hold(m: Map<string, Set<number>>, host: string, token: number): void {
  let set = m.get(host);
  if (!set) m.set(host, (set = new Set()));
  set.add(token);
}

/** Drops a fault's hold on a host; true when it held it and was the last to. */
function release(m: Map<string, Set<number>>, host: string, token: number): boolean {
  const set = m.get(host);
  if (!set || !set.delete(token)) return false;
  if (set.size > 0) return false;
  m.delete(host);
  return true;
}

function held(m: Map<string, Set<number>>, host: string): boolean {
  return (m.get(host)?.size ?? 0) > 0;
}

/** Every directed host pair from one group to another (both ways when `symmetric`), never a host to itself. */
function directedPairs(groups: readonly (readonly string[])[], symmetric: boolean): [string, string][] {
  const out: [string, string][] = [];
  for (let i = 0; i < groups.length; i++) {
    for (let j = 0; j < groups.length; j++) {
      if (i === j || (!symmetric && j !== i + 1)) continue;
      for (const a of groups[i]!) for (const b of groups[j]!) if (a !== b) out.push([a, b]);
    }
  }
  return out;
}

/** Overlapping link faults add up: latencies and jitters sum, losses combine independently. */
function combineLinkFaults(byToken: ReadonlyMap<number, LinkFault>): LinkFault {
  if (byToken.size === 1) for (const f of byToken.values()) return { ...f };
  let extraLatencyMs = 0;
  let extraJitterMs = 0;
  let keep = 1;
  for (const f of byToken.values()) {
    extraLatencyMs += f.extraLatencyMs;
    extraJitterMs += f.extraJitterMs;
    keep *= 1 - f.lossRate;
  }
  return { extraLatencyMs, extraJitterMs, lossRate: 1 - keep };
}
