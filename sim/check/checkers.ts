import { formatTime } from '../core/time';
import { ofKind, type TraceEvent, type TraceSink } from '../core/trace';
import { History, tp, type FinalPartition, type SendOp } from './history';
import { CHECK_NAMES, ERROR_CHECK_PREFIX, type CheckName } from './names';
import { lostWriteStory } from './stories';
import { CommitWaitWatch, metricChecks } from './metrics';
import { GroupLagWatch, groupMetrics, type GroupLag } from './groupMetrics';
import { checkPartitionOwnership } from './partitionOwnership';
import { HighWatermarkWatch, leaderEpochConflicts } from './leadership';
import { comparePartitionNames } from './describe';

/** One checker's result: how many, and a few examples in words. */
export interface CheckResult {
  readonly count: number;
  readonly examples: readonly string[];
  /** For lost writes: each one's story, in order. */
  readonly stories?: readonly (readonly string[])[];
  /** Values involved (for the UI to highlight). */
  readonly values?: readonly string[];
}

export type CheckReport = Record<string, CheckResult>;

const MAX_EXAMPLES = 5;

/** A value's first read, and the places it was read at once there was more than one ("topic-partition@offset"). */
interface FirstRead {
  readonly t: number;
  readonly where: string;
  readonly offset: number;
  places: Set<string> | null;
}

function result(count: number, examples: string[], extra: Partial<CheckResult> = {}): CheckResult {
  return { count, examples: examples.slice(0, MAX_EXAMPLES), ...extra };
}

function percentile(sorted: ArrayLike<number>, p: number): number {
  if (sorted.length === 0) return 0;
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[i]!;
}

const ms3 = (us: number) => Math.round(us / 10) / 100;

/** Whether a record that is not in the final log left it legitimately (retention, or a newer value for its key under compaction). */
function goneLegitimately(op: SendOp, offset: number, f: FinalPartition): boolean {
  if (offset >= 0 && offset < f.logStartOffset) return true;
  if (f.compacted && op.key !== null) {
    const last = f.lastOffsetOfKey.get(op.key);
    if (last !== undefined && (offset < 0 || last > offset)) return true;
  }
  return false;
}

/**
 * Runs every checker over a trace. Each result names what it found; a report always holds every checker,
 * with count 0 when nothing was found.
 */
export function runCheckers(events: readonly TraceEvent[]): CheckReport {
  const c = new Checkers();
  for (const e of events) c.event(e);
  return c.report();
}

/** The kinds that come once per record or batch, which the checkers fold as they go by instead of keeping. */
const FOLDED_KINDS: ReadonlySet<string> = new Set(['send.invoke', 'send.ok', 'replica.append', 'replica.hw', 'net.send', 'net.drop']);
/** What a lost write's story reads (stories.ts); replica.append is kept without its values. */
const STORY_KINDS: ReadonlySet<string> = new Set([
  'fault.start',
  'fault.end',
  'host.crash',
  'host.stop',
  'host.power-off',
  'disk.power-loss',
  'host.restart',
  'replica.append',
  'log.flush',
  'replica.truncate',
  'log.recovery',
  'log.truncate',
  'controller.election',
]);

/**
 * The checkers as a trace sink: they fold each event as the run emits it (or as `runCheckers` reads a saved
 * trace), keeping the history they need (every send and poll, the final logs) and the rarer events, but not
 * the per-record and per-batch events themselves, so a run need not keep its trace in memory to be checked.
 * The report is the same either way.
 */
export class Checkers implements TraceSink {
  private readonly h = new History();
  /** Every event but the folded kinds, in order. */
  private readonly rest: TraceEvent[] = [];
  private readonly storyEvents: TraceEvent[] = [];
  private readonly hwWatch = new HighWatermarkWatch();
  private readonly commitWatch = new CommitWaitWatch();
  private readonly lagWatch = new GroupLagWatch();

  event(e: TraceEvent): void {
    if (this.reported) return;
    this.h.observe(e);
    const kind = e.kind;
    if (kind === 'replica.hw') {
      this.hwWatch.observe(e);
      this.commitWatch.observe(e);
      this.lagWatch.observe(e);
      return;
    }
    if (kind === 'replica.append') {
      this.commitWatch.observe(e);
      this.storyEvents.push({
        t: e.t,
        seq: e.seq,
        kind,
        node: e.node,
        topic: e.topic,
        partition: e.partition,
        base: e.base,
        last: e.last,
        epoch: e.epoch,
        role: e.role,
        broker: e.broker,
      });
      return;
    }
    if (FOLDED_KINDS.has(kind)) return;
    this.rest.push(e);
    if (STORY_KINDS.has(kind)) this.storyEvents.push(e);
    this.hwWatch.observe(e);
    this.commitWatch.observe(e);
    this.lagWatch.observe(e);
  }

