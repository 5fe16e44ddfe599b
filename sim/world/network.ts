import type { Actor, Transport } from '../core/actor';
import type { Random } from '../core/random';
import type { Scheduler } from '../core/scheduler';
import { ms, type Micros } from '../core/time';
import type { Trace } from '../core/trace';
import { defineKinds, json, num, oneOf, str, type KindsOf } from '../core/traceSchema';

/** Why a message did not go through now; 'held-by-cut' ones wait for the heal and may still arrive. */
export const DROP_REASONS = ['held-by-cut', 'lossy', 'connection-broken', 'unreachable', 'process-down'] as const;
export type DropReason = (typeof DROP_REASONS)[number];
export const DISCONNECT_CAUSES = ['peer-crashed', 'link-failure', 'connect-failed', 'closed-by-peer', 'connection-refused'] as const;
export type DisconnectCause = (typeof DISCONNECT_CAUSES)[number];

/** What the network does with messages (net.send only in a "full" trace). */
export const NETWORK_KINDS = defineKinds({
  /** A message left for `to`; it arrives at `arrive` (us) unless a fault intervenes. `msg` is the message as sent. */
  'net.send': { to: str, type: str, bytes: num, arrive: num, msg: json },
  'net.drop': { to: str, type: str, reason: oneOf(...DROP_REASONS) },
  /** A connection to `peer` broke. */
  'net.disconnect': { peer: str, cause: oneOf(...DISCONNECT_CAUSES) },
});

declare module '../core/trace' {
  interface TraceKinds extends KindsOf<typeof NETWORK_KINDS> {}
}

export interface LatencyConfig {
  readonly baseMs: number;
  /** Mean of an exponential jitter added to the base. */
  readonly jitterMs: number;
}

export interface NetworkConfig {
  readonly sameZone: LatencyConfig;
  readonly crossZone: LatencyConfig;
  /** Egress bandwidth per host in bytes per second; null = unlimited. */
  readonly bandwidthBytesPerSec: number | null;
  /** A connection that dies silently (power loss, cut link, lost packet) is noticed this late (TCP's own timeout). */
  readonly silentFailureDetectionMs: number;
  /**
   * A message lost on a lossy link resets its connection, and both ends hear of it this soon (about one
   * TCP retransmission timeout). Real TCP would retransmit; the reset stands for a connection that fails.
   */
  readonly lossDetectionMs: number;
  /** A connection attempt to a host that does not answer fails after this long. */
  readonly connectTimeoutMs: number;
  /** Record every message as a trace event (for the UI's sequence diagram). */
  readonly traceMessages: boolean;
}

export const DEFAULT_NETWORK_CONFIG: NetworkConfig = {
  sameZone: { baseMs: 0.25, jitterMs: 0.05 },
  crossZone: { baseMs: 1, jitterMs: 0.2 },
  bandwidthBytesPerSec: null,
  silentFailureDetectionMs: 120_000,
  lossDetectionMs: 200,
  connectTimeoutMs: 10_000,
  traceMessages: false,
};

/** The network's view of a host: where it is and whether its processes can answer. */
export interface NetHost {
  readonly id: string;
  readonly zone: string;
  /** The host has power and its OS answers (it may still be paused). */
  readonly osUp: boolean;
  /** Delivers a message to an actor on this host (the host queues it if paused). */
  deliver(actorId: string, from: string, msg: unknown): void;
  /** Tells an actor on this host that a connection broke. */
  notifyDisconnect(actorId: string, peer: string): void;
  /** Whether the actor's process is alive on this host. */
  hasLiveActor(actorId: string): boolean;
}

/** Extra latency, jitter or loss on one direction of a host pair. */
export interface LinkFault {
  extraLatencyMs: number;
  extraJitterMs: number;
  lossRate: number;
}

