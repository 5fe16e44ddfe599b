import { checkProperty } from './property';

/** Two brokers leading one partition in one leader epoch: the check leader-epoch-conflict (sim/check/leadership.ts). */
export const singleLeaderPerEpoch = checkProperty('single-leader-per-epoch', 'leader-epoch-conflict', 'no two brokers lead one partition in the same leader epoch');
