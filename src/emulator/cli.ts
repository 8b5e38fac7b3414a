/** Placeholder until the emulator lands. */
export async function runEmulatorCli(_argv: string[]): Promise<void> {}
