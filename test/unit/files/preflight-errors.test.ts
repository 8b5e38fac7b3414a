import { beforeEach, describe, expect, it, vi } from 'vitest';

// Permission errors cannot be produced for real when tests run as root, so the file system is faked here.
const stat = vi.fn();
vi.mock('node:fs/promises', async (importOriginal) => ({ ...(await importOriginal<object>()), stat: (path: string) => stat(path) }));
const { preflightFile } = await import('../../../src/files/preflight.js');

const failWith = (code: string): void => {
  stat.mockRejectedValueOnce(Object.assign(new Error(code), { code }));
};

describe('preflightFile file-system errors', () => {
  beforeEach(() => stat.mockReset());

  it.each([
    ['EACCES', 'file_unreadable', /permission denied/],
    ['EPERM', 'file_unreadable', /permission denied/],
    ['EIO', 'file_unreadable', /EIO/],
    ['ENOENT', 'file_not_found', /does not exist/],
    ['ENOTDIR', 'file_not_found', /does not exist/],
  ])('maps %s to %s', async (errno, code, message) => {
    failWith(errno);
    const result = await preflightFile('/data/scan.pdf');
    expect(result).toMatchObject({ ok: false, code, path: '/data/scan.pdf', message: expect.stringMatching(message) });
    expect(stat).toHaveBeenCalledOnce();
  });
});
