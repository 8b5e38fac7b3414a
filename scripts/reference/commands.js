// The commands and flags as the help texts show them: the program commander builds (dist/cli/main.js),
// read through commander's own Help, so each term and description is the one `--help` prints.
import { Readable } from 'node:stream';

/**
 * @typedef {{ term: string, description: string }} Item
 * @typedef {{ path: string[], usage: string, summary: string, description: string, arguments: Item[], options: Item[], commands: string[] }} CommandDoc
 */

/** Streams that are not terminals and an empty environment, as the build renders the help texts. */
function quietDeps(systemClock) {
  const io = {
    stdout: { write: () => true, isTTY: false },
    stderr: { write: () => true, isTTY: false },
    stdin: Readable.from([]),
    env: {},
    cwd: process.cwd(),
  };
  return { io, clock: systemClock, args: [] };
}

/** The global options, then every visible command and subcommand, depth first in help order. */
export function describeCommands(dist) {
  const program = dist.main.cliProgram(quietDeps(dist.clock.systemClock));
  const help = program.createHelp();
  const items = (list, term, description) => list.map((entry) => ({ term: term(entry), description: description(entry) }));
  const visible = (command) => help.visibleCommands(command).filter((sub) => command.commands.includes(sub));
  /** @type {CommandDoc[]} */
  const commands = [];
  const visit = (command, path) => {
    for (const sub of visible(command)) {
      const at = [...path, sub.name()];
      const subHelp = sub.createHelp();
      commands.push({
        path: at,
        usage: subHelp.commandUsage(sub),
        summary: subHelp.subcommandDescription(sub),
        description: subHelp.commandDescription(sub),
        arguments: items(
          subHelp.visibleArguments(sub),
          (a) => subHelp.argumentTerm(a),
          (a) => subHelp.argumentDescription(a),
        ),
        options: items(
          subHelp.visibleOptions(sub).filter((option) => !option.long?.startsWith('--help')),
          (o) => subHelp.optionTerm(o),
          (o) => subHelp.optionDescription(o),
        ),
        commands: visible(sub).map((child) => child.name()),
      });
      visit(sub, at);
    }
  };
  visit(program, []);
  return {
    usage: help.commandUsage(program),
    description: help.commandDescription(program),
    globalOptions: items(
      help.visibleOptions(program).filter((option) => !option.long?.startsWith('--help')),
      (o) => help.optionTerm(o),
      (o) => help.optionDescription(o),
    ),
    commands,
  };
}
