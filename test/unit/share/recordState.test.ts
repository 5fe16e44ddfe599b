import { describe, expect, it } from 'vitest';
import { isTerminal, isValidTransition, RECORD_STATE_ID } from '../../../sim/kafka/share/recordState';

describe('record states', () => {
  it("carry Kafka's persisted ids and transitions", () => {
    expect(RECORD_STATE_ID).toEqual({ AVAILABLE: 0, ACQUIRED: 1, ACKNOWLEDGED: 2, ARCHIVING: 3, ARCHIVED: 4 });
    expect(isValidTransition('AVAILABLE', 'ACQUIRED')).toBe(true);
    expect(isValidTransition('ACQUIRED', 'AVAILABLE')).toBe(true);
    expect(isValidTransition('AVAILABLE', 'ACKNOWLEDGED')).toBe(false);
    expect(isValidTransition('ACKNOWLEDGED', 'AVAILABLE')).toBe(false);
    expect(isValidTransition('ARCHIVING', 'ARCHIVED')).toBe(true);
    expect(['ACKNOWLEDGED', 'ARCHIVED'].every((s) => isTerminal(s as never))).toBe(true);
    expect(isTerminal('ARCHIVING')).toBe(false);
  });
});
