import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ms, seconds } from '../../../sim/core/time';
import type { FaultEntry } from '../../../sim/world/nemesis';
import type { World } from '../../../sim/world/world';
import { addTestProcess, makeWorld, scheduleFaults, type TestProcess } from '../../unit/world/harness';

/*
 * Four nodes on three hosts (n1 and n4 share h1; h3 is in another zone) send numbered messages to random peers
 * under a random fault schedule (crashes, power losses, partitions, isolations, one-way cuts, latency, lossy
 * links, heals, restarts). Each message carries its sender's label: (incarnation, connection number), where the
 * connection number counts the sender's own breaks with that peer (a disconnect notice, or its own close).
 * At 30s everything heals and restarts; at 40s every node sends once more to every peer.
 *
 * The properties are read off the nodes' own logs (what each incarnation sent, received and was told), and the
 * cut intervals are recomputed from the schedule itself, never from the network's state.
 */

const NODES = ['n1', 'n2', 'n3', 'n4'] as const;
const HOST_OF: Record<string, string> = { n1: 'h1', n2: 'h2', n3: 'h3', n4: 'h1' };
const HOSTS = ['h1', 'h2', 'h3'];
const TRAFFIC_END = seconds(30);
const FINAL_ROUND = seconds(40);
const RUN_END = seconds(45);

interface Msg {
  readonly from: string;
  readonly inc: number;
  readonly conn: number;
  readonly seq: number;
  readonly final: boolean;
}

type LogEntry =
  | { n: number; t: number; kind: 'send'; node: string; inc: number; to: string; msg: Msg }
  | { n: number; t: number; kind: 'recv'; node: string; inc: number; from: string; msg: Msg }
  | { n: number; t: number; kind: 'notice' | 'close'; node: string; inc: number; peer: string }
  | { n: number; t: number; kind: 'start' | 'death'; node: string; inc: number };

/** The part of a LogEntry that a node supplies; the harness stamps order and time. */
type Entry = LogEntry extends infer E ? (E extends LogEntry ? Omit<E, 'n' | 't'> : never) : never;

interface Run {
  log: LogEntry[];
  world: World;
}

/** Sends at whole milliseconds + 500us, so no send ever ties with a fault boundary (whole milliseconds). */
function runWorkload(seed: number, schedule: FaultEntry[]): Run {
  const world = makeWorld({
    seed,
    hosts: ['h1@z1', 'h2@z1', 'h3@z2'],
    network: {
      // Heavy jitter, so that only the connection's own ordering keeps messages in order.
      sameZone: { baseMs: 0.5, jitterMs: 2 },
      crossZone: { baseMs: 2, jitterMs: 5 },
      silentFailureDetectionMs: 3_000,
      connectTimeoutMs: 1_000,
    },
  });
  const log: LogEntry[] = [];
  const record = (p: TestProcess, e: Entry) => log.push({ ...e, n: log.length, t: p.now } as LogEntry);
  for (const id of NODES) {
    const conn = new Map<string, number>();
    let seq = 0;
    const connTo = (peer: string) => conn.get(peer) ?? 0;
    const sendTo = (p: TestProcess, peer: string, final: boolean) => {
      const msg: Msg = { from: id, inc: p.incarnation, conn: connTo(peer), seq: ++seq, final };
      record(p, { kind: 'send', node: id, inc: p.incarnation, to: peer, msg });
      p.send(peer, msg);
    };
    const tick = (p: TestProcess) => {
      if (p.now >= TRAFFIC_END) return;
      const peers = NODES.filter((x) => x !== id);
      const peer = p.random.choice(peers);
      if (p.random.chance(0.03)) {
        // Close our end, as a client does after a request timeout; what we send next opens a new connection.
        p.disconnect(peer);
        conn.set(peer, connTo(peer) + 1);
        record(p, { kind: 'close', node: id, inc: p.incarnation, peer });
      } else {
        sendTo(p, peer, false);
      }
      p.setTimer(ms(1 + p.random.int(0, 40)), () => tick(p));
    };
    addTestProcess(world, HOST_OF[id]!, id, {
      start(p) {
        conn.clear();
        record(p, { kind: 'start', node: id, inc: p.incarnation });
        // Every start is at a whole millisecond; sends happen at +500us.
        p.setTimer(500 + ms(p.random.int(0, 20)), () => tick(p));
        if (p.now < FINAL_ROUND) {
          p.setTimer(FINAL_ROUND + 500 - p.now, () => {
            for (const peer of NODES) if (peer !== id) sendTo(p, peer, true);
          });
        }
      },
      message(p, from, msg) {
        record(p, { kind: 'recv', node: id, inc: p.incarnation, from, msg: msg as Msg });
      },
      disconnect(p, peer) {
        conn.set(peer, connTo(peer) + 1);
        record(p, { kind: 'notice', node: id, inc: p.incarnation, peer });
      },
      killed(p) {
        record(p, { kind: 'death', node: id, inc: p.incarnation });
      },
    });
  }
  scheduleFaults(world, [
    ...schedule,
    { at: TRAFFIC_END / 1000, fault: 'heal' },
    { at: TRAFFIC_END / 1000, fault: 'restart', targets: ['*'] },
  ]);
  world.start();
  world.runUntil(RUN_END);
  return { log, world };
}