  private reported: CheckReport | undefined;

  /** The report over everything seen so far; it is final: events after it are not looked at. */
  report(): CheckReport {
    if (this.reported) return this.reported;
    this.h.finish();
    this.reported = checkReport(this.rest, this.storyEvents, this.h, {
      regressions: this.hwWatch.result(),
      commitWait: this.commitWatch.result(this.h),
      lag: this.lagWatch,
      endUs: Math.max(0, this.h.lastEventUs),
    });
    return this.reported;
  }
}

function checkReport(
  events: readonly TraceEvent[],
  storyEvents: readonly TraceEvent[],
  h: History,
  watched: { regressions: { count: number; examples: string[] }; commitWait: { us: number; example: string | null }; lag: GroupLag; endUs: number },
): CheckReport {
  const at = (t: number) => formatTime(t - h.startUs);
  const out: Record<string, CheckResult> = {};
  const set = (name: CheckName, r: CheckResult) => (out[name] = r);

  // ---- producer outcomes ----
  const acked = h.sendsInOrder.filter((s) => s.status === 'ok');
  set('acked', result(acked.length, []));
  const failed = h.sendsInOrder.filter((s) => s.status === 'fail');
  set('send-failed', result(failed.length, failed.map((s) => `${s.value} to ${tp(s.topic, s.partition)} failed with ${s.error}`)));
  const unknown = h.sendsInOrder.filter((s) => s.status === 'unknown');
  set('send-unknown', result(unknown.length, unknown.map((s) => `${s.value} sent at ${at(s.invokeUs)} never completed`)));

  // ---- lost writes (the simulator's truth) ----
  const lost: SendOp[] = [];
  for (const s of acked) {
    const leaderAppend = s.leaderAppend;
    const partition = leaderAppend?.partition ?? s.partition;
    const f = h.finals.get(tp(s.topic, partition));
    if (!f) continue;
    if (f.byValue.has(s.value)) continue;
    const offset = s.offset >= 0 ? s.offset : (leaderAppend?.offset ?? -1);
    if (goneLegitimately(s, offset, f)) continue;
    lost.push(s);
  }
  set(
    'lost-write',
    result(
      lost.length,
      lost.map((s) => `${s.value} acknowledged at ${at(s.ackUs)} (${tp(s.topic, s.partition)} offset ${s.offset}, acks=${s.acks}) is not in the final log`),
      { stories: lost.slice(0, 20).map((s) => lostWriteStory(storyEvents, h, s)), values: lost.map((s) => s.value) },
    ),
  );

  // ---- what consumers saw ----
  /** value -> its first read (when and where) and, once read somewhere else too, every place it was read. */
  const seen = new Map<string, FirstRead>();
  const maxReadOffset = new Map<string, number>();
  // partition -> offset -> the first value seen there; a second, different value opens a set of them in `clashes`.
  const observed = new Map<string, Map<number, string | null>>();
  const clashes = new Map<string, Map<number, Set<string | null>>>();
  const observe = (key: string, offset: number, value: string | null) => {
    let m = observed.get(key);
    if (!m) observed.set(key, (m = new Map()));
    const first = m.get(offset);
    if (first === undefined) {
      m.set(offset, value);
      return;
    }
    if (first === value) return;
    let c = clashes.get(key);
    if (!c) clashes.set(key, (c = new Map()));
    let vs = c.get(offset);
    if (!vs) c.set(offset, (vs = new Set([first])));
    vs.add(value);
  };
  let recordsRead = 0;
  for (const p of h.polls) {
    const key = tp(p.topic, p.partition);
    recordsRead += p.offsets.length;
    let maxRead = maxReadOffset.get(key) ?? -1;
    for (let i = 0; i < p.offsets.length; i++) {
      const o = p.offsets[i]!;
      const v = p.values[i] ?? null;
      if (v !== null) {
        const r = seen.get(v);
        if (r === undefined) seen.set(v, { t: p.t, where: key, offset: o, places: null });
        else if (r.where !== key || r.offset !== o) (r.places ??= new Set([`${r.where}@${r.offset}`])).add(`${key}@${o}`);
      }
      observe(key, o, v);
      if (o > maxRead) maxRead = o;
    }
    if (maxRead >= 0) maxReadOffset.set(key, maxRead);
  }
  set('records-read', result(recordsRead, []));

  // Jepsen's lost write: acknowledged, below the highest offset read in its partition, never read.
  const jepsenLost = acked.filter((s) => s.offset >= 0 && !seen.has(s.value) && s.offset < (maxReadOffset.get(tp(s.topic, s.partition)) ?? -1));
  set('lost-write-jepsen', result(jepsenLost.length, jepsenLost.map((s) => `${s.value} at ${tp(s.topic, s.partition)} offset ${s.offset} was never read, though later offsets were`), { values: jepsenLost.map((s) => s.value) }));

  const consumed = h.consumedTopics();
  const unseen = acked.filter((s) => consumed.has(s.topic) && !seen.has(s.value));
  set('unseen', result(unseen.length, unseen.map((s) => `${s.value} (${tp(s.topic, s.partition)} offset ${s.offset}) was acknowledged but never read`), { values: unseen.map((s) => s.value) }));

  // Duplicates: one value at several offsets of the final log, or read at several offsets.
  const dupValues = new Set<string>();
  const dupExamples: string[] = [];
  for (const f of h.finals.values()) {
    for (const [v, offs] of f.byValue) {
      if (offs.length > 1 && !dupValues.has(v)) {
        dupValues.add(v);
        dupExamples.push(`${v} is at offsets ${offs.join(', ')} of ${tp(f.topic, f.partition)}`);
      }
    }
  }
  for (const [v, r] of seen) {
    if (r.places !== null && !dupValues.has(v)) {
      dupValues.add(v);
      dupExamples.push(`${v} was read at ${[...r.places].join(' and ')}`);
    }
  }
  set('duplicate', result(dupValues.size, dupExamples, { values: [...dupValues] }));

  // Inconsistent offsets: one offset seen with two values (acks, polls and the final log all count).
  for (const s of acked) if (s.offset >= 0 && s.acks !== '0') observe(tp(s.topic, s.partition), s.offset, s.value);
  for (const f of h.finals.values()) for (const [o, v] of f.byOffset) observe(tp(f.topic, f.partition), o, v);
  // Replicas whose logs still disagree with the leader's at the end hold a second value at those offsets.
  for (const f of h.finals.values()) for (const d of f.diverged) d.offsets.forEach((o, i) => observe(tp(f.topic, f.partition), o, d.values[i] ?? null));
  const inconsistent: string[] = [];
  for (const key of [...clashes.keys()].sort(comparePartitionNames)) {
    const c = clashes.get(key)!;
    for (const o of [...c.keys()].sort((a, b) => a - b)) {
      const vs = c.get(o)!;
      inconsistent.push(`${key} offset ${o} held ${[...vs].map((v) => v ?? 'null').join(' and ')}`);
    }
  }
  set('inconsistent-offsets', result(inconsistent.length, inconsistent));

  // Poll order per consumer and partition, reset by any assignment change, seek or offset reset.
  const skips: string[] = [];
  const nonmono: string[] = [];
  const lastPos = new Map<string, number>();
  for (const e of events) {
    if (e.kind === 'consumer.assignment' || e.kind === 'consumer.seek' || e.kind === 'consumer.offset.reset' || e.kind === 'consumer.truncation') {
      for (const k of [...lastPos.keys()]) if (k.startsWith(`${e.node}\u0000`)) lastPos.delete(k);
      continue;
    }
    if (e.kind === 'host.crash' || e.kind === 'host.power-off' || e.kind === 'process.exit') {
      const pids = e.kind === 'process.exit' ? [e.process as string] : ((e.processes as string[]) ?? []);
      for (const pid of pids) for (const k of [...lastPos.keys()]) if (k.startsWith(`${pid}\u0000`)) lastPos.delete(k);
      continue;
    }
    if (e.kind !== 'consumer.poll') continue;
    for (const r of e.records as { topic: string; partition: number; offsets: number[] }[]) {
      if (r.offsets.length === 0) continue;
      const k = `${e.node}\u0000${tp(r.topic, r.partition)}`;
      const prev = lastPos.get(k);
      const first = r.offsets[0]!;
      if (prev !== undefined) {
        if (first <= prev) nonmono.push(`${e.node} read ${tp(r.topic, r.partition)} offset ${first} at ${at(e.t)} after having read up to ${prev}`);
        else {
          const f = h.finals.get(tp(r.topic, r.partition));
          const skipped = f ? countBetween(f.offsets, prev, first) : 0;
          if (skipped > 0) skips.push(`${e.node} jumped from offset ${prev} to ${first} in ${tp(r.topic, r.partition)} at ${at(e.t)}, skipping ${skipped} record(s)`);
        }
      }
      lastPos.set(k, r.offsets[r.offsets.length - 1]!);
    }
  }
  set('poll-skip', result(skips.length, skips));
  set('nonmonotonic-poll', result(nonmono.length, nonmono));

  // A producer's acknowledged sends to one key must land in the order it sent them.
  // producer -> partition -> key -> the last acknowledged send (nested maps: no joined keys to hash).
  const lastOfKey = new Map<string, Map<string, Map<string, SendOp>>>();
  const reorders: string[] = [];
  for (const s of h.sendsInOrder) {
    if (s.status !== 'ok' || s.offset < 0 || s.key === null) continue;
    // Order is promised within a partition: a key that moved partitions (the partition count grew) starts over.
    let byPartition = lastOfKey.get(s.producer);
    if (!byPartition) lastOfKey.set(s.producer, (byPartition = new Map()));
    const where = tp(s.topic, s.partition);
    let byKey = byPartition.get(where);
    if (!byKey) byPartition.set(where, (byKey = new Map()));
    const prev = byKey.get(s.key);
    if (prev && s.offset < prev.offset) {
      reorders.push(`${s.producer} sent ${prev.value} before ${s.value} (key ${s.key}) but they landed at offsets ${prev.offset} and ${s.offset}`);
    }
    if (!prev || s.offset > prev.offset) byKey.set(s.key, s);
  }
  set('nonmonotonic-send', result(reorders.length, reorders));

  // G1a: reading a value whose send definitely failed.
  const aborted = [...seen.keys()].filter((v) => {
    const s = h.sends.get(v);
    return s !== undefined && s.status === 'fail' && s.definite;
  });
  set('G1a', result(aborted.length, aborted.map((v) => `${v} was read although its send failed with ${h.sends.get(v)!.error}`)));

  // Read, then gone: a consumer saw a record that later vanished from the log.
  // One example per position and value read (its first reader), in partition and offset order; every read counts.
  const truncatedReads = new Map<string, { key: string; o: number; text: string }>();
  let truncatedCount = 0;
  for (const p of h.polls) {
    const f = h.finals.get(tp(p.topic, p.partition));
    if (!f) continue;
    const key = tp(p.topic, p.partition);
    p.offsets.forEach((o, i) => {
      const v = p.values[i] ?? null;
      if (o < f.logStartOffset || f.byOffset.get(o) === v) return;
      if (f.compacted) return;
      truncatedCount++;
      const where = `${key}\u0000${o}\u0000${v}`;
      if (!truncatedReads.has(where)) truncatedReads.set(where, { key, o, text: `${p.consumer} read ${v} at ${key} offset ${o} (${at(p.t)}); the final log has ${f.byOffset.has(o) ? f.byOffset.get(o) : 'nothing'} there` });
    });
  }
  const truncatedExamples = [...truncatedReads.values()].sort((a, b) => comparePartitionNames(a.key, b.key) || a.o - b.o).map((x) => x.text);
  set('read-then-truncated', result(truncatedCount, truncatedExamples));

  // Leadership: one leader per partition and epoch; a leader's high watermark never goes down in its epoch.
  const conflicts = leaderEpochConflicts(events);
  set('leader-epoch-conflict', result(conflicts.count, conflicts.examples));
  const regressions = watched.regressions;
  set('high-watermark-regression', result(regressions.count, regressions.examples));

  // Elections from outside the ISR.
  const unclean = ofKind(events, 'controller.election').filter((e) => e.source === 'UNCLEAN' || e.source === 'LAST_KNOWN_LEADER');
  set(
    'elected-outside-isr',
    result(unclean.length, unclean.map((e) => `broker ${e.leader as number} became leader of ${tp(e.topic as string, e.partition as number)} at ${at(e.t)} by ${e.source === 'UNCLEAN' ? 'unclean election' : 'the last-known-leader rule'}`)),
  );
  set('elections', result(events.filter((e) => e.kind === 'controller.election').length, []));
  set('controller-elections', result(events.filter((e) => e.kind === 'controller.active').length, []));

  // Acknowledged while only in page cache: no replica had fsynced the record when it was acknowledged.
  set('acked-unflushed', ackedUnflushed(events, h, acked));

  const perGroup = groupMetrics(events, h, watched.lag, watched.endUs);
  groupChecks(events, h, set, perGroup);
  serviceFigures(h, acked, seen, set);

  // Errors by name, as producers and consumers saw them.
  const errors = new Map<string, number>();
  for (const e of events) {
    if (e.kind === 'send.retry' || e.kind === 'send.fail' || e.kind === 'consumer.error') {
      const name = e.error as string;
      const n = e.kind === 'send.fail' ? (e.values as string[]).length : 1;
      errors.set(name, (errors.get(name) ?? 0) + n);
    }
  }
  for (const [name, n] of [...errors].sort()) out[`${ERROR_CHECK_PREFIX}${name}`] = result(n, []);

  Object.assign(out, metricChecks(events, h, watched.commitWait));
  Object.assign(out, perGroup);
  for (const name of CHECK_NAMES) if (!(name in out)) throw new Error(`checker ${name} produced no result`);
  return out;
}

