import { readEventStream, type SseBlock } from '@reversi-arena/client';
import { describe, expect, it } from 'vitest';

/** A body that delivers `chunks` one by one, as a network may cut them. */
function body(...chunks: string[]): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  return new ReadableStream({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(encoder.encode(chunk));
      controller.close();
    },
  });
}

async function blocks(stream: ReadableStream<Uint8Array>, onComment?: (text: string) => void) {
  const read: SseBlock[] = [];
  for await (const block of readEventStream(stream, onComment)) read.push(block);
  return read;
}

describe('readEventStream', () => {
  it('reads each block the arena writes: its id, its name and its data', async () => {
    const read = await blocks(
      body('retry: 2000\n\n', 'id: 1-0\nevent: matchStarted\ndata: {"matchId":"match_1"}\n\n'),
    );
    expect(read).toEqual([
      { retry: 2000 },
      { id: '1-0', event: 'matchStarted', data: '{"matchId":"match_1"}' },
    ]);
  });

  it('reads blocks cut anywhere, across chunks, a CRLF cut in two included', async () => {
    const read = await blocks(body('id: 7', '-0\r', '\nevent: your', 'Turn\r\ndata: {}\r', '\n\r\n'));
    expect(read).toEqual([{ id: '7-0', event: 'yourTurn', data: '{}' }]);
  });

  it('takes a lone CR as a line end, and joins data lines with a newline', async () => {
    expect(await blocks(body('data: a\rdata: b\r\r'))).toEqual([{ data: 'a\nb' }]);
  });

  it('passes comments (keep-alives) to onComment, not as blocks', async () => {
    const comments: string[] = [];
    const read = await blocks(body(': keep-alive\n\n', 'data: x\n\n'), (text) => comments.push(text));
    expect(comments).toEqual(['keep-alive']);
    expect(read).toEqual([{ data: 'x' }]);
  });

  it('ignores an id holding a NUL, a retry that is not a number, and unknown fields', async () => {
    const read = await blocks(body('id: a\0b\nretry: soon\nfoo: bar\ndata: x\n\n'));
    expect(read).toEqual([{ data: 'x' }]);
  });

  it('keeps the text after one optional space, and a field with no colon as empty', async () => {
    expect(await blocks(body('data:  two spaces\ndata\n\n'))).toEqual([{ data: ' two spaces\n' }]);
  });

  it('drops a last block the stream cut before its empty line', async () => {
    expect(await blocks(body('data: whole\n\n', 'id: 9-0\ndata: cut'))).toEqual([{ data: 'whole' }]);
  });
});
