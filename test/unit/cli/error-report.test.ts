import { describe, expect, it } from 'vitest';
import { NetworkError, ProxyAuthRequiredError, ResponseTooLargeError } from '../../../src/api/index.js';
import { InterruptedError } from '../../../src/cli/cli-errors.js';
import { describeError } from '../../../src/cli/error-report.js';
import { ExitCode } from '../../../src/cli/exit-codes.js';

describe('describeError', () => {
  it('a proxy asking for credentials is a configuration error (exit 2) whose hint shows how to encode them', () => {
    expect(describeError(new ProxyAuthRequiredError('documents'))).toEqual({
      exitCode: ExitCode.Usage,
      code: 'proxy_auth_required',
      status: 407,
      message: 'documents: the proxy answered 407 Proxy Authentication Required',
      hint: 'The proxy asks for credentials (HTTP 407). Put them in the proxy URL, percent-encoded, e.g. HTTPS_PROXY=http://user:p%40ss@proxy:3128 for the password "p@ss" (encode @ : / % # ? and spaces, as encodeURIComponent does). If the service needs no proxy, add its host to NO_PROXY.',
    });
    expect(ExitCode.Usage).toBe(2);
  });

  it('says the same whatever undici wrapped inside (the cause is never printed)', () => {
    const cause = new TypeError('fetch failed', { cause: new Error('Proxy response (407) !== 200 when HTTP Tunneling; proxy http://u:s3cret@proxy:3128') });
    const report = describeError(new ProxyAuthRequiredError('models', { cause }));
    expect(report.message).toBe('models: the proxy answered 407 Proxy Authentication Required');
    expect(JSON.stringify(report)).not.toContain('s3cret');
  });

  it('an oversized answer is a failed piece of work (exit 1) with its own code', () => {
    expect(describeError(new ResponseTooLargeError('result', 200, 1_048_576))).toEqual({
      exitCode: ExitCode.WorkFailed,
      code: 'response_too_large',
      message: 'result: HTTP 200, body larger than the 1048576-byte cap for result; stopped reading',
      hint: 'The answer was far larger than any real one (a broken server or proxy?); docextract stopped reading it. Check --base-url and any proxy; an upload that got one may have been charged.',
    });
  });

  it('other transport failures keep their mapping', () => {
    expect(describeError(new NetworkError('health', 'network failure (ECONNREFUSED)'))).toMatchObject({ exitCode: ExitCode.WorkFailed, code: 'network_error' });
  });

  it('an interrupt raised as a keystroke (raw mode) exits 130 like a SIGINT, with no hint', () => {
    expect(describeError(new InterruptedError('interrupted at the key prompt; nothing was saved.'))).toEqual({
      exitCode: ExitCode.Interrupted,
      code: 'interrupted',
      message: 'interrupted at the key prompt; nothing was saved.',
    });
    expect(ExitCode.Interrupted).toBe(130);
  });
});