/**
 * A TCP connection between two actors: in order, no duplicates, while it lives. When it breaks, each
 * end learns it through `onDisconnect` (after a detection delay); until then its sends vanish, exactly
 * as writes into a dead socket do. A new send after that end learned of the break opens a new one.
 *
 * An actor sees one connection per peer at a time. If the peer opens a new connection while this end has
 * not yet learned that the old one broke, the old one stays this end's connection (its sends still vanish)
 * until it learns; and it learns before anything from the new connection reaches it. So each end sees,
 * per peer: the messages of one connection, its disconnect, the messages of the next, and so on.
 */
class Connection {
  broken = false;
  /** Whether each end still believes the connection is open. */
  aOpen = true;
  bOpen = true;
  /** Why it broke (reported when a notice is brought forward). */
  cause: DisconnectCause = 'link-failure';
  /**
   * The end that closed it (`close`), if one did: what that end sent before closing is already on the wire and
   * still arrives, ahead of the FIN (TCP delivers written bytes, then the FIN); nothing comes back to it.
   */
  closedBy: string | undefined = undefined;
  /** The connection this one replaced while an end of the older one still believed it open. */
  prev: Connection | undefined = undefined;
  /** Arrival time of the last message in each direction, to keep each direction in order. */
  lastAtoB: Micros = 0;
  lastBtoA: Micros = 0;
  /**
   * Messages that could not cross a cut link, in order, per direction: TCP keeps retransmitting them and
   * they arrive once the link heals, unless the connection dies first.
   */
  heldAtoB: Held[] | null = null;
  heldBtoA: Held[] | null = null;
  constructor(
    readonly a: string,
    readonly b: string,
  ) {}
  openFor(end: string): boolean {
    return end === this.a ? this.aOpen : this.bOpen;
  }
  closeEnd(end: string): void {
    if (end === this.a) this.aOpen = false;
    else this.bOpen = false;
  }
  get anyOpen(): boolean {
    return this.aOpen || this.bOpen;
  }
}

interface Held {
  readonly from: string;
  readonly to: string;
  readonly msg: unknown;
  readonly bytes: number;
  /** Its place in the send order (see Network.sendSeq): held traffic goes out in this order. */
  readonly seq: number;
}

interface InFlight {
  readonly conn: Connection;
  readonly from: string;
  readonly to: string;
  readonly host: NetHost;
  readonly msg: unknown;
  readonly seq: number;
}

function typeOf(msg: unknown): string {
  return typeof msg === 'object' && msg !== null && typeof (msg as { type?: unknown }).type === 'string'
    ? (msg as { type: string }).type
    : typeof msg;
}

/**
 * The simulated network. Latency is a base plus exponential jitter from the network's own seeded stream,
 * with separate settings within a zone and across zones. Faults cut directed host pairs (a partition is
 * a set of cuts), add latency or loss to a link; a cut breaks every connection across it.
 */
export class Network implements Transport {
  private readonly hosts = new Map<string, NetHost>();
  private readonly actorHost = new Map<string, NetHost>();
  private readonly conns = new Map<string, Map<string, Connection>>();
  /**
   * Directed cuts, counted: `cut.get(a)?.get(b) > 0` means nothing from host a reaches host b. Counting
   * lets overlapping faults each undo only their own cuts.
   */
  private readonly cut = new Map<string, Map<string, number>>();
  private readonly linkFaults = new Map<string, Map<string, LinkFault>>();
  private readonly txFreeAt = new Map<string, Micros>();

  constructor(
    private readonly scheduler: Scheduler,
    private readonly trace: Trace,
    private readonly random: Random,
    readonly config: NetworkConfig = DEFAULT_NETWORK_CONFIG,
  ) {}

  addHost(host: NetHost): void {
    this.hosts.set(host.id, host);
  }

  /** Registers where an actor lives, so messages to it find its host. */
  placeActor(actorId: string, host: NetHost): void {
    this.actorHost.set(actorId, host);
  }

  hostOf(actorId: string): NetHost | undefined {
    return this.actorHost.get(actorId);
  }

  // ---- sending ----