/** A check by name, 0 when absent (errors.X that never happened). */
export function checkValue(report: CheckReport, name: string): number {
  return report[name]?.count ?? 0;
}

function ackedUnflushed(events: readonly TraceEvent[], h: History, acked: readonly SendOp[]): CheckResult {
  const at = (t: number) => formatTime(t - h.startUs);
  // Durable offsets per (broker, partition) over time, from the log's flush events.
  const flushes = new Map<string, { t: number; upTo: number }[]>();
  for (const e of events) {
    if (e.kind !== 'log.flush') continue;
    const key = `${e.topic as string}-${e.partition as number}`;
    let list = flushes.get(key);
    if (!list) flushes.set(key, (list = []));
    list.push({ t: (e.completesAt as number | undefined) ?? e.t, upTo: e.upTo as number });
  }
  const unflushed: SendOp[] = [];
  for (const s of acked) {
    const offset = s.offset >= 0 ? s.offset : (s.leaderAppend?.offset ?? -1);
    if (offset < 0) continue;
    const list = flushes.get(tp(s.topic, s.partition));
    const durable = list?.some((f) => f.t <= s.ackUs && f.upTo > offset) ?? false;
    if (!durable) unflushed.push(s);
  }
  return result(unflushed.length, unflushed.slice(0, 1).map((s) => `${s.value} was acknowledged at ${at(s.ackUs)} while only in page cache`));
}

