import { TraceFormatError, type ParsedTrace, type TraceEvent } from '../core/trace';
import { readTrace } from '../scenario/savedTrace';
import { CliError } from './errors';
import { readTextFile } from './library';

/** A saved trace, validated against the schema; a file that is not one is a CliError naming the line and field (exit 2). */
export function loadTrace(file: string): ParsedTrace<TraceEvent> {
  const text = readTextFile(file);
  try {
    return readTrace(text);
  } catch (e) {
    if (e instanceof TraceFormatError) throw new CliError(`${file}: ${e.message}`);
    throw e;
  }
}
