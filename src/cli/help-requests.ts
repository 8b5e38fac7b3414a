import type { Command } from 'commander';

/** Commander's help width when the stream is not a terminal; the build renders the help texts at it. */
export const HELP_WIDTH_OFF_TERMINAL = 80;

/**
 * Every argv (after `docextract`) that does nothing but show a help text: `--help`, `-h`, `help`,
 * no arguments at all, and for each visible command and subcommand `<cmd> --help`, `<cmd> -h`,
 * `help <cmd>` (`<group> help <sub>` below a group), plus a group alone (`config`). The build
 * renders each once (help-texts.ts) so that bin/ can answer them without loading the CLI.
 */
export function listHelpRequests(program: Command): string[][] {
  const requests: string[][] = [[], ['--help'], ['-h'], ['help']];
  const visit = (parent: Command, path: string[]): void => {
    for (const command of visibleCommands(parent)) {
      const at = [...path, command.name()];
      requests.push([...at, '--help'], [...at, '-h'], [...path, 'help', command.name()]);
      if (visibleCommands(command).length > 0) {
        requests.push(at, [...at, 'help']);
        visit(command, at);
      }
    }
  };
  visit(program, []);
  return requests;
}

/** The subcommands help lists, without commander's own `help` (hidden ones such as `__complete` are left out). */
function visibleCommands(command: Command): Command[] {
  return command
    .createHelp()
    .visibleCommands(command)
    .filter((sub) => command.commands.includes(sub));
}