function groupChecks(events: readonly TraceEvent[], h: History, set: (n: CheckName, r: CheckResult) => void, perGroup: Record<string, CheckResult>): void {
  const at = (t: number) => formatTime(t - h.startUs);
  // No partition owned by two members of a group at once, counting ownership as the coordinator grants it
  // (a member it removed may still believe it owns partitions: a zombie, fenced on commit).
  const ownership = checkPartitionOwnership(events);
  const overlaps = ownership.violations.map(
    (v) => `${v.partition} was owned by ${v.holder.node} and ${v.claimant.node} in group ${v.group} at ${at(v.t)}`,
  );
  set('group-overlap', result(overlaps.length, overlaps));

  // Committed offsets that moved backwards.
  const committed = new Map<string, number>();
  const backwards: string[] = [];
  for (const e of events) {
    if (e.kind !== 'consumer.commit' || !e.ok) continue;
    for (const o of e.offsets as { topic: string; partition: number; offset: number }[]) {
      const k = `${e.group as string}\u0000${tp(o.topic, o.partition)}`;
      const prev = committed.get(k);
      if (prev !== undefined && o.offset < prev) backwards.push(`group ${e.group as string} committed ${tp(o.topic, o.partition)} offset ${o.offset} after ${prev} (${at(e.t)})`);
      committed.set(k, o.offset);
    }
  }
  set('commit-backwards', result(backwards.length, backwards));

  // The global figures follow the per-group ones (groupMetrics.ts): the worst group's, or their sum.
  const perPrefix = (prefix: string) => Object.entries(perGroup).filter(([k]) => k.startsWith(prefix)).map(([, v]) => v.count);
  const worst = (prefix: string) => Math.max(0, ...perPrefix(prefix));
  const total = (prefix: string) => perPrefix(prefix).reduce((a, b) => a + b, 0);
  set('re-reads', result(total('re-reads.'), []));
  set('rebalances', result(events.filter((e) => e.kind === 'group.rebalance').length, []));
  set('rebalance.pause-ms', result(worst('rebalance.pause-ms.'), []));
  set('dead-lettered', result(events.filter((e) => e.kind === 'consumer.dead-letter' && e.ok).length, []));

  set('lag.max', result(worst('lag.max.'), []));
  set('lag.final', result(total('lag.final.'), []));
}

