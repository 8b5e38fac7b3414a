/** Placeholder until the CLI lands; returns the process exit code. */
export async function main(_argv: string[]): Promise<number> {
  return 0;
}
