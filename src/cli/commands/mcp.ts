import { addBatchFlags, addObjectStorageFlags, settingFlag } from '../batch-flags.js';
import type { CommandRegistration } from '../command.js';

const [allowS3Flag, allowS3Help] = settingFlag('allow-s3');

export const registerMcpCommand: CommandRegistration = (program, action) => {
  addObjectStorageFlags(
    addBatchFlags(
      program
        .command('mcp')
        .description('serve docextract to AI agents: a Model Context Protocol server on stdin/stdout (tools: extract, result, models, jobs)'),
    ),
  )
    .option('--max-credits <n>', 'credits the agent may spend in this session, over all its extractions')
    .option(
      '--allow <dir>',
      'a folder the agent may read documents from and write results to when its client declares no roots; repeatable (default: the current folder and --out)',
      (value: string, previous: string[] | undefined) => [...(previous ?? []), value],
    )
    .option(allowS3Flag, `${allowS3Help}; repeatable, one folder each: the flags replace the setting`, (value: string, previous: string[] | undefined) => [
      ...(previous ?? []),
      value,
    ])
    .addHelpText(
      'after',
      '\nThe agent extracts with your key, rate limits, state folder and output folder, and pays once per\nquestion like any other run. It reads and writes only inside the roots its client declares, else\ninside the --allow folders; objects only below the --allow-s3 roots. Register it with an MCP client, e.g. in its JSON config:\n  { "mcpServers": { "docextract": { "command": "docextract", "args": ["mcp", "--max-credits", "500"] } } }',
    )
    .action(action(() => import('../run/mcp.js').then((m) => m.runMcp)));
};