// ---- the fault schedules ----

const hostSel = fc.constantFrom('h1', 'h2', 'h3', 'zone:z1', 'zone:z2', '*');
const hostSet = fc.uniqueArray(fc.constantFrom(...HOSTS), { minLength: 1, maxLength: 3 });
const at = fc.integer({ min: 0, max: 20_000 });
const duration = fc.integer({ min: 50, max: 8_000 });

const faultEntry: fc.Arbitrary<FaultEntry> = fc.oneof(
  fc.record({ at, fault: fc.constantFrom('crash' as const, 'power-loss' as const), targets: fc.array(hostSel, { minLength: 1, maxLength: 2 }), duration }),
  fc.record({ at, fault: fc.constant('restart' as const), targets: fc.array(hostSel, { minLength: 1, maxLength: 2 }) }),
  fc.record({ at, fault: fc.constant('isolate' as const), targets: hostSet, duration }),
  fc.record({ at, fault: fc.constant('partition' as const), groups: fc.tuple(hostSet, hostSet).map(([a, b]) => [a, b]), duration }),
  fc.record({ at, fault: fc.constant('one-way' as const), from: hostSet, to: hostSet, duration }),
  fc.record({ at, fault: fc.constant('latency' as const), from: hostSet, to: hostSet, addMs: fc.integer({ min: 1, max: 200 }), duration }),
  fc.record({ at, fault: fc.constant('lossy' as const), from: hostSet, to: hostSet, rate: fc.double({ min: 0, max: 0.3, noNaN: true }), duration }),
  fc.record({ at, fault: fc.constant('heal' as const), targets: hostSet }),
  fc.record({ at, fault: fc.constant('heal' as const) }),
);
const schedules = fc.array(faultEntry, { maxLength: 12 });

// ---- the cut model: which directed host links are cut when, recomputed from the schedule ----

interface CutInterval {
  from: string;
  to: string;
  start: number;
  end: number;
}

function resolveSel(sel: string): string[] {
  if (sel === '*') return HOSTS;
  if (sel === 'zone:z1') return ['h1', 'h2'];
  if (sel === 'zone:z2') return ['h3'];
  return [sel];
}
const resolveAll = (sels: readonly string[] | undefined) => [...new Set((sels ?? []).flatMap(resolveSel))].sort();

