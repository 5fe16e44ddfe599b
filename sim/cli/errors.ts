/** A mistake in what the user asked for: printed as one line, exit code 2, never a stack trace. */
export class CliError extends Error {}
