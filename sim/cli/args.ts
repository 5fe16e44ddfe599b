import { didYouMean, lookup, quoteName } from '../core/validate';
import { CliError } from './errors';

export interface OptionSpec {
  /** Takes a value (`--seed 3`); otherwise a flag. */
  readonly value?: boolean;
  /** May be given several times (`--set a=1 --set b=2`). */
  readonly repeat?: boolean;
}

export interface Parsed {
  readonly positional: string[];
  readonly flags: Set<string>;
  readonly values: Map<string, string[]>;
}

/**
 * Parses `args` against the options a command knows. An unknown option, a missing value or a stray
 * repeat is a one-line CliError (exit code 2).
 */
export function parseArgs(command: string, args: readonly string[], spec: Readonly<Record<string, OptionSpec>>): Parsed {
  const positional: string[] = [];
  const flags = new Set<string>();
  const values = new Map<string, string[]>();
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a === '--') {
      positional.push(...args.slice(i + 1));
      break;
    }
    if (!a.startsWith('--')) {
      positional.push(a);
      continue;
    }
    const eq = a.indexOf('=');
    const name = eq > 0 ? a.slice(2, eq) : a.slice(2);
    const s = lookup(spec, name);
    if (!s) {
      const known = Object.keys(spec).map((k) => `--${k}`).join(', ');
      const near = didYouMean(name, Object.keys(spec));
      throw new CliError(`${command}: unknown option ${/^[\w.-]{1,60}$/.test(name) ? `--${name}` : quoteName(`--${name}`)}${near ? ` (did you mean "--${near}"?)` : ''}; the options are: ${known || 'none'}`);
    }
    if (!s.value) {
      if (eq > 0) throw new CliError(`${command}: --${name} takes no value`);
      flags.add(name);
      continue;
    }
    let v: string | undefined;
    if (eq > 0) v = a.slice(eq + 1);
    else {
      v = args[i + 1];
      if (v === undefined || v.startsWith('--')) throw new CliError(`${command}: --${name} needs a value`);
      i++;
    }
    const list = values.get(name) ?? [];
    if (list.length > 0 && !s.repeat) throw new CliError(`${command}: --${name} was given twice`);
    list.push(v);
    values.set(name, list);
  }
  return { positional, flags, values };
}

export function single(p: Parsed, name: string): string | undefined {
  return p.values.get(name)?.[0];
}
