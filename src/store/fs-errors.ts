/** True when `error` is a Node system error with the given errno code (ENOENT, EEXIST...). */
export function hasErrorCode(error: unknown, code: string): boolean {
  return typeof error === 'object' && error !== null && (error as { code?: unknown }).code === code;
}