  send(from: Actor, to: string, msg: unknown, bytes: number): void {
    const fromHost = this.actorHost.get(from.id);
    const toHost = this.actorHost.get(to);
    if (!fromHost) throw new Error(`network: ${from.id} sends but was never placed on a host`);
    if (!toHost) throw new Error(`network: ${from.id} sends ${typeOf(msg)} to ${to}, which is on no host`);
    let conn = this.current(from.id, to);
    if (conn && !conn.openFor(from.id)) conn = undefined; // this end already learned of the break: reconnect
    if (!conn) {
      conn = new Connection(from.id, to);
      conn.prev = this.withOpenEnd(this.connection(from.id, to));
      this.setConnection(from.id, to, conn);
      // Establishing: the peer's OS must answer now, or the attempt fails. The peer never accepted it, so only
      // this end hears of the failure.
      if (!toHost.osUp || this.isCut(fromHost.id, toHost.id) || this.isCut(toHost.id, fromHost.id)) {
        this.drop(from.id, to, msg, 'unreachable');
        conn.closeEnd(to);
        this.breakConnection(conn, 'silent', 'connect-failed', ms(this.config.connectTimeoutMs));
        return;
      }
      if (!toHost.hasLiveActor(to)) {
        this.drop(from.id, to, msg, 'process-down');
        conn.closeEnd(to);
        this.breakConnection(conn, 'silent', 'connection-refused', this.latency(fromHost, toHost) * 2);
        return;
      }
    }
    if (conn.broken) {
      this.drop(from.id, to, msg, 'connection-broken');
      // The peer's end is gone (its process died): if the packet reaches its OS, a reset comes back.
      if (!conn.openFor(to) && toHost.osUp && !this.isCut(fromHost.id, toHost.id) && !this.isCut(toHost.id, fromHost.id)) {
        this.scheduleNotice(conn, from.id, to, 'connection-refused', this.latency(fromHost, toHost) * 2);
      }
      return;
    }
    if (this.isCut(fromHost.id, toHost.id) || this.holding(conn, from.id)) {
      // TCP keeps retransmitting across the cut: the message waits for the heal (or the connection's end).
      this.hold(conn, { from: from.id, to, msg, bytes, seq: this.sendSeq++ });
      return;
    }
    const fault = this.linkFaults.size > 0 ? this.linkFaults.get(fromHost.id)?.get(toHost.id) : undefined;
    if (fault && fault.lossRate > 0 && this.random.chance(fault.lossRate)) {
      this.drop(from.id, to, msg, 'lossy');
      this.breakConnection(conn, 'silent', 'link-failure', ms(this.config.lossDetectionMs));
      return;
    }
    const now = this.scheduler.now;
    let departs = now;
    const bw = this.config.bandwidthBytesPerSec;
    if (bw !== null) {
      const free = Math.max(now, this.txFreeAt.get(fromHost.id) ?? 0);
      departs = free + Math.ceil((bytes / bw) * 1e6);
      this.txFreeAt.set(fromHost.id, departs);
    }
    let arrive = departs + this.latency(fromHost, toHost, fault);
    // One direction of a connection never reorders.
    if (from.id === conn.a) {
      if (arrive < conn.lastAtoB) arrive = conn.lastAtoB;
      conn.lastAtoB = arrive;
    } else {
      if (arrive < conn.lastBtoA) arrive = conn.lastBtoA;
      conn.lastBtoA = arrive;
    }
    if (this.config.traceMessages) {
      this.trace.emit('net.send', from.id, { to, type: typeOf(msg), bytes, arrive, msg });
    }
    const flight: InFlight = { conn, from: from.id, to, host: toHost, msg, seq: this.sendSeq++ };
    this.scheduler.at(arrive, this.arrive, flight, 'a message delivery');
  }