/** Each cutting fault holds its directed pairs until it ends; a heal removes those touching its hosts. */
function cutIntervals(schedule: FaultEntry[]): CutInterval[] {
  type Ev = { t: number; order: number; apply: (held: Map<number, Map<string, number>>, out: CutInterval[], t: number) => void };
  const evs: Ev[] = [];
  const pairsOf = (e: FaultEntry): [string, string][] => {
    const groups =
      e.fault === 'one-way'
        ? [resolveAll(e.from), resolveAll(e.to)]
        : e.fault === 'partition'
          ? e.groups!.map((g) => resolveAll(g))
          : [resolveAll(e.targets), HOSTS.filter((h) => !resolveAll(e.targets).includes(h))];
    const out: [string, string][] = [];
    for (let i = 0; i < groups.length; i++)
      for (let j = 0; j < groups.length; j++) {
        if (i === j || (e.fault === 'one-way' && j !== 1)) continue;
        for (const a of groups[i]!) for (const b of groups[j]!) if (a !== b) out.push([a, b]);
      }
    return out;
  };
  const close = (m: Map<string, number>, key: string, out: CutInterval[], t: number) => {
    const start = m.get(key);
    if (start === undefined) return;
    const [from, to] = key.split('>') as [string, string];
    out.push({ from, to, start, end: t });
    m.delete(key);
  };
  schedule.forEach((e, i) => {
    const t = ms(e.at as number);
    if (e.fault === 'isolate' || e.fault === 'partition' || e.fault === 'one-way') {
      const pairs = pairsOf(e);
      evs.push({
        t,
        order: 0,
        apply: (held, _out, now) => {
          const m = new Map<string, number>();
          for (const [a, b] of pairs) m.set(`${a}>${b}`, now);
          held.set(i, m);
        },
      });
      evs.push({
        t: t + ms(e.duration as number),
        order: 1,
        apply: (held, out, now) => {
          const m = held.get(i);
          if (m) for (const key of [...m.keys()]) close(m, key, out, now);
          held.delete(i);
        },
      });
    }
    if (e.fault === 'heal') {
      const only = e.targets === undefined ? undefined : new Set(resolveAll(e.targets));
      evs.push({
        t,
        order: 0,
        apply: (held, out, now) => {
          for (const m of held.values()) {
            for (const key of [...m.keys()]) {
              const [a, b] = key.split('>') as [string, string];
              if (!only || only.has(a) || only.has(b)) close(m, key, out, now);
            }
          }
        },
      });
    }
  });
  evs.push({ t: TRAFFIC_END, order: 0, apply: (held, out, now) => held.forEach((m) => [...m.keys()].forEach((k) => close(m, k, out, now))) });
  evs.sort((x, y) => x.t - y.t || x.order - y.order);
  const held = new Map<number, Map<string, number>>();
  const out: CutInterval[] = [];
  for (const e of evs) e.apply(held, out, e.t);
  return out;
}

// ---- the properties ----

/** A failed check throws with its story (cheaper than expect() on every message). */
function check(ok: boolean, story: string): void {
  if (!ok) throw new Error(story);
}

const label = (m: Msg) => `${m.inc}/${m.conn}`;
const labelLess = (a: Msg, b: Msg) => a.inc < b.inc || (a.inc === b.inc && a.conn < b.conn);

