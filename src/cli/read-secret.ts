import { InterruptedError } from './cli-errors.js';
import type { CliIO } from './io.js';

/**
 * Read a secret without it touching shell history: a hidden prompt on a
 * terminal, otherwise the whole of standard input (for `echo $KEY | ...`).
 * Hand-written because a prompt library would be a dependency for ten lines.
 */
export async function readSecret(io: CliIO, prompt: string): Promise<string> {
  const stdin = io.stdin;
  if (!stdin.isTTY || !stdin.setRawMode) return (await readAll(stdin)).trim();
  io.stderr.write(prompt);
  stdin.setRawMode(true);
  stdin.resume();
  try {
    return await new Promise<string>((resolve, reject) => {
      let value = '';
      const onData = (chunk: Buffer | string): void => {
        for (const char of chunk.toString('utf8')) {
          if (char === '\r' || char === '\n' || char === '\u0004') {
            finish();
            resolve(value.trim());
            return;
          }
          // In raw mode Ctrl-C is a keystroke, not a SIGINT.
          if (char === '\u0003') {
            finish();
            reject(new InterruptedError('interrupted at the key prompt; nothing was saved.'));
            return;
          }
          if (char === '\u007f' || char === '\b') value = value.slice(0, -1);
          else value += char;
        }
      };
      const finish = (): void => {
        stdin.removeListener('data', onData);
        io.stderr.write('\n');
      };
      stdin.on('data', onData);
    });
  } finally {
    stdin.setRawMode(false);
    stdin.pause();
  }
}

async function readAll(stream: NodeJS.ReadableStream): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
  return Buffer.concat(chunks).toString('utf8');
}
