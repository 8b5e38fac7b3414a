/**
 * The host's wire format (engine/host/protocol.ts): one JSON object per
 * line over the state folder's socket. Lines arrive cut anywhere (in the
 * middle of a message, of a UTF-8 character, several at once); each complete
 * line is one message, a line that is not JSON is dropped, and nothing is
 * written to a socket that can no longer take it.
 */
import { mkdtempSync } from 'node:fs';
import { createServer, connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { once } from 'node:events';
import { describe, expect, it } from 'vitest';
import { hostSocketPath, readMessages, send, type ClientMessage, type HostMessage } from '../../../src/engine/host/protocol.js';

/** A stream standing in for the socket: what is written to it can be read back from it. */
function fakeSocket(): Socket & PassThrough {
  return new PassThrough() as unknown as Socket & PassThrough;
}

/** Lets the stream deliver what was written (its `data` events) before the test looks. */
const drained = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

function received(socket: Socket): unknown[] {
  const messages: unknown[] = [];
  readMessages<unknown>(socket, (message) => messages.push(message));
  return messages;
}

describe('hostSocketPath', () => {
  it('is host.sock in the state folder', () => {
    expect(hostSocketPath('/state/docextract')).toBe('/state/docextract/host.sock');
  });
});

describe('readMessages', () => {
  it('parses each complete line as one message, in order, however the bytes are cut', async () => {
    const socket = fakeSocket();
    const messages = received(socket);
    const lines = `${JSON.stringify({ type: 'welcome', hostPid: 7 })}\n${JSON.stringify({ type: 'chunk', id: 3, done: 1, total: 4 })}\n`;
    socket.write(lines.slice(0, 5));
    await drained();
    expect(messages).toEqual([]);
    const second = lines.indexOf('\n') + 3; // the first line and two bytes of the next
    socket.write(lines.slice(5, second));
    await drained();
    expect(messages).toEqual([{ type: 'welcome', hostPid: 7 }]);
    socket.write(lines.slice(second));
    await drained();
    expect(messages).toEqual([
      { type: 'welcome', hostPid: 7 },
      { type: 'chunk', id: 3, done: 1, total: 4 },
    ]);
  });

  it('holds a line without its newline until the newline comes', async () => {
    const socket = fakeSocket();
    const messages = received(socket);
    socket.write('{"type":"handover"}');
    await drained();
    expect(messages).toEqual([]);
    socket.write('\n{"type":"cancel"}\n');
    await drained();
    expect(messages).toEqual([{ type: 'handover' }, { type: 'cancel' }]);
  });

  it('reads several messages arriving in one piece, and skips empty and blank lines among them', async () => {
    const socket = fakeSocket();
    const messages = received(socket);
    socket.write('\n\n{"type":"started","id":1,"chunksTotal":null}\n   \n{"type":"charged","id":1,"credits":2}\n\n');
    await drained();
    expect(messages).toEqual([
      { type: 'started', id: 1, chunksTotal: null },
      { type: 'charged', id: 1, credits: 2 },
    ]);
  });

  it('drops a line that is not JSON and goes on with the next', async () => {
    const socket = fakeSocket();
    const messages = received(socket);
    socket.write('not json\n{"type":"refused","reason":"other terms"}\n{"type":\n');
    await drained();
    expect(messages).toEqual([{ type: 'refused', reason: 'other terms' }]);
  });

  it('decodes a UTF-8 character cut between two pieces', async () => {
    const socket = fakeSocket();
    const messages = received(socket);
    const bytes = Buffer.from(`${JSON.stringify({ type: 'notice', message: 'Rechnung für Müller' })}\n`, 'utf8');
    const cut = bytes.indexOf(Buffer.from('ü', 'utf8')) + 1; // between the two bytes of ü
    socket.write(bytes.subarray(0, cut));
    socket.write(bytes.subarray(cut));
    await drained();
    expect(messages).toEqual([{ type: 'notice', message: 'Rechnung für Müller' }]);
  });
});

describe('send', () => {
  it('writes the message as one JSON line', async () => {
    const socket = fakeSocket();
    const written: string[] = [];
    socket.on('data', (chunk: Buffer) => written.push(chunk.toString('utf8')));
    const message: ClientMessage = { type: 'collect', id: 2, jobId: 'job_1', outDir: '/out' };
    send(socket, message);
    await drained();
    expect(written.join('')).toBe('{"type":"collect","id":2,"jobId":"job_1","outDir":"/out"}\n');
  });

  it('writes nothing, and raises nothing, once the socket is ended or destroyed', async () => {
    for (const close of [(socket: PassThrough) => socket.end(), (socket: PassThrough) => socket.destroy()]) {
      const socket = fakeSocket();
      const errors: Error[] = [];
      const written: string[] = [];
      socket.on('error', (error: Error) => errors.push(error));
      socket.on('data', (chunk: Buffer) => written.push(chunk.toString('utf8')));
      close(socket);
      send(socket, { type: 'handover' });
      await drained();
      expect(written).toEqual([]);
      expect(errors).toEqual([]);
    }
  });

  it('carries messages both ways over the state folder socket', async () => {
    const stateDir = mkdtempSync(join(tmpdir(), 'docextract-protocol-'));
    const fromClient: ClientMessage[] = [];
    const server = createServer((socket) => {
      readMessages<ClientMessage>(socket, (message) => {
        fromClient.push(message);
        if (message.type === 'hello') send(socket, { type: 'welcome', hostPid: 42 });
      });
    });
    server.listen(hostSocketPath(stateDir));
    await once(server, 'listening');
    try {
      const client = connect(hostSocketPath(stateDir));
      const fromHost = new Promise<HostMessage>((resolve) => readMessages<HostMessage>(client, resolve));
      send(client, { type: 'hello', pid: 1, command: 'extract', terms: { account: 'a' } });
      expect(await fromHost).toEqual({ type: 'welcome', hostPid: 42 });
      expect(fromClient).toEqual([{ type: 'hello', pid: 1, command: 'extract', terms: { account: 'a' } }]);
      client.destroy();
    } finally {
      server.close();
    }
  });
});