  /**
   * A message reaches its receiver's host, unless its connection broke on the way or a cut holds it. A
   * connection its sender closed still delivers what the sender wrote before the close (it is ahead of the FIN).
   */
  private readonly arrive = (f: InFlight): void => {
    // (Even once a message of the sender's next connection overtook it: the receiver's old socket still holds
    // those bytes and reads them, as a broker reads a request that arrives late on a connection its client left.)
    if (f.conn.broken && f.conn.closedBy !== f.from) return;
    const fromHost = this.cut.size > 0 ? this.actorHost.get(f.from) : undefined; // no lookup while nothing is cut
    if (fromHost && this.isCut(fromHost.id, f.host.id)) {
      this.hold(f.conn, { from: f.from, to: f.to, msg: f.msg, bytes: 0, seq: f.seq });
      return;
    }
    // The receiver first learns that its older connection to the sender is gone.
    this.noticeOlder(f.conn, f.to, f.from);
    f.host.deliver(f.to, f.from, f.msg);
  };

  /** The local end closes its connection to `peer` (a request timed out); the peer learns of it. */
  close(from: string, peer: string): void {
    const conn = this.current(from, peer);
    if (!conn || !conn.openFor(from)) return;
    conn.closeEnd(from);
    if (conn.broken) return;
    conn.broken = true;
    conn.cause = 'closed-by-peer';
    conn.closedBy = from;
    const fromHost = this.actorHost.get(from);
    const peerHost = this.actorHost.get(peer);
    if (!fromHost || !peerHost) return;
    // A FIN reaches the peer if the way is open, after the bytes written before it (a request already sent is
    // still delivered and processed; its response finds the connection gone); across a cut it is retransmitted
    // and arrives after the heal; a peer whose machine is off finds out the slow way.
    const reachable = peerHost.osUp && !this.isCut(fromHost.id, peerHost.id);
    const lastData = from === conn.a ? conn.lastAtoB : conn.lastBtoA;
    const delay = reachable ? Math.max(this.latency(fromHost, peerHost), lastData - this.scheduler.now) : ms(this.config.silentFailureDetectionMs);
    this.scheduleNotice(conn, peer, from, 'closed-by-peer', delay);
    if (!reachable && peerHost.osUp) this.pendingFins.push({ conn, peer, from });
  }

  private drop(from: string, to: string, msg: unknown, reason: DropReason): void {
    if (this.config.traceMessages) this.trace.emit('net.drop', from, { to, type: typeOf(msg), reason });
  }

  private latency(from: NetHost, to: NetHost, fault?: LinkFault): Micros {
    const l = from.zone === to.zone ? this.config.sameZone : this.config.crossZone;
    let t = ms(l.baseMs) + (l.jitterMs > 0 ? ms(this.random.exponential(l.jitterMs)) : 0);
    if (fault) {
      t += ms(fault.extraLatencyMs);
      if (fault.extraJitterMs > 0) t += ms(this.random.exponential(fault.extraJitterMs));
    }
    return Math.max(1, t);
  }

  // ---- connections ----

  /** The newest connection between two actors (whoever opened it). */
  private connection(a: string, b: string): Connection | undefined {
    return this.conns.get(a)?.get(b);
  }

  /** The connection `end` uses to reach `peer`: the oldest one it still believes open, else the newest. */
  private current(end: string, peer: string): Connection | undefined {
    const head = this.connection(end, peer);
    let found: Connection | undefined;
    for (let c = head; c; c = c.prev) if (c.openFor(end)) found = c;
    return found ?? head;
  }

  /** The first connection of a chain that an end still believes open; drops fully closed ones from it. */
  private withOpenEnd(c: Connection | undefined): Connection | undefined {
    while (c && !c.anyOpen) c = c.prev;
    for (let p = c; p; p = p.prev) {
      let q = p.prev;
      while (q && !q.anyOpen) q = q.prev;
      p.prev = q;
    }
    return c;
  }

  /** Delivers, oldest first, the pending notices of connections older than `conn` that `end` still believes open. */
  private noticeOlder(conn: Connection, end: string, peer: string): void {
    if (!conn.prev) return;
    let older: Connection[] | undefined;
    for (let c: Connection | undefined = conn.prev; c; c = c.prev) if (c.openFor(end)) (older ??= []).push(c);
    if (older) for (let i = older.length - 1; i >= 0; i--) this.notice(older[i]!, end, peer, older[i]!.cause);
    // Forget the older connections once neither end awaits news of them.
    conn.prev = this.withOpenEnd(conn.prev);
  }