function serviceFigures(h: History, acked: readonly SendOp[], seen: ReadonlyMap<string, FirstRead>, set: (n: CheckName, r: CheckResult) => void): void {
  const at = (t: number) => formatTime(t - h.startUs);
  // Unavailability per producer and partition: the longest stretch with records outstanding and no
  // acknowledgement arriving (healthy partitions answer within milliseconds). The total adds the
  // stretches longer than a second.
  const end = h.quietUs >= 0 ? h.quietUs : h.endUs;
  // producer -> partition -> its invocations and completions, each as 2t+1 (invoke) or 2t (done): sorted as
  // numbers, a completion comes before an invocation at the same instant.
  const streams = new Map<string, Map<string, number[]>>();
  const inOrder: { key: string; encoded: number[] }[] = []; // first appearance first, so ties pick as before
  for (const op of h.sendsInOrder) {
    if (op.partition < 0) continue;
    let byPartition = streams.get(op.producer);
    if (!byPartition) streams.set(op.producer, (byPartition = new Map()));
    const where = tp(op.topic, op.partition);
    let l = byPartition.get(where);
    if (!l) {
      byPartition.set(where, (l = []));
      inOrder.push({ key: `${op.producer} ${where}`, encoded: l });
    }
    l.push(op.invokeUs * 2 + 1);
    if (op.status !== 'unknown') l.push(op.ackUs * 2);
  }
  let longest: { key: string; start: number; end: number } | undefined;
  let total = 0;
  for (const { key, encoded } of inOrder) {
    const list = Float64Array.from(encoded).sort();
    let pending = 0;
    let since = 0;
    const close = (t: number) => {
      const gap = Math.min(t, end) - since;
      if (gap <= 0) return;
      if (!longest || gap > longest.end - longest.start) longest = { key, start: since, end: Math.min(t, end) };
      if (gap > 1_000_000) total += gap;
    };
    for (const x of list) {
      const t = Math.floor(x / 2);
      if (x % 2 === 1) {
        if (pending === 0) since = t;
        pending++;
      } else {
        if (pending > 0) close(t);
        pending = Math.max(0, pending - 1);
        since = t;
      }
    }
    if (pending > 0) close(end);
  }
  const lw = longest as { key: string; start: number; end: number } | undefined;
  set(
    'unavailability.longest-ms',
    result(lw ? Math.round((lw.end - lw.start) / 1000) : 0, lw ? [`${lw.key}: no acknowledgement from ${at(lw.start)} to ${at(lw.end)} while records waited`] : []),
  );
  set('unavailability.total-ms', result(Math.round(total / 1000), []));

  const lat = Float64Array.from(
    acked.filter((s) => s.acks !== '0'),
    (s) => s.ackUs - s.invokeUs,
  ).sort();
  set('latency.p50-ms', result(ms3(percentile(lat, 50)), []));
  set('latency.p99-ms', result(ms3(percentile(lat, 99)), []));
  const e2eList: number[] = [];
  for (const [v, r] of seen) {
    const s = h.sends.get(v);
    if (s) e2eList.push(r.t - s.invokeUs);
  }
  const e2e = Float64Array.from(e2eList).sort();
  set('e2e.p99-ms', result(ms3(percentile(e2e, 99)), []));
}

/** How many of the ascending `offsets` lie strictly between `lo` and `hi` (two binary searches). */
function countBetween(offsets: readonly number[], lo: number, hi: number): number {
  const firstAbove = (x: number) => {
    let a = 0;
    let b = offsets.length;
    while (a < b) {
      const m = (a + b) >>> 1;
      if (offsets[m]! <= x) a = m + 1;
      else b = m;
    }
    return a;
  };
  return Math.max(0, firstAbove(hi - 1) - firstAbove(lo));
}
