/**
 * Where an object read from a store is kept in the spool folder, and back:
 * `<spool>/<endpoint id>/objects/<bucket>/<key…>`. The bucket and key are
 * mirrored so results mirror keys as a local run mirrors paths. Pure: showing
 * a spool file as its `s3://` address loads nothing of the SDK.
 */
import { createHash } from 'node:crypto';
import { join, sep } from 'node:path';
import { objectUriOf } from '../util/object-uri.js';

/** The folder of one store's objects (by its endpoint: two stores' `b/k` are not the same object). */
export function storeSpoolDir(spoolDir: string, identity: string): string {
  return join(spoolDir, createHash('sha256').update(identity).digest('hex').slice(0, 16));
}

/** The local copy of `bucket/key` (a key checked by the caller to name a path below it). */
export function spoolPathOf(storeDir: string, bucket: string, key: string): string {
  return join(storeDir, 'objects', bucket, ...key.split('/'));
}

/** What was recorded of the object read to `spoolPathOf`: one small file per key, named by a hash (any key fits). */
export function readRecordPathOf(storeDir: string, bucket: string, key: string): string {
  return join(storeDir, 'read', `${createHash('sha256').update(`${bucket}\0${key}`).digest('hex')}.json`);
}

/** `s3://bucket/key` for a spool file: what the user named, not where it was read to; undefined for any other path. */
export function objectAddressOf(spoolDir: string, path: string): string | undefined {
  const inside = path.startsWith(`${spoolDir}${sep}`) ? path.slice(spoolDir.length + 1).split(sep) : [];
  return inside.length >= 4 && inside[1] === 'objects' ? objectUriOf(inside[2] as string, inside.slice(3).join('/')) : undefined;
}

/** The store folder, bucket and key of a spool file (`<spool>/<store>/objects/<bucket>/<key…>`); undefined for any other path. */
export function spooledObjectOf(spoolDir: string, path: string): { storeDir: string; bucket: string; key: string } | undefined {
  const inside = path.startsWith(`${spoolDir}${sep}`) ? path.slice(spoolDir.length + 1).split(sep) : [];
  if (inside.length < 4 || inside[1] !== 'objects') return undefined;
  return { storeDir: join(spoolDir, inside[0] as string), bucket: inside[2] as string, key: inside.slice(3).join('/') };
}

/** The local mirror of an `s3://bucket/prefix/` output: the run writes and reads its results here, each also put at its key. */
export function resultMirrorOf(storeDir: string, bucket: string, prefix: string): string {
  return join(storeDir, 'results', bucket, ...prefix.split('/').filter((segment) => segment !== ''));
}

/** The ETag this machine last wrote at `bucket/key`: the condition of its next overwrite. */
export function writeRecordPathOf(storeDir: string, bucket: string, key: string): string {
  return join(storeDir, 'written', `${createHash('sha256').update(`${bucket}\0${key}`).digest('hex')}.json`);
}

/** `bucket/key` of a file in a result mirror (`resultMirrorOf`), and the store's folder it is in; undefined for any other path. */
export function resultAddressOf(spoolDir: string, path: string): { storeDir: string; bucket: string; key: string } | undefined {
  const inside = path.startsWith(`${spoolDir}${sep}`) ? path.slice(spoolDir.length + 1).split(sep) : [];
  return inside.length >= 4 && inside[1] === 'results'
    ? { storeDir: join(spoolDir, inside[0] as string), bucket: inside[2] as string, key: inside.slice(3).join('/') }
    : undefined;
}
