/**
 * Shortest key we show a tail of. Real keys are `sk_` + 32 hex (35 chars);
 * for a short test key, four characters would be most of the secret.
 */
const MIN_LENGTH_TO_SHOW_TAIL = 16;

/**
 * Show an API key the only way it may ever be shown: its prefix and last four
 * characters. Used by config output, whoami, debug logs and error messages.
 */
export function redactKey(key: string): string {
  return key.length >= MIN_LENGTH_TO_SHOW_TAIL ? `sk_…${key.slice(-4)}` : 'sk_…';
}

/** Replace every occurrence of `secret` in `text` with its redacted form. */
export function redactSecret(text: string, secret: string | undefined): string {
  if (!secret) return text;
  return text.split(secret).join(redactKey(secret));
}

/** The flag whose value is never kept or shown (commander takes it as `--api-key <key>` and `--api-key=<key>`). */
const KEY_FLAG = '--api-key';

/** What stands for a key taken out of a command line. */
const REDACTED_KEY_ARGUMENT = '***';

/**
 * A command line as it may be kept or shown (`commands.json`, `docextract
 * jobs`, what a command tells the one hosting the state folder): the value
 * of `--api-key` replaced by `***`, in both its forms. Only the flag's own
 * value: a key that is nowhere in the form of the flag is not guessed at.
 */
export function redactKeyArguments(args: readonly string[]): string[] {
  return args.map((arg, index) => {
    if (index > 0 && args[index - 1] === KEY_FLAG) return REDACTED_KEY_ARGUMENT;
    if (arg.startsWith(`${KEY_FLAG}=`)) return `${KEY_FLAG}=${REDACTED_KEY_ARGUMENT}`;
    return arg;
  });
}
