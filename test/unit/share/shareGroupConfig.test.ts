import { describe, expect, it } from 'vitest';
import { BROKER_CONFIGS, type BrokerConfig } from '../../../sim/kafka/config/configs';
import { brokerGroupShareConfigError, initialStartOffset, parseIsoDuration, parseShareAutoOffsetReset, shareGroupLimits } from '../../../sim/kafka/share/shareGroupConfig';

const DEFAULTS = Object.fromEntries(Object.entries(BROKER_CONFIGS).map(([k, d]) => [k, d.default])) as unknown as BrokerConfig;

describe('share group configs', () => {
  it("Kafka 4.2's broker defaults: delivery limit 5, lock 30 s within 15-60 s, 2000 record locks", () => {
    expect(DEFAULTS['group.share.delivery.count.limit']).toBe(5);
    expect(DEFAULTS['group.share.record.lock.duration.ms']).toBe(30_000);
    expect(DEFAULTS['group.share.partition.max.record.locks']).toBe(2000);
    expect(BROKER_CONFIGS['group.share.delivery.count.limit'].read(11)).toBeUndefined();
    expect(BROKER_CONFIGS['group.share.delivery.count.limit'].read(1)).toBeUndefined();
    expect(BROKER_CONFIGS['group.share.partition.max.record.locks'].read(99)).toBeUndefined();
    expect(BROKER_CONFIGS['group.share.partition.max.record.locks'].read(10_000)).toBe(10_000);
    expect(brokerGroupShareConfigError(DEFAULTS)).toBeNull();
  });

  it('a lock duration outside the min/max bounds is refused, naming both configs', () => {
    expect(brokerGroupShareConfigError({ ...DEFAULTS, 'group.share.record.lock.duration.ms': 10_000 })).toBe('group.share.record.lock.duration.ms must be greater than or equal to group.share.min.record.lock.duration.ms');
    expect(brokerGroupShareConfigError({ ...DEFAULTS, 'group.share.record.lock.duration.ms': 70_000 })).toMatch(/^group.share.max.record.lock.duration.ms must be greater/);
  });

  it('group overrides within the bounds apply; outside them they are refused', () => {
    const l = shareGroupLimits(DEFAULTS, { 'share.record.lock.duration.ms': '15000', 'share.auto.offset.reset': 'earliest' });
    expect(l).toMatchObject({ recordLockDurationMs: 15_000, deliveryCountLimit: 5, autoOffsetReset: { kind: 'earliest' } });
    expect(shareGroupLimits(DEFAULTS, { 'share.record.lock.duration.ms': '5000' })).toBe('share.record.lock.duration.ms must be greater than or equal to group.share.min.record.lock.duration.ms (15000)');
    expect(shareGroupLimits(DEFAULTS)).toMatchObject({ autoOffsetReset: { kind: 'latest' }, sessionTimeoutMs: 45_000, heartbeatIntervalMs: 5000 });
  });

  it('share.auto.offset.reset: latest (default) the high watermark, earliest the log start, by_duration a time', () => {
    const logView = { logStartOffset: 3, highWatermark: 40, nowMs: 100_000, offsetForTimestamp: (ts: number) => (ts <= 40_000 ? 12 : null) };
    expect(initialStartOffset({ kind: 'latest' }, logView)).toBe(40);
    expect(initialStartOffset({ kind: 'earliest' }, logView)).toBe(3);
    expect(initialStartOffset({ kind: 'by_duration', durationMs: 60_000 }, logView)).toBe(12);
    expect(initialStartOffset({ kind: 'by_duration', durationMs: 1000 }, logView)).toBe(40);
    expect(parseShareAutoOffsetReset('by_duration:PT10M')).toEqual({ kind: 'by_duration', durationMs: 600_000 });
    expect(parseShareAutoOffsetReset('newest')).toMatch(/not allowed: latest, earliest or by_duration/);
    expect(parseIsoDuration('P1DT2H')).toBe(93_600_000);
    expect(parseIsoDuration('PT')).toBeNull();
  });
});
