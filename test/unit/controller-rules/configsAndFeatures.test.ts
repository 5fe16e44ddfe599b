import { describe, expect, it } from 'vitest';
import { alterConfigs } from '../../../sim/kafka/controller/rules/alterConfigs';
import { updateElrFeature } from '../../../sim/kafka/controller/rules/elrFeature';
import { TestCluster } from './testCluster';

describe('alterConfigs and the ELR', () => {
  it('a cluster-level min.insync.replicas change clears the ELR of all topics', () => {
    const c = new TestCluster({ elr: true });
    const r = alterConfigs(c.image, [{ resourceType: 'BROKER', resourceName: '', name: 'min.insync.replicas', value: '2' }]);
    expect(r.records).toEqual([
      { type: 'ConfigRecord', resourceType: 'BROKER', resourceName: '', name: 'min.insync.replicas', value: '2' },
      { type: 'ClearElrRecord', topicName: '' },
    ]);
  });

  it('with ELR on: broker-level min.insync.replicas is refused, and the cluster-level one cannot be removed', () => {
    const c = new TestCluster({ elr: true });
    expect(alterConfigs(c.image, [{ resourceType: 'BROKER', resourceName: '1', name: 'min.insync.replicas', value: '2' }]).response.error).toBe('INVALID_CONFIG');
    expect(alterConfigs(c.image, [{ resourceType: 'BROKER', resourceName: '', name: 'min.insync.replicas', value: null }]).response.error).toBe('INVALID_CONFIG');
  });

  it('with ELR off: no ClearElrRecord, broker-level values allowed', () => {
    const c = new TestCluster({ elr: false });
    const r = alterConfigs(c.image, [{ resourceType: 'BROKER', resourceName: '1', name: 'min.insync.replicas', value: '2' }]);
    expect(r.response.error).toBe('NONE');
    expect(r.records.map((x) => x.type)).toEqual(['ConfigRecord']);
  });

  it('topic configs: the topic must exist and the value must be valid; all or nothing', () => {
    const c = new TestCluster({ elr: false });
    c.createTopic('t', [[1]]);
    expect(alterConfigs(c.image, [{ resourceType: 'TOPIC', resourceName: 'u', name: 'retention.ms', value: '1' }]).response.error).toBe('UNKNOWN_TOPIC_OR_PARTITION');
    const bad = alterConfigs(c.image, [
      { resourceType: 'TOPIC', resourceName: 't', name: 'retention.ms', value: '1' },
      { resourceType: 'TOPIC', resourceName: 't', name: 'min.insync.replicas', value: 'zero' },
    ]);
    expect(bad).toMatchObject({ records: [], response: { error: 'INVALID_CONFIG' } });
  });
});

describe('the ELR switch: eligible.leader.replicas.version', () => {
  it('bootstrap: on by default for new clusters (4.1+), with a cluster-level min.insync.replicas', () => {
    const on = new TestCluster({ elr: true });
    expect(on.image.elrEnabled()).toBe(true);
    expect(on.image.featureLevel('eligible.leader.replicas.version')).toBe(1);
    expect(on.image.resourceConfigs('BROKER', '')?.get('min.insync.replicas')).toBe('1');
    const off = new TestCluster({ elr: false });
    expect(off.image.elrEnabled()).toBe(false);
  });

  it('turning it on writes the safety records first: cluster min ISR if missing, broker-level min ISR removed', () => {
    const c = new TestCluster({ elr: false });
    c.startBroker(1);
    c.append([{ type: 'ConfigRecord', resourceType: 'BROKER', resourceName: '1', name: 'min.insync.replicas', value: '3' }]);
    const r = updateElrFeature(c.image, true, 2);
    expect(r.records).toEqual([
      { type: 'ConfigRecord', resourceType: 'BROKER', resourceName: '', name: 'min.insync.replicas', value: '2' },
      { type: 'ConfigRecord', resourceType: 'BROKER', resourceName: '1', name: 'min.insync.replicas', value: null },
      { type: 'FeatureLevelRecord', name: 'eligible.leader.replicas.version', featureLevel: 1 },
    ]);
    c.append(r.records);
    expect(c.image.elrEnabled()).toBe(true);
    expect(c.image.resourceConfigs('BROKER', '1')).toBeUndefined();
  });

  it('turning it off writes level 0', () => {
    const c = new TestCluster({ elr: true });
    const r = updateElrFeature(c.image, false);
    expect(r.records).toEqual([{ type: 'FeatureLevelRecord', name: 'eligible.leader.replicas.version', featureLevel: 0 }]);
    c.append(r.records);
    expect(c.image.elrEnabled()).toBe(false);
  });
});

