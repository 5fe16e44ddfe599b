import type { Consumer, ConsumerRunConfig, EachBatchPayload, EachMessagePayload, ICustomPartitioner, Message, Producer, ProducerBatch, ProducerRecord, RecordMetadata } from 'kafkajs';
import type { Trace } from '../core/trace';
import { payloadText } from '../kafka/payloadTable';
import { tpKey } from '../kafka/topicPartition';

/**
 * The application's operations as history, in the trace kinds the simulated clients write (send.invoke, send.ok,
 * send.fail, consumer.poll, consumer.join, consumer.assignment, consumer.commit, consumer.close), so every checker
 * judges a real kafkajs application as it judges the simulated ones. Values are the records' bytes as the
 * simulator keeps them (UTF-8 text as itself), so a value in a send and in the final log compare equal; like the
 * simulated workloads, the checkers expect every sent value to be unique.
 */

function text(v: Buffer | string | null | undefined): string | null {
  if (v === null || v === undefined) return null;
  const b = typeof v === 'string' ? Buffer.from(v, 'utf8') : v;
  return payloadText(new Uint8Array(b.buffer, b.byteOffset, b.byteLength));
}

/** kafkajs acks (-1, 0, 1) as the history writes acks ('all', '0', '1'). */
function acksName(acks: number | undefined): string {
  return acks === undefined || acks === -1 ? 'all' : String(acks);
}

/** Remembers the partition kafkajs's partitioner chose for each message object. */
export function recordingPartitioner(inner: ICustomPartitioner, chosen: WeakMap<Message, number>): ICustomPartitioner {
  return () => {
    const partition = inner();
    return (args) => {
      const p = partition(args);
      chosen.set(args.message, p);
      return p;
    };
  };
}

/** A producer whose send and sendBatch write the history. */
export function recordProducer(p: Producer, node: string, trace: Trace, chosen: WeakMap<Message, number>): Producer {
  const send = p.send.bind(p);
  const sendBatch = p.sendBatch.bind(p);
  const around = async (records: readonly ProducerRecord[], acks: number | undefined, go: () => Promise<RecordMetadata[]>): Promise<RecordMetadata[]> => { // determinism-ok: wraps the application's send
    for (const r of records) {
      for (const m of r.messages) {
        trace.emit('send.invoke', node, { topic: r.topic, partition: m.partition ?? -1, key: text(m.key), value: text(m.value) ?? '' });
      }
    }
    let meta: RecordMetadata[];
    try {
      meta = await go(); // determinism-ok: the application's send
    } catch (e) {
      // kafkajs gives up after its retries; an attempt may still have been written: the outcome is unknown.
      const error = (e as { type?: string; name?: string }).type ?? (e as Error).name ?? 'Error';
      for (const r of records) {
        trace.emit('send.fail', node, { topic: r.topic, partition: -1, error, values: r.messages.map((m) => text(m.value) ?? ''), definite: false });
      }
      throw e;
    }
    for (const md of meta) {
      const r = records.find((x) => x.topic === md.topicName);
      if (!r) continue;
      const values = r.messages.filter((m) => (m.partition ?? chosen.get(m)) === md.partition).map((m) => text(m.value) ?? '');
      const base = md.baseOffset === undefined ? -1 : Number(md.baseOffset);
      trace.emit('send.ok', node, { topic: md.topicName, partition: md.partition, offset: acks === 0 ? -1 : base, values, broker: -1, acks: acksName(acks) });
    }
    return meta;
  };
  p.send = (record: ProducerRecord) => around([record], record.acks, () => send(record));
  p.sendBatch = (batch: ProducerBatch) => {
    const records = (batch.topicMessages ?? []).map((t) => ({ topic: t.topic, messages: t.messages }));
    return around(records, batch.acks, () => sendBatch(batch));
  };
  return p;
}

/** What the bridge learns of a consumer from its own traffic (kafkajs does not report the generation). */
export interface MemberState {
  memberId: string;
  generation: number;
}

/** A consumer whose deliveries, joins, assignments and commits write the history. */
export function recordConsumer(c: Consumer, node: string, groupId: string, trace: Trace, member: MemberState): Consumer {
  let owned: string[] = [];
  c.on(c.events.GROUP_JOIN, (e) => {
    const p = e.payload;
    member.memberId = p.memberId;
    const now = Object.entries(p.memberAssignment).flatMap(([topic, parts]) => parts.map((x) => tpKey(topic, x))).sort();
    trace.emit('consumer.join', node, { group: groupId, memberId: p.memberId, generation: member.generation, leader: p.isLeader, protocol: p.groupProtocol });
    trace.emit('consumer.assignment', node, {
      group: groupId,
      memberId: p.memberId,
      generation: member.generation,
      protocol: p.groupProtocol,
      assigned: now.filter((x) => !owned.includes(x)),
      revoked: [],
      lost: [],
      owned: now,
    });
    owned = now;
  });
  // kafkajs rebalances eagerly: a member gives up everything before it rejoins.
  c.on(c.events.REBALANCING, () => {
    if (owned.length === 0) return;
    trace.emit('consumer.assignment', node, { group: groupId, memberId: member.memberId, generation: member.generation, protocol: '', assigned: [], revoked: owned, lost: [], owned: [] });
    owned = [];
  });
  c.on(c.events.COMMIT_OFFSETS, (e) => {
    const p = e.payload;
    const offsets = p.topics.flatMap((t) => t.partitions.map((x) => ({ topic: t.topic, partition: x.partition, offset: Number(x.offset) })));
    trace.emit('consumer.commit', node, { group: groupId, memberId: p.memberId, generation: p.groupGenerationId, source: 'kafkajs', offsets, ok: true, error: 'NONE', sentAt: -1 });
  });
  c.on(c.events.CRASH, (e) => {
    trace.emit('consumer.error', node, { error: e.payload.error.name, fatal: !e.payload.restart, detail: e.payload.error.message });
  });
  const poll = (topic: string, partition: number, messages: readonly { offset: string; key: Buffer | null; value: Buffer | null }[]) => {
    if (messages.length === 0) return;
    trace.emit('consumer.poll', node, {
      group: groupId,
      memberId: member.memberId,
      generation: member.generation,
      count: messages.length,
      records: [{ topic, partition, offsets: messages.map((m) => Number(m.offset)), keys: messages.map((m) => text(m.key)), values: messages.map((m) => text(m.value)) }],
    });
  };
  const run = c.run.bind(c);
  c.run = (config?: ConsumerRunConfig) => {
    const cfg: ConsumerRunConfig = { ...config };
    const eachMessage = config?.eachMessage;
    const eachBatch = config?.eachBatch;
    if (eachBatch) {
      cfg.eachBatch = (payload: EachBatchPayload) => {
        poll(payload.batch.topic, payload.batch.partition, payload.batch.messages);
        return eachBatch(payload);
      };
    } else if (eachMessage) {
      cfg.eachMessage = (payload: EachMessagePayload) => {
        poll(payload.topic, payload.partition, [payload.message]);
        return eachMessage(payload);
      };
    }
    return run(cfg);
  };
  const disconnect = c.disconnect.bind(c);
  c.disconnect = async () => { // determinism-ok: wraps the application's disconnect
    await disconnect(); // determinism-ok: the application's disconnect
    trace.emit('consumer.close', node, { group: groupId, memberId: member.memberId });
  };
  return c;
}
