/**
 * Each item of `items` once `room` resolves: for a reader that can wait
 * before taking more (a run whose output is stalled behind a slow pipe).
 */
export async function* pacedBy<T>(items: AsyncIterable<T>, room: () => Promise<void>): AsyncGenerator<T> {
  for await (const item of items) {
    await room();
    yield item;
  }
}
