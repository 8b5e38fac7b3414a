import { discoverInputs, type DiscoveredInput, type DiscoveryOptions, type DiscoveryResult } from '../../src/files/discover.js';

/** What discovery found, its list of inputs read whole: for small batches in tests. */
export type ListedDiscovery = Omit<DiscoveryResult, 'inputs'> & { inputs: DiscoveredInput[] };

export async function discoverListed(args: string[], options: DiscoveryOptions = {}): Promise<ListedDiscovery> {
  const result = await discoverInputs(args, options);
  return { ...result, inputs: [...result.inputs.slices(Number.MAX_SAFE_INTEGER)].flat() };
}
