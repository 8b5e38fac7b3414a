import { DocextractError } from '../../util/docextract-error.js';

/**
 * A bad option of {@link DocExtract} (thrown by its constructor) or of one
 * of its calls (thrown synchronously by the call): nothing was opened or
 * sent. Fix the option named in `option`.
 */
export class InvalidOptionError extends DocextractError {
  /** Always `'InvalidOptionError'`. */
  override readonly name = 'InvalidOptionError';
  /**
   * @param message What is wrong with the value; the option's name is prefixed to it.
   */
  constructor(
    /** The option at fault, as named in {@link DocExtractOptions} or the call's options, e.g. `baseUrl`. */
    readonly option: string,
    message: string,
    /** `invalid_option`, or a narrower code: `invalid_api_key`, `missing_api_key` (a call that must send, on a client given no key), `insecure_transport` (plain http:// to a host that is not loopback), `invalid_setting` (a run setting the engine cannot run with: an open-job cap past 5, a TTL of nothing). */
    readonly code: string = 'invalid_option',
  ) {
    super(`${option}: ${message}`);
  }
}

/** `parse()`, its error thrown as an {@link InvalidOptionError} naming `option`. */
export function parsedOption<T>(option: string, parse: () => T): T {
  try {
    return parse();
  } catch (error) {
    throw new InvalidOptionError(option, error instanceof Error ? error.message : String(error));
  }
}
