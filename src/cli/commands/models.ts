import type { CommandRegistration } from '../command.js';

export const registerModelsCommand: CommandRegistration = (program, action) => {
  program
    .command('models')
    .description('list the document types (prompt templates) this key may use; no credits')
    .action(action(() => import('../run/models.js').then((m) => m.runModels)));
};
