import { demo } from './demo';

export class CliError extends Error {}

export interface CliIo {
  out(s: string): void;
  err(s: string): void;
  color: boolean;
}

const USAGE = `kafkasim — a deterministic simulator of an Apache Kafka 4.x cluster

Usage:
  kafkasim demo              run the built-in demonstration
  kafkasim help [command]    show help

Options:
  -h, --help                 show help for a command
`;

const COMMANDS: Record<string, { help: string; run: (args: string[], io: CliIo) => number }> = {
  demo: {
    help: `kafkasim demo\n\nRuns the built-in demonstration and prints what it shows.\n`,
    run: (args, io) => {
      if (args.length > 0) throw new CliError(`demo takes no arguments (got ${JSON.stringify(args[0])})`);
      return demo(io);
    },
  },
};

export function runCli(argv: string[], io: CliIo): number {
  const [cmd, ...rest] = argv;
  if (cmd === undefined || cmd === '-h' || cmd === '--help') {
    io.out(USAGE);
    return 0;
  }
  if (cmd === 'help') {
    const c = rest[0] ? COMMANDS[rest[0]] : undefined;
    io.out(c ? c.help : USAGE);
    return 0;
  }
  const c = COMMANDS[cmd];
  if (!c) throw new CliError(`unknown command ${JSON.stringify(cmd)}; the commands are: ${Object.keys(COMMANDS).join(', ')} (see kafkasim --help)`);
  if (rest.includes('-h') || rest.includes('--help')) {
    io.out(c.help);
    return 0;
  }
  return c.run(rest, io);
}
