import { describe, expect, it } from 'vitest';
import { ValidationError } from '../../../sim/core/validate';
import { AlertEvaluator, parseAlertRule, seriesValue, type SampleMoment } from '../../../sim/kafka/metrics/alerts';
import { mbeanOf, parseSeriesKey, prometheusOf } from '../../../sim/kafka/metrics/catalog';
import { IntervalHistogram, Meter } from '../../../sim/kafka/metrics/meters';

const S = 1_000_000;

describe('meters', () => {
  it('a meter reads the rate since its last read, and keeps the count', () => {
    const m = new Meter(0);
    m.mark(5);
    m.mark();
    expect(m.read(2 * S)).toBe(3);
    expect(m.read(3 * S)).toBe(0);
    m.mark(10);
    expect(m.read(3.5 * S)).toBe(20);
    expect(m.count).toBe(16);
    expect(m.read(3.5 * S)).toBe(0); // no time: no rate
  });

  it('a histogram gives the percentiles of the interval and starts over', () => {
    const h = new IntervalHistogram();
    for (let i = 1; i <= 1000; i++) h.record(i);
    expect(h.read()).toEqual({ count: 1000, p50: 500, p99: 990, p999: 999, max: 1000, mean: 500.5 });
    expect(h.read()).toBeNull();
    h.record(7);
    expect(h.read()).toMatchObject({ p50: 7, p99: 7, max: 7 });
  });
});

describe('the metrics catalog', () => {
  it('knows each key, its JMX name and its Prometheus name', () => {
    const urp = parseSeriesKey('UnderReplicatedPartitions')!;
    expect(mbeanOf(urp, 'broker-1')).toBe('kafka.server:type=ReplicaManager,name=UnderReplicatedPartitions');
    expect(prometheusOf(urp, 'broker-1')).toEqual({ name: 'kafka_server_replicamanager_underreplicatedpartitions', labels: { instance: 'broker-1' } });
    const p99 = parseSeriesKey('TotalTimeMs.p99.Produce')!;
    expect([p99.family.name, p99.request]).toEqual(['TotalTimeMs.p99', 'Produce']);
    expect(mbeanOf(p99, 'broker-1')).toBe('kafka.network:type=RequestMetrics,name=TotalTimeMs,request=Produce');
    expect(prometheusOf(p99, 'broker-2')).toEqual({ name: 'kafka_network_requestmetrics_totaltimems', labels: { instance: 'broker-2', request: 'Produce', quantile: '0.99' } });
    const lag = parseSeriesKey('records-lag-max')!;
    expect(mbeanOf(lag, 'c1')).toBe('kafka.consumer:type=consumer-fetch-manager-metrics,client-id=c1');
    expect(prometheusOf(lag, 'c1')).toEqual({ name: 'kafka_consumer_consumer_fetch_manager_metrics_records_lag_max', labels: { instance: 'c1', client_id: 'c1' } });
    expect(prometheusOf(parseSeriesKey('OfflinePartitionsCount')!, 'controller-1').name).toBe('kafka_controller_kafkacontroller_offlinepartitionscount');
    expect(parseSeriesKey('UnderReplicated')).toBeNull();
    expect(parseSeriesKey('UnderReplicatedPartitions.Produce')).toBeNull(); // not a request metric
  });
});

const actors = ['broker-1', 'broker-2', 'controller-1', 'c1'];
const moment = (atS: number, values: Record<string, Record<string, number>>): SampleMoment => ({ atUs: atS * S, values: new Map(Object.entries(values)) });

describe('alert rules', () => {
  it('read the operator form: series, op, threshold, for; an aggregate or an actor', () => {
    expect(parseAlertRule('UnderMinIsrPartitionCount > 0 for 30s', 'alerts[0]', actors)).toMatchObject({ series: 'UnderMinIsrPartitionCount', aggregate: 'sum', actor: null, op: '>', threshold: 0, forUs: 30 * S });
    expect(parseAlertRule('OfflinePartitionsCount > 0', 'a', actors)).toMatchObject({ aggregate: 'max', forUs: 0 });
    expect(parseAlertRule('sum(ActiveControllerCount) != 1 for 5s', 'a', actors)).toMatchObject({ aggregate: 'sum', op: '!=', threshold: 1 });
    expect(parseAlertRule('max(records-lag-max{c1}) >= 1000', 'a', actors)).toMatchObject({ actor: 'c1', aggregate: 'max', op: '>=' });
    expect(parseAlertRule('TotalTimeMs.p99.Produce == 2.5', 'a', actors, 'slow')).toMatchObject({ name: 'slow', op: '=', threshold: 2.5 });
  });

  it('name what is wrong: the shape, an unknown series (with the catalog), an unknown actor, a bad duration', () => {
    const err = (text: string) => {
      try {
        parseAlertRule(text, 'alerts[2]', actors);
      } catch (e) {
        if (e instanceof ValidationError) return e.message;
        throw e;
      }
      return 'no error';
    };
    expect(err('UnderMinIsrPartitionCount')).toMatch(/^alerts\[2\]: .* expected "<series> <op> <number>/);
    expect(err('sum(LeaderCount > 0')).toMatch(/expected "<series> <op>/);
    expect(err('UnderMinIsr > 0')).toMatch(/unknown series "UnderMinIsr"/);
    expect(err('LeaderCount{broker-9} > 0')).toMatch(/unknown actor "broker-9"/);
    expect(err('LeaderCount > 0 for soon')).toMatch(/"soon" is not a duration/);
  });

  it('combine the actors of one moment by the family default or the function named, and ignore absent ones', () => {
    const m = moment(1, { 'broker-1': { UnderReplicatedPartitions: 2 }, 'broker-2': { UnderReplicatedPartitions: 3 }, 'controller-1': { OfflinePartitionsCount: 1 } });
    expect(seriesValue(parseAlertRule('UnderReplicatedPartitions > 0', 'a', actors), m)).toBe(5);
    expect(seriesValue(parseAlertRule('max(UnderReplicatedPartitions) > 0', 'a', actors), m)).toBe(3);
    expect(seriesValue(parseAlertRule('UnderReplicatedPartitions{broker-1} > 0', 'a', actors), m)).toBe(2);
    expect(seriesValue(parseAlertRule('LeaderCount > 0', 'a', actors), m)).toBeNull();
  });

  it('are pending from the first sample that holds, fire after `for`, resolve at the first that does not', () => {
    const e = new AlertEvaluator(parseAlertRule('UnderMinIsrPartitionCount > 0 for 2s', 'a', actors));
    const urp = (at: number, v: number | null) => e.observe(moment(at, v === null ? {} : { 'broker-1': { UnderMinIsrPartitionCount: v } }));
    urp(1, 0);
    urp(2, 1); // pending
    urp(3, 0); // back before `for`: never fired
    urp(4, 1); // pending again
    urp(5, 3);
    urp(6, 2); // held 2 s: fires
    urp(7, 4);
    urp(8, null); // nobody reports it: resolved
    urp(9, 1);
    urp(10, 1);
    urp(11, 1); // fires again, still firing at the end
    expect(e.result()).toEqual([
      { pendingAtUs: 4 * S, firedAtUs: 6 * S, resolvedAtUs: 8 * S, peak: 4 },
      { pendingAtUs: 9 * S, firedAtUs: 11 * S, resolvedAtUs: null, peak: 1 },
    ]);
  });
});
