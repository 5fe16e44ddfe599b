import { describe, expect, it } from 'vitest';
import { rebalanceProtocolFor } from '../../../sim/kafka/client/consumer/assignors/partitionAssignmentStrategy';
import { candidateProtocols, selectProtocol } from '../../../sim/kafka/coordinator/protocolVote';

const member = (memberId: string, ...protocols: string[]) => ({ memberId, protocols });

describe('selectProtocol (ClassicGroup.selectProtocol)', () => {
  it('picks range for a group on the default list: it is every member\'s first choice', () => {
    const ms = ['a', 'b', 'c'].map((id) => member(id, 'range', 'cooperative-sticky'));
    expect(selectProtocol(ms)).toBe('range');
  });

  it('only considers protocols every member supports', () => {
    // Mid-way through a rolling upgrade to cooperative-sticky: the old member only knows range.
    const ms = [member('a', 'cooperative-sticky', 'range'), member('b', 'cooperative-sticky', 'range'), member('c', 'range')];
    expect([...candidateProtocols(ms)]).toEqual(['range']);
    expect(selectProtocol(ms)).toBe('range');
    // Once every member lists cooperative-sticky first, it wins.
    expect(selectProtocol(ms.slice(0, 2))).toBe('cooperative-sticky');
  });

  it('lets the majority of first choices win', () => {
    const ms = [member('a', 'roundrobin', 'sticky'), member('b', 'sticky', 'roundrobin'), member('c', 'sticky', 'roundrobin')];
    expect(selectProtocol(ms)).toBe('sticky');
  });

  // Ties: Kafka keeps the first of the tied names in HashMap iteration order. A throwaway JDK 17 program
  // (HashMap<String,Integer> + stream().max(comparingInt(getValue))) returned "range" for a range /
  // cooperative-sticky tie; the HashMap iterated sticky, range, roundrobin, cooperative-sticky.
  it('breaks ties as Kafka\'s HashMap does', () => {
    const tie = (x: string, y: string) => selectProtocol([member('a', x, y), member('b', y, x)]);
    expect(tie('cooperative-sticky', 'range')).toBe('range');
    expect(tie('cooperative-sticky', 'sticky')).toBe('sticky');
    expect(tie('roundrobin', 'range')).toBe('range');
  });

  it('fails when the group is empty or has no common protocol', () => {
    expect(() => selectProtocol([])).toThrow(/empty group/);
    expect(() => selectProtocol([member('a', 'range'), member('b', 'sticky')])).toThrow(/does not support/);
  });
});

describe('rebalanceProtocolFor (ConsumerCoordinator)', () => {
  it('is EAGER for the default list, because range is eager-only', () => {
    expect(rebalanceProtocolFor(['range', 'cooperative-sticky'])).toBe('EAGER');
    expect(rebalanceProtocolFor(['sticky', 'cooperative-sticky'])).toBe('EAGER');
  });

  it('is COOPERATIVE only when every listed assignor supports it', () => {
    expect(rebalanceProtocolFor(['cooperative-sticky'])).toBe('COOPERATIVE');
  });

  it('rejects an empty or unknown list', () => {
    expect(() => rebalanceProtocolFor([])).toThrow(/empty/);
    expect(() => rebalanceProtocolFor(['nope'])).toThrow(/unknown/);
  });
});
