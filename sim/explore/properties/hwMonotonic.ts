import { checkProperty } from './property';

/** A leader's high watermark going down within its epoch: the check high-watermark-regression (sim/check/leadership.ts). */
export const hwMonotonic = checkProperty('hw-monotonic', 'high-watermark-regression', "a leader's high watermark never goes down within a leader epoch");
