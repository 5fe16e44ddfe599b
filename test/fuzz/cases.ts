import fc from 'fast-check';
import { argvCase, type ArgvCase } from './argv';
import { documentCase, type DocumentCase } from './documents';

/** One fuzz case: a scenario document to run, or a whole command line. */
export type FuzzCase = (DocumentCase & { readonly json: boolean }) | ArgvCase;

export const fuzzCase: fc.Arbitrary<FuzzCase> = fc.oneof(
  { weight: 3, arbitrary: fc.tuple(documentCase, fc.boolean()).map(([d, json]): FuzzCase => ({ ...d, json })) },
  { weight: 1, arbitrary: argvCase },
);

/** What a case is, in one line, for the report of a failure. */
export function describeCase(c: FuzzCase): string {
  if (c.kind === 'argv') return `kafkasim ${c.argv.map((a) => (/^[\w./$:=,-]+$/.test(a) ? a : JSON.stringify(a.length > 40 ? a.slice(0, 37) + '...' : a))).join(' ')}`;
  return `kafkasim run <${c.base} with ${c.label}>${c.json ? ' --json' : ''}`;
}
