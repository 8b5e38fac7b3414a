import { DocextractError } from '../util/docextract-error.js';

/**
 * A request to object storage that failed after the SDK's own retries: its
 * code says which kind (no credentials, refused, changed under us), its
 * message names the object and what the store said.
 */
export class ObjectStoreError extends DocextractError {
  constructor(
    readonly code: 'object_store_credentials' | 'object_store_denied' | 'object_not_found' | 'object_changed' | 'object_store_failed',
    message: string,
  ) {
    super(message);
    this.name = 'ObjectStoreError';
  }
}

/** The SDK's error as one of ours: by its HTTP status and name, never by its message. */
export function objectStoreError(where: string, error: unknown): ObjectStoreError {
  const status = (error as { $metadata?: { httpStatusCode?: number } } | null)?.$metadata?.httpStatusCode;
  const name = (error as { name?: string } | null)?.name ?? '';
  const said = error instanceof Error ? error.message : String(error);
  if (name === 'CredentialsProviderError')
    return new ObjectStoreError(
      'object_store_credentials',
      `${where}: no AWS credentials found (tried the environment's AWS_ACCESS_KEY_ID, the shared config and credentials files with AWS_PROFILE, SSO, web identity, the container's role, and the instance's role from the instance metadata service; off EC2, AWS_EC2_METADATA_DISABLED=true skips that probe).`,
    );
  if (status === 403) return new ObjectStoreError('object_store_denied', `${where}: access denied (${said}).`);
  if (status === 404) return new ObjectStoreError('object_not_found', `${where}: no such object or bucket.`);
  if (status === 412)
    return new ObjectStoreError(
      'object_changed',
      `${where}: the object is not the version this run knew (another writer changed it; nothing was overwritten).`,
    );
  return new ObjectStoreError('object_store_failed', `${where}: ${said}`);
}

/** An `s3://` output that cannot be used at all (no state folder to mirror it in). */
export class ObjectOutputError extends DocextractError {
  readonly code = 'invalid_option';
}
