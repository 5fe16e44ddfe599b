import { readdirSync, readFileSync, existsSync } from 'node:fs'; // determinism-ok: runs outside any simulation
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ValidationError, didYouMean, quoteName } from '../core/validate';
import { applyOverrides } from '../scenario/overrides';
import type { ScenarioSpec } from '../scenario/spec';
import { validateScenario, type Scenario } from '../scenario/validate';
import { CliError } from './errors';
import { parseJsonText } from '../core/jsonText';

/** The scenario library: one JSON file per scenario in scenarios/. */
export const SCENARIO_DIR = resolve(dirname(fileURLToPath(import.meta.url)), '../../scenarios');

export function libraryFiles(): string[] {
  if (!existsSync(SCENARIO_DIR)) return []; // determinism-ok: runs outside any simulation
  return readdirSync(SCENARIO_DIR) // determinism-ok: runs outside any simulation
    .filter((f) => f.endsWith('.json'))
    .sort()
    .map((f) => join(SCENARIO_DIR, f));
}

/** The text of a file the user named, or a one-line CliError saying why it cannot be read. */
export function readTextFile(file: string, hint = ''): string {
  try {
    return readFileSync(file, 'utf8'); // determinism-ok: runs outside any simulation
  } catch (e) {
    const code = (e as { code?: string }).code;
    const why = code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'it is a directory' : code === 'EACCES' ? 'permission denied' : (code ?? 'unreadable');
    throw new CliError(`cannot read ${quoteName(file)}: ${why}${hint}`);
  }
}

/** Reads a JSON file; a syntax error names the file and says where. */
export function readJson(file: string): unknown {
  const text = readTextFile(file, ' (give a scenario id from `kafkasim list` or a path to a .json file)');
  const parsed = parseJsonText(text);
  if (!parsed.ok) throw new CliError(`${file} ${parsed.error}`);
  return parsed.value;
}

export function librarySpecs(): ScenarioSpec[] {
  return libraryFiles().map((f) => readJson(f) as ScenarioSpec);
}

/** A scenario by library id or by file path, with --set overrides applied, validated. */
export function loadScenario(ref: string, sets: readonly string[] = []): Scenario {
  let spec: unknown;
  let where: string;
  if (ref.endsWith('.json') || ref.includes('/') || ref.includes('\\')) {
    where = ref;
    spec = readJson(ref);
  } else {
    const file = join(SCENARIO_DIR, `${ref}.json`);
    if (!existsSync(file)) { // determinism-ok: runs outside any simulation
      const ids = libraryFiles().map((f) => f.slice(SCENARIO_DIR.length + 1, -5));
      const near = ref.trim() === '' ? undefined : (didYouMean(ref, ids) ?? ids.find((i) => i.startsWith(ref) || ref.startsWith(i)));
      throw new CliError(`no scenario named ${quoteName(ref)}${near ? `; did you mean "${near}"?` : ''} (see kafkasim list)`);
    }
    where = `scenarios/${ref}.json`;
    spec = readJson(file);
  }
  try {
    // The document's own shape first, so overrides only ever meet a well-formed scenario.
    const base = validateScenario(spec);
    return sets.length > 0 ? validateScenario(applyOverrides(base.spec, sets)) : base;
  } catch (e) {
    if (e instanceof ValidationError) throw new CliError(`${e.path.startsWith('--set') ? '' : `${where}: `}${e.message}`);
    throw e;
  }
}