  private setConnection(a: string, b: string, c: Connection): void {
    let m = this.conns.get(a);
    if (!m) this.conns.set(a, (m = new Map()));
    m.set(b, c);
    let n = this.conns.get(b);
    if (!n) this.conns.set(b, (n = new Map()));
    n.set(a, c);
  }

  /**
   * Breaks a connection. `silent` breaks are noticed after the detection delay (or `delay`); a crashed
   * peer's OS answers at once, so `fin` breaks are noticed after one trip.
   */
  private breakConnection(conn: Connection, mode: 'silent' | 'fin', cause: DisconnectCause, delay?: Micros): void {
    if (conn.broken) return;
    conn.broken = true;
    conn.cause = cause;
    const d = delay ?? (mode === 'silent' ? ms(this.config.silentFailureDetectionMs) : 0);
    if (conn.aOpen) this.scheduleNotice(conn, conn.a, conn.b, cause, d);
    if (conn.bOpen) this.scheduleNotice(conn, conn.b, conn.a, cause, d);
  }

  private scheduleNotice(conn: Connection, end: string, peer: string, cause: DisconnectCause, delay: Micros): void {
    this.scheduler.after(delay, () => this.notice(conn, end, peer, cause), undefined, `the disconnect notice to ${end}`);
  }

  /** `end` learns that `conn` broke (once; never an incarnation that did not hold it, see `actorsDied`). */
  private notice(conn: Connection, end: string, peer: string, cause: DisconnectCause): void {
    if (!conn.openFor(end)) return;
    this.noticeOlder(conn, end, peer);
    conn.closeEnd(end);
    const host = this.actorHost.get(end);
    if (!host || !host.hasLiveActor(end)) return;
    this.trace.emit('net.disconnect', end, { peer, cause });
    host.notifyDisconnect(end, peer);
  }

  /** Every connection with an end on `hostId`'s actors. */
  private connectionsOfHost(hostId: string): Connection[] {
    const out = new Set<Connection>();
    for (const [actorId, m] of this.conns) {
      if (this.actorHost.get(actorId)?.id !== hostId) continue;
      for (const c of m.values()) if (!c.broken) out.add(c);
    }
    return [...out];
  }

  /** Every live connection between hosts a and b. */
  private connectionsBetween(a: string, b: string): Connection[] {
    return this.connectionsOfHost(a).filter((c) => {
      const ha = this.actorHost.get(c.a)?.id;
      const hb = this.actorHost.get(c.b)?.id;
      return (ha === a && hb === b) || (ha === b && hb === a);
    });
  }

  /**
   * The processes of `actorIds` died. Their OS (if `finSent`) closes the sockets and peers hear at once;
   * after a power loss nobody tells the peers, who notice only by their own timeouts.
   */
  actorsDied(actorIds: readonly string[], finSent: boolean): void {
    const dead = new Set(actorIds);
    const seen = new Set<Connection>();
    for (const id of actorIds) {
      const m = this.conns.get(id);
      if (!m) continue;
      for (const c of m.values()) {
        // The dead ends need no notice: their incarnation is gone, and the next one must not inherit any of
        // these connections (older ones still awaiting a notice included).
        for (let o: Connection | undefined = c; o; o = o.prev) {
          if (dead.has(o.a)) o.aOpen = false;
          if (dead.has(o.b)) o.bOpen = false;
        }
        if (seen.has(c) || c.broken) continue;
        seen.add(c);
        const peer = dead.has(c.a) ? c.b : c.a;
        const deadEnd = dead.has(c.a) ? c.a : c.b;
        const hDead = this.actorHost.get(deadEnd);
        const hPeer = this.actorHost.get(peer);
        const reachable = finSent && hDead && hPeer && !this.isCut(hDead.id, hPeer.id);
        this.breakConnection(c, reachable ? 'fin' : 'silent', 'peer-crashed', reachable ? this.latency(hDead, hPeer) : undefined);
      }
    }
  }

