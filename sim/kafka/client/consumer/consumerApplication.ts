/**
 * The application around a consumer, as the processing model describes it: the poll loop, per-record processing
 * time, the commit strategy, poison pills and their policy, hand-off to a worker thread, stalls and seeks.
 * It only uses the consumer's public calls (poll, commitSync, commitAsync, seek, pause, close), like an
 * application would.
 */
import type { Random } from '../../../core/random';
import { ms, type Micros } from '../../../core/time';
import { UNSTAMPED } from '../../../core/trace';
import { tpKey } from '../../protocol';
import type { Consumer, PollResult } from './consumer';
import type { PolledRecord } from './fetchBuffer';
import { drawProcessingMs, poisonPillFor, type PoisonPill, type ResolvedProcessingModel } from './processingModel';
import { TransformLoop, type TransformSpec } from './transformLoop';

/** Records of one partition processed together (contiguous in a poll's result). */
interface Chunk {
  readonly key: string;
  readonly records: readonly PolledRecord[];
}

function chunksOf(records: readonly PolledRecord[]): Chunk[] {
  const out: { key: string; records: PolledRecord[] }[] = [];
  let cur: { key: string; records: PolledRecord[] } | undefined;
  for (const r of records) {
    const key = tpKey(r.topic, r.partition);
    if (!cur || cur.key !== key) out.push((cur = { key, records: [] }));
    cur.records.push(r);
  }
  return out;
}

export class ConsumerApplication {
  private stopped = false;
  private closing = false;
  private stallIndex = 0;
  private seekIndex = 0;
  /** Failed tries per poison pill ("topic-partition@offset"). */
  private readonly attempts = new Map<string, number>();
  /** Hand-off: the worker thread's queue and whether it is busy. */
  private readonly queue: PolledRecord[] = [];
  private queueHead = 0;
  private workerBusy = false;
  private pausedForQueue = false;
  /** A consume-transform-produce application: each poll's records are transformed, written and committed by it. */
  private readonly transform: TransformLoop | null;

  constructor(
    private readonly consumer: Consumer,
    private readonly model: ResolvedProcessingModel,
    private readonly random: Random,
    transform?: TransformSpec,
  ) {
    this.transform = transform ? new TransformLoop(consumer, transform, model.recordTime, random.fork('transform'), () => this.close()) : null;
  }

  private get now(): Micros {
    return this.consumer.now;
  }

  start(): void {
    const at = ms(this.model.startMs);
    this.consumer.setTimer(Math.max(0, at - this.now), () => this.loop());
  }

  /** Revoked or lost partitions: what the application was retrying there is forgotten. */
  onPartitionsRemoved(keys: readonly string[]): void {
    if (this.attempts.size === 0) return;
    const gone = new Set(keys);
    for (const k of [...this.attempts.keys()]) if (gone.has(k.slice(0, k.lastIndexOf('@')))) this.attempts.delete(k);
  }

  // ---- the polling thread ----

  private loop(): void {
    if (this.stopped || this.closing) return;
    const now = this.now;
    if (now >= ms(this.model.stopMs)) return this.close();
    const stall = this.model.stalls[this.stallIndex];
    if (stall && now >= ms(stall.atMs)) {
      this.stallIndex++;
      this.consumer.trace.emit('consumer.stall', this.consumer.id, { durationMs: stall.durationMs });
      this.consumer.setTimer(ms(stall.durationMs), () => this.loop());
      return;
    }
    while (this.seekIndex < this.model.seeks.length && now >= ms(this.model.seeks[this.seekIndex]!.atMs)) {
      this.consumer.seekAll(this.model.seeks[this.seekIndex]!.to);
      this.seekIndex++;
    }
    this.consumer.poll(this.model.pollTimeoutMs, (r) => this.onPolled(r));
  }

  private onPolled(r: PollResult): void {
    if ('error' in r) return this.close();
    const records = r.records;
    if (records.length === 0) {
      // poll(0) returns at once: do not spin at one instant.
      if (this.model.pollTimeoutMs === 0) this.consumer.setTimer(ms(1), () => this.loop());
      else this.loop();
      return;
    }
    if (this.transform) return this.transform.onPolled(records, () => this.loop());
    if (this.model.handoff) {
      for (const rec of records) this.queue.push(rec);
      this.maybePauseForQueue();
      this.kickWorker();
      return this.afterHandoff();
    }
    if (this.model.commit === 'before-processing') {
      this.consumer.commitSync('sync', () => this.processAll(records, () => this.loop()));
      return;
    }
    this.processAll(records, () => this.afterBatch());
  }

  private afterBatch(): void {
    switch (this.model.commit) {
      case 'sync':
        return this.consumer.commitSync('sync', () => this.loop());
      case 'async':
        this.consumer.commitAsync('async');
        return this.loop();
      default:
        return this.loop();
    }
  }

  /** With a hand-off the commit strategy runs as soon as the records are queued, before the worker saw them. */
  private afterHandoff(): void {
    // The next turn of the loop is a new event: back-to-back polls of buffered data must not nest.
    const next = (): void => {
      this.consumer.setTimer(0, () => this.loop());
    };
    switch (this.model.commit) {
      case 'sync':
      case 'before-processing':
        return this.consumer.commitSync('sync', next);
      case 'async':
        this.consumer.commitAsync('async');
        return next();
      default:
        return next();
    }
  }

  /** Processes a poll's records on the polling thread, partition by partition. */
  private processAll(records: readonly PolledRecord[], done: () => void): void {
    const chunks = chunksOf(records);
    let i = 0;
    const next = (): void => {
      if (this.stopped) return;
      const c = chunks[i++];
      if (!c) return done();
      this.processChunk(c, 'poll', next);
    };
    next();
  }