function checkRun(run: Run, schedule: FaultEntry[]): void {
  const { log } = run;
  const sends = log.filter((e) => e.kind === 'send');
  const recvs = log.filter((e) => e.kind === 'recv');
  const sentKey = (from: string, inc: number, seq: number) => `${from}#${inc}#${seq}`;
  const sentBy = new Map(sends.map((s) => [sentKey(s.node, s.inc, s.msg.seq), s]));

  // 1. Per (sender incarnation, receiver incarnation): strictly increasing, and only what was sent to it.
  const lastSeq = new Map<string, number>();
  for (const r of recvs) {
    const s = sentBy.get(sentKey(r.from, r.msg.inc, r.msg.seq));
    check(s !== undefined, `received something never sent: ${JSON.stringify(r)}`);
    check(s!.to === r.node && s!.n < r.n, `received by the wrong node, or before it was sent: ${JSON.stringify(r)}`);
    // In order per sender connection: a connection the sender closed may still deliver what it wrote after the next
    // connection's first messages (TCP orders within a connection, not across two).
    const key = `${r.from}#${r.msg.inc}#${r.msg.conn}->${r.node}#${r.inc}`;
    const prev = lastSeq.get(key) ?? 0;
    check(r.msg.seq > prev, `out of order or duplicated on ${key}: ${r.msg.seq} after ${prev}`);
    lastSeq.set(key, r.msg.seq);
  }

  // 2. What a receiver incarnation hears from a peer between two of its breaks comes from one sender connection,
  //    and a later stretch never brings back an earlier (broken) connection.
  const byView = new Map<string, LogEntry[]>();
  for (const e of log) {
    if (e.kind === 'recv') (byView.get(`${e.node}#${e.inc}<-${e.from}`) ?? byView.set(`${e.node}#${e.inc}<-${e.from}`, []).get(`${e.node}#${e.inc}<-${e.from}`)!).push(e);
    if (e.kind === 'notice' || e.kind === 'close') {
      const k = `${e.node}#${e.inc}<-${e.peer}`;
      (byView.get(k) ?? byView.set(k, []).get(k)!).push(e);
    }
  }
  //    Except what a connection the sender closed still delivers: those bytes were written before the close and
  //    may come after the next connection's first messages.
  const closedConns = new Set<string>();
  const connCount = new Map<string, number>();
  for (const e of log) {
    if (e.kind !== 'notice' && e.kind !== 'close') continue;
    const k = `${e.node}#${e.inc}->${e.peer}`;
    const c = connCount.get(k) ?? 0;
    if (e.kind === 'close') closedConns.add(`${k}#${c}`);
    connCount.set(k, c + 1);
  }
  for (const [key, entries] of byView) {
    let current: Msg | undefined;
    let last: Msg | undefined;
    for (const e of entries) {
      if (e.kind === 'recv' && closedConns.has(`${e.from}#${e.msg.inc}->${e.node}#${e.msg.conn}`)) continue;
      if (e.kind !== 'recv') {
        if (current) last = current;
        current = undefined;
        continue;
      }
      if (current) {
        check(label(e.msg) === label(current), `${key}: two connections without a break between them (${label(current)}, ${label(e.msg)})`);
      } else {
        if (last) check(labelLess(last, e.msg), `${key}: connection ${label(e.msg)} after ${label(last)} broke`);
        current = e.msg;
      }
    }
  }

  // 3. After the sender learns its connection broke, nothing it sent on it arrives any more. Its own close is not
  //    such a break: what it wrote before closing is already on the wire and still arrives (ahead of the FIN, which
  //    check 2 holds in order), as TCP delivers written bytes.
  const brokeAt = new Map<string, number>(); // sender#inc->peer#conn -> log position of the break
  const conns = new Map<string, number>();
  for (const e of log) {
    if (e.kind !== 'notice' && e.kind !== 'close') continue;
    const k = `${e.node}#${e.inc}->${e.peer}`;
    const c = conns.get(k) ?? 0;
    if (e.kind === 'notice') brokeAt.set(`${k}#${c}`, e.n);
    conns.set(k, c + 1);
  }
  for (const r of recvs) {
    const at = brokeAt.get(`${r.from}#${r.msg.inc}->${r.node}#${r.msg.conn}`);
    if (at !== undefined) check(r.n < at, `${JSON.stringify(r.msg)} arrived after its connection broke`);
  }

  // 4. No silent loss: a message that never arrives is followed by its sender learning of a break (or dying).
  const lastBreakOrDeath = new Map<string, number>(); // node#inc->peer (or node#inc for a death) -> last position
  for (const e of log) {
    if (e.kind === 'notice' || e.kind === 'close') lastBreakOrDeath.set(`${e.node}#${e.inc}->${e.peer}`, e.n);
    if (e.kind === 'death') lastBreakOrDeath.set(`${e.node}#${e.inc}`, e.n);
  }
  const received = new Set(recvs.map((r) => sentKey(r.from, r.msg.inc, r.msg.seq)));
  for (const s of sends) {
    if (received.has(sentKey(s.node, s.inc, s.msg.seq))) continue;
    const learned =
      (lastBreakOrDeath.get(`${s.node}#${s.inc}->${s.to}`) ?? -1) > s.n || (lastBreakOrDeath.get(`${s.node}#${s.inc}`) ?? -1) > s.n;
    check(learned, `lost without a trace: ${JSON.stringify(s)}`);
  }

  // 5. Every break was eventually noticed: once all is healed and restarted, every final message arrives.
  const finals = sends.filter((s) => s.msg.final);
  expect(finals.length).toBe(NODES.length * (NODES.length - 1));
  for (const s of finals) check(received.has(sentKey(s.node, s.inc, s.msg.seq)), `final ${JSON.stringify(s.msg)} to ${s.to} never arrived`);

  // 6. No notice about a connection an incarnation never had: each connection is opened by the first send under a
  //    new label (of this incarnation, or of the peer while this incarnation lives) and brings at most one notice.
  const lifetimes = new Map<string, { from: number; to: number }>();
  for (const e of log) {
    if (e.kind === 'start') lifetimes.set(`${e.node}#${e.inc}`, { from: e.n, to: Infinity });
    if (e.kind === 'death') lifetimes.get(`${e.node}#${e.inc}`)!.to = e.n;
  }
  const notices = new Map<string, number>();
  for (const e of log) if (e.kind === 'notice') notices.set(`${e.node}#${e.inc}<>${e.peer}`, (notices.get(`${e.node}#${e.inc}<>${e.peer}`) ?? 0) + 1);
  const opened = new Map<string, Set<string>>();
  const open = (key: string, l: string) => (opened.get(key) ?? opened.set(key, new Set()).get(key)!).add(l);
  for (const s of sends) {
    open(`${s.node}#${s.inc}<>${s.to}`, `mine ${label(s.msg)}`);
    for (const [who, life] of lifetimes) {
      if (who.startsWith(`${s.to}#`) && s.n > life.from && s.n < life.to) open(`${who}<>${s.node}`, `theirs ${label(s.msg)}`);
    }
  }
  for (const [key, count] of notices) {
    check(count <= (opened.get(key)?.size ?? 0), `${key}: heard of ${count} broken connections, more than it could have had`);
  }

  // 7. Nothing crosses a cut link: no message arrives over a direction while it is cut. (A connection survives
  //    a cut, as TCP's does: what it carried waits and arrives after the heal, in order, or the connection dies.)
  const cuts = cutIntervals(schedule);
  for (const r of recvs) {
    const s = sentBy.get(sentKey(r.from, r.msg.inc, r.msg.seq))!;
    const a = HOST_OF[r.from]!;
    const b = HOST_OF[r.node]!;
    for (const c of cuts) {
      if (!(c.from === a && c.to === b)) continue;
      check(!(r.t >= c.start && r.t < c.end), `${JSON.stringify(r.msg)} ${a}->${b} sent ${s.t} received ${r.t} during the cut ${JSON.stringify(c)}`);
    }
  }
}

describe('network: connections under faults', () => {
  it('deliver in order, never twice, never across a cut, never on a broken connection, and every loss is noticed', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 1_000_000 }), schedules, (seed, schedule) => {
        const run = runWorkload(seed, schedule);
        checkRun(run, schedule);
      }),
      { numRuns: 30 },
    );
  });

  it('the same with no faults at all: everything sent arrives', () => {
    const run = runWorkload(7, []);
    checkRun(run, []);
    const sends = run.log.filter((e) => e.kind === 'send').length;
    const recvs = run.log.filter((e) => e.kind === 'recv').length;
    expect(sends).toBeGreaterThan(1000);
    // Only closes lose messages without faults: each close breaks one connection.
    expect(recvs).toBeGreaterThan(sends * 0.9);
  });
});
