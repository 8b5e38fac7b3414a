import { setImmediate as nextTurn } from 'node:timers/promises';
import v8 from 'node:v8';
import vm from 'node:vm';

/**
 * Live memory after collecting garbage: the heap plus the typed arrays' buffers, which live outside
 * it. A buffer dropped by one collection is released a little later (V8 frees backing stores after
 * the collection), so this collects twice, a turn apart.
 */
export async function liveBytes(): Promise<number> {
  v8.setFlagsFromString('--expose-gc');
  const gc = vm.runInNewContext('gc') as () => void;
  gc();
  await nextTurn();
  gc();
  const { heapUsed, arrayBuffers } = process.memoryUsage();
  return heapUsed + arrayBuffers;
}