  // ---- link faults ----

  isCut(fromHost: string, toHost: string): boolean {
    if (this.cut.size === 0) return false; // (asked on every send; nearly always nothing is cut)
    return (this.cut.get(fromHost)?.get(toHost) ?? 0) > 0;
  }

  /**
   * Nothing from `fromHosts` reaches `toHosts` (one direction). Connections across survive, as TCP
   * connections do: what they carry waits for the heal, until a timeout (the application's own, or TCP's
   * after silentFailureDetectionMs) closes them.
   */
  cutOneWay(fromHosts: readonly string[], toHosts: readonly string[]): void {
    for (const a of fromHosts) {
      for (const b of toHosts) {
        if (a === b) continue;
        let m = this.cut.get(a);
        if (!m) this.cut.set(a, (m = new Map()));
        m.set(b, (m.get(b) ?? 0) + 1);
      }
    }
  }

  /** Undoes one `cutOneWay(fromHosts, toHosts)`. */
  uncutOneWay(fromHosts: readonly string[], toHosts: readonly string[]): void {
    for (const a of fromHosts) {
      const m = this.cut.get(a);
      if (!m) continue;
      for (const b of toHosts) {
        const n = (m.get(b) ?? 0) - 1;
        if (n > 0) m.set(b, n);
        else m.delete(b);
      }
      if (m.size === 0) this.cut.delete(a);
    }
    this.releaseHeld();
  }

  /** Splits the hosts into groups that cannot reach each other (both directions). */
  partition(groups: readonly (readonly string[])[]): void {
    for (let i = 0; i < groups.length; i++) {
      for (let j = 0; j < groups.length; j++) if (i !== j) this.cutOneWay(groups[i]!, groups[j]!);
    }
  }

  /** Undoes one `partition(groups)`. */
  unpartition(groups: readonly (readonly string[])[]): void {
    for (let i = 0; i < groups.length; i++) {
      for (let j = 0; j < groups.length; j++) if (i !== j) this.uncutOneWay(groups[i]!, groups[j]!);
    }
  }

  /** Removes every cut touching these hosts, or every cut at all when called without hosts. */
  heal(hosts?: readonly string[]): void {
    if (!hosts) {
      this.cut.clear();
    } else {
      const set = new Set(hosts);
      for (const [a, m] of this.cut) {
        for (const b of [...m.keys()]) if (set.has(a) || set.has(b)) m.delete(b);
        if (m.size === 0) this.cut.delete(a);
      }
    }
    this.releaseHeld();
  }

  // ---- traffic held by cuts ----

  /** Counts every message sent; one direction of a connection delivers in this order. */
  private sendSeq = 0;
  /** Connections with messages waiting for a heal. */
  private readonly heldConns = new Set<Connection>();
  /** Closes whose FIN waits for a heal to reach the peer. */
  private pendingFins: { conn: Connection; peer: string; from: string }[] = [];

  private holding(conn: Connection, from: string): boolean {
    const q = from === conn.a ? conn.heldAtoB : conn.heldBtoA;
    return q !== null && q.length > 0;
  }

  private hold(conn: Connection, h: Held): void {
    if (this.config.traceMessages) this.trace.emit('net.drop', h.from, { to: h.to, type: typeOf(h.msg), reason: 'held-by-cut' });
    const q = h.from === conn.a ? (conn.heldAtoB ??= []) : (conn.heldBtoA ??= []);
    // A message caught in flight by the cut was sent before those the cut held at the sender: it goes first.
    let i = q.length;
    while (i > 0 && q[i - 1]!.seq > h.seq) i--;
    q.splice(i, 0, h);
    this.heldConns.add(conn);
    if (q.length === 1) {
      // TCP's user timeout: data unacknowledged this long kills the connection (both ends hear of it).
      this.scheduler.after(
        ms(this.config.silentFailureDetectionMs),
        () => {
          // A release empties this very queue (the next hold starts a new one), so a non-empty q is still waiting.
          if (!conn.broken && q.length > 0) this.breakConnection(conn, 'silent', 'link-failure', 0);
        },
        undefined,
        'a TCP retransmission timeout',
      );
    }
  }

