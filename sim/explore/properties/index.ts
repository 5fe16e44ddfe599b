import { didYouMean } from '../../core/validate';
import { eventuallyAvailable } from './eventuallyAvailable';
import { exactlyOnce } from './exactlyOnce';
import { groupExclusivity } from './groupExclusivity';
import { hwMonotonic } from './hwMonotonic';
import { noAckedLoss } from './noAckedLoss';
import { noDuplicates } from './noDuplicates';
import { orderPerKey } from './orderPerKey';
import type { RunProperty } from './property';
import { singleLeaderPerEpoch } from './singleLeaderPerEpoch';

export type { PropertyOptions, RunOutcome, RunProperty, Verdict } from './property';

/** Every property exploration can search a counterexample for, by name. */
export const PROPERTIES: readonly RunProperty[] = [
  noAckedLoss,
  orderPerKey,
  noDuplicates,
  singleLeaderPerEpoch,
  hwMonotonic,
  groupExclusivity,
  eventuallyAvailable,
  exactlyOnce,
];

export const PROPERTY_NAMES = PROPERTIES.map((p) => p.name);

/** A property by name; the error names the known ones and the nearest. */
export function propertyByName(name: string): RunProperty {
  const p = PROPERTIES.find((x) => x.name === name);
  if (p) return p;
  const near = didYouMean(name, PROPERTY_NAMES);
  throw new Error(`no property named ${JSON.stringify(name)}${near ? ` (did you mean "${near}"?)` : ''}; the properties are: ${PROPERTY_NAMES.join(', ')}`);
}