describe('alterConfigs and the ELR switch, exactly', () => {
  it('a topic-level min.insync.replicas clears that topic\'s ELR; other configs clear nothing', () => {
    const c = new TestCluster({ elr: true });
    c.createTopic('t', [[1]]);
    const r = alterConfigs(c.image, [
      { resourceType: 'TOPIC', resourceName: 't', name: 'retention.ms', value: '5' },
      { resourceType: 'TOPIC', resourceName: 't', name: 'min.insync.replicas', value: '1' },
    ]);
    expect(r).toEqual({
      records: [
        { type: 'ConfigRecord', resourceType: 'TOPIC', resourceName: 't', name: 'retention.ms', value: '5' },
        { type: 'ConfigRecord', resourceType: 'TOPIC', resourceName: 't', name: 'min.insync.replicas', value: '1' },
        { type: 'ClearElrRecord', topicName: 't' },
      ],
      response: { error: 'NONE', message: '' },
      elections: [],
    });
    // Deleting a topic config (null) needs no valid value; a broker config other than min ISR passes untouched.
    expect(alterConfigs(c.image, [{ resourceType: 'TOPIC', resourceName: 't', name: 'retention.ms', value: null }]).response.error).toBe('NONE');
    expect(alterConfigs(c.image, [{ resourceType: 'BROKER', resourceName: '1', name: 'log.retention.ms', value: '5' }]).records).toEqual([
      { type: 'ConfigRecord', resourceType: 'BROKER', resourceName: '1', name: 'log.retention.ms', value: '5' },
    ]);
  });

  it('refusals write nothing and say why', () => {
    const c = new TestCluster({ elr: true });
    c.createTopic('t', [[1]]);
    const change = (o: object) => alterConfigs(c.image, [{ resourceType: 'TOPIC', resourceName: 't', name: 'retention.ms', value: '1', ...o }]);
    expect(change({ resourceName: 'u' })).toEqual({ records: [], response: { error: 'UNKNOWN_TOPIC_OR_PARTITION', message: 'no topic u' }, elections: [] });
    expect(change({ name: 'no.such' }).response).toEqual({ error: 'INVALID_CONFIG', message: 'unknown topic config no.such' });
    expect(change({ value: 'soon' }).response.message).toMatch(/^retention\.ms=soon is not /);
    expect(alterConfigs(c.image, [{ resourceType: 'BROKER', resourceName: '1', name: 'min.insync.replicas', value: '2' }]).response.message).toBe('A broker-level min.insync.replicas cannot be changed while ELR is on.');
    expect(alterConfigs(c.image, [{ resourceType: 'BROKER', resourceName: '', name: 'min.insync.replicas', value: null }]).response.message).toBe('The cluster-level min.insync.replicas cannot be removed while ELR is on.');
  });

  it('turning ELR on over a cluster that already has a cluster-level min ISR and no broker-level one writes only the feature', () => {
    const c = new TestCluster({ elr: false });
    c.startBroker(1);
    c.append([{ type: 'ConfigRecord', resourceType: 'BROKER', resourceName: '', name: 'min.insync.replicas', value: '2' }]);
    expect(updateElrFeature(c.image, true, 3)).toEqual({ records: [{ type: 'FeatureLevelRecord', name: 'eligible.leader.replicas.version', featureLevel: 1 }], response: undefined, elections: [] });
    // Turning it off touches no config, whatever there is.
    c.append([{ type: 'ConfigRecord', resourceType: 'BROKER', resourceName: '1', name: 'min.insync.replicas', value: '3' }]);
    expect(updateElrFeature(c.image, false).records).toEqual([{ type: 'FeatureLevelRecord', name: 'eligible.leader.replicas.version', featureLevel: 0 }]);
  });
});