  /** After a heal: what waited on links now open goes out, in order, one trip later (the next retransmission). */
  private releaseHeld(): void {
    if (this.pendingFins.length > 0) {
      const waiting: typeof this.pendingFins = [];
      for (const f of this.pendingFins) {
        const fromHost = this.actorHost.get(f.from);
        const peerHost = this.actorHost.get(f.peer);
        if (!fromHost || !peerHost || !f.conn.openFor(f.peer)) continue;
        if (this.isCut(fromHost.id, peerHost.id)) waiting.push(f);
        else this.scheduleNotice(f.conn, f.peer, f.from, 'closed-by-peer', this.latency(fromHost, peerHost));
      }
      this.pendingFins = waiting;
    }
    if (this.heldConns.size === 0) return;
    for (const conn of [...this.heldConns]) {
      if (conn.broken) {
        conn.heldAtoB = conn.heldBtoA = null;
        this.heldConns.delete(conn);
        continue;
      }
      for (const dir of ['AtoB', 'BtoA'] as const) {
        const q = dir === 'AtoB' ? conn.heldAtoB : conn.heldBtoA;
        if (!q || q.length === 0) continue;
        const fromHost = this.actorHost.get(q[0]!.from);
        const toHost = this.actorHost.get(q[0]!.to);
        if (!fromHost || !toHost || this.isCut(fromHost.id, toHost.id)) continue;
        if (dir === 'AtoB') conn.heldAtoB = null;
        else conn.heldBtoA = null;
        for (const h of q) {
          let arrive = this.scheduler.now + this.latency(fromHost, toHost);
          if (dir === 'AtoB') {
            if (arrive < conn.lastAtoB) arrive = conn.lastAtoB;
            conn.lastAtoB = arrive;
          } else {
            if (arrive < conn.lastBtoA) arrive = conn.lastBtoA;
            conn.lastBtoA = arrive;
          }
          if (this.config.traceMessages) this.trace.emit('net.send', h.from, { to: h.to, type: typeOf(h.msg), bytes: h.bytes, arrive, msg: h.msg });
          this.scheduler.at(arrive, this.arrive, { conn, from: h.from, to: h.to, host: toHost, msg: h.msg, seq: h.seq }, 'a message delivery');
        }
        q.length = 0; // delivered: the TCP timeout armed for this queue finds nothing left to give up on
      }
      if (!conn.heldAtoB?.length && !conn.heldBtoA?.length) this.heldConns.delete(conn);
    }
  }

  setLinkFault(fromHost: string, toHost: string, fault: LinkFault | null): void {
    let m = this.linkFaults.get(fromHost);
    if (!fault) {
      m?.delete(toHost);
      return;
    }
    if (!m) this.linkFaults.set(fromHost, (m = new Map()));
    m.set(toHost, fault);
  }

  clearLinkFaults(): void {
    this.linkFaults.clear();
  }

  /** Directed cuts and link faults now in force, for tests and the UI. */
  inspect(): { cuts: [string, string][]; faults: { from: string; to: string; fault: LinkFault }[] } {
    const cuts: [string, string][] = [];
    for (const [a, m] of this.cut) for (const b of m.keys()) cuts.push([a, b]);
    cuts.sort((x, y) => (x[0] + '>' + x[1] < y[0] + '>' + y[1] ? -1 : 1));
    const faults: { from: string; to: string; fault: LinkFault }[] = [];
    for (const [a, m] of this.linkFaults) for (const [b, f] of m) faults.push({ from: a, to: b, fault: { ...f } });
    return { cuts, faults };
  }
}
