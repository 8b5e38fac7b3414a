import { isAbsolute, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { RootsListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { AllowedFolders, argumentReachesPast, isInsideFolder, realPathOf, searchedFrom } from '../index.js';
import { isObjectUri } from '../util/object-uri.js';

/** The folders (and `s3://` roots) a tool call may touch, and where the folders came from (for the refusal's words). */
export interface FolderScope {
  allowed: AllowedFolders;
  /** `roots`: the client's declared roots; `allow`: the folders named at start (`--allow`, else the working folder and `--out`). */
  from: 'roots' | 'allow';
}

/** A tool call's path outside the scope: refused before anything of it is read. */
export class PathNotAllowedError extends Error {
  readonly code = 'path_not_allowed';
}

/**
 * Where an agent may make this server read and write: the client's `roots`
 * when it declares any (asked with roots/list, asked again after
 * notifications/roots/list_changed), else the folders named at start. The
 * server's own output folder (`--out`, the user's choice) may always be
 * written to and read from. Objects are read (and results written and read
 * back) only under the `s3://` roots the user named at start (`--allow-s3`):
 * a client's roots never add one.
 */
export class AgentFolders {
  private current: Promise<FolderScope> | undefined;

  constructor(
    private readonly server: Server,
    private readonly start: { folders: readonly string[]; objectRoots: readonly string[]; cwd: string; out: string },
  ) {
    server.setNotificationHandler(RootsListChangedNotificationSchema, () => {
      this.current = undefined; // the next call asks again; a call under way keeps the list it started with
    });
  }

  /** The scope now: the client's roots are asked once, and again after each change it announces. */
  scope(): Promise<FolderScope> {
    const cached = this.current;
    if (cached) return cached;
    const loading = this.load();
    // A client that cannot announce changes is asked on every call; a failed ask is not kept.
    if (this.server.getClientCapabilities()?.roots?.listChanged) {
      this.current = loading;
      loading.catch(() => (this.current = undefined));
    }
    return loading;
  }

  /**
   * Refuses (PathNotAllowedError) each of `paths` (files, folders, globs)
   * that reaches outside the scope, before anything is listed: a glob whose
   * text cannot prove it stays below where it starts (braces, `..`, an
   * extglob) is refused whatever its base, as its expansions walk elsewhere.
   */
  async checkInputs(paths: readonly string[]): Promise<FolderScope> {
    const scope = await this.scope();
    for (const path of paths) {
      if (isObjectUri(path)) {
        if (!scope.allowed.allowsObject(path)) throw this.refusal(path, scope);
        continue;
      }
      const reaches = argumentReachesPast(path);
      if (reaches !== undefined)
        throw new PathNotAllowedError(
          `${this.shown(path)} may reach outside ${this.from(scope)} (${reaches}); nothing was searched. Name the folders or files inside them instead`,
        );
      if (!(await scope.allowed.allows(searchedFrom(path, this.start.cwd)))) throw this.refusal(path, scope);
    }
    return scope;
  }

  /** Whether `path` (a source listed by `jobs`) lies inside the scope, links followed. */
  async inside(path: string): Promise<boolean> {
    const { allowed } = await this.scope();
    return isObjectUri(path) ? allowed.allowsObject(path) : allowed.allows(resolve(this.start.cwd, path));
  }

  /** Refuses a folder or file (or `s3://` address) to write or read results at, unless it is in the scope or the server's output folder. */
  async checkResultPath(path: string): Promise<FolderScope> {
    const scope = await this.scope();
    if (isObjectUri(path)) {
      // Below an s3:// root the user allowed at start, as inputs are; nothing outside one is listed or read.
      if (!scope.allowed.allowsObject(path)) throw this.refusal(path, scope);
      return scope;
    }
    const real = await realPathOf(resolve(this.start.cwd, path));
    if (!scope.allowed.contains(real) && !isInsideFolder(await realPathOf(this.start.out), real)) throw this.refusal(path, scope);
    return scope;
  }

  private refusal(path: string, scope: FolderScope): PathNotAllowedError {
    return new PathNotAllowedError(`${this.shown(path)} is outside ${this.from(scope)}; nothing of it was read`);
  }

  /** A relative path with the absolute one it was resolved to: the agent may not know the server's working folder. */
  private shown(path: string): string {
    return isAbsolute(path) || isObjectUri(path) ? path : `${path} (${resolve(this.start.cwd, path)})`;
  }

  private from(scope: FolderScope): string {
    const from = scope.from === 'roots' ? 'the roots your client declared' : 'the folders allowed at start (--allow)';
    const roots = scope.allowed.objectRoots;
    return `${from}: ${scope.allowed.folders.join(', ') || 'none'}; s3:// roots allowed at start (--allow-s3, or the allow-s3 setting): ${roots.join(', ') || 'none'}`;
  }

  private async load(): Promise<FolderScope> {
    if (this.server.getClientCapabilities()?.roots) {
      const { roots } = await this.server.listRoots();
      const folders = roots.filter((root) => root.uri.startsWith('file://')).map((root) => fileURLToPath(root.uri));
      if (folders.length > 0) return { allowed: await AllowedFolders.of([...folders, ...this.start.objectRoots], this.start.cwd), from: 'roots' };
    }
    return { allowed: await AllowedFolders.of([...this.start.folders, ...this.start.objectRoots], this.start.cwd), from: 'allow' };
  }
}
