/** "1 page", "2 pages", "? pages" (an unknown count): one place for every count a message prints. */
export function plural(count: number | null | undefined, noun: string, many = `${noun}s`): string {
  return count === 1 ? `1 ${noun}` : `${count ?? '?'} ${many}`;
}
