/**
 * A reader that stops reading closes our output (`kafkasim list | head`, `kafkasim run x | grep -m1 lost`).
 * Unix tools die of SIGPIPE then, quietly, and the shell reports success for the pipeline; Node ignores SIGPIPE
 * and reports the failed write as an 'error' event instead, which unhandled is a stack trace. This ends the
 * command at once with exit 0 and no words: the reader has all it wanted.
 */

/** The errors of a write to a stream whose reader has gone (and of every write after it). */
const READER_GONE: ReadonlySet<string> = new Set(['EPIPE', 'ERR_STREAM_DESTROYED', 'ERR_STREAM_WRITE_AFTER_END']);

export function readerGone(e: unknown): boolean {
  const code = (e as { code?: unknown } | null)?.code;
  return typeof code === 'string' && READER_GONE.has(code);
}

/** Ends the process with 0 when `stream`'s reader goes away; any other write error is thrown as before (exit 3 by Node). */
export function endQuietlyWhenReaderGoes(stream: NodeJS.WritableStream, exit: (code: number) => void): void {
  stream.on('error', (e: unknown) => {
    if (readerGone(e)) exit(0);
    else throw e;
  });
}