  /**
   * Processes the records of one partition in order until a poison pill; the pill's policy decides whether the
   * rest of the chunk goes on (skip, dead-lettered) or the partition is rewound to the pill (retry).
   */
  private processChunk(c: Chunk, thread: 'poll' | 'worker', done: () => void): void {
    const start = this.now;
    let elapsed = 0;
    const offsets: number[] = [];
    const latency: number[] = [];
    let pillIndex = -1;
    let pill: PoisonPill | undefined;
    for (let j = 0; j < c.records.length; j++) {
      const r = c.records[j]!;
      const p = this.model.poisonPills.length > 0 ? poisonPillFor(this.model.poisonPills, r.key, r.value) : undefined;
      elapsed += ms(drawProcessingMs(this.model.recordTime, this.random));
      if (p) {
        pillIndex = j;
        pill = p;
        break;
      }
      offsets.push(r.offset);
      latency.push(Math.max(0, (start + elapsed) / 1000 - r.timestamp));
    }
    const backoffUs = pill && pill.policy.kind !== 'skip' ? ms(pill.policy.backoffMs ?? 0) : 0;
    this.consumer.setTimer(elapsed, () => {
      if (this.stopped) return;
      if (offsets.length > 0) {
        const first = c.records[0]!;
        this.consumer.trace.emitEvent({ t: UNSTAMPED, seq: UNSTAMPED, kind: 'consumer.processed', node: this.consumer.id, topic: first.topic, partition: first.partition, offsets, latencyMs: latency, thread });
      }
      if (!pill) return done();
      const r = c.records[pillIndex]!;
      const rest: Chunk = { key: c.key, records: c.records.slice(pillIndex + 1) };
      const goOn = (): void => (rest.records.length > 0 ? this.processChunk(rest, thread, done) : done());
      this.onPoisonPill(r, pill, thread, goOn, () => {
        // Retry: the polling thread rewinds the partition to the pill and moves on to other partitions; a worker
        // retries in place (it cannot seek).
        if (thread === 'poll') {
          this.consumer.seekPartition(c.key, r.offset);
          this.consumer.setTimer(backoffUs, done);
        } else {
          this.consumer.setTimer(backoffUs, () => this.processChunk({ key: c.key, records: c.records.slice(pillIndex) }, thread, done));
        }
      });
    });
  }

  private onPoisonPill(r: PolledRecord, pill: PoisonPill, _thread: 'poll' | 'worker', goOn: () => void, retry: () => void): void {
    const id = `${tpKey(r.topic, r.partition)}@${r.offset}`;
    const attempt = (this.attempts.get(id) ?? 0) + 1;
    this.attempts.set(id, attempt);
    const fail = (action: 'retry' | 'skip' | 'dead-letter'): void =>
      this.consumer.trace.emit('consumer.process.fail', this.consumer.id, { topic: r.topic, partition: r.partition, offset: r.offset, key: r.key, value: r.value, attempt, action });
    const policy = pill.policy;
    if (policy.kind === 'skip') {
      fail('skip');
      this.attempts.delete(id);
      return goOn();
    }
    if (policy.kind === 'retry-forever' || attempt < policy.attempts) {
      fail('retry');
      return retry();
    }
    fail('dead-letter');
    const dlt = policy.topic;
    this.consumer.deadLetters.publish(dlt, r.key, r.value, (res) => {
      if (this.stopped) return;
      this.consumer.trace.emit('consumer.dead-letter', this.consumer.id, {
        topic: dlt,
        partition: res.partition,
        offset: res.ok ? res.offset : -1,
        sourceTopic: r.topic,
        sourcePartition: r.partition,
        sourceOffset: r.offset,
        key: r.key,
        value: r.value,
        ok: res.ok,
        error: res.ok ? 'NONE' : res.error,
      });
      if (res.ok) {
        this.attempts.delete(id);
        return goOn();
      }
      retry();
    });
  }

  // ---- the worker thread of a hand-off ----

  private kickWorker(): void {
    if (this.workerBusy || this.stopped) return;
    if (this.queueHead >= this.queue.length) {
      this.queue.length = 0;
      this.queueHead = 0;
      this.maybePauseForQueue();
      return;
    }
    const first = this.queue[this.queueHead]!;
    const key = tpKey(first.topic, first.partition);
    const records: PolledRecord[] = [];
    while (this.queueHead < this.queue.length && records.length < 500) {
      const r = this.queue[this.queueHead]!;
      if (r.topic !== first.topic || r.partition !== first.partition) break;
      records.push(r);
      this.queueHead++;
    }
    this.workerBusy = true;
    this.processChunk({ key, records }, 'worker', () => {
      this.workerBusy = false;
      this.maybePauseForQueue();
      this.kickWorker();
    });
  }

  private maybePauseForQueue(): void {
    const h = this.model.handoff;
    if (!h) return;
    const queued = this.queue.length - this.queueHead;
    if (!this.pausedForQueue && queued > h.maxQueuedRecords) {
      this.pausedForQueue = true;
      this.consumer.setPaused(true);
    } else if (this.pausedForQueue && queued <= h.maxQueuedRecords / 2) {
      this.pausedForQueue = false;
      this.consumer.setPaused(false);
    }
  }

  // ---- close ----

  private close(): void {
    if (this.closing) return;
    this.closing = true;
    this.consumer.close(() => {
      this.stopped = true;
      this.consumer.exit('closed');
    });
  }
}
