import { Argument } from 'commander';
import type { CommandRegistration } from '../command.js';

export const registerCompletionCommand: CommandRegistration = (program, action) => {
  program
    .command('completion')
    .description(
      'print a shell completion script (bash, zsh or fish); Tab then completes commands, flags, paths and document types, starts no process and never sends a request',
    )
    .addArgument(new Argument('<shell>', 'the shell to complete in').choices(['bash', 'zsh', 'fish']))
    .addHelpText(
      'after',
      '\nThe script carries the commands and flags: print it again after an upgrade. Document types are\nthose of the last `docextract models` (or of a run that checked them), read from the state folder.\n\nExamples:\n  source <(docextract completion bash)          # in ~/.bashrc\n  source <(docextract completion zsh)           # in ~/.zshrc, after compinit\n  docextract completion fish > ~/.config/fish/completions/docextract.fish',
    )
    .action(action(() => import('../run/completion.js').then((m) => m.completionScriptFor(program))));
  // What scripts printed by earlier versions call on each Tab; the scripts printed now carry the program's words themselves.
  program
    .command('__complete', { hidden: true })
    .argument('<shell>')
    .argument('[words...]')
    .action(action(() => import('../run/completion.js').then((m) => m.completeFor(program))));
};
